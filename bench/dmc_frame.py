#!/usr/bin/env python3
"""Where the time of one dm_control frame goes: CheetahRun's free camera at 84 x 84 (the pixel
rows of dmc.py), drawn with MuJoCo's own calls one by one in an EGL context of this thread, for
the suite's model and for copies with one costly feature of its scene turned off.

    python bench/dmc_frame.py [--rounds 5] [--frames 15] [--size 84]

Columns: ``mjv_updateScene`` (CPU), ``mjr_render`` and ``mjr_readPixels`` (ms per frame,
medians over interleaved rounds). Under Mesa's llvmpipe ``mjr_render`` only queues much of the
GL work, which runs at the read-back's flush, so read the two GL columns together. The
variants change the frame (they are not options of ours): they show what each part of
MuJoCo's drawing costs, which is the same for every program that draws dm_control's frames
(dm_control's ``physics.render``, the reference EnvPool, ours).

Needs mujoco-core and dm-control's model files (``pip install --no-deps dm-control==1.0.50``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from importlib.util import find_spec
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

import mujoco  # noqa: E402 (MUJOCO_GL first)
import numpy as np  # noqa: E402


def no_shadows(m):
    m.light_castshadow[:] = 0


def small_shadow_map(m):
    m.vis.quality.shadowsize = 1024


def no_msaa(m):
    m.vis.quality.offsamples = 0


def no_reflection(m):
    m.mat_reflectance[:] = 0


def none_of_them(m):
    for change in (no_shadows, no_msaa, no_reflection):
        change(m)


VARIANTS = {
    "the suite's model": lambda m: None,
    "shadow map 1024^2 (model: 2048^2)": small_shadow_map,
    "no shadows": no_shadows,
    "no multisampling (model: 4x)": no_msaa,
    "no floor reflection": no_reflection,
    "none of the three": none_of_them,
}


def cheetah() -> mujoco.MjModel:
    suite = Path(find_spec("dm_control").submodule_search_locations[0]) / "suite"
    assets = {"./common/" + p.name: p.read_bytes() for p in (suite / "common").glob("*.xml")}
    return mujoco.MjModel.from_xml_string((suite / "cheetah.xml").read_text(), assets)


class Frame:
    """One model copy with its scene, GL context resources and free camera."""

    def __init__(self, change, size: int):
        self.m = cheetah()
        change(self.m)
        self.d = mujoco.MjData(self.m)
        mujoco.mj_forward(self.m, self.d)
        self.scene = mujoco.MjvScene(self.m, 1000)
        self.con = mujoco.MjrContext(self.m, mujoco.mjtFontScale.mjFONTSCALE_150)
        self.cam, self.opt, self.pert = mujoco.MjvCamera(), mujoco.MjvOption(), mujoco.MjvPerturb()
        mujoco.mjv_defaultFreeCamera(self.m, self.cam)
        self.rgb = np.empty((size, size, 3), np.uint8)
        self.viewport = mujoco.MjrRect(0, 0, size, size)

    def time(self, frames: int) -> tuple[float, float, float]:
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self.con)
        update = render = read = 0.0
        for _ in range(frames):
            t0 = time.perf_counter()
            mujoco.mjv_updateScene(
                self.m, self.d, self.opt, self.pert, self.cam, mujoco.mjtCatBit.mjCAT_ALL, self.scene
            )
            t1 = time.perf_counter()
            mujoco.mjr_render(self.viewport, self.scene, self.con)
            t2 = time.perf_counter()
            mujoco.mjr_readPixels(self.rgb, None, self.viewport, self.con)
            t3 = time.perf_counter()
            update, render, read = update + t1 - t0, render + t2 - t1, read + t3 - t2
        return update * 1e3 / frames, render * 1e3 / frames, read * 1e3 / frames


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--frames", type=int, default=15, help="frames per variant per round")
    parser.add_argument("--size", type=int, default=84)
    args = parser.parse_args(argv)

    from mujoco.egl import GLContext  # the dm_control pixel rows' backend

    gl = GLContext(args.size, args.size)
    gl.make_current()
    frames = {name: Frame(change, args.size) for name, change in VARIANTS.items()}
    for f in frames.values():
        f.time(2)  # first frames: shader compilation, uploads
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in frames}
    for _ in range(args.rounds):
        for name, f in frames.items():
            times[name].append(f.time(args.frames))
    print(f"load average {os.getloadavg()[0]:.1f}; {args.size} x {args.size}; ms per frame, medians")
    print("| scene | mjv_updateScene | mjr_render | mjr_readPixels | frame |\n|---|---:|---:|---:|---:|")
    for name, rows in times.items():
        u, r, p = (statistics.median(row[i] for row in rows) for i in range(3))
        print(f"| {name} | {u:.2f} | {r:.1f} | {p:.1f} | {u + r + p:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
