#!/usr/bin/env python3
"""A/B of two builds beside busy processes: one task's full-batch ``step()`` rate, old and new.

``ab_throughput.py`` compares builds on a quiet machine and ``contention.py`` compares peers
beside competitors; this compares two builds (package folders from
``bench/peers/build_commit.sh``) beside ``--competitors`` busy processes (pure-CPU Python loops
that exit with this script), alternating old and new in each round (A B, then B A), each sample
a fresh process: ``envpool.make(task, num_envs=N, num_threads=T)``, 20 warm-up steps, then a
timed ``step()`` loop with random actions. Prints the medians, their ratio and each round's.

    OLD=$(bench/peers/build_commit.sh b2ad70a) NEW=$(bench/peers/build_commit.sh b933b49)
    python bench/ab_contended.py --old "$OLD" --new "$NEW" --task CheetahRun-v1 --num-envs 32 --competitors 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

from _common import WORKER_PRELUDE  # bench/ is sys.path[0] when a script runs

CHILD = (
    WORKER_PRELUDE
    + r"""
import envpool

task, n, t, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
env = envpool.make(task, num_envs=n, num_threads=t, seed=0)
env.reset()
acts = random_action_block(env.single_action_space, n, 8, 0)
for i in range(20):
    env.step(acts[i & 7])
t0 = time.perf_counter()
k = 0
while time.perf_counter() - t0 < seconds:
    env.step(acts[k & 7])
    k += 1
print(k * n / (time.perf_counter() - t0))
env.close()
"""
)

# A busy competitor: integer work until its parent (this script) is gone.
BUSY = r"""
import os
parent = os.getppid()
x = 0
while os.getppid() == parent:
    for _ in range(100000):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
"""


def sample(pkg: str, opts: argparse.Namespace) -> float:
    args = [sys.executable, "-c", CHILD, opts.task, str(opts.num_envs), str(opts.threads), str(opts.seconds)]
    out = subprocess.run(args, env=dict(os.environ, PYTHONPATH=pkg), capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return float(out.stdout.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="package folder of build A")
    ap.add_argument("--new", required=True, help="package folder of build B")
    ap.add_argument("--task", default="CheetahRun-v1")
    ap.add_argument("--num-envs", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--competitors", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=1.5)
    opts = ap.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(opts.competitors)]
    try:
        rates: dict[str, list[float]] = {"old": [], "new": []}
        for r in range(opts.rounds):
            for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
                rates[name].append(sample(getattr(opts, name), opts))
    finally:
        for p in busy:
            p.kill()
    old, new = statistics.median(rates["old"]), statistics.median(rates["new"])
    rounds = ", ".join(f"{b / a:.2f}" for a, b in zip(rates["old"], rates["new"]))
    print(
        f"{opts.task} {opts.num_envs} envs {opts.threads}T beside {opts.competitors} busy: old {old:,.0f} "
        f"new {new:,.0f} steps/s, new/old {new / old:.3f} (per round {rounds}; load {os.getloadavg()[0]:.2f})"
    )


if __name__ == "__main__":
    main()
