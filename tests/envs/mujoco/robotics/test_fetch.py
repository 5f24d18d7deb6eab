"""gymnasium-robotics 1.4.2's Fetch tasks (cpp/envs/mujoco/robotics/fetch/) against
gymnasium-robotics itself (fetch_oracle.py: the installed wheel, same libmujoco): from the same
seeds, observations (every Dict entry), rewards, terminations, truncations and ``is_success``
equal bit for bit over whole episodes, with random and scripted actions (the scripted ones reach
the goal, so that the success paths run), in every autoreset mode and through async send/recv.
Frames (render_mode="rgb_array", both sides MuJoCo's renderer in an EGL context) equal the
oracle's pixel for pixel.
"""

from __future__ import annotations

import os
import subprocess
import sys

os.environ.setdefault("MUJOCO_GL", "egl")  # before gymnasium's renderer imports mujoco.egl

import numpy as np
import pytest
from support.seeded_oracle import MODES, compare_seeded_runs

import envpool

from . import fetch_oracle
from .fetch_oracle import V4_IDS
from .robotics_oracle import async_observations, skip_unless_oracle_frames

pytestmark = pytest.mark.skipif("FetchPush-v4" not in envpool.list_all_envs(), reason="built without MuJoCo")


def _make_pool(task_id, **kwargs):
    fetch_oracle.load()  # the model files are the oracle's wheel's; skips without it
    return envpool.make(task_id, **kwargs)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("task_id", V4_IDS)
def test_whole_episodes_match_the_oracle(task_id, mode):
    """Random actions over 170 steps (two 50-step episodes ended by the time limit, an unseeded
    and a reseeding reset between them), four envs."""
    fetch_oracle.load()
    ends = compare_seeded_runs(task_id, lambda: fetch_oracle.make(task_id), mode, 170)
    assert ends.min() >= 2, ends  # time-limit truncations were compared


def _scripted(task_id: str, obs: dict) -> np.ndarray:
    """A policy that reaches the goal: the gripper straight to it (Reach); or (Push) up, over to
    a point behind the block on the line from the goal, down, then along the line (16 of 16
    seeded Push goals reached within the 50 steps). One row per env."""
    grip = obs["observation"][:, :3]
    goal = obs["desired_goal"]
    target = goal.copy()
    if "Push" in task_id:
        block = obs["achieved_goal"]
        to_goal = goal[:, :2] - block[:, :2]
        direction = to_goal / np.maximum(np.linalg.norm(to_goal, axis=1, keepdims=True), 1e-9)
        behind = block[:, :2] - 0.06 * direction
        rel = grip[:, :2] - block[:, :2]
        along = (rel * direction).sum(axis=1)
        lateral = np.abs(rel[:, 0] * direction[:, 1] - rel[:, 1] * direction[:, 0])
        for i in range(len(grip)):
            low, above = block[i, 2], block[i, 2] + 0.06
            if grip[i, 2] < low + 0.02 and along[i] < -0.03 and lateral[i] < 0.012:  # behind it: push
                target[i] = [*(goal[i, :2] - 0.045 * direction[i]), low]
            elif np.linalg.norm(grip[i, :2] - behind[i]) > 0.008:  # up, then over the point behind
                target[i] = [*grip[i, :2], above] if grip[i, 2] < low + 0.04 else [*behind[i], above]
            else:  # down behind it
                target[i] = [*behind[i], low]
    action = np.zeros((len(grip), 4), dtype=np.float32)
    action[:, :3] = np.clip((target - grip) / 0.05, -1.0, 1.0)
    return action


@pytest.mark.parametrize("task_id", ["FetchReach-v4", "FetchPush-v4", "FetchPushDense-v4"])
def test_scripted_episodes_reach_the_goal_as_the_oracle_does(task_id):
    n, seed = 4, 11
    ours = _make_pool(task_id, num_envs=n, seed=seed)
    refs = [fetch_oracle.make(task_id) for _ in range(n)]
    obs, _ = ours.reset()
    ref_obs = [r.reset(seed=seed + i)[0] for i, r in enumerate(refs)]
    successes = np.zeros(n, dtype=bool)
    for t in range(50):
        for key in ("observation", "achieved_goal", "desired_goal"):
            np.testing.assert_array_equal(obs[key], np.stack([o[key] for o in ref_obs]), err_msg=f"{key}, step {t}")
        action = _scripted(task_id, obs)
        obs, reward, terminated, truncated, info = ours.step(action)
        steps = [r.step(action[i]) for i, r in enumerate(refs)]
        ref_obs = [s[0] for s in steps]
        np.testing.assert_array_equal(reward, np.array([s[1] for s in steps], dtype=np.float64), err_msg=f"step {t}")
        np.testing.assert_array_equal(info["is_success"], np.array([s[4]["is_success"] for s in steps]))
        assert info["is_success"].dtype == np.float32
        np.testing.assert_array_equal(terminated, [s[2] for s in steps])
        np.testing.assert_array_equal(truncated, [s[3] for s in steps])
        successes |= info["is_success"] == 1.0
        if "Dense" not in task_id:  # sparse: 0 exactly where successful, else -1
            np.testing.assert_array_equal(reward, np.where(info["is_success"] == 1.0, 0.0, -1.0))
    assert truncated.all()
    assert successes.sum() >= n // 2, f"the scripted policy reached {successes.sum()} of {n} goals"


@pytest.mark.parametrize("task_id", ["FetchPush-v4", "FetchPushDense-v4", "FetchReach-v1"])
def test_compute_reward_over_batches_equals_the_oracle(task_id):
    """compute_reward / compute_terminated / compute_truncated over a (3, 40) batch of goals
    (distances around the 0.05 threshold, where sparse rewards flip) equal the oracle's
    env.unwrapped methods (float64 here; gymnasium-robotics' sparse rewards are float32 -1 / -0,
    the same values); relabelling the stepped goals gives the step rewards back."""
    envs = _make_pool(task_id, num_envs=2, seed=6)
    oracle = fetch_oracle.make(task_id.replace("-v1", "-v4")).unwrapped
    rng = np.random.default_rng(0)
    achieved = rng.uniform(0.5, 1.5, size=(3, 40, 3))
    direction = rng.normal(size=(3, 40, 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    desired = achieved + rng.uniform(0.04, 0.06, size=(3, 40, 1)) * direction
    ours = envs.compute_reward(achieved, desired, {})
    theirs = oracle.compute_reward(achieved, desired, {})
    assert ours.shape == (3, 40) and ours.dtype == np.float64
    np.testing.assert_array_equal(ours, theirs)
    if "Dense" not in task_id:
        assert set(np.unique(ours)) == {-1.0, 0.0}
    assert envs.unwrapped.compute_reward(achieved[1, 2], desired[1, 2], {}) == theirs[1, 2]
    for method in ("compute_terminated", "compute_truncated"):
        flags = getattr(envs, method)(achieved, desired, None)
        assert flags.shape == (3, 40) and not flags.any()
        assert getattr(envs, method)(achieved[0, 0], desired[0, 0]) is getattr(oracle, method)(achieved, desired, {})
    obs, _ = envs.reset()
    for _ in range(20):
        obs, reward, *_ = envs.step(_scripted(task_id, obs))
        np.testing.assert_array_equal(envs.compute_reward(obs["achieved_goal"], obs["desired_goal"], {}), reward)
    envs.close()


def test_actions_outside_the_box_are_clipped_as_upstream():
    n, seed = 2, 5
    ours = _make_pool("FetchPickAndPlace-v4", num_envs=n, seed=seed)
    refs = [fetch_oracle.make("FetchPickAndPlace-v4") for _ in range(n)]
    ours.reset()
    for i, r in enumerate(refs):
        r.reset(seed=seed + i)
    rng = np.random.default_rng(0)
    for t in range(20):
        action = rng.uniform(-3, 3, size=(n, 4)).astype(np.float32)
        obs, reward, *_ = ours.step(action)
        steps = [r.step(action[i]) for i, r in enumerate(refs)]
        np.testing.assert_array_equal(obs["observation"], np.stack([s[0]["observation"] for s in steps]), f"step {t}")
        np.testing.assert_array_equal(reward, [s[1] for s in steps])


def test_async_batches_follow_each_envs_seed():
    """send/recv in batches of 2 of 4 envs: env i's observations are the oracle's env i's."""
    n, seed, steps = 4, 3, 60
    ours = _make_pool("FetchPush-v4", num_envs=n, batch_size=2, num_threads=2, seed=seed)
    refs = [fetch_oracle.make("FetchPush-v4") for _ in range(n)]
    rng = np.random.default_rng(2)
    actions = rng.uniform(-1, 1, size=(n, steps, 4)).astype(np.float32)
    expected = []
    for i, r in enumerate(refs):  # next-step autoreset by hand
        run, done = [r.reset(seed=seed + i)[0]["observation"]], False
        for a in actions[i]:
            if done:
                run.append(r.reset()[0]["observation"])
                done = False
            else:
                o, _, term, trunc, _ = r.step(a)
                run.append(o["observation"])
                done = term or trunc
        expected.append(np.stack(run))
    got = async_observations(ours, actions, "observation")
    for i in range(n):
        np.testing.assert_array_equal(got[i], expected[i], err_msg=f"env {i}")


@pytest.mark.parametrize("task_id", V4_IDS)
def test_spaces_and_limits_match_the_oracle(task_id):
    ours = _make_pool(task_id, num_envs=1)
    ref = fetch_oracle.make(task_id)
    assert ours.single_observation_space == ref.observation_space
    assert ours.single_action_space == ref.action_space
    assert envpool.make_spec(task_id).max_episode_steps == ref.spec.max_episode_steps == 50
    assert ours.metadata["render_fps"] == ref.metadata["render_fps"] == 25


@pytest.mark.parametrize("task_id", V4_IDS)
def test_legacy_ids_are_the_modern_tasks(task_id):
    """The reference EnvPool's mujoco_py v1 ids make the v4 tasks (mujoco_py cannot run here)."""
    legacy = task_id.replace("-v4", "-v1")
    runs = []
    for tid in (task_id, legacy):
        pool = _make_pool(tid, num_envs=2, seed=9)
        rng = np.random.default_rng(4)
        run = [pool.reset()[0]]
        run += [pool.step(rng.uniform(-1, 1, size=(2, 4)).astype(np.float32))[0] for _ in range(10)]
        runs.append(run)
        pool.close()
    for a, b in zip(*runs):
        for key in ("observation", "achieved_goal", "desired_goal"):
            np.testing.assert_array_equal(a[key], b[key])
    assert envpool.make_spec(legacy).max_episode_steps == 50


def test_reward_type_kwarg_and_bad_kwargs():
    pool = _make_pool("FetchReach-v4", num_envs=1, seed=0, reward_type="dense")
    dense = _make_pool("FetchReachDense-v4", num_envs=1, seed=0)
    pool.reset(), dense.reset()
    action = np.full((1, 4), 0.5, dtype=np.float32)
    for _ in range(5):
        a, b = pool.step(action), dense.step(action)
        assert a[1][0] == b[1][0] < 0
    mixed = _make_pool("FetchReach-v4", num_envs=2, seed=0, reward_type=["sparse", "dense"])  # one per env
    mixed.reset()
    obs, reward, *_ = mixed.step(np.zeros((2, 4), dtype=np.float32))
    assert reward[0] == -1.0 and -1.0 < reward[1] < 0
    assert mixed.compute_reward(obs["achieved_goal"][1], obs["desired_goal"][1], env_id=1) == reward[1]
    with pytest.raises(ValueError, match="env_id"):  # whose reward_type applies
        mixed.compute_reward(obs["achieved_goal"], obs["desired_goal"])
    geoms = _make_pool("FetchReach-v4", num_envs=2, seed=0, max_geom=[1000, 2000])  # only reward_type matters
    assert geoms.compute_reward(obs["achieved_goal"][0], obs["desired_goal"][0]) == -1.0
    with pytest.raises(ValueError, match=r"reward_type must be 'sparse' or 'dense', got 'shaped'"):
        envpool.make("FetchPush-v4", num_envs=1, reward_type="shaped")
    with pytest.raises(ValueError, match=r"distance_threshold.*reward_type"):
        envpool.make("FetchPush-v4", num_envs=1, distance_threshold=0.1)
    with pytest.raises(ValueError, match=r"'reward_type' must be str"):
        envpool.make("FetchPush-v4", num_envs=1, reward_type=1)
    with pytest.raises(ValueError, match=r"mjvCamera has no attribute 'zoom'"):
        envpool.make("FetchPush-v4", num_envs=1, default_camera_config={"zoom": 1.0})


def test_missing_gymnasium_robotics_is_reported():
    """Without the gymnasium-robotics wheel, making a Fetch task says what to install."""
    code = (
        "import importlib.util, envpool\n"
        "if importlib.util.find_spec('gymnasium_robotics'):\n"
        "    print('INSTALLED')\n"
        "try:\n"
        "    envpool.make('FetchReach-v4', num_envs=1)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # no .test-oracles
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    if out.stdout.startswith("INSTALLED"):
        pytest.skip("gymnasium-robotics is installed in this environment itself")
    assert "pip install --no-deps gymnasium-robotics==1.4.2" in out.stdout, out.stdout + out.stderr


def test_frames_equal_gymnasium_robotics_at_the_default_size():
    """480 x 480 frames from fetch_env.py's DEFAULT_CAMERA_CONFIG, the target site at the goal."""
    skip_unless_oracle_frames()
    envs = _make_pool("FetchPush-v4", num_envs=1, seed=8, render_mode="rgb_array")
    oracle = fetch_oracle.make("FetchPush-v4", render_mode="rgb_array")
    obs, _ = envs.reset()
    oracle.reset(seed=8)
    frame = envs.render()[0]
    assert frame.shape == (480, 480, 3)
    np.testing.assert_array_equal(frame, oracle.render())
    for _ in range(10):
        action = _scripted("FetchPush-v4", obs)
        obs, *_ = envs.step(action)
        oracle.step(action[0])
    np.testing.assert_array_equal(envs.render()[0], oracle.render())
    envs.close()
    oracle.close()


@pytest.mark.parametrize("task_id", ["FetchReach-v4", "FetchPickAndPlace-v4"])
def test_rendering_every_step_keeps_the_oracles_trajectory(task_id):
    """gymnasium-robotics' render() calls mj_forward, which refreshes the gripper pose the next
    step's mocap starts from (PickAndPlace, whose step ends without one): frames and observations
    stay equal when every step is rendered."""
    skip_unless_oracle_frames()
    envs = _make_pool(task_id, num_envs=1, seed=2, render_mode="rgb_array", width=96, height=64)
    oracle = fetch_oracle.make(task_id, render_mode="rgb_array", width=96, height=64)
    envs.reset()
    oracle.reset(seed=2)
    rng = np.random.default_rng(3)
    for t in range(50):
        np.testing.assert_array_equal(envs.render()[0], oracle.render(), err_msg=f"step {t}")
        action = rng.uniform(-1, 1, size=(1, 4)).astype(np.float32)
        obs, reward, *_ = envs.step(action)
        theirs, their_reward, *_ = oracle.step(action[0])
        for key in ("observation", "achieved_goal", "desired_goal"):
            np.testing.assert_array_equal(obs[key][0], theirs[key], err_msg=f"{key}, step {t}")
        assert reward[0] == their_reward
    envs.close()
    oracle.close()
