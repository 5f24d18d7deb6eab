"""The pool's contract: full-batch and async stepping, determinism, autoreset, time limits,
buffer safety and the gymnasium VectorEnv interface."""

from __future__ import annotations

import collections

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envpool


def scripted_actions(env_ids: np.ndarray, steps: np.ndarray, n: int = 2) -> np.ndarray:
    """Actions that depend only on (env id, step), so any schedule gives the same trajectories."""
    return ((env_ids.astype(np.int64) * 7 + steps.astype(np.int64) * 13) // 3 % n).astype(np.int64)


def test_make_gives_a_gymnasium_vector_env():
    envs = envpool.make("CartPole-v1", num_envs=5, seed=0)
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.num_envs == 5
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.single_action_space == gymnasium.spaces.Discrete(2)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([2] * 5)
    assert envs.observation_space.shape == (5, 4)
    assert envs.single_observation_space.dtype == np.float32
    obs, info = envs.reset()
    assert obs.shape == (5, 4) and obs.dtype == np.float32
    assert envs.observation_space.contains(obs)
    # gymnasium's SyncVectorEnv over CartPole has no keys; a native pool names its rows besides.
    assert sorted(info) == ["elapsed_step", "env_id"] and info["env_id"].tolist() == [0, 1, 2, 3, 4]
    obs, rew, term, trunc, info = envs.step(envs.action_space.sample())
    assert rew.dtype == np.float64 and term.dtype == np.bool_ and trunc.dtype == np.bool_
    assert sorted(info) == ["elapsed_step", "env_id"]
    # The async loop's results name their envs and count their steps.
    obs, rew, term, trunc, info = step_with_ids(envs, envs.action_space.sample())
    np.testing.assert_array_equal(info["env_id"], np.arange(5))
    np.testing.assert_array_equal(info["elapsed_step"], np.full(5, 2))
    envs.close()
    assert envs.closed


def test_context_manager_closes():
    with envpool.make("CartPole-v1", num_envs=2) as envs:
        envs.reset()
    assert envs.closed
    with pytest.raises(RuntimeError, match="closed"):
        envs.step(np.zeros(2, dtype=np.int64))


def test_list_all_envs_and_version():
    ids = envpool.list_all_envs()
    for task in ["CartPole-v0", "CartPole-v1"]:
        assert task in ids
    assert isinstance(envpool.__version__, str)


def test_make_spec_starts_nothing_and_reports_config():
    spec = envpool.make_spec("CartPole-v1", sutton_barto_reward=True)
    assert spec.config == {"sutton_barto_reward": True, "max_episode_steps": 500}
    assert spec.max_episode_steps == 500
    assert spec.action_space == gymnasium.spaces.Discrete(2)


def test_make_gymnasium_alias():
    envs = envpool.make_gymnasium("CartPole-v1", num_envs=2)
    assert isinstance(envs, envpool.EnvPoolVectorEnv)
    envs.close()


def step_with_ids(envs, actions):
    """A full-batch step through the async API, whose info has env_id and elapsed_step."""
    envs.send(actions)
    return envs.recv()


def run_full_batch(num_envs, num_threads, seed, steps=300):
    envs = envpool.make("CartPole-v1", num_envs=num_envs, num_threads=num_threads, seed=seed)
    obs, info = envs.reset()
    traj = [np.concatenate([obs, np.zeros((num_envs, 3))], axis=1)]
    ids = np.arange(num_envs)
    elapsed, ended = np.zeros(num_envs, np.int64), np.zeros(num_envs, bool)
    for _ in range(steps):
        obs, rew, term, trunc, info = envs.step(scripted_actions(ids, elapsed))
        elapsed = np.where(ended, 0, elapsed + 1)  # the step after an episode end starts the next
        ended = term | trunc
        traj.append(np.concatenate([obs, rew[:, None], term[:, None], trunc[:, None]], axis=1))
    envs.close()
    return np.stack(traj)


@pytest.mark.parametrize("num_threads", [2, 3])
def test_same_seed_same_trajectories_whatever_the_threads(num_threads):
    np.testing.assert_array_equal(run_full_batch(16, 1, seed=3), run_full_batch(16, num_threads, seed=3))


def test_different_seeds_differ():
    assert not np.array_equal(run_full_batch(4, 1, seed=3, steps=5), run_full_batch(4, 1, seed=4, steps=5))


def per_env_trajectories_async(num_envs, batch_size, num_threads, seed, steps_per_env):
    """Drive an async pool until every env has taken `steps_per_env` steps; return each env's
    sequence of (obs, reward, terminated, truncated, elapsed_step)."""
    envs = envpool.make("CartPole-v1", num_envs=num_envs, batch_size=batch_size, num_threads=num_threads, seed=seed)
    envs.async_reset()
    traj = collections.defaultdict(list)
    done_envs = set()
    while len(done_envs) < num_envs:
        obs, rew, term, trunc, info = envs.recv()
        for row, env_id in enumerate(info["env_id"]):
            traj[int(env_id)].append(
                np.concatenate([obs[row], [rew[row], term[row], trunc[row], info["elapsed_step"][row]]])
            )
            if len(traj[int(env_id)]) > steps_per_env:
                done_envs.add(int(env_id))
        envs.send(scripted_actions(info["env_id"], info["elapsed_step"]), info["env_id"])
    envs.close()
    return {k: np.stack(v[: steps_per_env + 1]) for k, v in traj.items()}


def test_async_trajectories_match_full_batch():
    """Batch size and scheduling change which envs come back together, never what each env does."""
    full = per_env_trajectories_async(8, 8, 1, seed=11, steps_per_env=120)
    for batch_size, threads in [(3, 1), (3, 2), (5, 2), (1, 2)]:
        async_traj = per_env_trajectories_async(8, batch_size, threads, seed=11, steps_per_env=120)
        assert async_traj.keys() == full.keys()
        for env_id in full:
            np.testing.assert_array_equal(async_traj[env_id], full[env_id], err_msg=f"env {env_id}")


def test_async_loop_consistency_and_fairness():
    """10k send/recv steps with num_envs=8, batch_size=3: each env's elapsed_step advances by one
    per step of that env (or restarts at 0 after an episode end), and every env is served."""
    envs = envpool.make("CartPole-v1", num_envs=8, batch_size=3, num_threads=2, seed=0)
    envs.async_reset()
    last_elapsed = {}
    last_done = {}
    served = collections.Counter()
    total = 0
    while total < 10_000:
        obs, rew, term, trunc, info = envs.recv()
        assert obs.shape == (3, 4)
        ids = info["env_id"]
        assert len(set(ids.tolist())) == 3, "an env appeared twice in one batch"
        for row, env_id in enumerate(ids.tolist()):
            elapsed = int(info["elapsed_step"][row])
            if env_id in last_elapsed:
                expected = 0 if last_done[env_id] else last_elapsed[env_id] + 1
                assert elapsed == expected, (env_id, last_elapsed[env_id], elapsed)
            else:
                assert elapsed == 0
            last_elapsed[env_id] = elapsed
            last_done[env_id] = bool(term[row] or trunc[row])
            served[env_id] += 1
        total += 3
        envs.send(np.random.randint(0, 2, size=3), ids)
    envs.close()
    assert set(served) == set(range(8))
    # No starvation: with 8 envs and ~10k rows each env gets about 1/8 of them.
    assert min(served.values()) > 0.5 * total / 8, served


def test_next_step_autoreset():
    """After an episode ends, the env's next step ignores the action and returns the new
    episode's first observation with reward 0 and both flags False."""
    envs = envpool.make("CartPole-v1", num_envs=1, seed=0)
    envs.reset()
    ended = False
    for _ in range(500):
        obs, rew, term, trunc, info = envs.step(np.array([1]))  # always push right: falls fast
        if term[0]:
            ended = True
            break
    assert ended
    assert rew[0] == 1.0
    obs, rew, term, trunc, info = step_with_ids(envs, np.array([1]))
    assert rew[0] == 0.0 and not term[0] and not trunc[0]
    assert info["elapsed_step"][0] == 0
    assert np.all(np.abs(obs[0]) <= 0.05)  # CartPole's initial state distribution
    obs2, *_, info = step_with_ids(envs, np.array([1]))
    assert info["elapsed_step"][0] == 1
    envs.close()


@pytest.mark.parametrize("limit", [1, 7])
def test_max_episode_steps_truncates(limit):
    envs = envpool.make("CartPole-v1", num_envs=2, seed=0, max_episode_steps=limit)
    assert envs.max_episode_steps == limit
    envs.reset()
    for step in range(1, limit + 1):
        obs, rew, term, trunc, info = step_with_ids(envs, np.array([0, 1]))
        np.testing.assert_array_equal(info["elapsed_step"], [step, step])
        np.testing.assert_array_equal(trunc, [step == limit] * 2)
    obs, rew, term, trunc, info = step_with_ids(envs, np.array([0, 1]))  # autoreset step
    np.testing.assert_array_equal(info["elapsed_step"], [0, 0])
    envs.close()


def test_task_time_limits():
    for task, limit in [("CartPole-v0", 200), ("CartPole-v1", 500)]:
        envs = envpool.make(task, num_envs=1)
        assert envs.max_episode_steps == limit
        envs.close()


def test_returned_arrays_are_never_overwritten():
    envs = envpool.make("CartPole-v1", num_envs=4, seed=0)
    kept = [envs.reset()]
    snapshots = [(kept[0][0].copy(), {k: v.copy() for k, v in kept[0][1].items()})]
    for i in range(50):
        result = envs.step(np.array([i % 2] * 4))
        if i % 7 == 0:
            kept.append((result[0], result[4]))
            snapshots.append((result[0].copy(), {k: v.copy() for k, v in result[4].items()}))
    for (obs, info), (obs_copy, info_copy) in zip(kept, snapshots):
        np.testing.assert_array_equal(obs, obs_copy)
        for key in info_copy:
            np.testing.assert_array_equal(info[key], info_copy[key])
    # Views keep their base alive and unchanged too.
    obs, *_ = envs.step(np.zeros(4, dtype=np.int64))
    view, copy = obs[1:3], obs[1:3].copy()
    del obs
    for _ in range(10):
        envs.step(np.zeros(4, dtype=np.int64))
    np.testing.assert_array_equal(view, copy)
    envs.close()


def test_async_results_kept_across_recvs():
    envs = envpool.make("CartPole-v1", num_envs=6, batch_size=2, num_threads=2, seed=0)
    envs.async_reset()
    kept = []
    for _ in range(200):
        obs, rew, term, trunc, info = envs.recv()
        kept.append((obs, obs.copy(), info["env_id"], info["env_id"].copy()))
        envs.send(np.ones(2, dtype=np.int64), info["env_id"])
    for obs, obs_copy, ids, ids_copy in kept:
        np.testing.assert_array_equal(obs, obs_copy)
        np.testing.assert_array_equal(ids, ids_copy)
    envs.close()


def test_reset_seed_rules():
    envs = envpool.make("CartPole-v1", num_envs=3, seed=0)
    a, _ = envs.reset(seed=5)
    b, _ = envs.reset(seed=5)
    np.testing.assert_array_equal(a, b)
    c, _ = envs.reset(seed=[5, 6, 7])
    np.testing.assert_array_equal(a, c)  # int seed s means seeds s, s+1, s+2
    d, _ = envs.reset()  # None continues the streams: a new draw
    assert not np.array_equal(a, d)
    # make(seed=s) seeds env i with s + i as well
    e = envpool.make("CartPole-v1", num_envs=3, seed=5)
    f, _ = e.reset()
    np.testing.assert_array_equal(a, f)
    e.close()
    envs.close()


def test_get_and_set_state():
    envs = envpool.make("CartPole-v1", num_envs=2, seed=0)
    envs.reset()
    state = np.array([0.1, -0.2, 0.05, 0.3])
    envs.set_state(1, state)
    np.testing.assert_array_equal(envs.get_state(1), state)
    obs, *_ = envs.step(np.array([0, 0]))
    assert not np.array_equal(envs.get_state(1), state)
    with pytest.raises(ValueError, match="4 values"):
        envs.set_state(0, [1.0, 2.0])
    envs.close()


def test_gymnasium_make_vec_registration():
    envs = gymnasium.make_vec("envpool/CartPole-v1", num_envs=3, vectorization_mode="vector_entry_point")
    assert isinstance(envs.unwrapped, envpool.EnvPoolVectorEnv)
    assert envs.max_episode_steps == 500
    obs, info = envs.reset(seed=0)
    assert obs.shape == (3, 4)
    envs.close()
    envs = gymnasium.make_vec(
        "envpool/CartPole-v1", num_envs=2, vectorization_mode="vector_entry_point", sutton_barto_reward=True
    )
    assert envs.unwrapped.config["sutton_barto_reward"] is True
    envs.close()


def test_gymnasium_vector_wrappers():
    from gymnasium.wrappers import vector as vw

    envs = vw.RecordEpisodeStatistics(envpool.make("CartPole-v1", num_envs=4, seed=0))
    envs = vw.NormalizeObservation(envs)
    envs.reset(seed=0)
    episodes = 0
    for _ in range(300):
        obs, rew, term, trunc, info = envs.step(envs.action_space.sample())
        if "episode" in info:
            mask = info["_episode"]
            episodes += int(mask.sum())
            assert np.all(info["episode"]["r"][mask] >= 1)
    assert episodes > 0
    envs.close()


def test_many_pools_coexist():
    pools = [envpool.make("CartPole-v1", num_envs=4, num_threads=2, seed=i) for i in range(6)]
    for p in pools:
        p.reset()
    for _ in range(20):
        for p in pools:
            p.step(np.zeros(4, dtype=np.int64))
    for p in pools:
        p.close()
