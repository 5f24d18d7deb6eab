"""PettingZoo ParallelEnvs in worker processes (envpool.make_python): a Python twin of
AgentCounter-v0 gives the native env's rows, its views pass PettingZoo's parallel_api_test, mpe2's
envs equal mpe2 run alone, and telling a ParallelEnv factory from a gymnasium one makes no
second env."""

from __future__ import annotations

import numpy as np
import pytest

import envpool

TASK = "AgentCounter-v0"

pettingzoo = pytest.importorskip("pettingzoo")


def _twin(context=None):
    from support.agent_twin import AgentCounterTwin

    return AgentCounterTwin()


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_python_parallel_envs_give_the_native_rows(mode):
    """The Python twin of AgentCounter-v0 through make_python equals the native env, row for row
    (observations padded per group, rewards, flags, active, needs_action), through episode ends."""
    native = envpool.make(TASK, num_envs=3, autoreset_mode=mode)
    python = envpool.make_python(_twin, num_envs=3, num_workers=2, autoreset_mode=mode)
    try:
        assert python.agents.names == native.agents.names
        assert [(g.name, g.slots, g.obs_size) for g in python.agents.groups] == [
            ("agent", range(0, 1), (2,)),
            ("agent", range(1, 3), (4,)),
        ]
        assert python.single_observation_space == native.single_observation_space
        a, b = native.reset(seed=0), python.reset(seed=0)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1]["active"], b[1]["active"])
        rng = np.random.default_rng(1)
        for t in range(20):
            actions = rng.integers(0, 3, size=9)
            a, b = native.step(actions), python.step(actions)
            for k in range(4):
                assert np.array_equal(a[k], b[k]), (t, k)
            for key in ("active", "needs_action", "agent_id", "env_id", "all_done"):
                assert np.array_equal(a[4][key], b[4][key]), (t, key)
            assert ("_final_obs" in a[4]) == ("_final_obs" in b[4])
            if "_final_obs" in a[4]:
                assert np.array_equal(a[4]["_final_obs"], b[4]["_final_obs"])
                for row in np.flatnonzero(a[4]["_final_obs"]):
                    assert np.array_equal(a[4]["final_obs"][row], b[4]["final_obs"][row]), (t, row)
    finally:
        native.close()
        python.close()


def test_python_parallel_env_views_pass_parallel_api_test():
    from pettingzoo.test import parallel_api_test

    env = envpool.make_python(_twin, env_type="pettingzoo", num_workers=1)
    try:
        parallel_api_test(env, num_cycles=50)
        obs, _ = env.reset()
        assert obs["agent_0"].shape == (2,) and obs["agent_1"].shape == (4,)
    finally:
        env.close()


def test_make_python_mpe2_equals_mpe2():
    """An mpe2 env in a worker gives its own observations and rewards, padded per group."""
    mpe2 = pytest.importorskip("mpe2")
    from mpe2 import simple_adversary_v3

    envs = envpool.make_python(lambda: simple_adversary_v3.parallel_env(), num_envs=2, num_workers=1, seed=3)
    refs = [simple_adversary_v3.parallel_env() for _ in range(2)]
    try:
        assert mpe2 and [g.name for g in envs.agents.groups] == ["adversary", "agent"]
        obs, _ = envs.reset(seed=3)
        ref_obs = [ref.reset(seed=3 + i)[0] for i, ref in enumerate(refs)]
        rng = np.random.default_rng(0)
        for _ in range(5):
            for i, ref in enumerate(refs):
                for k, agent in enumerate(ref.possible_agents):
                    width = ref_obs[i][agent].shape[0]
                    assert np.array_equal(obs[i * 3 + k][:width], ref_obs[i][agent])
            actions = rng.integers(0, 5, size=6)
            obs, rew, _, _, _ = envs.step(actions)
            for i, ref in enumerate(refs):
                ref_obs[i], ref_rew, *_ = ref.step({a: actions[i * 3 + k] for k, a in enumerate(ref.possible_agents)})
                assert rew[i * 3 : i * 3 + 3].tolist() == [ref_rew[a] for a in ref.possible_agents]
    finally:
        envs.close()


@pytest.mark.parametrize("kind", ["parallel_env", "gymnasium"])
def test_make_python_makes_env_0_once_to_read_its_spaces(tmp_path, kind):
    """Telling a ParallelEnv factory from a gymnasium one must not cost a second env in the
    parent process: the env made to tell them apart is the one whose spaces are read."""
    import os

    import gymnasium
    from support.agent_twin import AgentCounterTwin

    made = tmp_path / "made"

    def factory():
        with open(made, "a") as f:
            f.write(f"{os.getpid()}\n")
        return AgentCounterTwin() if kind == "parallel_env" else gymnasium.make("CartPole-v1")

    envs = envpool.make_python(factory, num_envs=2, num_workers=1)
    envs.close()
    assert made.read_text().split().count(str(os.getpid())) == 1
