"""gymnasium-robotics 1.4.2 as the tests' oracle (installed with ``pip install --no-deps
--upgrade --target .test-oracles gymnasium-robotics==1.4.2``; tests/conftest.py puts that folder
on sys.path).

Two test-side adjustments, neither in the package:

* ``np.exp`` / ``arccos`` / ``arctan2`` / ``tanh`` / ``log`` in its modules are evaluated by the C library
  (Python's ``math``), as the dm_control oracle does (tests/envs/mujoco/dmc/oracle.py). On CPUs
  with AVX-512 numpy evaluates them with its own SIMD code, which differs from the C library's
  in the last bit: measured here, ``np.exp`` on 4.6% of the dense maze rewards' inputs
  ``exp(-d)``, d uniform in [0, 20] (scalars and arrays alike). Our C++ calls the C library, so
  "exact" means: equal to gymnasium-robotics evaluated with the C library's functions, which is
  what it computes itself on a CPU without AVX-512 (docs/tasks.md).
* ``utils/mujoco_utils.py`` compares a joint type read from the model (a ``numpy.int32``) with
  MuJoCo's ``mjtJoint`` members; under MuJoCo 4 those are enum objects that never equal a numpy
  int, so Fetch, Hand and Kitchen fail at reset. The shim gives the module int-valued constants
  (the maze tasks never reach that code; the Fetch tests do).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import math
import os
import pkgutil
import sys
import types
import warnings

import numpy as np
import pytest


def _by_libm(name: str):
    """numpy's ``name`` evaluated element by element by ``math``'s function of the same meaning
    (float64 in, float64 out, numpy scalars for 0-d)."""
    fn = getattr(math, {"arccos": "acos"}.get(name, name))

    def apply(x, *args, **kwargs):
        if args or kwargs:  # out= or where=: not a call these modules make
            raise TypeError(f"libm {name} takes one argument")
        a = np.asarray(x, dtype=np.float64)
        out = np.array([fn(v) for v in a.reshape(-1).tolist()], dtype=np.float64).reshape(a.shape)
        return out if out.ndim else out[()]

    return staticmethod(apply)


class _NumpyWithLibm:
    """numpy, with the transcendental functions gymnasium-robotics calls evaluated by libm."""

    exp, arccos, tanh, log = _by_libm("exp"), _by_libm("arccos"), _by_libm("tanh"), _by_libm("log")

    @staticmethod
    def arctan2(y, x):
        y, x = np.broadcast_arrays(np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64))
        out = np.array([math.atan2(a, b) for a, b in zip(y.reshape(-1).tolist(), x.reshape(-1).tolist())])
        out = out.reshape(y.shape)
        return out if out.ndim else out[()]

    def __getattr__(self, name):
        return getattr(np, name)


def _shim_joint_types() -> None:
    """mujoco_utils' ``joint_type in (mjJNT_HINGE, mjJNT_SLIDE)`` with int-valued constants (see
    the module docstring)."""
    from gymnasium_robotics.utils import mujoco_utils

    enum = mujoco_utils.mujoco.mjtJoint
    ints = types.SimpleNamespace(**{name: int(getattr(enum, name)) for name in dir(enum) if name.startswith("mjJNT_")})
    real = mujoco_utils.mujoco
    proxy = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if k[0] != "_"})
    proxy.mjtJoint = ints
    mujoco_utils.mujoco = proxy


# The packages whose modules gymnasium imports only when an env is made (its entry points'
# modules and the utils they import): imported before the patch below, so that it reaches them.
_LATE_PACKAGES = (
    "gymnasium_robotics.utils",
    "gymnasium_robotics.envs.fetch",
    "gymnasium_robotics.envs.shadow_dexterous_hand",
)


def _import_late_modules() -> None:
    """Imports every module of ``_LATE_PACKAGES`` (``utils/rotations.py`` among them, which the
    first Fetch or Hand env made would import after the patch otherwise); a module that needs
    ``mujoco_py`` (``utils/mujoco_py_utils.py``) fails to import and is left out: no test makes
    a ``mujoco_py`` env."""
    import gymnasium

    for package_name in _LATE_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            try:
                importlib.import_module(f"{package_name}.{info.name}")
            except (ImportError, gymnasium.error.DependencyNotInstalled):
                pass


_loaded = False


def load_robotics():
    """The oracle's module with its ids registered in gymnasium and the adjustments above;
    skips the caller when gymnasium-robotics is not installed."""
    global _loaded
    if importlib.util.find_spec("gymnasium_robotics") is None or importlib.util.find_spec("mujoco") is None:
        pytest.skip(
            "gymnasium-robotics tests need it as the oracle: pip install --no-deps --upgrade --target .test-oracles "
            "gymnasium-robotics==1.4.2"
        )
    import gymnasium
    import gymnasium_robotics

    if not _loaded:
        gymnasium.register_envs(gymnasium_robotics)
        _import_late_modules()
        libm_numpy = _NumpyWithLibm()
        for name, module in list(sys.modules.items()):
            if name.startswith("gymnasium_robotics") and getattr(module, "np", None) is np:
                module.np = libm_numpy
        _shim_joint_types()
        _loaded = True
    return gymnasium_robotics


def make_oracle(task_id: str, **kwargs):
    """``gymnasium.make(task_id, **kwargs)`` of gymnasium-robotics (its TimeLimit included)."""
    import gymnasium

    load_robotics()
    with warnings.catch_warnings():  # "AntMaze_UMaze-v3 is out of date": the old versions are tested on purpose
        warnings.simplefilter("ignore", DeprecationWarning)
        return gymnasium.make(task_id, disable_env_checker=True, **kwargs)


def assert_obs_equal(ours: dict, theirs: dict, where: str) -> None:
    """Every Dict entry of one env's observation bit for bit (same keys, same values)."""
    assert sorted(ours) == sorted(theirs), where
    for key in theirs:
        np.testing.assert_array_equal(np.asarray(ours[key]), np.asarray(theirs[key]), err_msg=f"{where}: {key}")


def skip_unless_oracle_frames() -> None:
    """Skips a frame comparison where the oracle cannot draw the frames we match: they are compared
    in EGL contexts with PyOpenGL, and drawn by gymnasium's MujocoRenderer as gymnasium >= 1.2
    draws them (gymnasium-robotics 1.4.2 requires gymnasium>=1.2.0; 1.1.1's renderer places
    AntMaze's camera differently, which CI's extras step, on gymnasium 1.1.1, would compare)."""
    __tracebackhide__ = True
    if os.environ.get("MUJOCO_GL") != "egl" or importlib.util.find_spec("OpenGL") is None:
        pytest.skip(f"frames are compared in EGL contexts with PyOpenGL (MUJOCO_GL={os.environ.get('MUJOCO_GL')})")
    version = importlib.metadata.version("gymnasium")
    if tuple(int(x) for x in version.split(".")[:2]) < (1, 2):
        pytest.skip(f"gymnasium-robotics 1.4.2 draws with gymnasium>=1.2.0's renderer; gymnasium {version} is here")


def async_observations(envs, actions: np.ndarray, entry: str | None = None) -> list[np.ndarray]:
    """Runs an asynchronous pool (batch_size < num_envs) from ``async_reset``, env i taking
    ``actions[i]`` in order (its last one again while others catch up), until every env has its
    reset observation and ``actions.shape[1]`` more; closes the pool. Returns those observations
    per env (``entry`` of a Dict observation, or the whole Box one)."""
    steps = actions.shape[1]
    got: list[list[np.ndarray]] = [[] for _ in range(len(actions))]
    counts = np.zeros(len(actions), dtype=int)
    envs.async_reset()
    try:
        while min(len(g) for g in got) < steps + 1:
            obs, _, _, _, info = envs.recv()
            ids = info["env_id"]
            rows = obs if entry is None else obs[entry]
            for row, i in enumerate(ids):
                got[i].append(rows[row])
            envs.send(np.stack([actions[i][min(counts[i], steps - 1)] for i in ids]), ids)
            counts[ids] += 1
    finally:
        envs.close()
    return [np.stack(g[: steps + 1]) for g in got]
