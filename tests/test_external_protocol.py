"""docs/external_protocol.md is enough to write a client: this one uses raw pyzmq and msgpack
only (no envpool client code), runs 16 CartPole episodes pipelined over one connection, and
checks every reply against what the trainer sent."""

from __future__ import annotations

import itertools
import threading

import gymnasium as gym
import numpy as np
import pytest

zmq = pytest.importorskip("zmq", reason="external episodes need pyzmq (pip install envpool-ng[external])")
msgpack = pytest.importorskip("msgpack", reason="external episodes need msgpack (pip install envpool-ng[external])")

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
