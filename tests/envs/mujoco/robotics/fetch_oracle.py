"""gymnasium-robotics 1.4.2's Fetch tasks as the tests' oracle: robotics_oracle.py's (the installed
wheel with the C library's transcendental functions and MuJoCo 4's joint-type shim), plus one
test-side adjustment, not in the package:

* its reset returns an empty info; the pool's rows always carry ``is_success``, 0 on a reset row
  (docs/tasks.md), which ``ResetInfo`` adds to the oracle's reset info.

What the C library's ``atan2`` changes for Fetch: ``rotations.mat2euler`` (the block's rotation
in the observation) calls ``np.arctan2``, which numpy evaluates with its own SIMD code on CPUs
with AVX-512, differing from the C library's on 7.3% of random inputs there; with numpy's, the
block's rotation differed in the last bit on 5 of 1,200 observation rows of random Push /
PickAndPlace / Slide episodes (8 envs x 50 steps each, measured on this repository's AMD EPYC,
numpy 2.4), with the C library's on none.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from .robotics_oracle import load_robotics, make_oracle

V4_IDS = [f"Fetch{task}{dense}-v4" for task in ("Reach", "Push", "Slide", "PickAndPlace") for dense in ("", "Dense")]


class ResetInfo(gymnasium.Wrapper):
    """The oracle with ``is_success`` = 0 (float32) in its reset info, as the pool's reset rows."""

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs, {"is_success": np.float32(0.0), **info}


def load():
    """gymnasium_robotics, ready as the oracle (robotics_oracle.load_robotics, which also gives
    the C library's functions to ``utils/rotations.py``); skips the caller when it is not
    installed."""
    return load_robotics()


def make(task_id: str, **kwargs) -> gymnasium.Env:
    """One oracle env of ``task_id`` (with gymnasium-robotics' 50-step time limit)."""
    load()
    return ResetInfo(make_oracle(task_id, **kwargs))
