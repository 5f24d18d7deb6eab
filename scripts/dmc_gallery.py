"""Render one frame of each dm_control suite domain into a labelled grid (docs/dmc_gallery.png).

    python3 scripts/dmc_gallery.py [--out docs/dmc_gallery.png] [--size 128] [--steps 20]

One single-env pool per domain, made with ``from_pixels=True`` (the frames are the
observations, drawn in the pool's thread by MuJoCo's renderer, as a pixel-based agent sees
them), takes ``--steps`` uniformly random actions from ``--seed``; the last observation is the
domain's cell. The camera is DrQ's choice (camera 0, quadruped's camera 2: the suite's
tracking cameras) rather than the free camera that ``camera_id=-1`` gives. Labels are drawn
with Pillow's built-in bitmap font when Pillow is installed (left out otherwise); the PNG is
written by ``gallery.write_png`` (zlib alone).

Needs dm-control's model files (``pip install --no-deps dm-control==1.0.50``) and a GL backend
(EGL or OSMesa, see docs/api.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from gallery import write_png  # scripts/gallery.py: the same zlib PNG writer

import envpool

# One task per domain (dm_control.suite's 19 domains, in its order); quadruped escape does not
# take from_pixels, so quadruped shows walk.
DOMAIN_TASKS = {
    "acrobot": "AcrobotSwingup-v1",
    "ball_in_cup": "BallInCupCatch-v1",
    "cartpole": "CartpoleSwingup-v1",
    "cheetah": "CheetahRun-v1",
    "dog": "DogWalk-v1",
    "finger": "FingerSpin-v1",
    "fish": "FishSwim-v1",
    "hopper": "HopperHop-v1",
    "humanoid": "HumanoidWalk-v1",
    "humanoid_CMU": "HumanoidCMUWalk-v1",
    "lqr": "LqrLqr21-v1",
    "manipulator": "ManipulatorBringBall-v1",
    "pendulum": "PendulumSwingup-v1",
    "point_mass": "PointMassEasy-v1",
    "quadruped": "QuadrupedWalk-v1",
    "reacher": "ReacherEasy-v1",
    "stacker": "StackerStack2-v1",
    "swimmer": "SwimmerSwimmer6-v1",
    "walker": "WalkerWalk-v1",
}
CAMERA = {"quadruped": 2}  # DrQ's cameras; 0 elsewhere
PAD, LABEL_H = 4, 14
BACKGROUND = 235


def domain_frame(task: str, camera_id: int, size: int, steps: int, seed: int) -> np.ndarray:
    envs = envpool.make(
        task,
        env_type="gymnasium",
        num_envs=1,
        seed=seed,
        from_pixels=True,
        height=size,
        width=size,
        camera_id=camera_id,
    )
    try:
        obs, _ = envs.reset()
        rng = np.random.default_rng(seed)
        low, high = envs.action_space.low, envs.action_space.high
        for _ in range(steps):
            obs, *_ = envs.step(rng.uniform(low, high))
        return obs[0]
    finally:
        envs.close()


def tile(frames: list[np.ndarray], columns: int, size: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Frames row by row on a light background; returns the image and each cell's label origin."""
    rows = -(-len(frames) // columns)
    cell_h = size + LABEL_H
    image = np.full((PAD + rows * (cell_h + PAD), PAD + columns * (size + PAD), 3), BACKGROUND, dtype=np.uint8)
    origins = []
    for i, frame in enumerate(frames):
        r, c = divmod(i, columns)
        y, x = PAD + r * (cell_h + PAD), PAD + c * (size + PAD)
        image[y + LABEL_H : y + LABEL_H + size, x : x + size] = frame
        origins.append((x, y))
    return image, origins


def label(image: np.ndarray, origins: list[tuple[int, int]], names: list[str]) -> np.ndarray:
    try:
        from PIL import Image, ImageDraw
    except ModuleNotFoundError:
        print("Pillow is not installed: the grid has no labels", file=sys.stderr)
        return image
    canvas = Image.fromarray(image)
    draw = ImageDraw.Draw(canvas)
    for (x, y), name in zip(origins, names, strict=True):
        draw.text((x + 1, y + 1), name, fill=(20, 20, 20))
    return np.asarray(canvas)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = Path(__file__).resolve().parent.parent
    parser.add_argument("--out", type=Path, default=root / "docs" / "dmc_gallery.png")
    parser.add_argument("--size", type=int, default=128, help="frame height and width")
    parser.add_argument("--steps", type=int, default=20, help="random steps before the frame")
    parser.add_argument("--columns", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    frames = []
    for domain, task in DOMAIN_TASKS.items():
        frames.append(domain_frame(task, CAMERA.get(domain, 0), args.size, args.steps, args.seed))
        print(f"{domain}: {task}, camera {CAMERA.get(domain, 0)}")
    image, origins = tile(frames, args.columns, args.size)
    image = label(image, origins, list(DOMAIN_TASKS))
    write_png(args.out, np.ascontiguousarray(image))
    print(f"wrote {args.out}: {image.shape[1]} x {image.shape[0]}, {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
