"""Autoreset modes compared exactly with gymnasium's SyncVectorEnv running a Python twin of
the C++ StepCounter-v0 test env: same obs, rewards, flags, final_obs and final_info, in
full-batch and async use, with envs ending on the same step and truncation at the limit."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from support.twin_envs import twin_vector_env

import envpool

# Per-env episode scripts: several envs end on the same steps; env 3 is truncated by the
# time limit (4), env 5 terminates and is truncated on the same step, env 6 truncates itself.
TERMINATE_AT = [2, 3, 3, 5, 1, 4, 0, 2]
TRUNCATE_AT = [0, 0, 0, 0, 0, 0, 3, 0]
LIMIT = 4
N = len(TERMINATE_AT)
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


def actions_for(env_ids, counters):
    """Each env's k-th action depends only on (env id, k): any batching gives the same episodes."""
    return ((np.asarray(env_ids) * 5 + np.asarray(counters) * 3) % 4).astype(np.int64)


def ours(mode, batch_size=None, num_threads=1):
    return envpool.make(
        "StepCounter-v0",
        num_envs=N,
        batch_size=batch_size,
        num_threads=num_threads,
        max_episode_steps=LIMIT,
        autoreset_mode=mode,
        terminate_at=TERMINATE_AT,
        truncate_at=TRUNCATE_AT,
    )


def assert_final_equal(ours_info, twin_info):
    assert ("final_obs" in ours_info) == ("final_obs" in twin_info)
    if "final_obs" not in twin_info:
        return
    mask = twin_info["_final_obs"]
    np.testing.assert_array_equal(ours_info["_final_obs"], mask)
    np.testing.assert_array_equal(ours_info["_final_info"], twin_info["_final_info"])
    # gymnasium's form: an object array of the finished envs' last observations, None elsewhere.
    assert data_equivalence(ours_info["final_obs"], twin_info["final_obs"], exact=True)
    twin_final = twin_info["final_info"]
    np.testing.assert_array_equal(ours_info["final_info"]["_total_steps"], twin_final["_total_steps"])
    np.testing.assert_array_equal(ours_info["final_info"]["total_steps"][mask], twin_final["total_steps"][mask])


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_full_batch_matches_sync_vector_env(mode):
    envs = ours(mode)
    twin = twin_vector_env(TERMINATE_AT, TRUNCATE_AT, LIMIT, mode)
    assert envs.metadata["autoreset_mode"] == mode
    obs, info = envs.reset()
    t_obs, t_info = twin.reset()
    np.testing.assert_array_equal(obs, t_obs)
    counters = np.zeros(N, dtype=np.int64)
    saw_same_step_ends = saw_truncation = False
    for _ in range(40):
        actions = actions_for(np.arange(N), counters)
        counters += 1
        obs, rew, term, trunc, info = envs.step(actions)
        t_obs, t_rew, t_term, t_trunc, t_info = twin.step(actions)
        np.testing.assert_array_equal(obs, t_obs)
        np.testing.assert_array_equal(rew, t_rew)
        np.testing.assert_array_equal(term, t_term)
        np.testing.assert_array_equal(trunc, t_trunc)
        np.testing.assert_array_equal(
            info["total_steps"][t_info["_total_steps"]], t_info["total_steps"][t_info["_total_steps"]]
        )
        if mode == AutoresetMode.SAME_STEP:
            assert_final_equal(info, t_info)
        else:
            assert "final_obs" not in info
        done = term | trunc
        saw_same_step_ends |= done.sum() >= 2
        saw_truncation |= bool(trunc.any())
        if mode == AutoresetMode.DISABLED and done.any():
            # Stepping a finished env is refused until it is reset.
            with pytest.raises(RuntimeError, match="episode is over and autoreset is disabled"):
                envs.step(actions_for(np.arange(N), counters))
            obs, info = envs.reset(options={"reset_mask": done})
            t_obs, t_info = twin.reset(options={"reset_mask": done})
            np.testing.assert_array_equal(obs, t_obs)
            np.testing.assert_array_equal(info["total_steps"][done], t_info["total_steps"][done])
    assert saw_same_step_ends and saw_truncation
    envs.close()
    twin.close()


def twin_trajectories(mode, steps_per_env):
    """Per-env (obs, reward, terminated, truncated, final_obs) sequences from SyncVectorEnv."""
    twin = twin_vector_env(TERMINATE_AT, TRUNCATE_AT, LIMIT, mode)
    obs, _ = twin.reset()
    traj = collections.defaultdict(list)
    for i in range(N):
        traj[i].append((obs[i].tolist(), 0.0, False, False, None))
    counters = np.zeros(N, dtype=np.int64)
    for _ in range(steps_per_env):
        actions = actions_for(np.arange(N), counters)
        counters += 1
        obs, rew, term, trunc, info = twin.step(actions)
        for i in range(N):
            final = info["final_obs"][i].tolist() if "final_obs" in info and info["_final_obs"][i] else None
            traj[i].append((obs[i].tolist(), float(rew[i]), bool(term[i]), bool(trunc[i]), final))
        done = term | trunc
        if mode == AutoresetMode.DISABLED and done.any():
            obs, _ = twin.reset(options={"reset_mask": done})
            for i in np.flatnonzero(done):
                traj[i].append((obs[i].tolist(), 0.0, False, False, None))
    twin.close()
    return traj


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("batch_size, threads", [(3, 1), (3, 2), (5, 2)])
def test_async_matches_sync_vector_env(mode, batch_size, threads):
    steps = 30
    expected = twin_trajectories(mode, steps)
    envs = ours(mode, batch_size=batch_size, num_threads=threads)
    envs.async_reset()
    got = collections.defaultdict(list)
    counters = collections.Counter()
    while min(len(got[i]) for i in range(N)) < len(expected[0]) or len(got) < N:
        obs, rew, term, trunc, info = envs.recv()
        ids = info["env_id"]
        to_step, to_reset = [], []
        for row, env_id in enumerate(ids.tolist()):
            final = None
            if "final_obs" in info and info["_final_obs"][row]:
                final = info["final_obs"][row].tolist()
            got[env_id].append((obs[row].tolist(), float(rew[row]), bool(term[row]), bool(trunc[row]), final))
            if mode == AutoresetMode.DISABLED and (term[row] or trunc[row]):
                to_reset.append(env_id)
            else:
                to_step.append(env_id)
        if to_step:
            envs.send(actions_for(to_step, [counters[i] for i in to_step]), np.array(to_step))
            counters.update(to_step)
        if to_reset:
            envs.async_reset(np.array(to_reset))
        if min(counters[i] for i in range(N)) > steps + 5:
            break
    envs.close()
    for i in range(N):
        n = min(len(got[i]), len(expected[i]))
        assert n >= steps // 2
        assert got[i][:n] == expected[i][:n], f"env {i}"


def test_reset_mask_needs_disabled_mode_in_full_batch():
    envs = ours(AutoresetMode.NEXT_STEP)
    envs.reset()
    with pytest.raises(ValueError, match="needs autoreset_mode DISABLED"):
        envs.reset(options={"reset_mask": np.ones(N, dtype=bool)})
    envs.step(np.zeros(N, dtype=np.int64))  # still usable
    envs.close()


@pytest.mark.parametrize(
    "mask, error, match",
    [
        (np.ones(N - 1, dtype=bool), ValueError, "shape"),
        (np.ones(N, dtype=np.int64), TypeError, "must have `dtype=np.bool_`"),
        (np.zeros(N, dtype=bool), ValueError, "at least one"),
    ],
)
def test_bad_reset_masks(mask, error, match):
    envs = ours(AutoresetMode.DISABLED)
    envs.reset()
    with pytest.raises(error, match=match):
        envs.reset(options={"reset_mask": mask})
    envs.close()


@pytest.mark.parametrize("name", ["same_step", "SameStep", AutoresetMode.SAME_STEP])
def test_autoreset_mode_spellings(name):
    envs = envpool.make("CartPole-v1", num_envs=2, autoreset_mode=name)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    envs.close()


def test_bad_autoreset_mode():
    with pytest.raises(ValueError, match="autoreset_mode must be"):
        envpool.make("CartPole-v1", autoreset_mode="sometimes")


def test_make_vec_passes_kwargs_and_autoreset_mode_through():
    import gymnasium

    envs = gymnasium.make_vec(
        "envpool/StepCounter-v0",
        num_envs=3,
        vectorization_mode="vector_entry_point",
        autoreset_mode=AutoresetMode.SAME_STEP,
        terminate_at=[1, 2, 3],
    )
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.unwrapped.config["terminate_at"] == [1, 2, 3]
    envs.reset()
    obs, rew, term, trunc, info = envs.step(np.zeros(3, dtype=np.int64))
    assert term.tolist() == [True, False, False]
    assert info["_final_obs"].tolist() == [True, False, False]
    envs.close()
