"""External episodes: environments that run their own loop and ask for actions.

The trainer side, :func:`serve`, is a pool like ``envpool.make``'s: the C++ core's protocol
checks, action validation and batching, with an external executor
(cpp/core/external_executor.h) whose slots (env ids) hold client episodes. A server thread
receives the clients' requests (ZeroMQ + msgpack, docs/external_protocol.md; the socket and
its bounds are envpool._ext_transport's), completes each episode's rows in the core, and
answers ``get_action`` with the action the trainer ``send()``s. :class:`ExternalEnv` runs the
same calls in-process (over a Unix socket in a private directory) for RLlib-style ``run()``
loops.
"""

from __future__ import annotations

import collections
import hmac
import itertools
import math
import os
import shutil
import tempfile
import threading
import time
import uuid
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from envpool import _core, _wire
from envpool._ext_options import ExternalOptions
from envpool._ext_transport import Conn, StreamTransport
from envpool._wire import brief
from envpool.pool import OpenedPool, _check_int
from envpool.tasks import TaskSpec
from envpool.vector_env import EnvPoolVectorEnv

# Requests of one episode queued while its last row waits for the trainer.
MAX_QUEUED = 16
# Requests the server thread reads before it answers the trainer's sends again (measured on
# the pipelined bench row: 1024 beats 64 and 16, whose extra polls cost more than they save).
BURST = 1024
# Ended episode ids remembered (over all clients), so that a late call names the episode as
# ended, not unknown, and its id is not started again.
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
    max_message_bytes: int | None = None,
    max_send_queue: int | None = None,
    max_episodes_per_client: int | None = None,
) -> "ExternalVectorEnv":
    """A pool of external episodes: clients (:class:`envpool.PolicyClient`) drive episodes and
    ask for actions; the trainer answers them with the asynchronous ``recv`` / ``send`` loop.

    Args:
        observation_space, action_space: one Box, Discrete, MultiDiscrete or MultiBinary each.
        address: ``"host:port"`` to bind (port 0 picks a free one; read ``server.address``);
            loopback by default. A ZeroMQ ``"tcp://..."`` or ``"ipc://..."`` endpoint is taken
            as is (``inproc://`` is not supported: use ``ipc://`` within one host).
        batch_size: at most this many episodes per ``recv()``.
        max_episodes: concurrent episodes (slots, the pool's ``num_envs``); an ended episode
            frees its slot once the trainer has answered its last row.
        wait_ms: a batch that has rows is returned this long after its first row arrived,
            full or not (never empty).
        token: when given, every connection must present it first (constant-time compare).
        client_timeout: seconds without a message (clients send heartbeats) after which a
            client counts as gone: its episodes end as truncated. A connection that has not
            authenticated this long after it opened is closed.
        max_frame_bytes: the largest frame (a request header or an array) the server reads;
            default: 64 KiB plus 4 observations and actions. At least one observation and one
            action.
        max_message_bytes: the largest request (all its frames); default: ``max_frame_bytes``
            plus an observation and an action. A larger message, or one of more than 3 frames,
            is dropped as it arrives (never held whole) and answered with code ``too_large``.
        max_send_queue: replies queued for one connection that its client has not read yet;
            beyond that its replies are dropped (its calls time out; nobody else waits).
            Default: 4 per episode a client may hold, at least 1000 (the trainer answers a
            batch at once: a client that reads must never see one dropped).
        max_episodes_per_client: open episodes one client may hold (default: ``max_episodes``,
            no limit of its own); lower it so that one client cannot take every slot.

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
        max_message_bytes=max_message_bytes,
        max_send_queue=max_send_queue,
        max_episodes_per_client=max_episodes_per_client,
    )
    return ExternalVectorEnv(source)


class ExternalSource(ExternalOptions):
    """serve()'s arguments, checked; opens the pool and its server when the front end asks."""

    def open_pool(self) -> OpenedPool:
        pool = ExternalPool(self)
        task_spec = TaskSpec(
            task_id=self.name,
            observation_space=self.observation_space,
            action_space=self.action_space,
            config={},
            max_episode_steps=None,
            reward_threshold=None,
            info_keys=("env_id", "elapsed_step", "episode_id", "client_number", "training_enabled", "logged_action",
                       "_logged_action", "client_info"),
            render_shape=None,
        )
        from gymnasium.vector import AutoresetMode

        return OpenedPool(pool=pool, task_spec=task_spec, num_envs=self.max_episodes, batch_size=self.batch_size,
                          num_threads=1, max_episode_steps=None, autoreset_mode=AutoresetMode.NEXT_STEP,
                          render_mode=None, config={})


class _Client:
    """A client: every connection that said hello with its id. Its episode ids are its own."""

    __slots__ = ("id", "number", "last_seen", "episodes", "conns")

    def __init__(self, client_id: str, number: int):
        self.id = client_id
        self.number = number  # the trainer's info["client_number"]
        self.last_seen = time.monotonic()
        self.episodes: dict[str, _Episode] = {}  # open ones, by the client's episode id
        self.conns: set[Conn] = set()


class _Episode:
    __slots__ = ("id", "client", "slot", "training", "reward", "info", "last_obs", "state", "reply_to", "queue",
                 "open")

    def __init__(self, episode_id: str, client: _Client, slot: int, training: bool):
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
        self.open = True  # until end_episode (or its client left)


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
        self._slot_client = np.zeros(n, dtype=np.int64)
        self._slot_training = np.zeros(n, dtype=bool)
        self._slot_info = np.full(n, None, dtype=object)
        self._no_action = np.zeros(_wire.row_bytes(self.action_spec), np.uint8).tobytes()
        self._logged_true = np.ones(1, np.bool_).tobytes()
        self._logged_false = np.zeros(1, np.bool_).tobytes()
        self._ended: collections.OrderedDict[tuple[str, str], None] = collections.OrderedDict()  # (client, episode)
        self._clients: dict[str, _Client] = {}
        self._client_numbers = itertools.count()
        self._closed = False
        self.after_close: list = []  # callables run once close() stopped the server (ExternalEnv)
        self._stop_fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        try:
            self._transport = StreamTransport(
                zmq, source.endpoint, max_frame_bytes=source.max_frame_bytes,
                max_message_bytes=source.max_message_bytes, max_send_queue=source.max_send_queue,
                on_close=self._conn_closed)
        except BaseException:
            os.close(self._stop_fd)
            self.core.close()
            raise
        try:
            endpoint = self._transport.endpoint
            self.address = endpoint[len("tcp://"):] if endpoint.startswith("tcp://") else endpoint
            self.core.send_reset(None, None, None, False)  # every slot starts free ...
            self.core.ext_take_answers()  # ... as soon as this thread has taken the answers
        except BaseException:
            self._transport.sock.close(0)
            os.close(self._stop_fd)
            self.core.close()
            raise
        self._pack = msgpack.Packer(use_bin_type=True).pack
        self._unpack = msgpack.unpackb
        self._send = self._transport.send
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
        info["client_number"] = self._slot_client[ids]
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
        zmq, transport = self._zmq, self._transport
        poller = zmq.Poller()
        poller.register(transport.sock, zmq.POLLIN)
        event_fd = self.core.ext_event_fd
        poller.register(event_fd, zmq.POLLIN)
        poller.register(self._stop_fd, zmq.POLLIN)
        check_every = min(0.25, self.source.client_timeout / 4)
        next_check = time.monotonic() + check_every
        try:
            while True:
                ready = dict(poller.poll(int(check_every * 1000) + 1))
                if self._stop_fd in ready:
                    break
                if event_fd in ready:
                    self._answer()
                if transport.sock in ready:  # then answer the trainer's sends, then read more
                    transport.read(self._handle, self._too_large, BURST)
                now = time.monotonic()
                if now >= next_check:
                    next_check = now + check_every
                    self._expire_clients(now)
                    transport.expire(now, self.source.client_timeout)
        finally:
            self._shutdown()

    def _shutdown(self) -> None:
        notice = {"ok": False, "code": "closed", "error": "the server closed"}
        for client in self._clients.values():
            for ep in client.episodes.values():
                if ep.reply_to is not None:
                    self._reply(ep.reply_to, notice)
                for item in ep.queue:
                    if item[1] is not None:
                        self._reply(item[1], notice)
        self._transport.shutdown(self._pack({"rid": None, **notice}))

    def _reply(self, to: tuple[bytes, Any], header: dict, *frames: bytes) -> None:
        self._send(to[0], self._pack({"rid": to[1], **header}), *frames)

    def _error(self, to, code: str, message: str) -> None:
        if len(message) > 300:  # ours are shorter; whatever quotes input stays bounded
            message = message[:297] + "..."
        self._reply(to, {"ok": False, "code": code, "error": message})

    def _handle(self, conn: Conn, frames: list[bytes]) -> None:
        to: tuple[bytes, Any] = (conn.id, None)
        try:
            header = self._unpack(frames[0], raw=False)
        except Exception as err:  # msgpack raises several types for malformed data
            self._error(to, "bad_request", f"the header frame is not msgpack: {type(err).__name__}")
            return
        if type(header) is not dict:
            self._error(to, "bad_request", "the header frame must be a msgpack map")
            return
        rid = header.get("rid")
        if not _wire.valid_rid(rid):  # replies echo it: its size is bounded
            self._error(to, "bad_request",
                        f"rid must be nil, an integer or a str/bin of at most {_wire.MAX_RID_LEN} items")
            return
        to = (conn.id, rid)
        op = header.get("op")
        client = conn.client
        try:
            if op == "hello":
                self._hello(conn, to, header)
                return
            if client is None:
                # Nothing but hello is read before a connection authenticated: no episode,
                # space or id leaks to it.
                self._error(to, "unauthenticated", "send hello (with the server's token) first")
                return
            client.last_seen = time.monotonic()
            if op == "get_action" and len(frames) == 2 and header.get("v") == _wire.VERSION:
                # The hot path (a get_action for an episode whose last row was answered), with
                # the same checks and errors as the general path below.
                eid = header.get("episode_id")
                ep = client.episodes.get(eid) if type(eid) is str else None
                if ep is not None and ep.state != "trainer" and not ep.queue:
                    _wire.check_array("obs", header.get("obs"), frames[1], self.obs_spec)
                    self._complete(ep, frames[1], None, False, False)
                    ep.reply_to = to
                    return
            if op == "ping":
                return
            if op == "bye":
                self._drop_client(client)
                return
            if header.get("v") != _wire.VERSION:
                raise _Refused("bad_request", f"protocol version {brief(header.get('v'))} is not {_wire.VERSION}")
            if op == "start_episode":
                self._start(client, to, header)
                return
            if op not in ("get_action", "log_action", "log_returns", "end_episode"):
                raise _Refused("bad_request", f"unknown op {brief(op)}")
            ep = self._episode(client, header.get("episode_id"))
            item = self._parse(op, header, frames[1:], to)
            if ep.state == "trainer" or ep.queue:
                if op == "log_returns" and not ep.queue:
                    self._apply(ep, item)  # belongs to the next row either way
                    return
                if len(ep.queue) >= MAX_QUEUED:
                    raise _Refused("busy", f"episode {brief(ep.id)} has {MAX_QUEUED} calls waiting for the trainer")
                ep.queue.append(item)
                return
            self._apply(ep, item)
        except _Refused as err:
            self._error(to, err.code, err.message)
        except ValueError as err:
            self._error(to, "bad_request", str(err))
        except Exception as err:  # a bug of ours: the caller hears of it, the server goes on
            self._error(to, "internal", f"{type(err).__name__}: {brief(str(err))}")

    def _too_large(self, conn: Conn, item) -> None:
        """A message over the size bounds, dropped as it arrived: its sender hears why (with its
        request id when its header frame was within bounds)."""
        rid = None
        if item.header is not None:
            try:
                header = self._unpack(item.header, raw=False)
            except Exception:
                header = None
            if type(header) is dict and _wire.valid_rid(header.get("rid")):
                rid = header.get("rid")
        self._error((conn.id, rid), "too_large", item.reason)

    def _hello(self, conn: Conn, to, header: dict) -> None:
        token = header.get("token")
        expected = self.source.token
        if expected is not None and not (
            isinstance(token, str) and hmac.compare_digest(token.encode(), expected.encode())
        ):
            self._detach(conn)
            self._error(to, "auth", "wrong token")
            return
        if header.get("v", _wire.VERSION) != _wire.VERSION:
            self._error(to, "bad_request", f"protocol version {brief(header.get('v'))} is not {_wire.VERSION}")
            return
        client_id = header.get("client")
        if not isinstance(client_id, str) or not client_id or len(client_id) > 256:
            self._error(to, "bad_request", "hello needs a 'client' id (a str of 1 to 256 characters)")
            return
        client = self._clients.get(client_id)
        if conn.client is not client:
            self._detach(conn)
        if client is None:
            client = self._clients[client_id] = _Client(client_id, next(self._client_numbers))
        conn.client = client
        client.conns.add(conn)
        client.last_seen = time.monotonic()
        self._reply(to, {
            "ok": True,
            "v": _wire.VERSION,
            "obs": _wire.describe(self.obs_spec),
            "action": _wire.describe(self.action_spec),
            "max_frame_bytes": self.source.max_frame_bytes,
            "max_message_bytes": self.source.max_message_bytes,
            "client_timeout": self.source.client_timeout,
        })

    def _detach(self, conn: Conn) -> None:
        """The connection no longer speaks for its client (it left, or said another hello); a
        client left with no connection and no episode is forgotten at once."""
        client, conn.client = conn.client, None
        conn.since = time.monotonic()  # it has client_timeout to authenticate again
        if client is None:
            return
        client.conns.discard(conn)
        if not client.conns and not client.episodes and self._clients.get(client.id) is client:
            del self._clients[client.id]

    def _conn_closed(self, conn: Conn) -> None:
        self._detach(conn)

    def _start(self, client: _Client, to, header: dict) -> None:
        eid = header.get("episode_id")
        if eid is None:
            eid = uuid.uuid4().hex
        if not isinstance(eid, str) or not eid or len(eid) > 256:
            raise _Refused("bad_request", f"episode_id must be a non-empty str of at most 256 chars, got {brief(eid)}")
        if eid in client.episodes or (client.id, eid) in self._ended:
            raise _Refused("duplicate_episode", f"episode {brief(eid)} already exists")
        training = header.get("training_enabled", True)
        if not isinstance(training, bool):
            raise _Refused("bad_request", "training_enabled must be a bool")
        if len(client.episodes) >= self.source.max_episodes_per_client:
            raise _Refused("too_many_episodes", f"this client holds max_episodes_per_client="
                           f"{self.source.max_episodes_per_client} open episodes (end one first)")
        slot = self.core.ext_acquire()
        if slot < 0:
            raise _Refused("too_many_episodes", f"all max_episodes={self.num_envs} slots hold episodes "
                           "(or wait for the trainer to answer their last row)")
        ep = _Episode(eid, client, slot, training)
        client.episodes[eid] = ep
        self._slot_ep[slot] = ep
        self._reply(to, {"ok": True, "episode_id": eid})

    def _episode(self, client: _Client, eid: Any) -> _Episode:
        """The client's own episode ``eid``: other clients' episodes are neither reachable nor
        told apart from ids that never existed."""
        if not isinstance(eid, str):
            raise _Refused("bad_request", f"episode_id must be a str, got {brief(eid)}")
        ep = client.episodes.get(eid)
        if ep is None:
            if (client.id, eid) in self._ended:
                raise _Refused("episode_ended", f"episode {brief(eid)} has ended")
            raise _Refused("unknown_episode", f"no episode {brief(eid)} (start_episode first)")
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
            if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not math.isfinite(reward):
                raise ValueError(f"reward must be a finite number, got {brief(reward)}")
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
            self._add_returns(ep, reward, info)
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

    def _add_returns(self, ep: _Episode, reward: float, info: dict | None) -> None:
        """Adds a log_returns to the episode's next row, or refuses it whole: the sum must stay
        finite, and the merged info must pack into ``max_frame_bytes`` (as if sent at once)."""
        total = ep.reward + reward
        if not math.isfinite(total):
            raise _Refused("bad_request", f"the rewards logged since the episode's last row would add up to {total} "
                           "(the sum must stay finite); nothing was added")
        if info:
            merged = {**ep.info, **info} if ep.info else info
            size = len(self._pack(merged))
            if size > self.source.max_frame_bytes:
                raise _Refused("too_large", f"the info logged since the episode's last row would pack into {size} "
                               f"bytes, over max_frame_bytes={self.source.max_frame_bytes}; nothing was added")
            ep.info = merged
        ep.reward = total

    def _complete(self, ep: _Episode, obs: bytes, action: bytes | None, terminated: bool, truncated: bool) -> None:
        s = ep.slot
        self._slot_eid[s] = ep.id
        self._slot_client[s] = ep.client.number
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
        client = ep.client
        del client.episodes[ep.id]
        ep.open = False
        self._ended[(client.id, ep.id)] = None
        if len(self._ended) > ENDED_MEMORY:
            self._ended.popitem(last=False)
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
            while ep.queue and ep.state != "trainer" and ep.open:
                item = ep.queue.popleft()
                try:
                    self._apply(ep, item)
                except _Refused as err:  # a queued log_returns over its bounds
                    if item[1] is not None:
                        self._error(item[1], err.code, err.message)

    def _drop_client(self, client: _Client) -> None:
        """A client left (bye) or went silent: its episodes end as truncated."""
        if self._clients.get(client.id) is client:
            del self._clients[client.id]
        for conn in list(client.conns):
            self._detach(conn)
        for ep in list(client.episodes.values()):
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
    action; ``send(actions, info["env_id"])`` answers them. ``info`` adds ``episode_id`` and
    ``client_number`` (episode ids are per client: the pair names an episode; the number is the
    server's, counting clients from 0 as they first said hello),
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

    def stats(self) -> dict[str, int]:
        """What the server holds now: ``connections`` (open), ``authenticated`` (of those),
        ``clients``, ``episodes`` (open), and ``dropped_replies`` (so far: replies to
        connections whose send queue was full)."""
        pool = self._pool
        conns = list(pool._transport.conns.values())
        return {
            "connections": len(conns),
            "authenticated": sum(c.client is not None for c in conns),
            "clients": len(pool._clients),
            "episodes": sum(len(c.episodes) for c in list(pool._clients.values())),
            "dropped_replies": pool._transport.dropped_replies,
        }

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
    ``num_runners`` threads; the calls travel over a Unix socket in a private temporary
    directory (no network) to the same server, so the trainer sees the same recv/send, checks
    and info as with :func:`serve`.

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
        where = tempfile.mkdtemp(prefix="envpool-external-")  # mode 0700: this user's only
        try:
            pool = serve(self.observation_space, self.action_space, address=f"ipc://{where}/server",
                         batch_size=batch_size, max_episodes=max_episodes, wait_ms=wait_ms)
        except BaseException:
            shutil.rmtree(where, ignore_errors=True)
            raise
        self._client = PolicyClient(pool.address, timeout=timeout)
        pool._pool.after_close.append(self._stop_runners)
        pool._pool.after_close.append(lambda: shutil.rmtree(where, ignore_errors=True))
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
