"""env_type="gym" as the reference EnvPool's front end, and the reference's attributes on both
front ends: __len__, is_async, reset(env_id) and a full-batch step of a subset of envs.

Expected values are the reference EnvPool 1.2.5's (its gym front end with gymnasium 1.4, and
unchanged with gym 0.26 installed); docs/compat.md lists what is deliberately not copied. That
is env_type="gym" where the gym package is not installed, as these tests make it wherever they
run; with gym installed it follows gym's API (tests/frontends/test_legacy_gym.py).
"""

from __future__ import annotations

import importlib.machinery
import sys
import types

import gymnasium
import numpy as np
import pytest

import envpool

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _without_the_gym_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "gym", None)  # find_spec("gym") is None: as if not installed


def test_without_the_gym_package_env_type_gym_is_the_reference_front_end():
    for envs in (envpool.make_gym("CartPole-v1", num_envs=2), envpool.make_python("CartPole-v1", env_type="gym")):
        assert type(envs) is envpool.EnvPoolGymEnv
        envs.close()


def test_a_gym_package_that_cannot_be_imported_is_an_import_error_naming_it(monkeypatch):
    broken = types.ModuleType("gym")
    broken.__spec__ = importlib.machinery.ModuleSpec("gym", None, origin="/site-packages/gym/__init__.py")
    broken.__version__ = "unknown"
    monkeypatch.setitem(sys.modules, "gym", broken)
    with pytest.raises(ImportError, match="follows the installed gym package's API, but importing gym failed"):
        envpool.make_gym("CartPole-v1")
    monkeypatch.setitem(sys.modules, "gym", None)
    envpool.make_gym("CartPole-v1").close()  # nothing stays broken


def test_a_folder_named_gym_is_not_the_gym_package(monkeypatch, tmp_path):
    from envpool.frontends.installed_gym import gym_front_end, gym_version

    monkeypatch.delitem(sys.modules, "gym")
    (tmp_path / "gym").mkdir()  # importable as a namespace package, but not gym
    # Only that folder where gym could be (a gym in site-packages would win over a namespace).
    monkeypatch.setattr(sys, "path", [str(tmp_path)] + [p for p in sys.path if "-packages" not in p])
    assert gym_version() is None and gym_front_end() is envpool.EnvPoolGymEnv


def test_gym_front_end_is_an_env_and_a_vector_env_with_single_env_spaces():
    envs = envpool.make("CartPole-v1", env_type="gym", num_envs=3)
    assert isinstance(envs, gymnasium.Env) and isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.is_vector_env and len(envs) == 3 and not envs.is_async and envs.num_envs == 3
    assert (
        envs.observation_space
        == envs.single_observation_space
        == gymnasium.spaces.Box(envs.observation_space.low, envs.observation_space.high, (4,), np.float32)
    )
    assert envs.action_space == envs.single_action_space == gymnasium.spaces.Discrete(2)
    np.testing.assert_array_equal(envs.all_env_ids, np.arange(3, dtype=np.int32))
    envs.close()


class CountingWrapper(gymnasium.Wrapper):
    """A user's gymnasium.Wrapper subclass, as CleanRL's envpool scripts write them."""

    def __init__(self, env):
        super().__init__(env)
        self.steps = 0

    def step(self, action):
        self.steps += 1
        return super().step(action)


def test_gymnasium_wrapper_subclasses_accept_it():
    wrapped = CountingWrapper(envpool.make_gym("CartPole-v1", num_envs=2, seed=0))
    obs, info = wrapped.reset()
    obs, rew, term, trunc, info = wrapped.step(np.array([0, 1]))
    assert obs.shape == (2, 4) and wrapped.steps == 1
    assert wrapped.action_space == gymnasium.spaces.Discrete(2)
    wrapped.close()


def test_result_arity_info_keys_and_dtypes_are_the_references():
    envs = envpool.make_gym("Hopper-v5", num_envs=2, seed=0)
    obs, info = envs.reset()
    assert list(info)[:2] == ["env_id", "players"] and list(info)[-1] == "elapsed_step"
    np.testing.assert_array_equal(info["players"]["env_id"], [0, 1])
    assert info["env_id"].dtype == info["elapsed_step"].dtype == np.int32
    result = envs.step(np.zeros((2, 3), np.float32))
    assert len(result) == 5
    obs, rew, term, trunc, info = result
    assert rew.dtype == np.float32 and term.dtype == trunc.dtype == np.bool_
    assert {"x_position", "x_velocity"} <= set(info)  # the env's own keys stay
    np.testing.assert_array_equal(info["elapsed_step"], [1, 1])
    envs.close()


def test_step_before_reset_starts_the_episodes():
    envs = envpool.make_gym("CartPole-v1", num_envs=3, seed=7)
    obs, rew, term, trunc, info = envs.step(np.array([1, 1, 1]))
    np.testing.assert_array_equal(info["elapsed_step"], [0, 0, 0])
    np.testing.assert_array_equal(rew, [0, 0, 0])
    assert not term.any() and not trunc.any()
    reference = envpool.make_gym("CartPole-v1", num_envs=3, seed=7)
    np.testing.assert_array_equal(obs, reference.reset()[0])  # the episodes a reset starts
    obs, rew, term, trunc, info = envs.step(np.array([1, 1, 1]))
    np.testing.assert_array_equal(info["elapsed_step"], [1, 1, 1])
    envs.close()
    reference.close()


def test_step_before_reset_of_some_envs_starts_those_and_steps_the_others():
    envs = envpool.make_gym("CartPole-v1", num_envs=3, seed=0)
    envs.reset(np.array([1]))
    obs, rew, term, trunc, info = envs.step(np.array([0, 1, 0]))
    np.testing.assert_array_equal(info["env_id"], [0, 1, 2])  # rows in env order
    np.testing.assert_array_equal(info["elapsed_step"], [0, 1, 0])
    np.testing.assert_array_equal(rew, [0, 1, 0])
    envs.close()


def test_async_send_before_reset_starts_the_episodes():
    envs = envpool.make_gym("CartPole-v1", num_envs=4, batch_size=2, num_threads=1)
    envs.send(np.zeros(4, np.int64))
    seen = []
    for _ in range(2):
        obs, rew, term, trunc, info = envs.recv()
        np.testing.assert_array_equal(info["elapsed_step"], [0, 0])
        seen += info["env_id"].tolist()
        envs.send(np.zeros(2, np.int64), info["env_id"])
    assert sorted(seen) == [0, 1, 2, 3]
    obs, rew, term, trunc, info = envs.recv()
    np.testing.assert_array_equal(info["elapsed_step"], [1, 1])
    envs.close()


@pytest.mark.parametrize("env_type", ["gym", "gymnasium"])
def test_reset_of_env_ids_returns_just_those_rows_in_that_order(env_type):
    envs = envpool.make("CartPole-v1", env_type=env_type, num_envs=4, seed=3)
    full, _ = envs.reset(seed=11)
    for _ in range(3):
        envs.step(np.ones(4, np.int64))
    obs, info = envs.reset(np.array([2, 0]), seed=11)
    assert obs.shape == (2, 4)
    np.testing.assert_array_equal(obs, full[[2, 0]])  # env i seeded with seed + i, as a full reset
    if "env_id" in info:
        np.testing.assert_array_equal(info["env_id"], [2, 0])
    # Envs 1 and 3 went on: their states are those of three steps, not of a reset.
    assert not np.array_equal(envs.get_state(1)[:4], full[1]) and not np.array_equal(envs.get_state(3)[:4], full[3])
    np.testing.assert_allclose(envs.get_state(0)[:4], full[0])
    envs.close()


@pytest.mark.parametrize("env_type", ["gym", "gymnasium"])
def test_full_batch_step_of_a_subset_steps_only_those_envs(env_type):
    envs = envpool.make("CartPole-v1", env_type=env_type, num_envs=4, seed=0)
    first, _ = envs.reset()
    obs, rew, term, trunc, info = envs.step(np.array([1, 0]), np.array([3, 1]))
    assert obs.shape == (2, 4) and rew.shape == (2,)
    if "env_id" in info:
        np.testing.assert_array_equal(info["env_id"], [3, 1])
    for i in (0, 2):  # not stepped
        np.testing.assert_allclose(envs.get_state(i)[:4], first[i], rtol=1e-6)
    np.testing.assert_allclose(envs.get_state(3)[:4], obs[0], rtol=1e-6)
    np.testing.assert_allclose(envs.get_state(1)[:4], obs[1], rtol=1e-6)
    obs, rew, term, trunc, info = envs.step(np.zeros(4, np.int64))
    assert obs.shape == (4, 4)
    envs.close()


def test_full_batch_subset_rows_follow_the_actions_given():
    stepped = envpool.make("CartPole-v1", num_envs=3, seed=5)
    alone = envpool.make("CartPole-v1", num_envs=3, seed=5)
    stepped.reset()
    alone.reset()
    obs, *_ = stepped.step(np.array([0, 1]), np.array([2, 0]))
    full, *_ = alone.step(np.array([1, 0, 0]))
    np.testing.assert_array_equal(obs, full[[2, 0]])
    stepped.close()
    alone.close()


def test_full_batch_sends_of_subsets_come_back_together_in_send_order():
    envs = envpool.make("CartPole-v1", num_envs=4, seed=0)
    envs.reset()
    envs.send(np.zeros(1, np.int64), np.array([2]))
    envs.send(np.zeros(2, np.int64), np.array([3, 0]))
    obs, rew, term, trunc, info = envs.recv()
    np.testing.assert_array_equal(info["env_id"], [2, 3, 0])
    with pytest.raises(RuntimeError, match="would wait forever"):
        envs.recv()
    envs.step(np.zeros(4, np.int64))  # still usable as a full batch
    envs.close()


def test_process_pool_full_batch_steps_a_subset():
    envs = envpool.make_python(lambda: gymnasium.make("CartPole-v1"), num_envs=3, num_workers=2)
    try:
        envs.reset(seed=0)
        obs, rew, term, trunc, info = envs.step(np.array([1, 0]), env_id=np.array([2, 0]))
        assert obs.shape == (2, 4)
        np.testing.assert_array_equal(info["env_id"], [2, 0])  # a subset's info names its rows
        # All envs by id (a full batch without env_id has SyncVectorEnv's info, no elapsed_step).
        obs, rew, term, trunc, info = envs.step(np.zeros(3, np.int64), env_id=np.arange(3))
        np.testing.assert_array_equal(info["elapsed_step"], [2, 1, 2])
    finally:
        envs.close()


@pytest.mark.parametrize("env_type", ["gym", "gymnasium"])
def test_subset_step_with_an_action_per_env_is_refused_and_the_pool_stays_usable(env_type):
    # The reference silently steps env_id[i] with actions[i]; a full action batch is refused.
    envs = envpool.make("CartPole-v1", env_type=env_type, num_envs=3)
    envs.reset()
    with pytest.raises(ValueError, match=r"has shape \(3,\) but 2 envs need shape \(2,\)"):
        envs.step(np.zeros(3, np.int64), np.array([0, 2]))
    assert envs.step(np.zeros(3, np.int64))[0].shape == (3, 4)
    envs.close()


def test_reset_with_env_id_and_reset_mask_is_refused():
    envs = envpool.make("CartPole-v1", num_envs=2, autoreset_mode="disabled")
    with pytest.raises(ValueError, match="both env_id and options"):
        envs.reset(np.array([0]), options={"reset_mask": np.array([True, False])})
    with pytest.raises(ValueError, match="1 seeds for 2 env ids"):
        envs.reset(np.array([0, 1]), seed=[3])
    envs.reset()
    envs.close()


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
def test_gym_reset_return_info_true_is_accepted_and_false_refused(env_type):
    envs = envpool.make("CartPole-v1", env_type=env_type, num_envs=2, gym_reset_return_info=True)
    envs.close()
    with pytest.raises(ValueError, match="gym_reset_return_info=False is not supported"):
        envpool.make("CartPole-v1", env_type=env_type, gym_reset_return_info=False)


def test_async_attributes_and_recv_reset_flag():
    envs = envpool.make_gym("CartPole-v1", num_envs=4, batch_size=2, num_threads=1)
    assert envs.is_async and len(envs) == 4
    envs.async_reset()
    result = envs.recv(reset=True)
    assert len(result) == 2 and result[0].shape == (2, 4)
    assert len(envs.recv()) == 5
    envs.close()


def test_seed_method_warns_and_does_nothing():
    envs = envpool.make_gym("CartPole-v1", num_envs=1, seed=0)
    with pytest.warns(UserWarning, match="seed"):
        envs.seed(1)
    envs.close()


def test_render_is_one_array_as_the_reference():
    """The reference's render(env_ids) returns one (n, H, W, 3) uint8 array (env 0 alone by
    default); gymnasium's front end returns a tuple of frames, this one must not."""
    envs = envpool.make("CartPole-v1", env_type="gym", num_envs=3, render_mode="rgb_array")
    try:
        envs.reset()
        one = envs.render()
        assert isinstance(one, np.ndarray) and one.dtype == np.uint8 and one.shape[0] == 1 and one.shape[-1] == 3
        two = envs.render(env_ids=[2, 0])
        assert isinstance(two, np.ndarray) and two.shape == (2, *one.shape[1:])
        np.testing.assert_array_equal(two[1], one[0])
    finally:
        envs.close()
