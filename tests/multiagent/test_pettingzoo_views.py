"""The PettingZoo views of multi-agent pools (env_type="pettingzoo"): PettingZoo's own
parallel_api_test, views stepped alone and together, refused actions and env errors, on the test
env AgentCounter-v0 (see test_agent_rows.py for its schedule); the native MPE tasks' views
against mpe2, and the turn-based classic games' views."""

from __future__ import annotations

import numpy as np
import pytest

import envpool
from envpool.errors import EnvError

TASK = "AgentCounter-v0"

pettingzoo = pytest.importorskip("pettingzoo")


def test_parallel_api_test_passes():
    from pettingzoo.test import parallel_api_test

    env = envpool.make(TASK, env_type="pettingzoo")
    try:
        parallel_api_test(env, num_cycles=50)
    finally:
        env.close()
    assert env._owner.closed


def test_views_step_alone_and_together_alike():
    alone = envpool.make(TASK, env_type="pettingzoo", num_envs=3, seed=1)
    together = envpool.make(TASK, env_type="pettingzoo", num_envs=3, seed=1)
    try:
        assert len(together) == 3 and together[0].possible_agents == ["agent_0", "agent_1", "agent_2"]
        first = together.reset()
        for i, view in enumerate(alone):
            obs, infos = view.reset(seed=1 + i)
            assert set(obs) == {"agent_0", "agent_1"} == set(first[i][0])
            assert obs["agent_0"].shape == (2,) and obs["agent_1"].shape == (4,)
        for _ in range(8):
            actions = [{a: 1 for a in view.agents} for view in together]
            got = together.step(actions)
            for i, view in enumerate(alone):
                if got[i] is None:
                    assert not view.agents
                    continue
                mine = view.step({a: 1 for a in view.agents})
                assert {a: o.tolist() for a, o in mine[0].items()} == {a: o.tolist() for a, o in got[i][0].items()}
                assert mine[1:4] == got[i][1:4]
        assert all(r is None for r in together.step([{}, {}, {}]).tolist())  # every episode is over
    finally:
        alone.close()
        together.close()


def test_view_refuses_bad_actions_and_goes_on():
    env = envpool.make(TASK, env_type="pettingzoo")
    try:
        env.reset(seed=0)
        with pytest.raises(ValueError, match=r"no action for \['agent_1'\]"):
            env.step({"agent_0": 1})
        with pytest.raises(KeyError, match="agent_2.*not in the episode"):
            env.step({"agent_0": 1, "agent_1": 1, "agent_2": 1})
        with pytest.raises(KeyError, match="unknown agent 'bob'"):
            env.step({"agent_0": 1, "bob": 1})
        with pytest.raises(ValueError, match="env 0"):
            env.step({"agent_0": 1, "agent_1": 5})
        obs, rew, term, trunc, info = env.step({"agent_0": 1, "agent_1": 1})
        assert rew == {"agent_0": 1.0, "agent_1": 2.0}
        for _ in range(6):
            env.step({a: 0 for a in env.agents})
        assert env.agents == []
        with pytest.raises(RuntimeError, match="episode is over"):
            env.step({})
        obs, _ = env.reset()
        assert env.agents == ["agent_0", "agent_1"]
    finally:
        env.close()


def test_view_env_error_ends_that_episode_only():
    envs = envpool.make(TASK, env_type="pettingzoo", num_envs=2, fail_at=[2, 0])
    try:
        envs.reset()
        envs.step([{a: 1 for a in v.agents} for v in envs])
        with pytest.raises(EnvError) as caught:
            envs.step([{a: 1 for a in v.agents} for v in envs])
        assert caught.value.env_ids == [0]
        assert caught.value.result[0] is None and caught.value.result[1][1] == {
            "agent_0": 1.0,
            "agent_1": 2.0,
            "agent_2": 0.0,  # joined in this step
        }
        assert envs[0].agents == [] and envs[1].agents == ["agent_0", "agent_1", "agent_2"]
        envs[0].reset()
        assert envs[0].agents == ["agent_0", "agent_1"]
    finally:
        envs.close()


# -- the native MPE tasks through the PettingZoo views ---------------------------------------------

MPE = {
    "SimpleSpread-v3": "simple_spread_v3",
    "SimpleTag-v3": "simple_tag_v3",
    "SimpleAdversary-v3": "simple_adversary_v3",
}


@pytest.mark.parametrize("task", sorted(MPE))
def test_native_mpe_views_pass_parallel_api_test_and_equal_mpe2(task):
    import importlib

    from pettingzoo.test import parallel_api_test

    module = importlib.import_module(f"mpe2.{MPE[task]}")
    env = envpool.make(task, env_type="pettingzoo")
    try:
        parallel_api_test(env, num_cycles=60)
        ref = module.parallel_env()
        assert env.possible_agents == ref.possible_agents
        for agent in ref.possible_agents:
            assert env.observation_space(agent) == ref.observation_space(agent)
            assert env.action_space(agent) == ref.action_space(agent)
        obs, _ = env.reset(seed=11)
        ref_obs, _ = ref.reset(seed=11)
        rng = np.random.default_rng(2)
        while env.agents:
            for agent in ref.agents:
                assert np.array_equal(obs[agent], ref_obs[agent]), agent
            actions = {a: int(rng.integers(0, 5)) for a in env.agents}
            obs, rew, term, trunc, _ = env.step(actions)
            ref_obs, ref_rew, ref_term, ref_trunc, _ = ref.step(actions)
            assert rew == ref_rew and term == ref_term and trunc == ref_trunc
        assert ref.agents == []
    finally:
        env.close()


@pytest.mark.parametrize("task", ["TicTacToe-v3", "ConnectFour-v3"])
def test_turn_based_views(task):
    """Only the agent to move needs an action (``infos[agent]["needs_action"]``, the one whose
    action_mask is not all zeros); the other may be left out, or given any valid action."""
    from pettingzoo.test import parallel_api_test

    env = envpool.make(task, env_type="pettingzoo")
    try:
        parallel_api_test(env, num_cycles=100)
        obs, infos = env.reset()
        movers = [a for a in env.agents if infos[a]["needs_action"]]
        assert len(movers) == 1 and obs[movers[0]]["action_mask"].any()
        other = next(a for a in env.agents if a != movers[0])
        assert not obs[other]["action_mask"].any()
        move = int(np.flatnonzero(obs[movers[0]]["action_mask"])[0])
        obs, rew, term, trunc, infos = env.step({movers[0]: move})  # the other agent left out
        assert infos[other]["needs_action"] and not infos[movers[0]]["needs_action"]
        assert obs[movers[0]]["observation"].sum() == 1  # its own piece, on its own plane
        with pytest.raises(ValueError, match="must act"):
            env.step({movers[0]: move})
    finally:
        env.close()
