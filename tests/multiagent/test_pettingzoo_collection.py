"""env_type="pettingzoo" with several envs (issue 36 item 4): the collection's results are one
per env and can never be unpacked as a single ParallelEnv's ``(observations, infos)``."""

from __future__ import annotations

import pytest

import envpool
from envpool.multiagent.parallel import PerEnvResults

TASK = "AgentCounter-v0"


def test_unpacking_the_collections_reset_as_one_envs_is_refused():
    envs = envpool.make(TASK, env_type="pettingzoo", num_envs=2, seed=0)
    try:
        with pytest.raises(TypeError, match=r"one \(observations, infos\) per env \(2 envs\).*result\[i\]"):
            obs, infos = envs.reset(seed=0)
        result = envs.reset(seed=0)
        assert isinstance(result, PerEnvResults) and len(result) == 2
        obs, infos = result[1]  # env 1's own (observations, infos)
        assert set(obs) == set(envs[1].agents) and set(infos) == set(obs)
        assert [r[0].keys() for r in result.tolist()] == [obs.keys()] * 2
        actions = [{a: 1 for a in v.agents} for v in envs]
        with pytest.raises(TypeError, match=r"one \(observations, rewards, terminations, truncations, infos\)"):
            obs, rewards, terminations, truncations, infos = envs.step(actions)  # 5 names, as a ParallelEnv's
        envs.reset(seed=0)
        stepped = envs.step(actions)
        assert stepped[0][1] == {"agent_0": 1.0, "agent_1": 2.0} and stepped[-1][1] == stepped[0][1]
        with pytest.raises(TypeError, match="a list of action dicts, one per env"):
            envs.step({"agent_0": 1, "agent_1": 1})  # a single env's actions, len 2 == num_envs
    finally:
        envs.close()


def test_one_env_is_a_single_parallel_env():
    env = envpool.make(TASK, env_type="pettingzoo", num_envs=1, seed=0)
    try:
        obs, infos = env.reset(seed=0)  # a ParallelEnv's own (observations, infos)
        assert set(obs) == {"agent_0", "agent_1"}
        pettingzoo = pytest.importorskip("pettingzoo")
        assert isinstance(env, pettingzoo.ParallelEnv)
    finally:
        env.close()
