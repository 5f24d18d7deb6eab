"""External episodes: envpool.serve + PolicyClient + ExternalEnv, end to end on loopback.

Clients drive CartPole episodes through get_action against a trainer loop on recv/send; every
transition must arrive exactly once with the right rewards; disconnects, restarts, closing,
Ctrl-C and running out of episode slots are answered without disturbing the other episodes.
What the server refuses (bad input, malformed frames, authentication): test_refusals.py.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections import defaultdict

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("zmq", reason="external episodes need pyzmq (pip install envpool-ng[external])")
pytest.importorskip("msgpack", reason="external episodes need msgpack (pip install envpool-ng[external])")

from support.external import answer_in_background  # noqa: E402
from support.subprocs import start_python  # noqa: E402

import envpool  # noqa: E402

CARTPOLE = gym.make("CartPole-v1")
OBS_SPACE, ACT_SPACE = CARTPOLE.observation_space, CARTPOLE.action_space

pytestmark = pytest.mark.integration

# A client process: `threads` threads, each running `episodes` CartPole episodes through
# get_action; prints what it saw as JSON.
CLIENT = """
import json, sys, threading
import gymnasium as gym, numpy as np, envpool
address, threads, episodes, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
client = envpool.PolicyClient(address, timeout=60)
records, lock = [], threading.Lock()
def run(k):
    env = gym.make("CartPole-v1")
    for e in range(episodes):
        obs, _ = env.reset(seed=seed * 1000 + k * 100 + e)
        eid = client.start_episode()
        rec = {"episode_id": eid, "obs": [], "actions": [], "rewards": []}
        while True:
            action = client.get_action(eid, obs)
            rec["obs"].append(obs.tolist()); rec["actions"].append(int(action))
            obs, reward, terminated, truncated, _ = env.step(int(action))
            client.log_returns(eid, reward)
            rec["rewards"].append(float(reward))
            if terminated or truncated:
                client.end_episode(eid, obs, truncated=bool(truncated and not terminated))
                rec.update(final_obs=obs.tolist(), terminated=bool(terminated), ret=float(sum(rec["rewards"])))
                break
        with lock:
            records.append(rec)
ts = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
[t.start() for t in ts]; [t.join() for t in ts]
client.close()
print(json.dumps(records))
"""


def client_process(address, threads, episodes, seed):
    return start_python(
        f"import sys; sys.argv = ['client', {address!r}, '{threads}', '{episodes}', '{seed}']\n" + CLIENT.strip()
    )


def test_client_processes_every_transition_arrives_once_with_its_reward_and_return():
    server = envpool.serve(OBS_SPACE, ACT_SPACE, batch_size=4, max_episodes=32, wait_ms=2.0)
    procs = [client_process(server.address, threads=2, episodes=3, seed=s) for s in range(3)]
    rng = np.random.default_rng(0)
    seen = defaultdict(list)  # episode_id -> rows (obs, reward, terminated, truncated, action sent)
    try:
        while True:
            try:
                obs, reward, terminated, truncated, info = server.recv(timeout=0.5)
            except TimeoutError:
                if all(p.poll() is not None for p in procs):
                    break
                continue
            assert 1 <= len(obs) <= 4
            actions = rng.integers(0, 2, len(obs))
            for i, eid in enumerate(info["episode_id"]):
                assert not info["_logged_action"][i]
                seen[eid].append((obs[i].copy(), reward[i], terminated[i], truncated[i], int(actions[i])))
            server.send(actions, info["env_id"])
        outs = [p.communicate(timeout=30) for p in procs]
    finally:
        for p in procs:
            p.kill()
        server.close()
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    records = [r for out, _ in outs for r in json.loads(out)]
    assert len(records) == 18 and len({r["episode_id"] for r in records}) == 18, [
        (len(o[0]), o[1][-3000:]) for o in outs
    ]
    assert set(seen) == {r["episode_id"] for r in records}
    for rec in records:
        rows = seen[rec["episode_id"]]
        n = len(rec["obs"])
        assert len(rows) == n + 1  # one row per get_action, one for end_episode: each exactly once
        for k in range(n):
            o, r, term, trunc, action = rows[k]
            np.testing.assert_array_equal(o, np.array(rec["obs"][k], np.float32))
            assert r == (0.0 if k == 0 else rec["rewards"][k - 1])  # rewards logged since the last action
            assert not term and not trunc
            assert action == rec["actions"][k]  # the client got the action the trainer sent
        o, r, term, trunc, _ = rows[n]
        np.testing.assert_array_equal(o, np.array(rec["final_obs"], np.float32))
        assert r == rec["rewards"][-1] and term == rec["terminated"] and trunc == (not rec["terminated"])
        assert sum(row[1] for row in rows) == rec["ret"]


def test_off_policy_log_action_reaches_the_trainer_with_its_mask(server):
    client = envpool.PolicyClient(server.address)
    eid = client.start_episode(training_enabled=False)
    client.log_action(eid, np.ones(4, np.float32), 1)  # returns without waiting for the trainer
    obs, reward, terminated, truncated, info = server.recv(timeout=5)
    assert info["_logged_action"].tolist() == [True] and info["logged_action"].tolist() == [1]
    assert info["episode_id"].tolist() == [eid] and info["training_enabled"].tolist() == [False]
    got = []
    t = threading.Thread(target=lambda: got.append(client.get_action(eid, np.zeros(4, np.float32))))
    t.start()
    server.send(np.array([0]), info["env_id"])  # ignored by the client: it acted itself
    obs, reward, terminated, truncated, info = server.recv(timeout=5)
    assert info["_logged_action"].tolist() == [False]
    server.send(np.array([1]), info["env_id"])
    t.join(5)
    assert got == [1]
    client.end_episode(eid, np.zeros(4, np.float32))
    client.close()


def test_concurrent_episodes_of_one_client_batch_together_and_partial_batches_come_after_wait_ms():
    server = envpool.serve(OBS_SPACE, ACT_SPACE, batch_size=8, max_episodes=16, wait_ms=20.0)
    client = envpool.PolicyClient(server.address)
    try:
        eids = [client.start_episode() for _ in range(5)]
        results = {}

        def ask(eid, k):
            results[eid] = client.get_action(eid, np.full(4, k, np.float32))

        ts = [threading.Thread(target=ask, args=(eid, k)) for k, eid in enumerate(eids)]
        start = time.monotonic()  # no row can arrive before this
        [t.start() for t in ts]
        seen, first = [], True
        while len(seen) < 5:
            obs, reward, terminated, truncated, info = server.recv(timeout=5)
            if first:
                # 5 episodes wait but a batch holds 8: the batch is cut wait_ms after its first row.
                assert time.monotonic() - start >= 0.0195
                first = False
            assert 1 <= len(obs) <= 5
            seen += info["episode_id"].tolist()
            server.send(obs[:, 0].astype(np.int64) % 2, info["env_id"])
        assert sorted(seen) == sorted(eids)  # each waiting episode exactly once
        [t.join(5) for t in ts]
        assert {eid: int(results[eid]) for eid in eids} == {eid: k % 2 for k, eid in enumerate(eids)}
    finally:
        client.close()
        server.close()


def test_a_client_that_dies_or_leaves_mid_episode_ends_its_episodes_truncated(server):
    proc = start_python(f"""
        import numpy as np, envpool, time
        c = envpool.PolicyClient({server.address!r}, heartbeat=0.1)
        a = c.start_episode("dead-a"); b = c.start_episode("dead-b")
        print("ready", flush=True)
        c.get_action(a, np.ones(4, np.float32))
    """)
    survivor = envpool.PolicyClient(server.address)
    try:
        assert proc.stdout.readline().strip() == "ready"
        obs, reward, terminated, truncated, info = server.recv(timeout=5)
        assert info["episode_id"].tolist() == ["dead-a"]
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
        server.send(np.array([0]), info["env_id"])  # the answer goes nowhere
        s = survivor.start_episode("alive")
        done = threading.Event()
        threading.Thread(
            target=lambda: (survivor.get_action(s, np.zeros(4, np.float32)), done.set()), daemon=True
        ).start()
        rows = {}
        deadline = time.monotonic() + 10
        while "dead-a" not in rows or "alive" not in rows:
            assert time.monotonic() < deadline
            try:
                obs, reward, terminated, truncated, info = server.recv(timeout=0.2)
            except TimeoutError:
                continue
            for i, eid in enumerate(info["episode_id"]):
                rows[eid] = (obs[i], terminated[i], truncated[i])
            server.send(np.zeros(len(obs), np.int64), info["env_id"])
        # dead-a ends truncated with its last observation; dead-b never reported a row: no row.
        np.testing.assert_array_equal(rows["dead-a"][0], np.ones(4, np.float32))
        assert rows["dead-a"][1:] == (False, True)
        assert "dead-b" not in rows
        assert done.wait(5)
        # close() says goodbye: the survivor's open episode ends truncated too.
        survivor.close()
        obs, reward, terminated, truncated, info = server.recv(timeout=5)
        assert info["episode_id"].tolist() == ["alive"] and truncated.tolist() == [True]
        server.send(np.zeros(1, np.int64), info["env_id"])
    finally:
        proc.kill()
        proc.communicate()
        survivor.close()


def test_server_restart_on_the_same_port_the_client_reconnects():
    first = envpool.serve(OBS_SPACE, ACT_SPACE)
    address = first.address
    client = envpool.PolicyClient(address, timeout=5)
    try:
        t, rows, stop = answer_in_background(first)
        eid = client.start_episode()
        assert int(client.get_action(eid, np.zeros(4, np.float32))) == 0
        stop.set()
        t.join()
        first.close()
        with pytest.raises((envpool.ExternalError, TimeoutError)):
            client.start_episode()  # nobody serves now
        second = envpool.serve(OBS_SPACE, ACT_SPACE, address=address)
        try:
            t, rows, stop = answer_in_background(second, lambda info: np.ones(len(info["env_id"]), np.int64))
            with pytest.raises(envpool.ExternalError, match="unknown_episode"):
                client.get_action(eid, np.zeros(4, np.float32))  # the new server never saw it
            eid2 = client.start_episode()
            assert int(client.get_action(eid2, np.zeros(4, np.float32))) == 1
            stop.set()
            t.join()
        finally:
            second.close()
    finally:
        client.close()


def test_close_tells_waiting_clients_and_leaves_no_threads():
    before = set(threading.enumerate())
    server = envpool.serve(OBS_SPACE, ACT_SPACE)
    client = envpool.PolicyClient(server.address, timeout=30)
    eid = client.start_episode()
    errors = []

    def ask():
        try:
            client.get_action(eid, np.zeros(4, np.float32))
        except envpool.ExternalError as err:
            errors.append(err.code)

    t = threading.Thread(target=ask)
    t.start()
    server.recv(timeout=5)
    start = time.monotonic()
    server.close()
    t.join(5)
    assert errors == ["closed"] and time.monotonic() - start < 5
    client.close()
    with pytest.raises(RuntimeError, match="closed"):
        server.recv(timeout=0.1)
    assert set(threading.enumerate()) <= before


class CartPoleExternal(envpool.ExternalEnv):
    """CartPole driven from inside, RLlib-style: run() owns the loop."""

    def __init__(self, episodes):
        super().__init__(OBS_SPACE, ACT_SPACE)
        self.episodes, self.returns = episodes, []

    def run(self):
        env = gym.make("CartPole-v1")
        for e in range(self.episodes):
            obs, _ = env.reset(seed=e)
            eid = self.start_episode()
            total = 0.0
            while True:
                action = self.get_action(eid, obs)
                obs, reward, terminated, truncated, _ = env.step(int(action))
                self.log_returns(eid, reward)
                total += reward
                if terminated or truncated:
                    self.end_episode(eid, obs, truncated=bool(truncated and not terminated))
                    self.returns.append(total)
                    break


def test_external_env_runs_in_process_behind_the_same_pool():
    env = CartPoleExternal(episodes=4)
    envs = env.open(batch_size=2, num_runners=2, wait_ms=1.0)
    returns = defaultdict(float)
    ended = 0
    try:
        obs, info = envs.reset()
        while ended < 8:
            actions = (obs[:, 2] > 0).astype(np.int64)  # lean with the pole
            obs, reward, terminated, truncated, info = envs.step(actions)
            for i, eid in enumerate(info["episode_id"]):
                returns[eid] += reward[i]
                ended += bool(terminated[i] or truncated[i])
    finally:
        envs.close()
    assert env.errors == []
    assert sorted(returns.values()) == sorted(env.returns) and len(env.returns) == 8
    assert max(env.returns) > 30  # the trainer's actions were applied


@pytest.mark.parametrize("module", ["envpool.external.serve", "envpool.external.env", "envpool.external.client"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_ctrl_c_interrupts_a_waiting_recv_and_close_still_works():
    proc = start_python("""
        import time, gymnasium as gym, envpool
        env = gym.make("CartPole-v1")
        server = envpool.serve(env.observation_space, env.action_space)
        print("waiting", flush=True)
        start = time.monotonic()
        try:
            server.recv()
        except KeyboardInterrupt:
            print("interrupted after %.3f s" % (time.monotonic() - start), flush=True)
        server.close()
        print("closed", flush=True)
    """)
    try:
        assert proc.stdout.readline().strip() == "waiting"
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        assert "interrupted after" in out and out.strip().endswith("closed"), err
        assert proc.returncode == 0
    finally:
        proc.kill()


def test_slots_run_out_and_come_back_and_returns_info_reaches_the_trainer():
    server = envpool.serve(OBS_SPACE, ACT_SPACE, max_episodes=2, batch_size=1)
    client = envpool.PolicyClient(server.address)
    try:
        a, b = client.start_episode(), client.start_episode()
        with pytest.raises(envpool.ExternalError, match="too_many_episodes"):
            client.start_episode()
        client.end_episode(b, np.zeros(4, np.float32))  # no row yet: the slot comes back at once
        client.start_episode()  # takes b's slot
        client.log_returns(a, 0.5, {"lives": 3})
        client.log_returns(a, 0.25, {"level": "2"})
        t = threading.Thread(target=lambda: client.get_action(a, np.zeros(4, np.float32)))
        t.start()
        obs, reward, terminated, truncated, info = server.recv(timeout=5)
        assert info["episode_id"].tolist() == [a] and reward.tolist() == [0.75]
        assert info["client_info"].tolist() == [{"lives": 3, "level": "2"}]
        server.send(np.array([0]), info["env_id"])
        t.join(5)
        client.end_episode(a, np.zeros(4, np.float32))
        obs, reward, terminated, truncated, info = server.recv(timeout=5)
        assert terminated.tolist() == [True] and info["client_info"].tolist() == [None]
        with pytest.raises(envpool.ExternalError, match="too_many_episodes"):
            client.start_episode()  # a's slot frees only once the trainer answered its last row
        server.send(np.array([0]), info["env_id"])
        deadline = time.monotonic() + 5
        while True:  # the server thread frees it as soon as it sees the answer
            try:
                client.start_episode()
                break
            except envpool.ExternalError:
                assert time.monotonic() < deadline
                time.sleep(0.01)
    finally:
        client.close()
        server.close()
