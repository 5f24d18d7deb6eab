"""A tiny gymnasium env whose step burns a fixed amount of CPU time, for bench.envs.python_envs
and bench.core.async_gain.

``gymnasium.make("bench.envs.burn_env:BurnStep-v0")`` imports this module (the repository root
must be on ``sys.path``: those benches put it on ``PYTHONPATH`` for every worker) and builds the env.

Each env is either *fast* (``fast_us``, default 50 µs per step) or *slow* (``slow_us``, default
500 µs, 10x): the first seeded ``reset(seed=s)`` makes it slow when ``s`` is odd. Vector envs seed
env ``i`` with ``seed + i``, so with an even base seed every other env is slow. The burn spins on
the thread's CPU clock (``time.thread_time``), not on the wall clock, so the CPU work per step is
the same however many processes share the cores (a wall-clock spin would burn less CPU when its
process is preempted, flattering oversubscribed setups).

Episodes are truncated after ``episode_len`` steps (autoreset is exercised, rarely).

``WaitStep-v0`` is the same env whose step *waits* instead (sleeps ``fast_us`` = 500 µs or
``slow_us`` = 5 ms): an env that waits on a simulator or a service. Its throughput is bounded by
waiting, not by the cores, which is where partial batches pay.
"""

from __future__ import annotations

import time

import gymnasium
import numpy as np
from gymnasium import spaces


def burn(us: float) -> None:
    """Spin for `us` microseconds of this thread's CPU time."""
    clock = time.thread_time
    end = clock() + us * 1e-6
    while clock() < end:
        pass


class BurnStepEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(self, fast_us: float = 50.0, slow_us: float = 500.0, episode_len: int = 200, wait: bool = False):
        self.observation_space = spaces.Box(-1.0, 1.0, (4,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.fast_us, self.slow_us, self.episode_len = fast_us, slow_us, episode_len
        self.wait = wait
        self.burn_us: float | None = None
        self._t = 0
        self._obs = np.zeros(4, np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if self.burn_us is None:
            slow = (seed % 2 == 1) if seed is not None else bool(self.np_random.integers(2))
            self.burn_us = self.slow_us if slow else self.fast_us
        self._t = 0
        self._obs[:] = 0.0
        return self._obs.copy(), {}

    def step(self, action):
        if self.wait:
            time.sleep(self.burn_us * 1e-6)
        else:
            burn(self.burn_us)
        self._t += 1
        self._obs[0] = self._t / self.episode_len
        self._obs[1] = float(action)
        return self._obs.copy(), 1.0, False, self._t >= self.episode_len, {}


gymnasium.register(id="BurnStep-v0", entry_point=BurnStepEnv)
gymnasium.register(
    id="WaitStep-v0", entry_point=BurnStepEnv, kwargs={"fast_us": 500.0, "slow_us": 5000.0, "wait": True}
)
