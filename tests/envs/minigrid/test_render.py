"""render_mode="rgb_array" frames of the native MiniGrid envs (cpp/envs/minigrid/render/tiles.h)
against minigrid 3.2.0's ``env.render()``, pixel for pixel: after reset and along random-action
episodes (autoreset), for every id, and longer for ids that show every object kind (walls, open / closed / locked doors,
keys, balls, boxes, goals, lava) and the agent in all four directions, with the highlight of
the agent's view (see_through_walls, agent_view_size 3 and 9 included); and minigrid's rendering
kwargs (tile_size at several sizes, highlight=False, agent_pov=True) as gym.make takes them."""

from __future__ import annotations

import numpy as np
import pytest

import envpool

from .test_minigrid import MINIGRID_IDS, actions_for, ours_kwargs, reference

CASES = [
    ("MiniGrid-DoorKey-8x8-v0", {}),
    ("MiniGrid-DoorKey-6x6-v0", {"see_through_walls": True}),
    ("MiniGrid-LavaGapS7-v0", {}),
    ("MiniGrid-LavaCrossingS9N2-v0", {}),
    ("MiniGrid-Dynamic-Obstacles-8x8-v0", {}),
    ("MiniGrid-KeyCorridorS4R3-v0", {}),
    ("MiniGrid-Fetch-8x8-N3-v0", {}),
    ("MiniGrid-PutNear-8x8-N3-v0", {}),
    ("MiniGrid-MemoryS13-v0", {}),
    ("MiniGrid-Playground-v0", {}),
    ("MiniGrid-MultiRoom-N4-S5-v1", {}),
    ("MiniGrid-BlockedUnlockPickup-v0", {}),
    ("MiniGrid-RedBlueDoors-8x8-v0", {}),
    ("MiniGrid-DistShift1-v0", {}),
    ("MiniGrid-FourRooms-v0", {"agent_view_size": 3}),
    ("MiniGrid-LockedRoom-v0", {"agent_view_size": 9}),
    ("MiniGrid-RedBlueDoors-6x6-v0", {"agent_view_size": 5, "see_through_walls": True}),
]


def compare_episodes(task, kwargs, steps, num_envs=2, seed=11):
    """Frames of a pool (same_step autoreset) and of minigrid's envs, reset and after every step
    of the same random actions; returns the kinds of objects the frames showed."""
    envs = envpool.make(
        task, num_envs=num_envs, seed=seed, render_mode="rgb_array", autoreset_mode="same_step", **ours_kwargs(kwargs)
    )
    refs = [reference(task, render_mode="rgb_array", **kwargs) for _ in range(num_envs)]
    envs.reset()
    for i, ref in enumerate(refs):
        ref.reset(seed=seed + i)
    seen = set()

    def check(what):
        frames = envs.render()
        assert len(frames) == num_envs
        for i, ref in enumerate(refs):
            expected = ref.render()
            assert frames[i].shape == expected.shape and frames[i].dtype == np.uint8, what
            np.testing.assert_array_equal(frames[i], expected, err_msg=f"{what} env {i}")
            seen.update(
                (c.type, getattr(c, "is_open", None), getattr(c, "is_locked", None)) for c in ref.grid.grid if c
            )

    check(f"{task} reset")
    for t, action in enumerate(actions_for(num_envs, steps, 5, int(envs.single_action_space.n))):
        envs.step(action)
        for i, ref in enumerate(refs):
            _, _, term, trunc, _ = ref.step(int(action[i]))
            if term or trunc:
                ref.reset()
        check(f"{task} step {t}")
    envs.close()
    return seen


@pytest.mark.parametrize(("task", "kwargs"), CASES)
def test_frames_equal_minigrids(task, kwargs):
    compare_episodes(task, kwargs, steps=40)


@pytest.mark.parametrize("task", MINIGRID_IDS)
def test_every_id_renders_as_minigrid(task):
    compare_episodes(task, {}, steps=15, num_envs=1, seed=123)


def test_frames_show_every_object_kind():
    # (Floor is the one kind that no MiniGrid id places.)
    seen = set()
    for task in (
        "MiniGrid-DoorKey-8x8-v0",
        "MiniGrid-LavaGapS5-v0",
        "MiniGrid-BlockedUnlockPickup-v0",
        "MiniGrid-KeyCorridorS3R3-v0",
    ):
        seen |= compare_episodes(task, {}, steps=120, num_envs=3)
    kinds = {kind for kind, _, _ in seen}
    assert {"wall", "door", "key", "ball", "box", "goal", "lava"} <= kinds
    doors = {(is_open, is_locked) for kind, is_open, is_locked in seen if kind == "door"}
    assert doors == {(False, True), (False, False), (True, False)}  # locked, closed, open


@pytest.mark.parametrize("tile_size", [1, 5, 8, 13, 16, 23])
def test_tile_sizes(tile_size):
    # minigrid's tile_size kwarg (TILE_PIXELS, 32, by default) at other sizes: every shape's
    # pixel-centre tests and the downsample at other resolutions.
    for task in ("MiniGrid-Playground-v0", "MiniGrid-LavaGapS6-v0", "MiniGrid-RedBlueDoors-6x6-v0"):
        envs = envpool.make(task, num_envs=1, seed=4, render_mode="rgb_array", tile_size=tile_size)
        assert envs.task_spec.render_shape[:2] == tuple(
            tile_size * n for n in (reference(task).height, reference(task).width)
        )
        compare_episodes(task, {"tile_size": tile_size}, steps=8, num_envs=1, seed=4)
        envs.close()


@pytest.mark.parametrize(
    ("task", "kwargs"),
    [
        ("MiniGrid-KeyCorridorS3R3-v0", {"highlight": False}),
        ("MiniGrid-KeyCorridorS3R3-v0", {"agent_pov": True}),
        ("MiniGrid-MultiRoom-N4-S5-v1", {"agent_pov": True, "see_through_walls": True, "tile_size": 9}),
    ],
)
def test_rendering_kwargs(task, kwargs):
    compare_episodes(task, kwargs, steps=40)


def test_render_shape_and_spec():
    envs = envpool.make("MiniGrid-MultiRoom-N6-v0", num_envs=3, render_mode="rgb_array")
    assert envs.task_spec.render_shape == (25 * 32, 25 * 32, 3)
    envs.reset()
    frames = envs.render()
    assert len(frames) == 3 and all(f.shape == (800, 800, 3) for f in frames)
    envs.close()
    pov = envpool.make("MiniGrid-Empty-5x5-v0", num_envs=1, render_mode="rgb_array", agent_pov=True)
    assert pov.task_spec.render_shape == (7 * 32, 7 * 32, 3)
    pov.close()


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [({"tile_size": 0}, "tile_size"), ({"tile_size": 257}, "tile_size"), ({"agent_pov": 3}, "agent_pov")],
)
def test_bad_rendering_kwargs(kwargs, key):
    with pytest.raises((ValueError, TypeError), match=key):
        envpool.make("MiniGrid-Empty-5x5-v0", num_envs=1, render_mode="rgb_array", **kwargs)
