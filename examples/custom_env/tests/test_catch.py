"""mysim's Catch (mysim.Catch-v0) through envpool, against its pure-Python twin (mysim.twin.CatchTwin) run by
gymnasium's own SyncVectorEnv: full batch and async, every autoreset mode, rendering, bad input.

Run after `pip install --no-build-isolation .` (see ../README.md): `python -m pytest tests`.
"""

from __future__ import annotations

import collections
import os

import gymnasium
import mysim
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from mysim.twin import CatchTwin

import envpool

N = 6
SEED = 3
ROWS, COLS = 4, 5  # short episodes: many autoresets in a few steps
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


def actions_for(env_ids, counters):
    """Each env's k-th action depends only on (env id, k): any batching gives the same episodes."""
    return ((np.asarray(env_ids) * 7 + np.asarray(counters) * 5) % 3).astype(np.int64)


def ours(mode=AutoresetMode.NEXT_STEP, batch_size=None, num_threads=1, **kwargs):
    return envpool.make(
        "mysim.Catch-v0",
        num_envs=N,
        batch_size=batch_size,
        num_threads=num_threads,
        seed=SEED,
        autoreset_mode=mode,
        rows=ROWS,
        cols=COLS,
        **kwargs,
    )


def twin(mode=AutoresetMode.NEXT_STEP):
    return gymnasium.vector.SyncVectorEnv(
        [lambda: CatchTwin(ROWS, COLS, render_mode="rgb_array")] * N, autoreset_mode=mode
    )


def test_the_plugin_is_found_through_its_entry_point():
    assert {"mysim.Catch-v0", "mysim.CatchWide-v0"} <= set(envpool.list_all_envs())
    spec = envpool.make_spec("mysim.Catch-v0")
    assert spec.origin == f"plugin mysim ({os.path.realpath(mysim.PLUGIN_PATH)})"
    assert spec.observation_space == gymnasium.spaces.Box(0.0, 1.0, (10, 5), np.float32)
    assert spec.action_space == gymnasium.spaces.Discrete(3)
    assert spec.max_episode_steps == 200 and spec.render_shape == (160, 80, 3)
    # the task's kwargs and, as the reference EnvPool's config has it, its time limit
    assert envpool.make_spec("mysim.CatchWide-v0").config == {"rows": 10, "cols": 9, "max_episode_steps": 200}


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_full_batch_matches_the_twin(mode):
    envs, ref = ours(mode, render_mode="rgb_array"), twin(mode)
    try:
        obs, info = envs.reset()
        ref_obs, ref_info = ref.reset(seed=SEED)  # env i seeded with SEED + i, as envpool does
        np.testing.assert_array_equal(obs, ref_obs)
        np.testing.assert_array_equal(info["ball_col"], ref_info["ball_col"])
        ends = 0
        for t in range(40):
            actions = actions_for(np.arange(N), np.full(N, t))
            obs, rew, term, trunc, info = envs.step(actions)
            ref_obs, ref_rew, ref_term, ref_trunc, ref_info = ref.step(actions)
            np.testing.assert_array_equal(obs, ref_obs)
            np.testing.assert_array_equal(rew, ref_rew)
            np.testing.assert_array_equal(term, ref_term)
            np.testing.assert_array_equal(trunc, ref_trunc)
            np.testing.assert_array_equal(info["ball_col"], ref_info["ball_col"])
            if "final_obs" in ref_info:
                mask = ref_info["_final_obs"]
                np.testing.assert_array_equal(info["_final_obs"], mask)
                np.testing.assert_array_equal(np.stack(info["final_obs"][mask]), np.stack(ref_info["final_obs"][mask]))
            np.testing.assert_array_equal(np.stack(envs.render()), np.stack(ref.render()))
            done = term | trunc
            ends += int(done.sum())
            if mode == AutoresetMode.DISABLED and done.any():
                obs, _ = envs.reset(options={"reset_mask": done})
                ref_obs, _ = ref.reset(options={"reset_mask": done})
                np.testing.assert_array_equal(obs, ref_obs)
        assert ends >= N * 5  # episodes of 3 steps: the autoreset paths ran many times
    finally:
        envs.close()
        ref.close()


def twin_trajectories(mode, steps_per_env):
    """Per-env (obs, reward, terminated, truncated) sequences from SyncVectorEnv."""
    ref = twin(mode)
    obs, _ = ref.reset(seed=SEED)
    traj = collections.defaultdict(list)
    for i in range(N):
        traj[i].append((obs[i].tolist(), 0.0, False, False))
    for t in range(steps_per_env):
        obs, rew, term, trunc, _ = ref.step(actions_for(np.arange(N), np.full(N, t)))
        for i in range(N):
            traj[i].append((obs[i].tolist(), float(rew[i]), bool(term[i]), bool(trunc[i])))
        done = term | trunc
        if mode == AutoresetMode.DISABLED and done.any():
            obs, _ = ref.reset(options={"reset_mask": done})
            for i in np.flatnonzero(done):
                traj[i].append((obs[i].tolist(), 0.0, False, False))
    ref.close()
    return traj


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_async_matches_the_twin(mode):
    steps = 24
    expected = twin_trajectories(mode, steps)
    envs = ours(mode, batch_size=2, num_threads=2)
    got = collections.defaultdict(list)
    counters = collections.Counter()
    try:
        envs.async_reset()
        while min(counters[i] for i in range(N)) < steps:
            obs, rew, term, trunc, info = envs.recv(timeout=30)
            to_step, to_reset = [], []
            for row, env_id in enumerate(info["env_id"].tolist()):
                got[env_id].append((obs[row].tolist(), float(rew[row]), bool(term[row]), bool(trunc[row])))
                if mode == AutoresetMode.DISABLED and (term[row] or trunc[row]):
                    to_reset.append(env_id)
                else:
                    to_step.append(env_id)
            if to_step:
                envs.send(actions_for(to_step, [counters[i] for i in to_step]), np.array(to_step))
                counters.update(to_step)
            if to_reset:
                envs.async_reset(np.array(to_reset))
    finally:
        envs.close()
    for i in range(N):
        n = min(len(got[i]), len(expected[i]))
        assert n >= steps
        assert got[i][:n] == expected[i][:n], f"env {i}"


def test_state_round_trip_and_time_limit():
    envs = envpool.make("mysim.Catch-v0", num_envs=2, max_episode_steps=2)
    try:
        envs.reset()
        envs.set_state(1, [3, 4, 0])  # ball in row 3 of 10, column 4; paddle at 0
        assert envs.get_state(1).tolist() == [3.0, 4.0, 0.0]
        _, _, term, trunc, _ = envs.step(np.array([1, 2]))
        _, _, term, trunc, _ = envs.step(np.array([1, 2]))
        assert not term.any() and trunc.all()  # the pool's time limit applies to plugin tasks
    finally:
        envs.close()


def test_bad_input_is_refused_and_the_pool_stays_usable():
    with pytest.raises(ValueError, match="rows must be in"):
        envpool.make("mysim.Catch-v0", rows=1)
    with pytest.raises(ValueError, match="unexpected keyword argument 'colls'.*cols"):
        envpool.make("mysim.Catch-v0", colls=3)
    with pytest.raises(ValueError, match="'rows' must be int, got str"):
        envpool.make("mysim.Catch-v0", rows="ten")
    envs = envpool.make("mysim.Catch-v0", num_envs=2)
    try:
        envs.reset()
        with pytest.raises(ValueError):
            envs.step(np.array([0, 3]))  # Discrete(3)
        with pytest.raises(ValueError):
            envs.step(np.array([0, 1, 2]))  # one action too many
        with pytest.raises(ValueError, match="out of the grid"):
            envs.set_state(0, [0, 7, 0])
        obs, *_ = envs.step(np.array([0, 2]))
        assert obs.shape == (2, 10, 5)
    finally:
        envs.close()


def test_gymnasium_id():
    envs = gymnasium.make_vec("envpool/mysim.Catch-v0", num_envs=3, vectorization_mode="vector_entry_point", rows=3)
    try:
        obs, _ = envs.reset(seed=0)
        assert obs.shape == (3, 3, 5)
        _, _, term, _, _ = envs.step(np.ones(3, np.int64))
        _, _, term, _, _ = envs.step(np.ones(3, np.int64))
        assert term.all()
    finally:
        envs.close()


@pytest.mark.parametrize("module", ["mysim", "mysim.twin"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
