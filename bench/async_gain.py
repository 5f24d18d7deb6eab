#!/usr/bin/env python3
"""Async against full batch, side by side: what a partial batch buys on this machine.

For each config two pools step the same envs, interleaved in rounds (full then async in odd
rounds, async then full in even ones), each sample in a fresh process:

- *full*: ``make(task, num_envs=N)``, a ``step()`` loop;
- *async*: ``make(task, num_envs=N, batch_size=N // 2)``, a ``recv()`` / ``send(actions,
  info["env_id"])`` loop;

both at make's default threads unless the config names them. The configs (issue 25 row 1):

- CPU-bound native envs, ``CartPole-v1`` at 64, 256 and 1024 envs, ``HalfCheetah-v5`` at 64
  and 256 (the target: async >= 1.0x full batch on 2 cores);
- envs whose step times differ 10x between envs (the target: async >= 1.5x full batch): the
  native ``StepCounter-v0`` test env sleeping 100 µs in even envs and 1 ms in odd ones (per-env
  kwargs), with a thread per env (waiting envs need threads, not cores), and gymnasium's
  ``burn_env:WaitStep-v0`` (``bench/burn_env.py``: 0.5 ms or 5 ms per step) in
  ``make_python`` with a worker process per env;
- with ``--peer-python`` (a venv holding the reference EnvPool, ``bench/peers/envpool.sh``), its
  CartPole and HalfCheetah rows, both modes with ``num_threads`` = the machine's cores.

Run from the repository root::

    python bench/async_gain.py [--rounds 5 --seconds 1] [--peer-python "$(bench/peers/envpool.sh)"]
    python bench/async_gain.py --only CartPole --rounds 3

Writes ``async_gain.json`` (samples, load averages) and ``async_gain.md`` (the table) to
``--out`` (default ``bench/results``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from _common import (  # bench/ is sys.path[0] when a script runs
    POOL_WORKER,
    child_env,
    load_span,
    md_table,
    paired_ratios,
    paired_rounds,
    rate_cell,
    run_args,
    run_child,
    write_outputs,
)

BENCH = Path(__file__).resolve().parent
CORES = os.cpu_count() or 1


def configs(peer: bool) -> list[dict]:
    """label, kind (native / python / ref), task, num_envs, make kwargs (besides batch_size)."""
    rows = [dict(label=f"CartPole-v1 {n}", kind="native", task="CartPole-v1", n=n, kw={}) for n in (64, 256, 1024)]
    rows += [dict(label=f"HalfCheetah-v5 {n}", kind="native", task="HalfCheetah-v5", n=n, kw={}) for n in (64, 256)]
    for n in (16, 64):
        sleep = [100 if i % 2 == 0 else 1000 for i in range(n)]
        rows.append(
            dict(
                label=f"StepCounter-v0 {n}, sleep 0.1/1 ms, {n} threads",
                kind="native",
                task="StepCounter-v0",
                n=n,
                kw=dict(step_sleep_us=sleep, num_threads=n),
            )
        )
    for n in (8, 16):
        rows.append(
            dict(
                label=f"make_python WaitStep {n}, sleep 0.5/5 ms, {n} workers",
                kind="python",
                task="burn_env:WaitStep-v0",
                n=n,
                kw=dict(num_workers=n),
            )
        )
    if peer:
        rows += [
            dict(label=f"reference {t} {n}", kind="ref", task=t, n=n, kw=dict(num_threads=CORES))
            for t, sizes in (("CartPole-v1", (64, 256, 1024)), ("HalfCheetah-v5", (64, 256)))
            for n in sizes
        ]
    return rows


def sample(cfg: dict, batch: int, opts: argparse.Namespace) -> float:
    payload = dict(
        kind=cfg["kind"],
        task=cfg["task"],
        num_envs=cfg["n"],
        batch_size=batch,
        make_kwargs=cfg["kw"],
        seconds=opts.seconds,
        warmup=opts.warmup,
    )
    if cfg["kind"] == "ref":
        python, env = opts.peer_python, child_env(peer=True)
    else:  # bench/ on the path: burn_env for make_python's worker processes
        python, env = sys.executable, child_env(str(BENCH))
    result = run_child(python, POOL_WORKER, payload, env, cwd="/tmp", timeout=120 + 4 * opts.seconds)
    if "error" in result:
        raise RuntimeError(f"{cfg['label']} batch {batch}: {result['error']}")
    return result["sps"]


def main() -> None:
    ap = run_args(__doc__.split("\n\n")[0], rounds=5, seconds=1.0, warmup=0.3, peer=True)
    ap.add_argument("--only", default="", help="comma-separated: keep configs whose label contains one of these")
    opts = ap.parse_args()
    keep = [k.strip() for k in opts.only.split(",")]
    cfgs = [c for c in configs(bool(opts.peer_python)) if any(k in c["label"] for k in keep)]
    by_label = {c["label"]: c for c in cfgs}

    def measure(label: str, mode: str) -> float:
        c = by_label[label]
        return sample(c, c["n"] if mode == "full" else c["n"] // 2, opts)

    started = time.time()
    samples, loads = paired_rounds(opts.rounds, list(by_label), ("full", "async"), measure, lambda k: f"{k:48s}")
    rows, cells = [], []
    for c in cfgs:
        f, a = samples[c["label"]]["full"], samples[c["label"]]["async"]
        ratio, per_round = paired_ratios(f, a)
        rows.append(dict(c, full=f, asynchronous=a, ratio=ratio, per_round=per_round))
        cells.append(
            [c["label"], rate_cell(f), rate_cell(a), f"**{ratio:.2f}x**", f"{min(per_round):.2f}..{max(per_round):.2f}"]
        )
    lines = [
        f"{len(cfgs)} configs, {opts.rounds} rounds x {opts.seconds} s, {CORES} cores, load {load_span(loads)}; "
        "env steps/s, medians (spread):",
        "",
        *md_table(["config", "full batch", "async, batch N/2", "async / full", "per round"], cells, "lrrrl"),
    ]
    table = "\n".join(lines)
    print(table)
    meta = dict(started=started, seconds=opts.seconds, rounds=opts.rounds, cores=CORES, loads=loads, argv=sys.argv)
    write_outputs(opts.out, "async_gain", table + "\n", dict(meta=meta, rows=rows))


if __name__ == "__main__":
    main()
