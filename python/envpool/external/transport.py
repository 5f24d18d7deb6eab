"""envpool.serve's socket: connections, bounded reads and writes (see docs/external_protocol.md).

A ZMQ_STREAM socket: libzmq accepts connections and moves bytes (with its I/O thread, reconnects
on the clients' side, buffers of bounded size), and :mod:`envpool.external.zmtp` cuts the frames, so that
the server can bound what one message, one connection and one unauthenticated peer cost, and can
close a connection (a ROUTER socket can do neither; see _zmtp's docstring). Clients use ordinary
DEALER sockets.

Bounds, per connection: libzmq queues at most ``RECV_CHUNKS`` chunks of at most 8 KiB it read and
the server has not, and at most ``max_send_queue`` replies the peer has not read (beyond that the
server drops the connection's replies: its calls time out, nobody else waits); the decoder holds
at most one message within bounds. A connection that has not authenticated ``client_timeout``
seconds after it opened (or after its client left), or that breaks ZMTP, is closed.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from envpool.external import zmtp as _zmtp

# Chunks (of at most 8 KiB: libzmq's read size) libzmq holds per connection before it stops
# reading that connection: 512 KiB. The server thread takes them as fast as it can decode.
RECV_CHUNKS = 64
# Frames of a request: its header and at most two arrays (log_action's observation and action).
MAX_FRAMES = 3


class Conn:
    """One client connection: its decoder, and its client once it said a successful hello."""

    __slots__ = ("id", "decoder", "client", "since", "closing")

    def __init__(self, conn_id: bytes, decoder: _zmtp.Decoder):
        self.id = conn_id
        self.decoder = decoder
        self.client = None  # the server's client object after a successful hello
        self.since = time.monotonic()  # opened, or lost its client: the clock of the auth deadline
        self.closing = False  # closing it failed (its send queue was full): retried, data ignored


class StreamTransport:
    """The server's ZMQ_STREAM socket and its connection table (``conns``: id -> :class:`Conn`)."""

    def __init__(
        self,
        zmq,
        endpoint: str,
        *,
        max_frame_bytes: int,
        max_message_bytes: int,
        max_send_queue: int,
        on_close: Callable[[Conn], None],
    ):
        self._zmq = zmq
        self._limits = (MAX_FRAMES, max_frame_bytes, max_message_bytes)
        self._on_close = on_close
        self._send_queue = max_send_queue
        sock = self.sock = zmq.Context.instance().socket(zmq.STREAM)
        try:
            sock.setsockopt(zmq.LINGER, 500)
            sock.setsockopt(zmq.STREAM_NOTIFY, 1)  # the default; the handshake depends on it
            sock.setsockopt(zmq.SNDHWM, max_send_queue)
            sock.setsockopt(zmq.RCVHWM, RECV_CHUNKS)
            sock.bind(endpoint)
            self.endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)
        except BaseException:
            sock.close(0)
            raise
        self.conns: dict[bytes, Conn] = {}
        self.dropped_replies = 0  # replies dropped because their connection's send queue was full
        self._noblock, self._more = int(zmq.NOBLOCK), int(zmq.NOBLOCK | zmq.SNDMORE)
        # The backend's (cython) Socket.send/recv, bound: zmq.Socket's Python-level overrides add
        # routing_id/group (draft) handling this socket never uses, ~0.5 us a frame.
        self._send = zmq.backend.Socket.send.__get__(sock)
        self._recv = zmq.backend.Socket.recv.__get__(sock)

    def read(self, handle: Callable, too_large: Callable, budget: int) -> None:
        """Reads what arrived, handing each request to ``handle(conn, frames)`` (``too_large(conn,
        item)`` for messages over the bounds), until nothing is left or about ``budget`` chunks
        and requests went by (so that a peer streaming bytes cannot keep the server from the
        trainer's answers)."""
        recv, flags, conns, Again = self._recv, self._noblock, self.conns, self._zmq.Again
        handled = 0
        while handled < budget:
            try:
                conn_id = recv(flags)
                data = recv(flags)
            except Again:
                return
            handled += 1
            conn = conns.get(conn_id)
            if not data:  # libzmq's notice: a connection opened, or closed
                if conn is None:
                    self._open(conn_id)
                else:
                    del conns[conn_id]
                    self._on_close(conn)
                continue
            if conn is None or conn.closing:
                continue  # bytes of a connection being closed
            try:
                items = conn.decoder.feed(data)
            except Exception:  # ZmtpError: a peer that breaks the protocol is not read on
                self.close(conn)
                continue
            for item in items:
                if type(item) is list:
                    handle(conn, item)
                    handled += 1
                elif type(item) is _zmtp.TooLarge:
                    too_large(conn, item)
                else:
                    self.send_raw(conn_id, item.data)

    def _open(self, conn_id: bytes) -> None:
        try:
            self._send(conn_id, self._more)
            self._send(_zmtp.HANDSHAKE, self._noblock)
        except self._zmq.ZMQError:
            return  # a late notice of a connection this side closed: it is gone
        self.conns[conn_id] = Conn(conn_id, _zmtp.Decoder(*self._limits))

    def send(self, conn_id: bytes, header: bytes, *frames: bytes) -> None:
        """Sends a message (a packed header and array frames) to a connection; dropped when the
        connection is gone or its send queue is full."""
        self.send_raw(conn_id, _zmtp.encode((header, *frames)))

    def send_raw(self, conn_id: bytes, data: bytes) -> None:
        try:
            self._send(conn_id, self._more)
        except self._zmq.Again:
            self.dropped_replies += 1  # the peer does not read: its queue is full
            return
        except self._zmq.ZMQError:
            return  # the connection is gone: nobody to tell
        self._send(data, self._noblock)

    def close(self, conn: Conn) -> None:
        """Closes a connection at once; libzmq drops what is still queued for it."""
        zmq = self._zmq
        conn.closing = True
        try:
            try:
                self._send(conn.id, self._more)
            except zmq.Again:
                # Its send queue is full (the peer does not read), and the close travels the same
                # pipe: one more place for it (libzmq applies SNDHWM to open pipes too).
                self.sock.setsockopt(zmq.SNDHWM, self._send_queue + 1)
                try:
                    self._send(conn.id, self._more)
                finally:
                    self.sock.setsockopt(zmq.SNDHWM, self._send_queue)
        except zmq.Again:
            return  # not yet: expire() retries (its data is ignored meanwhile)
        except zmq.ZMQError:
            pass  # gone already
        else:
            self._send(b"", self._noblock)  # a zero-length message closes a STREAM connection
        if self.conns.pop(conn.id, None) is not None:
            self._on_close(conn)

    def expire(self, now: float, timeout: float) -> None:
        """Closes connections that have not authenticated within ``timeout`` seconds, and retries
        closes that found a full send queue."""
        limit = now - timeout
        for conn in [c for c in self.conns.values() if c.closing or (c.client is None and c.since < limit)]:
            self.close(conn)

    def shutdown(self, notice: bytes) -> None:
        """Sends ``notice`` (a packed header) to every authenticated connection; closes the socket
        (lingering up to 0.5 s for what is queued)."""
        for conn in self.conns.values():
            if conn.client is not None:
                self.send(conn.id, notice)
        self.sock.close(linger=500)
