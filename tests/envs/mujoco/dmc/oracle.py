"""dm_control's suite as the tests' oracle, made to run on MuJoCo 4.

dm-control 1.0.50 fails on MuJoCo 4.0 only in its table of named-index sizes, which lists
mjModel / mjData fields that MuJoCo 4.0 dropped (``flex_vertedge``, ...): its named views
look them up when a Physics is built. Dropping the entries the installed bindings lack makes it
run. This lives in the tests only: the package itself never imports dm_control (it reads the
suite's XML files).
"""

from __future__ import annotations

import os

import pytest

# dm_control picks its GL backend when first imported: EGL, as our from_pixels frames are drawn
# in the tests (tests/envs/mujoco/test_render.py sets the same).
os.environ.setdefault("MUJOCO_GL", "egl")


def load_suite():
    """dm_control.suite, with the size table fixed; skips the caller when it is not installed."""
    try:
        import mujoco
        from dm_control.mujoco.wrapper.mjbindings import sizes
    except ImportError as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f"dm_control suite tests need dm-control==1.0.50 (installed --no-deps): {exc}")
    for struct, cls in (("mjmodel", mujoco.MjModel), ("mjdata", mujoco.MjData)):
        table = sizes.array_sizes[struct]
        for name in [name for name in table if not hasattr(cls, name)]:
            del table[name]
    from dm_control import suite

    return suite
