"""PointMaze (cpp/envs/mujoco/robotics/maze) against gymnasium-robotics 1.4.2 itself, same libmujoco.

From the same seeds (our env i of a pool made with ``seed=s`` is gymnasium-robotics' env reset
with ``seed=s + i``, later resets continuing its stream), every Dict entry of the observations,
the rewards, terminated, truncated and ``success`` are compared bit for bit, step by step:
briefly on every id, over whole episodes (time limits, autoresets, goals reached and redrawn)
on a sample, under random actions (beyond the action box, pushing into walls and up to the
velocity clip) and a policy that steers the ball to its goal. ``compute_reward`` & co. over
batches equal the oracle's. Frames (render_mode="rgb_array", both sides MuJoCo's renderer in
an EGL context) equal the oracle's pixel for pixel, the target site following the goal.
"""

from __future__ import annotations

import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before gymnasium's renderer imports mujoco.egl

import numpy as np
import pytest

import envpool

from .robotics_oracle import assert_obs_equal, load_robotics, make_oracle, skip_unless_oracle_frames

MAPS = [
    ("UMaze", "U_MAZE", 300),
    ("Open", "OPEN", 300),
    ("Open_Diverse_G", "OPEN_DIVERSE_G", 300),
    ("Open_Diverse_GR", "OPEN_DIVERSE_GR", 300),
    ("Medium", "MEDIUM_MAZE", 600),
    ("Medium_Diverse_G", "MEDIUM_MAZE_DIVERSE_G", 600),
    ("Medium_Diverse_GR", "MEDIUM_MAZE_DIVERSE_GR", 600),
    ("Large", "LARGE_MAZE", 800),
    ("Large_Diverse_G", "LARGE_MAZE_DIVERSE_G", 800),
    ("Large_Diverse_GR", "LARGE_MAZE_DIVERSE_GR", 800),
]
IDS = [f"PointMaze_{name}{suffix}-v3" for suffix in ("", "Dense") for name, _, _ in MAPS]

pytestmark = pytest.mark.skipif(
    "PointMaze_UMaze-v3" not in envpool.list_all_envs(), reason="envpool was built without the MuJoCo headers"
)


def _random_actions(rng: np.random.Generator, steps: int, num_envs: int, size: int = 2) -> np.ndarray:
    """Uniform in [-1.5, 1.5] (beyond the box: both sides clip) around a push held for 40 steps,
    which drives the ball into walls and up to the velocity clip."""
    pushes = rng.choice([-1.0, 1.0], size=(steps // 40 + 1, num_envs, size)).repeat(40, axis=0)[:steps]
    return (0.8 * pushes + rng.uniform(-0.7, 0.7, size=(steps, num_envs, size))).astype(np.float32)


def assert_info_equal(ours: dict, i: int, theirs: dict, where: str) -> None:
    """Every info key the oracle gives (``success``, the Ant's), equal."""
    for key, value in theirs.items():
        assert ours[key][i] == value, f"{where}: info[{key!r}] {ours[key][i]} != {value}"


def _steer(obs: dict) -> np.ndarray:
    """A PD controller towards the goal (reaches it in the open mazes)."""
    pos, vel = obs["observation"][..., :2], obs["observation"][..., 2:]
    return np.clip(2.0 * (obs["desired_goal"] - pos) - 0.5 * vel, -1, 1).astype(np.float32)


def _row(batch: dict, i: int) -> dict:
    return {key: value[i] for key, value in batch.items()}


def run_against_oracle(task_id: str, steps: int, seed: int, num_envs: int = 2, policy: str = "random", **kwargs):
    """Steps a pool (next-step autoreset) and gymnasium-robotics' envs side by side; returns how
    many episodes ended (terminated, truncated) and steps were successes, for the callers'
    checks that the runs covered what they are meant to."""
    envs = envpool.make(task_id, num_envs=num_envs, seed=seed, **kwargs)
    oracles = [make_oracle(task_id, **kwargs) for _ in range(num_envs)]
    obs, info = envs.reset()
    theirs = [oracle.reset(seed=seed + i) for i, oracle in enumerate(oracles)]
    for i, (o, inf) in enumerate(theirs):
        assert_obs_equal(_row(obs, i), o, f"{task_id} env {i} reset")
        assert_info_equal(info, i, inf, f"{task_id} env {i} reset")
    actions = _random_actions(np.random.default_rng(seed), steps, num_envs, envs.single_action_space.shape[0])
    ended = np.zeros(num_envs, bool)
    counts = {"terminated": 0, "truncated": 0, "success": 0}
    for t in range(steps):
        action = _steer(obs) if policy == "steer" else actions[t]
        obs, reward, terminated, truncated, info = envs.step(action)
        for i, oracle in enumerate(oracles):
            where = f"{task_id} env {i} step {t}"
            if ended[i]:
                o, inf = oracle.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, inf = oracle.step(action[i])
            assert_obs_equal(_row(obs, i), o, where)
            assert (reward[i], terminated[i], truncated[i]) == (r, te, tr), where
            assert_info_equal(info, i, inf, where)
            counts["terminated"] += int(te)
            counts["truncated"] += int(tr)
            counts["success"] += int(inf.get("success", False))
        ended = terminated | truncated
    envs.close()
    return counts


@pytest.mark.parametrize("task_id", IDS)
def test_every_id_matches_gymnasium_robotics(task_id):
    load_robotics()
    run_against_oracle(task_id, steps=40, seed=3)


def test_ids_maps_limits_and_spaces_are_gymnasium_robotics():
    import gymnasium

    maps = load_robotics().envs.maze.maps
    for (name, map_name, limit), suffix in [(m, s) for s in ("", "Dense") for m in MAPS]:
        task_id = f"PointMaze_{name}{suffix}-v3"
        spec = envpool.make_spec(task_id)
        theirs = gymnasium.spec(task_id)
        assert spec.max_episode_steps == theirs.max_episode_steps == limit
        rows = ["".join(str(c) for c in row) for row in getattr(maps, map_name)]
        assert spec.config["maze_map"] == rows
        assert spec.config["reward_type"] == theirs.kwargs["reward_type"]
        oracle = make_oracle(task_id)
        assert spec.observation_space == oracle.observation_space
        assert spec.action_space == oracle.action_space
        assert spec.render_fps == oracle.metadata["render_fps"]
        oracle.close()


@pytest.mark.parametrize("task_id", ["PointMaze_UMaze-v3", "PointMaze_Medium_Diverse_GRDense-v3"])
def test_whole_episodes_random(task_id):
    load_robotics()
    counts = run_against_oracle(task_id, steps=650, seed=11)
    assert counts["truncated"] >= 2  # each env's time limit reached, then autoreset


def test_goals_reached_terminate_and_are_redrawn():
    load_robotics()
    # not continuing: reaching the goal terminates, the next step autoresets
    counts = run_against_oracle("PointMaze_OpenDense-v3", 300, 5, policy="steer", continuing_task=False)
    assert counts["terminated"] >= 4
    # continuing with reset_target: a reached goal is replaced by a new one out of reach
    counts = run_against_oracle("PointMaze_Open_Diverse_GR-v3", 300, 7, policy="steer", reset_target=True)
    assert counts["terminated"] == 0 and counts["success"] >= 4
    # continuing, goal kept: success step after step
    counts = run_against_oracle("PointMaze_Open-v3", 120, 9, policy="steer")
    assert counts["success"] >= 40


def test_custom_maze_map_as_gymnasium_robotics_takes_it():
    load_robotics()
    maze = [[1, 1, 1, 1, 1, 1], [1, "c", 0, 1, "g", 1], [1, 0, 0, 0, "r", 1], [1, 1, 1, 1, 1, 1]]
    run_against_oracle("PointMaze_UMazeDense-v3", 80, 2, maze_map=maze)
    assert envpool.make_spec("PointMaze_UMaze-v3", maze_map=maze).config["maze_map"] == [
        "111111",
        "1c01g1",
        "1000r1",
        "111111",
    ]


@pytest.mark.parametrize("task_id", ["PointMaze_UMaze-v3", "PointMaze_UMazeDense-v3"])
def test_compute_reward_over_batches_equals_the_oracle(task_id):
    load_robotics()
    oracle = make_oracle(task_id, continuing_task=False).unwrapped
    envs = envpool.make(task_id, num_envs=2, continuing_task=False)
    rng = np.random.default_rng(0)
    achieved = rng.uniform(-2, 2, size=(3, 50, 2))
    # distances at the 0.45 radius and around it, where sparse rewards and termination flip
    desired = achieved + 0.45 * np.stack([np.cos(a := rng.uniform(0, 7, (3, 50))), np.sin(a)], -1)
    desired[1] = achieved[1] + rng.uniform(-0.5, 0.5, size=(50, 2))
    ours = envs.compute_reward(achieved, desired, {})
    theirs = oracle.compute_reward(achieved, desired, {})
    assert ours.shape == (3, 50) and ours.dtype == np.float64
    np.testing.assert_array_equal(ours, theirs)
    if "Dense" not in task_id:
        assert set(np.unique(ours)) == {0.0, 1.0}
    flat_a, flat_d = achieved.reshape(-1, 2), desired.reshape(-1, 2)
    terminated = envs.compute_terminated(achieved, desired, None).reshape(-1)
    assert terminated.tolist() == [oracle.compute_terminated(a, d, {}) for a, d in zip(flat_a, flat_d)]
    assert 0 < terminated.sum() < terminated.size
    assert not envs.compute_truncated(achieved, desired, None).any()
    one = envs.compute_reward(achieved[0, 0], desired[0, 0], {})
    assert type(one) is type(oracle.compute_reward(achieved[0, 0], desired[0, 0], {})) and one == theirs[0, 0]
    assert envs.unwrapped.compute_reward is not None and envs.unwrapped is envs
    assert isinstance(envs.compute_terminated(achieved[0, 0], desired[0, 0]), bool)
    # the step's reward is the same function: relabelling with the achieved goals gives it back
    obs, _ = envs.reset(seed=1)
    for _ in range(30):
        obs, reward, *_ = envs.step(_steer(obs))
        np.testing.assert_array_equal(envs.compute_reward(obs["achieved_goal"], obs["desired_goal"]), reward)
    envs.close()


def test_compute_reward_on_every_front_end_and_per_env_kwargs():
    import gymnasium

    load_robotics()
    a, d = np.zeros(2), np.array([0.3, 0.3])
    for env_type in ("gymnasium", "gym", "dm"):
        envs = envpool.make("PointMaze_UMazeDense-v3", env_type=env_type, num_envs=1)
        assert envs.compute_reward(a, d) == np.exp(-np.sqrt(0.18))
        envs.close()
    env = gymnasium.make("envpool/PointMaze_UMaze-v3")
    obs, _ = env.reset(seed=0)
    assert sorted(obs) == ["achieved_goal", "desired_goal", "observation"]
    assert env.unwrapped.compute_reward(a, d, {}) == 1.0 and env.unwrapped.compute_terminated(a, d, {}) is False
    env.close()
    envs = envpool.make("PointMaze_UMaze-v3", num_envs=2, reward_type=["sparse", "dense"])
    with pytest.raises(ValueError, match="different kwargs.*env_id"):
        envs.compute_reward(a, d)
    assert envs.compute_reward(a, d, env_id=0) == 1.0
    assert envs.compute_reward(a, d, env_id=1) == np.exp(-np.sqrt(0.18))
    with pytest.raises(IndexError, match="env_id 2"):
        envs.compute_reward(a, d, env_id=2)
    with pytest.raises(ValueError, match=r"\(\.\.\., 2\), got \(3,\) and \(3,\)"):
        envs.compute_reward(np.zeros(3), np.zeros(3), env_id=0)
    envs.close()
    envs = envpool.make("CartPole-v1", num_envs=1)
    with pytest.raises(ValueError, match="CartPole-v1 is not a goal-conditioned task"):
        envs.compute_reward(a, d)
    envs.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"maze_size": 3}, "maze_size"),
        ({"reward_type": "shaped"}, "reward_type must be 'sparse' or 'dense'"),
        ({"maze_map": [[1, 1, 1], [1, 0]]}, "maze_map must be rectangular"),
        ({"maze_map": [[1, 1, 1], [1, "r", 1], [1, 1, 1]]}, "maze_map has no cell a goal"),
        ({"maze_map": [[1, 1, 1], [1, 2, 1], [1, 1, 1]]}, r"maze_map\[1\]\[1\] is 2"),
        ({"maze_map": [[1, 1, 1, 1], [1, "c", "g", 1], [1, 1, 1, 1]]}, "maze_map: a goal can be drawn"),
        ({"default_camera_config": {"distance": 3.0}}, "default_camera_config"),
    ],
)
def test_bad_kwargs_are_value_errors_at_make(kwargs, message):
    with pytest.raises(ValueError, match=message):
        envpool.make("PointMaze_UMaze-v3", num_envs=1, **kwargs)


def test_same_step_and_disabled_autoreset_and_async_send_recv():
    load_robotics()
    task_id, limit, n = "PointMaze_Medium_Diverse_GDense-v3", 12, 3
    actions = _random_actions(np.random.default_rng(4), 40, n)
    for mode in ("same_step", "disabled"):
        envs = envpool.make(task_id, num_envs=n, seed=20, autoreset_mode=mode, max_episode_steps=limit)
        oracles = [make_oracle(task_id, max_episode_steps=limit) for _ in range(n)]
        obs, _ = envs.reset()
        for i, oracle in enumerate(oracles):
            assert_obs_equal(_row(obs, i), oracle.reset(seed=20 + i)[0], f"{mode} reset {i}")
        for t in range(40):
            obs, reward, terminated, truncated, info = envs.step(actions[t])
            for i, oracle in enumerate(oracles):
                o, r, te, tr, inf = oracle.step(actions[t, i])
                assert (reward[i], terminated[i], truncated[i], info["success"][i]) == (r, te, tr, inf["success"])
                if not tr:
                    assert_obs_equal(_row(obs, i), o, f"{mode} step {t} env {i}")
                elif mode == "same_step":  # the row holds the next episode's first observation
                    assert_obs_equal(info["final_obs"][i], o, f"{mode} final obs {t} env {i}")
                    assert_obs_equal(_row(obs, i), oracle.reset()[0], f"{mode} autoreset {t} env {i}")
                else:  # the row holds the last observation; the caller resets
                    assert_obs_equal(_row(obs, i), o, f"{mode} last obs {t} env {i}")
            if mode == "disabled" and truncated.any():
                ended = np.flatnonzero(truncated)
                obs, _ = envs.reset(options={"reset_mask": truncated})
                for i in ended:
                    assert_obs_equal(_row(obs, i), oracles[i].reset()[0], f"reset_mask {t} env {i}")
        envs.close()
    # asynchronous: batches of 2 of 4 envs, each row compared with its env's oracle
    envs = envpool.make(task_id, num_envs=4, batch_size=2, seed=30)
    oracles = [make_oracle(task_id) for _ in range(4)]
    envs.async_reset()
    sent_to: dict[int, np.ndarray] = {}
    for _ in range(30):
        obs, reward, terminated, truncated, info = envs.recv()
        ids = info["env_id"]
        for row, i in enumerate(ids.tolist()):
            if info["elapsed_step"][row] == 0:
                o = oracles[i].reset(seed=30 + i)[0]
            else:
                o, r, *_ = oracles[i].step(sent_to[i])
                assert reward[row] == r
            assert_obs_equal(_row(obs, row), o, f"async env {i}")
        sent = np.stack([_steer(_row(obs, row)) for row in range(len(ids))])
        sent_to.update(zip(ids.tolist(), sent))
        envs.send(sent, ids)
    envs.close()


@pytest.mark.parametrize(
    ("task_id", "kwargs"), [("PointMaze_Large-v3", {}), ("PointMaze_Open_Diverse_GR-v3", {"reset_target": True})]
)
def test_frames_equal_gymnasium_robotics(task_id, kwargs):
    skip_unless_oracle_frames()
    load_robotics()
    envs = envpool.make(task_id, num_envs=1, seed=8, render_mode="rgb_array", **kwargs)
    oracle = make_oracle(task_id, render_mode="rgb_array", **kwargs)
    obs, _ = envs.reset()
    oracle.reset(seed=8)
    np.testing.assert_array_equal(envs.render()[0], oracle.render())
    goals = {tuple(obs["desired_goal"][0])}
    for t in range(150):
        action = _steer(obs)
        obs, *_ = envs.step(action)
        oracle.step(action[0])
        goals.add(tuple(obs["desired_goal"][0]))
        if t % 50 == 49:
            np.testing.assert_array_equal(envs.render()[0], oracle.render(), err_msg=f"step {t}")
    assert len(goals) > 1 or not kwargs  # the target site was moved to a new goal
    envs.close()
    oracle.close()


def test_one_maze_map_per_env():
    maps = load_robotics().envs.maze.maps
    envs = envpool.make("PointMaze_UMaze-v3", num_envs=2, seed=6, maze_map=[maps.OPEN, maps.MEDIUM_MAZE_DIVERSE_G])
    assert envs.config["maze_map"] == [
        ["".join(str(c) for c in row) for row in maps.OPEN],
        ["".join(str(c) for c in row) for row in maps.MEDIUM_MAZE_DIVERSE_G],
    ]
    obs, _ = envs.reset()
    for i, maze in enumerate((maps.OPEN, maps.MEDIUM_MAZE_DIVERSE_G)):
        theirs, _ = make_oracle("PointMaze_UMaze-v3", maze_map=maze).reset(seed=6 + i)
        assert_obs_equal(_row(obs, i), theirs, f"env {i}")
    # the maps differ, the reward's kwargs do not: one compute_reward for both
    assert envs.compute_reward(np.zeros(2), np.ones(2)) == 0.0
    envs.close()
