"""Render one frame of every task that renders into a grid image (docs/gallery.png).

    python3 scripts/gallery.py [--out docs/gallery.png] [--steps 15] [--columns 3] [--seed 0]

Each task runs in its own single-env pool (``render_mode="rgb_array"``) for a few random steps
before its frame is taken; frames are shrunk (area average) to fit equal cells and laid out row
by row in task order (``envpool.list_all_envs()``, one frame per task family: "CartPole-v0" is
left out when "CartPole-v1" is there). The PNG is written with zlib alone (no imaging library).
"""

from __future__ import annotations

import argparse
import re
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

import envpool

CELL_W, CELL_H, PAD = 300, 250, 8
BACKGROUND = np.array([224, 224, 224], dtype=np.uint8)


def rendering_tasks() -> list[str]:
    """Tasks that render, newest version of each name only."""
    newest: dict[str, tuple[int, str]] = {}
    for task in envpool.list_all_envs():
        if envpool.make_spec(task).render_shape is None:
            continue
        m = re.fullmatch(r"(.*)-v(\d+)", task)
        name, version = (m.group(1), int(m.group(2))) if m else (task, 0)
        if name not in newest or version > newest[name][0]:
            newest[name] = (version, task)
    order = envpool.list_all_envs()
    return sorted((task for _, task in newest.values()), key=order.index)


def frame_after_steps(task: str, steps: int, seed: int) -> np.ndarray:
    envs = envpool.make(task, num_envs=1, seed=seed, render_mode="rgb_array")
    try:
        envs.reset()
        envs.action_space.seed(seed)
        for _ in range(steps):
            envs.step(envs.action_space.sample())
        return envs.render()[0]
    finally:
        envs.close()


def shrink(frame: np.ndarray, max_w: int, max_h: int) -> np.ndarray:
    """Area-average ``frame`` down to fit max_w x max_h (aspect kept; never enlarged)."""
    h, w, _ = frame.shape
    f = min(1.0, max_w / w, max_h / h)
    out_h, out_w = max(1, round(h * f)), max(1, round(w * f))
    rows = np.add.reduceat(frame.astype(np.float64), np.floor(np.arange(out_h) * h / out_h).astype(int), axis=0)
    rows /= np.diff(np.append(np.floor(np.arange(out_h) * h / out_h), h))[:, None, None]
    cols = np.add.reduceat(rows, np.floor(np.arange(out_w) * w / out_w).astype(int), axis=1)
    cols /= np.diff(np.append(np.floor(np.arange(out_w) * w / out_w), w))[None, :, None]
    return np.clip(np.rint(cols), 0, 255).astype(np.uint8)


def grid(frames: list[np.ndarray], columns: int) -> np.ndarray:
    rows = -(-len(frames) // columns)
    image = np.empty((PAD + rows * (CELL_H + PAD), PAD + columns * (CELL_W + PAD), 3), dtype=np.uint8)
    image[:] = BACKGROUND
    for i, frame in enumerate(frames):
        small = shrink(frame, CELL_W, CELL_H)
        r, c = divmod(i, columns)
        y = PAD + r * (CELL_H + PAD) + (CELL_H - small.shape[0]) // 2
        x = PAD + c * (CELL_W + PAD) + (CELL_W - small.shape[1]) // 2
        image[y : y + small.shape[0], x : x + small.shape[1]] = small
    return image


def write_png(path: Path, image: np.ndarray) -> None:
    """An 8-bit RGB PNG: signature, IHDR, one zlib-compressed IDAT (filter 0 rows), IEND."""
    h, w, _ = image.shape

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = np.concatenate([np.zeros((h, 1), dtype=np.uint8), image.reshape(h, w * 3)], axis=1).tobytes()
    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9))
    png += chunk(b"IEND", b"")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "gallery.png")
    parser.add_argument("--steps", type=int, default=15, help="random steps before the frame")
    parser.add_argument("--columns", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    tasks = rendering_tasks()
    if not tasks:
        print("no task renders", file=sys.stderr)
        return 1
    frames = []
    for task in tasks:
        frames.append(frame_after_steps(task, args.steps, args.seed))
        print(f"{task}: {frames[-1].shape[1]} x {frames[-1].shape[0]}")
    write_png(args.out, grid(frames, args.columns))
    print(f"wrote {args.out} ({len(tasks)} tasks, row by row: {', '.join(tasks)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
