#!/usr/bin/env python3
"""Does a plugin env cost the same per step as the same env built in? A/B in one run.

Builds bench/plugin/ (cpp/envs/classic_control/cartpole.h, unchanged, compiled as a plugin registering
``PluginCartPole-v1``) against the SDK of the envpool this interpreter imports
(``python -m envpool --cmake-dir``, CMAKE_BUILD_TYPE=Release, the same compiler as the core),
then measures env steps per second of

* A: ``CartPole-v1``, built into envpool._core;
* B: ``PluginCartPole-v1``, the same code loaded from the plugin;

First it checks that both give bit-identical trajectories for the same seed and actions. Each
round of a config is a fresh subprocess that loads the plugin, makes both pools, resets and warms
them up, then steps them in alternating windows of a fixed wall time (A B, B A, A B, ...: so the
load of a shared machine, which drifts over seconds, hits both alike) with pre-generated random
actions (full-batch ``step()``, or an ``async_reset()`` / ``recv()`` / ``send()`` loop). A
round's value is the median of its windows; the table gives the median over rounds, the spread
(min..max as % of the median), the ratio of medians B/A and the per-round ratios::

    python bench/plugin_overhead.py                    # 7 rounds x 10 windows, about 3 minutes
    python bench/plugin_overhead.py --rounds 3 --windows 6

Outputs (``--out``, default ``bench/results``): plugin_overhead.json and plugin_overhead.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import fmt_rate, load_span, parse_result, spread, write_outputs  # bench/ is sys.path[0] when a script runs

HERE = Path(__file__).resolve().parent

# (label, num_envs, batch_size, num_threads)
CONFIGS = [
    ("1 env 1T", 1, 1, 1),
    ("64 envs 1T", 64, 64, 1),
    ("256 envs 2T", 256, 256, 2),
    ("1024 envs 2T", 1024, 1024, 2),
    ("async 256/128 2T", 256, 128, 2),
]

WORKER_SOURCE = r"""
import json, sys, time
import numpy as np
import envpool

a = json.loads(sys.argv[1])
envpool.load_plugin(a["plugin"])
N, B = a["num_envs"], a["batch_size"]
rng = np.random.default_rng(0)
acts = [np.ascontiguousarray(x) for x in rng.integers(0, 2, size=(64, N), dtype=np.int64)]
envs = {side: envpool.make(task, num_envs=N, batch_size=B, num_threads=a["num_threads"], seed=1)
        for side, task in (("A", "CartPole-v1"), ("B", "PluginCartPole-v1"))}


def sync_loop(env, seconds):
    k = steps = 0
    t0 = now = time.perf_counter()
    end = t0 + seconds
    while now < end:
        env.step(acts[k & 63])
        k += 1
        steps += N
        now = time.perf_counter()
    return steps / (now - t0)


def async_loop(env, seconds):
    # a window starts and ends with every env in flight, so windows of A and B can alternate
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
    return steps / (now - t0)


loop = sync_loop if B == N else async_loop
for env in envs.values():
    env.reset() if B == N else env.async_reset()
    loop(env, a["warmup"])
sps = {"A": [], "B": []}
for i in range(a["windows"]):
    for side in ("A", "B") if i % 2 == 0 else ("B", "A"):
        sps[side].append(loop(envs[side], a["seconds"]))
for env in envs.values():
    env.close()
print("@@BENCH_RESULT@@ " + json.dumps(sps), flush=True)
"""

SAME_SOURCE = r"""
import sys
import numpy as np
import envpool

envpool.load_plugin(sys.argv[1])
rng = np.random.default_rng(0)
acts = rng.integers(0, 2, size=(600, 16), dtype=np.int64)
out = {}
for task in ("CartPole-v1", "PluginCartPole-v1"):
    env = envpool.make(task, num_envs=16, seed=5)
    rows = [env.reset()[0]]
    for a in acts:
        obs, rew, term, trunc, _ = env.step(a)
        rows += [obs, rew, term, trunc]
    env.close()
    out[task] = rows
assert all(np.array_equal(x, y) for x, y in zip(out["CartPole-v1"], out["PluginCartPole-v1"]))
print("identical", len(acts), "steps x 16 envs")
"""


def build_plugin(build: Path) -> Path:
    cmake_dir = subprocess.run(
        [sys.executable, "-m", "envpool", "--cmake-dir"], capture_output=True, text=True, check=True
    ).stdout.strip()
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    for cmd in (
        [
            "cmake",
            "-S",
            str(HERE / "plugin"),
            "-B",
            str(build),
            *generator,
            "-DCMAKE_BUILD_TYPE=Release",
            f"-Denvpool_DIR={cmake_dir}",
        ],
        ["cmake", "--build", str(build)],
    ):
        subprocess.run(cmd, check=True, capture_output=True, text=True)
    return build / "bench_cartpole.so"


def run_round(plugin: Path, cfg: tuple, windows: int, seconds: float, warmup: float) -> dict[str, list[float]]:
    """One fresh process: both pools, `windows` alternating windows each; {"A": [sps...], "B": [...]}."""
    _, n, b, t = cfg
    args = dict(
        plugin=str(plugin), num_envs=n, batch_size=b, num_threads=t, windows=windows, seconds=seconds, warmup=warmup
    )
    proc = subprocess.run(
        [sys.executable, "-c", WORKER_SOURCE, json.dumps(args)], capture_output=True, text=True, timeout=300
    )
    result = parse_result(proc.stdout)
    if result is not None:
        return result
    raise RuntimeError(f"{cfg[0]} failed (rc {proc.returncode}):\n{proc.stderr[-2000:]}")


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7, help="fresh processes per config")
    ap.add_argument("--windows", type=int, default=10, help="timed windows per pool in each round (A B, B A, ...)")
    ap.add_argument("--seconds", type=float, default=0.2, help="wall time per window")
    ap.add_argument("--warmup", type=float, default=0.3, help="untimed wall time before it")
    ap.add_argument("--out", default=str(HERE / "results"))
    return ap.parse_args()


def measure(opts, plugin: Path) -> tuple[dict, list]:
    """Per config and side (A built-in, B plugin): each round's median; the load averages."""
    samples = {c[0]: {"A": [], "B": []} for c in CONFIGS}
    loads = []
    for r in range(opts.rounds):
        loads.append(os.getloadavg())
        for cfg in CONFIGS:
            sps = run_round(plugin, cfg, opts.windows, opts.seconds, opts.warmup)
            for side in ("A", "B"):
                samples[cfg[0]][side].append(statistics.median(sps[side]))
            a, b = samples[cfg[0]]["A"][-1], samples[cfg[0]]["B"][-1]
            print(
                f"round {r + 1}/{opts.rounds} {cfg[0]:18s} built-in {fmt_rate(a):>9s} plugin {fmt_rate(b):>9s} "
                f"plugin/built-in {b / a:.3f}",
                file=sys.stderr,
                flush=True,
            )
    loads.append(os.getloadavg())
    return samples, loads


def summarize(samples: dict) -> tuple[list[dict], list[str]]:
    lines = [
        "| CartPole-v1 config | built-in (A) median | spread | plugin (B) median | spread | B/A "
        "| per-round B/A (min..max) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = []
    for cfg in CONFIGS:
        a, b = samples[cfg[0]]["A"], samples[cfg[0]]["B"]
        per_round = [y / x for x, y in zip(a, b)]
        ratio = statistics.median(b) / statistics.median(a)
        rows.append(
            dict(
                config=cfg[0],
                num_envs=cfg[1],
                batch_size=cfg[2],
                num_threads=cfg[3],
                builtin=a,
                plugin=b,
                ratio=ratio,
                per_round_ratio=per_round,
            )
        )
        lines.append(
            f"| {cfg[0]} | {fmt_rate(statistics.median(a))} | {spread(a)} | {fmt_rate(statistics.median(b))} | "
            f"{spread(b)} | {ratio:.3f} | {min(per_round):.3f}..{max(per_round):.3f} |"
        )
    return rows, lines


def main() -> None:
    opts = parse_args()
    with tempfile.TemporaryDirectory(prefix="envpool-bench-plugin-") as tmp:
        plugin = build_plugin(Path(tmp))
        same = subprocess.run(
            [sys.executable, "-c", SAME_SOURCE, str(plugin)], capture_output=True, text=True, timeout=120
        )
        if same.returncode != 0:
            raise SystemExit(f"the plugin's CartPole differs from the built-in one:\n{same.stderr[-2000:]}")
        print("check:", same.stdout.strip(), file=sys.stderr)
        started = time.time()
        samples, loads = measure(opts, plugin)
    rows, lines = summarize(samples)
    table = "\n".join(lines)
    note = (
        f"\nenv steps/s: median over {opts.rounds} rounds (fresh processes) of each round's median over "
        f"{opts.windows} windows of {opts.seconds} s per pool, A and B alternating, after {opts.warmup} s "
        f"warm-up; {os.cpu_count()} cores; load average (1 min) "
        f"{load_span(loads)} during the run; "
        f"trajectories {same.stdout.strip()}\n"
    )
    print(table + "\n" + note)
    write_outputs(
        opts.out,
        "plugin_overhead",
        table + "\n" + note,
        dict(
            command=sys.argv,
            rounds=opts.rounds,
            windows=opts.windows,
            seconds=opts.seconds,
            warmup=opts.warmup,
            machine=dict(cpu_count=os.cpu_count(), platform=platform.platform(), python=sys.version),
            load_averages=loads,
            started=started,
            finished=time.time(),
            rows=rows,
        ),
    )


if __name__ == "__main__":
    main()
