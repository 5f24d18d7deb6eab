"""A/B of two envpool builds on one bench/external.py row, alternated A B A B in one run.

    python bench/external_ab.py A_PYTHONPATH B_PYTHONPATH [--row pipelined|threads|one] [--repeat 3]

Each run is ``run_envpool`` of bench/external.py (this checkout's load generator for both
sides) in a fresh process whose ``PYTHONPATH`` is A's or B's ``python/`` directory (with its
own built ``_core``), e.g. A = ``git archive <commit> python | tar -x -C /tmp/a`` plus that
commit's ``_core*.so``. Prints every run and the medians; "server CPU us/rt" is the least
load-sensitive column on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = {
    "pipelined": ("pipelined", 256, 4, 64, 1.0),
    "threads": ("threads", 256, 4, 64, 1.0),
    "one": ("threads", 1, 1, 1, 0.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--row", choices=sorted(ROWS), default="pipelined")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    mode, episodes, procs, batch, wait = ROWS[args.row]
    code = (
        f"import sys, json; sys.path.insert(0, {HERE!r}); import external; "
        f"print(json.dumps(external.run_envpool({mode!r}, {episodes}, {procs}, {args.seconds}, {batch}, {wait})))"
    )
    results: dict[str, list[dict]] = {"A": [], "B": []}
    for r in range(args.repeat):
        for side, path in (("A", args.a), ("B", args.b)):
            out = subprocess.run(
                [sys.executable, "-c", code],
                env={**os.environ, "PYTHONPATH": path},
                capture_output=True,
                text=True,
                timeout=args.seconds + 120,
                check=True,
            )
            results[side].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(
                f"run {r + 1} {side}: " + ", ".join(f"{k} {v:,.1f}" for k, v in results[side][-1].items()), flush=True
            )
    for side, runs in results.items():
        print(f"{side} median: " + ", ".join(f"{k} {np.median([x[k] for x in runs]):,.1f}" for k in runs[0]))


if __name__ == "__main__":
    main()
