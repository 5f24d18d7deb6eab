"""envpool.Episode: policy extras, episodes_to_batch's time-major batch and its next observations,
pickling, and kept infos."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import envpool

from .oracle import LIMIT, SEED, policy, policy_with_extras


def test_extras_and_time_major_batch():
    num_envs, T = 4, 60
    with envpool.make("CartPole-v1", num_envs=num_envs, seed=SEED, max_episode_steps=LIMIT) as envs:
        runner = envpool.EnvRunner(envs, policy_with_extras)
        runner.sample(num_timesteps=13)  # so that this call starts with continuation chunks
        episodes = runner.sample(num_timesteps=num_envs * T)
    for ep in episodes:
        np.testing.assert_array_equal(ep.extras["pole"], ep.observations[:-1, 2].astype(np.float64) * 2.0)
        np.testing.assert_array_equal(ep.actions, policy(ep.observations[:-1]))
    batch = envpool.episodes_to_batch(episodes)
    assert batch.observations.shape == (T, num_envs, 4) and batch.mask.all()
    assert batch.actions.shape == batch.rewards.shape == batch.dones.shape == (T, num_envs)
    np.testing.assert_array_equal(batch.env_ids, np.arange(num_envs))
    assert batch.rewards.sum() == sum(e.get_return() for e in episodes)
    assert batch.terminated.sum() == sum(e.terminated for e in episodes)
    assert batch.truncated.sum() == sum(e.truncated for e in episodes)
    assert batch.dones.sum() == len(episodes)
    assert batch.dones[-1].all()  # every column ends with a cut chunk or an episode end
    np.testing.assert_array_equal(batch.extras["pole"], batch.observations[..., 2].astype(np.float64) * 2.0)
    # The next observation of (t, b): observations[t + 1, b], or the bootstrap one at a cut.
    boot = {(int(t), int(b)): i for i, (t, b) in enumerate(zip(batch.bootstrap_t, batch.bootstrap_b))}
    assert len(boot) == sum(not e.terminated for e in episodes)
    for ep in episodes:
        b = int(np.flatnonzero(batch.env_ids == ep.env_id)[0])
        rows = [t for t in range(T) if batch.dones[t, b]]
        # this episode's last step is one of its column's done rows; find it by its obs
        for t in rows:
            if (t, b) in boot and np.array_equal(batch.bootstrap_observations[boot[(t, b)]], ep.observations[-1]):
                break
        else:
            assert ep.terminated
    # Columns of unequal length are padded at the end, and the mask says where.
    subset = episodes[:1] + [e for e in episodes if e.env_id != episodes[0].env_id]
    short = envpool.episodes_to_batch(subset)
    b0 = int(np.flatnonzero(short.env_ids == episodes[0].env_id)[0])
    assert short.mask[:, b0].sum() == len(episodes[0]) < T
    assert not short.mask[len(episodes[0]) :, b0].any() and short.rewards[~short.mask].sum() == 0
    assert short.mask.sum() == sum(len(e) for e in subset)


def test_next_observation_in_batch_is_the_episode_next_observation():
    with envpool.make("CartPole-v1", num_envs=3, seed=SEED, max_episode_steps=LIMIT) as envs:
        episodes = envpool.EnvRunner(envs, policy).sample(num_timesteps=3 * 50)
    batch = envpool.episodes_to_batch(episodes)
    # Rebuild each column's next-observation sequence and compare with the episodes' own.
    for b, env in enumerate(batch.env_ids):
        nxt = []
        boot = {int(t): i for i, (t, bb) in enumerate(zip(batch.bootstrap_t, batch.bootstrap_b)) if bb == b}
        for t in range(batch.mask[:, b].sum()):
            if not batch.dones[t, b]:
                nxt.append(batch.observations[t + 1, b])
            elif batch.terminated[t, b]:
                nxt.append(None)
            else:
                nxt.append(batch.bootstrap_observations[boot[t]])
        expected = []
        for ep in (e for e in episodes if e.env_id == env):
            expected += list(ep.observations[1:-1]) + [None if ep.terminated else ep.observations[-1]]
        assert len(nxt) == len(expected)
        for got, want in zip(nxt, expected):
            assert (got is None) == (want is None)
            if got is not None:
                np.testing.assert_array_equal(got, want)


def test_episodes_pickle():
    with envpool.make("CartPole-v1", num_envs=2, seed=SEED) as envs:
        episodes = envpool.EnvRunner(envs, policy_with_extras).sample(num_timesteps=30)
    for ep in episodes:
        back = pickle.loads(pickle.dumps(ep))
        assert (back.id, back.env_id, back.t_started, back.terminated, back.truncated) == (
            ep.id,
            ep.env_id,
            ep.t_started,
            ep.terminated,
            ep.truncated,
        )
        np.testing.assert_array_equal(back.observations, ep.observations)
        np.testing.assert_array_equal(back.extras["pole"], ep.extras["pole"])
        assert len(back) == len(ep) and back.get_return() == ep.get_return()


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("batch_size", [2, 1])
def test_keep_infos_gives_each_observation_its_info(mode, batch_size):
    """StepCounter's info["total_steps"] counts the env's steps over all episodes and its
    observation[0] the episode's: each kept info must belong to its observation."""
    with envpool.make(
        "StepCounter-v0", num_envs=2, batch_size=batch_size, seed=0, autoreset_mode=mode, terminate_at=[3, 4]
    ) as envs:
        runner = envpool.EnvRunner(envs, lambda obs: np.ones(len(obs), np.int64), keep_infos=True)
        episodes = runner.sample(num_timesteps=7) + runner.sample(num_timesteps=20)
    assert sum(len(e) for e in episodes) == 27
    for ep in episodes:
        assert len(ep.infos) == len(ep) + 1
        steps = [info["total_steps"] for info in ep.infos]
        assert steps == list(range(steps[0], steps[0] + len(ep) + 1))  # one per step, in order
        np.testing.assert_array_equal(ep.observations[:, 0], np.arange(ep.t_started, ep.t_started + len(ep) + 1))
        assert all(info["env_id"] == ep.env_id for info in ep.infos)  # native pools' infos name each row's env
    finished = [e for e in episodes if e.is_done]
    assert finished
    if batch_size < 2:
        assert all(e.infos[-1]["elapsed_step"] == e.t_started + len(e) for e in finished)
