#!/usr/bin/env python3
"""What bounds the async and thread-scaling rows: two interleaved measurements.

``scaling``: full-batch ``step()`` of one task at N envs with 1 and with 2 threads, the two
interleaved in every round (1T 2T, 2T 1T, ...), medians and the per-round 2T/1T ratio (in
``throughput.py`` the 1T and 2T rows are separate groups, minutes apart).

``async``: recv()/send() loops at num_envs = 2 * batch for several batch sizes, ours and the
reference interleaved per round. Time per recv+send cycle = batch / (steps/s); a least-squares
line through (batch, µs per cycle) splits it into a fixed cost per cycle (µs, intercept) and a
cost per env (ns, slope), for each peer; the ratio ours/ref at one batch size is then
(ref fixed + B ref per-env) / (ours fixed + B ours per-env).

Every sample is a fresh subprocess running ``throughput.py``'s timing script, so the loops are
the ones bench/README.md's throughput rows come from::

    PYTHONPATH=pkg python bench/bounds.py --peer-python "$(bench/peers/envpool.sh)"
    python bench/bounds.py --only scaling --rounds 9
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import throughput as tp  # noqa: E402
from _common import load_span, write_outputs  # noqa: E402


def sample(peer: str, task: str, n: int, b: int, threads: int, opts) -> float:
    mode = "sync" if b == n else "async"
    payload = {
        "kind": "envpool",
        "mode": mode,
        "task": task,
        "num_envs": n,
        "batch_size": b if mode == "async" else None,
        "num_threads": threads,
        "seed": 0,
        "warmup": opts.warmup,
        "seconds": opts.seconds,
        "action_batches": 64,
        "latency": False,
        "latency_seconds": 0.0,
    }
    if peer == tp.REF:
        payload["extra_make_kwargs"] = {"env_type": "gymnasium"}
        payload["batch_size"] = b
    res = tp.run_worker(peer, payload, opts, 120)
    if "error" in res:
        raise RuntimeError(f"{peer} {task} {n}/{b} {threads}T: {res['error']}")
    return res["steps_per_s"]


def fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares line y = a + b x: (a, b)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="scaling,async", help="scaling, async or both")
    ap.add_argument("--tasks", default="CartPole-v1,Pendulum-v1")
    ap.add_argument("--num-envs", type=int, default=1024, help="scaling: envs of the full batch")
    ap.add_argument("--batches", default="8,32,128,512", help="async: batch sizes (num_envs = 2 * batch)")
    ap.add_argument("--peer-python", default=os.environ.get("PEER_PYTHON"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--warmup", type=float, default=0.2)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    return ap.parse_args()


def scaling(opts, tasks: list[str], loads: list) -> tuple[dict, list[str]]:
    """1 vs 2 threads at num_envs, interleaved; the samples and the table."""
    samples = {(t, k): [] for t in tasks for k in (1, 2)}
    for r in range(opts.rounds):
        for t in tasks:
            for k in (1, 2) if r % 2 == 0 else (2, 1):
                samples[(t, k)].append(sample(tp.OURS, t, opts.num_envs, opts.num_envs, k, opts))
            one, two = samples[(t, 1)][-1], samples[(t, 2)][-1]
            print(
                f"round {r + 1} {t} {opts.num_envs} envs: 1T {one / 1e6:.2f}M 2T {two / 1e6:.2f}M "
                f"2T/1T {two / one:.3f}",
                file=sys.stderr,
                flush=True,
            )
        loads.append(os.getloadavg())
    lines = [
        "| task | num_envs | 1T median | 2T median | 2T/1T (medians) | per-round 2T/1T |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for t in tasks:
        one, two = samples[(t, 1)], samples[(t, 2)]
        per = [b / a for a, b in zip(one, two)]
        lines.append(
            f"| {t} | {opts.num_envs} | {statistics.median(one) / 1e6:.2f}M | "
            f"{statistics.median(two) / 1e6:.2f}M | {statistics.median(two) / statistics.median(one):.3f} | "
            f"{min(per):.2f}..{max(per):.2f} (median {statistics.median(per):.3f}) |"
        )
    return {f"{t} {k}T": v for (t, k), v in samples.items()}, lines + [""]


def async_cycles(opts, tasks: list[str], loads: list) -> tuple[dict, list[str]]:
    """µs per recv()+send() cycle at each batch size, ours (and the reference), with a line fit."""
    peers = [tp.OURS] + ([tp.REF] if opts.peer_python else [])
    batches = [int(x) for x in opts.batches.split(",")]
    samples = {(t, p, b): [] for t in tasks for p in peers for b in batches}
    for r in range(opts.rounds):
        for t in tasks:
            for b in batches:
                for p in peers if r % 2 == 0 else peers[::-1]:
                    samples[(t, p, b)].append(sample(p, t, 2 * b, b, 2, opts))
                print(
                    f"round {r + 1} {t} async {2 * b}/{b}: "
                    + " ".join(f"{p} {samples[(t, p, b)][-1] / 1e3:.0f}k" for p in peers),
                    file=sys.stderr,
                    flush=True,
                )
        loads.append(os.getloadavg())
    lines = [
        "| task | peer | " + " | ".join(f"{2 * b}/{b} µs/cycle" for b in batches) + " | fixed µs/cycle | ns/env |",
        "|---|---|" + "---:|" * (len(batches) + 2),
    ]
    for t in tasks:
        for p in peers:
            us = [b / statistics.median(samples[(t, p, b)]) * 1e6 for b in batches]
            a, s = fit([float(b) for b in batches], us)
            lines.append(f"| {t} | {p} | " + " | ".join(f"{u:.1f}" for u in us) + f" | {a:.1f} | {s * 1e3:.0f} |")
    return {f"{t} {p} {b}": v for (t, p, b), v in samples.items()}, lines + [""]


def main() -> None:
    opts = parse_args()
    tasks = opts.tasks.split(",")
    only = opts.only.split(",")
    loads = [os.getloadavg()]
    result: dict = {"command": sys.argv, "rounds": opts.rounds, "seconds": opts.seconds}
    lines: list[str] = []
    if "scaling" in only:
        result["scaling"], more = scaling(opts, tasks, loads)
        lines += more
    if "async" in only:
        result["async"], more = async_cycles(opts, tasks, loads)
        lines += more
    loads.append(os.getloadavg())
    lines.append(
        f"env steps/s medians of {opts.rounds} interleaved rounds, {opts.seconds} s per sample; "
        f"{os.cpu_count()} cores; load average (1 min) {load_span(loads)}"
    )
    text = "\n".join(lines)
    print(text)
    result["load_averages"] = loads
    write_outputs(opts.out, "bounds", text + "\n", result)


if __name__ == "__main__":
    main()
