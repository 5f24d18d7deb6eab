"""dm_control's suite as the tests' oracle, made to run on MuJoCo 4 and on every CPU alike.

dm-control 1.0.50 fails on MuJoCo 4.0 only in its table of named-index sizes, which lists
mjModel / mjData fields that MuJoCo 4.0 dropped (``flex_vertedge``, ...): its named views
look them up when a Physics is built. Dropping the entries the installed bindings lack makes it
run.

Its rewards (``dm_control.utils.rewards``) and tasks call numpy's exp, cosh, tanh, log,
arcsinh, sin, ... On CPUs with AVX-512 (numpy's X86_V4 dispatch, e.g. an AMD EPYC of 2026)
numpy evaluates float64 transcendental functions with its own SIMD code, which differs from the
C library's by an ulp or two now and then (29 of the suite's tasks differed so in a reward
within 30 steps, quadruped also in its arcsinh'd force-torque observation); without AVX-512
numpy calls the C library, as our C++ does. So dm_control's own values differ in the last bit
between machines. The oracle here evaluates those functions with the C library (Python's
``math``), in every module of dm_control's suite, on every machine: the values dm_control
gives without AVX-512 (as ``NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL"`` gives for a whole
process).

This lives in the tests only: the package itself never imports dm_control (it reads the
suite's XML files).
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys

import numpy as np
import pytest


def _by_libm(name):
    """numpy's `name` evaluated element by element by ``math``'s function of the same meaning:
    float64 arrays in, float64 arrays (numpy scalars for 0-d) out. Where ``math`` refuses (an
    overflow, a pole, outside the domain) numpy's own value stands: inf, -inf or nan, exact
    either way."""
    fn = getattr(math, {"arccos": "acos", "arccosh": "acosh", "arctanh": "atanh", "arcsinh": "asinh"}.get(name, name))
    np_fn = getattr(np, name)

    def apply(x):
        a = np.asarray(x, dtype=np.float64)
        out = np.empty(a.shape)
        flat = out.reshape(-1)
        for i, v in enumerate(a.reshape(-1).tolist()):
            try:
                flat[i] = fn(v)
            except (OverflowError, ValueError):
                with np.errstate(all="ignore"):
                    flat[i] = np_fn(v)
        return out if out.ndim else out[()]

    return staticmethod(apply)


class _NumpyWithLibm:
    """numpy for dm_control's suite and rewards modules, with the transcendental functions they
    call evaluated by the C library."""

    exp, log, log1p, sin, cos = (_by_libm(n) for n in ("exp", "log", "log1p", "sin", "cos"))
    cosh, tanh, arccos, arccosh = (_by_libm(n) for n in ("cosh", "tanh", "arccos", "arccosh"))
    arctanh, arcsinh = _by_libm("arctanh"), _by_libm("arcsinh")

    @staticmethod
    def arctan2(y, x):
        y, x = np.broadcast_arrays(np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64))
        out = np.array([math.atan2(a, b) for a, b in zip(y.reshape(-1).tolist(), x.reshape(-1).tolist())]).reshape(
            y.shape
        )
        return out if out.ndim else out[()]

    def __getattr__(self, name):
        return getattr(np, name)


# dm_control picks its GL backend when first imported: EGL, as our from_pixels frames are drawn
# in the tests (tests/envs/mujoco/test_render.py sets the same).
os.environ.setdefault("MUJOCO_GL", "egl")


def _import_suite():
    """Imports dm_control (fixing its size table) and returns dm_control.suite."""
    import mujoco
    from dm_control.mujoco.wrapper.mjbindings import sizes

    for struct, cls in (("mjmodel", mujoco.MjModel), ("mjdata", mujoco.MjData)):
        table = sizes.array_sizes[struct]
        for name in [name for name in table if not hasattr(cls, name)]:
            del table[name]
    from dm_control import suite

    libm_numpy = _NumpyWithLibm()
    for name, module in list(sys.modules.items()):
        if (name.startswith("dm_control.suite") or name == "dm_control.utils.rewards") and getattr(
            module, "np", None
        ) is np:
            module.np = libm_numpy
    return suite


def load_suite():
    """dm_control.suite, with the size table fixed; skips the caller when it is not installed.

    dm_control loads the MUJOCO_GL backend with its first module; where that fails (its EGL and
    OSMesa backends need PyOpenGL and the GL library), dm_control is imported again with rendering
    off, so that the state tests still run (the frame tests skip on their own check)."""
    for module in ("mujoco", "dm_control"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(
                "dm_control suite tests need mujoco-core ([test]) and dm-control: pip install --no-deps --upgrade "
                f"--target .test-oracles dm-control==1.0.50; import {module} failed: not found"
            )
    try:
        return _import_suite()
    except Exception:  # noqa: BLE001 - any failure of the GL backend's import
        gl = os.environ.get("MUJOCO_GL")
        for name in [name for name in sys.modules if name == "dm_control" or name.startswith("dm_control.")]:
            del sys.modules[name]
        os.environ["MUJOCO_GL"] = "disabled"
        try:
            return _import_suite()
        finally:
            if gl is None:
                del os.environ["MUJOCO_GL"]
            else:
                os.environ["MUJOCO_GL"] = gl


def skip_unless_egl_frames() -> None:
    """Skips the calling test module (at import) unless envpool was built with the MuJoCo tasks
    and frames are drawn with EGL, which both sides of a pixel comparison need."""
    import pytest

    import envpool

    if "CheetahRun-v1" not in envpool.list_all_envs():  # pragma: no cover
        pytest.skip("envpool was built without the MuJoCo headers", allow_module_level=True)
    if os.environ["MUJOCO_GL"] != "egl":  # pragma: no cover
        pytest.skip(f"these tests compare EGL frames; MUJOCO_GL={os.environ['MUJOCO_GL']}", allow_module_level=True)
