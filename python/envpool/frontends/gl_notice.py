"""Says once per process which GL renderer draws MuJoCo frames, when it is a software one.

On a machine without a GPU's EGL, MuJoCo frames are drawn by Mesa's llvmpipe on the CPU: tens of
frames per second per core (CheetahRun at 84 x 84: ~50-100 on 2 cores), where a GPU draws
hundreds; a pool with frames is then that slow with nothing saying why. The first pool whose
envs loaded the GL backend (``render_mode="rgb_array"``, ``from_pixels=True``) warns, once,
naming the renderer and how to draw on a GPU; a GPU's renderer says nothing.
"""

from __future__ import annotations

import os
import sys
import warnings

from envpool import _core

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_said = False


class SoftwareRendererWarning(UserWarning):
    """MuJoCo frames are drawn on the CPU (Mesa's software renderer): say so, once."""


def _caller_stacklevel() -> int:
    """``warnings.warn``'s stacklevel of the first frame outside the envpool package (the
    user's ``make``), as seen from the caller of this function's caller."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def note_gl_renderer() -> None:
    """Warns (once per process) when the loaded GL backend draws in software; cheap otherwise."""
    global _said
    if _said:
        return
    info = _core.gl_renderer()
    if info is None or not info["software"]:
        return
    _said = True
    warnings.warn(
        f"envpool draws MuJoCo frames with {info['renderer']} (MUJOCO_GL={info['backend']}), Mesa's software "
        "renderer: on the CPU, tens of frames per second per core. To draw on a GPU, install its driver's EGL "
        "(libEGL.so.1 from glvnd with e.g. NVIDIA's libEGL_nvidia.so.0) and keep MUJOCO_GL=egl "
        "(MUJOCO_EGL_DEVICE_ID picks the device); docs/tasks.md, 'MuJoCo frames'.",
        SoftwareRendererWarning,
        stacklevel=_caller_stacklevel(),
    )
