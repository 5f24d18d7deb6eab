"""Small Python envs for the make_python tests: nested spaces, uneven step times, and faults
on purpose. Deterministic given their seeds, so gymnasium's SyncVectorEnv running the same
classes is an exact oracle."""

from __future__ import annotations

import ctypes
import faulthandler
import functools
import os
import subprocess
import sys
import time

import gymnasium
import numpy as np
from gymnasium import spaces


class NestedEnv(gymnasium.Env):
    """Dict observations (with a nested Tuple, Discrete with a start, MultiBinary,
    MultiDiscrete) and Dict actions; random episode ends; info with numbers and arrays."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, end_prob: float = 0.1, render_mode: str | None = None):
        self.observation_space = spaces.Dict(
            {
                "pos": spaces.Box(-10.0, 10.0, (2,), np.float32),
                "flags": spaces.MultiBinary(3),
                "nested": spaces.Tuple((spaces.Discrete(5, start=1), spaces.MultiDiscrete([3, 4]))),
                "big": spaces.Box(-1.0, 1.0, (2, 3), np.float64),
            }
        )
        self.action_space = spaces.Dict({"move": spaces.Discrete(3), "force": spaces.Box(-1.0, 1.0, (2,), np.float32)})
        self.end_prob = end_prob
        self.render_mode = render_mode
        self.pos = np.zeros(2, np.float32)
        self.t = 0

    def _obs(self):
        r = self.np_random
        return {
            "pos": self.pos.copy(),
            "flags": r.integers(0, 2, 3).astype(np.int8),
            "nested": (int(r.integers(1, 6)), r.integers(0, [3, 4]).astype(np.int64)),
            "big": r.uniform(-1, 1, (2, 3)),
        }

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.pos = self.np_random.uniform(-1, 1, 2).astype(np.float32)
        self.t = 0
        return self._obs(), {"start": float(self.pos[0])}

    def step(self, action):
        move = int(action["move"]) - 1
        self.pos = np.clip(self.pos + move * 0.1 + np.asarray(action["force"], np.float32), -10, 10).astype(np.float32)
        self.t += 1
        terminated = bool(self.np_random.random() < self.end_prob)
        truncated = bool(self.np_random.random() < self.end_prob / 2)
        info = {"t": self.t, "vec": self.pos.astype(np.float64)} if self.t % 3 == 0 else {}
        return self._obs(), float(self.pos.sum()), terminated, truncated, info

    def render(self):
        frame = np.zeros((8, 8, 3), np.uint8)
        frame[..., 0] = self.t % 256
        return frame


class SlowEnv(gymnasium.Env):
    """Counts steps; each step takes `delay` seconds (sleeping, so it costs no CPU)."""

    def __init__(self, delay: float = 0.0, end_at: int = 0):
        self.observation_space = spaces.Box(0, 1e9, (1,), np.float64)
        self.action_space = spaces.Discrete(2)
        self.delay = delay
        self.end_at = end_at
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.array([0.0]), {}

    def step(self, action):
        if self.delay:
            time.sleep(self.delay)
        self.t += 1
        return np.array([float(self.t)]), 1.0, self.end_at > 0 and self.t >= self.end_at, False, {}


class FaultyEnv(gymnasium.Env):
    """Behaves like SlowEnv until step `at` of an episode, where it does `fault`:
    "raise" (ValueError), "reset_raise" (raises in reset after the first), "exit" (os._exit),
    "segfault", "hang" (sleeps an hour), "interrupt" (raises KeyboardInterrupt), "fork"
    (os.fork(), and the child returns from the step too, as a library that forks and lets its
    child run on would), "popen" (starts `sleep 600`; the step's info has its pid)."""

    def __init__(self, fault: str = "raise", at: int = 3):
        self.observation_space = spaces.Box(0, 1e9, (1,), np.float64)
        self.action_space = spaces.Discrete(2)
        self.fault = fault
        self.at = at
        self.t = 0
        self.resets = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.resets += 1
        if self.fault == "reset_raise" and self.resets == 2:
            raise KeyError("reset failed on purpose")
        self.t = 0
        return np.array([0.0]), {}

    def step(self, action):
        self.t += 1
        if self.t == self.at:
            if self.fault == "raise":
                raise ValueError(f"step {self.t} failed on purpose")
            if self.fault == "exit":
                os._exit(3)
            if self.fault == "segfault":
                # Python's crash report to this process's fd 2 (which the test captures), not to the
                # terminal that pytest's own faulthandler, inherited through fork, writes to. Disabled
                # first: enable() on an enabled faulthandler only moves its output and leaves the
                # signal handlers as they are, and a library in the parent may have replaced them
                # since (ray.init() installs its own SIGSEGV handler: no report at all).
                faulthandler.disable()
                faulthandler.enable(file=sys.stderr)
                ctypes.string_at(0)
            if self.fault == "hang":
                time.sleep(3600)
            if self.fault == "interrupt":
                raise KeyboardInterrupt
            if self.fault == "fork":
                os.fork()
            if self.fault == "popen":
                child = subprocess.Popen(["sleep", "600"])
                return np.array([float(self.t)]), 1.0, False, False, {"child_pid": child.pid}
        return np.array([float(self.t)]), 1.0, self.fault == "reset_raise" and self.t >= 2, False, {}


class TypedActionsEnv(gymnasium.Env):
    """Actions of every dtype family the core validates: a float64 box, an int32 box with
    per-element bounds, MultiDiscrete with a start, MultiBinary."""

    def __init__(self):
        self.observation_space = spaces.Box(-1e9, 1e9, (1,), np.float64)
        self.action_space = spaces.Dict(
            {
                "f64": spaces.Box(-1.0, 1.0, (2,), np.float64),
                "i32": spaces.Box(np.array([0, -5]), np.array([3, 5]), (2,), np.int32),
                "md": spaces.MultiDiscrete([2, 3], start=[1, -1]),
                "mb": spaces.MultiBinary(2),
            }
        )

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(1), {}

    def step(self, action):
        total = float(np.sum(action["f64"]) + np.sum(action["i32"]) + np.sum(action["md"]) + np.sum(action["mb"]))
        return np.array([total]), 0.0, False, False, {}


def mixed(fault: str, n: int = 4, at: int = 3, bad: int = 1):
    """n envs, env `bad` faulty at step `at`, the rest plain."""
    return [functools.partial(FaultyEnv, fault, at) if i == bad else SlowEnv for i in range(n)]
