"""gymnasium-robotics 1.4.2's Shadow Dexterous Hand tasks (cpp/envs/mujoco/robotics/hand/) against
gymnasium-robotics itself (robotics_oracle.py: the installed wheel, same libmujoco, the C
library's transcendental functions): from the same seeds, observations (every Dict entry),
rewards, terminations, truncations and ``is_success`` equal bit for bit over whole episodes of
every id, in every autoreset mode and through async send/recv; compute_reward over batches of
goals equals the oracle's; the legacy v0 ids are the modern tasks; frames equal the oracle's render()
pixel for pixel.
"""

from __future__ import annotations

import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before gymnasium's renderer imports mujoco.egl

import numpy as np
import pytest
from support.seeded_oracle import MODES, compare_seeded_runs

import envpool

from .fetch_oracle import ResetInfo
from .robotics_oracle import async_observations, load_robotics, make_oracle, skip_unless_oracle_frames

pytestmark = pytest.mark.skipif("HandReach-v3" not in envpool.list_all_envs(), reason="built without MuJoCo")

_MANIPULATE = [
    f"HandManipulate{name}"
    for obj, variants in (
        ("Block", ("RotateZ", "RotateParallel", "RotateXYZ", "Full", "")),
        ("Egg", ("Rotate", "Full", "")),
        ("Pen", ("Rotate", "Full", "")),
    )
    for variant in variants
    for name in [f"{obj}{variant}"]
    + ([f"{obj}{variant}_BooleanTouchSensors", f"{obj}{variant}_ContinuousTouchSensors"] if variant != "Full" else [])
]
MODERN_IDS = [f"HandReach{d}-v3" for d in ("", "Dense")] + [f"{n}{d}-v1" for n in _MANIPULATE for d in ("", "Dense")]


def _oracle(task_id: str, **kwargs):
    """One oracle env (gymnasium-robotics' time limit; ``is_success`` 0 in its reset info, as the
    pool's reset rows carry it)."""
    return ResetInfo(make_oracle(task_id, **kwargs))


def _make_pool(task_id, **kwargs):
    load_robotics()  # the model files are the oracle's wheel's; skips without it
    return envpool.make(task_id, **kwargs)


def test_every_gymnasium_robotics_hand_id_is_registered():
    load_robotics()
    import gymnasium

    theirs = {k for k, s in gymnasium.registry.items() if k.startswith("Hand") and "MujocoPy" not in s.entry_point}
    assert theirs == set(MODERN_IDS) and len(MODERN_IDS) == 56
    legacy = {k for k in gymnasium.registry if k.startswith("Hand") and k.endswith("-v0")}
    assert len(legacy) == 56 and legacy <= set(envpool.list_all_envs())


@pytest.mark.parametrize("task_id", MODERN_IDS)
def test_one_episode_of_every_id_matches_the_oracle(task_id):
    """Two envs over one whole episode and into the next (next-step autoreset), actions drawn
    in [-1.5, 1.5] (clipped to the box on both sides); every step's Dict, reward, flags and
    is_success, the truncation at gymnasium-robotics' time limit included."""
    n, seed = 2, 21
    ours = _make_pool(task_id, num_envs=n, seed=seed)
    refs = [_oracle(task_id) for _ in range(n)]
    limit = refs[0].spec.max_episode_steps
    assert envpool.make_spec(task_id).max_episode_steps == limit
    assert ours.single_observation_space == refs[0].observation_space
    assert ours.single_action_space == refs[0].action_space
    obs, _ = ours.reset()
    ref_obs = [r.reset(seed=seed + i)[0] for i, r in enumerate(refs)]
    rng = np.random.default_rng(1)
    done = [False] * n
    for t in range(limit + 3):
        for key in ("observation", "achieved_goal", "desired_goal"):
            np.testing.assert_array_equal(obs[key], np.stack([o[key] for o in ref_obs]), err_msg=f"{key}, step {t}")
        action = rng.uniform(-1.5, 1.5, size=(n, 20)).astype(np.float32)
        obs, reward, terminated, truncated, info = ours.step(action)
        for i, r in enumerate(refs):
            if done[i]:
                ref_obs[i], _ = r.reset()
                assert reward[i] == 0.0 and not truncated[i]
                done[i] = False
                continue
            ref_obs[i], their_reward, their_term, their_trunc, their_info = r.step(action[i])
            assert (reward[i], terminated[i], truncated[i]) == (their_reward, their_term, their_trunc), f"step {t}"
            assert info["is_success"][i] == their_info["is_success"]
            done[i] = their_term or their_trunc
        assert truncated.any() == (t == limit - 1), f"step {t}"
    ours.close()


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize(
    "task_id", ["HandReach-v3", "HandManipulateBlockRotateParallel-v1", "HandManipulatePen_BooleanTouchSensorsDense-v1"]
)
def test_whole_episodes_match_the_oracle_in_every_autoreset_mode(task_id, mode):
    """Random actions, four envs, an unseeded and a reseeding reset between episodes ended by
    the time limit (at least two per env)."""
    load_robotics()
    steps = 170 if "Reach" in task_id else 340
    ends = compare_seeded_runs(task_id, lambda: _oracle(task_id), mode, steps)
    assert ends.min() >= 2, ends


class _HoldInitialPose:
    """A HandReach policy that holds the fingertips where they start: each actuator's target
    joint angle (the coupled distal J0 added to J1, as hand_env.py's relative control adds it)
    pulled back to its value at reset by an integral term (the position servos alone sag under
    gravity), scaled into [-1, 1]."""

    def __init__(self, obs: dict):
        model = make_oracle("HandReach-v3").unwrapped.model
        names = [model.joint(j).name for j in range(model.njnt)]  # the observation's first 24
        self.joint, self.distal = [], []
        for i in range(20):
            name = model.actuator(i).name.replace(":A_", ":")
            self.joint.append(names.index(name))
            coupled = name[-2:] == "J1" and name[-4:-2] in ("FF", "MF", "RF", "LF")
            self.distal.append(names.index(name[:-1] + "0") if coupled else -1)
        lo, hi = model.actuator_ctrlrange.T
        self.centre, self.half = (hi + lo) / 2, (hi - lo) / 2
        self.initial = self._targets(obs["observation"][:, :24])
        self.action = (self.initial - self.centre) / self.half

    def _targets(self, qpos: np.ndarray) -> np.ndarray:
        targets = qpos[:, self.joint].copy()
        for i, j in enumerate(self.distal):
            if j >= 0:
                targets[:, i] += qpos[:, j]
        return targets

    def __call__(self, obs: dict | None) -> np.ndarray:
        if obs is not None:
            self.action += (self.initial - self._targets(obs["observation"][:, :24])) / self.half
        return np.clip(self.action, -1, 1).astype(np.float32)


def test_hand_reach_goals_at_the_initial_tips_are_reached_as_the_oracle_reaches_them():
    """One goal in ten is the initial fingertips: holding the initial pose reaches it (is_success
    1, sparse reward 0) in the pool and in the oracle alike; 32 envs cover both kinds of goal."""
    n, seed = 32, 3
    ours = _make_pool("HandReach-v3", num_envs=n, seed=seed)
    refs = [_oracle("HandReach-v3") for _ in range(n)]
    obs, _ = ours.reset()
    for i, r in enumerate(refs):
        r.reset(seed=seed + i)
    policy = _HoldInitialPose(obs)
    action, reached = policy(None), np.zeros(n, dtype=bool)
    for t in range(20):
        obs, reward, _, _, info = ours.step(action)
        steps = [r.step(action[i]) for i, r in enumerate(refs)]
        np.testing.assert_array_equal(obs["observation"], np.stack([s[0]["observation"] for s in steps]))
        np.testing.assert_array_equal(reward, [s[1] for s in steps], err_msg=f"step {t}")
        np.testing.assert_array_equal(info["is_success"], [s[4]["is_success"] for s in steps])
        np.testing.assert_array_equal(reward, np.where(info["is_success"] == 1.0, 0.0, -1.0))
        reached |= info["is_success"] == 1.0
        action = policy(obs)
    assert 1 <= reached.sum() < n, reached
    ours.close()


def _manipulate_goals(rng, shape, threshold):
    """Goal pairs around both thresholds: positions `threshold` +- 20% apart, rotations 0.1 rad
    +- 20% apart, in random directions and about random axes."""
    pos = rng.uniform(0.9, 1.1, size=(*shape, 3))
    direction = rng.normal(size=(*shape, 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    quat = rng.normal(size=(*shape, 4))
    quat /= np.linalg.norm(quat, axis=-1, keepdims=True)
    axis = rng.normal(size=(*shape, 3))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    half = rng.uniform(0.08, 0.12, size=(*shape, 1)) / 2
    turn = np.concatenate([np.cos(half), np.sin(half) * axis], axis=-1)
    w0, v0, w1, v1 = quat[..., :1], quat[..., 1:], turn[..., :1], turn[..., 1:]
    turned = np.concatenate([w0 * w1 - (v0 * v1).sum(-1, keepdims=True), w0 * v1 + w1 * v0 + np.cross(v0, v1)], -1)
    achieved = np.concatenate([pos, quat], axis=-1)
    desired = np.concatenate([pos + rng.uniform(0.8, 1.2, size=(*shape, 1)) * threshold * direction, turned], -1)
    return achieved, desired


def _oracle_rewards(task_id, oracle, achieved, desired):
    """The oracle's compute_reward of (3, 40) goal rows. Its rotations.quat_mul takes one goal or
    a 2-D batch, so the manipulation goals go in as (120, 7). Pen's batches go in row by row:
    _goal_distance's ``euler_a[2] = euler_b[2]`` (give quat_a the z angle of quat_b) replaces
    the third ROW of a batch instead, so upstream's batched Pen rewards are not its step rewards;
    ours are (docs/tasks.md)."""
    if "Reach" in task_id:
        return oracle.compute_reward(achieved, desired, {})
    a, d = achieved.reshape(-1, 7), desired.reshape(-1, 7)
    if "Pen" in task_id:
        return np.array([oracle.compute_reward(x, y, {}) for x, y in zip(a, d)]).reshape(3, 40)
    return oracle.compute_reward(a, d, {}).reshape(3, 40)


@pytest.mark.parametrize(
    "task_id",
    [
        "HandReach-v3",
        "HandReachDense-v3",
        "HandManipulateBlock-v1",
        "HandManipulateBlockDense-v1",
        "HandManipulateBlockRotateZ-v1",
        "HandManipulatePenRotateDense-v1",
        "HandManipulatePen_ContinuousTouchSensors-v1",
        "HandManipulateEgg-v0",
    ],
)
def test_compute_reward_over_batches_equals_the_oracle(task_id):
    """compute_reward / _terminated / _truncated over a (3, 40) batch of goals near the success
    thresholds (where sparse rewards flip) equal the oracle's env.unwrapped methods; relabelling
    the stepped goals gives the step rewards back."""
    envs = _make_pool(task_id, num_envs=2, seed=6)
    oracle = _oracle(task_id.replace("HandManipulateEgg-v0", "HandManipulateEgg-v1")).unwrapped
    rng = np.random.default_rng(0)
    if "Reach" in task_id:
        achieved = rng.uniform(0.8, 1.2, size=(3, 40, 15))
        direction = rng.normal(size=(3, 40, 15))
        direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
        desired = achieved + rng.uniform(0.008, 0.012, size=(3, 40, 1)) * direction
    else:
        achieved, desired = _manipulate_goals(rng, (3, 40), 0.05 if "Pen" in task_id else 0.01)
    ours = envs.compute_reward(achieved, desired, {})
    theirs = _oracle_rewards(task_id, oracle, achieved, desired)
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
        obs, reward, *_ = envs.step(rng.uniform(-1, 1, size=(2, 20)).astype(np.float32))
        np.testing.assert_array_equal(envs.compute_reward(obs["achieved_goal"], obs["desired_goal"], {}), reward)
    envs.close()


def test_async_batches_follow_each_envs_seed():
    """send/recv in batches of 2 of 4 envs: env i's observations are the oracle's env i's."""
    n, seed, steps, task_id = 4, 3, 40, "HandManipulateEggRotate-v1"
    ours = _make_pool(task_id, num_envs=n, batch_size=2, num_threads=2, seed=seed)
    refs = [_oracle(task_id) for _ in range(n)]
    actions = np.random.default_rng(2).uniform(-1, 1, size=(n, steps, 20)).astype(np.float32)
    expected = []
    for i, r in enumerate(refs):
        run = [r.reset(seed=seed + i)[0]["observation"]]
        run += [r.step(a)[0]["observation"] for a in actions[i]]
        expected.append(np.stack(run))
    got = async_observations(ours, actions, "observation")
    for i in range(n):
        np.testing.assert_array_equal(got[i], expected[i], err_msg=f"env {i}")


@pytest.mark.parametrize("modern", ["HandReach-v3", "HandManipulatePenRotate_BooleanTouchSensorsDense-v1"])
def test_legacy_ids_are_the_modern_tasks(modern):
    """The reference EnvPool's mujoco_py v0 ids make the modern tasks (mujoco_py cannot run here)."""
    legacy = modern.replace("-v3", "-v0").replace("-v1", "-v0")
    runs = []
    for tid in (modern, legacy):
        pool = _make_pool(tid, num_envs=2, seed=9)
        rng = np.random.default_rng(4)
        run = [pool.reset()[0]]
        run += [pool.step(rng.uniform(-1, 1, size=(2, 20)).astype(np.float32))[0] for _ in range(10)]
        runs.append(run)
        pool.close()
    for a, b in zip(*runs):
        for key in ("observation", "achieved_goal", "desired_goal"):
            np.testing.assert_array_equal(a[key], b[key])
    assert envpool.make_spec(legacy).max_episode_steps == envpool.make_spec(modern).max_episode_steps


@pytest.mark.parametrize(
    ("task_id", "kwargs"),
    [
        ("HandManipulateBlock-v1", {"target_rotation": "z", "target_position": "fixed"}),
        ("HandManipulateEgg_BooleanTouchSensors-v1", {"touch_get_obs": "log"}),
        ("HandReach-v3", {"reward_type": "dense"}),
    ],
)
def test_kwargs_match_the_oracle(task_id, kwargs):
    """gymnasium-robotics' kwargs the ids set, given other values."""
    load_robotics()
    ends = compare_seeded_runs(task_id, lambda: _oracle(task_id, **kwargs), MODES[0], 60, num_envs=2, **kwargs)
    assert ends.sum() == 0


def test_bad_kwargs_are_value_errors():
    with pytest.raises(ValueError, match=r"target_rotation must be 'xyz', 'z' or 'parallel', got 'fixed'"):
        envpool.make("HandManipulateBlock-v1", num_envs=1, target_rotation="fixed")
    with pytest.raises(ValueError, match=r"target_position must be 'ignore', 'fixed' or 'random', got 'near'"):
        envpool.make("HandManipulatePen-v1", num_envs=1, target_position="near")
    with pytest.raises(ValueError, match=r"touch_get_obs must be 'sensordata', 'boolean' or 'log', got 'raw'"):
        envpool.make("HandManipulateEgg_ContinuousTouchSensors-v1", num_envs=1, touch_get_obs="raw")
    with pytest.raises(ValueError, match=r"reward_type must be 'sparse' or 'dense', got 'shaped'"):
        envpool.make("HandReach-v3", num_envs=1, reward_type="shaped")
    with pytest.raises(ValueError, match=r"touch_get_obs"):  # only the touch variants have it
        envpool.make("HandManipulateEgg-v1", num_envs=1, touch_get_obs="boolean")


@pytest.mark.parametrize(
    "task_id", ["HandReach-v3", "HandManipulateBlock_ContinuousTouchSensors-v1", "HandManipulatePenRotate-v1"]
)
def test_frames_equal_gymnasium_robotics_with_every_step_rendered(task_id):
    """Frames from hand_env.py's DEFAULT_CAMERA_CONFIG after upstream's _render_callback (target
    sites / the target object at the goal, touch sites coloured by contact) equal the oracle's
    pixel for pixel, every step of 30 rendered; the callback's changes to the model and the
    target object's state keep the observations equal too. 480 x 480 at reset, then 96 x 64."""
    skip_unless_oracle_frames()
    for size, steps in (({}, 1), ({"width": 96, "height": 64}, 30)):
        envs = _make_pool(task_id, num_envs=1, seed=2, render_mode="rgb_array", **size)
        oracle = _oracle(task_id, render_mode="rgb_array", **size)
        envs.reset()
        oracle.reset(seed=2)
        rng = np.random.default_rng(3)
        for t in range(steps):
            frame = envs.render()[0]
            assert frame.shape == (size.get("height", 480), size.get("width", 480), 3)
            np.testing.assert_array_equal(frame, oracle.render(), err_msg=f"step {t}")
            action = rng.uniform(-1, 1, size=(1, 20)).astype(np.float32)
            obs, reward, *_ = envs.step(action)
            theirs, their_reward, *_ = oracle.step(action[0])
            for key in ("observation", "achieved_goal", "desired_goal"):
                np.testing.assert_array_equal(obs[key][0], theirs[key], err_msg=f"{key}, step {t}")
            assert reward[0] == their_reward
        envs.close()
        oracle.close()
