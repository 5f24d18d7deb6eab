"""render_mode="rgb_array" through the front ends: one frame per env, subsets, and the errors
(render before reset, without render_mode, a task that does not render). The frames themselves
are held to gymnasium's in tests/envs/<family>/test_render.py."""

from __future__ import annotations

import numpy as np
import pytest
from support.render_tasks import renders

import envpool


def test_render_subset_and_all():
    envs = envpool.make("CartPole-v1", num_envs=4, seed=3, render_mode="rgb_array")
    try:
        assert "rgb_array" in envs.metadata["render_modes"]
        envs.reset()
        # As gymnasium's vector envs: one frame per env, in a tuple.
        frames = envs.render()
        assert isinstance(frames, tuple) and len(frames) == 4
        all_frames = np.stack(frames)
        assert all_frames.shape == (4, 400, 600, 3) and all_frames.dtype == np.uint8
        subset = envs.render([2, 0])
        assert len(subset) == 2 and subset[0].shape == (400, 600, 3)
        assert np.array_equal(subset[0], all_frames[2]) and np.array_equal(subset[1], all_frames[0])
        # Different start states draw different frames; a frame is not overwritten later.
        assert not np.array_equal(all_frames[0], all_frames[1])
        kept = all_frames.copy()
        for _ in range(10):  # push right: the carts move by several pixels
            envs.step(np.ones(4, dtype=np.int64))
        assert np.array_equal(all_frames, kept)
        assert not np.array_equal(np.stack(envs.render()), kept)
    finally:
        envs.close()


def test_render_before_reset_raises():
    envs = envpool.make("Acrobot-v1", num_envs=2, render_mode="rgb_array")
    try:
        with pytest.raises(RuntimeError, match="reset"):
            envs.render()
        envs.reset()
        assert np.stack(envs.render()).shape == (2, 500, 500, 3)
    finally:
        envs.close()


def test_render_needs_render_mode():
    envs = envpool.make("CartPole-v1", num_envs=1)
    try:
        envs.reset()
        with pytest.raises(RuntimeError, match="render_mode"):
            envs.render()
    finally:
        envs.close()
    with pytest.raises(ValueError, match="render_mode"):
        envpool.make("CartPole-v1", render_mode="human")


def test_task_without_rendering_names_the_families_that_render():
    """StepCounter-v0 (the test plugin, tests/conftest.py) draws no frames: the error says so and
    which families do."""
    with pytest.raises(ValueError, match="StepCounter-v0 does not render") as err:
        envpool.make("StepCounter-v0", render_mode="rgb_array")
    for family in ("classic control", "MuJoCo", "dm_control", "MPE", "classic board games", "Procgen"):
        assert family in str(err.value)


def test_every_built_in_task_renders():
    """What that error claims: every built-in family's tasks render (a family added without
    frames must be left out of envpool.tasks.RENDERING_FAMILIES)."""
    from envpool.tasks import registered_tasks

    built_in = [task for task, record in registered_tasks().items() if record["origin"] == "built-in"]
    assert len(built_in) > 200
    silent = [task for task in built_in if renders(task) is False]
    assert not silent, f"built-in tasks that do not render: {silent}"


def test_task_without_rendering_raises():
    silent = [t for t in envpool.list_all_envs() if renders(t) is False]
    if not silent:
        pytest.skip("every task renders")
    task = silent[0]
    with pytest.raises(ValueError, match="does not render"):
        envpool.make(task, render_mode="rgb_array")
    envs = envpool.make(task, num_envs=1)
    try:
        envs.reset()
        with pytest.raises(RuntimeError):
            envs.render()
    finally:
        envs.close()
