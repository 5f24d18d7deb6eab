"""CatchTwin: the Catch game of src/catch.cc in pure Python, as a gymnasium.Env.

envpool's per-env ``Rng`` (cpp/core/rng.h) is numpy's default generator, bit for bit: an env
seeded with ``s`` draws what ``np.random.default_rng(s)`` draws, and ``rng.Below(n)`` is
``integers(n)``. So the twin just uses gymnasium's own ``self.np_random`` the same way, and
gymnasium's ``SyncVectorEnv`` running twins (env ``i`` seeded with ``seed + i``) gives the same
obs, rewards, flags and frames as ``envpool.make("mysim.Catch-v0", seed=seed)``, step for step; the
tests check it.

>>> from mysim.twin import CatchTwin
>>> env = CatchTwin(rows=4, cols=3)
>>> obs, info = env.reset(seed=0)
>>> obs.shape, int(obs[3].sum())
((4, 3), 1)
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces


class CatchTwin(gymnasium.Env):
    """mysim.Catch-v0 in Python. Actions: 0 left, 1 stay, 2 right."""

    metadata = {"render_modes": ["rgb_array"]}
    CELL = 16

    def __init__(self, rows: int = 10, cols: int = 5, render_mode: str | None = None):
        self.rows, self.cols = rows, cols
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (rows, cols), np.float32)
        self.action_space = spaces.Discrete(3)
        self.ball_row = self.ball_col = self.paddle_col = 0

    def _obs(self):
        obs = np.zeros((self.rows, self.cols), np.float32)
        obs[self.ball_row, self.ball_col] = 1.0
        obs[self.rows - 1, self.paddle_col] = 1.0
        return obs

    def _info(self):
        return {"ball_col": np.int64(self.ball_col)}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.ball_row = 0
        self.ball_col = int(self.np_random.integers(self.cols))  # catch.cc: rng.Below(cols)
        self.paddle_col = self.cols // 2
        return self._obs(), self._info()

    def step(self, action):
        self.paddle_col = min(max(self.paddle_col + int(action) - 1, 0), self.cols - 1)
        self.ball_row += 1
        landed = self.ball_row == self.rows - 1
        reward = (1.0 if self.ball_col == self.paddle_col else -1.0) if landed else 0.0
        return self._obs(), reward, landed, False, self._info()

    def render(self):
        c = self.CELL
        frame = np.empty((self.rows * c, self.cols * c, 3), np.uint8)
        frame[:] = (20, 20, 40)
        frame[self.ball_row * c + 2 : self.ball_row * c + c - 2, self.ball_col * c + 2 : self.ball_col * c + c - 2] = (
            250,
            220,
            60,
        )
        frame[(self.rows - 1) * c + c // 2 : self.rows * c, self.paddle_col * c : (self.paddle_col + 1) * c] = (
            230,
            60,
            60,
        )
        return frame
