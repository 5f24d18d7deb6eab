"""gymnasium-robotics 1.4.2's Adroit hand tasks (cpp/envs/mujoco/robotics/adroit/) against
gymnasium-robotics itself (robotics_oracle.py: the installed wheel, same libmujoco, the C
library's transcendental functions): from the same seeds, observations, rewards, terminations,
truncations and ``success`` equal bit for bit over whole 200-step episodes with random actions in
every autoreset mode, through states where each task succeeds (set on both sides with
``set_state``, so that the dense rewards' bonus branches and the sparse 10 run), and through
async send/recv. Frames (render_mode="rgb_array", both sides MuJoCo's renderer in an EGL context)
equal the oracle's pixel for pixel.

Two test-side adjustments of the oracle's info (``OracleInfo``), neither in the package: its reset
info is empty, while the pool's rows always carry ``success``, False on a reset row
(docs/tasks.md); and Door, Hammer and Pen give ``success`` as a ``numpy.bool_`` (Relocate as a
Python bool), which gymnasium's SyncVectorEnv stacks into an object array of numpy bools rather
than the bool array it makes of Python bools: the same values, given here as Python bools.
"""

from __future__ import annotations

import importlib.util
import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before gymnasium's renderer imports mujoco.egl

import gymnasium
import numpy as np
import pytest
from support.seeded_oracle import MODES, compare_seeded_runs

import envpool

from . import fetch_oracle
from .robotics_oracle import async_observations

pytestmark = pytest.mark.skipif("AdroitHandDoor-v1" not in envpool.list_all_envs(), reason="built without MuJoCo")

TASKS = ("Door", "Hammer", "Pen", "Relocate")
IDS = [f"AdroitHand{task}{sparse}-v1" for task in TASKS for sparse in ("", "Sparse")]


class OracleInfo(gymnasium.Wrapper):
    """The oracle with ``success`` = False in its reset info, as the pool's reset rows, and its
    step's ``success`` (a bool or numpy bool) as a Python bool."""

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs, {"success": False, **info}

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        assert isinstance(info["success"], (bool, np.bool_)), type(info["success"])
        return obs, reward, terminated, truncated, {**info, "success": bool(info["success"])}


def _oracle(task_id: str, **kwargs) -> gymnasium.Env:
    fetch_oracle.load()  # rotations.py (Hammer's quat2euler) with the C library's atan2 too
    return OracleInfo(fetch_oracle.make_oracle(task_id, **kwargs))


def _make_pool(task_id, **kwargs):
    fetch_oracle.load()  # the model files are the oracle's wheel's; skips without it
    return envpool.make(task_id, **kwargs)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("task_id", IDS)
def test_whole_episodes_match_the_oracle(task_id, mode):
    """Random actions over 630 steps (an unseeded reset at step 210, a reseeding one at 420; the
    200-step time limit ends the episodes begun at 0 and at 420), three envs."""
    fetch_oracle.load()
    ends = compare_seeded_runs(task_id, lambda: _oracle(task_id), mode, 630, num_envs=3)
    assert ends.min() >= 2, ends  # time-limit truncations were compared


def _success_state(task_id: str, oracle) -> np.ndarray:
    """A (qpos, qvel) state of the oracle's current episode in which the task succeeds: the door
    hinge at 1.45 (success from 1.35), the nail driven to its goal, the ball moved onto its
    target, the pen turned (a grid search over two of its hinges) toward its target's
    orientation; velocities zero."""
    import mujoco

    env = oracle.unwrapped
    model, data = env.model, env.data
    qpos, qvel = data.qpos.copy(), np.zeros(model.nv)
    if "Door" in task_id:
        qpos[env.door_hinge_addrs] = 1.45
    elif "Hammer" in task_id:
        qpos[model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "nail_dir")]] = 0.09
    elif "Relocate" in task_id:
        qpos[-6:-3] += data.site_xpos[env.target_obj_site_id] - data.xpos[env.obj_body_id]
    else:

        def similarity(rx, ry):
            q = qpos.copy()
            q[-3:] = (rx, ry, 0.0)
            env.set_state(q, qvel)
            top, bottom = data.site_xpos[env.obj_t_site_id], data.site_xpos[env.obj_b_site_id]
            target = (data.site_xpos[env.tar_t_site_id] - data.site_xpos[env.tar_b_site_id]) / env.tar_length
            return float((top - bottom) / env.pen_length @ target)

        grid = np.linspace(-3.0, 3.0, 25)
        _, rx, ry = max((similarity(a, b), a, b) for a in grid for b in grid)
        qpos[-3:] = (rx, ry, 0.0)
    return np.concatenate([qpos, qvel])


@pytest.mark.parametrize("task_id", IDS)
def test_success_paths_match_the_oracle(task_id):
    """Both sides put into a state where the task succeeds (pool.set_state, the oracle's
    set_state), then stepped with small random actions: success, the dense rewards' bonus
    branches and the sparse 10 equal the oracle's, and success is seen."""
    n, seed = 2, 21
    ours = _make_pool(task_id, num_envs=n, seed=seed)
    refs = [_oracle(task_id) for _ in range(n)]
    ours.reset()
    for i, r in enumerate(refs):
        r.reset(seed=seed + i)
    rng = np.random.default_rng(5)
    nu = ours.single_action_space.shape[0]
    seen = 0
    for t in range(30):
        if t % 10 == 2:
            for i, r in enumerate(refs):
                state = _success_state(task_id, r)
                ours.set_state(i, state)
                r.unwrapped.set_state(state[: r.unwrapped.model.nq], state[r.unwrapped.model.nq :])
        action = rng.uniform(-0.05, 0.05, size=(n, nu)).astype(np.float32)
        obs, reward, terminated, truncated, info = ours.step(action)
        steps = [r.step(action[i]) for i, r in enumerate(refs)]
        np.testing.assert_array_equal(obs, np.stack([s[0] for s in steps]), err_msg=f"obs, step {t}")
        np.testing.assert_array_equal(reward, np.array([s[1] for s in steps], dtype=np.float64), err_msg=f"step {t}")
        np.testing.assert_array_equal(info["success"], [bool(s[4]["success"]) for s in steps], err_msg=f"step {t}")
        assert info["success"].dtype == np.bool_
        assert not terminated.any() and not truncated.any()
        seen += int(info["success"].sum())
        if "Sparse" in task_id:
            np.testing.assert_array_equal(reward, np.where(info["success"], 10.0, -0.1))
    assert seen >= n, f"{seen} successful steps"
    ours.close()


@pytest.mark.parametrize("task_id", IDS)
def test_spaces_and_limits_match_the_oracle(task_id):
    ours = _make_pool(task_id, num_envs=1)
    ref = _oracle(task_id)
    assert ours.single_observation_space == ref.observation_space
    assert ours.single_action_space == ref.action_space
    assert envpool.make_spec(task_id).max_episode_steps == ref.spec.max_episode_steps == 200
    assert ours.metadata["render_fps"] == ref.metadata["render_fps"] == 100


def test_reward_type_kwarg_and_bad_kwargs():
    """reward_type picks the reward as upstream (any case); a Dense id made sparse is the sparse
    id; anything else is a ValueError at make naming the key."""
    runs = []
    for task_id, kwargs in (("AdroitHandPen-v1", {"reward_type": "SPARSE"}), ("AdroitHandPenSparse-v1", {})):
        pool = _make_pool(task_id, num_envs=1, seed=3, **kwargs)
        pool.reset()
        runs.append([pool.step(np.full((1, 24), 0.2, dtype=np.float32))[1][0] for _ in range(5)])
    assert runs[0] == runs[1] and set(runs[0]) <= {10.0, -0.1}
    with pytest.raises(ValueError, match=r"reward_type must be 'dense' or 'sparse', got 'shaped'"):
        envpool.make("AdroitHandDoor-v1", num_envs=1, reward_type="shaped")
    with pytest.raises(ValueError, match=r"distance_threshold.*reward_type"):
        envpool.make("AdroitHandDoor-v1", num_envs=1, distance_threshold=0.1)
    with pytest.raises(ValueError, match="initial_state_dict"):  # upstream's reset option, not the pool's
        _make_pool("AdroitHandDoor-v1", num_envs=1).reset(options={"initial_state_dict": {}})
    with pytest.raises(ValueError, match="not a goal-conditioned task"):
        _make_pool("AdroitHandDoor-v1", num_envs=1).compute_reward(np.zeros(3), np.zeros(3))


def test_actions_outside_the_box_are_clipped_as_upstream():
    n, seed = 2, 5
    ours = _make_pool("AdroitHandRelocate-v1", num_envs=n, seed=seed)
    refs = [_oracle("AdroitHandRelocate-v1") for _ in range(n)]
    ours.reset()
    for i, r in enumerate(refs):
        r.reset(seed=seed + i)
    rng = np.random.default_rng(0)
    for t in range(20):
        action = rng.uniform(-3, 3, size=(n, 30)).astype(np.float32)
        obs, reward, *_ = ours.step(action)
        steps = [r.step(action[i]) for i, r in enumerate(refs)]
        np.testing.assert_array_equal(obs, np.stack([s[0] for s in steps]), err_msg=f"step {t}")
        np.testing.assert_array_equal(reward, [s[1] for s in steps])


def _skip_without_egl():
    if os.environ["MUJOCO_GL"] != "egl" or importlib.util.find_spec("OpenGL") is None:
        pytest.skip(f"frames are compared in EGL contexts with PyOpenGL (MUJOCO_GL={os.environ['MUJOCO_GL']})")


@pytest.mark.parametrize("task", TASKS)
def test_frames_equal_gymnasium_robotics(task):
    """Frames from each task's DEFAULT_CAMERA_CONFIG (480 x 480 for Door, smaller for the others),
    after the reset's placement and after random steps."""
    _skip_without_egl()
    task_id = f"AdroitHand{task}-v1"
    size = {} if task == "Door" else {"width": 120, "height": 96}
    envs = _make_pool(task_id, num_envs=1, seed=8, render_mode="rgb_array", **size)
    oracle = _oracle(task_id, render_mode="rgb_array", **size)
    envs.reset()
    oracle.reset(seed=8)
    frame = envs.render()[0]
    assert frame.shape == ((480, 480, 3) if task == "Door" else (96, 120, 3))
    np.testing.assert_array_equal(frame, oracle.render())
    rng = np.random.default_rng(1)
    for _ in range(15):
        action = rng.uniform(-1, 1, size=(1, envs.single_action_space.shape[0])).astype(np.float32)
        envs.step(action)
        oracle.step(action[0])
    np.testing.assert_array_equal(envs.render()[0], oracle.render())
    envs.close()
    oracle.close()


def test_async_batches_follow_each_envs_seed():
    """send/recv in batches of 2 of 4 envs (two threads, each env its own model copy): env i's
    observations are the oracle's env i's."""
    n, seed, steps = 4, 3, 40
    ours = _make_pool("AdroitHandHammer-v1", num_envs=n, batch_size=2, num_threads=2, seed=seed)
    refs = [_oracle("AdroitHandHammer-v1") for _ in range(n)]
    actions = np.random.default_rng(2).uniform(-1, 1, size=(n, steps, 26)).astype(np.float32)
    expected = []
    for i, r in enumerate(refs):
        run = [r.reset(seed=seed + i)[0]]
        run += [r.step(a)[0] for a in actions[i]]
        expected.append(np.stack(run))
    got = async_observations(ours, actions)
    for i in range(n):
        np.testing.assert_array_equal(got[i], expected[i], err_msg=f"env {i}")
