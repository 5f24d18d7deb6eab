"""gymnasium.make("envpool/<task>"): one native env as a gymnasium.Env, against gymnasium.make of
the same task (wrappers, spaces, steps from identical states, time limits, rendering, seeding,
gymnasium's env checker)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envpool
from envpool.frontends.gl_notice import SoftwareRendererWarning
from envpool.frontends.single_env import EnvPoolEnv

CLASSIC = ["CartPole-v1", "Pendulum-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Acrobot-v1"]


def _has_mujoco() -> bool:
    try:
        import mujoco  # noqa: F401
        from gymnasium.envs.mujoco import mujoco_env  # noqa: F401
    except ImportError:
        return False
    return True


MUJOCO = pytest.mark.skipif(not _has_mujoco(), reason="needs mujoco (envpool-ng[test])")


def _wrapper_chain(env) -> list[type]:
    chain = []
    while isinstance(env, gymnasium.Wrapper):
        chain.append(type(env))
        env = env.env
    return chain


def test_make_gives_one_env_under_gymnasiums_wrappers():
    ours, ref = gymnasium.make("envpool/CartPole-v1"), gymnasium.make("CartPole-v1")
    assert isinstance(ours.unwrapped, EnvPoolEnv) and isinstance(ours.unwrapped, gymnasium.Env)
    assert _wrapper_chain(ours) == _wrapper_chain(ref)  # PassiveEnvChecker, OrderEnforcing, TimeLimit
    assert ours.spec.max_episode_steps == ref.spec.max_episode_steps == 500
    assert ours.observation_space == ref.observation_space and ours.action_space == ref.action_space
    ours.close()
    ref.close()


@pytest.mark.parametrize("task", CLASSIC)
def test_steps_as_gymnasium_from_the_same_state(task):
    """Both reset, ours is put in gymnasium's state, then identical actions until the (shortened)
    time limit or termination: identical observations, rewards and episode ends."""
    ours, ref = gymnasium.make(f"envpool/{task}", max_episode_steps=60), gymnasium.make(task, max_episode_steps=60)
    ours.reset(seed=1)
    ref.reset(seed=1)
    ours.unwrapped.set_state(np.asarray(ref.unwrapped.state, dtype=np.float64))
    ref.action_space.seed(2)
    for step in range(60):
        action = ref.action_space.sample()
        o1, r1, te1, tr1, _ = ours.step(action)
        o2, r2, te2, tr2, _ = ref.step(action)
        np.testing.assert_array_equal(o1, o2, err_msg=f"{task} step {step}")
        assert (r1, te1, tr1) == (r2, te2, tr2), f"{task} step {step}"
        assert type(o1) is type(o2) and o1.dtype == o2.dtype
        if te1 or tr1:
            break
    assert te1 or tr1  # each ran into an episode end, at the same step
    ours.close()
    ref.close()


@MUJOCO
def test_mujoco_steps_and_info_as_gymnasium():
    ours, ref = gymnasium.make("envpool/Hopper-v5"), gymnasium.make("Hopper-v5")
    ours.reset(seed=0)
    ref.reset(seed=0)
    data = ref.unwrapped.data
    ours.unwrapped.set_state(np.concatenate([data.qpos, data.qvel]))
    ref.action_space.seed(3)
    for step in range(30):
        action = ref.action_space.sample()
        o1, r1, te1, tr1, i1 = ours.step(action)
        o2, r2, te2, tr2, i2 = ref.step(action)
        np.testing.assert_allclose(o1, o2, rtol=1e-9, atol=1e-12, err_msg=f"step {step}")
        assert r1 == pytest.approx(r2, rel=1e-9) and (te1, tr1) == (te2, tr2)
        assert i1.keys() == i2.keys()
        for key in i2:
            assert i1[key] == pytest.approx(i2[key], rel=1e-9, abs=1e-12), key
        if te1:
            break


def test_frozen_lake_deterministic_episode_and_info():
    kwargs = dict(is_slippery=False)
    ours, ref = gymnasium.make("envpool/FrozenLake-v1", **kwargs), gymnasium.make("FrozenLake-v1", **kwargs)
    (o1, i1), (o2, i2) = ours.reset(seed=0), ref.reset(seed=0)
    assert (o1, i1) == (o2, i2) and type(o1) is int
    for action in [2, 2, 1, 1, 1, 2]:  # right, right, down x3, right: the goal of the 4x4 map
        r_ours, r_ref = ours.step(action), ref.step(action)
        assert r_ours == r_ref
    assert r_ours[1:3] == (1.0, True)


def test_time_limit_is_gymnasiums_wrapper():
    env = gymnasium.make("envpool/Pendulum-v1", max_episode_steps=7)
    env.reset(seed=0)
    ends = [env.step(np.zeros(1, np.float32))[3] for _ in range(7)]
    assert ends == [False] * 6 + [True]
    env.reset()
    assert not env.step(np.zeros(1, np.float32))[3]  # a new episode after reset()
    env.close()


def test_seeding_as_a_one_env_pool_and_unseeded_is_random():
    env = gymnasium.make("envpool/CartPole-v1")
    pool = envpool.make("CartPole-v1", num_envs=1)
    for seed in (0, 7):
        np.testing.assert_array_equal(env.reset(seed=seed)[0], pool.reset(seed=seed)[0][0])
        np.testing.assert_array_equal(env.reset()[0], pool.reset()[0][0])  # the stream continues
    first = [gymnasium.make("envpool/CartPole-v1").reset()[0] for _ in range(2)]
    assert not np.array_equal(*first)  # no fixed default seed, as gymnasium's envs
    env.close()
    pool.close()


@pytest.mark.parametrize("g", [1.0, 20.0])
def test_env_kwargs_reach_the_env(g):
    env = gymnasium.make("envpool/Pendulum-v1", g=g)
    env.reset(seed=0)
    env.unwrapped.set_state([1.0, 0.0])
    thdot = env.step(np.zeros(1, np.float32))[0][2]
    assert thdot == pytest.approx(3 * g / 2 * np.sin(1.0) * 0.05, rel=1e-5)  # gymnasium's Pendulum, l=1, dt=0.05


def test_render_rgb_array_and_render_fps():
    env = gymnasium.make("envpool/CartPole-v1", render_mode="rgb_array")
    ref = gymnasium.make("CartPole-v1", render_mode="rgb_array")
    env.reset(seed=0)
    ref.reset(seed=0)
    env.unwrapped.set_state(np.asarray(ref.unwrapped.state, dtype=np.float64))
    frame = env.render()
    assert frame.shape == ref.render().shape and frame.dtype == np.uint8
    assert env.unwrapped.metadata["render_fps"] == ref.unwrapped.metadata["render_fps"] == 50
    plain = gymnasium.make("envpool/CartPole-v1")
    plain.reset()
    assert plain.render() is None


@pytest.mark.parametrize(
    "task",
    [
        *CLASSIC,
        "FrozenLake-v1",
        "Blackjack-v1",
        "CliffWalking-v1",
        "Taxi-v4",
        pytest.param("HalfCheetah-v5", marks=MUJOCO),
        pytest.param("Hopper-v5", marks=MUJOCO),
    ],
)
def test_passes_gymnasiums_env_checker(task):
    """check_env (seeding determinism, spaces, returned types, rendering) passes, with no warning
    that gymnasium's own env of the task does not give too."""

    def warnings_of(env, **kwargs) -> set[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped, **kwargs)
        env.close()
        # Not the env's: the machine's GL renderer, said once per process by the first pool with
        # frames (where the checker's render check makes it), whichever test that is.
        return {str(w.message) for w in caught if not issubclass(w.category, SoftwareRendererWarning)}

    try:
        gymnasium.spec(task)
    except gymnasium.error.Error:
        pytest.skip(f"gymnasium {gymnasium.__version__} has no {task} to compare with")
    ours = warnings_of(gymnasium.make(f"envpool/{task}"))
    # gymnasium's render check would open a "human" window: skipped for the reference only.
    reference = warnings_of(gymnasium.make(task), skip_render_check=True)
    assert ours <= reference, ours - reference


def test_misuse_is_explained():
    with pytest.raises(TypeError, match="makes one env.*gymnasium.make_vec"):
        gymnasium.make("envpool/CartPole-v1", num_envs=4)
    env = gymnasium.make("envpool/CartPole-v1", disable_env_checker=True)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action must have shape \(\)"):
        env.step([0, 1])
    env.unwrapped.set_state([0.0, 0.0, 0.5, 0.0])  # past the angle limit: the next step terminates
    assert env.step(0)[2]
    with pytest.raises(RuntimeError, match="episode is over.*call reset"):
        env.step(0)
    env.reset()
    env.step(0)  # usable again
    with pytest.raises(ValueError, match="takes no options"):
        env.reset(options={"low": -0.1})
    env.close()


def test_make_vec_keeps_the_pool_and_sync_mode_uses_the_single_env():
    pool = gymnasium.make_vec("envpool/CartPole-v1", num_envs=3)
    assert isinstance(pool, envpool.EnvPoolVectorEnv)  # the vector entry point stays the default
    sync = gymnasium.make_vec("envpool/CartPole-v1", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    obs, _ = sync.reset(seed=0)
    assert obs.shape == (2, 4)
    sync.step(np.array([0, 1]))
    pool.close()
    sync.close()


def test_docstring_examples():
    import doctest

    import envpool.frontends.single_env

    result = doctest.testmod(envpool.frontends.single_env)
    assert result.attempted > 0 and result.failed == 0
