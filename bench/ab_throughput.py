#!/usr/bin/env python3
"""A/B throughput of two builds of the native engine, interleaved in one run.

Compares env steps per second of two ``envpool`` package folders (each holding
``envpool/`` with its built ``_core*.so``), e.g. the commit before a refactor (A, "old")
and after it (B, "new")::

    OLD=$(bench/peers/build_commit.sh 93d8db1) NEW=$(bench/peers/build_commit.sh HEAD)
    python bench/ab_throughput.py --old "$OLD" --new "$NEW"
    python bench/ab_throughput.py --old OLD --new NEW --rounds 7 --seconds 0.8 --only CartPole
    python bench/ab_throughput.py --old OLD --new NEW --autoreset same_step   # with final_obs

Every sample runs in a fresh subprocess (``PYTHONPATH=<package folder>``) that builds the
pool with ``envpool.make(task, num_envs=N, batch_size=B, num_threads=T)``, resets, warms up,
then steps with pre-generated random actions for a fixed wall time: full-batch ``step()``
when B == N, otherwise ``async_reset()`` and a ``recv()`` / ``send(actions, info["env_id"])``
loop. For each round and each config the two builds run back to back, old first in odd rounds
and new first in even ones (A B, B A, A B, ...), so the slow drifts of a shared, noisy machine
hit both alike and neither always runs second; the table reports the median over
rounds, the spread (min..max as a percentage of the median), the ratio of medians new/old,
and the per-round ratios (each B sample over the A sample next to it).

Outputs (``--out``, default ``bench/results``): ``ab_throughput.json`` (all samples, load
averages, commands) and ``ab_throughput.md`` (the table).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from _common import (  # bench/ is sys.path[0] when a script runs
    fmt_rate,
    load_span,
    md_table,
    paired_ratios,
    paired_rounds,
    run_args,
    run_child,
    spread,
    write_outputs,
)

# (label, task, num_envs, batch_size, num_threads)
CONFIGS = [
    ("CartPole-v1 1 env 1T", "CartPole-v1", 1, 1, 1),
    ("CartPole-v1 64 1T", "CartPole-v1", 64, 64, 1),
    ("CartPole-v1 64 2T", "CartPole-v1", 64, 64, 2),
    ("CartPole-v1 256 1T", "CartPole-v1", 256, 256, 1),
    ("CartPole-v1 256 2T", "CartPole-v1", 256, 256, 2),
    ("CartPole-v1 1024 1T", "CartPole-v1", 1024, 1024, 1),
    ("CartPole-v1 1024 2T", "CartPole-v1", 1024, 1024, 2),
    ("CartPole-v1 async 256/128 2T", "CartPole-v1", 256, 128, 2),
    ("CartPole-v1 async 1024/512 2T", "CartPole-v1", 1024, 512, 2),
    # one worker beside the caller: on 2 cores nothing is oversubscribed, so the caller's own
    # per-row cost (recv/send) shows
    ("CartPole-v1 async 1024/512 1T", "CartPole-v1", 1024, 512, 1),
    # async pools' default on 2 cores: one worker thread (make leaves the caller a core)
    ("CartPole-v1 async 64/32 1T", "CartPole-v1", 64, 32, 1),
    ("CartPole-v1 async 256/128 1T", "CartPole-v1", 256, 128, 1),
    ("Pendulum-v1 256 2T", "Pendulum-v1", 256, 256, 2),
    ("Pendulum-v1 async 256/128 2T", "Pendulum-v1", 256, 128, 2),
    ("HalfCheetah-v5 16 2T", "HalfCheetah-v5", 16, 16, 2),
    ("HalfCheetah-v5 async 16/8 2T", "HalfCheetah-v5", 16, 8, 2),
    ("HalfCheetah-v5 64 2T", "HalfCheetah-v5", 64, 64, 2),
    ("HalfCheetah-v5 async 64/32 1T", "HalfCheetah-v5", 64, 32, 1),
    ("HalfCheetah-v5 async 256/128 1T", "HalfCheetah-v5", 256, 128, 1),
    # toy text: a random draw every step, and Blackjack resets every 1-2 steps
    ("Taxi-v4 1024 1T", "Taxi-v4", 1024, 1024, 1),
    ("FrozenLake-v1 1024 1T", "FrozenLake-v1", 1024, 1024, 1),
    ("Blackjack-v1 1024 1T", "Blackjack-v1", 1024, 1024, 1),
]

# Executed verbatim by ``python -c`` in the child; only stdlib, numpy and envpool.
WORKER_SOURCE = r"""
import json, sys, time
import numpy as np
import envpool

a = json.loads(sys.argv[1])
N, B = a["num_envs"], a["batch_size"]
env = envpool.make(a["task"], num_envs=N, batch_size=B, num_threads=a["num_threads"], seed=1,
                   autoreset_mode=a["autoreset_mode"])
space = env.single_action_space
rng = np.random.default_rng(0)
if hasattr(space, "n"):
    acts = rng.integers(int(space.start), int(space.start) + int(space.n), size=(64, N))
else:
    acts = rng.uniform(space.low, space.high, size=(64, N) + tuple(space.shape))
acts = [np.ascontiguousarray(x, dtype=space.dtype) for x in acts]


def sync_loop(seconds):
    k = steps = 0
    t0 = now = time.perf_counter()
    end = t0 + seconds
    while now < end:
        env.step(acts[k & 63])
        k += 1
        steps += N
        now = time.perf_counter()
    return steps, now - t0


def async_loop(seconds):
    k = steps = 0
    t0 = now = time.perf_counter()
    end = t0 + seconds
    while now < end:
        obs, rew, term, trunc, info = env.recv()
        ids = info["env_id"]
        env.send(acts[k & 63][:B], ids)
        k += 1
        steps += len(ids)
        now = time.perf_counter()
    return steps, now - t0


if B == N:
    env.reset()
    loop = sync_loop
else:
    env.async_reset()
    loop = async_loop
loop(a["warmup"])
steps, elapsed = loop(a["seconds"])
env.close()
print("@@BENCH_RESULT@@ " + json.dumps({"steps": steps, "elapsed": elapsed, "sps": steps / elapsed}), flush=True)
"""


def run_sample(pkg: str, cfg: tuple, seconds: float, warmup: float, autoreset_mode: str) -> float:
    """One fresh-process measurement of ``cfg`` with the package folder ``pkg``; steps/s."""
    _, task, n, b, t = cfg
    args = dict(
        task=task,
        num_envs=n,
        batch_size=b,
        num_threads=t,
        seconds=seconds,
        warmup=warmup,
        autoreset_mode=autoreset_mode,
    )
    result = run_child(sys.executable, WORKER_SOURCE, args, dict(os.environ, PYTHONPATH=pkg), None, 120)
    if "error" not in result:
        return result["sps"]
    raise RuntimeError(f"{cfg[0]} with {pkg} failed: {result['error']}")


def parse_args() -> argparse.Namespace:
    ap = run_args(__doc__.split("\n\n")[0], rounds=7, seconds=0.8, warmup=0.3)
    ap.add_argument("--old", required=True, help="package folder A (holds envpool/)")
    ap.add_argument("--new", required=True, help="package folder B (holds envpool/)")
    ap.add_argument("--only", default="", help="comma-separated: keep configs whose label contains one of these")
    ap.add_argument(
        "--autoreset",
        default="next_step",
        choices=["next_step", "same_step"],
        help="the pools' autoreset_mode (same_step: results carry final_obs / final_info)",
    )
    ap.add_argument("--threads", type=int, default=None, help="num_threads of every config (a many-core machine)")
    return ap.parse_args()


def measure(opts, configs: list, pkgs: dict) -> tuple[dict, list]:
    """Samples per config and side, A B / B A rounds; and the load averages between rounds."""
    by_label = {c[0]: c for c in configs}
    return paired_rounds(
        opts.rounds,
        list(by_label),
        ("old", "new"),
        lambda label, side: run_sample(pkgs[side], by_label[label], opts.seconds, opts.warmup, opts.autoreset),
        lambda label: f"{label:32s}",
    )


def summarize(configs: list, samples: dict) -> tuple[list[dict], list[str]]:
    """Per config: the JSON row and the table line."""
    rows, cells = [], []
    for cfg in configs:
        o, n = samples[cfg[0]]["old"], samples[cfg[0]]["new"]
        ratio, per_round = paired_ratios(o, n)
        slow = sum(p < 0.95 for p in per_round)
        rows.append(
            dict(
                config=cfg[0],
                task=cfg[1],
                num_envs=cfg[2],
                batch_size=cfg[3],
                num_threads=cfg[4],
                old=o,
                new=n,
                old_median=statistics.median(o),
                new_median=statistics.median(n),
                ratio=ratio,
                per_round_ratio=per_round,
                rounds_below_095=slow,
            )
        )
        medians = (fmt_rate(statistics.median(o)), spread(o), fmt_rate(statistics.median(n)), spread(n))
        cells.append(
            [
                cfg[0],
                *medians,
                f"{ratio:.3f}",
                f"{min(per_round):.3f}..{max(per_round):.3f}",
                f"{slow}/{len(per_round)}",
            ]
        )
    head = ["config", "old median", "old spread", "new median", "new spread", "new/old"]
    lines = md_table([*head, "per-round new/old (min..max)", "rounds < 0.95"], cells)
    return rows, lines


def main() -> None:
    opts = parse_args()
    keep = [k.strip() for k in opts.only.split(",")]
    configs = [c for c in CONFIGS if any(k in c[0] for k in keep)]
    if opts.threads is not None:  # the same configs with another thread count, named for it
        configs = [
            (f"{c[0].rsplit(' ', 1)[0]} {opts.threads}T", *c[1:4], opts.threads) if c[0].endswith("T") else c
            for c in configs
        ]
        configs = list(dict.fromkeys(configs))
    pkgs = {"old": str(Path(opts.old).resolve()), "new": str(Path(opts.new).resolve())}
    started = time.time()
    samples, loads = measure(opts, configs, pkgs)
    rows, lines = summarize(configs, samples)
    table = "\n".join(lines)
    note = (
        f"\nenv steps/s ({opts.autoreset} autoreset), median of {opts.rounds} interleaved rounds, "
        f"{opts.seconds} s per sample "
        f"after {opts.warmup} s warm-up; {os.cpu_count()} cores; load average (1 min) "
        f"{load_span(loads)} during the run\n"
    )
    print(table + "\n" + note)

    write_outputs(
        opts.out,
        "ab_throughput",
        table + "\n" + note,
        dict(
            command=sys.argv,
            packages=pkgs,
            rounds=opts.rounds,
            seconds=opts.seconds,
            warmup=opts.warmup,
            autoreset_mode=opts.autoreset,
            machine=dict(cpu_count=os.cpu_count(), platform=platform.platform(), python=sys.version),
            load_averages=loads,
            started=started,
            finished=time.time(),
            rows=rows,
        ),
    )


if __name__ == "__main__":
    main()
