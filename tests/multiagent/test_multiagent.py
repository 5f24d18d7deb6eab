"""Multi-agent tasks through both front ends (agents as rows, PettingZoo views), on the test env
AgentCounter-v0 (cpp/testing/agent_counter.h), whose agents come and go on a fixed schedule:
with the defaults (3 agents, join_at=2, life=3) agent_0 and agent_1 are there from the reset,
agent_2 joins in step 2, and agent k leaves after life + k steps of its own."""

from __future__ import annotations

import numpy as np
import pytest

import envpool
from envpool.errors import EnvError

TASK = "AgentCounter-v0"
M = 3  # agents per env with the defaults


def _ones(rows):
    return np.ones(rows, dtype=np.int64)


def _schedule(steps: int):
    """(active, terminated, reward with action 1) of each agent at each step, from the env's rules."""
    out = []
    live = [True, True, False]
    born = [0, 0, 0]
    for t in range(1, steps + 1):
        active = list(live)
        term = [False] * M
        reward = [0.0] * M
        for k in range(M):
            if not live[k]:
                continue
            reward[k] = k + 1.0
            if t - born[k] >= 3 + k:
                term[k] = True
                live[k] = False
        if t == 2:
            live[2] = True
            born[2] = t
            active[2] = True
        out.append((active, term, reward))
    return out


# -- agents as rows -----------------------------------------------------------------------------


def test_rows_follow_the_agents_schedule_and_autoreset():
    envs = envpool.make(TASK, num_envs=2, num_threads=2)
    try:
        assert envs.num_envs == 2 and envs.agents_per_env == M and envs.num_agents == 6
        assert envs.observation_space.shape == (6, 4) and envs.single_action_space.n == 3
        obs, info = envs.reset(seed=0)
        assert info["env_id"].tolist() == [0, 0, 0, 1, 1, 1] and info["agent_id"].tolist() == [0, 1, 2] * 2
        assert info["active"].tolist() == [True, True, False] * 2
        assert obs[2].tolist() == [0, 0, 0, 0]  # an absent agent's row is zeros
        for t, (active, term, reward) in enumerate(_schedule(7), start=1):
            obs, rew, terminated, truncated, info = envs.step(_ones(6))
            assert info["active"].tolist() == active * 2, t
            assert terminated.tolist() == term * 2, t
            assert rew.tolist() == reward * 2, t
            assert not truncated.any()
            assert info["all_done"].tolist() == [t == 7] * 6
            assert info["needs_action"].tolist() == [a and not d for a, d in zip(active, term)] * 2
            # Observations: [steps, slot, last action, 1], the scout (slot 0) sees 2 values.
            for k in range(M):
                if active[k]:
                    assert obs[k][:2].tolist() == [t, k]
            assert obs[0][2:].tolist() == [0, 0]
        # Next-step autoreset: the step after the episode's end starts the next one.
        obs, rew, terminated, truncated, info = envs.step(_ones(6))
        assert info["active"].tolist() == [True, True, False] * 2 and not rew.any()
        assert info["elapsed_step"].tolist() == [0] * 6
    finally:
        envs.close()


def test_time_limit_truncates_every_active_agent_not_terminated():
    envs = envpool.make(TASK, num_envs=1, max_episode_steps=3)
    try:
        envs.reset()
        for _ in range(2):
            envs.step(_ones(3))
        _, _, terminated, truncated, info = envs.step(_ones(3))
        # Step 3: agent_0 terminates (its own end), agent_1 and agent_2 are cut by the limit.
        assert terminated.tolist() == [True, False, False]
        assert truncated.tolist() == [False, True, True]
        assert info["all_done"].all()
    finally:
        envs.close()


def test_same_step_autoreset_gives_each_agent_its_final_observation():
    envs = envpool.make(TASK, num_envs=2, autoreset_mode="same_step", life=1, join_at=0)
    try:
        envs.reset()
        # life=1: agent k leaves after 1 + k steps; all are gone after step 3.
        envs.step(_ones(6))
        envs.step(_ones(6))
        obs, _, terminated, _, info = envs.step(_ones(6))
        assert terminated.tolist() == [False, False, True] * 2
        assert info["_final_obs"].tolist() == [True] * 6
        assert info["final_obs"][2].tolist() == [3, 2, 1, 1]  # agent_2's last observation
        assert info["final_obs"][0].tolist() == [0, 0, 0, 0]  # agent_0 had left: zeros
        assert obs[0].tolist() == [0, 0, 0, 0] and obs[1].tolist() == [0, 1, 0, 1]  # the new episode
    finally:
        envs.close()


def test_async_batches_count_envs_and_match_the_full_batch_run():
    """batch_size=2 of 4 envs with uneven step times: every batch holds 2 envs' agents (6 rows),
    and each env's trajectory equals the full-batch run's."""
    sleeps = [0, 3000, 0, 1500]
    full = envpool.make(TASK, num_envs=4)
    envs = envpool.make(TASK, num_envs=4, batch_size=2, num_threads=2, step_sleep_us=sleeps)
    try:
        expected = {i: [] for i in range(4)}
        full.reset()
        rng = np.random.default_rng(0)
        actions = [rng.integers(0, 3, size=(4, M)) for _ in range(12)]
        for a in actions:
            obs, rew, _, _, _ = full.step(a.reshape(-1))
            for i in range(4):
                expected[i].append((obs[i * M : (i + 1) * M].tolist(), rew[i * M : (i + 1) * M].tolist()))
        got = {i: [] for i in range(4)}
        step_of = dict.fromkeys(range(4), 0)
        envs.async_reset()
        while min(step_of.values()) < len(actions):
            obs, rew, _, _, info = envs.recv()
            assert obs.shape == (2 * M, 4)
            ids = info["env_id"].reshape(2, M)
            assert (ids == ids[:, :1]).all()
            ids = ids[:, 0]
            if info["elapsed_step"][0] > 0 or any(step_of[i] for i in ids):
                for k, i in enumerate(ids):
                    got[i].append((obs[k * M : (k + 1) * M].tolist(), rew[k * M : (k + 1) * M].tolist()))
            batch = np.stack([actions[min(step_of[i], len(actions) - 1)][i] for i in ids])
            for i in ids:
                step_of[i] += 1
            envs.send(batch.reshape(-1), info["env_id"])  # the per-row ids, as recv gave them
        for i in range(4):
            assert got[i][: len(actions)] == expected[i][: len(got[i])][: len(actions)]
            assert len(got[i]) >= len(actions) - 1
    finally:
        envs.close()
        full.close()


def test_bad_actions_are_refused_naming_the_env_and_the_pool_goes_on():
    envs = envpool.make(TASK, num_envs=2)
    try:
        envs.reset()
        with pytest.raises(ValueError, match="one row per agent row"):
            envs.step(_ones(4))
        bad = _ones(6)
        bad[4] = 7
        with pytest.raises(ValueError, match="env 1"):
            envs.step(bad)
        _, rew, _, _, _ = envs.step(_ones(6))
        assert rew.tolist() == [1.0, 2.0, 0.0] * 2
        # (envs, agents) shaped actions are taken as they are.
        _, rew, _, _, _ = envs.step(np.zeros((2, M), dtype=np.int64))
        assert rew.tolist() == [0.0, 1.0, 0.0] * 2
    finally:
        envs.close()


def test_an_env_error_names_the_env_and_keeps_the_others_rows():
    envs = envpool.make(TASK, num_envs=3, fail_at=[0, 2, 0])
    try:
        envs.reset()
        envs.step(_ones(9))
        with pytest.raises(EnvError) as caught:
            envs.step(_ones(9))
        assert caught.value.env_ids == [1]
        obs, rew, term, trunc, info = caught.value.result
        assert obs.shape == (9, 4) and info["agent_id"].tolist() == [0, 1, 2] * 3
        assert rew[:3].tolist() == [1.0, 2.0, 0.0] and rew[6:].tolist() == [1.0, 2.0, 0.0]
        assert trunc[3:6].tolist() == [True, True, True]  # agents of the failed env: cut short
        _, rew, _, _, info = envs.step(_ones(9))  # env 1 restarts (next-step autoreset)
        assert info["elapsed_step"].tolist() == [3, 3, 3, 0, 0, 0, 3, 3, 3]
    finally:
        envs.close()


def test_front_end_choice():
    with pytest.raises(ValueError, match="multi-agent task"):
        envpool.make(TASK, env_type="gym")
    with pytest.raises(ValueError, match="single-agent task"):
        envpool.make("CartPole-v1", env_type="pettingzoo")
    spec = envpool.make_spec(TASK)
    assert spec.agents.names == ("agent_0", "agent_1", "agent_2")
    assert [(g.name, list(g.slots), g.obs_size) for g in spec.agents.groups] == [
        ("scout", [0], (2,)),
        ("worker", [1, 2], (4,)),
    ]
    assert spec.observation_space.shape == (3, 4)


# -- PettingZoo views ---------------------------------------------------------------------------

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


# -- PettingZoo envs in worker processes (make_python) -------------------------------------------


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


# -- EnvRunner over agent rows ----------------------------------------------------------------------


@pytest.mark.parametrize("batch_size, mode", [(None, "next_step"), (2, "next_step"), (None, "same_step")])
def test_env_runner_cuts_agent_rows_into_agent_episodes(batch_size, mode):
    """Each agent of each env is a stream: AgentCounter's agents live 3, 4 and 5 steps (agent_2
    from its joining), with rewards slot + action; the env episode (7 steps) sums them all."""
    envs = envpool.make(TASK, num_envs=4, batch_size=batch_size, num_threads=2, autoreset_mode=mode)
    try:
        runner = envpool.EnvRunner(envs, policy=lambda obs: np.ones(len(obs), np.int64))
        episodes = runner.sample(num_timesteps=300)
        assert sum(len(e) for e in episodes) == 300
        done = [e for e in episodes if e.is_done]
        assert done and all(e.terminated for e in done)
        for e in done:
            slot = e.env_id % M
            assert (len(e), e.get_return()) == ((3, 3.0), (4, 8.0), (5, 15.0))[slot]
            assert e.observations[0][1] == slot  # each agent's own first observation
        if mode == "same_step":
            assert all(e.observations[-1][0] == e.observations[-2][0] + 1 for e in done)  # final_obs
        m = runner.get_metrics()
        assert m["episode_return_mean"] == 26.0 and m["episode_len_mean"] == 7.0
        assert m["num_episodes_lifetime"] == m["num_episodes"]  # env episodes, as RLlib counts them
        assert m["agent_episode_returns_mean"] == {"agent_0": 3.0, "agent_1": 8.0, "agent_2": 15.0}
        assert m["agent_episode_len_mean"] == {"agent_0": 3.0, "agent_1": 4.0, "agent_2": 5.0}
        assert m["num_agent_steps_sampled"] == 300 and 0 < m["num_env_steps_sampled"] < 300
        batch = envpool.episodes_to_batch(episodes)  # time-major over the agent streams
        assert batch.mask.sum() == 300
    finally:
        envs.close()


def test_env_runner_refuses_disabled_autoreset_for_agent_rows():
    envs = envpool.make(TASK, num_envs=2, autoreset_mode="disabled")
    try:
        with pytest.raises(ValueError, match="multi-agent pool needs autoreset_mode"):
            envpool.EnvRunner(envs)
    finally:
        envs.close()


def test_group_views_are_each_groups_own_arrays():
    """simple_tag: adversaries see 16 values, the good agent 14 (zero-padded to 16 in its row);
    each group's view is (envs, its agents, its width), without a copy."""
    envs = envpool.make("SimpleTag-v3", num_envs=2, seed=0)
    try:
        obs, info = envs.reset()
        assert obs.shape == (8, 16)
        adversaries = envs.agents.group_view(obs, "adversary")
        good = envs.agents.group_view(obs, "agent")
        assert adversaries.shape == (2, 3, 16) and good.shape == (2, 1, 14)
        assert np.shares_memory(good, obs) and np.array_equal(good[1, 0], obs[7, :14])
        assert not obs[[3, 7], 14:].any()  # the padding
        assert envs.agents.group_view(info["agent_id"], "agent").tolist() == [[3], [3]]
        with pytest.raises(KeyError, match="no agent group 'bob'"):
            envs.agents.group_view(obs, "bob")
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
