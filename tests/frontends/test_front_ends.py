"""The gym-style and dm_env front ends."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

dm_env = pytest.importorskip("dm_env", reason="the dm_env front end needs dm-env (pip install 'envpool-ng[dm]')")
from dm_env import specs  # noqa: E402

import envpool  # noqa: E402


def test_cleanrl_style_script_runs_unchanged(without_the_gym_package):
    """The shape of CleanRL's EnvPool scripts: single-env spaces on the env object."""
    envs = envpool.make("CartPole-v1", env_type="gym", num_envs=8, seed=1)
    envs.num_envs = 8
    envs.single_action_space = envs.action_space
    envs.single_observation_space = envs.observation_space
    assert isinstance(envs.action_space, gymnasium.spaces.Discrete), "only discrete action space is supported"
    obs, info = envs.reset()
    assert obs.shape == (8,) + envs.single_observation_space.shape
    episodic_return = np.zeros(8)
    finished = []
    for _ in range(200):
        action = np.random.randint(0, envs.action_space.n, size=envs.num_envs)
        obs, reward, terminated, truncated, info = envs.step(action)
        episodic_return += reward
        done = terminated | truncated
        finished.extend(episodic_return[done].tolist())
        episodic_return[done] = 0
        assert set(info) >= {"env_id", "elapsed_step"}
    assert finished and min(finished) >= 1
    envs.close()


def test_gym_front_end_async_loop(without_the_gym_package):
    envs = envpool.make_gym("Acrobot-v1", num_envs=4, batch_size=2, num_threads=2)
    assert envs.action_space == gymnasium.spaces.Discrete(3)
    envs.async_reset()
    for _ in range(20):
        obs, rew, term, trunc, info = envs.recv()
        assert obs.shape == (2, 6)
        envs.send(np.zeros(2, dtype=np.int64), info["env_id"])
    envs.close()


def test_dm_env_time_steps_and_specs():
    env = envpool.make("CartPole-v1", env_type="dm", num_envs=3, seed=0, max_episode_steps=2)
    assert isinstance(env, dm_env.Environment)
    assert env.action_spec() == specs.DiscreteArray(num_values=2, dtype=np.int64, name="action")
    obs_spec = env.observation_spec()
    assert isinstance(obs_spec, specs.BoundedArray) and obs_spec.shape == (4,) and obs_spec.dtype == np.float32
    ts = env.reset()
    assert isinstance(ts, dm_env.TimeStep)
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.FIRST] * 3)
    obs_spec.validate(ts.observation.obs[0])
    np.testing.assert_array_equal(ts.observation.env_id, [0, 1, 2])
    assert ts.observation[0] is ts.observation.obs and ts.observation[1:2] == (ts.observation.env_id,)
    with pytest.raises(TypeError, match=r"State\['obs'\]: this task's observation is not a dict"):
        ts.observation["obs"]  # by key: only the entries of a dict observation (dm_control's tasks)
    ts = env.step(np.array([0, 1, 0]))
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.MID] * 3)
    np.testing.assert_array_equal(ts.discount, [1.0] * 3)
    ts = env.step(np.array([0, 1, 0]))  # the time limit: LAST, discount 1 (truncation)
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.LAST] * 3)
    np.testing.assert_array_equal(ts.discount, [1.0] * 3)
    ts = env.step(np.array([0, 1, 0]))  # next-step autoreset: FIRST
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.FIRST] * 3)
    np.testing.assert_array_equal(ts.reward, [0.0] * 3)
    env.close()


def test_dm_env_termination_has_zero_discount():
    env = envpool.make("StepCounter-v0", env_type="dm", num_envs=2, terminate_at=[1, 3])
    env.reset()
    ts = env.step(np.array([0, 0]))
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.LAST, dm_env.StepType.MID])
    np.testing.assert_array_equal(ts.discount, [0.0, 1.0])
    assert ts.observation.total_steps.tolist() == [1, 1]
    env.close()


def test_dm_env_async():
    env = envpool.make_dm("Pendulum-v1", num_envs=4, batch_size=2, num_threads=2)
    assert isinstance(env.action_spec(), specs.BoundedArray)
    env.async_reset()
    for _ in range(10):
        ts = env.recv()
        env.send(np.zeros((2, 1), dtype=np.float32), ts.observation.env_id)
    env.close()


def test_dm_env_rejects_other_autoreset_modes():
    with pytest.raises(ValueError, match="not supported"):
        envpool.make("CartPole-v1", env_type="dm", autoreset_mode="same_step")


def test_dm_env_tuple_observation_spec():
    """Blackjack's Tuple(Discrete(32), Discrete(11), Discrete(2)) becomes a tuple of specs that
    each env's row of the TimeStep observation validates against."""
    env = envpool.make("Blackjack-v1", env_type="dm", num_envs=3, seed=0)
    obs_spec = env.observation_spec()
    assert isinstance(obs_spec, tuple) and len(obs_spec) == 3
    assert [s.num_values for s in obs_spec] == [32, 11, 2]
    assert all(isinstance(s, specs.DiscreteArray) for s in obs_spec)
    ts = env.reset()
    assert isinstance(ts.observation.obs, tuple) and len(ts.observation.obs) == len(obs_spec)
    for _ in range(5):
        for spec, column in zip(obs_spec, ts.observation.obs):
            assert column.shape == (3,)
            for value in column:
                spec.validate(value)
        ts = env.step(np.ones(3, dtype=np.int64))
    env.close()


def test_dm_spec_keeps_discrete_start():
    from envpool.frontends.dm import _space_to_spec

    assert _space_to_spec(gymnasium.spaces.Discrete(4), "a") == specs.DiscreteArray(4, dtype=np.int64, name="a")
    spec = _space_to_spec(gymnasium.spaces.Discrete(3, start=-1), "a")
    assert isinstance(spec, specs.BoundedArray)
    assert spec.shape == () and spec.dtype == np.int64 and spec.name == "a"
    assert (spec.minimum, spec.maximum) == (-1, 1)
    for value in (-1, 0, 1):
        spec.validate(np.int64(value))
    with pytest.raises(ValueError):
        spec.validate(np.int64(2))
    nested = _space_to_spec(gymnasium.spaces.Tuple([gymnasium.spaces.Discrete(2, start=5)]), "obs")
    assert (nested[0].minimum, nested[0].maximum) == (5, 6)
