#!/usr/bin/env python3
"""Ours against the C++ loop limit: how much of a plain C++ loop's CartPole-v1 speed a pool keeps.

The limit (``envpool_classic_raw``, bench/cpp/classic_raw.cc, an extension outside the package
that this script builds with ``cmake -DENVPOOL_CLASSIC_BENCH=ON``) steps the package's own
CartPole class in a plain loop on T threads, each owning N / T envs, rows written into
batch-shaped arrays, no pool, no Python per step and no thread waiting for another. The
pool rows are ``envpool.make("CartPole-v1", num_envs=N, num_threads=T)`` full-batch ``step()``
loops with random actions. Each sample runs in a fresh process; the rows of one size
alternate within each round (raw, ours, ours, raw, ...). Issue 25 row 2 asks for the
256-env full batch at >= 60% of the 2-thread limit.

    python bench/classic_limit.py [--num-envs 64,256,1024] [--threads 1,2] [--rounds 5]

Writes ``classic_limit.json`` and ``classic_limit.md`` to ``--out`` (default ``bench/results``);
the extension is built in ``--build-dir`` (default ``bench/results/classic_raw_build``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from _common import (  # bench/ is sys.path[0] when a script runs
    build_bench_extension,
    fmt_rate,
    load_span,
    paired_ratios,
    paired_rounds,
    run_child,
    spread,
    write_outputs,
)

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

WORKER = r"""
import json, sys, time
import numpy as np

a = json.loads(sys.argv[1])
N, T = a["num_envs"], a["threads"]
if a["kind"] == "raw":
    import envpool_classic_raw
    envpool_classic_raw.cartpole_steps_per_second(N, T, a["warmup"])
    sps = envpool_classic_raw.cartpole_steps_per_second(N, T, a["seconds"])
else:
    import envpool
    env = envpool.make("CartPole-v1", num_envs=N, num_threads=T, seed=1)
    env.reset()
    rng = np.random.default_rng(0)
    acts = [rng.integers(0, 2, N) for _ in range(16)]

    def loop(seconds):
        k = steps = 0
        t0 = now = time.perf_counter()
        while now < t0 + seconds:
            env.step(acts[k & 15])
            k += 1
            steps += N
            now = time.perf_counter()
        return steps / (now - t0)

    loop(a["warmup"])
    sps = loop(a["seconds"])
    env.close()
print("@@BENCH_RESULT@@ " + json.dumps({"sps": sps}), flush=True)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num-envs", default="64,256,1024")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--warmup", type=float, default=0.3)
    ap.add_argument("--out", default=str(BENCH / "results"))
    ap.add_argument("--build-dir", default=str(BENCH / "results" / "classic_raw_build"))
    opts = ap.parse_args()
    raw_dir = build_bench_extension(Path(opts.build_dir), "ENVPOOL_CLASSIC_BENCH", "envpool_classic_raw")
    paths = {"raw": raw_dir, "ours": str(ROOT / "python")}
    configs = [(n, t) for n in map(int, opts.num_envs.split(",")) for t in map(int, opts.threads.split(","))]

    def measure(config: tuple[int, int], kind: str) -> float:
        n, t = config
        payload = dict(kind=kind, num_envs=n, threads=t, seconds=opts.seconds, warmup=opts.warmup)
        env = dict(os.environ, PYTHONPATH=paths[kind])
        res = run_child(sys.executable, WORKER, payload, env, cwd="/tmp", timeout=60 + 4 * opts.seconds)
        if "error" in res:
            sys.exit(f"{kind} {n} envs {t}T: {res['error']}")
        return res["sps"]

    started = time.time()
    samples, loads = paired_rounds(opts.rounds, configs, ("raw", "ours"), measure, lambda c: f"{c[0]:5d} envs {c[1]}T")
    lines = [
        f"CartPole-v1, {opts.rounds} rounds x {opts.seconds} s, {os.cpu_count()} cores, load {load_span(loads)}; "
        "env steps/s, medians (spread):",
        "",
        "| envs | threads | C++ loop limit | ours, full batch | ours / limit | per round |",
        "|---:|---:|---:|---:|---:|---|",
    ]
    rows = []
    for n, t in configs:
        raw, ours = samples[(n, t)]["raw"], samples[(n, t)]["ours"]
        ratio, per_round = paired_ratios(raw, ours)
        rows.append(dict(num_envs=n, threads=t, raw=raw, ours=ours, ratio=ratio))
        lines.append(
            f"| {n} | {t} | {fmt_rate(statistics.median(raw))} ({spread(raw)}) | "
            f"{fmt_rate(statistics.median(ours))} ({spread(ours)}) | **{100 * ratio:.0f}%** | "
            f"{100 * min(per_round):.0f}..{100 * max(per_round):.0f}% |"
        )
    table = "\n".join(lines)
    print(table)
    meta = dict(started=started, loads=loads, argv=sys.argv, rounds=opts.rounds, seconds=opts.seconds)
    write_outputs(opts.out, "classic_limit", table + "\n", dict(meta=meta, rows=rows))


if __name__ == "__main__":
    main()
