"""The native MiniGrid envs (cpp/envs/minigrid) against minigrid 3.2.0: the ids and their
kwargs; the spaces; for every id, the same seed gives the same initial observation and mission;
whole episodes of random actions (a fixed action seed) are equal step for step (image,
direction, mission, reward, terminated, truncated) in a pool of several envs, and in all three
autoreset modes; kwargs (agent_view_size, see_through_walls, max_steps, each env's own) as
minigrid takes them; bad kwargs refused with a ValueError naming the key.

Env ``i`` of a pool made with ``seed=s`` is minigrid's env reset with ``seed=s + i``; its later
episodes (autoreset) continue the same np_random, as gymnasium's vector envs do.
"""

from __future__ import annotations

import collections
import warnings

import gymnasium as gym
import numpy as np
import pytest

import envpool

minigrid = pytest.importorskip("minigrid")
if minigrid.__version__ != "3.2.0":
    pytest.skip(f"the native MiniGrid envs follow minigrid 3.2.0, not {minigrid.__version__}", allow_module_level=True)

MINIGRID_IDS = [
    "MiniGrid-Empty-5x5-v0",
    "MiniGrid-Empty-Random-5x5-v0",
    "MiniGrid-Empty-6x6-v0",
    "MiniGrid-Empty-Random-6x6-v0",
    "MiniGrid-Empty-8x8-v0",
    "MiniGrid-Empty-16x16-v0",
    "MiniGrid-DoorKey-5x5-v0",
    "MiniGrid-DoorKey-6x6-v0",
    "MiniGrid-DoorKey-8x8-v0",
    "MiniGrid-DoorKey-16x16-v0",
    "MiniGrid-FourRooms-v0",
    "MiniGrid-LavaGapS5-v0",
    "MiniGrid-LavaGapS6-v0",
    "MiniGrid-LavaGapS7-v0",
    "MiniGrid-LavaCrossingS9N1-v0",
    "MiniGrid-LavaCrossingS9N2-v0",
    "MiniGrid-LavaCrossingS9N3-v0",
    "MiniGrid-LavaCrossingS11N5-v0",
    "MiniGrid-SimpleCrossingS9N1-v0",
    "MiniGrid-SimpleCrossingS9N2-v0",
    "MiniGrid-SimpleCrossingS9N3-v0",
    "MiniGrid-SimpleCrossingS11N5-v0",
    "MiniGrid-MultiRoom-N2-S4-v0",
    "MiniGrid-MultiRoom-N4-S5-v0",
    "MiniGrid-MultiRoom-N4-S5-v1",
    "MiniGrid-MultiRoom-N6-v0",
    "MiniGrid-DistShift1-v0",
    "MiniGrid-DistShift2-v0",
    "MiniGrid-Dynamic-Obstacles-5x5-v0",
    "MiniGrid-Dynamic-Obstacles-Random-5x5-v0",
    "MiniGrid-Dynamic-Obstacles-6x6-v0",
    "MiniGrid-Dynamic-Obstacles-Random-6x6-v0",
    "MiniGrid-Dynamic-Obstacles-8x8-v0",
    "MiniGrid-Dynamic-Obstacles-16x16-v0",
    "MiniGrid-GoToDoor-5x5-v0",
    "MiniGrid-GoToDoor-6x6-v0",
    "MiniGrid-GoToDoor-8x8-v0",
    "MiniGrid-RedBlueDoors-6x6-v0",
    "MiniGrid-RedBlueDoors-8x8-v0",
    "MiniGrid-Fetch-5x5-N2-v0",
    "MiniGrid-Fetch-6x6-N2-v0",
    "MiniGrid-Fetch-8x8-N3-v0",
    "MiniGrid-GoToObject-6x6-N2-v0",
    "MiniGrid-GoToObject-8x8-N2-v0",
    "MiniGrid-Unlock-v0",
    "MiniGrid-UnlockPickup-v0",
    "MiniGrid-BlockedUnlockPickup-v0",
    "MiniGrid-KeyCorridorS3R1-v0",
    "MiniGrid-KeyCorridorS3R2-v0",
    "MiniGrid-KeyCorridorS3R3-v0",
    "MiniGrid-KeyCorridorS4R3-v0",
    "MiniGrid-KeyCorridorS5R3-v0",
    "MiniGrid-KeyCorridorS6R3-v0",
    "MiniGrid-MemoryS17Random-v0",
    "MiniGrid-MemoryS13Random-v0",
    "MiniGrid-MemoryS13-v0",
    "MiniGrid-MemoryS11-v0",
    "MiniGrid-MemoryS9-v0",
    "MiniGrid-MemoryS7-v0",
    "MiniGrid-PutNear-6x6-N2-v0",
    "MiniGrid-PutNear-8x8-N3-v0",
    "MiniGrid-LockedRoom-v0",
    "MiniGrid-Playground-v0",
    "MiniGrid-ObstructedMaze-1Dl-v0",
    "MiniGrid-ObstructedMaze-1Dlh-v0",
    "MiniGrid-ObstructedMaze-1Dlhb-v0",
    "MiniGrid-ObstructedMaze-2Dl-v0",
    "MiniGrid-ObstructedMaze-2Dlh-v0",
    "MiniGrid-ObstructedMaze-2Dlhb-v0",
    "MiniGrid-ObstructedMaze-1Q-v0",
    "MiniGrid-ObstructedMaze-2Q-v0",
    "MiniGrid-ObstructedMaze-Full-v0",
    "MiniGrid-ObstructedMaze-2Dlhb-v1",
    "MiniGrid-ObstructedMaze-1Q-v1",
    "MiniGrid-ObstructedMaze-2Q-v1",
    "MiniGrid-ObstructedMaze-Full-v1",
]
MISSION_BYTES = 96
# Random actions, weighted toward moving and acting on the cell ahead so that episodes open
# doors, pick up keys, reach goals and fall in lava: left, right, forward, pickup, drop,
# toggle, done.
ACTION_P = np.array([0.15, 0.15, 0.4, 0.1, 0.05, 0.1, 0.05])


def reference(task, **kwargs):
    """minigrid's env for ``task`` (the unwrapped env: minigrid registers no TimeLimit, and the
    checker wrappers change nothing). MultiRoom-N4-S5-v0's deprecation warning is minigrid's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return gym.make(task, **kwargs).unwrapped


def mission_text(row):
    return bytes(row).rstrip(b"\0").decode()


def assert_obs_equal(ours, i, ref_obs, what):
    """Row ``i`` of a batch of observations (``i`` None: ``ours`` is one env's) is minigrid's."""
    row = ours if i is None else {key: value[i] for key, value in ours.items()}
    np.testing.assert_array_equal(row["image"], ref_obs["image"], err_msg=f"{what}: image")
    assert row["direction"] == ref_obs["direction"], f"{what}: direction"
    assert mission_text(row["mission"]) == ref_obs["mission"], f"{what}: mission"


def actions_for(num_envs, steps, seed, num_actions=7):
    """Random actions (Dynamic-Obstacles takes only the first three, left, right, forward)."""
    p = ACTION_P[:num_actions] / ACTION_P[:num_actions].sum()
    return np.random.default_rng(seed).choice(num_actions, size=(steps, num_envs), p=p)


# -- ids, kwargs and spaces ----------------------------------------------------------------------


def test_every_native_minigrid_id_is_minigrids():
    import minigrid.envs  # noqa: F401  (registers the ids)

    # BabyAI: test_babyai.py; the WFC ids: test_wfc.py (minigrid needs their pattern images).
    ours = sorted(t for t in envpool.list_all_envs() if t.startswith("MiniGrid-") and not t.startswith("MiniGrid-WFC-"))
    assert ours == sorted(MINIGRID_IDS)
    for task in ours:
        assert task in gym.registry, task
        assert gym.spec(task).max_episode_steps is None  # each env truncates itself
        assert envpool.make_spec(task).max_episode_steps in (None, 0)


def test_the_envs_own_step_limit_is_minigrids_max_steps():
    """``make_spec(...).env_step_limit``, what ``envpool info`` shows as the effective limit
    (issue 55 item 7: it printed max_steps = 0 and None): each id's max_steps as minigrid
    computes it (DoorKey-8x8: 10 * 8**2 = 640), and a max_steps kwarg's value."""
    for task in MINIGRID_IDS:
        ref = reference(task)
        ref.reset(seed=0)
        assert envpool.make_spec(task).env_step_limit == ref.max_steps, task
    assert envpool.make_spec("MiniGrid-DoorKey-8x8-v0", max_steps=50).env_step_limit == 50


def test_spaces():
    envs = envpool.make("MiniGrid-DoorKey-5x5-v0", num_envs=2)
    ref = reference("MiniGrid-DoorKey-5x5-v0")
    space = envs.single_observation_space
    assert isinstance(space, gym.spaces.Dict)
    assert list(space.keys()) == list(ref.observation_space.keys()) == ["direction", "image", "mission"]
    assert space["direction"] == ref.observation_space["direction"] == gym.spaces.Discrete(4)
    assert space["image"] == ref.observation_space["image"]
    assert space["mission"] == gym.spaces.Box(0, 255, (MISSION_BYTES,), np.uint8)  # docs/tasks.md
    assert envs.single_action_space == ref.action_space == gym.spaces.Discrete(7)
    envs.close()
    envs = envpool.make("MiniGrid-Dynamic-Obstacles-5x5-v0", num_envs=2)
    assert envs.single_action_space == reference("MiniGrid-Dynamic-Obstacles-5x5-v0").action_space
    assert envs.single_action_space == gym.spaces.Discrete(3)
    envs.close()


# -- fidelity ------------------------------------------------------------------------------------


def check_initial_observations(task, num_envs=12, seed=100):
    """Env ``i`` of a pool made with ``seed`` starts as minigrid's env reset with ``seed + i``."""
    envs = envpool.make(task, num_envs=num_envs, seed=seed)
    obs, _ = envs.reset()
    ref = reference(task)
    for i in range(num_envs):
        ref_obs, _ = ref.reset(seed=seed + i)
        assert_obs_equal(obs, i, ref_obs, f"{task} seed {seed + i}")
    envs.close()


@pytest.mark.parametrize("task", MINIGRID_IDS)
def test_initial_observation_and_mission(task):
    check_initial_observations(task)


def run_episodes(task, mode, steps, num_envs=3, seed=7, action_seed=0, ours=None, theirs=None):
    """Steps a pool (with kwargs ``ours``) and minigrid's envs (with ``theirs``, minigrid's
    spelling of the same) with the same random actions under ``mode``, comparing every row;
    returns how many episodes ended (so a test can insist that some did)."""
    ours = ours or {}
    envs = envpool.make(task, num_envs=num_envs, seed=seed, autoreset_mode=mode, **ours)
    refs = [reference(task, **(ours if theirs is None else theirs)) for _ in range(num_envs)]
    obs, _ = envs.reset()
    for i, ref in enumerate(refs):
        assert_obs_equal(obs, i, ref.reset(seed=seed + i)[0], f"{task} reset {i}")
    ended_before = np.zeros(num_envs, bool)
    ended = 0
    for t, action in enumerate(actions_for(num_envs, steps, action_seed, int(envs.single_action_space.n))):
        obs, reward, terminated, truncated, info = envs.step(action)
        for i, ref in enumerate(refs):
            what = f"{task} {mode} step {t} env {i}"
            if mode == "next_step" and ended_before[i]:
                assert_obs_equal(obs, i, ref.reset()[0], what + " (autoreset)")
                assert (reward[i], terminated[i], truncated[i]) == (0.0, False, False), what
                continue
            ref_obs, ref_reward, ref_term, ref_trunc, _ = ref.step(int(action[i]))
            assert reward[i] == ref_reward, what
            assert (terminated[i], truncated[i]) == (ref_term, ref_trunc), what
            if mode == "same_step" and (ref_term or ref_trunc):
                assert_obs_equal(info["final_obs"][i], None, ref_obs, what + " (final_obs)")
                ref_obs = ref.reset()[0]
            assert_obs_equal(obs, i, ref_obs, what)
        ended_now = terminated | truncated
        ended += int(ended_now.sum())
        if mode == "disabled" and ended_now.any():
            obs, _ = envs.reset(options={"reset_mask": ended_now})
            for i in np.flatnonzero(ended_now):
                assert_obs_equal(obs, i, refs[i].reset()[0], f"{task} disabled reset after step {t} env {i}")
        ended_before = ended_now
    envs.close()
    return ended


@pytest.mark.parametrize("task", MINIGRID_IDS)
def test_random_episodes(task):
    run_episodes(task, "next_step", steps=150)


AUTORESET_TASKS = ["MiniGrid-LavaGapS5-v0", "MiniGrid-DoorKey-5x5-v0", "MiniGrid-Dynamic-Obstacles-6x6-v0"]


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("task", AUTORESET_TASKS)
def test_autoreset_modes(task, mode):
    # max_steps=30: truncations besides the lava's and the goal's terminations.
    assert run_episodes(task, mode, steps=150, ours={"max_steps": 30}) > 5


def test_goal_reached_with_its_reward():
    # Empty-5x5 from (1, 1) facing right: forward, forward, right, forward, forward reaches the
    # goal at (3, 3) on step 5 of 100: reward 1 - 0.9 * 5 / 100.
    envs = envpool.make("MiniGrid-Empty-5x5-v0", num_envs=1)
    envs.reset()
    for a in [2, 2, 1, 2]:
        envs.step(np.array([a]))
    _, reward, terminated, truncated, _ = envs.step(np.array([2]))
    assert reward[0] == pytest.approx(1 - 0.9 * 5 / 100) and terminated[0] and not truncated[0]
    envs.close()


# Scripted episodes that succeed: subgoals (the object to face, found on minigrid's grid, and
# the action to take then), each reached by the shortest turn / forward path on minigrid's
# grid, the same actions sent to the pool; every step is compared and the episode must end
# with minigrid's success reward.
DIRS = [(1, 0), (0, 1), (-1, 0), (0, -1)]
GOAL = [("goal", None, 2)]  # face the goal, forward
SCRIPTS = {
    "MiniGrid-Empty-Random-6x6-v0": GOAL,
    "MiniGrid-FourRooms-v0": GOAL,
    "MiniGrid-LavaGapS7-v0": GOAL,
    "MiniGrid-LavaCrossingS9N2-v0": GOAL,
    "MiniGrid-SimpleCrossingS11N5-v0": GOAL,
    "MiniGrid-DistShift2-v0": GOAL,
    "MiniGrid-DoorKey-8x8-v0": [("key", None, 3), ("door", None, 5), *GOAL],  # pickup, toggle
    "MiniGrid-RedBlueDoors-8x8-v0": [("door", "red", 5), ("door", "blue", 5)],
    "MiniGrid-GoToDoor-8x8-v0": [("door", "target", 6)],  # done, next to the mission's door
    "MiniGrid-Fetch-8x8-N3-v0": [("target", None, 3)],  # pickup the mission's object
    "MiniGrid-GoToObject-8x8-N2-v0": [("target", None, 6)],  # done, next to it
    "MiniGrid-Unlock-v0": [("key", None, 3), ("door", None, 5)],  # pickup the key, open the door
    # pickup the key, open the door, drop the key, pickup *the* box
    "MiniGrid-UnlockPickup-v0": [("key", None, 3), ("door", None, 5), ("drop", None, 4), ("box", None, 3)],
    "MiniGrid-MemoryS9-v0": [("success", None, 2)],  # step onto the cell by the matching object
    # open the key room's door, take the key, unlock the locked room, reach its goal (the
    # colours are the mission's words: "get the L key from the K room, unlock the L door ...")
    "MiniGrid-LockedRoom-v0": [("door", "mission:6", 5), ("key", None, 3), ("door", "mission:2", 5), *GOAL],
    # pickup the key, unlock the door, drop the key, pickup the blue ball
    "MiniGrid-ObstructedMaze-1Dl-v0": [("key", None, 3), ("door", None, 5), ("drop", None, 4), ("ball", "blue", 3)],
    # the same, the key first taken out of its box (toggle)
    "MiniGrid-ObstructedMaze-1Dlh-v0": [
        ("box", None, 5),
        ("key", None, 3),
        ("door", None, 5),
        ("drop", None, 4),
        ("ball", "blue", 3),
    ],
}


def _find(env, kind, color):
    if kind == "success":  # Memory
        return env.success_pos
    if kind == "target" and hasattr(env, "target_pos"):  # GoToObject
        return tuple(int(v) for v in env.target_pos)
    if kind == "target":  # Fetch
        kind, color = env.targetType, env.targetColor
    if color == "target":
        color = env.target_color
    if color is not None and color.startswith("mission:"):
        color = env.mission.split()[int(color.partition(":")[2])]
    for j in range(env.grid.height):
        for i in range(env.grid.width):
            cell = env.grid.get(i, j)
            if cell is not None and cell.type == kind and color in (None, cell.color):
                return i, j
    raise AssertionError(f"no {color} {kind} on the grid")


def _path_to_face(env, target):
    """The shortest left / right / forward actions after which the agent faces ``target``,
    crossing only empty cells and open doors (no lava, no goal)."""
    start = (int(env.agent_pos[0]), int(env.agent_pos[1]), int(env.agent_dir))
    came = {start: None}
    queue = collections.deque([start])
    while queue:
        state = queue.popleft()
        x, y, d = state
        if (x + DIRS[d][0], y + DIRS[d][1]) == target:
            actions = []
            while came[state] is not None:
                state, action = came[state]
                actions.append(action)
            return actions[::-1]
        nexts = [((x, y, (d - 1) % 4), 0), ((x, y, (d + 1) % 4), 1)]
        cell = env.grid.get(x + DIRS[d][0], y + DIRS[d][1])
        if (x + DIRS[d][0], y + DIRS[d][1]) == getattr(env, "failure_pos", None):  # Memory's wrong end
            cell = "blocked"
        if cell is None or (cell != "blocked" and cell.type == "door" and cell.is_open):
            nexts.append(((x + DIRS[d][0], y + DIRS[d][1], d), 2))
        for nxt, action in nexts:
            if nxt not in came:
                came[nxt] = (state, action)
                queue.append(nxt)
    raise AssertionError(f"no path to face {target}")


def _turn_to_empty(env):
    """Left turns until the cell ahead is empty (to drop what the agent carries)."""
    x, y = (int(v) for v in env.agent_pos)
    for turns in range(4):
        d = (int(env.agent_dir) - turns) % 4
        if env.grid.get(x + DIRS[d][0], y + DIRS[d][1]) is None:
            return [0] * turns
    raise AssertionError("no empty cell around the agent")


@pytest.mark.parametrize("task", sorted(SCRIPTS))
def test_scripted_episodes_succeed_alike(task):
    for seed in (20, 21, 22):
        envs = envpool.make(task, num_envs=1, seed=seed)
        ref = reference(task)
        obs, _ = envs.reset()
        assert_obs_equal(obs, 0, ref.reset(seed=seed)[0], f"{task} seed {seed} reset")
        for kind, color, last in SCRIPTS[task]:
            path = _turn_to_empty(ref) if kind == "drop" else _path_to_face(ref, _find(ref, kind, color))
            for action in [*path, last]:
                obs, reward, terminated, truncated, _ = envs.step(np.array([action]))
                ref_obs, ref_reward, ref_term, ref_trunc, _ = ref.step(action)
                what = f"{task} seed {seed} action {action}"
                assert (reward[0], terminated[0], truncated[0]) == (ref_reward, ref_term, ref_trunc), what
                assert_obs_equal(obs, 0, ref_obs, what)
        assert ref_term and ref_reward > 0, f"{task} seed {seed}: the script did not succeed"
        envs.close()


KWARG_CASES = [
    ("MiniGrid-DoorKey-8x8-v0", {"agent_view_size": 5}),
    ("MiniGrid-DoorKey-8x8-v0", {"agent_view_size": 9, "see_through_walls": True}),
    ("MiniGrid-DoorKey-6x6-v0", {"size": 7, "max_steps": 40}),
    ("MiniGrid-FourRooms-v0", {"agent_view_size": 3, "max_steps": 60}),
    ("MiniGrid-FourRooms-v0", {"agent_pos": (3, 4), "goal_pos": (15, 16)}),
    ("MiniGrid-Empty-8x8-v0", {"agent_start_pos": (4, 2), "agent_start_dir": 3}),
    ("MiniGrid-Empty-Random-6x6-v0", {"size": 7}),
    ("MiniGrid-LavaGapS6-v0", {"size": 9, "agent_view_size": 11}),
    ("MiniGrid-LavaCrossingS9N1-v0", {"size": 13, "num_crossings": 4, "obstacle_type": "Wall"}),
    ("MiniGrid-SimpleCrossingS9N1-v0", {"num_crossings": 10}),  # more than there are rivers
    ("MiniGrid-MultiRoom-N2-S4-v0", {"minNumRooms": 1, "maxNumRooms": 3, "maxRoomSize": 6, "width": 15, "height": 12}),
    ("MiniGrid-MultiRoom-N6-v0", {"max_steps": 50, "agent_view_size": 5, "see_through_walls": True}),
    ("MiniGrid-DistShift1-v0", {"width": 11, "height": 8, "strip2_row": 6, "agent_start_pos": (2, 3)}),
    ("MiniGrid-DistShift2-v0", {"agent_start_pos": None}),
    ("MiniGrid-Dynamic-Obstacles-8x8-v0", {"n_obstacles": 9}),  # more than size / 2 + 1: int(size / 2)
    ("MiniGrid-Dynamic-Obstacles-6x6-v0", {"n_obstacles": 4, "agent_start_pos": (2, 3), "agent_start_dir": 2}),
    ("MiniGrid-GoToDoor-8x8-v0", {"size": 11, "max_steps": 30}),
    ("MiniGrid-RedBlueDoors-6x6-v0", {"size": 5, "see_through_walls": True}),
    ("MiniGrid-Fetch-5x5-N2-v0", {"size": 7, "numObjs": 12}),
    ("MiniGrid-GoToObject-8x8-N2-v0", {"numObjs": 18, "size": 9}),
    ("MiniGrid-KeyCorridorS3R3-v0", {"obj_type": "key", "num_cols": 4}),  # the target a second key
    ("MiniGrid-KeyCorridorS4R3-v0", {"obj_type": "box", "max_steps": 60, "agent_view_size": 5}),
    ("MiniGrid-BlockedUnlockPickup-v0", {"max_steps": 40}),
    ("MiniGrid-MemoryS7-v0", {"size": 9, "random_length": True}),
    ("MiniGrid-PutNear-8x8-N3-v0", {"size": 11, "numObjs": 9, "max_steps": 200}),
    ("MiniGrid-LockedRoom-v0", {"size": 15, "agent_view_size": 9}),
    ("MiniGrid-Playground-v0", {"max_steps": 30, "see_through_walls": True}),
    ("MiniGrid-ObstructedMaze-1Dlhb-v0", {"key_in_box": False, "max_steps": 50}),
    ("MiniGrid-ObstructedMaze-2Dlhb-v0", {"agent_room": (0, 0), "num_quarters": 3}),
    ("MiniGrid-ObstructedMaze-Full-v1", {"num_quarters": 2, "num_rooms_visited": 1, "agent_view_size": 5}),
]


def ours_kwargs(kwargs):
    """Our spelling: positions as lists, minigrid's None position as []."""
    return {k: [] if v is None else list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()}


@pytest.mark.parametrize(("task", "kwargs"), KWARG_CASES)
def test_kwargs_as_minigrid_takes_them(task, kwargs):
    envs = envpool.make(task, num_envs=2, seed=3, **ours_kwargs(kwargs))
    view = kwargs.get("agent_view_size", 7)
    assert envs.single_observation_space["image"].shape == (view, view, 3)
    envs.close()
    run_episodes(task, "next_step", steps=80, num_envs=2, seed=3, ours=ours_kwargs(kwargs), theirs=kwargs)


# -- bad input -----------------------------------------------------------------------------------

BAD_KWARGS = [
    ("MiniGrid-DoorKey-5x5-v0", {"agent_view_size": 4}, "agent_view_size"),
    ("MiniGrid-DoorKey-5x5-v0", {"agent_view_size": 1}, "agent_view_size"),
    ("MiniGrid-DoorKey-5x5-v0", {"size": 4}, "size"),
    ("MiniGrid-DoorKey-5x5-v0", {"max_steps": -1}, "max_steps"),
    ("MiniGrid-Empty-5x5-v0", {"agent_start_pos": [0, 1]}, "agent_start_pos"),
    ("MiniGrid-Empty-5x5-v0", {"agent_start_pos": [1]}, "agent_start_pos"),
    ("MiniGrid-Empty-5x5-v0", {"agent_start_pos": [1.5, 1]}, "agent_start_pos"),
    ("MiniGrid-Empty-5x5-v0", {"agent_start_dir": 4}, "agent_start_dir"),
    ("MiniGrid-Empty-Random-5x5-v0", {"size": 3}, "size"),
    ("MiniGrid-FourRooms-v0", {"goal_pos": [18, 3]}, "goal_pos"),
    ("MiniGrid-LavaGapS5-v0", {"size": 4}, "size"),
    ("MiniGrid-LavaCrossingS9N1-v0", {"size": 10}, "size"),
    ("MiniGrid-LavaCrossingS9N1-v0", {"num_crossings": -1}, "num_crossings"),
    ("MiniGrid-LavaCrossingS9N1-v0", {"obstacle_type": "fire"}, "obstacle_type"),
    ("MiniGrid-LavaGapS5-v0", {"see_through_walls": True}, "see_through_walls"),  # LavaGap fixes it
    ("MiniGrid-MultiRoom-N6-v0", {"minNumRooms": 0}, "minNumRooms"),
    ("MiniGrid-MultiRoom-N6-v0", {"minNumRooms": 3, "maxNumRooms": 2}, "maxNumRooms"),
    ("MiniGrid-MultiRoom-N6-v0", {"maxRoomSize": 3}, "maxRoomSize"),
    ("MiniGrid-DistShift1-v0", {"strip2_row": 6}, "strip2_row"),
    ("MiniGrid-Dynamic-Obstacles-5x5-v0", {"n_obstacles": -1}, "n_obstacles"),
    ("MiniGrid-Dynamic-Obstacles-5x5-v0", {"size": 4, "n_obstacles": 3}, "n_obstacles"),
    ("MiniGrid-GoToDoor-5x5-v0", {"size": 4}, "size"),
    ("MiniGrid-RedBlueDoors-8x8-v0", {"size": 3}, "size"),
    ("MiniGrid-Fetch-5x5-N2-v0", {"numObjs": 9}, "numObjs"),  # 9 objects and the agent in 3 x 3
    ("MiniGrid-GoToObject-8x8-N2-v0", {"numObjs": 19}, "numObjs"),  # 18 distinct pairs
    ("MiniGrid-KeyCorridorS3R1-v0", {"obj_type": "lava"}, "obj_type"),
    ("MiniGrid-KeyCorridorS3R1-v0", {"room_size": 2}, "room_size"),
    ("MiniGrid-KeyCorridorS3R1-v0", {"num_cols": 2}, "num_cols"),
    ("MiniGrid-Unlock-v0", {"room_size": 7}, "room_size"),  # UnlockEnv fixes it
    ("MiniGrid-MemoryS7-v0", {"size": 8}, "size"),  # minigrid asserts an odd height
    ("MiniGrid-MemoryS7-v0", {"size": 5}, "size"),
    ("MiniGrid-PutNear-6x6-N2-v0", {"numObjs": 1}, "numObjs"),  # the target must differ
    ("MiniGrid-PutNear-6x6-N2-v0", {"numObjs": 5}, "numObjs"),  # 4 fill a 4 x 4 room
    ("MiniGrid-LockedRoom-v0", {"size": 18}, "size"),
    ("MiniGrid-LockedRoom-v0", {"size": 11}, "size"),
    ("MiniGrid-ObstructedMaze-Full-v0", {"num_quarters": 5}, "num_quarters"),
    ("MiniGrid-ObstructedMaze-Full-v0", {"agent_room": [3, 1]}, "agent_room"),
    ("MiniGrid-ObstructedMaze-1Q-v1", {"num_rooms_visited": 0}, "num_rooms_visited"),
]


@pytest.mark.parametrize(("task", "kwargs", "key"), BAD_KWARGS)
def test_bad_kwargs_refused(task, kwargs, key):
    with pytest.raises(ValueError, match=key):
        envpool.make(task, num_envs=2, **kwargs)
    envs = envpool.make(task, num_envs=2)  # the registry and the task stay usable
    envs.reset()
    envs.close()


def test_bad_action_refused():
    envs = envpool.make("MiniGrid-Empty-5x5-v0", num_envs=2)
    envs.reset()
    with pytest.raises(ValueError):
        envs.step(np.array([0, 7]))
    envs.step(np.array([0, 6]))
    envs.close()
    envs = envpool.make("MiniGrid-Dynamic-Obstacles-5x5-v0", num_envs=1)  # three actions there
    envs.reset()
    with pytest.raises(ValueError):
        envs.step(np.array([3]))
    envs.close()


def test_multiroom_layout_that_cannot_fit_is_an_error_not_a_hang():
    # minigrid would search forever for 30 rooms in a 10 x 10 grid; the env gives up.
    from envpool.errors import EnvError

    envs = envpool.make("MiniGrid-MultiRoom-N6-v0", num_envs=1, minNumRooms=30, maxNumRooms=30, width=10, height=10)
    with pytest.raises(EnvError, match="no chain of 30 rooms"):
        envs.reset()
    envs.close()


def test_single_env_view_gives_the_mission_as_text():
    # gymnasium.make("envpool/<id>"): one env whose mission is minigrid's str, in a Text space
    # (a pool gives the zero-padded bytes: docs/tasks.md#minigrid).
    task = "MiniGrid-PutNear-6x6-N2-v0"  # a mission drawn per episode
    env = gym.make(f"envpool/{task}")
    ref = reference(task)
    space = env.observation_space["mission"]
    assert isinstance(space, gym.spaces.Text) and space.max_length == MISSION_BYTES
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium's env checker finds nothing to warn about
        obs, _ = env.reset(seed=5)
    for t, action in enumerate([None, *actions_for(1, 60, 4)[:, 0]]):
        if action is None:
            ref_obs = ref.reset(seed=5)[0]
        else:
            obs, reward, terminated, truncated, _ = env.step(int(action))
            ref_obs, ref_reward, ref_term, ref_trunc, _ = ref.step(int(action))
            assert (reward, terminated, truncated) == (ref_reward, ref_term, ref_trunc), t
        assert isinstance(obs["mission"], str) and obs["mission"] == ref_obs["mission"], t
        assert env.observation_space.contains(obs), t
        np.testing.assert_array_equal(obs["image"], ref_obs["image"])
        assert obs["direction"] == ref_obs["direction"], t
        if action is not None and (terminated or truncated):
            obs, _ = env.reset(seed=6 + t)
            ref_obs = ref.reset(seed=6 + t)[0]
            assert obs["mission"] == ref_obs["mission"]
    env.close()


def test_the_spec_marks_the_mission_as_text():
    # The core's spec says which array is text (cpp/core/spec.h ArraySpec::Text); the single-env
    # view turns exactly those into Text spaces, for whichever family has them.
    for task in ("MiniGrid-Empty-5x5-v0", "BabyAI-BossLevel-v0"):
        arrays = {a["name"]: a for a in envpool.make_spec(task).arrays["obs"]}
        assert arrays["mission"]["text"] and not arrays["image"]["text"] and not arrays["direction"]["text"]
    assert not any(a["text"] for a in envpool.make_spec("CartPole-v1").arrays["obs"])
    env = gym.make("envpool/BabyAI-BossLevel-v0")
    assert isinstance(env.observation_space["mission"], gym.spaces.Text)
    assert env.observation_space["mission"].max_length == 512
    assert not isinstance(env.observation_space["image"], gym.spaces.Text)
    env.close()
