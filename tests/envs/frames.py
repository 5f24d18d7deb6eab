"""What the families' render tests share: one task's frames from a one-env pool and from
gymnasium's env, with pygame drawing off-screen (gymnasium's renderers are the oracle)."""

from __future__ import annotations

import os

import gymnasium as gym

import envpool

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def pair(task):
    """A one-env pool and gymnasium's env of ``task``, both reset with seed 0 and rendering
    rgb_array frames."""
    ours = envpool.make(task, num_envs=1, seed=0, render_mode="rgb_array")
    ours.reset()
    ref = gym.make(task, render_mode="rgb_array")
    ref.reset(seed=0)
    return ours, ref


def assert_same_frame(got, want, where: str = "") -> None:
    """Two rgb_array frames are the same bytes; else say how many pixels differ and where."""
    import numpy as np

    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (
        f"{where}: {got.shape} {got.dtype} != {want.shape} {want.dtype}"
    )
    differ = np.argwhere((got != want).any(axis=-1))
    assert not len(differ), f"{where}: {len(differ)} pixels differ, the first at (row, col) {differ[:5].tolist()}"
