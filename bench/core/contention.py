"""Throughput when the machine is shared (issue 43 item 3): each pool beside 0, 1 and 2 busy
competitor processes.

A competitor is a separate Python process spinning on pure CPU work (an integer loop, no I/O,
no sleeps), the stand-in for a learner or another job on the same cores. For each sample this
script starts the competitors, then the measuring child (a fresh interpreter running
``bench.harness.POOL_WORKER``: make, reset, a warm-up of at least 4 calls, a timed ``step()`` or
``recv()``/``send()`` loop), and kills the competitors when the child has printed its rate;
so they run through the child's start, warm-up and the whole timed window. They also exit on
their own when this script dies (they watch their parent), and every one is killed on Ctrl-C, SIGTERM or an error.

Peers, side by side in every round: ours (this interpreter's ``envpool``), the reference EnvPool
1.2.5 (``--peer-python``, ``bench/tools/peers/envpool.sh``) and 1.2.7 (``--peer2-python``,
``PEER_ENVPOOL_VERSION=1.2.7 bench/tools/peers/envpool.sh``); a reference not given is left out.
Rows, each full batch (``step()``) and async (``batch_size = num_envs / 2``, the recv/send loop),
all at ``num_threads=2``: ``CartPole-v1`` 256 envs, ``HalfCheetah-v5`` 64, ``Pong-v5`` 64 (only
when ``envpool_atari`` imports for ours; the references have Atari built in).

Each round measures every (row, mode, competitors, peer) once, the competitor counts and the
peers in alternating order (A B, then B A), so that a drift of the machine hits them alike. The
contended ratio of a peer is taken per round against the same peer's quiet (0 competitors)
sample of that round; the table shows the median of those ratios and their range. The issue's
targets: ours >= 0.5x of its quiet rate with one competitor in every row (the fair share on 2
cores is 2/3), and CartPole full batch with one competitor >= 10x the reference's own contended
rate.

Run from the repository root (the default run, 2 rounds of 0.7 s samples, is estimated at ~10
minutes on a quiet 2-core machine: a Pong-v5 sample spends ~10 s making and first-resetting its
64 envs; ``--quick`` took 10 minutes on a 2-core machine loaded by builds, load 4-8)::

    python -m bench.core.contention --peer-python "$(bench/tools/peers/envpool.sh)" \
        --peer2-python "$(PEER_ENVPOOL_VERSION=1.2.7 bench/tools/peers/envpool.sh)"
    python -m bench.core.contention --quick      # smoke run: 1 round of 0.3 s samples

Writes ``contention.json`` (every sample, per-round ratios, load averages, machine) and
``contention.md`` (the tables) to ``--out`` (default ``bench/results``).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from typing import Any

from bench.harness import (
    POOL_WORKER,
    WORKER_PRELUDE,
    Competitors,
    child_env,
    fmt_sig,
    int_list,
    load_span,
    machine_info,
    md_table,
    run_args,
    run_child,
    write_outputs,
)

THREADS = 2
ROWS = (("CartPole-v1", 256), ("HalfCheetah-v5", 64), ("Pong-v5", 64))
MODES = ("full", "async")
OURS, REF, REF2 = "ours", "ref-1.2.5", "ref-1.2.7"

# bench.harness.POOL_WORKER with a warm-up of at least 4 calls besides its seconds: an Atari pool's
# first reset of each env takes seconds (64 Pong envs: ~3 s per half batch), so in the recv/send
# loop both halves' first resets must pass before the timed window, or one recv fills it.
_WARM_AT = 'loop(a["warmup"])'
assert POOL_WORKER.count(_WARM_AT) == 1, "POOL_WORKER changed: update bench/core/contention.py's warm-up"
WORKER = POOL_WORKER.replace(
    _WARM_AT,
    """for i in range(4):
    if B == N:
        env.step(acts[i])
    else:
        ids = env.recv()[4]["env_id"]
        env.send(acts[i][: len(ids)], ids)
"""
    + _WARM_AT,
)


def peer_pythons(opts: argparse.Namespace) -> dict[str, str]:
    """The peers run, with their interpreters."""
    peers = {OURS: sys.executable}
    if opts.peer_python:
        peers[REF] = opts.peer_python
    if opts.peer2_python:
        peers[REF2] = opts.peer2_python
    return peers


def peer_env(peer: str) -> dict[str, str]:
    return child_env(peer=peer != OURS)


def peer_version(peer: str, python: str) -> dict[str, Any]:
    """The peer interpreter's python, numpy and envpool versions (or why they do not import)."""
    source = WORKER_PRELUDE + "\nemit(versions(['envpool']))\n"
    return run_child(python, source, {}, peer_env(peer), cwd="/tmp", timeout=120)


def atari_for_ours() -> str | None:
    """None when ``envpool_atari`` imports for ours, else why not (the Pong row is then left out)."""
    out = subprocess.run(
        [sys.executable, "-c", "import envpool_atari"],
        env=peer_env(OURS),
        cwd="/tmp",
        capture_output=True,
        text=True,
        timeout=120,
    )
    if out.returncode == 0:
        return None
    return (out.stderr.strip().splitlines() or ["import failed"])[-1]


def sample(peer: str, python: str, task: str, n: int, mode: str, competitors: int, opts: argparse.Namespace) -> dict:
    """One measurement in a fresh child with ``competitors`` competitors running: {"sps": ...}
    or {"error": ...}."""
    payload = dict(
        kind="native" if peer == OURS else "ref",
        task=task,
        num_envs=n,
        batch_size=n if mode == "full" else n // 2,
        make_kwargs=dict(num_threads=THREADS),
        seconds=opts.seconds,
        warmup=opts.warmup,
    )
    with Competitors(competitors):
        return run_child(python, WORKER, payload, peer_env(peer), cwd="/tmp", timeout=120 + 4 * opts.seconds)


def ratio_stats(values: list[float | None], quiet: list[float | None]) -> list[float]:
    """Per-round ratios value / quiet of the rounds where both were measured."""
    return [v / q for v, q in zip(values, quiet) if v is not None and q]


def med(xs: list[float | None]) -> float | None:
    got = [x for x in xs if x is not None]
    return statistics.median(got) if got else None


def ratio_cell(rs: list[float]) -> str:
    if not rs:
        return "-"
    text = f"{statistics.median(rs):.2f}x"
    return text + (f" ({min(rs):.2f}..{max(rs):.2f})" if len(rs) > 1 else "")


def run_rounds(rows, peers, levels, opts) -> tuple[dict, dict, list]:
    """Every (row, mode, competitors, peer) once per round. Returns the samples
    ``{(task, n, mode, k, peer): [sps or None per round]}``, the errors by the same key, and the
    load averages (one per round start, one at the end)."""
    keys = [(t, n, m) for t, n in rows for m in MODES]
    samples = {(t, n, m, k, p): [] for t, n, m in keys for k in levels for p in peers}
    errors: dict[tuple, list[str]] = {key: [] for key in samples}
    loads = []
    for r in range(opts.rounds):
        loads.append(os.getloadavg())
        ks = levels if r % 2 == 0 else levels[::-1]
        ps = list(peers) if r % 2 == 0 else list(peers)[::-1]
        for t, n, m in keys:
            for k in ks:
                for p in ps:
                    res = sample(p, peers[p], t, n, m, k, opts)
                    value = res.get("sps")
                    samples[(t, n, m, k, p)].append(value)
                    if value is None:
                        errors[(t, n, m, k, p)].append(res.get("error", "no result"))
                    shown = fmt_sig(value) if value is not None else "error: " + res.get("error", "")[-160:]
                    print(f"round {r + 1}/{opts.rounds} {t} {n} {m:5s} competitors {k} {p:9s} {shown}", file=sys.stderr)
    loads.append(os.getloadavg())
    return samples, errors, loads


def tables(rows, peers, levels, samples) -> tuple[list[str], list[dict]]:
    """The rates table, the targets table and the rows of the JSON."""
    cells, data = [], []
    for t, n in rows:
        for m in MODES:
            for p in peers:
                quiet = samples[(t, n, m, 0, p)]
                line = [f"{t} {n}", m, p]
                entry: dict[str, Any] = dict(task=t, num_envs=n, mode=m, peer=p, rates={}, ratios={})
                for k in levels:
                    xs = samples[(t, n, m, k, p)]
                    entry["rates"][k] = xs
                    line.append(fmt_sig(med(xs)))
                    if k:
                        rs = ratio_stats(xs, quiet)
                        entry["ratios"][k] = rs
                        line.append(ratio_cell(rs))
                cells.append(line)
                data.append(entry)
    head = ["row", "mode", "peer"]
    for k in levels:
        head += [f"{k} competitor{'s' if k != 1 else ''}"] + ([f"{k} / quiet"] if k else [])
    lines = md_table(head, cells, "lll" + "r" * (len(head) - 3))
    return lines, data


def target_lines(rows, peers, levels, samples) -> list[str]:
    """The issue's targets with one competitor: ours >= 0.5x its quiet rate in every row, and
    ours >= 10x each reference's contended rate (the target is CartPole full batch's)."""
    if 1 not in levels:
        return ["(no 1-competitor samples: targets not checked)"]
    refs = [p for p in peers if p != OURS]
    head = ["row", "mode", "ours 1 / quiet (>= 0.5x)"] + [f"ours / {p}, 1 competitor" for p in refs]
    cells = []
    for t, n in rows:
        for m in MODES:
            rs = ratio_stats(samples[(t, n, m, 1, OURS)], samples[(t, n, m, 0, OURS)])
            mark = "" if not rs else (" met" if statistics.median(rs) >= 0.5 else " **not met**")
            line = [f"{t} {n}", m, ratio_cell(rs) + mark]
            for p in refs:
                vs = ratio_stats(samples[(t, n, m, 1, OURS)], samples[(t, n, m, 1, p)])
                cell = ratio_cell(vs)
                if t.startswith("CartPole") and m == "full" and vs:
                    cell += " (>= 10x:" + (" met)" if statistics.median(vs) >= 10 else " **not met**)")
                line.append(cell)
            cells.append(line)
    return md_table(head, cells, "ll" + "r" * (len(head) - 2))


def parse_args() -> argparse.Namespace:
    ap = run_args(__doc__.split("\n\n")[0], rounds=2, seconds=0.7, warmup=0.2, peer=True)
    ap.add_argument(
        "--peer2-python",
        default=os.environ.get("PEER2_PYTHON"),
        help="python of a second reference EnvPool release, 1.2.7 (default $PEER2_PYTHON)",
    )
    ap.add_argument("--competitors", type=int_list, default=[0, 1, 2], help="competitor counts (0 is always run)")
    ap.add_argument("--only", default="", help="comma-separated: keep rows whose task contains one of these")
    ap.add_argument("--quick", action="store_true", help="smoke run: 1 round, 0.3 s samples, 0.1 s warm-up")
    opts = ap.parse_args()
    if opts.quick:
        opts.rounds, opts.seconds, opts.warmup = 1, 0.3, 0.1
    return opts


def main() -> None:
    opts = parse_args()
    # SIGTERM (a killed job) runs the cleanup as Ctrl-C does: the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    levels = sorted({0, *opts.competitors})
    if any(k < 0 for k in levels):
        sys.exit("--competitors: counts must be >= 0")
    peers = peer_pythons(opts)
    keep = [k.strip() for k in opts.only.split(",")]
    rows = [(t, n) for t, n in ROWS if any(k in t for k in keep)]
    no_atari = atari_for_ours()
    if no_atari is not None:
        rows = [(t, n) for t, n in rows if not t.startswith("Pong")]
    versions = {p: peer_version(p, py) for p, py in peers.items()}
    for p, v in versions.items():
        if "error" in v or "unavailable" in str(v.get("envpool", "")):
            sys.exit(f"{p} ({peers[p]}): envpool does not import: {v}")
    started = time.time()
    try:
        samples, errors, loads = run_rounds(rows, peers, levels, opts)
    except KeyboardInterrupt:
        sys.exit("interrupted: no table written")
    finally:
        Competitors.kill_all()
    rate_lines, data = tables(rows, peers, levels, samples)
    head = ", ".join(f"{p} envpool {v.get('envpool')} (python {v.get('python')})" for p, v in versions.items())
    text = [
        f"Env steps/s beside 0..{levels[-1]} CPU-bound competitor processes, {THREADS} threads, "
        f"{os.cpu_count()} cores, {opts.rounds} rounds x {opts.seconds} s (warm-up {opts.warmup} s), "
        f"load {load_span(loads)}, {time.time() - started:.0f} s.  ",
        f"{head}.  ",
        "Rates are medians over rounds; `k / quiet` is the median (range) of each round's rate over the "
        "same peer's quiet rate of that round.",
    ]
    if no_atari is not None:
        text.append(f"Pong-v5 left out: envpool_atari does not import for ours ({no_atari}).")
    text += [
        "",
        *rate_lines,
        "",
        "Targets (issue 43 item 3), one competitor:",
        "",
        *target_lines(rows, peers, levels, samples),
    ]
    failed = {" ".join(map(str, key)): errs for key, errs in errors.items() if errs}
    if failed:
        text += ["", "Failed samples:", *(f"- {key}: {errs[-1][-200:]}" for key, errs in failed.items())]
    table = "\n".join(text)
    print(table)
    meta = dict(
        machine=machine_info(peers=peers, versions=versions),
        started=started,
        rounds=opts.rounds,
        seconds=opts.seconds,
        warmup=opts.warmup,
        threads=THREADS,
        competitors=levels,
        loads=loads,
        atari_missing=no_atari,
    )
    write_outputs(opts.out, "contention", table + "\n", dict(meta=meta, rows=data, errors=failed))


if __name__ == "__main__":
    main()
