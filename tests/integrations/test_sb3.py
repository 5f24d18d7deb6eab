"""envpool.sb3.VecEnvAdapter: SB3's VecEnv API over envpool pools, checked against SB3's own
DummyVecEnv step for step, SB3's VecCheckNan / VecMonitor / space checks, and short PPO and SAC
runs. Needs stable-baselines3 (and torch): skipped without it; scripts/ci_train.sh runs it."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")

from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.utils import check_for_correct_spaces
from stable_baselines3.common.vec_env import DummyVecEnv, VecCheckNan, VecMonitor

import envpool
from envpool.sb3 import VecEnvAdapter, make_vec_env

pytestmark = pytest.mark.integration

SEED = 5

# One torch thread: on a small shared machine torch's default (a thread per core, spinning
# while it waits) can make these short trainings minutes long.
pytest.importorskip("torch").set_num_threads(1)


def _compare(ours, ref, steps, actions_of):
    np.testing.assert_array_equal(ours.reset(), ref.reset())
    ends = 0
    for t in range(steps):
        actions = actions_of(t)
        o1, r1, d1, i1 = ours.step(actions)
        o2, r2, d2, i2 = ref.step(actions)
        np.testing.assert_array_equal(o1, o2, err_msg=f"step {t}")
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
        assert r1.dtype == r2.dtype and d1.dtype == d2.dtype
        for a, b in zip(i1, i2):
            assert ("terminal_observation" in a) == ("terminal_observation" in b)
            if "terminal_observation" in a:
                ends += 1
                np.testing.assert_array_equal(a["terminal_observation"], b["terminal_observation"])
                assert a["TimeLimit.truncated"] == b["TimeLimit.truncated"]
    return ends


@pytest.mark.parametrize("mode", ["same_step", "disabled"])
def test_matches_dummy_vec_env_step_for_step(mode):
    """A make_python pool of gymnasium's CartPole through the adapter equals SB3's DummyVecEnv
    of the same envs and seeds: observations, rewards, dones, terminal observations and
    TimeLimit.truncated (short time limit: both kinds of end happen)."""
    n = 4
    make = lambda: gymnasium.make("CartPole-v1", max_episode_steps=30)
    ours = VecEnvAdapter(envpool.make_python(make, num_envs=n, num_workers=2, autoreset_mode=mode))
    ref = DummyVecEnv([make] * n)
    for venv in (ours, ref):
        venv.seed(SEED)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 2, (400, n))
    try:
        ends = _compare(ours, ref, 400, lambda t: actions[t])
        assert ends > 20
    finally:
        ours.close()
        ref.close()


def test_native_pool_seeding_and_attributes():
    venv = make_vec_env("CartPole-v1", num_envs=3, seed=0, max_episode_steps=20)
    try:
        gym_env = gymnasium.make("CartPole-v1")  # SB3's check that a model fits this env
        check_for_correct_spaces(venv, gym_env.observation_space, gym_env.action_space)
        venv.seed(11)
        first = venv.reset()
        venv.seed(11)
        np.testing.assert_array_equal(venv.reset(), first)  # same seeds, same start
        assert not np.array_equal(venv.reset(), first)  # no seed: the streams go on
        assert venv.get_attr("render_mode") == [None, None, None] and venv.render_mode is None
        assert venv.env_is_wrapped(Monitor) == [False] * 3
        with pytest.raises(AttributeError, match="native"):
            venv.get_attr("gravity")
        with pytest.raises(AttributeError, match="native"):
            venv.env_method("close")
        ends = 0
        for _ in range(60):
            _, _, dones, infos = venv.step(np.ones(3, np.int64))
            for d, info in zip(dones, infos):
                if d:
                    ends += 1
                    assert info["terminal_observation"].shape == (4,)
        assert ends > 0
        venv.step_async(np.zeros(3, np.int64))
        assert venv.reset().shape == (3, 4)  # a pending step is dropped, as SB3 asks of reset()
    finally:
        venv.close()


def test_render_tiles_the_envs_frames():
    venv = make_vec_env("CartPole-v1", num_envs=2, render_mode="rgb_array")
    try:
        venv.reset()
        frames = venv.get_images()
        assert len(frames) == 2 and frames[0].shape == (400, 600, 3) and frames[0].dtype == np.uint8
        image = venv.render()  # SB3 tiles the frames
        assert image.shape == (800, 600, 3)
        np.testing.assert_array_equal(image[:400], frames[0])
    finally:
        venv.close()


def test_python_pool_attributes_and_methods():
    make = lambda: Monitor(gymnasium.make("CartPole-v1"))
    venv = VecEnvAdapter(envpool.make_python(make, num_envs=2, num_workers=1, autoreset_mode="same_step"))
    try:
        assert venv.env_is_wrapped(Monitor) == [True, True]
        assert venv.env_is_wrapped(gymnasium.wrappers.TimeLimit) == [True, True]
        assert venv.env_is_wrapped(gymnasium.wrappers.RecordVideo) == [False, False]
        assert venv.get_attr("render_mode") == [None, None]
        assert not venv.has_attr("my_value")  # SB3's has_attr: a missing attribute is AttributeError
        venv.set_attr("my_value", 3)
        assert venv.get_attr("my_value") == [3, 3] and venv.has_attr("my_value")
        venv.set_attr("my_value", 7, indices=[1])
        assert venv.get_attr("my_value") == [3, 7] and venv.get_attr("my_value", indices=1) == [7]
        assert venv.env_method("get_total_steps") == [0, 0]
        with pytest.raises(ValueError, match="indices"):
            venv.env_method("get_total_steps", indices=[0])
        with pytest.raises(IndexError):
            venv.get_attr("render_mode", indices=[5])
    finally:
        venv.close()


def test_refuses_pools_sb3_cannot_drive():
    with envpool.make("CartPole-v1", num_envs=2) as envs:
        with pytest.raises(ValueError, match="same_step"):
            VecEnvAdapter(envs)
    with envpool.make("CartPole-v1", num_envs=4, batch_size=2, autoreset_mode="same_step") as envs:
        with pytest.raises(ValueError, match="batch_size"):
            VecEnvAdapter(envs)
    with pytest.raises(TypeError, match="gymnasium front end"):
        VecEnvAdapter(object())


def test_ppo_trains_through_the_adapter_with_sb3_checks():
    venv = VecMonitor(VecCheckNan(make_vec_env("CartPole-v1", num_envs=4, seed=0), raise_exception=True))
    try:
        model = sb3.PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=4, seed=0, device="cpu")
        model.learn(6000)
        returns = [ep["r"] for ep in model.ep_info_buffer]
        assert len(returns) > 20  # VecMonitor saw episodes end through the adapter
        from stable_baselines3.common.evaluation import evaluate_policy

        mean, _ = evaluate_policy(model, venv, n_eval_episodes=8, deterministic=True)
        assert mean > 0
    finally:
        venv.close()


def test_sac_runs_on_a_continuous_native_task():
    venv = VecCheckNan(make_vec_env("Pendulum-v1", num_envs=2, seed=0), raise_exception=True)
    try:
        model = sb3.SAC("MlpPolicy", venv, learning_starts=50, batch_size=32, seed=0, device="cpu")
        model.learn(300)
        assert model.num_timesteps == 300
        actions, _ = model.predict(venv.reset(), deterministic=True)
        assert actions.shape == (2, 1) and np.all(np.abs(actions) <= 2.0)
    finally:
        venv.close()


def test_docstring_examples():
    import doctest

    import envpool.sb3

    result = doctest.testmod(envpool.sb3, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_her_replay_buffer_reaches_compute_reward_through_env_method():
    """HerReplayBuffer relabels goals with ``env.env_method("compute_reward", achieved, desired,
    infos, indices=[0])``: on a goal-conditioned task (PointMaze, whose model file comes from
    gymnasium-robotics, in .test-oracles/ as the README's test command installs it) that is the
    pool's compute_reward with env 0's kwargs."""
    if "PointMaze_UMazeDense-v3" not in envpool.list_all_envs():
        pytest.skip("envpool was built without the MuJoCo headers")
    import importlib.util

    if importlib.util.find_spec("gymnasium_robotics") is None:
        pytest.skip(
            "PointMaze reads its model from gymnasium-robotics: pip install --no-deps gymnasium-robotics==1.4.2"
        )
    venv = VecEnvAdapter(envpool.make("PointMaze_UMazeDense-v3", num_envs=2, autoreset_mode="same_step"))
    achieved = np.random.default_rng(0).uniform(-1, 1, (8, 2))
    (rewards,) = venv.env_method("compute_reward", achieved, np.zeros((8, 2)), [{}] * 8, indices=[0])
    np.testing.assert_array_equal(rewards, venv.envs.compute_reward(achieved, np.zeros((8, 2))))
    assert rewards.shape == (8,) and np.all((rewards > 0) & (rewards <= 1))
    with pytest.raises(AttributeError, match="no Python method 'seed_everything'"):
        venv.env_method("seed_everything")
    venv.close()
