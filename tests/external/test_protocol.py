"""docs/external_protocol.md is enough to write a client: this one uses raw pyzmq and msgpack
only (no envpool client code), runs 16 CartPole episodes pipelined over one connection, and
checks every reply against what the trainer sent."""

from __future__ import annotations

import itertools
import re
import threading

import gymnasium as gym
import numpy as np
import pytest

zmq = pytest.importorskip("zmq", reason="external episodes need pyzmq (pip install envpool-ng[external])")
msgpack = pytest.importorskip("msgpack", reason="external episodes need msgpack (pip install envpool-ng[external])")

from support.external import answer_in_background  # noqa: E402

import envpool  # noqa: E402

pytestmark = pytest.mark.integration


class MinimalClient:
    """The protocol as the doc states it: DEALER, msgpack header frame, raw little-endian arrays."""

    def __init__(self, address: str, token: str | None = None):
        self.sock = zmq.Context.instance().socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.connect(f"tcp://{address}")
        self.rids = itertools.count(1)
        hello = self.call({"op": "hello", "token": token, "client": "minimal"})
        self.spaces = hello

    def send(self, header: dict, *frames: bytes) -> int:
        rid = next(self.rids)
        self.sock.send_multipart([msgpack.packb({**header, "rid": rid}), *frames])
        return rid

    def receive(self, timeout_ms: int = 10000) -> tuple[dict, list[bytes]]:
        assert self.sock.poll(timeout_ms), "no reply"
        frames = self.sock.recv_multipart()
        return msgpack.unpackb(frames[0]), frames[1:]

    def call(self, header: dict, *frames: bytes) -> dict:
        rid = self.send(header, *frames)
        reply, rest = self.receive()
        assert reply["rid"] == rid
        if not reply["ok"]:
            raise RuntimeError(reply["code"])
        reply["frames"] = rest
        return reply


def _recording_trainer(server, stop: threading.Event, sent: dict, counts: dict) -> None:
    """Random actions for every row; ``sent[(episode_id, k)]``: the action of its k-th row."""
    rng = np.random.default_rng(1)
    while not stop.is_set():
        try:
            obs, reward, terminated, truncated, info = server.recv(timeout=0.05)
        except TimeoutError:
            continue
        actions = rng.integers(0, 2, len(obs))
        for eid, a in zip(info["episode_id"], actions):
            k = counts.get(eid, 0)
            counts[eid] = k + 1
            sent[(eid, k)] = int(a)
        server.send(actions, info["env_id"])


def test_an_independent_client_runs_pipelined_episodes_from_the_doc_alone():
    env0 = gym.make("CartPole-v1")
    server = envpool.serve(env0.observation_space, env0.action_space, batch_size=8, max_episodes=32, wait_ms=1.0)
    sent = {}  # (episode_id, row index) -> action the trainer sent
    stop = threading.Event()
    counts: dict[str, int] = {}
    t = threading.Thread(target=_recording_trainer, args=(server, stop, sent, counts))
    t.start()
    client = MinimalClient(server.address)
    try:
        assert client.spaces["obs"] == {"dtype": "float32", "shape": [4]}
        assert client.spaces["action"] == {"dtype": "int64", "shape": []}
        envs, steps, pending, returns = {}, {}, {}, {}
        eids = [
            client.call({"v": 2, "op": "start_episode", "episode_id": f"ep{k}", "training_enabled": True})["episode_id"]
            for k in range(16)
        ]
        for k, eid in enumerate(eids):
            env = gym.make("CartPole-v1")
            obs, _ = env.reset(seed=k)
            envs[eid], steps[eid], returns[eid] = env, 0, 0.0
            pending[
                client.send(
                    {"v": 2, "op": "get_action", "episode_id": eid, "obs": {"dtype": "float32", "shape": [4]}},
                    obs.astype("<f4").tobytes(),
                )
            ] = eid
        finished = 0
        while pending:
            reply, frames = client.receive()
            eid = pending.pop(reply["rid"])
            if reply.get("action") is None:  # the ack of a log_returns or end_episode
                continue
            assert reply["ok"] and reply["action"] == {"dtype": "int64", "shape": []}
            action = int(np.frombuffer(frames[0], "<i8")[0])
            assert action == sent[(eid, steps[eid])]
            steps[eid] += 1
            obs, r, term, trunc, _ = envs[eid].step(action)
            returns[eid] += r
            pending[client.send({"v": 2, "op": "log_returns", "episode_id": eid, "reward": float(r), "info": None})] = (
                eid
            )
            desc = {"dtype": "float32", "shape": [4]}
            if term or trunc:
                pending[
                    client.send(
                        {"v": 2, "op": "end_episode", "episode_id": eid, "obs": desc, "truncated": bool(trunc)},
                        obs.astype("<f4").tobytes(),
                    )
                ] = eid
                finished += 1
            else:
                pending[
                    client.send(
                        {"v": 2, "op": "get_action", "episode_id": eid, "obs": desc}, obs.astype("<f4").tobytes()
                    )
                ] = eid
        assert finished == 16
        client.sock.send_multipart([msgpack.packb({"op": "bye"})])
        # Each episode: one row per action, plus its end row.
        for eid in envs:
            for _ in range(100):
                if counts.get(eid) == steps[eid] + 1:
                    break
                stop.wait(0.02)
            assert counts[eid] == steps[eid] + 1
    finally:
        stop.set()
        t.join()
        client.sock.close()
        server.close()


def _raw(sock, header: dict, *frames: bytes) -> dict:
    """One request as raw msgpack (whatever types its header holds) and its reply."""
    sock.send_multipart([msgpack.packb(header, use_bin_type=True), *frames])
    assert sock.poll(10000), f"no reply to {header}"
    return msgpack.unpackb(sock.recv_multipart()[0], raw=False)


OBS4 = {"dtype": "float32", "shape": [4]}
ZEROS4 = np.zeros(4, "<f4").tobytes()


def _wrongly_typed_requests(eid: str) -> list[tuple[str, dict, tuple[bytes, ...]]]:
    """(field the reply must name, header, frames): every header field the server reads, each
    of a wrong msgpack type (an int as a str or float, a map for an array, an array for a str, ...)."""
    ep = {"v": 2, "episode_id": eid}
    cases = [("op", {"v": 2, "op": op}, ()) for op in ([1, 2], {"get_action": 1}, 5, b"ping", None, True)]
    cases += [
        ("rid", {"v": 2, "op": "ping", "rid": [1]}, ()),
        ("rid", {"v": 2, "op": "ping", "rid": 1.5}, ()),
        ("client", {"op": "hello", "client": ["c"]}, ()),
        ("client", {"op": "hello", "client": 7}, ()),
        ("token", {"op": "hello", "client": "c", "token": ["t"]}, ()),
        ("token", {"op": "hello", "client": "c", "token": 123}, ()),
        ("v", {"op": "hello", "client": "c", "v": "2"}, ()),
        ("v", {"op": "hello", "client": "c", "v": 2.0}, ()),
    ]
    for v in ("2", 2.0, [2], {"v": 2}, True, None):
        cases.append(("v", {"op": "start_episode", "v": v}, ()))
        cases.append(("v", {"op": "get_action", "v": v, "episode_id": eid, "obs": OBS4}, (ZEROS4,)))
    for value in (1, "true", [True], None):
        cases.append(("training_enabled", {"v": 2, "op": "start_episode", "training_enabled": value}, ()))
    for value in (5, ["e"], {"e": 1}, b"e", ""):
        cases.append(("episode_id", {"v": 2, "op": "start_episode", "episode_id": value}, ()))
    for op in ("get_action", "end_episode"):
        for value in (5, ["e"], {"e": 1}, b"e", None):
            cases.append(("episode_id", {"v": 2, "op": op, "episode_id": value, "obs": OBS4}, (ZEROS4,)))
        for desc in (["float32", [4]], "float32", None, 4):
            cases.append(("obs", {**ep, "op": op, "obs": desc}, (ZEROS4,)))
        for dtype in (["float32"], {"float32": 1}, 32, b"float32"):
            cases.append(("dtype", {**ep, "op": op, "obs": {"dtype": dtype, "shape": [4]}}, (ZEROS4,)))
        for shape in ("4", {"4": 1}, [4.0], ["4"], 4, [[4]]):
            cases.append(("shape", {**ep, "op": op, "obs": {"dtype": "float32", "shape": shape}}, (ZEROS4,)))
    action = np.int64(0).tobytes()
    for desc in ([["int64"], []], "int64", {"dtype": "int64", "shape": [0.0]}, {"dtype": ["int64"], "shape": []}):
        cases.append(("action", {**ep, "op": "log_action", "obs": OBS4, "action": desc}, (ZEROS4, action)))
    for reward in ("1.0", [1.0], {"r": 1}, None, True, b"1"):
        cases.append(("reward", {**ep, "op": "log_returns", "reward": reward, "info": None}, ()))
    for info in ([1, 2], "x", 3, True):
        cases.append(("info", {**ep, "op": "log_returns", "reward": 1.0, "info": info}, ()))
    for truncated in ("no", 0, [False], None):
        cases.append(("truncated", {**ep, "op": "end_episode", "obs": OBS4, "truncated": truncated}, (ZEROS4,)))
    return cases


def test_every_header_field_of_a_wrong_type_is_a_bad_request_naming_it():
    """docs/external_protocol.md: a malformed header is answered bad_request (never internal),
    the message names the field, and the connection and its episode go on."""
    env0 = gym.make("CartPole-v1")
    server = envpool.serve(env0.observation_space, env0.action_space, max_episodes=4)
    t, _, stop = answer_in_background(server)
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"tcp://{server.address}")
    try:
        # Before hello too: an unhashable op is a bad request, not an internal error.
        for op in ([1, 2], {"op": 1}):
            reply = _raw(sock, {"op": op, "rid": 1})
            assert (reply["code"], reply["rid"]) == ("bad_request", 1) and "op" in reply["error"], reply
        hello = {"op": "hello", "client": "typed", "rid": 0}
        assert _raw(sock, hello)["ok"]
        eid = _raw(sock, {"v": 2, "op": "start_episode", "rid": 0})["episode_id"]
        for rid, (field, header, frames) in enumerate(_wrongly_typed_requests(eid), start=1):
            header = {"rid": rid, **header} if "rid" not in header else header
            reply = _raw(sock, header, *frames)
            assert reply["ok"] is False and reply["code"] == "bad_request", (field, header, reply)
            assert re.search(rf"\b{field}\b", reply["error"]), (field, header, reply)
            assert reply["rid"] == (rid if field != "rid" else None), (field, header, reply)
            if header["op"] == "hello":  # a refused hello leaves the connection unauthenticated
                assert _raw(sock, hello)["ok"]
        # The episode and the connection go on: a well-formed row reaches the trainer.
        reply = _raw(sock, {"v": 2, "op": "get_action", "rid": 9999, "episode_id": eid, "obs": OBS4}, ZEROS4)
        assert reply["ok"] and reply["rid"] == 9999 and reply["action"] == {"dtype": "int64", "shape": []}
        assert server.stats()["episodes"] == 1
    finally:
        stop.set()
        t.join()
        sock.close()
        server.close()
