"""gymnasium-robotics 1.4.2's Fetch tasks as the tests' oracle (installed with ``pip install
--no-deps --upgrade --target .test-oracles gymnasium-robotics==1.4.2``; tests/conftest.py puts
that folder on sys.path). Three test-side adjustments, none in the package:

* ``utils/mujoco_utils.py`` compares a joint type read from the model (a ``numpy.int32``) with
  MuJoCo's ``mjtJoint`` members (``joint_type in (mjJNT_HINGE, mjJNT_SLIDE)``); under MuJoCo 4
  those are enum objects that equal no numpy int, so every Fetch task fails at reset. The module
  gets int-valued ``mjtJoint`` / ``mjtEq`` constants.
* ``utils/rotations.py``'s ``mat2euler`` (the block's rotation in the observation) calls
  ``np.arctan2``, which numpy evaluates with its own SIMD code on CPUs with AVX-512: it differs
  from the C library's ``atan2`` on 7.3% of random inputs there, and in the last bit of the
  block's rotation on 5 of 1,200 observation rows of random Push / PickAndPlace / Slide episodes
  (measured on this repository's AMD EPYC, numpy 2.4). Our C++ calls the C library, as numpy does
  on CPUs without AVX-512; the oracle evaluates ``arctan2`` with ``math.atan2`` everywhere, as the
  dm_control oracle does (tests/envs/mujoco/dmc/oracle.py). "Exact" in docs/tasks.md means that.
* Its reset returns an empty info; the pool's rows always carry ``is_success``, 0 on a reset row
  (docs/tasks.md), which ``ResetInfo`` adds to the oracle's reset info.
"""

from __future__ import annotations

import importlib.util
import math
import types

import gymnasium
import numpy as np
import pytest

V4_IDS = [f"Fetch{task}{dense}-v4" for task in ("Reach", "Push", "Slide", "PickAndPlace") for dense in ("", "Dense")]


class _NumpyWithLibmAtan2:
    """numpy for rotations.py, with ``arctan2`` evaluated by the C library."""

    @staticmethod
    def arctan2(y, x):
        y, x = np.broadcast_arrays(np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64))
        flat = [math.atan2(a, b) for a, b in zip(y.reshape(-1).tolist(), x.reshape(-1).tolist())]
        out = np.array(flat, dtype=np.float64).reshape(y.shape)
        return out if out.ndim else out[()]

    def __getattr__(self, name):
        return getattr(np, name)


_loaded = False


def load():
    """gymnasium_robotics with its ids registered and the adjustments above; skips the caller
    when it is not installed."""
    global _loaded
    if importlib.util.find_spec("gymnasium_robotics") is None:
        pytest.skip("gymnasium-robotics is not installed (pip install --no-deps --target .test-oracles ...)")
    import gymnasium_robotics
    from gymnasium_robotics.utils import mujoco_utils, rotations

    if not _loaded:
        real = mujoco_utils.mujoco
        proxy = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if not k.startswith("_")})
        for enum_name in ("mjtJoint", "mjtEq"):
            enum = getattr(real, enum_name)
            ints = {name: int(getattr(enum, name)) for name in dir(enum) if name.startswith("mj")}
            setattr(proxy, enum_name, types.SimpleNamespace(**ints))
        mujoco_utils.mujoco = proxy
        rotations.np = _NumpyWithLibmAtan2()
        gymnasium.register_envs(gymnasium_robotics)
        _loaded = True
    return gymnasium_robotics


class ResetInfo(gymnasium.Wrapper):
    """The oracle with ``is_success`` = 0 (float32) in its reset info, as the pool's reset rows."""

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs, {"is_success": np.float32(0.0), **info}


def make(task_id: str, **kwargs) -> gymnasium.Env:
    """One oracle env of ``task_id`` (with gymnasium-robotics' 50-step time limit)."""
    load()
    return ResetInfo(gymnasium.make(task_id, **kwargs))
