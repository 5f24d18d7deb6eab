"""What one client can cost the server of external episodes, and what it can learn or take from
another (issue 19, items 8-14): message and send-queue bounds measured as the server process's
memory, connections that are closed or forgotten, per-client episode ids and caps, capped
log_returns, PolicyClient sockets released with their threads, bool payloads checked.

Every test talks to 127.0.0.1 only; loops are bounded and every process is killed at the end.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time

import gymnasium as gym
import numpy as np
import pytest

zmq = pytest.importorskip("zmq", reason="external episodes need pyzmq (pip install envpool-ng[external])")
msgpack = pytest.importorskip("msgpack", reason="external episodes need msgpack (pip install envpool-ng[external])")

from support.external import answer_in_background  # noqa: E402

import envpool  # noqa: E402

OBS_SPACE, ACT_SPACE = gym.spaces.Box(-1, 1, (4,), np.float32), gym.spaces.Discrete(2)
OBS = np.zeros(4, np.float32)
DESC = {"dtype": "float32", "shape": [4]}
V = 2  # the protocol version these tests speak
MIB = 1024 * 1024

pytestmark = pytest.mark.integration

# A server in its own process, so that its memory is measured alone: serve(**kwargs) with a
# Box(act_n) float32 action space (act_n > 0) or Discrete(2), a trainer thread answering every
# row with zeros; each line on stdin asks for {"hwm", "rss"} (KiB), the rows answered and
# server.stats().
SERVER = """
import json, sys, threading, numpy as np, gymnasium as gym, envpool
kwargs, act_n = json.loads(sys.argv[1]), int(sys.argv[2])  # (argv[0] is "-c")
act = gym.spaces.Box(-1, 1, (act_n,), np.float32) if act_n else gym.spaces.Discrete(2)
server = envpool.serve(gym.spaces.Box(-1, 1, (4,), np.float32), act, **kwargs)
answered, stop = [0], threading.Event()
def trainer():
    while not stop.is_set():
        try:
            obs, reward, terminated, truncated, info = server.recv(timeout=0.05)
        except TimeoutError:
            continue
        ids = info["env_id"]
        server.send(np.zeros((len(ids),) + act.shape, act.dtype), ids)
        answered[0] += len(ids)
t = threading.Thread(target=trainer); t.start()
print(server.address, flush=True)
for line in sys.stdin:
    status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
    stats = server.stats() if hasattr(server, "stats") else {}
    print(json.dumps({"hwm": int(status["VmHWM"].split()[0]), "rss": int(status["VmRSS"].split()[0]),
                      "answered": answered[0], **stats}), flush=True)
stop.set(); t.join(); server.close()
"""


class ServerProcess:
    def __init__(self, act_n: int = 0, **kwargs):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, json.dumps(kwargs), str(act_n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        line = self.proc.stdout.readline().strip() if ready else ""
        if not line.startswith("127.0.0.1:"):
            self.proc.kill()
            raise AssertionError(f"the server process did not start: {self.proc.communicate()[1][-2000:]}")
        self.address = line

    def status(self, timeout: float = 30.0) -> dict:
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"the server process gave no status within {timeout} s"
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.kill()
        self.proc.communicate()


@pytest.fixture
def server_process(request):
    procs = []

    def make(act_n=0, **kwargs):
        procs.append(ServerProcess(act_n, **kwargs))
        return procs[-1]

    yield make
    for p in procs:
        p.close()


class RawDealer:
    """A ZMTP 3.1 DEALER over a plain TCP socket: it can send part of a message and never the
    rest, and it reads nothing unless asked (no libzmq queue on this side)."""

    def __init__(self, address: str):
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        greeting = b"\xff" + bytes(8) + b"\x7f\x03\x01" + b"NULL".ljust(20, b"\0") + bytes(32)
        ready = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
        self.sock.sendall(greeting + bytes((4, len(ready))) + ready)
        self._buf = b""
        self._read(64)  # the server's greeting ...
        flags, size = self._read(2)
        self._read(size)  # ... and READY

    def _read(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed the connection"
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def send_frames(self, frames, last: bool = True) -> None:
        out = []
        for i, frame in enumerate(frames):
            more = 0 if last and i == len(frames) - 1 else 1
            n = len(frame)
            out.append(bytes((more | 2,)) + struct.pack(">Q", n) if n > 255 else bytes((more, n)))
            out.append(frame)
        self.sock.sendall(b"".join(out))

    def recv(self) -> tuple[dict, list[bytes]]:
        frames = []
        while True:
            flags = self._read(1)[0]
            size = struct.unpack(">Q", self._read(8))[0] if flags & 2 else self._read(1)[0]
            frames.append(self._read(size))
            if not flags & 1:
                return msgpack.unpackb(frames[0]), frames[1:]

    def call(self, header: dict, *frames: bytes) -> dict:
        self.send_frames([msgpack.packb(header), *frames])
        return self.recv()[0]

    def close(self) -> None:
        self.sock.close()


def dealer(address: str, **opts):
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SNDTIMEO, 30000)  # a send never waits forever (zmq.Again instead)
    for k, v in opts.items():
        sock.setsockopt(getattr(zmq, k), v)
    sock.connect(f"tcp://{address}")
    return sock


def call(sock, header: dict, *frames: bytes, timeout_ms: int = 10000) -> dict:
    sock.send_multipart([msgpack.packb(header), *frames])
    assert sock.poll(timeout_ms), "no reply"
    return msgpack.unpackb(sock.recv_multipart()[0])


# -- 8: memory bounds before (and after) auth ------------------------------------------------------


def test_a_message_of_many_frames_is_dropped_as_it_arrives_not_held_whole(server_process):
    # 400 frames of 128 KiB, each under max_frame_bytes: 50 MiB in one multipart message.
    server = server_process(max_frame_bytes=200_000)
    sock = dealer(server.address)
    try:
        assert call(sock, {"op": "hello", "client": "many-frames", "rid": 1})["ok"]
        before = server.status()["hwm"]
        frame = bytes(128 * 1024)
        r = call(sock, {"v": V, "op": "start_episode", "rid": 2}, *[frame] * 400, timeout_ms=60000)
        grown = server.status()["hwm"] - before
        assert grown < 16 * 1024, f"the server's peak memory grew by {grown} KiB for a dropped message"
        assert r["rid"] == 2 and r["code"] == "too_large" and "max_message_bytes" in r["error"]
        r = call(sock, {"v": V, "op": "start_episode", "rid": 3}, *[b"tiny"] * 2500)
        assert r["rid"] == 3 and r["code"] == "too_large" and "at most 3 frames" in r["error"]
        assert call(sock, {"v": V, "op": "start_episode", "rid": 4})["ok"]  # the connection goes on
    finally:
        sock.close()


def test_a_message_that_never_ends_costs_the_server_nothing_while_it_streams(server_process):
    server = server_process()
    raw = RawDealer(server.address)
    other = envpool.PolicyClient(server.address, timeout=20)
    try:
        assert raw.call({"op": "hello", "client": "streamer", "rid": 1})["ok"]
        before = server.status()["hwm"]
        # 1,000 frames of 64 KiB with the MORE flag and no last frame: 62.5 MiB of one message
        # that libzmq would keep whole, waiting for its end.
        raw.send_frames([msgpack.packb({"v": V, "op": "start_episode", "rid": 2})], last=False)
        chunk = bytes(64 * 1024 - 100)
        for _ in range(1000):
            raw.send_frames([chunk], last=False)
        eid = other.start_episode()  # others are served meanwhile
        assert int(other.get_action(eid, OBS)) == 0
        grown = server.status()["hwm"] - before
        assert grown < 16 * 1024, f"the server's peak memory grew by {grown} KiB while one message streamed"
        raw.send_frames([b"end"])
        reply, _ = raw.recv()
        assert reply["rid"] == 2 and reply["code"] == "too_large"
    finally:
        raw.close()
        other.close()


def test_a_client_that_never_reads_its_replies_costs_a_bounded_send_queue(server_process):
    # get_action replies of 64 KiB (a Box(16384) action); the client pipelines 16 calls on each
    # of 64 episodes per round (1,024 replies, 64 MiB) and reads none of them.
    server = server_process(act_n=16384, max_episodes=64, batch_size=64, max_send_queue=128)
    raw = RawDealer(server.address)
    try:
        assert raw.call({"op": "hello", "client": "deaf", "rid": 0})["ok"]
        eids = [raw.call({"v": V, "op": "start_episode", "rid": k + 1})["episode_id"] for k in range(64)]
        headers = [
            msgpack.packb({"v": V, "op": "get_action", "rid": 7, "episode_id": eid, "obs": DESC}) for eid in eids
        ]
        for header in headers:  # a round that reads its replies: the pool's buffers are all in use once
            raw.send_frames([header, OBS.tobytes()])
        for _ in headers:
            assert raw.recv()[0]["ok"]
        answered = 64
        for round_ in range(3):
            if round_ == 1:  # the send queue is full now, and the server's transients seen once
                before = server.status()["hwm"]
            for header in headers:
                for _ in range(16):
                    raw.send_frames([header, OBS.tobytes()])
            answered += 64 * 16
            deadline = time.monotonic() + 60
            while server.status()["answered"] < answered:  # every row reached the trainer
                assert time.monotonic() < deadline, server.status()
                time.sleep(0.05)
        status = server.status()
        grown = status["hwm"] - before
        assert grown < 16 * 1024, f"the server's peak memory grew by {grown} KiB for 2,048 more unread replies"
        assert status["dropped_replies"] > 2048
    finally:
        raw.close()


def test_an_unauthenticated_peer_gets_no_echo_of_unbounded_fields_and_is_closed_in_time(server_process):
    server = server_process(token="s3cret", client_timeout=1.0)
    # A peer that never says hello sends requests with 32 KiB request ids: the replies may not
    # echo them. Once closed its connection stays so (no reconnect): a send that waits 5 s means
    # the server closed it meanwhile.
    sock = dealer(server.address, RCVHWM=1, RCVBUF=4096, RECONNECT_IVL=-1, SNDTIMEO=5000)
    monitor = sock.get_monitor_socket(zmq.EVENT_DISCONNECTED)
    other = dealer(server.address)
    try:
        before = server.status()["hwm"]
        request = msgpack.packb({"v": V, "op": "start_episode", "rid": "r" * 32768})
        for _ in range(2000):  # 64 MiB, none of the replies read
            try:
                sock.send(request)
            except zmq.Again:
                break
        time.sleep(0.5)
        grown = server.status()["hwm"] - before
        assert grown < 16 * 1024, f"the server's peak memory grew by {grown} KiB answering an unauthenticated peer"
        reply = call(other, {"v": V, "op": "start_episode", "rid": "r" * 32768})
        assert reply["code"] == "bad_request" and reply["rid"] is None and len(reply["error"]) < 200
        # It never authenticated: client_timeout after it connected, the server closed it (the
        # client notices once it reads what is still in its socket).
        deadline = time.monotonic() + 10
        while server.status()["connections"]:
            assert time.monotonic() < deadline, server.status()
            time.sleep(0.05)
        while not monitor.poll(0):
            assert time.monotonic() < deadline, "the client saw no disconnect"
            if sock.poll(20):
                try:  # without waiting: the disconnect may drop what poll() just saw
                    sock.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    pass
    finally:
        sock.disable_monitor()
        monitor.close()
        sock.close()
        other.close()


def test_replies_echo_bounded_request_ids_and_errors_quote_input_briefly():
    server = envpool.serve(OBS_SPACE, ACT_SPACE, token="t")
    sock = dealer(server.address)
    try:
        r = call(sock, {"v": V, "op": "start_episode", "rid": 12345678901234})
        assert r == {
            "rid": 12345678901234,
            "ok": False,
            "code": "unauthenticated",
            "error": "send hello (with the server's token) first",
        }
        r = call(sock, {"op": "hello", "client": "c", "token": "t", "rid": "x" * 64})
        assert r["ok"] and r["rid"] == "x" * 64 and r["v"] == V
        for rid in ("x" * 65, [1] * 10, {"a": 1}, 1.5):
            r = call(sock, {"v": V, "op": "start_episode", "rid": rid})
            assert r["rid"] is None and r["code"] == "bad_request" and "rid" in r["error"]
        r = call(sock, {"v": V, "op": "start_episode", "rid": 1, "episode_id": ["y" * 1000] * 40})
        assert r["code"] == "bad_request" and len(r["error"]) < 300
        r = call(sock, {"v": V, "op": "get_action", "rid": 2, "episode_id": "z" * 40000, "obs": DESC}, OBS.tobytes())
        assert r["code"] == "unknown_episode" and len(r["error"]) < 300
    finally:
        sock.close()
        server.close()


# -- 9: the connection table -------------------------------------------------------------------


def test_connections_that_failed_auth_or_left_are_forgotten():
    server = envpool.serve(OBS_SPACE, ACT_SPACE, token="s3cret", client_timeout=30.0)
    try:
        base = server.stats()
        for k in range(100):
            sock = dealer(server.address)
            assert call(sock, {"op": "hello", "client": f"guess{k}", "token": f"guess{k}", "rid": 1})["code"] == "auth"
            sock.close()
        good = [dealer(server.address) for _ in range(20)]
        for k, sock in enumerate(good):
            assert call(sock, {"op": "hello", "client": f"good{k}", "token": "s3cret", "rid": 1})["ok"]
        assert server.stats()["authenticated"] == base["authenticated"] + 20
        for sock in good:
            sock.close()
        deadline = time.monotonic() + 10
        while server.stats()["connections"] > base["connections"]:
            assert time.monotonic() < deadline, server.stats()
            time.sleep(0.02)
        stats = server.stats()
        assert stats["clients"] == base["clients"]  # no connection, no episode: forgotten
        assert stats["authenticated"] == base["authenticated"]
    finally:
        server.close()


# -- 10: episode ids are per client --------------------------------------------------------------


def test_episode_ids_are_per_client_and_other_clients_learn_nothing_of_them():
    server = envpool.serve(OBS_SPACE, ACT_SPACE, max_episodes=8, batch_size=1)
    t, rows, stop = answer_in_background(server)
    x, y = envpool.PolicyClient(server.address), envpool.PolicyClient(server.address)
    try:
        x.start_episode("shared")
        x.start_episode("x-ended")
        x.end_episode("x-ended", OBS)
        # Y cannot tell X's ended id, X's open id and a never-used id apart ...
        for eid in ("x-ended", "shared", "never"):
            with pytest.raises(envpool.ExternalError) as err:
                y.get_action(eid, OBS)
            assert err.value.code == "unknown_episode"
            with pytest.raises(envpool.ExternalError) as err:
                y.log_returns(eid, 1.0)
            assert err.value.code == "unknown_episode"
        # ... nor take or block an id X uses or will use: its ids are its own.
        assert y.start_episode("shared") == "shared"
        assert y.start_episode("x-ended") == "x-ended"
        y.log_returns("shared", 2.0)
        assert int(y.get_action("shared", np.full(4, 0.5, np.float32))) == 0
        assert int(x.get_action("shared", np.full(4, -0.5, np.float32))) == 0
        with pytest.raises(envpool.ExternalError) as err:
            x.start_episode("x-ended")  # X's own history still counts for X
        assert err.value.code == "duplicate_episode"
        with pytest.raises(envpool.ExternalError) as err:
            x.get_action("x-ended", OBS)
        assert err.value.code == "episode_ended"
        # The trainer tells the two "shared" episodes apart by client_number.
        shared = {}
        for (obs, reward, _terminated, _truncated, info), _ in rows:
            for i, eid in enumerate(info["episode_id"]):
                if eid == "shared":
                    shared[int(info["client_number"][i])] = (float(obs[i][0]), float(reward[i]))
        assert sorted(shared.values()) == [(-0.5, 0.0), (0.5, 2.0)]
    finally:
        stop.set()
        t.join()
        x.close()
        y.close()
        server.close()


# -- 11: log_returns accumulation --------------------------------------------------------------


def test_log_returns_info_merge_is_capped_and_the_reward_sum_must_stay_finite():
    server = envpool.serve(OBS_SPACE, ACT_SPACE, max_frame_bytes=4096)
    client = envpool.PolicyClient(server.address)
    try:
        eid = client.start_episode()
        for k in range(3):
            client.log_returns(eid, 1.0, {f"k{k}": "x" * 1200})
        with pytest.raises(envpool.ExternalError) as err:
            client.log_returns(eid, 1.0, {"k3": "x" * 1200})  # each fits; merged they would not
        assert err.value.code == "too_large" and "max_frame_bytes=4096" in str(err.value)
        client.log_returns(eid, 1e308)
        with pytest.raises(envpool.ExternalError) as err:
            client.log_returns(eid, 1e308)  # both finite, their sum is not
        assert err.value.code == "bad_request" and "finite" in str(err.value)
        t = threading.Thread(target=client.get_action, args=(eid, OBS))
        t.start()
        obs, reward, terminated, truncated, info = server.recv(timeout=10)
        assert reward.tolist() == [3.0 + 1e308]  # refused calls added nothing
        assert sorted(info["client_info"][0]) == ["k0", "k1", "k2"]
        server.send(np.zeros(1, np.int64), info["env_id"])
        t.join(10)
        client.log_returns(eid, 1e308)  # a new row starts a new sum
    finally:
        client.close()
        server.close()


# -- 12: PolicyClient sockets of finished threads -------------------------------------------------


def test_policy_client_releases_the_sockets_of_threads_that_ended():
    server = envpool.serve(OBS_SPACE, ACT_SPACE, max_episodes=64)
    client = envpool.PolicyClient(server.address)
    try:
        client.end_episode(client.start_episode(), OBS)  # this thread's connection, the heartbeat's
        fds = len(os.listdir("/proc/self/fd"))
        conns = 2
        for _ in range(10):  # 200 threads, 20 at a time
            ts = [threading.Thread(target=lambda: client.end_episode(client.start_episode(), OBS)) for _ in range(20)]
            [t.start() for t in ts]
            [t.join() for t in ts]
        client.end_episode(client.start_episode(), OBS)
        deadline = time.monotonic() + 10  # released by the next new connection, or a heartbeat
        while len(os.listdir("/proc/self/fd")) > fds + 4:
            assert time.monotonic() < deadline, f"{len(os.listdir('/proc/self/fd')) - fds} more fds after 200 threads"
            time.sleep(0.05)
        while server.stats()["connections"] > conns:  # the server saw them go, too
            assert time.monotonic() < deadline, server.stats()
            time.sleep(0.05)
    finally:
        client.close()
        server.close()


# -- 13: bool payloads ---------------------------------------------------------------------------


def test_bool_observations_carry_only_0_and_1_bytes():
    space = gym.spaces.Box(0, 1, (4,), bool)
    server = envpool.serve(space, ACT_SPACE)
    t, rows, stop = answer_in_background(server)
    sock = dealer(server.address)
    try:
        assert call(sock, {"op": "hello", "client": "b", "rid": 0})["ok"]
        eid = call(sock, {"v": V, "op": "start_episode", "rid": 1})["episode_id"]
        desc = {"dtype": "bool", "shape": [4]}
        r = call(sock, {"v": V, "op": "get_action", "rid": 2, "episode_id": eid, "obs": desc}, bytes([7, 1, 0, 255]))
        assert r["code"] == "bad_request" and "0 and 1" in r["error"]
        r = call(sock, {"v": V, "op": "get_action", "rid": 3, "episode_id": eid, "obs": desc}, bytes([1, 1, 0, 1]))
        assert r["ok"]
        assert len(rows) == 1 and rows[0][0][0].view(np.uint8).tolist() == [[1, 1, 0, 1]]
    finally:
        sock.close()
        stop.set()
        t.join()
        server.close()


# -- 14: per-client episode cap, and the new options' checks -------------------------------------


def test_max_episodes_per_client_leaves_slots_for_other_clients():
    server = envpool.serve(OBS_SPACE, ACT_SPACE, max_episodes=4, max_episodes_per_client=2)
    x, y = envpool.PolicyClient(server.address), envpool.PolicyClient(server.address)
    try:
        a = x.start_episode()
        x.start_episode()
        with pytest.raises(envpool.ExternalError, match="max_episodes_per_client=2") as err:
            x.start_episode()
        assert err.value.code == "too_many_episodes"
        y.start_episode()
        y.start_episode()
        x.end_episode(a, OBS)  # no row yet: its slot and its share come back at once
        x.start_episode()
    finally:
        x.close()
        y.close()
        server.close()


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        (dict(max_episodes_per_client=0), ValueError, "max_episodes_per_client must be >= 1"),
        (dict(max_episodes=4, max_episodes_per_client=5), ValueError, "must not exceed max_episodes"),
        (dict(max_episodes_per_client=True), TypeError, "max_episodes_per_client must be an int"),
        (dict(max_send_queue=0), ValueError, "max_send_queue must be >= 1"),
        (dict(max_send_queue=2.5), TypeError, "max_send_queue must be an int"),
        (dict(max_message_bytes=1500), ValueError, "must hold an observation"),
        (dict(max_message_bytes="big"), TypeError, "max_message_bytes must be an int"),
        (dict(max_frame_bytes=100), ValueError, "max_frame_bytes must be >= 1024"),
        (dict(address="inproc://x"), ValueError, "ipc://"),
    ],
)
def test_bound_options_are_checked(kwargs, error, words):
    with pytest.raises(error, match=words):
        envpool.serve(gym.spaces.Box(-1, 1, (200,), np.float32), ACT_SPACE, **kwargs)
