"""env_type="gym" with the ``gym`` package installed: its spaces, ``gym.Env``, and its API
(gym 0.21-0.25: ``reset -> obs``, ``step -> (obs, reward, done, info)`` with
``info["TimeLimit.truncated"]``; gym >= 0.26: five values), as scripts written for the reference
EnvPool 0.6 and gym 0.23 (CleanRL's ``*_envpool*.py``) use it. See envpool.frontends.legacy_gym.

Oracle: the gymnasium-based front end (``envpool.EnvPoolGymEnv``, what ``env_type="gym"`` is
without gym) from the same seed with the same actions. Runs where gym is installed
(scripts/ci_atari.sh installs it); every test here runs under any gym version, expecting that
version's API.
"""

from __future__ import annotations

import doctest
import sys
import warnings

import gymnasium
import numpy as np
import pytest

import envpool
from envpool.frontends.installed_gym import FIVE_VALUE_GYM, gym_version

gym = pytest.importorskip("gym", reason="these tests need the gym package (scripts/ci_atari.sh installs it)")
from envpool.frontends.legacy_gym import to_gym_space  # noqa: E402 - needs gym

pytestmark = pytest.mark.integration

LEGACY = gym_version() < FIVE_VALUE_GYM  # gym 0.21-0.25: four-value step, reset -> obs


def _obs_of_reset(result):
    return result if LEGACY else result[0]


def _kinds_match(ours, theirs) -> None:
    """``ours`` (gym) is the gym space of the same kind, shape, dtype and bounds as ``theirs``."""
    kind = type(theirs).__name__
    assert isinstance(ours, getattr(gym.spaces, kind)) and not isinstance(ours, gymnasium.spaces.Space), (ours, theirs)
    if isinstance(theirs, gymnasium.spaces.Box):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours.low, theirs.low)
        np.testing.assert_array_equal(ours.high, theirs.high)
    elif isinstance(theirs, gymnasium.spaces.Discrete):
        assert ours.n == theirs.n and getattr(ours, "start", 0) == theirs.start
    elif isinstance(theirs, gymnasium.spaces.Dict):
        assert list(ours.spaces) == list(theirs.spaces)
        for key in theirs.spaces:
            _kinds_match(ours.spaces[key], theirs.spaces[key])
    elif isinstance(theirs, gymnasium.spaces.Tuple):
        assert len(ours.spaces) == len(theirs.spaces)
        for a, b in zip(ours.spaces, theirs.spaces):
            _kinds_match(a, b)


def _first_row(batch):
    if isinstance(batch, tuple):
        return tuple(_first_row(part) for part in batch)
    if isinstance(batch, dict):
        return {key: _first_row(part) for key, part in batch.items()}
    return batch[0]


def _has_mujoco() -> bool:
    try:
        import mujoco  # noqa: F401 - the mujoco-core package, which MuJoCo tasks load
    except ImportError:
        return False
    return "Hopper-v5" in envpool.list_all_envs()


TASKS = ["CartPole-v1", "Blackjack-v1", "Pendulum-v1"] + (["Hopper-v5"] if _has_mujoco() else [])


@pytest.mark.parametrize("task", TASKS)
def test_spaces_are_gym_spaces_of_the_same_kind_bounds_and_dtype(task):
    envs = envpool.make_gym(task, num_envs=2)
    oracle = envpool.make_spec(task)
    try:
        assert isinstance(envs, gym.Env) and isinstance(envs, gymnasium.vector.VectorEnv)
        assert envs.is_vector_env and envs.num_envs == 2 and len(envs) == 2
        assert envs.observation_space is envs.single_observation_space
        assert envs.action_space is envs.single_action_space
        _kinds_match(envs.observation_space, oracle.observation_space)
        _kinds_match(envs.action_space, oracle.action_space)
        assert envs.observation_space.contains(_first_row(_obs_of_reset(envs.reset())))
    finally:
        envs.close()


def test_every_space_kind_converts_and_others_are_refused():
    spaces = gymnasium.spaces
    cases = [
        spaces.Box(0, 255, (2, 3), np.uint8),
        spaces.Box(np.array([-1.0, 0.0]), np.array([1.0, np.inf]), dtype=np.float64),
        spaces.Discrete(5),
        spaces.MultiDiscrete([2, 3, 4]),
        spaces.MultiBinary(6),
        spaces.Dict({"b": spaces.Discrete(3), "a": spaces.Box(-1, 1, (2,), np.float32)}),
        spaces.Tuple([spaces.Discrete(2), spaces.Tuple([spaces.MultiBinary(2)])]),
    ]
    for space in cases:
        converted = to_gym_space(space)
        _kinds_match(converted, space)
        assert converted.shape == space.shape
    assert to_gym_space(spaces.MultiDiscrete([2, 3])).nvec.tolist() == [2, 3]
    assert to_gym_space(spaces.MultiBinary(6)).n == 6
    with pytest.raises(TypeError, match="gym has no space like Text"):
        to_gym_space(spaces.Text(5))
    with pytest.raises(ValueError, match="starts at"):
        to_gym_space(spaces.MultiDiscrete([2, 3], start=[1, 0]))


def test_step_arity_done_and_time_limit_truncated_dtypes():
    envs = envpool.make_gym("CartPole-v1", num_envs=3, seed=0)
    try:
        envs.reset()
        result = envs.step(np.array([0, 1, 0]))
        if LEGACY:
            assert len(result) == 4
            obs, reward, done, info = result
            assert done.dtype == np.bool_ and done.shape == (3,)
            assert info["TimeLimit.truncated"].dtype == np.bool_ and info["TimeLimit.truncated"].shape == (3,)
        else:
            assert len(result) == 5 and "TimeLimit.truncated" not in result[4]
            obs, reward, _, _, info = result
        assert obs.shape == (3, 4) and reward.dtype == np.float32
        np.testing.assert_array_equal(info["env_id"], [0, 1, 2])
        np.testing.assert_array_equal(info["players"]["env_id"], [0, 1, 2])
        np.testing.assert_array_equal(info["elapsed_step"], [1, 1, 1])
    finally:
        envs.close()


def test_reset_returns_obs_alone_unless_info_is_asked_for():
    envs = envpool.make_gym("CartPole-v1", num_envs=2, seed=0)
    with_info = envpool.make("CartPole-v1", env_type="gym", num_envs=2, seed=0, gym_reset_return_info=True)
    try:
        got = envs.reset()
        obs, info = with_info.reset()
        if LEGACY:
            assert isinstance(got, np.ndarray) and got.shape == (2, 4)
            np.testing.assert_array_equal(got, obs)
            obs, info = envs.reset(return_info=True)  # gym 0.22-0.25's per-call flag
            assert obs.shape == (2, 4)
            assert isinstance(with_info.reset(return_info=False), np.ndarray)
            assert isinstance(envs.reset(np.array([1])), np.ndarray)  # env_id: just that row
        else:
            np.testing.assert_array_equal(got[0], obs)
        np.testing.assert_array_equal(info["env_id"], [0, 1])
        np.testing.assert_array_equal(info["elapsed_step"], [0, 0])
    finally:
        envs.close()
        with_info.close()


def test_gym_reset_return_info_values_accepted_per_gym_version():
    if LEGACY:
        envpool.make_gym("CartPole-v1", gym_reset_return_info=False).close()
        with pytest.raises(TypeError, match="gym_reset_return_info must be True or False"):
            envpool.make_gym("CartPole-v1", gym_reset_return_info="yes")
    else:
        with pytest.raises(ValueError, match="gym_reset_return_info=False is not supported"):
            envpool.make_gym("CartPole-v1", gym_reset_return_info=False)
    envpool.make_gym("CartPole-v1", gym_reset_return_info=True).close()
    # The other front ends keep the reference 1.x's rule whatever gym is installed.
    with pytest.raises(ValueError, match="gym_reset_return_info=False is not supported"):
        envpool.make("CartPole-v1", env_type="gymnasium", gym_reset_return_info=False)


def _split(result):
    """(obs, reward, terminated-or-done, truncated-or-None, info) of either API."""
    if len(result) == 4:
        obs, reward, done, info = result
        return obs, reward, done, None, info
    return result


def test_values_equal_the_gymnasium_front_end_step_for_step():
    """CartPole-v1 with a 40-step limit: episodes that terminate and episodes the limit ends."""
    kwargs = dict(num_envs=4, seed=3, max_episode_steps=40)
    envs = envpool.make_gym("CartPole-v1", **kwargs)
    oracle = envpool.EnvPoolGymEnv(envpool.NativeSource("CartPole-v1", envpool.PoolOptions(**kwargs)))
    rng = np.random.default_rng(0)
    seen_terminated = seen_truncated = 0
    try:
        np.testing.assert_array_equal(_obs_of_reset(envs.reset()), oracle.reset()[0])
        for t in range(300):
            # Mostly alternating actions keep the pole up long enough to reach the limit.
            action = np.where(rng.random(4) < 0.8, (t + np.arange(4)) % 2, rng.integers(0, 2, 4))
            obs, reward, done, truncated, info = _split(envs.step(action))
            want_obs, want_reward, want_term, want_trunc, want_info = oracle.step(action)
            np.testing.assert_array_equal(obs, want_obs)
            np.testing.assert_array_equal(reward, want_reward)
            assert reward.dtype == want_reward.dtype == np.float32
            if LEGACY:
                np.testing.assert_array_equal(done, want_term | want_trunc)
                np.testing.assert_array_equal(info.pop("TimeLimit.truncated"), want_trunc & ~want_term)
            else:
                np.testing.assert_array_equal(done, want_term)
                np.testing.assert_array_equal(truncated, want_trunc)
            assert list(info) == list(want_info)
            for key in ("env_id", "elapsed_step"):
                np.testing.assert_array_equal(info[key], want_info[key])
            seen_terminated += int((want_term & ~want_trunc).sum())
            seen_truncated += int((want_trunc & ~want_term).sum())
        assert seen_terminated > 0 and seen_truncated > 0  # both ways of ending were compared
    finally:
        envs.close()
        oracle.close()


def test_an_episode_the_env_ends_at_the_time_limit_is_not_time_limit_truncated():
    """gym's TimeLimit sets ``TimeLimit.truncated`` only where the env itself did not end the
    episode: here the limit is the step at which env 0's pole falls."""
    probe = envpool.EnvPoolGymEnv(envpool.NativeSource("CartPole-v1", envpool.PoolOptions(num_envs=1, seed=5)))
    probe.reset()
    steps = 1
    while not probe.step(np.array([0]))[2][0]:
        steps += 1
    probe.close()
    envs = envpool.make_gym("CartPole-v1", num_envs=1, seed=5, max_episode_steps=steps)
    oracle = envpool.EnvPoolGymEnv(
        envpool.NativeSource("CartPole-v1", envpool.PoolOptions(num_envs=1, seed=5, max_episode_steps=steps))
    )
    try:
        envs.reset()
        oracle.reset()
        for _ in range(steps):
            result = _split(envs.step(np.array([0])))
            _, _, term, trunc, _ = oracle.step(np.array([0]))
        assert term[0] and trunc[0]  # both ended it (gymnasium's TimeLimit sets truncated too)
        if LEGACY:
            assert result[2][0] and not result[4]["TimeLimit.truncated"][0]
        else:
            assert result[2][0] and result[3][0]
    finally:
        envs.close()
        oracle.close()


class RecordEpisodeStatistics(gym.Wrapper):
    """A gym.Wrapper subclass over the pool, as CleanRL's ppo_atari_envpool.py writes it."""

    def __init__(self, env):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # gym 0.25: "old step API" notice
            super().__init__(env)
        self.num_envs = getattr(env, "num_envs", 1)
        self.episode_returns = np.zeros(self.num_envs, dtype=np.float32)

    def step(self, action):
        result = super().step(action)
        self.episode_returns += result[1]
        return result


def test_gym_wrapper_subclasses_accept_it():
    envs = envpool.make_gym("CartPole-v1", num_envs=2, seed=0)
    envs.num_envs = 2
    envs.single_action_space = envs.action_space  # as CleanRL's scripts set them
    envs.single_observation_space = envs.observation_space
    wrapped = RecordEpisodeStatistics(envs)
    try:
        assert isinstance(wrapped.action_space, gym.spaces.Discrete) and wrapped.action_space.n == 2
        obs = _obs_of_reset(wrapped.reset())
        assert obs.shape == (2, 4)
        result = wrapped.step(np.zeros(2, dtype=int))
        assert len(result) == (4 if LEGACY else 5)
        np.testing.assert_array_equal(wrapped.episode_returns, [1, 1])
        assert wrapped.unwrapped is envs
    finally:
        wrapped.close()
    assert envs.closed


def test_step_before_reset_starts_the_episodes():
    envs = envpool.make_gym("CartPole-v1", num_envs=3, seed=7)
    oracle = envpool.EnvPoolGymEnv(envpool.NativeSource("CartPole-v1", envpool.PoolOptions(num_envs=3, seed=7)))
    try:
        obs, reward, done, truncated, info = _split(envs.step(np.array([1, 1, 1])))
        np.testing.assert_array_equal(obs, oracle.reset()[0])
        np.testing.assert_array_equal(reward, [0, 0, 0])
        np.testing.assert_array_equal(info["elapsed_step"], [0, 0, 0])
        assert not done.any()
        if LEGACY:
            assert not info["TimeLimit.truncated"].any()
        obs, reward, done, truncated, info = _split(envs.step(np.array([1, 1, 1])))
        np.testing.assert_array_equal(info["elapsed_step"], [1, 1, 1])
    finally:
        envs.close()
        oracle.close()


def test_async_send_and_recv_have_the_installed_gyms_shape():
    envs = envpool.make_gym("CartPole-v1", num_envs=4, batch_size=2, seed=1)
    try:
        assert envs.is_async
        envs.async_reset()
        obs, info = envs.recv(reset=True)
        assert obs.shape == (2, 4) and info["env_id"].shape == (2,)
        first = info["env_id"]
        if LEGACY:
            only_obs = envs.recv(reset=True, return_info=False)  # the other two envs
            assert isinstance(only_obs, np.ndarray) and only_obs.shape == (2, 4)
        else:
            envs.recv(reset=True)
        envs.send(np.zeros(2, dtype=int), first)
        result = envs.recv()
        assert len(result) == (4 if LEGACY else 5)
        obs, reward, done, truncated, info = _split(result)
        assert obs.shape == (2, 4) and done.dtype == np.bool_ and reward.dtype == np.float32
        assert sorted(info["env_id"].tolist()) == sorted(first.tolist())
        np.testing.assert_array_equal(info["elapsed_step"], [1, 1])
        if LEGACY:
            assert info["TimeLimit.truncated"].shape == (2,)
    finally:
        envs.close()


def test_python_env_pools_get_the_same_front_end():
    envs = envpool.make_python("CartPole-v1", num_envs=2, env_type="gym", seed=0)
    try:
        assert isinstance(envs.action_space, gym.spaces.Discrete)
        obs = _obs_of_reset(envs.reset())
        assert obs.shape == (2, 4)
        assert len(envs.step(np.array([0, 1]))) == (4 if LEGACY else 5)
    finally:
        envs.close()


def test_without_gym_it_is_the_reference_front_end(monkeypatch):
    monkeypatch.setitem(sys.modules, "gym", None)  # as if gym were not installed
    envs = envpool.make_gym("CartPole-v1", num_envs=2)
    try:
        assert type(envs) is envpool.EnvPoolGymEnv
        assert isinstance(envs.action_space, gymnasium.spaces.Discrete)
        assert len(envs.reset()) == 2 and len(envs.step(np.array([0, 1]))) == 5
    finally:
        envs.close()


def test_docstring_examples():
    import envpool.frontends.legacy_gym

    result = doctest.testmod(envpool.frontends.legacy_gym, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_xla_step_returns_the_installed_gyms_shape_inside_jit():
    """CleanRL's ppo_atari_envpool_xla_jax.py: ``handle, (obs, reward, done, info) =
    step_env(handle, action)`` inside jit, reading ``info["TimeLimit.truncated"]``."""
    jax = pytest.importorskip("jax", reason="envs.xla() needs jax")
    kwargs = dict(num_envs=3, seed=2, max_episode_steps=12)
    envs = envpool.make_gym("CartPole-v1", **kwargs)
    python = envpool.make_gym("CartPole-v1", **kwargs)
    try:
        handle, _, _, step_env = envs.xla()
        envs.reset()
        python.reset()

        @jax.jit
        def rollout(handle, actions):
            def body(h, action):
                h, result = step_env(h, action)
                obs, reward, done, truncated, info = _split(result)
                extra = info["TimeLimit.truncated"] if LEGACY else truncated
                return h, (obs, reward, done, extra, info["elapsed_step"])

            return jax.lax.scan(body, handle, actions)

        actions = np.tile(np.array([[0, 1, 1], [1, 0, 1]]), (10, 1))
        handle, got = rollout(handle, actions)
        for t, action in enumerate(actions):
            obs, reward, done, truncated, info = _split(python.step(action))
            extra = info["TimeLimit.truncated"] if LEGACY else truncated
            for g, w in zip(got, (obs, reward, done, extra, info["elapsed_step"])):
                np.testing.assert_allclose(np.asarray(g[t]), np.asarray(w).astype(np.asarray(g[t]).dtype), rtol=1e-6)
        assert np.asarray(got[3]).any()  # the 12-step limit cut episodes short
    finally:
        envs.close()
        python.close()
