"""dm_control's suite as the tests' oracle, made to run on MuJoCo 4.

dm-control 1.0.50 fails on MuJoCo 4.0 only in its table of named-index sizes, which lists
mjModel / mjData fields that MuJoCo 4.0 dropped (``flex_vertedge``, ...): its named views
look them up when a Physics is built. Dropping the entries the installed bindings lack makes it
run. This lives in the tests only: the package itself never imports dm_control (it reads the
suite's XML files).
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

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

    return suite


def load_suite():
    """dm_control.suite, with the size table fixed; skips the caller when it is not installed.

    dm_control loads the MUJOCO_GL backend with its first module; where that fails (its EGL and
    OSMesa backends need PyOpenGL and the GL library), dm_control is imported again with rendering
    off, so that the state tests still run (the frame tests skip on their own check)."""
    if importlib.util.find_spec("mujoco") is None or importlib.util.find_spec("dm_control") is None:
        pytest.skip("dm_control suite tests need mujoco-core and dm-control==1.0.50 (installed --no-deps)")
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
