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

import pytest

# dm_control picks its GL backend when first imported: EGL, as our from_pixels frames are drawn
# in the tests (tests/envs/mujoco/test_render.py sets the same).
os.environ.setdefault("MUJOCO_GL", "egl")


def _has_pyopengl() -> bool:
    try:
        return importlib.util.find_spec("OpenGL") is not None
    except ImportError:
        return False


def load_suite():
    """dm_control.suite, with the size table fixed; skips the caller when it is not installed."""
    # dm_control imports the MUJOCO_GL backend with its first module, and its EGL and OSMesa
    # backends need PyOpenGL: without it, import dm_control with rendering off (the frame tests
    # skip then), so that the state tests still run.
    gl = os.environ.get("MUJOCO_GL")
    no_pyopengl = gl in ("egl", "osmesa") and not _has_pyopengl()
    if no_pyopengl:
        os.environ["MUJOCO_GL"] = "disabled"
    try:
        import mujoco
        from dm_control.mujoco.wrapper.mjbindings import sizes

        for struct, cls in (("mjmodel", mujoco.MjModel), ("mjdata", mujoco.MjData)):
            table = sizes.array_sizes[struct]
            for name in [name for name in table if not hasattr(cls, name)]:
                del table[name]
        from dm_control import suite
    except ImportError as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f"dm_control suite tests need dm-control==1.0.50 (installed --no-deps): {exc}")
    finally:
        if no_pyopengl:
            os.environ["MUJOCO_GL"] = gl
    return suite
