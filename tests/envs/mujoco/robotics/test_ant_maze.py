"""AntMaze v5 / v4 / v3 (cpp/envs/mujoco/robotics/maze/ant_maze.h) against gymnasium-robotics 1.4.2.

As test_maze.py does for PointMaze: from the same seeds, observations (every Dict entry),
rewards, terminated, truncated and every info key the oracle gives (the Ant's, ``success``)
equal bit for bit, briefly on all 60 ids and over whole episodes on a sample. The ant does not
reach goals under random actions, so the goal rules (termination, v4 / v5's redraw loop with
reset_target, v3's one redraw inside compute_terminated, whose reward is then the new goal's)
are reached by putting the ant next to its goal on both sides (``set_state``). Frames equal the
oracle's render() pixel for pixel.
"""

from __future__ import annotations

import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before gymnasium's renderer imports mujoco.egl

import numpy as np
import pytest

import envpool

from .robotics_oracle import assert_obs_equal, load_robotics, make_oracle, skip_unless_oracle_frames
from .test_maze import MAPS, _row, assert_info_equal, run_against_oracle

VERSIONS = ("v3", "v4", "v5")
IDS = [f"AntMaze_{name}{suffix}-{v}" for v in VERSIONS for suffix in ("", "Dense") for name, _, _ in MAPS]

pytestmark = pytest.mark.skipif(
    "AntMaze_UMaze-v5" not in envpool.list_all_envs(), reason="envpool was built without the MuJoCo headers"
)


@pytest.mark.parametrize("task_id", IDS)
def test_every_id_matches_gymnasium_robotics(task_id):
    load_robotics()
    run_against_oracle(task_id, steps=12, seed=3)


def test_ids_limits_and_spaces_are_gymnasium_robotics():
    import gymnasium

    load_robotics()
    for task_id in IDS:
        spec = envpool.make_spec(task_id)
        theirs = gymnasium.spec(task_id)
        assert spec.max_episode_steps == theirs.max_episode_steps, task_id
        assert spec.config["reward_type"] == theirs.kwargs["reward_type"]
        assert spec.config["maze_map"] == ["".join(str(c) for c in row) for row in theirs.kwargs["maze_map"]]
    for v in VERSIONS:
        oracle = make_oracle(f"AntMaze_UMaze-{v}")
        spec = envpool.make_spec(f"AntMaze_UMaze-{v}")
        assert spec.observation_space == oracle.observation_space
        assert spec.action_space == oracle.action_space
        assert spec.render_fps == oracle.metadata["render_fps"]
        oracle.close()


@pytest.mark.parametrize("task_id", ["AntMaze_UMazeDense-v5", "AntMaze_Medium_Diverse_GR-v4", "AntMaze_OpenDense-v3"])
def test_whole_episodes(task_id):
    load_robotics()
    counts = run_against_oracle(task_id, steps=1005, seed=12, num_envs=1)
    assert counts["truncated"] >= 1


@pytest.mark.parametrize(
    ("task_id", "kwargs"),
    [
        ("AntMaze_Open_Diverse_GR-v5", {"continuing_task": False}),
        ("AntMaze_Open_Diverse_GRDense-v5", {"reset_target": True}),
        ("AntMaze_Open_Diverse_GR-v4", {"reset_target": True, "use_contact_forces": True}),
        ("AntMaze_Open_Diverse_GRDense-v3", {}),
        ("AntMaze_Open_Diverse_GR-v3", {"continuing_task": False}),
    ],
)
def test_goals_reached_with_the_ant_moved_next_to_them(task_id, kwargs):
    load_robotics()
    envs = envpool.make(task_id, num_envs=1, seed=5, autoreset_mode="disabled", **kwargs)
    oracle = make_oracle(task_id, **kwargs)
    obs, _ = envs.reset()
    oracle.reset(seed=5)
    ant = oracle.unwrapped.ant_env
    rng = np.random.default_rng(1)
    ended, goals = 0, set()
    for t in range(120):
        if t % 10 == 5:  # the ant's torso 0.2 from its goal, on both sides
            goal = oracle.unwrapped.goal
            qpos, qvel = ant.data.qpos.copy(), ant.data.qvel.copy()
            qpos[:2] = goal + [0.2, 0.0]
            ant.set_state(qpos, qvel)
            state = envs.get_state(0)
            state[:2] = qpos[:2]
            envs.set_state(0, state)
        action = rng.uniform(-1, 1, size=(1, 8)).astype(np.float32)
        obs, reward, terminated, truncated, info = envs.step(action)
        o, r, te, tr, inf = oracle.step(action[0])
        where = f"{task_id} step {t}"
        assert_obs_equal(_row(obs, 0), o, where)
        assert (reward[0], terminated[0], truncated[0]) == (r, te, tr), where
        assert_info_equal(info, 0, inf, where)
        goals.add(tuple(oracle.unwrapped.goal))
        if te or tr:
            ended += 1
            obs, info = envs.reset()
            o, inf = oracle.reset()
            assert_obs_equal(_row(obs, 0), o, f"{where} reset")
    if kwargs.get("continuing_task", True):
        assert ended == 0 and len(goals) >= 5  # each visit replaced the goal
    else:
        assert ended >= 5


@pytest.mark.parametrize(
    ("task_id", "kwargs", "message"),
    [
        ("AntMaze_UMaze-v3", {"reset_target": True}, "reset_target"),  # maze.MazeEnv has none
        ("AntMaze_UMaze-v4", {"frame_skip": 2}, "frame_skip"),  # ant_v4 fixes it
        ("AntMaze_UMaze-v4", {"default_camera_config": {"distance": 9.0}}, "default_camera_config"),
        ("AntMaze_UMaze-v5", {"reward_type": "Dense"}, "reward_type must be 'sparse' or 'dense'"),
        ("AntMaze_UMaze-v5", {"maze_map": [[1, 1, 1], [1, 1, 1]]}, "maze_map has no cell a goal"),
        ("AntMaze_UMaze-v5", {"healthy_z_range": [0.2]}, "healthy_z_range must have 2 values"),
        ("AntMaze_UMaze-v5", {"main_body": "leg"}, "leg"),
        ("AntMaze_UMaze-v5", {"frame_skip": 2**31}, "frame_skip must be >= 1 and at most 2147483647"),
        (
            "AntMaze_UMaze-v5",
            {"xml_file": "/nonexistent/ant.xml"},
            "xml_file: File /nonexistent/ant.xml does not exist",
        ),
    ],
)
def test_bad_kwargs_are_value_errors_at_make(task_id, kwargs, message):
    with pytest.raises(ValueError, match=message):
        envpool.make(task_id, num_envs=1, **kwargs)


@pytest.mark.parametrize("task_id", ["AntMaze_Medium-v5", "AntMaze_UMaze-v3"])
def test_frames_equal_gymnasium_robotics(task_id):
    skip_unless_oracle_frames()
    load_robotics()
    envs = envpool.make(task_id, num_envs=1, seed=4, render_mode="rgb_array")
    oracle = make_oracle(task_id, render_mode="rgb_array")
    envs.reset()
    oracle.reset(seed=4)
    np.testing.assert_array_equal(envs.render()[0], oracle.render())
    rng = np.random.default_rng(2)
    for _ in range(20):
        action = rng.uniform(-1, 1, size=(1, 8)).astype(np.float32)
        envs.step(action)
        oracle.step(action[0])
    np.testing.assert_array_equal(envs.render()[0], oracle.render())
    envs.close()
    oracle.close()


@pytest.mark.parametrize("task_id", ["AntMaze_UMazeDense-v5", "AntMaze_UMaze-v4", "AntMaze_UMazeDense-v3"])
def test_compute_reward_over_batches_equals_the_oracle(task_id):
    load_robotics()
    oracle = make_oracle(task_id, continuing_task=False).unwrapped
    envs = envpool.make(task_id, num_envs=1, continuing_task=False)
    rng = np.random.default_rng(3)
    achieved = rng.uniform(-8, 8, size=(4, 60, 2))
    desired = achieved + rng.uniform(-0.6, 0.6, size=(4, 60, 2))
    np.testing.assert_array_equal(
        envs.compute_reward(achieved, desired, {}), oracle.compute_reward(achieved, desired, {})
    )
    flat = zip(achieved.reshape(-1, 2), desired.reshape(-1, 2))
    terminated = envs.compute_terminated(achieved, desired).reshape(-1).tolist()
    assert terminated == [oracle.compute_terminated(a, d, {}) for a, d in flat]
    assert 0 < sum(terminated) < len(terminated)
    envs.close()
