#!/usr/bin/env python3
"""Plots a training run's episode returns from the lines a CleanRL script prints.

CleanRL's ``ppo_atari_envpool.py`` prints ``global_step=N, episodic_return=R`` at every finished
game; this draws each return (dots) and their running mean over ``--window`` games (line)
against env steps, and prints the mean return of the first and last windows.

    python scripts/plot_returns.py breakout.log --title "PPO on Breakout-v5" --out docs/atari_breakout_ppo.png
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np

LINE = re.compile(r"^global_step=(\d+), episodic_return=(-?[0-9.]+)\s*$")


def read_returns(path: Path) -> tuple[np.ndarray, np.ndarray]:
    steps, returns = [], []
    for line in path.read_text().splitlines():
        if match := LINE.match(line):
            steps.append(int(match.group(1)))
            returns.append(float(match.group(2)))
    if not steps:
        raise SystemExit(f"{path}: no 'global_step=N, episodic_return=R' lines")
    return np.asarray(steps), np.asarray(returns)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log", type=Path)
    ap.add_argument("--window", type=int, default=50, help="games in the running mean")
    ap.add_argument("--title", default="")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    steps, returns = read_returns(args.log)
    window = max(1, min(args.window, len(returns)))
    running = np.convolve(returns, np.ones(window) / window, mode="valid")
    print(
        f"{len(returns)} games over {steps[-1]} env steps; mean return of the first {window} games "
        f"{returns[:window].mean():.2f}, of the last {window} {returns[-window:].mean():.2f}"
    )

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.scatter(steps, returns, s=4, alpha=0.3, label="game return")
    ax.plot(steps[window - 1 :], running, color="C1", label=f"mean of {window} games")
    ax.set_xlabel("env steps (4 frames each)")
    ax.set_ylabel("return (unclipped, whole game)")
    ax.set_title(args.title)
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)


if __name__ == "__main__":
    main()
