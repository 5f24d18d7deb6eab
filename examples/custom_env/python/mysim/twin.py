"""CatchTwin: the Catch game of src/catch.cc in pure Python, as a gymnasium.Env.

It draws its randomness exactly as envpool does (``Rng``: envpool's xoshiro256** seeded through
splitmix64, cpp/core/rng.h), so gymnasium's own ``SyncVectorEnv`` running twins (env ``i``
seeded with ``seed + i``) gives the same obs, rewards, flags and frames as
``envpool.make("Catch-v0", seed=seed)``, step for step; the tests check it.

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

_MASK = (1 << 64) - 1


class Rng:
    """envpool's per-env generator (cpp/core/rng.h), the parts Catch uses."""

    def __init__(self, seed: int):
        x = seed & _MASK
        self.state = []
        for _ in range(4):  # splitmix64
            x = (x + 0x9E3779B97F4A7C15) & _MASK
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            self.state.append(z ^ (z >> 31))

    @staticmethod
    def _rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) & _MASK

    def next_u64(self) -> int:
        s = self.state
        result = (self._rotl((s[1] * 5) & _MASK, 7) * 9) & _MASK
        t = (s[1] << 17) & _MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self._rotl(s[3], 45)
        return result

    def below(self, n: int) -> int:
        """Uniform in [0, n) (Lemire's multiply-shift with rejection)."""
        m = self.next_u64() * n
        low = m & _MASK
        if low < n:
            threshold = ((1 << 64) - n) % n
            while low < threshold:
                m = self.next_u64() * n
                low = m & _MASK
        return m >> 64


class CatchTwin(gymnasium.Env):
    """Catch-v0 in Python. Actions: 0 left, 1 stay, 2 right."""

    metadata = {"render_modes": ["rgb_array"]}
    CELL = 16

    def __init__(self, rows: int = 10, cols: int = 5, render_mode: str | None = None):
        self.rows, self.cols = rows, cols
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (rows, cols), np.float32)
        self.action_space = spaces.Discrete(3)
        self.rng = Rng(0)
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
        if seed is not None:
            self.rng = Rng(seed)
        self.ball_row = 0
        self.ball_col = self.rng.below(self.cols)
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
        frame[self.ball_row * c + 2 : self.ball_row * c + c - 2, self.ball_col * c + 2 : self.ball_col * c + c - 2] = (250, 220, 60)
        frame[(self.rows - 1) * c + c // 2 : self.rows * c, self.paddle_col * c : (self.paddle_col + 1) * c] = (230, 60, 60)
        return frame
