"""PolicyClient: the client side of external episodes (see :func:`envpool.serve`).

Each thread that calls the client gets its own ZeroMQ DEALER connection (so calls from many
threads never wait on each other, and none hops to an I/O thread), authenticated by its
first message; the connection of a thread that has ended is closed (by the next thread that
opens one, or within a heartbeat). A heartbeat thread keeps the client known to the server
while episodes wait in the client's own code; when the client stops (close(), or the process
dies) the server ends its episodes as truncated. ZeroMQ reconnects with exponential backoff when the server restarts;
a connection the new server does not know authenticates again and repeats the call.
"""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from envpool.external import wire as _wire
from envpool.external.wire import ExternalError
from envpool.lifecycle import Lifecycle

__all__ = ["ExternalError", "PolicyClient"]


class _Conn:
    """One DEALER connection, used by one thread (its ``owner``)."""

    def __init__(self, zmq: Any, ctx: Any, endpoint: str):
        self.owner = threading.current_thread()
        self.sock = ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 100)
        self.sock.setsockopt(zmq.RECONNECT_IVL, 50)
        self.sock.setsockopt(zmq.RECONNECT_IVL_MAX, 2000)  # exponential backoff up to 2 s
        self.sock.connect(endpoint)
        self.authenticated = False
        self.rids = itertools.count(1)
        self._events, self._pollin = int(zmq.EVENTS), int(zmq.POLLIN)

    def drain(self, unpack: Callable[..., Any]) -> None:
        """Reads what arrived since the last call: late replies to calls that timed out, and a
        closed server's notice (then this connection must authenticate again)."""
        while self.sock.get(self._events) & self._pollin:  # no poll() syscall per call
            frames = self.sock.recv_multipart()
            try:
                reply = unpack(frames[0], raw=False)
            except Exception:
                continue
            if isinstance(reply, dict) and reply.get("rid") is None and reply.get("code") == "closed":
                self.authenticated = False


class _Connections:
    """The client's connections: one per calling thread (and the heartbeat's). The connection of
    a thread that has ended is closed by the next thread that opens one, or by the heartbeat: a
    dead thread never uses its socket again, and keeping it would cost file descriptors."""

    zmq: Any
    _ctx: Any
    _endpoint: str
    _local: threading.local  # .conn: the calling thread's connection
    _lock: threading.Lock  # guards _conns (and the client's state where both change together)
    _conns: list[_Conn]

    def __init__(self, zmq: Any, endpoint: str):
        self.zmq, self._endpoint = zmq, endpoint
        self._ctx = zmq.Context.instance()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._conns = []

    def of_this_thread(self) -> _Conn:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = _Conn(self.zmq, self._ctx, self._endpoint)
            with self._lock:
                self._release_finished()
                self._conns.append(conn)
            self._local.conn = conn
        return conn

    def for_heartbeat(self, still_open: Callable[[], bool]) -> _Conn | None:
        """A connection of the heartbeat thread's own; None (and nothing left open) if the
        client closed meanwhile."""
        conn = _Conn(self.zmq, self._ctx, self._endpoint)
        with self._lock:
            if not still_open():
                conn.sock.close()
                return None
            self._conns.append(conn)
        return conn

    def release_finished(self, still_open: Callable[[], bool]) -> bool:
        """Closes the connections of threads that have ended; False if the client closed."""
        with self._lock:
            if not still_open():
                return False
            self._release_finished()
            return True

    def _release_finished(self) -> None:
        finished = [c for c in self._conns if not c.owner.is_alive()]
        if finished:
            self._conns = [c for c in self._conns if c.owner.is_alive()]
            for conn in finished:
                conn.sock.close()

    def close_all(self, goodbye: bytes) -> None:
        """Sends ``goodbye`` on each authenticated connection (without waiting) and closes all."""
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            if conn.authenticated:
                try:
                    conn.sock.send_multipart([goodbye], self.zmq.NOBLOCK)
                except self.zmq.ZMQError:
                    pass
            conn.sock.close()


class _Codec:
    """msgpack headers and the observation/action frames, checked against the server's spaces
    and bounds (known from the first hello reply)."""

    pack: Callable[[Any], bytes]
    unpack: Callable[..., Any]
    spaces: dict[str, Any] | None  # obs/action specs, max_frame_bytes, max_message_bytes, client_timeout

    def __init__(self, msgpack: Any):
        self.pack = msgpack.Packer(use_bin_type=True).pack
        self.unpack = msgpack.unpackb
        self.spaces = None

    def learn(self, hello_reply: dict) -> None:
        self.spaces = {
            k: hello_reply[k] for k in ("obs", "action", "max_frame_bytes", "max_message_bytes", "client_timeout")
        }

    def encode(self, what: str, value) -> tuple[dict, bytes]:
        spec = self.spaces[what]
        desc, frame = _wire.to_frame(value, spec, what)
        if len(frame) > self.spaces["max_frame_bytes"]:
            raise ValueError(f"{what} takes {len(frame)} bytes, over the server's max_frame_bytes")
        return desc, frame

    def decode_action(self, frame: bytes) -> Any:
        spec = self.spaces["action"]
        action = np.frombuffer(frame, dtype=np.dtype(spec["dtype"]).newbyteorder("<")).reshape(spec["shape"])
        action = action.astype(np.dtype(spec["dtype"]))
        return action[()] if action.ndim == 0 else action

    def packed(self, header: dict, frames: list[bytes]) -> bytes:
        """The header, packed, once it is known the message is within the server's bounds."""
        packed = self.pack(header)
        if self.spaces is not None:
            limit, total = self.spaces["max_frame_bytes"], len(packed) + sum(map(len, frames))
            if len(packed) > limit:
                raise ValueError(
                    f"{header['op']}'s header (its info, ids) packs into {len(packed)} bytes, over the "
                    f"server's max_frame_bytes={limit}"
                )
            if total > self.spaces["max_message_bytes"]:
                raise ValueError(
                    f"{header['op']} takes {total} bytes, over the server's "
                    f"max_message_bytes={self.spaces['max_message_bytes']}"
                )
        return packed


class PolicyClient:
    """Drives external episodes on an envpool server: the environment runs its own loop and
    asks the trainer (``envpool.serve``) for actions. Thread-safe; one client may run many
    episodes at once, from any threads. Episode ids are this client's own: another client
    neither sees them nor can take them.

    Args:
        address: the server's ``"host:port"`` (``server.address``) or a ZeroMQ endpoint.
        token: the server's token, if it has one.
        timeout: seconds a call waits for its reply before ``TimeoutError`` (``get_action``
            waits for the trainer's ``send()``).
        heartbeat: seconds between heartbeats (``None``: a quarter of the server's
            ``client_timeout``, at most 1 s).

    Errors the server reports (a bad observation, an unknown or ended episode, ...) raise
    :class:`envpool.ExternalError` with its ``code``; the episode and the client go on. When the
    server closes, waiting calls raise it with code ``closed``; a later call waits up to
    ``timeout`` for a server to come back on the address (ZeroMQ reconnects with backoff), then
    raises ``TimeoutError``.

    >>> import envpool, gymnasium as gym, numpy as np, threading
    >>> server = envpool.serve(gym.spaces.Box(-1, 1, (2,)), gym.spaces.Discrete(3))
    >>> def trainer():
    ...     obs, reward, terminated, truncated, info = server.recv(timeout=5)
    ...     server.send(np.array([2]), info["env_id"])
    >>> t = threading.Thread(target=trainer); t.start()
    >>> client = envpool.PolicyClient(server.address)
    >>> eid = client.start_episode()
    >>> int(client.get_action(eid, np.zeros(2, np.float32)))
    2
    >>> t.join(); client.end_episode(eid, np.zeros(2, np.float32)); client.close(); server.close()
    """

    _codec: _Codec
    _connections: _Connections
    _endpoint: str
    _token: str | None
    _timeout: float
    _id: str  # this client's id: the server keys its episodes by it
    _state: Lifecycle
    _heartbeat: _Heartbeat

    def __init__(self, address: str, token: str | None = None, timeout: float = 60.0, heartbeat: float | None = None):
        zmq, msgpack = _wire.import_zmq_msgpack()
        self._codec = _Codec(msgpack)
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self._endpoint = _wire.endpoint(address)
        self._token = token
        self._timeout = float(timeout)
        self._id = uuid.uuid4().hex
        self._connections = _Connections(zmq, self._endpoint)
        self._state = Lifecycle.OPEN
        self._heartbeat = _Heartbeat(self, heartbeat)
        self._heartbeat.start()

    # -- the API --------------------------------------------------------------------------------

    def start_episode(self, episode_id: str | None = None, training_enabled: bool = True) -> str:
        """Starts an episode and returns its id (``episode_id``, or a new unique one)."""
        reply, _ = self._call(
            {"op": "start_episode", "episode_id": episode_id, "training_enabled": bool(training_enabled)}
        )
        return reply["episode_id"]

    def get_action(self, episode_id: str, obs) -> Any:
        """Reports ``obs`` and returns the trainer's action for it (blocks until it is sent)."""
        desc, frame = self._encode("obs", obs)
        reply, frames = self._call({"op": "get_action", "episode_id": episode_id, "obs": desc}, [frame])
        return self._codec.decode_action(frames[0])

    def log_action(self, episode_id: str, obs, action) -> None:
        """Reports ``obs`` and the action the client took itself (off-policy); the trainer sees
        it in ``info["logged_action"]``."""
        obs_desc, obs_frame = self._encode("obs", obs)
        act_desc, act_frame = self._encode("action", action)
        self._call(
            {"op": "log_action", "episode_id": episode_id, "obs": obs_desc, "action": act_desc}, [obs_frame, act_frame]
        )

    def log_returns(self, episode_id: str, reward: float, info: dict | None = None) -> None:
        """Adds ``reward`` to the episode's next row (rewards add up until then); ``info`` (a
        msgpack-able dict) reaches the trainer as that row's ``info["client_info"]``."""
        self._call({"op": "log_returns", "episode_id": episode_id, "reward": float(reward), "info": info})

    def end_episode(self, episode_id: str, obs, truncated: bool = False) -> None:
        """Ends the episode with its last observation: terminated, or ``truncated``."""
        desc, frame = self._encode("obs", obs)
        self._call({"op": "end_episode", "episode_id": episode_id, "obs": desc, "truncated": bool(truncated)}, [frame])

    @property
    def closed(self) -> bool:
        return self._state is not Lifecycle.OPEN

    def refuse_calls(self) -> None:
        """From now on calls fail at once with code ``closed`` (calls already waiting get the
        server's answer); :meth:`close` still says goodbye and closes the connections."""
        if self._state is Lifecycle.OPEN:
            self._state = Lifecycle.CLOSING

    def close(self) -> None:
        """Says goodbye (the server ends this client's open episodes as truncated) and closes
        the connections."""
        if self._state is Lifecycle.CLOSED:
            return
        self._state = Lifecycle.CLOSED
        self._heartbeat.stop()
        self._connections.close_all(self._codec.pack({"op": "bye"}))

    def __enter__(self) -> PolicyClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- the wire -------------------------------------------------------------------------------

    def _is_open(self) -> bool:
        return self._state is Lifecycle.OPEN

    def _encode(self, what: str, value) -> tuple[dict, bytes]:
        if self._codec.spaces is None:
            self._conn()  # learn the spaces from the hello reply
        return self._codec.encode(what, value)

    def _conn(self) -> _Conn:
        if self._state is not Lifecycle.OPEN:
            raise ExternalError("closed", "the client is closed")
        conn = self._connections.of_this_thread()
        conn.drain(self._codec.unpack)
        if not conn.authenticated:
            self._hello(conn)
        return conn

    def _hello(self, conn: _Conn, timeout: float | None = None) -> None:
        reply, _ = self._roundtrip(
            conn,
            {"op": "hello", "v": _wire.VERSION, "token": self._token, "client": self._id},
            [],
            timeout=timeout,
        )
        if reply.get("v") != _wire.VERSION:
            raise ExternalError(
                "bad_reply",
                f"the server at {self._endpoint} speaks protocol version "
                f"{reply.get('v')!r}, this client {_wire.VERSION}",
            )
        self._codec.learn(reply)
        conn.authenticated = True

    def _call(self, header: dict, frames: list[bytes] = ()) -> tuple[dict, list[bytes]]:
        try:
            conn = self._conn()
            header = {"v": _wire.VERSION, **header}
            try:
                return self._roundtrip(conn, header, list(frames))
            except ExternalError as err:
                if err.code != "unauthenticated":
                    raise
            # A restarted server does not know this connection: authenticate again, then repeat.
            conn.authenticated = False
            self._hello(conn)
            return self._roundtrip(conn, header, list(frames))
        except self._connections.zmq.ZMQError:
            if self._state is not Lifecycle.OPEN:  # close() from another thread closed this call's socket
                raise ExternalError("closed", "the client was closed") from None
            raise

    def _roundtrip(self, conn: _Conn, header: dict, frames: list[bytes], timeout: float | None = None):
        zmq = self._connections.zmq
        timeout = self._timeout if timeout is None else timeout
        rid = next(conn.rids)
        conn.sock.send_multipart([self._codec.packed({**header, "rid": rid}, frames), *frames])
        deadline = time.monotonic() + timeout
        while True:
            left_ms = max(0, int((deadline - time.monotonic()) * 1000))
            if not conn.sock.poll(left_ms, zmq.POLLIN):
                raise TimeoutError(f"no reply to {header['op']} within {timeout:g} s from {self._endpoint}")
            reply_frames = conn.sock.recv_multipart()
            try:
                reply = self._codec.unpack(reply_frames[0], raw=False)
            except Exception as err:
                raise ExternalError("bad_reply", f"the server's reply is not msgpack: {err}") from None
            if reply.get("rid") is None and reply.get("code") == "closed":
                # The server closed after this request was sent (older notices were drained
                # before sending): it answers waiting calls before it says so, so this request
                # was lost with it.
                conn.authenticated = False
                raise ExternalError("closed", f"the server at {self._endpoint} closed")
            if reply.get("rid") != rid:
                continue  # a late reply to a call that timed out
            if not reply.get("ok"):
                raise ExternalError(reply.get("code", "error"), reply.get("error", ""))
            return reply, reply_frames[1:]


class _Heartbeat(threading.Thread):
    """Pings the server on a connection of its own, so that the server keeps the client's
    episodes while they wait in the client's own code; closes the connections of threads that
    have ended."""

    def __init__(self, client: PolicyClient, interval: float | None):
        super().__init__(name="envpool-client-heartbeat", daemon=True)
        self._client = client
        self._interval = interval  # None: a quarter of the server's client_timeout, at most 1 s
        self._stopping = threading.Event()

    def stop(self) -> None:
        self._stopping.set()
        self.join()

    def run(self) -> None:
        client, conns = self._client, self._client._connections
        zmq, codec = conns.zmq, client._codec
        conn: _Conn | None = None
        interval = 0.25 if self._interval is None else float(self._interval)
        while not self._stopping.wait(interval):
            try:
                if conn is None:
                    conn = conns.for_heartbeat(client._is_open)
                    if conn is None:
                        return
                if not conns.release_finished(client._is_open):
                    return
                if not conn.authenticated:
                    client._hello(conn, timeout=min(client._timeout, 1.0))
                    if self._interval is None:
                        interval = min(1.0, codec.spaces["client_timeout"] / 4)
                conn.sock.send_multipart([codec.pack({"op": "ping"})], zmq.NOBLOCK)
                while conn.sock.poll(0):
                    reply = codec.unpack(conn.sock.recv_multipart()[0], raw=False)
                    if reply.get("code") in ("unauthenticated", "closed"):
                        conn.authenticated = False
            except (TimeoutError, ExternalError, zmq.ZMQError):
                if conn is not None:
                    conn.authenticated = False
