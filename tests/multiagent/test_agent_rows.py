"""Multi-agent tasks as rows (one row per agent slot, the default front ends), on the test env
AgentCounter-v0 (cpp/testing/agent_counter.h), whose agents come and go on a fixed schedule:
with the defaults (3 agents, join_at=2, life=3) agent_0 and agent_1 are there from the reset,
agent_2 joins in step 2, and agent k leaves after life + k steps of its own. Also EnvRunner over
agent rows and the groups' views of a row batch. The PettingZoo views: test_pettingzoo_views.py;
PettingZoo envs in worker processes: test_make_python.py."""

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
