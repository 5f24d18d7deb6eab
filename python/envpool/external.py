"""External episodes: environments that run their own loop and ask for actions.

The trainer side, :func:`serve`, is a pool like ``envpool.make``'s: the C++ core's protocol
checks, action validation and batching, with an external executor
(cpp/core/external_executor.h) whose slots (env ids) hold client episodes. A server thread
receives the clients' requests (ZeroMQ + msgpack, docs/external_protocol.md), completes each
episode's rows in the core, and answers ``get_action`` with the action the trainer ``send()``s.
:class:`ExternalEnv` runs the same calls in-process (an ``inproc://`` ZeroMQ transport, no
network) for RLlib-style ``run()`` loops.
"""

from __future__ import annotations

import collections
import hmac
import os
import threading
import time
import uuid
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from envpool import _core, _wire
from envpool.pool import OpenedPool, _check_int
from envpool.tasks import TaskSpec
from envpool.vector_env import EnvPoolVectorEnv

# Requests of one episode queued while its last row waits for the trainer.
MAX_QUEUED = 16
# Requests the server thread reads before it answers the trainer's sends again (measured on
# the pipelined bench row: 1024 beats 64 and 16, whose extra polls cost more than they save).
BURST = 1024
# Ended episode ids remembered, so that a late call names the episode as ended, not unknown.
ENDED_MEMORY = 65536


def serve(
    observation_space: spaces.Space,
    action_space: spaces.Space,
    *,
    address: str = "127.0.0.1:0",
    batch_size: int = 1,
    max_episodes: int = 1024,
    wait_ms: float = 1.0,
    token: str | None = None,
    client_timeout: float = 10.0,
    max_frame_bytes: int | None = None,
) -> "ExternalVectorEnv":
    """A pool of external episodes: clients (:class:`envpool.PolicyClient`) drive episodes and
    ask for actions; the trainer answers them with the asynchronous ``recv`` / ``send`` loop.

    Args:
        observation_space, action_space: one Box, Discrete, MultiDiscrete or MultiBinary each.
        address: ``"host:port"`` to bind (port 0 picks a free one; read ``server.address``);
            loopback by default. Any ZeroMQ endpoint (``"tcp://..."``, ``"ipc://..."``,
            ``"inproc://..."``) is taken as is.
        batch_size: at most this many episodes per ``recv()``.
        max_episodes: concurrent episodes (slots, the pool's ``num_envs``); an ended episode
            frees its slot once the trainer has answered its last row.
        wait_ms: a batch that has rows is returned this long after its first row arrived,
            full or not (never empty).
        token: when given, every connection must present it first (constant-time compare).
        client_timeout: seconds without a message (clients send heartbeats) after which a
            client counts as gone: its episodes end as truncated.
        max_frame_bytes: frames larger than this are refused by ZeroMQ (the connection drops);
            default: 64 KiB plus 4 observations and actions.

    >>> import envpool, gymnasium as gym, numpy as np
    >>> server = envpool.serve(gym.spaces.Box(-1, 1, (3,)), gym.spaces.Discrete(2))
    >>> client = envpool.PolicyClient(server.address)
    >>> import threading
    >>> eid = client.start_episode()
    >>> t = threading.Thread(target=lambda: print(client.get_action(eid, np.zeros(3, np.float32))))
    >>> t.start()
    >>> obs, reward, terminated, truncated, info = server.recv(timeout=5)
    >>> info["episode_id"][0] == eid
    True
    >>> server.send(np.array([1]), info["env_id"]); t.join()
    1
    >>> client.close(); server.close()
    """
    source = ExternalSource(
        observation_space,
        action_space,
        address=address,
        batch_size=batch_size,
        max_episodes=max_episodes,
        wait_ms=wait_ms,
        token=token,
        client_timeout=client_timeout,
        max_frame_bytes=max_frame_bytes,
    )
    return ExternalVectorEnv(source)


def _endpoint(address: str) -> str:
    if "://" in address:
        return address
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"address must be 'host:port' or a ZeroMQ endpoint, got {address!r}")
    return f"tcp://{host}:{port}"


class ExternalSource:
    """serve()'s arguments, checked; opens the pool and its server when the front end asks."""

    def __init__(self, observation_space, action_space, *, address, batch_size, max_episodes, wait_ms, token,
                 client_timeout, max_frame_bytes, name="external"):
        _wire.import_zmq_msgpack()
        self.obs_spec = _wire.single_leaf(observation_space, "obs")
        self.action_spec = _wire.single_leaf(action_space, "action")
        self.observation_space, self.action_space = observation_space, action_space
        self.max_episodes = _check_int("max_episodes", max_episodes, 1)
        self.batch_size = _check_int("batch_size", batch_size, 1)
        if self.batch_size > self.max_episodes:
            raise ValueError(f"batch_size ({self.batch_size}) must not exceed max_episodes ({self.max_episodes})")
        if isinstance(wait_ms, bool) or not isinstance(wait_ms, (int, float)) or not wait_ms >= 0:
            raise ValueError(f"wait_ms must be a number >= 0, got {wait_ms!r}")
        self.wait_ms = float(wait_ms)
        if token is not None and (not isinstance(token, str) or not token):
            raise ValueError("token must be a non-empty str or None")
        self.token = token
        if isinstance(client_timeout, bool) or not isinstance(client_timeout, (int, float)) or not client_timeout > 0:
            raise ValueError(f"client_timeout must be a positive number of seconds, got {client_timeout!r}")
        self.client_timeout = float(client_timeout)
        need = 2 * (_wire.row_bytes(self.obs_spec) + _wire.row_bytes(self.action_spec))
        self.max_frame_bytes = 65536 + 2 * need if max_frame_bytes is None else _check_int("max_frame_bytes", max_frame_bytes, 1024)
        self.endpoint = _endpoint(address)
        self.name = name

    def open_pool(self) -> OpenedPool:
        pool = ExternalPool(self)
        task_spec = TaskSpec(
            task_id=self.name,
            observation_space=self.observation_space,
            action_space=self.action_space,
            config={},
            max_episode_steps=None,
            reward_threshold=None,
            info_keys=("env_id", "elapsed_step", "episode_id", "training_enabled", "logged_action", "_logged_action",
                       "client_info"),
            render_shape=None,
        )
        from gymnasium.vector import AutoresetMode

        return OpenedPool(pool=pool, task_spec=task_spec, num_envs=self.max_episodes, batch_size=self.batch_size,
                          num_threads=1, max_episode_steps=None, autoreset_mode=AutoresetMode.NEXT_STEP,
                          render_mode=None, config={})


class _Episode:
    __slots__ = ("id", "client", "slot", "training", "reward", "info", "last_obs", "state", "reply_to", "queue")

    def __init__(self, episode_id: str, client: bytes, slot: int, training: bool):
        self.id = episode_id
        self.client = client
        self.slot = slot
        self.training = training
        self.reward = 0.0  # logged since the last row
        self.info: dict | None = None
        self.last_obs: bytes | None = None
        self.state = "new"  # new (no row yet) | trainer (row unanswered) | client (answered)
        self.reply_to: tuple[bytes, Any] | None = None  # a get_action waiting for the trainer
        self.queue: collections.deque = collections.deque()


class _Client:
    __slots__ = ("id", "last_seen", "episodes")

    def __init__(self, client_id: bytes):
        self.id = client_id
        self.last_seen = time.monotonic()
        self.episodes: set[str] = set()


class ExternalPool:
    """The core pool of external slots plus the server thread that completes their rows; has
    the methods the front ends call (``send``, ``recv``, ``step``, ``close``, ...)."""

    def __init__(self, source: ExternalSource):
        zmq, msgpack = _wire.import_zmq_msgpack()
        self._zmq, self._msgpack = zmq, msgpack
        self.source = source
        self.obs_spec, self.action_spec = source.obs_spec, source.action_spec
        spec = {
            "obs": [self.obs_spec],
            "action": [self.action_spec],
            "info": [
                {**self.action_spec, "name": "logged_action"},
                dict(name="_logged_action", dtype="bool", shape=[], low=[], high=[], discrete=False),
            ],
            "obs_is_tuple": False,
        }
        self.core = _core.Pool.for_external(source.name, spec, source.max_episodes, source.batch_size, source.wait_ms)
        self.num_envs, self.batch_size = source.max_episodes, source.batch_size
        self.max_episode_steps = 0
        n = source.max_episodes
        # Per slot, what recv() adds to info; written by the server thread before the row is
        # completed, stable until the trainer answers the row (the slot cannot change hands).
        self._slot_ep: list[_Episode | None] = [None] * n
        self._slot_eid = np.full(n, None, dtype=object)
        self._slot_training = np.zeros(n, dtype=bool)
        self._slot_info = np.full(n, None, dtype=object)
        self._no_action = np.zeros(_wire.row_bytes(self.action_spec), np.uint8).tobytes()
        self._logged_true = np.ones(1, np.bool_).tobytes()
        self._logged_false = np.zeros(1, np.bool_).tobytes()
        self._episodes: dict[str, _Episode] = {}
        self._ended: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._clients: dict[bytes, _Client] = {}
        self._conns: dict[bytes, bytes | None] = {}  # connection identity -> client id (None: refused)
        self._closed = False
        self.after_close: list = []  # callables run once close() stopped the server (ExternalEnv)
        self._stop_fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self._ctx = zmq.Context.instance()
        self._sock = self._ctx.socket(zmq.ROUTER)
        self._sock.setsockopt(zmq.MAXMSGSIZE, source.max_frame_bytes)
        self._sock.setsockopt(zmq.LINGER, 500)
        self._sock.setsockopt(zmq.SNDHWM, 0)
        self._sock.setsockopt(zmq.RCVHWM, 0)
        try:
            self._sock.bind(source.endpoint)
            endpoint = self._sock.getsockopt_string(zmq.LAST_ENDPOINT)
            self.address = endpoint[len("tcp://"):] if endpoint.startswith("tcp://") else endpoint
            self.core.send_reset(None, None, None, False)  # every slot starts free ...
            self.core.ext_take_answers()  # ... as soon as this thread has taken the answers
        except BaseException:
            self._sock.close(0)
            os.close(self._stop_fd)
            self.core.close()
            raise
        self._pack = msgpack.Packer(use_bin_type=True).pack
        # Plain ints, frame by frame: pyzmq's *_multipart helpers do enum arithmetic and a
        # getsockopt per frame, a visible share of the server thread's time per round trip.
        self._noblock = int(zmq.NOBLOCK)
        self._more = int(zmq.NOBLOCK | zmq.SNDMORE)
        # The cython Socket.send, bound: pyzmq's Python-level send() wrapper only adds the
        # routing_id/group (draft) handling we never use, ~0.5 us a frame.
        self._sock_send = zmq.Socket.__mro__[1].send.__get__(self._sock)
        # get_action's answer header, packed once but for its rid: {"rid": ..., "ok": true,
        # "action": {"dtype", "shape"}} as a 3-entry msgpack map (fixmap 0x83).
        self._answer_head = b"\x83" + self._pack("rid")
        self._answer_tail = self._pack("ok") + self._pack(True) + self._pack("action") + self._pack(
            _wire.describe(self.action_spec))
        self._action_bytes = _wire.row_bytes(self.action_spec)
        self._thread = threading.Thread(target=self._serve, name="envpool-external-server", daemon=True)
        self._thread.start()

    # -- the front ends' side ----------------------------------------------------------------------

    def send_reset(self, env_id, seeds, keep, wait_follows):
        raise RuntimeError("external episodes are started by clients (start_episode), not by reset(); use recv()")

    def send(self, actions, env_id=None):
        self.core.send(actions, env_id)

    def recv(self, timeout: float = -1.0):
        return self._finish(self.core.recv(timeout))

    def step(self, actions, env_id=None, timeout: float = -1.0):
        return self._finish(self.core.step(actions, env_id, timeout))

    def _finish(self, result):
        obs, reward, terminated, truncated, info = result
        ids = info["env_id"]
        info["episode_id"] = self._slot_eid[ids]
        info["training_enabled"] = self._slot_training[ids]
        info["client_info"] = self._slot_info[ids]
        return obs, reward, terminated, truncated, info

    def render(self, env_id=None):
        raise ValueError("external episodes do not render here")

    def get_state(self, env_id):
        raise ValueError("external episodes do not expose their state")

    set_state = get_state

    @property
    def in_flight(self) -> int:
        return self.core.in_flight

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Tells the clients (their waiting calls fail with code ``closed``), stops the server
        thread and closes the core. Never hangs."""
        if self._closed:
            return
        self._closed = True
        os.eventfd_write(self._stop_fd, 1)
        self._thread.join()
        os.close(self._stop_fd)
        self.core.close()
        for fn in self.after_close:
            fn()

    # -- the server thread ------------------------------------------------------------------------

    def _serve(self) -> None:
        zmq = self._zmq
        poller = zmq.Poller()
        poller.register(self._sock, zmq.POLLIN)
        event_fd = self.core.ext_event_fd
        poller.register(event_fd, zmq.POLLIN)
        poller.register(self._stop_fd, zmq.POLLIN)
        check_every = min(0.25, self.source.client_timeout / 4)
        next_check = time.monotonic() + check_every
        unpack = self._msgpack.unpackb
        try:
            while True:
                ready = dict(poller.poll(int(check_every * 1000) + 1))
                if self._stop_fd in ready:
                    break
                if event_fd in ready:
                    self._answer()
                if self._sock in ready:
                    for _ in range(BURST):  # then answer the trainer's sends, then read more
                        try:
                            frames = self._recv_frames()
                        except zmq.Again:
                            break
                        self._handle(frames, unpack)
                now = time.monotonic()
                if now >= next_check:
                    next_check = now + check_every
                    self._expire_clients(now)
        finally:
            self._shutdown()

    def _shutdown(self) -> None:
        notice = {"ok": False, "code": "closed", "error": "the server closed"}
        for ep in list(self._episodes.values()):
            if ep.reply_to is not None:
                self._reply(ep.reply_to, notice)
            for item in ep.queue:
                if item[1] is not None:
                    self._reply(item[1], notice)
        for conn, client in self._conns.items():
            if client is not None:
                self._send(conn, {"rid": None, **notice})
        self._sock.close(linger=500)

    def _recv_frames(self) -> list[bytes]:
        # Frames, not copies: a Frame carries its RCVMORE flag (read with a raw getsockopt),
        # where Socket.get(RCVMORE) costs an enum lookup, ~3.5 us a frame.
        recv, flags = self._sock.recv, self._noblock
        frame = recv(flags, copy=False)
        frames = [frame.bytes]
        while frame.more:
            frame = recv(flags, copy=False)
            frames.append(frame.bytes)
        return frames

    def _send(self, conn: bytes, header: dict | bytes, *frames: bytes) -> None:
        """``header``: a map to pack, or one packed already."""
        send, more = self._sock_send, self._more
        if not isinstance(header, bytes):
            header = self._pack(header)
        try:
            send(conn, more)
            if frames:
                send(header, more)
                for frame in frames[:-1]:
                    send(frame, more)
                send(frames[-1], self._noblock)
            else:
                send(header, self._noblock)
        except self._zmq.ZMQError:
            pass  # the connection is gone (ROUTER drops messages to unknown peers): nobody to tell

    def _reply(self, to: tuple[bytes, Any], header: dict, *frames: bytes) -> None:
        self._send(to[0], {"rid": to[1], **header}, *frames)

    def _error(self, to, code: str, message: str) -> None:
        self._reply(to, {"ok": False, "code": code, "error": message})

    def _handle(self, frames: list[bytes], unpack) -> None:
        conn = frames[0]
        to: tuple[bytes, Any] = (conn, None)
        try:
            header = unpack(frames[1], raw=False) if len(frames) > 1 else None
        except Exception as err:  # msgpack raises several types for malformed data
            self._error(to, "bad_request", f"the header frame is not msgpack: {type(err).__name__}: {err}")
            return
        if not isinstance(header, dict):
            self._error(to, "bad_request", "the header frame must be a msgpack map")
            return
        to = (conn, header.get("rid"))
        op = header.get("op")
        client_id = self._conns.get(conn)
        if op == "hello":
            self._hello(conn, to, header)
            return
        if client_id is None:
            # Nothing but hello is read before a connection authenticated: no episode,
            # space or id leaks to it.
            self._error(to, "unauthenticated", "send hello (with the server's token) first")
            return
        client = self._clients.get(client_id)
        if client is None:
            client = self._clients[client_id] = _Client(client_id)
        client.last_seen = time.monotonic()
        try:
            if op == "get_action" and len(frames) == 3 and header.get("v") == _wire.VERSION:
                # The hot path (a get_action for an episode whose last row was answered), with
                # the same checks and errors as the general path below.
                eid = header.get("episode_id")
                ep = self._episodes.get(eid) if type(eid) is str else None
                if ep is not None and ep.client == client_id and ep.state != "trainer" and not ep.queue:
                    _wire.check_array("obs", header.get("obs"), frames[2], self.obs_spec)
                    self._complete(ep, frames[2], None, False, False)
                    ep.reply_to = to
                    return
            if op == "ping":
                return
            if op == "bye":
                self._drop_client(client)
                return
            if header.get("v") != _wire.VERSION:
                raise _Refused("bad_request", f"protocol version {header.get('v')!r} is not {_wire.VERSION}")
            if op == "start_episode":
                self._start(client, to, header)
                return
            if op not in ("get_action", "log_action", "log_returns", "end_episode"):
                raise _Refused("bad_request", f"unknown op {op!r}")
            ep = self._episode(client, header.get("episode_id"))
            item = self._parse(op, header, frames[2:], to)
            if ep.state == "trainer" or ep.queue:
                if op == "log_returns" and not ep.queue:
                    self._apply(ep, item)  # belongs to the next row either way
                    return
                if len(ep.queue) >= MAX_QUEUED:
                    raise _Refused("busy", f"episode {ep.id!r} has {MAX_QUEUED} calls waiting for the trainer")
                ep.queue.append(item)
                return
            self._apply(ep, item)
        except _Refused as err:
            self._error(to, err.code, err.message)
        except ValueError as err:
            self._error(to, "bad_request", str(err))
        except Exception as err:  # a bug of ours: the caller hears of it, the server goes on
            self._error(to, "internal", f"{type(err).__name__}: {err}")

    def _hello(self, conn: bytes, to, header: dict) -> None:
        token = header.get("token")
        expected = self.source.token
        if expected is not None and not (
            isinstance(token, str) and hmac.compare_digest(token.encode(), expected.encode())
        ):
            self._conns[conn] = None
            self._error(to, "auth", "wrong token")
            return
        client_id = header.get("client")
        if not isinstance(client_id, str) or not client_id or len(client_id) > 256:
            self._error(to, "bad_request", "hello needs a 'client' id (a non-empty str)")
            return
        key = client_id.encode()
        self._conns[conn] = key
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = _Client(key)
        client.last_seen = time.monotonic()
        self._reply(to, {
            "ok": True,
            "v": _wire.VERSION,
            "obs": _wire.describe(self.obs_spec),
            "action": _wire.describe(self.action_spec),
            "max_frame_bytes": self.source.max_frame_bytes,
            "client_timeout": self.source.client_timeout,
        })

    def _start(self, client: _Client, to, header: dict) -> None:
        eid = header.get("episode_id")
        if eid is None:
            eid = uuid.uuid4().hex
        if not isinstance(eid, str) or not eid or len(eid) > 256:
            raise _Refused("bad_request", f"episode_id must be a non-empty str of at most 256 chars, got {eid!r}")
        if eid in self._episodes or eid in self._ended:
            raise _Refused("duplicate_episode", f"episode {eid!r} already exists")
        training = header.get("training_enabled", True)
        if not isinstance(training, bool):
            raise _Refused("bad_request", "training_enabled must be a bool")
        slot = self.core.ext_acquire()
        if slot < 0:
            raise _Refused("too_many_episodes", f"all max_episodes={self.num_envs} slots hold episodes "
                           "(or wait for the trainer to answer their last row)")
        ep = _Episode(eid, client.id, slot, training)
        self._episodes[eid] = ep
        client.episodes.add(eid)
        self._slot_ep[slot] = ep
        self._reply(to, {"ok": True, "episode_id": eid})

    def _episode(self, client: _Client, eid: Any) -> _Episode:
        if not isinstance(eid, str):
            raise _Refused("bad_request", f"episode_id must be a str, got {eid!r}")
        ep = self._episodes.get(eid)
        if ep is None:
            if eid in self._ended:
                raise _Refused("episode_ended", f"episode {eid!r} has ended")
            raise _Refused("unknown_episode", f"no episode {eid!r} (start_episode first)")
        if ep.client != client.id:
            raise _Refused("unknown_episode", f"no episode {eid!r} (start_episode first)")
        return ep

    def _parse(self, op: str, header: dict, arrays: list[bytes], to) -> tuple:
        """Checks a request's arguments; (op, to, obs bytes, action bytes, reward, info, truncated)."""
        want = {"get_action": 1, "log_action": 2, "log_returns": 0, "end_episode": 1}[op]
        if len(arrays) != want:
            raise ValueError(f"{op} carries {want} array frame(s), got {len(arrays)}")
        obs = action = None
        if want:
            _wire.check_array("obs", header.get("obs"), arrays[0], self.obs_spec)
            obs = arrays[0]
        if op == "log_action":
            _wire.check_array("action", header.get("action"), arrays[1], self.action_spec)
            action = arrays[1]
        reward, info, truncated = 0.0, None, False
        if op == "log_returns":
            reward = header.get("reward")
            if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not np.isfinite(reward):
                raise ValueError(f"reward must be a finite number, got {reward!r}")
            info = header.get("info")
            if info is not None and not isinstance(info, dict):
                raise ValueError("info must be a map or nil")
        if op == "end_episode":
            truncated = header.get("truncated", False)
            if not isinstance(truncated, bool):
                raise ValueError("truncated must be a bool")
        return (op, to, obs, action, float(reward), info, truncated)

    def _apply(self, ep: _Episode, item: tuple) -> None:
        op, to, obs, action, reward, info, truncated = item
        if op == "log_returns":
            ep.reward += reward
            if info:
                ep.info = {**(ep.info or {}), **info}
            self._reply(to, {"ok": True})
            return
        if op == "end_episode":
            self._end(ep, obs, truncated)
            if to is not None:
                self._reply(to, {"ok": True})
            return
        self._complete(ep, obs, action, False, False)
        if op == "get_action":
            ep.reply_to = to
        else:
            self._reply(to, {"ok": True})

    def _complete(self, ep: _Episode, obs: bytes, action: bytes | None, terminated: bool, truncated: bool) -> None:
        s = ep.slot
        self._slot_eid[s] = ep.id
        self._slot_training[s] = ep.training
        self._slot_info[s] = ep.info
        self.core.ext_complete(
            s,
            [obs],
            [action if action is not None else self._no_action,
             self._logged_true if action is not None else self._logged_false],
            ep.reward,
            terminated,
            truncated,
        )
        ep.reward, ep.info, ep.last_obs, ep.state = 0.0, None, obs, "trainer"

    def _end(self, ep: _Episode, obs: bytes | None, truncated: bool) -> None:
        """Ends an episode whose last row is answered (or that has none): a terminal row, or -
        with no row yet - just its slot back."""
        del self._episodes[ep.id]
        self._ended[ep.id] = None
        if len(self._ended) > ENDED_MEMORY:
            self._ended.popitem(last=False)
        client = self._clients.get(ep.client)
        if client is not None:
            client.episodes.discard(ep.id)
        if ep.state == "new":
            self._slot_ep[ep.slot] = None
            self.core.ext_release(ep.slot)
            return
        self._complete(ep, obs if obs is not None else ep.last_obs, None, not truncated, truncated)

    def _answer(self) -> None:
        slots, stepped, (actions,) = self.core.ext_take_answers()
        if self._closed:
            return
        # One bytes object for every row's action, sliced per reply (no numpy scalar per row).
        rows, rb = actions.tobytes(), self._action_bytes
        head, tail, pack, send = self._answer_head, self._answer_tail, self._pack, self._send
        stepped = stepped.tolist()
        for i, s in enumerate(slots.tolist()):
            ep = self._slot_ep[s]
            if not stepped[i]:
                self._slot_ep[s] = None  # the episode's last row was answered: the slot is free
                continue
            if ep is None:
                continue
            if ep.reply_to is not None:
                conn, rid = ep.reply_to
                send(conn, head + pack(rid) + tail, rows[i * rb:(i + 1) * rb])
                ep.reply_to = None
            ep.state = "client"
            while ep.queue and ep.state != "trainer" and ep.id in self._episodes:
                self._apply(ep, ep.queue.popleft())

    def _drop_client(self, client: _Client) -> None:
        """A client left (bye) or went silent: its episodes end as truncated."""
        self._clients.pop(client.id, None)
        for conn in [c for c, cid in self._conns.items() if cid == client.id]:
            del self._conns[conn]
        for eid in list(client.episodes):
            ep = self._episodes.get(eid)
            if ep is None:
                continue
            ep.reply_to = None  # nobody waits any more
            ep.queue.clear()
            if ep.state == "trainer":
                ep.queue.append(("end_episode", None, None, None, 0.0, None, True))
            else:
                self._end(ep, None, True)

    def _expire_clients(self, now: float) -> None:
        limit = now - self.source.client_timeout
        for client in [c for c in self._clients.values() if c.last_seen < limit]:
            self._drop_client(client)


class _Refused(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class ExternalVectorEnv(EnvPoolVectorEnv):
    """The trainer's side of :func:`serve` / :meth:`ExternalEnv.open`: a gymnasium
    ``VectorEnv`` whose envs are client episodes (``num_envs`` = ``max_episodes`` slots).

    Use the asynchronous loop: ``recv()`` returns up to ``batch_size`` episodes waiting for an
    action; ``send(actions, info["env_id"])`` answers them. ``info`` adds ``episode_id``,
    ``training_enabled``, ``logged_action`` / ``_logged_action`` (off-policy actions the
    client took itself, and where) and ``client_info`` (the ``info`` of ``log_returns``).
    ``reset()`` waits for the first batch; ``step(actions)`` answers the last batch and
    waits for the next.
    """

    def __init__(self, source):
        super().__init__(source)
        self._last_ids = None

    @property
    def address(self) -> str:
        """The bound address (``"127.0.0.1:PORT"`` for TCP), for ``PolicyClient``."""
        return self._pool.address

    def reset(self, *, seed=None, options=None):
        if seed is not None or options:
            raise ValueError("external episodes are seeded and started by their clients: reset() takes no seed or options")
        obs, _, _, _, info = self.recv()
        return obs, info

    def recv(self, timeout: float | None = None):
        result = super().recv(timeout)
        self._last_ids = result[4]["env_id"]
        return result

    def step(self, actions, env_id=None, timeout: float | None = None):
        if env_id is None:
            if self._last_ids is None:
                raise RuntimeError("step() answers the last recv()'s episodes: call reset() or recv() first")
            env_id = self._last_ids
        self._last_ids = None
        self.send(actions, env_id)
        return self.recv(timeout)


class ExternalEnv:
    """An environment that runs its own loop and asks for actions, in this process (RLlib's
    ``ExternalEnv`` pattern): subclass it, write :meth:`run` with the same calls a
    :class:`envpool.PolicyClient` makes, and :meth:`open` it as a pool. ``run()`` runs in
    ``num_runners`` threads; the calls travel over an in-process ZeroMQ transport (no network)
    to the same server, so the trainer sees the same recv/send, checks and info as with
    :func:`serve`.

    >>> import envpool, gymnasium as gym, numpy as np
    >>> class Counter(envpool.ExternalEnv):
    ...     def run(self):
    ...         eid = self.start_episode()
    ...         for t in range(3):
    ...             action = self.get_action(eid, np.array([t], np.float32))
    ...             self.log_returns(eid, float(action))
    ...         self.end_episode(eid, np.array([3], np.float32))
    >>> envs = Counter(gym.spaces.Box(0, 10, (1,)), gym.spaces.Discrete(2)).open()
    >>> obs, info = envs.reset()
    >>> rewards = []
    >>> for _ in range(3):
    ...     obs, reward, terminated, truncated, info = envs.step(np.array([1]))
    ...     rewards.append(float(reward[0]))
    >>> rewards, bool(terminated[0])
    ([1.0, 1.0, 1.0], True)
    >>> envs.close()
    """

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space):
        self.observation_space = observation_space
        self.action_space = action_space
        self._client = None
        self._runners: list[threading.Thread] = []
        self.errors: list[BaseException] = []  # what run() raised, other than the pool closing

    def run(self) -> None:
        """The environment's own loop: start episodes, ask for actions, log returns, end them."""
        raise NotImplementedError("subclass ExternalEnv and implement run()")

    def open(self, *, batch_size: int = 1, max_episodes: int = 1024, wait_ms: float = 1.0, num_runners: int = 1,
             timeout: float = 60.0) -> ExternalVectorEnv:
        """Starts ``num_runners`` threads running :meth:`run` and returns the trainer's pool
        (an :class:`ExternalVectorEnv`). Closing the pool ends the calls waiting in ``run()``
        (they raise :class:`envpool.ExternalError` with code ``closed``) and joins the threads."""
        from envpool.policy_client import PolicyClient

        if self._client is not None:
            raise RuntimeError("this ExternalEnv is already open")
        num_runners = _check_int("num_runners", num_runners, 1)
        address = f"inproc://envpool-external-{uuid.uuid4().hex}"
        pool = serve(self.observation_space, self.action_space, address=address, batch_size=batch_size,
                     max_episodes=max_episodes, wait_ms=wait_ms)
        self._client = PolicyClient(address, timeout=timeout)
        pool._pool.after_close.append(self._stop_runners)
        for i in range(num_runners):
            t = threading.Thread(target=self._run, name=f"envpool-external-env-{i}", daemon=True)
            self._runners.append(t)
            t.start()
        return pool

    def _run(self) -> None:
        try:
            self.run()
        except _wire.ExternalError as err:
            if err.code != "closed":
                self.errors.append(err)
        except BaseException as err:  # kept for the trainer to inspect; the thread ends
            self.errors.append(err)

    def _stop_runners(self) -> None:
        client = self._client
        client._closed = True  # later calls fail at once; waiting ones got the server's "closed"
        for t in self._runners:
            t.join(timeout=5.0)
        if not any(t.is_alive() for t in self._runners):
            client._closed = False
            client.close()

    def start_episode(self, episode_id: str | None = None, training_enabled: bool = True) -> str:
        return self._client.start_episode(episode_id, training_enabled)

    def get_action(self, episode_id: str, obs) -> Any:
        return self._client.get_action(episode_id, obs)

    def log_action(self, episode_id: str, obs, action) -> None:
        self._client.log_action(episode_id, obs, action)

    def log_returns(self, episode_id: str, reward: float, info: dict | None = None) -> None:
        self._client.log_returns(episode_id, reward, info)

    def end_episode(self, episode_id: str, obs, truncated: bool = False) -> None:
        self._client.end_episode(episode_id, obs, truncated)
