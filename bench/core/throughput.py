"""Throughput benchmark: envpool (ours) vs. reference EnvPool vs. gymnasium vector envs.

Run from the repository root::

    python -m bench.core.throughput                      # full default sweep
    python -m bench.core.throughput --quick              # tiny smoke run
    python -m bench.core.throughput --peer-python "$(bench/tools/peers/envpool.sh)"
    python -m bench.core.throughput --peer-python "$(bench/tools/peers/envpool.sh)" \
        --peer2-python "$(PEER_ENVPOOL_VERSION=1.2.7 bench/tools/peers/envpool.sh)"   # both releases

Every single measurement runs in a fresh subprocess that executes the same timing
script (``WORKER_SOURCE`` below): build the env, reset, warm up, then step with
pre-generated random actions for a fixed wall time and report env steps per second.
Our package and gymnasium run under ``sys.executable``; the reference EnvPool release
(which also imports as ``envpool``) runs under ``--peer-python``, and a second release of it
(1.2.7, which needs CPython 3.13) under ``--peer2-python``, side by side in the same rounds.  Peers of one row are
interleaved in rounds (A B C A B C ...) so slow drifts of a noisy machine hit them alike;
the median over rounds is reported.

Outputs (folder set by ``--out``, default ``bench/results``): ``throughput.json`` (raw
samples, medians, machine info), ``throughput.md`` (table) and ``throughput.png`` (plot,
only if matplotlib is importable).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness import (
    REPO_ROOT,
    WORKER_PRELUDE,
    child_env,
    fmt_sig,
    half_range,
    int_list,
    machine_info,
    plot_rates,
    run_child,
)
from bench.rounds import Samples

# The timing script, executed verbatim (``python -c WORKER_SOURCE '<json args>'``) by our
# interpreter and by the peers', so every peer is timed by the same loop (bench.harness's
# WORKER_PRELUDE: emit, random_action_block, step_loop, recv_send_loop, versions).
_TIMING = r'''

def make_env(a):
    """Build the vector env described by the args; returns (env, single_action_space)."""
    kind = a["kind"]
    if kind == "envpool":
        import envpool
        kwargs = dict(num_envs=a["num_envs"], batch_size=a["batch_size"],
                      num_threads=a["num_threads"], seed=a["seed"])
        kwargs.update(a.get("extra_make_kwargs", {}))
        env = envpool.make(a["task"], **kwargs)
    elif kind in ("gym-sync", "gym-async"):
        import gymnasium
        mode = kind.split("-")[1]
        env = gymnasium.make_vec(a["task"], num_envs=a["num_envs"], vectorization_mode=mode)
    else:
        raise SystemExit("unknown kind " + repr(kind))
    space = getattr(env, "single_action_space", None) or env.action_space
    return env, space


def step_latency_us(env, actions, seconds):
    """Per-call latency of full-batch step() in microseconds (median, p90, p99, calls)."""
    n, k, lat = len(actions), 0, []
    clock = time.perf_counter_ns
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        t = clock()
        env.step(actions[k])
        lat.append(clock() - t)
        k = (k + 1) % n
    q = np.percentile(np.asarray(lat, dtype=np.float64) / 1e3, [50, 90, 99])
    return {"median": float(q[0]), "p90": float(q[1]), "p99": float(q[2]), "calls": len(lat)}


def main():
    a = json.loads(sys.argv[1])
    if a.get("mode") == "info":
        return emit(versions(("envpool", "gymnasium")))
    try:
        env, space = make_env(a)
    except Exception as e:  # noqa: BLE001
        # An unknown task is a skip (ValueError from envpool, gymnasium's own errors for
        # gymnasium); anything else from envpool is a real failure and propagates.
        if not (isinstance(e, ValueError) or a["kind"].startswith("gym-")):
            raise
        return emit({"skipped": "%s: %s" % (type(e).__name__, e)})
    batch = a["batch_size"] or a["num_envs"]
    actions = random_action_block(space, batch, a["action_batches"], a["seed"])
    out = {"batch_size": batch}
    if a["mode"] == "sync":
        obs, _ = env.reset(seed=a["seed"]) if a["kind"] != "envpool" else env.reset()
        assert len(obs) == a["num_envs"], (obs.shape, a["num_envs"])
        loop = step_loop(env, actions, a["num_envs"])
    else:
        env.async_reset()
        loop = recv_send_loop(env, actions)
    loop(a["warmup"])
    steps, elapsed = loop(a["seconds"])
    if a["mode"] == "sync" and a.get("latency"):
        out["latency_us"] = step_latency_us(env, actions, a["latency_seconds"])
    env.close()
    out.update(steps=steps, elapsed=elapsed, steps_per_s=steps / elapsed)
    emit(out)


main()
'''
WORKER_SOURCE = WORKER_PRELUDE + _TIMING


# --------------------------------------------------------------------------------------
# Peers and measurement plan
# --------------------------------------------------------------------------------------
OURS, REF, REF2, SYNC, ASYNC = "envpool (ours)", "envpool-ref", "envpool-ref2", "gym-sync", "gym-async"
PEERS = (OURS, REF, REF2, SYNC, ASYNC)
REFS = (REF, REF2)  # reference EnvPool releases, each in its own interpreter
PEER_ALIASES = {"ours": OURS, "ref": REF, "ref2": REF2, "sync": SYNC, "async": ASYNC}


@dataclass
class Measurement(Samples):
    """One peer at one setting; collects one sample per round."""

    peer: str
    task: str
    mode: str  # "sync" (full-batch step) or "async" (recv/send)
    num_envs: int
    batch_size: int
    threads: int | None  # None for gymnasium peers (no thread pool)
    latency_us: list[dict[str, float]] = field(default_factory=list)  # per round: µs/call stats

    @property
    def latency_median(self) -> float | None:
        """Median over rounds of the per-round median µs per step() call."""
        return statistics.median(x["median"] for x in self.latency_us) if self.latency_us else None


@dataclass
class Group:
    """Measurements interleaved together (A B C A B C ...); yields one or more table rows."""

    task: str
    mode: str
    num_envs: int
    batch_size: int
    thread_options: list[int]
    measurements: list[Measurement]

    def find(self, peer: str, threads: int | None) -> Measurement | None:
        for m in self.measurements:
            if m.peer == peer and (m.threads == threads or m.threads is None):
                return m
        return None


def build_plan(args: argparse.Namespace, peers: list[str]) -> list[Group]:
    """Groups for the full-batch sweep (per task × num_envs) and for the async configs."""
    groups = []
    for task in args.tasks:
        for n in args.num_envs:
            ms = [Measurement(p, task, "sync", n, n, t) for p in (OURS, *REFS) if p in peers for t in args.threads]
            if SYNC in peers:
                ms.append(Measurement(SYNC, task, "sync", n, n, None))
            if ASYNC in peers and n <= args.gym_async_max_envs:
                ms.append(Measurement(ASYNC, task, "sync", n, n, None))
            groups.append(Group(task, "sync", n, n, list(args.threads), ms))
        for n, b in args.async_configs:
            threads = args.async_threads
            ms = [Measurement(p, task, "async", n, b, t) for p in (OURS, *REFS) if p in peers for t in threads]
            groups.append(Group(task, "async", n, b, list(threads), ms))
    return [g for g in groups if g.measurements]


# --------------------------------------------------------------------------------------
# Running workers
# --------------------------------------------------------------------------------------
def peer_command(peer: str, args: argparse.Namespace) -> tuple[str, dict[str, str]]:
    """Interpreter and environment used for a peer's worker subprocess."""
    if peer in REFS:  # the reference also imports as `envpool`: never let our build leak into it
        return (args.peer_python if peer == REF else args.peer2_python), child_env(peer=True)
    return sys.executable, child_env()


def run_worker(peer: str, payload: dict[str, Any], args: argparse.Namespace, timeout: float) -> dict[str, Any]:
    """Run the timing script in a fresh subprocess; returns its JSON result or {'error'}."""
    python, env = peer_command(peer, args)
    return run_child(python, WORKER_SOURCE, payload, env, REPO_ROOT, timeout)


def measure_once(m: Measurement, args: argparse.Namespace) -> None:
    """Take one sample of measurement `m` (one fresh subprocess)."""
    payload = {
        "kind": m.peer if m.peer in (SYNC, ASYNC) else "envpool",
        "mode": m.mode,
        "task": m.task,
        "num_envs": m.num_envs,
        "batch_size": m.batch_size if m.mode == "async" else None,
        "num_threads": m.threads,
        "seed": args.seed,
        "warmup": args.warmup,
        "seconds": args.seconds,
        "action_batches": args.action_batches,
        "latency": m.mode == "sync" and m.num_envs == 1 and not args.no_latency,
        "latency_seconds": args.latency_seconds,
    }
    if m.peer in REFS:
        payload["extra_make_kwargs"] = {"env_type": "gymnasium"}
        if m.mode == "sync":
            payload["batch_size"] = m.num_envs  # reference wants an explicit batch size
    timeout = 120 + 3 * (args.warmup + args.seconds + args.latency_seconds)
    res = run_worker(m.peer, payload, args, timeout)
    if m.add(res) and "latency_us" in res:
        m.latency_us.append(res["latency_us"])


def run_group(g: Group, args: argparse.Namespace, unsupported: dict[tuple[str, str], str]) -> None:
    """Interleave the group's measurements for args.rounds rounds (A B C A B C ...)."""
    for _ in range(args.rounds):
        for m in g.measurements:
            key = (m.peer, m.task)
            if key in unsupported:
                m.skipped = unsupported[key]
                continue
            measure_once(m, args)
            if m.skipped:
                unsupported[key] = m.skipped
                print(f"  note: {m.peer} does not provide {m.task} ({m.skipped}); skipping it")


# --------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------
def fmt_ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


def spread(m: Measurement | None) -> str:
    """Half the samples' range over their median, as a noise indicator."""
    return half_range(m.samples) if m else ""


def table_rows(g: Group) -> list[dict[str, Any]]:
    """One dict per (group, threads) table row, with medians, ratios and latencies."""
    rows = []
    for t in g.thread_options:
        cells = {p: g.find(p, t) for p in PEERS}
        med = {p: (m.median if m else None) for p, m in cells.items()}
        lat = {p: (m.latency_median if m else None) for p, m in cells.items()}
        rows.append(
            {
                "task": g.task,
                "mode": g.mode,
                "num_envs": g.num_envs,
                "batch": g.batch_size,
                "threads": t,
                "median": med,
                "latency_us": lat,
                "cells": cells,
                "ours/ref": med[OURS] / med[REF] if med[OURS] and med[REF] else None,
                "ours/ref2": med[OURS] / med[REF2] if med[OURS] and med[REF2] else None,
                "ours/sync": med[OURS] / med[SYNC] if med[OURS] and med[SYNC] else None,
            }
        )
    return rows


def print_group(g: Group) -> None:
    """Console table for one finished group."""
    for r in table_rows(g):
        print(
            f"\n{r['task']}  mode={r['mode']}  num_envs={r['num_envs']}  "
            f"batch={r['batch']}  threads={r['threads']} (gymnasium: -)"
        )
        for p in PEERS:
            m = r["cells"][p]
            if m is None:
                continue
            if m.skipped and not m.samples:
                print(f"  {p:16s} skipped: {m.skipped}")
                continue
            extra = ""
            if m.latency_median is not None:
                extra = f"  latency {m.latency_median:.1f} µs/step"
            samples = ", ".join(fmt_sig(s) for s in m.samples)
            errs = f"  ERRORS: {m.errors}" if m.errors else ""
            print(f"  {p:16s} {fmt_sig(m.median):>8s} steps/s {spread(m):>5s}  [{samples}]{extra}{errs}")
        print(
            f"  ours/envpool-ref = {fmt_ratio(r['median'][OURS], r['median'][REF])}   "
            f"ours/envpool-ref2 = {fmt_ratio(r['median'][OURS], r['median'][REF2])}   "
            f"ours/gym-sync = {fmt_ratio(r['median'][OURS], r['median'][SYNC])}   "
            f"ours/gym-async = {fmt_ratio(r['median'][OURS], r['median'][ASYNC])}"
        )


def host_info(args: argparse.Namespace, peers: list[str]) -> dict[str, Any]:
    """Platform, CPU, versions of every interpreter involved, date and command."""
    ours = run_worker(OURS, {"mode": "info"}, args, 60)
    info = machine_info(
        python=ours.get("python"),
        numpy=ours.get("numpy"),
        gymnasium=ours.get("gymnasium"),
        envpool_ours=ours.get("envpool"),
        envpool_ours_file=ours.get("envpool_file"),
    )
    if REF in peers:
        ref = run_worker(REF, {"mode": "info"}, args, 60)
        info.update(
            peer_python=args.peer_python,
            envpool_ref=ref.get("envpool"),
            peer_numpy=ref.get("numpy"),
            peer_gymnasium=ref.get("gymnasium"),
            peer_python_version=ref.get("python"),
        )
    if REF2 in peers:
        ref2 = run_worker(REF2, {"mode": "info"}, args, 60)
        info.update(
            peer2_python=args.peer2_python,
            envpool_ref2=ref2.get("envpool"),
            peer2_numpy=ref2.get("numpy"),
            peer2_python_version=ref2.get("python"),
        )
    return info


def write_json(path: Path, groups: list[Group], info: dict[str, Any], args: argparse.Namespace) -> None:
    rows = []
    for g in groups:
        for r in table_rows(g):
            rows.append({k: v for k, v in r.items() if k != "cells"})
    raw = [{**m.as_json(), "latency_us_median": m.latency_median} for g in groups for m in g.measurements]
    settings = {k: v for k, v in vars(args).items()}
    path.write_text(
        json.dumps({"machine": info, "settings": settings, "rows": rows, "measurements": raw}, indent=2, default=str)
        + "\n"
    )


def write_markdown(path: Path, groups: list[Group], info: dict[str, Any], args: argparse.Namespace) -> None:
    lines = [
        f"# EnvPool throughput — {info['cpu_model']} ({info['cpus_usable']} CPUs), {info['date']}",
        "",
        f"Command: `{info['command']}`  ",
        f"Platform: {info['platform']}; python {info['python']}, numpy {info['numpy']}, "
        f"gymnasium {info['gymnasium']}; ours {info['envpool_ours']} "
        f"(git {info['git_revision']}); envpool-ref {info.get('envpool_ref', 'not run')}; "
        f"envpool-ref2 {info.get('envpool_ref2', 'not run')} (python {info.get('peer2_python_version', '-')})  ",
        f"Median env steps/s over {args.rounds} round(s) of {args.seconds} s each "
        f"(warm-up {args.warmup} s). gym-sync/gym-async have no thread pool: the same value is "
        "shown for every thread count. µs/step: median per-call latency of one-env step().",
        "",
        "| task | mode | num_envs | batch | threads | ours | envpool-ref | envpool-ref2 | gym-sync | "
        "gym-async | ours/ref | ours/ref2 | ours/sync | µs/step ours / ref / ref2 / sync |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for g in groups:
        for r in table_rows(g):
            med, lat = r["median"], r["latency_us"]
            lat_cell = ""
            if r["num_envs"] == 1 and r["mode"] == "sync":
                lat_cell = " / ".join(f"{lat[p]:.1f}" if lat[p] else "-" for p in (OURS, REF, REF2, SYNC))
            lines.append(
                f"| {r['task']} | {r['mode']} | {r['num_envs']} | {r['batch']} | "
                f"{r['threads']} | {fmt_sig(med[OURS])} | {fmt_sig(med[REF])} | {fmt_sig(med[REF2])} | "
                f"{fmt_sig(med[SYNC])} | {fmt_sig(med[ASYNC])} | "
                f"{fmt_ratio(med[OURS], med[REF])} | {fmt_ratio(med[OURS], med[REF2])} | "
                f"{fmt_ratio(med[OURS], med[SYNC])} | "
                f"{lat_cell} |"
            )
    path.write_text("\n".join(lines) + "\n")


def write_plot(path: Path, groups: list[Group], info: dict[str, Any]) -> None:
    """steps/s vs num_envs (log-log), one panel per task, one line per peer/threads."""
    panels: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for g in groups:
        for m in g.measurements:
            if m.median is None:
                continue
            label = m.peer if m.threads is None else f"{m.peer} t={m.threads}"
            if g.mode == "async":
                label += " async (batch=N/2)" if g.batch_size * 2 == g.num_envs else " async"
            panels.setdefault(g.task, {}).setdefault(label, []).append((g.num_envs, m.median))
    plot_rates(path, panels, f"{info['cpu_model']} ({info['cpus_usable']} CPUs) — {info['date']}")


# --------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------
def async_list(text: str) -> list[tuple[int, int]]:
    """'16:8,64:32' -> [(16, 8), (64, 32)]; an empty string disables the async rows."""
    out = []
    for item in filter(None, text.split(",")):
        n, b = item.split(":")
        out.append((int(n), int(b)))
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--tasks", default="CartPole-v1,Pendulum-v1", type=lambda s: [t for t in s.split(",") if t])
    p.add_argument("--num-envs", default="1,8,64,256,1024", type=int_list, help="full-batch sweep sizes")
    p.add_argument("--threads", default="1,2", type=int_list, help="num_threads values for the full-batch sweep")
    p.add_argument(
        "--async-configs",
        default="16:8,64:32,256:128,1024:512",
        type=async_list,
        help="num_envs:batch_size pairs for recv/send rows ('' = none)",
    )
    p.add_argument("--async-threads", default="2", type=int_list, help="num_threads values for async rows")
    p.add_argument(
        "--peers",
        default="ours,ref,ref2,sync,async",
        type=lambda s: [PEER_ALIASES.get(x.strip(), x.strip()) for x in s.split(",") if x.strip()],
        help="subset of peers to run: ours, ref, ref2, sync, async (ref/ref2 only with their --peer*-python)",
    )
    p.add_argument(
        "--peer-python",
        default=os.environ.get("PEER_PYTHON"),
        help="python of the env holding reference EnvPool (default $PEER_PYTHON)",
    )
    p.add_argument(
        "--peer2-python",
        default=os.environ.get("PEER2_PYTHON"),
        help="python of a second reference EnvPool release, e.g. 1.2.7 (default $PEER2_PYTHON)",
    )
    p.add_argument(
        "--gym-async-max-envs", default=64, type=int, help="largest num_envs for gym-async (one process per env)"
    )
    p.add_argument("--rounds", default=3, type=int)
    p.add_argument("--seconds", default=1.0, type=float, help="timed wall time per sample")
    p.add_argument("--warmup", default=0.2, type=float, help="untimed warm-up per sample")
    p.add_argument("--latency-seconds", default=0.3, type=float, help="extra per-call latency loop for num_envs=1 rows")
    p.add_argument("--no-latency", action="store_true", help="skip the latency loop")
    p.add_argument("--action-batches", default=64, type=int, help="pre-generated random action batches (cycled)")
    p.add_argument("--seed", default=0, type=int)
    p.add_argument("--out", default=str(REPO_ROOT / "bench" / "results"), type=Path)
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: CartPole-v1, num_envs 1,64, 1 thread, async 64:32, 1 round, 0.3 s",
    )
    if p.parse_known_args(argv)[0].quick:  # --quick changes defaults; explicit flags win
        p.set_defaults(
            tasks="CartPole-v1",
            num_envs="1,64",
            threads="1",
            async_configs="64:32",
            rounds=1,
            seconds=0.3,
            warmup=0.1,
            latency_seconds=0.1,
        )
    args = p.parse_args(argv)
    unknown = set(args.peers) - set(PEERS)
    if unknown:
        p.error(f"unknown peers {sorted(unknown)}; choose from {list(PEERS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    peers = list(args.peers)
    if REF in peers and not args.peer_python:
        print(
            "note: no --peer-python / $PEER_PYTHON given; skipping envpool-ref (bench/tools/peers/envpool.sh makes one)"
        )
        peers.remove(REF)
    if REF2 in peers and not args.peer2_python:
        peers.remove(REF2)  # a second release is opt-in: no note
    args.out.mkdir(parents=True, exist_ok=True)

    info = host_info(args, peers)
    print(f"machine: {info['cpu_model']}, {info['cpus_usable']} CPUs, {info['platform']}")
    print(
        f"ours: envpool {info['envpool_ours']} ({info['envpool_ours_file']}); "
        f"ref: {info.get('envpool_ref', 'not run')}; ref2: {info.get('envpool_ref2', 'not run')}; "
        f"gymnasium {info['gymnasium']}"
    )
    print(f"settings: rounds={args.rounds} seconds={args.seconds} warmup={args.warmup}")

    groups = build_plan(args, peers)
    unsupported: dict[tuple[str, str], str] = {}
    for i, g in enumerate(groups, 1):
        print(
            f"\n[{i}/{len(groups)}] measuring {g.task} {g.mode} num_envs={g.num_envs} batch={g.batch_size} ...",
            flush=True,
        )
        run_group(g, args, unsupported)
        print_group(g)
    # Drop groups where nothing ran (e.g. a task no peer provides).
    groups = [g for g in groups if any(m.samples for m in g.measurements)]
    info["loadavg_end"] = os.getloadavg()

    write_json(args.out / "throughput.json", groups, info, args)
    write_markdown(args.out / "throughput.md", groups, info, args)
    write_plot(args.out / "throughput.png", groups, info)
    print(
        f"\nwrote {args.out / 'throughput.json'}, {args.out / 'throughput.md'}"
        + (f", {args.out / 'throughput.png'}" if (args.out / "throughput.png").exists() else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
