"""envpool.EnvRunner.sample: exact step and episode counts, chunks that continue across calls,
all autoreset modes, native and Python-env pools, full batch and async, each env's trajectory
equal to gymnasium's (tests/runner/oracle.py); seeded random actions, forced resets, the
runner's state and the docstring examples."""

from __future__ import annotations

import doctest
import importlib
import pickle

import numpy as np
import pytest

import envpool

from .oracle import SEED, check_against_reference, join_chunks, make_pool, policy, reference_episodes

POOLS = [
    ("native", 4, 4),
    ("native", 6, 2),
    ("python", 4, 4),
    ("python", 4, 2),
]


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("kind,num_envs,batch_size", POOLS)
def test_chunks_continue_the_uninterrupted_trajectory(kind, num_envs, batch_size, mode):
    """Exact step counts per call, chunks that continue across calls, and trajectories equal to
    gymnasium's, in every autoreset mode, full batch and async, native and Python envs."""
    with make_pool(kind, num_envs, batch_size, mode) as envs:
        runner = envpool.EnvRunner(envs, policy)
        episodes = []
        total = 0
        for n in (1, 7, 37, 100, 3, 250):
            got = runner.sample(num_timesteps=n)
            assert sum(len(e) for e in got) == n
            assert runner.get_metrics()["num_env_steps_sampled"] == n
            # each env's episodes in time order: finished before the ongoing chunk
            for env in {e.env_id for e in got}:
                mine = [e for e in got if e.env_id == env]
                assert all(e.is_done for e in mine[:-1])
            episodes += got
            total += n
        assert runner.get_state()["num_env_steps_sampled_lifetime"] == total
    joined = join_chunks(episodes)
    assert sum(done is not None and done[0] for eps in joined.values() for *_, done in eps) > 0
    assert sum(done is not None and done[1] for eps in joined.values() for *_, done in eps) > 0
    check_against_reference(kind, joined, num_envs)


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("kind,num_envs,batch_size", POOLS)
def test_num_episodes_returns_exactly_that_many_complete_episodes(kind, num_envs, batch_size, mode):
    with make_pool(kind, num_envs, batch_size, mode) as envs:
        runner = envpool.EnvRunner(envs, policy)
        first = runner.sample(num_episodes=5)
        assert len(first) == 5 and all(e.is_done and e.t_started == 0 for e in first)
        # Each env's episodes are the reference's first ones (the envs start fresh).
        by_env = {}
        for ep in first:
            by_env.setdefault(ep.env_id, []).append(ep)
        for env, eps in by_env.items():
            ref = reference_episodes(kind, env, len(eps))
            for ep, (r_obs, r_act, r_rew, r_term, r_trunc) in zip(eps, ref):
                np.testing.assert_array_equal(ep.observations, r_obs)
                np.testing.assert_array_equal(ep.actions, r_act)
                np.testing.assert_array_equal(ep.rewards, r_rew)
                assert (ep.terminated, ep.truncated) == (r_term, r_trunc)
        metrics = runner.get_metrics()
        assert metrics["num_episodes"] == 5
        # every step taken counts, the dropped episodes' too
        assert metrics["num_env_steps_sampled"] >= sum(len(e) for e in first)
        # Then sampling timesteps starts fresh episodes (the dropped ones are not continued).
        later = runner.sample(num_timesteps=50)
        assert sum(len(e) for e in later) == 50 and all(e.t_started == 0 for e in later)
        assert not {e.id for e in later} & {e.id for e in first}
        assert len(runner.sample(num_episodes=1)) == 1


def test_random_actions_are_seeded_and_force_reset_starts_new_episodes():
    def run(seed):
        with envpool.make("CartPole-v1", num_envs=3, seed=SEED) as envs:
            runner = envpool.EnvRunner(envs, seed=seed)
            return np.concatenate([e.actions for e in runner.sample(num_timesteps=90)])

    np.testing.assert_array_equal(run(1), run(1))
    assert not np.array_equal(run(1), run(2))
    with envpool.make("CartPole-v1", num_envs=3, batch_size=1, seed=SEED) as envs:
        runner = envpool.EnvRunner(envs, policy, seed=0)
        before = runner.sample(num_timesteps=10, random_actions=True)
        assert sum(len(e) for e in before) == 10
        after = runner.sample(num_timesteps=30, force_reset=True)
        assert sum(len(e) for e in after) == 30
        assert all(e.t_started == 0 for e in after) and not {e.id for e in after} & {e.id for e in before}
        # after the forced reset each env starts from its reset obs: continue the reference
        # stream (env i's second reset; its first episode was cut)
        for ep in after:
            np.testing.assert_array_equal(ep.actions, policy(ep.observations[:-1]))


def test_state_round_trip():
    with envpool.make("CartPole-v1", num_envs=2, seed=SEED) as envs:
        runner = envpool.EnvRunner(envs, policy)
        runner.sample(num_timesteps=500)
        state = runner.get_state()
        assert state["num_env_steps_sampled_lifetime"] == 500 and state["num_episodes_lifetime"] > 0
        other = envpool.EnvRunner(envs, policy)
        other.set_state(pickle.loads(pickle.dumps(state)))
        assert other.get_state() == state
        with pytest.raises(ValueError, match="unknown keys"):
            other.set_state({"bogus": 1})
        with pytest.raises(TypeError):
            other.set_state([1])


@pytest.mark.parametrize("module", ["", ".episodes", ".callbacks", ".env_runner", ".packed"])
def test_docstring_examples(module):
    result = doctest.testmod(
        importlib.import_module("envpool.runner" + module), optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 0 and result.failed == 0
