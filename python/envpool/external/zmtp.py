"""The server's half of ZMTP 3.1 (ZeroMQ's wire protocol, https://rfc.zeromq.org/spec/37/),
NULL security, for the TCP and IPC endpoints of :func:`envpool.serve`.

Why the server decodes frames itself: libzmq hands an application a multipart message only once
its last frame has arrived, and bounds only the size of each frame (``ZMQ_MAXMSGSIZE``) and the
number of whole messages queued (``ZMQ_RCVHWM``). A ROUTER socket therefore holds one message of
endless frames whole, however the server reads it (measured: 2,500 frames of 128 KiB grew the
server by 600 MiB), and it cannot close a peer's connection either. Over a ``ZMQ_STREAM`` socket
libzmq still accepts, reads and writes - handing over what arrives in chunks of at most 8 KiB,
and no more than ``RCVHWM`` chunks per connection - and :class:`Decoder` cuts the frames: a
message over its bounds is discarded as it arrives, never buffered. Clients keep ordinary DEALER
sockets; nothing changes for them.
"""

from __future__ import annotations

import struct

MORE, LONG, COMMAND = 1, 2, 4
# A command frame (READY, PING, ...) larger than this ends the connection: none is near it.
MAX_COMMAND_BYTES = 4096
# Signature (0xFF, 8 bytes of padding, 0x7F), version 3.1, mechanism NULL, as-server 0, filler.
GREETING = b"\xff" + bytes(8) + b"\x7f" + b"\x03\x01" + b"NULL".ljust(20, b"\0") + b"\0" + bytes(31)
assert len(GREETING) == 64


class ZmtpError(Exception):
    """The peer broke ZMTP (or is not a DEALER with NULL security): close its connection."""


class TooLarge:
    """A message discarded for its size: its first frame (the header, for the request id) when
    that one was within bounds, and what was over."""

    __slots__ = ("header", "reason")

    def __init__(self, header: bytes | None, reason: str):
        self.header, self.reason = header, reason


class Pong:
    """The answer to a peer's PING command, to send back as is."""

    __slots__ = ("data",)

    def __init__(self, data: bytes):
        self.data = data


def command(name: bytes, body: bytes = b"") -> bytes:
    payload = bytes((len(name),)) + name + body
    if len(payload) < 256:
        return bytes((COMMAND, len(payload))) + payload
    return bytes((COMMAND | LONG,)) + struct.pack(">Q", len(payload)) + payload


def _property(name: bytes, value: bytes) -> bytes:
    return bytes((len(name),)) + name + struct.pack(">I", len(value)) + value


# What the server sends on every new connection: its greeting, then READY as a ROUTER.
HANDSHAKE = GREETING + command(b"READY", _property(b"Socket-Type", b"ROUTER"))


# Frame headers of short frames (under 256 bytes), by size: the last one of a message, one before.
_SHORT_LAST = [bytes((0, n)) for n in range(256)]
_SHORT_MORE = [bytes((MORE, n)) for n in range(256)]


def frame_header(size: int, more: bool) -> bytes:
    if size < 256:
        return (_SHORT_MORE if more else _SHORT_LAST)[size]
    return bytes((LONG | (MORE if more else 0),)) + size.to_bytes(8, "big")


def encode(frames) -> bytes:
    """One ZMTP message of these frames (each a bytes-like object)."""
    last = len(frames) - 1
    if last < 2:  # a reply: its header, and an action or not (the server's hot path)
        a = frames[0]
        if last == 0 and len(a) < 256:
            return _SHORT_LAST[len(a)] + a
        if last == 1 and len(a) < 256 and len(frames[1]) < 256:
            return b"".join((_SHORT_MORE[len(a)], a, _SHORT_LAST[len(frames[1])], frames[1]))
    out = []
    for i, frame in enumerate(frames):
        n = len(frame)
        if n < 256:
            out.append((_SHORT_MORE if i < last else _SHORT_LAST)[n])
        else:
            out.append(frame_header(n, i < last))
        out.append(frame)
    return b"".join(out)


def _ready_socket_type(body: bytes) -> bytes:
    """The Socket-Type property of a READY command's body (name and properties)."""
    if body[:6] != b"\x05READY":
        raise ZmtpError(f"expected a READY command, got {body[:16]!r}")
    pos, n = 6, len(body)
    while pos < n:
        k = body[pos]
        name = body[pos + 1 : pos + 1 + k]
        pos += 1 + k
        if pos + 4 > n:
            raise ZmtpError("a truncated READY property")
        size = int.from_bytes(body[pos : pos + 4], "big")
        value = body[pos + 4 : pos + 4 + size]
        pos += 4 + size
        if pos > n:
            raise ZmtpError("a truncated READY property")
        if name.lower() == b"socket-type":
            return value
    raise ZmtpError("READY without a Socket-Type")


class Decoder:
    """One connection's inbound byte stream -> messages (lists of frames), with bounds.

    ``feed(data)`` returns what the bytes completed, in order: messages (a list of at most
    ``max_frames`` frames, each at most ``max_frame_bytes``, ``max_message_bytes`` in all),
    :class:`TooLarge` for a message over any of these (its frames are dropped as they arrive,
    however many there are), and :class:`Pong` answers. It holds at most one message within
    bounds plus one partial frame header; it raises :class:`ZmtpError` when the peer breaks the
    protocol (then close the connection).
    """

    __slots__ = (
        "max_frames",
        "max_frame_bytes",
        "max_message_bytes",
        "_stage",
        "_head",
        "_frames",
        "_bytes",
        "_over",
        "_parts",
        "_need",
        "_more",
        "_skip",
    )

    def __init__(self, max_frames: int, max_frame_bytes: int, max_message_bytes: int):
        self.max_frames, self.max_frame_bytes, self.max_message_bytes = max_frames, max_frame_bytes, max_message_bytes
        self._stage = 0  # 0: the peer's greeting, 1: its READY, 2: messages
        self._head = b""  # bytes of a greeting, frame header or command not complete yet
        self._frames: list[bytes] = []  # the message being received
        self._bytes = 0  # its size so far
        self._over: str | None = None  # why the message being received is discarded
        self._parts: list[bytes] | None = None  # pieces of a frame body being received
        self._need = 0  # bytes that body still needs
        self._more = False  # whether that body's frame (or the skipped one) has more after it
        self._skip = 0  # bytes of a discarded frame still to drop

    @property
    def ready(self) -> bool:
        """Whether the handshake is over (the peer may send messages)."""
        return self._stage == 2

    def feed(self, data: bytes) -> list:
        out: list = []
        if self._skip:
            k = min(self._skip, len(data))
            self._skip -= k
            if self._skip:
                return out
            data = data[k:]
            self._end_frame(None, self._more, out)
        elif self._parts is not None:
            if len(data) < self._need:
                self._parts.append(data)
                self._need -= len(data)
                return out
            self._parts.append(data[: self._need])
            frame, data = b"".join(self._parts), data[self._need :]
            self._parts = None
            self._end_frame(frame, self._more, out)
        if self._head:
            data = self._head + data
            self._head = b""
        if self._stage < 2:
            data = self._handshake(data)
        self._frames_of(data, out)
        return out

    def _handshake(self, data: bytes) -> bytes:
        if self._stage == 0:
            if (data[:1] not in (b"", b"\xff")) or (len(data) >= 10 and data[9] != 0x7F):
                raise ZmtpError("not a ZMTP 3 peer (bad signature)")
            if len(data) < 64:
                self._head = data
                return b""
            if data[10] < 3:
                raise ZmtpError(f"ZMTP {data[10]}.{data[11]} is too old (3.0 or later needed)")
            if data[12:32] != GREETING[12:32]:
                mechanism = bytes(data[12:32]).rstrip(bytes(1))
                raise ZmtpError(f"security mechanism {mechanism!r} is not NULL")
            self._stage, data = 1, data[64:]
        if len(data) < 2:
            self._head = data
            return b""
        flags = data[0]
        if not flags & COMMAND:
            raise ZmtpError("expected a READY command")
        hdr = 9 if flags & LONG else 2
        if len(data) < hdr:
            self._head = data
            return b""
        size = int.from_bytes(data[1:9], "big") if flags & LONG else data[1]
        if size > MAX_COMMAND_BYTES:
            raise ZmtpError(f"a command of {size} bytes")
        if len(data) < hdr + size:
            self._head = data
            return b""
        socket_type = _ready_socket_type(data[hdr : hdr + size])
        if socket_type != b"DEALER":
            raise ZmtpError(f"a {socket_type[:16]!r} socket cannot talk to this server (use a DEALER)")
        self._stage = 2
        return data[hdr + size :]

    def _frames_of(self, data: bytes, out: list) -> None:
        # The server's hot loop: short frames of messages within bounds take the first branches;
        # the message's state lives in locals and is stored back before every return.
        pos, n = 0, len(data)
        frames, nbytes, over = self._frames, self._bytes, self._over
        max_frames, max_frame, max_message = self.max_frames, self.max_frame_bytes, self.max_message_bytes
        while pos < n:
            flags = data[pos]
            if flags < 2:  # a short message frame
                if pos + 2 > n:
                    break
                size, start = data[pos + 1], pos + 2
            else:
                if flags & ~7:
                    raise ZmtpError(f"reserved frame flag bits set ({flags:#x})")
                hdr = 9 if flags & LONG else 2
                if pos + hdr > n:
                    break
                size = int.from_bytes(data[pos + 1 : pos + 9], "big") if hdr == 9 else data[pos + 1]
                start = pos + hdr
                if flags & COMMAND:
                    if size > MAX_COMMAND_BYTES:
                        raise ZmtpError(f"a command of {size} bytes")
                    if start + size > n:
                        break
                    self._command(data[start : start + size], out)
                    pos = start + size
                    continue
            end = start + size
            if over is None and (len(frames) >= max_frames or size > max_frame or nbytes + size > max_message):
                over = self._reason(len(frames), size)
            if end > n:  # the frame goes on in later chunks: kept whole, or dropped as it comes
                if over is None:
                    self._parts, self._need = [data[start:]], end - n
                else:
                    self._skip = end - n
                self._more = bool(flags & MORE)
                self._frames, self._bytes, self._over = frames, nbytes, over
                return
            if over is None:
                frames.append(data[start:end])
                nbytes += size
            pos = end
            if not flags & MORE:
                out.append(frames if over is None else TooLarge(frames[0] if frames else None, over))
                frames, nbytes, over = [], 0, None
        self._frames, self._bytes, self._over = frames, nbytes, over
        if pos < n:
            self._head = data[pos:]

    def _reason(self, count: int, size: int) -> str:
        """Why a frame of ``size`` bytes, the next of ``count`` in a message, takes it over its bounds."""
        if count >= self.max_frames:
            return f"a message has at most {self.max_frames} frames"
        if size > self.max_frame_bytes:
            return f"a frame of {size} bytes is over max_frame_bytes={self.max_frame_bytes}"
        return f"the message is over max_message_bytes={self.max_message_bytes}"

    def _end_frame(self, frame: bytes | None, more: bool, out: list) -> None:
        if frame is not None:
            self._frames.append(frame)
            self._bytes += len(frame)
        if more:
            return
        if self._over is not None:
            out.append(TooLarge(self._frames[0] if self._frames else None, self._over))
        else:
            out.append(self._frames)
        self._frames, self._bytes, self._over = [], 0, None

    def _command(self, body: bytes, out: list) -> None:
        if body[:5] == b"\x04PING":
            out.append(Pong(command(b"PONG", body[7:23])))  # PING: TTL (2 bytes), then context
        elif body[:6] == b"\x05ERROR":
            raise ZmtpError("the peer reported an error")
        # Other commands (PONG, SUBSCRIBE, ...) mean nothing to this server: ignored.
