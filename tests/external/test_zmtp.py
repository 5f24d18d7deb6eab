"""envpool.external.zmtp: the server's ZMTP 3.1 decoder, fed the way TCP delivers bytes (any split),
against messages encoded independently here (from the spec, rfc.zeromq.org/spec/37)."""

from __future__ import annotations

import struct

import pytest

pytest.importorskip("hypothesis", reason="needs hypothesis (pip install 'envpool-ng[test]')")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from envpool.external import zmtp as _zmtp  # noqa: E402

SIGNATURE = b"\xff" + bytes(8) + b"\x7f"


def greeting(major=3, minor=1, mechanism=b"NULL") -> bytes:
    return SIGNATURE + bytes((major, minor)) + mechanism.ljust(20, b"\0") + b"\0" + bytes(31)


def command(name: bytes, body: bytes) -> bytes:
    payload = bytes((len(name),)) + name + body
    return bytes((4, len(payload))) + payload


def ready(socket_type: bytes = b"DEALER", identity: bytes | None = b"") -> bytes:
    props = b"\x0bSocket-Type" + struct.pack(">I", len(socket_type)) + socket_type
    if identity is not None:
        props += b"\x08Identity" + struct.pack(">I", len(identity)) + identity
    return command(b"READY", props)


def frame(data: bytes, more: bool) -> bytes:
    if len(data) > 255:
        return bytes((2 | more,)) + struct.pack(">Q", len(data)) + data
    return bytes((int(more), len(data))) + data


def message(frames) -> bytes:
    return b"".join(frame(f, i < len(frames) - 1) for i, f in enumerate(frames))


def feed_in_pieces(decoder, data: bytes, cuts) -> list:
    out, start = [], 0
    for cut in sorted(set(cuts)) + [len(data)]:
        if start < cut <= len(data):
            out += decoder.feed(data[start:cut])
            start = cut
    return out


def decoder(frames=3, frame_bytes=1000, message_bytes=1500) -> _zmtp.Decoder:
    return _zmtp.Decoder(frames, frame_bytes, message_bytes)


def test_the_handshake_and_a_message_fed_one_byte_at_a_time():
    d = decoder()
    stream = greeting() + ready() + message([b"header", b"x" * 300]) + message([b"h2"])
    out = feed_in_pieces(d, stream, range(len(stream)))
    assert d.ready and out == [[b"header", b"x" * 300], [b"h2"]]


def test_the_server_side_speaks_first_with_a_greeting_and_ready_as_router():
    assert _zmtp.HANDSHAKE[:10] == SIGNATURE and _zmtp.HANDSHAKE[10:12] == b"\x03\x01"
    assert _zmtp.HANDSHAKE[12:32] == b"NULL".ljust(20, b"\0")
    assert _zmtp.HANDSHAKE[64:] == command(b"READY", b"\x0bSocket-Type" + struct.pack(">I", 6) + b"ROUTER")
    assert _zmtp.encode([b"a", b"b" * 300]) == message([b"a", b"b" * 300])


@pytest.mark.parametrize(
    "stream, words",
    [
        (b"GET / HTTP/1.1\r\n", "bad signature"),
        (greeting(major=2), "too old"),
        (greeting(mechanism=b"PLAIN"), "PLAIN"),
        (greeting() + message([b"not a command"]), "READY"),
        (greeting() + ready(b"REQ"), "REQ"),
        (greeting() + command(b"READY", b""), "Socket-Type"),
        (greeting() + ready() + b"\x10\x01x", "reserved"),
        (greeting() + ready() + b"\x06" + struct.pack(">Q", 1 << 40), "command of"),
    ],
)
def test_a_peer_that_breaks_zmtp_is_refused(stream, words):
    d = decoder()
    with pytest.raises(_zmtp.ZmtpError, match=words):
        d.feed(stream)


def test_ping_is_answered_with_pong_and_its_context_and_other_commands_are_ignored():
    d = decoder()
    d.feed(greeting() + ready())
    out = d.feed(command(b"PING", b"\x00\x0acontext-1") + command(b"SUBSCRIBE", b"") + message([b"m"]))
    assert len(out) == 2 and isinstance(out[0], _zmtp.Pong) and out[1] == [b"m"]
    assert out[0].data == command(b"PONG", b"context-1")


def test_messages_over_the_bounds_are_dropped_whole_and_the_next_one_is_read():
    d = decoder(frames=3, frame_bytes=1000, message_bytes=1500)
    d.feed(greeting() + ready())
    stream = (
        message([b"h1"] + [b"f"] * 2500)  # too many frames
        + message([b"h2", b"x" * 5000])  # a frame over frame_bytes
        + message([b"h3", b"y" * 900, b"z" * 900])  # over message_bytes in all
        + message([b"h4", b"ok"])
    )
    out = feed_in_pieces(d, stream, range(0, len(stream), 777))
    assert [type(x) for x in out] == [_zmtp.TooLarge, _zmtp.TooLarge, _zmtp.TooLarge, list]
    assert [x.header for x in out[:3]] == [b"h1", b"h2", b"h3"]
    assert "at most 3 frames" in out[0].reason and "frame of 5000 bytes" in out[1].reason
    assert "max_message_bytes=1500" in out[2].reason and out[3] == [b"h4", b"ok"]


def test_a_frame_over_the_bound_is_not_buffered_while_it_arrives():
    d = decoder(frame_bytes=1000)
    d.feed(greeting() + ready())
    assert d.feed(frame(b"h", True) + bytes((2,)) + struct.pack(">Q", 1 << 40)) == []
    for _ in range(100):  # 6.4 MB of a 1 TB frame: dropped as it comes
        assert d.feed(bytes(65536)) == []
    assert len(d._head) == 0 and d._parts is None and d._frames == [b"h"]


frames_st = st.lists(st.binary(max_size=600), min_size=1, max_size=5)


@settings(max_examples=200, deadline=None)
@given(msgs=st.lists(frames_st, min_size=1, max_size=6), cuts=st.lists(st.integers(0, 6000), max_size=30))
def test_any_split_of_the_stream_gives_the_same_messages(msgs, cuts):
    d = decoder(frames=3, frame_bytes=500, message_bytes=800)
    stream = greeting() + ready() + b"".join(message(m) for m in msgs)
    out = feed_in_pieces(d, stream, cuts)
    want = []
    for m in msgs:
        total, over = 0, False
        for i, f in enumerate(m):
            if i >= 3 or len(f) > 500 or total + len(f) > 800:
                over = True
                break
            total += len(f)
        want.append(("over", m[0] if len(m[0]) <= 500 else None) if over else m)
    got = [("over", x.header) if isinstance(x, _zmtp.TooLarge) else x for x in out]
    assert got == want


@settings(max_examples=300, deadline=None)
@given(garbage=st.binary(max_size=400), after_handshake=st.booleans(), cuts=st.lists(st.integers(0, 500), max_size=8))
def test_garbage_gives_messages_or_zmtp_error_never_anything_else(garbage, after_handshake, cuts):
    d = decoder(frames=3, frame_bytes=100, message_bytes=150)
    stream = (greeting() + ready() if after_handshake else b"") + garbage
    try:
        out = feed_in_pieces(d, stream, cuts)
    except _zmtp.ZmtpError:
        return
    for item in out:
        assert isinstance(item, (list, _zmtp.TooLarge, _zmtp.Pong))
        if isinstance(item, list):
            assert 1 <= len(item) <= 3 and all(len(f) <= 100 for f in item) and sum(map(len, item)) <= 150
    held = len(d._head) + sum(map(len, d._frames)) + sum(map(len, d._parts or []))
    assert held <= 64 + 9 + _zmtp.MAX_COMMAND_BYTES + 150
