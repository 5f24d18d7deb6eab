#!/usr/bin/env python3
"""A load-independent view of bench/plugin_overhead.py: instructions per env step, counted by
valgrind (callgrind), for the built-in CartPole-v1 and the same code as a plugin.

Wall-clock A/B runs on a shared, busy machine have spreads of tens of percent; instruction counts
do not depend on the load. For each task, a child process (under ``valgrind --tool=callgrind``)
loads the plugin, makes a 64-env pool with 1 thread, resets and makes ``--short`` then, in a
second process, ``--long`` full-batch ``step()`` calls; the difference of the two totals over
the difference of env steps is the cost of one env step (pool, bindings and Python loop
included, start-up and import excluded)::

    python bench/plugin_instructions.py            # 4 processes under valgrind, ~3 minutes on 2 cores

Caveat: valgrind runs one thread at a time, and an idle worker's spin-then-sleep wait is counted
too, so this measures the work per step, not its parallel speed.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from plugin_overhead import build_plugin  # noqa: E402

NUM_ENVS = 64
CHILD = r"""
import sys, numpy as np, envpool
envpool.load_plugin(sys.argv[1])
task, steps = sys.argv[2], int(sys.argv[3])
env = envpool.make(task, num_envs=64, num_threads=1, seed=1)
acts = np.random.default_rng(0).integers(0, 2, size=(64, 64), dtype=np.int64)
env.reset()
for k in range(steps):
    env.step(acts[k & 63])
env.close()
"""


def count(plugin: Path, task: str, steps: int, out: Path) -> int:
    proc = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-c",
            CHILD,
            str(plugin),
            task,
            str(steps),
        ],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    m = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or not m:
        raise RuntimeError(f"{task} {steps}: valgrind failed (rc {proc.returncode}):\n{proc.stderr[-2000:]}")
    return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--short", type=int, default=200, help="batch steps of the first process")
    ap.add_argument("--long", type=int, default=2200, help="batch steps of the second process")
    opts = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    tasks = ("CartPole-v1", "PluginCartPole-v1")
    with tempfile.TemporaryDirectory(prefix="envpool-bench-instr-") as tmp:
        plugin = build_plugin(Path(tmp) / "build")
        jobs = [(t, s) for t in tasks for s in (opts.short, opts.long)]
        with ThreadPoolExecutor(2) as pool:
            totals = dict(
                zip(jobs, pool.map(lambda j: count(plugin, j[0], j[1], Path(tmp) / f"{j[0]}-{j[1]}.cg"), jobs))
            )
    env_steps = (opts.long - opts.short) * NUM_ENVS
    per_step = {t: (totals[(t, opts.long)] - totals[(t, opts.short)]) / env_steps for t in tasks}
    print("| task | instructions, short run | long run | per env step |\n|---|---:|---:|---:|")
    for t in tasks:
        print(f"| {t} | {totals[(t, opts.short)]:,} | {totals[(t, opts.long)]:,} | {per_step[t]:.1f} |")
    print(
        f"\n{NUM_ENVS} envs, 1 thread, {opts.short} and {opts.long} full-batch steps; plugin/built-in = "
        f"{per_step['PluginCartPole-v1'] / per_step['CartPole-v1']:.3f}"
    )


if __name__ == "__main__":
    main()
