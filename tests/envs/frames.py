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
