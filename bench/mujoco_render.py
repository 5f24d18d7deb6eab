#!/usr/bin/env python3
"""MuJoCo frames per second: our batched ``envs.render()`` against gymnasium's renderer.

For each frame size, 8 HalfCheetah-v5 envs (render_mode="rgb_array", MUJOCO_GL=egl on both sides):

  * ours: ``envpool.make(..., num_envs=8, num_threads=T)``, one ``render()`` draws all 8 on the
    pool's T worker threads (each with its own GL context);
  * gymnasium: 8 ``gymnasium.make`` envs rendered one after another (what SyncVectorEnv.render
    does), in the same process.

Each side first draws once (context creation, mesh upload) untimed, then draws for --seconds;
frames/s = frames drawn / wall time. The first frames of both are checked equal (same states).

    python bench/mujoco_render.py [--seconds 3] [--threads 2] [--sizes 84 480]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("MUJOCO_GL", "egl")

import gymnasium as gym
import numpy as np

import envpool

TASK = "HalfCheetah-v5"
NUM_ENVS = 8


def _timed(draw, seconds: float) -> float:
    """Frames per second of `draw` (which draws NUM_ENVS frames) over about `seconds`."""
    draw()  # contexts, uploads
    frames, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        draw()
        frames += NUM_ENVS
    return frames / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sizes", type=int, nargs="+", default=[84, 480])
    args = parser.parse_args()
    print(f"{TASK}, {NUM_ENVS} envs, MUJOCO_GL={os.environ['MUJOCO_GL']}, {os.cpu_count()} CPUs")
    print(f"| frame | ours (render(), {args.threads} threads) | gymnasium (8 envs, one by one) | ours / gymnasium |")
    print("|---|---|---|---|")
    for size in args.sizes:
        ours = envpool.make(
            TASK, num_envs=NUM_ENVS, num_threads=args.threads, seed=0, render_mode="rgb_array", width=size, height=size
        )
        ours.reset()
        refs = [gym.make(TASK, render_mode="rgb_array", width=size, height=size).unwrapped for _ in range(NUM_ENVS)]
        for i, ref in enumerate(refs):
            ref.reset(seed=i)
            s = ours.get_state(i)
            nq, nv = ref.model.nq, ref.model.nv
            ref.set_state(s[:nq], s[nq : nq + nv])
            ours.set_state(i, s[: nq + nv])  # both after the same mj_forward
        first = ours.render()
        assert all(np.array_equal(f, ref.render()) for f, ref in zip(first, refs)), "frames differ"
        fps_ours = _timed(ours.render, args.seconds)
        fps_ref = _timed(lambda refs=refs: [ref.render() for ref in refs], args.seconds)
        print(f"| {size}x{size} | {fps_ours:.1f} | {fps_ref:.1f} | {fps_ours / fps_ref:.2f}x |")
        ours.close()
        for ref in refs:
            ref.close()


if __name__ == "__main__":
    main()
