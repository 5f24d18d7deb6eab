"""gymnasium-robotics 1.4.2's FrankaKitchen-v1 (cpp/envs/mujoco/robotics/kitchen/) against
gymnasium-robotics itself (robotics_oracle.py: the installed wheel, same libmujoco): from the same
seeds, observations (every goal entry and ``observation``, noise included), rewards, terminated,
truncated and the three task-list infos equal bit for bit over whole 280-step episodes (random
actions, every autoreset mode), through states where tasks are completed (set on both sides with
``set_state``: the reward's count, the removal of completed tasks, termination), with each kwarg.
Frames equal the oracle's render() pixel for pixel.

The oracle goes through one test-side adapter, ``FlatKitchen`` (not in the package), which turns
its output into the pool's documented form (docs/tasks.md): the goal dicts as flat
``"achieved_goal/<task>"`` / ``"desired_goal/<task>"`` entries, and the info lists of task names as
bool masks over the kitchen's seven tasks (in ``TASKS`` order). The lists' order is not compared:
upstream builds them from a Python ``set`` of strings, whose order changes with the process'
string hash seed.
"""

from __future__ import annotations

import importlib.util
import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before gymnasium's renderer imports mujoco.egl

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from support.seeded_oracle import MODES, compare_seeded_runs

import envpool

from . import fetch_oracle

pytestmark = pytest.mark.skipif("FrankaKitchen-v1" not in envpool.list_all_envs(), reason="built without MuJoCo")

TASKS = ["bottom burner", "top burner", "light switch", "slide cabinet", "hinge cabinet", "microwave", "kettle"]
INFO_LISTS = ("tasks_to_complete", "step_task_completions", "episode_task_completions")


class FlatKitchen(gymnasium.Wrapper):
    """The oracle's observations with flat goal keys and its task lists as masks (see above)."""

    def __init__(self, env):
        super().__init__(env)
        space = env.observation_space
        flat = {"observation": space["observation"]}
        for which in ("achieved_goal", "desired_goal"):
            for task, box in space[which].items():
                flat[f"{which}/{task}"] = box
        self.observation_space = spaces.Dict(flat)

    @staticmethod
    def _obs(obs):
        flat = {"observation": obs["observation"]}
        for which in ("achieved_goal", "desired_goal"):
            for task, value in obs[which].items():
                flat[f"{which}/{task}"] = np.array(value, dtype=np.float64)
        return flat

    @staticmethod
    def _info(info):
        out = dict(info)
        for key in INFO_LISTS:
            names = info[key]
            assert isinstance(names, list) and len(set(names)) == len(names), (key, names)
            out[key] = np.array([task in names for task in TASKS])
        return out

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return self._obs(obs), self._info(info)

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._obs(obs), reward, terminated, truncated, self._info(info)


def _oracle(**kwargs) -> gymnasium.Env:
    fetch_oracle.load()
    return FlatKitchen(fetch_oracle.make_oracle("FrankaKitchen-v1", **kwargs))


def _make_pool(**kwargs):
    fetch_oracle.load()  # the model files are the oracle's wheel's; skips without it
    return envpool.make("FrankaKitchen-v1", **kwargs)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_whole_episodes_match_the_oracle(mode):
    """Random actions over 870 steps (an unseeded reset at step 290, a reseeding one at 580; the
    280-step time limit ends the episodes begun at 0 and at 580), two envs."""
    ends = compare_seeded_runs("FrankaKitchen-v1", _oracle, mode, 870, num_envs=2)
    assert ends.min() >= 2, ends


KWARGS = [
    {},
    {"tasks_to_complete": ["microwave", "kettle"], "robot_noise_ratio": 0.05, "object_noise_ratio": 0.0},
    {"tasks_to_complete": ["kettle", "light switch", "kettle"], "remove_task_when_completed": False},
    {"tasks_to_complete": ["slide cabinet", "hinge cabinet"], "terminate_on_tasks_completed": False},
]


def _completing(qpos: np.ndarray, tasks: list[str]) -> np.ndarray:
    """qpos with the given tasks' elements at their goals (kitchen_env.py's OBS_ELEMENT_*)."""
    from gymnasium_robotics.envs.franka_kitchen import kitchen_env

    qpos = qpos.copy()
    for task in tasks:
        qpos[kitchen_env.OBS_ELEMENT_INDICES[task]] = kitchen_env.OBS_ELEMENT_GOALS[task]
    return qpos


@pytest.mark.parametrize("kwargs", KWARGS, ids=lambda k: ",".join(k) or "defaults")
def test_completed_tasks_match_the_oracle(kwargs):
    """Tasks completed one group at a time (their elements set at the goal on both sides, then
    stepped): rewards count them, the masks, the removal and the termination equal the oracle's;
    some step completes a task."""
    n, seed = 2, 4
    ours = _make_pool(num_envs=n, seed=seed, autoreset_mode=AutoresetMode.DISABLED, **kwargs)
    refs = [_oracle(**kwargs) for _ in range(n)]
    ours.reset()
    for i, r in enumerate(refs):
        r.reset(seed=seed + i)
    rng = np.random.default_rng(2)
    groups = {5: ["microwave", "slide cabinet"], 12: ["kettle"], 20: TASKS}
    total, terminations = 0.0, 0
    for t in range(30):
        if t in groups:
            for i, r in enumerate(refs):
                robot = r.unwrapped.robot_env
                state = np.concatenate([_completing(robot.data.qpos, groups[t]), robot.data.qvel])
                ours.set_state(i, state)
                robot.set_state(state[: robot.model.nq], state[robot.model.nq :])
        action = rng.uniform(-0.1, 0.1, size=(n, 9))
        obs, reward, terminated, truncated, info = ours.step(action)
        steps = [r.step(action[i]) for i, r in enumerate(refs)]
        for key in obs:
            np.testing.assert_array_equal(obs[key], np.stack([s[0][key] for s in steps]), err_msg=f"{key}, step {t}")
        np.testing.assert_array_equal(reward, [s[1] for s in steps], err_msg=f"step {t}")
        np.testing.assert_array_equal(terminated, [s[2] for s in steps], err_msg=f"step {t}")
        np.testing.assert_array_equal(truncated, [s[3] for s in steps], err_msg=f"step {t}")
        for key in INFO_LISTS:
            np.testing.assert_array_equal(info[key], np.stack([s[4][key] for s in steps]), err_msg=f"{key}, {t}")
        total += reward.sum()
        terminations += int(terminated.sum())
        if terminated.any():
            done = terminated | truncated
            ours.reset(options={"reset_mask": done})
            for i in np.flatnonzero(done):
                refs[i].reset()
    assert total > 0
    assert (terminations > 0) == kwargs.get("terminate_on_tasks_completed", True), terminations


def test_spaces_limits_and_info_forms():
    ours = _make_pool(num_envs=2, tasks_to_complete=["microwave", "kettle"])
    ref = _oracle(tasks_to_complete=["microwave", "kettle"])
    assert ours.single_observation_space == ref.observation_space
    assert set(ours.single_observation_space) == {
        "observation",
        "achieved_goal/kettle",
        "achieved_goal/microwave",
        "desired_goal/kettle",
        "desired_goal/microwave",
    }
    assert ours.single_action_space == ref.action_space == spaces.Box(-1.0, 1.0, (9,), np.float64)
    assert envpool.make_spec("FrankaKitchen-v1").max_episode_steps == ref.spec.max_episode_steps == 280
    assert ours.metadata["render_fps"] == ref.unwrapped.metadata["render_fps"] == 12
    obs, info = ours.reset()
    np.testing.assert_array_equal(obs["desired_goal/kettle"][0], [-0.23, 0.75, 1.62, 0.99, 0.0, 0.0, -0.06])
    masks = info["tasks_to_complete"]
    assert masks.shape == (2, 7) and masks.dtype == np.bool_
    assert [TASKS[k] for k in np.flatnonzero(masks[0])] == ["microwave", "kettle"]


def test_bad_kwargs_are_value_errors_at_make():
    with pytest.raises(ValueError, match=r"tasks_to_complete: the kitchen has no task 'toaster'"):
        _make_pool(num_envs=1, tasks_to_complete=["microwave", "toaster"])
    with pytest.raises(ValueError, match=r"tasks_to_complete: give at least one"):
        _make_pool(num_envs=1, tasks_to_complete=[])
    with pytest.raises(ValueError, match=r"'tasks_to_complete' must be"):
        _make_pool(num_envs=1, tasks_to_complete="microwave")
    with pytest.raises(ValueError, match="not a goal-conditioned task"):
        _make_pool(num_envs=1).compute_reward(np.zeros(1), np.zeros(1))


def test_frames_equal_gymnasium_robotics():
    """Frames from franka_env.py's DEFAULT_CAMERA_CONFIG (160 x 120 here) after the reset and
    after random steps, pixel for pixel (both sides MuJoCo's renderer in an EGL context)."""
    if os.environ.get("MUJOCO_GL") != "egl" or importlib.util.find_spec("OpenGL") is None:
        pytest.skip(f"frames are compared in EGL contexts with PyOpenGL (MUJOCO_GL={os.environ.get('MUJOCO_GL')})")
    envs = _make_pool(num_envs=1, seed=8, render_mode="rgb_array", width=160, height=120)
    oracle = _oracle(render_mode="rgb_array", width=160, height=120)
    envs.reset()
    oracle.reset(seed=8)
    frame = envs.render()[0]
    assert frame.shape == (120, 160, 3)
    np.testing.assert_array_equal(frame, oracle.render())
    rng = np.random.default_rng(1)
    for _ in range(5):
        action = rng.uniform(-1, 1, size=(1, 9))
        envs.step(action)
        oracle.step(action[0])
    np.testing.assert_array_equal(envs.render()[0], oracle.render())
    envs.close()
    oracle.close()
