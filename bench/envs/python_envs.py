"""Python-env throughput: envpool.make_python vs. gymnasium vector envs vs. PufferLib 3.0.

Run from the repository root::

    PUFFER=$(bench/tools/peers/pufferlib.sh)                       # venv with pufferlib 3.0
    python -m bench.envs.python_envs --puffer-python "$PUFFER"   # full run, ~8-10 minutes
    python -m bench.envs.python_envs --quick --puffer-python "$PUFFER"   # smoke run, ~1 minute

gymnasium's own Python envs and ``bench.envs.burn_env:BurnStep-v0`` (50 or 500 µs of CPU
per step) run by gymnasium's Sync/AsyncVectorEnv, PufferLib's Multiprocessing backend (in its
own venv, ``--puffer-python``; its rows are skipped without it) and ``make_python``, full batch
and async; each sample a fresh process running ``WORKER_SOURCE``, peers interleaved in rounds,
medians, and each env's own in-process cost per step (``own``) so that a row's per-step overhead
is ``1e6 / (steps/s) - own µs``. The peers, their settings and what they measured:
bench/history.md, "Python envs". Writes ``python_envs.{json,md,png}`` to ``--out``
(default ``bench/results``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
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

BURN_TASK = "bench.envs.burn_env:BurnStep-v0"

# The timing script, run verbatim (python -c WORKER_SOURCE '<json>') by our interpreter and by
# PufferLib's (bench.harness's WORKER_PRELUDE: emit, random_action_block, step_loop,
# recv_send_loop, versions).
_TIMING = r"""
import functools, warnings
warnings.filterwarnings("ignore")


def timed(loop, a):
    loop(a["warmup"])
    steps, elapsed = loop(a["seconds"])
    return {"steps": steps, "elapsed": elapsed}


def run_own(a):
    "In-process baseline: K single envs stepped round-robin, next-step autoreset."
    import gymnasium
    envs = [gymnasium.make(a["task"]) for _ in range(a["own_envs"])]
    for i, e in enumerate(envs):
        e.reset(seed=a["seed"] + i)
    done = [False] * len(envs)

    class RoundRobin:
        def step(self, row):
            for i, e in enumerate(envs):
                if done[i]:
                    e.reset()
                    done[i] = False
                else:
                    done[i] = any(e.step(row[i])[2:4])
    acts = random_action_block(envs[0].action_space, len(envs), a["action_batches"], a["seed"])
    out = timed(step_loop(RoundRobin(), acts, len(envs)), a)
    return dict(out, own_us=out["elapsed"] / out["steps"] * 1e6)


def run_gym(a):
    import gymnasium
    n = a["num_envs"]
    fns = [functools.partial(gymnasium.make, a["task"]) for _ in range(n)]
    if a["kind"] == "gym-async":
        env = gymnasium.vector.AsyncVectorEnv(fns, shared_memory=True)
    else:
        env = gymnasium.vector.SyncVectorEnv(fns)
    try:
        env.reset(seed=a["seed"])
        acts = random_action_block(env.single_action_space, n, a["action_batches"], a["seed"])
        return dict(timed(step_loop(env, acts, n), a), batch_size=n)
    finally:
        env.close()


class PufferIds:  # a PufferLib vector env driven as ours: recv()[4]["env_id"], send(actions, env_id)
    def __init__(self, env):
        self.env = env

    def recv(self):
        return (None,) * 4 + ({"env_id": self.env.recv()[5]},)

    def send(self, actions, env_id):
        self.env.send(actions)


def run_puffer(a):
    import gymnasium
    import pufferlib
    import pufferlib.emulation
    import pufferlib.vector
    n = a["num_envs"]
    batch = a["batch_size"] or n
    creator = functools.partial(pufferlib.emulation.GymnasiumPufferEnv,
                                env_creator=gymnasium.make, env_args=[a["task"]])
    kwargs = {"num_workers": a["num_workers"], "batch_size": batch}
    if a.get("overwork"):
        kwargs["overwork"] = True
    env = pufferlib.vector.make(creator, backend=pufferlib.vector.Multiprocessing, num_envs=n,
                                seed=a["seed"], **kwargs)
    try:
        acts = random_action_block(env.single_action_space, batch, a["action_batches"], a["seed"])
        env.async_reset(a["seed"])
        return dict(timed(recv_send_loop(PufferIds(env), acts), a), batch_size=batch, num_workers=env.num_workers)
    finally:
        env.close()


def run_ours(a):
    import envpool
    if not hasattr(envpool, "make_python"):
        return {"skipped": "envpool.make_python does not exist in %s" % envpool.__file__}
    n, batch = a["num_envs"], a["batch_size"] or a["num_envs"]
    kwargs = dict(num_envs=n, seed=a["seed"], batch_size=batch)
    if a.get("num_workers"):
        kwargs["num_workers"] = a["num_workers"]
    env = envpool.make_python(a["task"], **kwargs)
    try:
        acts = random_action_block(env.single_action_space, batch, a["action_batches"], a["seed"])
        if a["kind"] == "ours":  # full-batch step()
            env.reset(seed=a["seed"])
            out = timed(step_loop(env, acts, n), a)
        else:
            env.async_reset()
            out = timed(recv_send_loop(env, acts), a)
        return dict(out, num_workers=getattr(env, "num_workers", None), batch_size=batch)
    finally:
        env.close()


a = json.loads(sys.argv[1])
if a.get("mode") == "info":
    out = versions(("envpool", "gymnasium", "pufferlib"))
    out["envpool_has_make_python"] = "envpool" in sys.modules and hasattr(sys.modules["envpool"], "make_python")
else:
    runner = {"own": run_own, "gym-sync": run_gym, "gym-async": run_gym, "puffer": run_puffer,
              "puffer-w1": run_puffer, "puffer-async": run_puffer, "ours": run_ours, "ours-async": run_ours}[a["kind"]]
    out = runner(a)
    if "steps" in out:
        out["steps_per_s"] = out["steps"] / out["elapsed"]
emit(out)
"""
WORKER_SOURCE = WORKER_PRELUDE + _TIMING

# --------------------------------------------------------------------------------------
# Plan
# --------------------------------------------------------------------------------------
PEERS = ("gym-sync", "gym-async", "puffer-w1", "puffer", "puffer-async", "ours", "ours-async")
PUFFER_PEERS = ("puffer-w1", "puffer", "puffer-async")


@dataclass
class Measurement(Samples):
    peer: str
    task: str
    num_envs: int
    batch_size: int | None  # None = full batch
    details: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Group:
    task: str
    num_envs: int  # 0 for the `own` baseline group
    measurements: list[Measurement]

    def get(self, peer: str) -> Measurement | None:
        return next((m for m in self.measurements if m.peer == peer), None)


def build_plan(args: argparse.Namespace, peers: list[str]) -> list[Group]:
    groups = []
    tasks = list(args.tasks) + ([BURN_TASK] if args.burn else [])
    for task in tasks:
        groups.append(Group(task, 0, [Measurement("own", task, args.own_envs, None)]))
        for n in args.burn_num_envs if task == BURN_TASK else args.num_envs:
            ms = []
            for p in peers:
                if p == "gym-async" and n > args.gym_async_max_envs:
                    continue
                batch = n // 2 if p.endswith("-async") and p != "gym-async" else None
                ms.append(Measurement(p, task, n, batch))
            groups.append(Group(task, n, ms))
    return groups


# --------------------------------------------------------------------------------------
# Running workers
# --------------------------------------------------------------------------------------
def worker_env(puffer: bool) -> dict[str, str]:
    """The repository on the path (bench.envs.burn_env); PufferLib's venv must not see our package."""
    return child_env(str(REPO_ROOT), peer=puffer)


def run_worker(python: str, payload: dict[str, Any], timeout: float, puffer: bool, cwd: Path) -> dict[str, Any]:
    return run_child(python, WORKER_SOURCE, payload, worker_env(puffer), cwd, timeout)


def measure_once(m: Measurement, args: argparse.Namespace) -> None:
    puffer = m.peer in PUFFER_PEERS
    payload = {
        "kind": m.peer,
        "task": m.task,
        "num_envs": m.num_envs,
        "batch_size": m.batch_size,
        "seed": args.seed,
        "warmup": args.warmup,
        "seconds": args.seconds,
        "action_batches": args.action_batches,
        "own_envs": args.own_envs,
    }
    if puffer:
        workers = 1 if m.peer == "puffer-w1" else min(args.puffer_workers, m.num_envs)
        payload["num_workers"] = workers
        payload["overwork"] = workers > (os.cpu_count() or 1)
    elif m.peer.startswith("ours") and args.ours_workers:
        payload["num_workers"] = args.ours_workers
    python = args.puffer_python if puffer else sys.executable
    timeout = 120 + 3 * (args.warmup + args.seconds)
    # PufferLib's __init__ symlinks `resources` into the working directory: keep it out of the repo.
    res = run_worker(python, payload, timeout, puffer, args.tmpdir if puffer else REPO_ROOT)
    if m.add(res):
        m.details.append({k: v for k, v in res.items() if k != "steps_per_s"})
    elif "error" in res:
        print(f"  error: {m.peer} {m.task} n={m.num_envs}: {res['error']}", flush=True)


def run_group(g: Group, args: argparse.Namespace, skip: dict[str, str]) -> None:
    for _ in range(args.rounds):
        for m in g.measurements:
            if m.peer in skip:
                m.skipped = skip[m.peer]
                continue
            measure_once(m, args)
            if m.skipped and m.peer.startswith("ours"):
                skip["ours"] = skip["ours-async"] = m.skipped  # the package lacks make_python


# --------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------
def spread(m: Measurement | None) -> str:
    return f" {half_range(m.samples)}" if m and len(m.samples) > 1 else ""


def own_us(groups: list[Group], task: str) -> float | None:
    for g in groups:
        if g.task == task and g.num_envs == 0:
            d = [x["own_us"] for x in g.measurements[0].details]
            return statistics.median(d) if d else None
    return None


def overhead_us(m: Measurement | None, own: float | None) -> float | None:
    if m is None or m.median is None or own is None:
        return None
    return 1e6 / m.median - own


def cell(m: Measurement | None, own: float | None) -> str:
    if m is None:
        return "-"
    if m.median is None:
        return "skipped" if m.skipped else ("error" if m.errors else "-")
    ov = overhead_us(m, own)
    return f"{fmt_sig(m.median)}{spread(m)} ({ov:+.1f} µs)" if ov is not None else f"{fmt_sig(m.median)}{spread(m)}"


def ratio(a: Measurement | None, b: Measurement | None) -> str:
    return f"{a.median / b.median:.2f}x" if a and b and a.median and b.median else "-"


def table_rows(groups: list[Group]) -> list[dict[str, Any]]:
    rows = []
    for g in groups:
        if g.num_envs == 0:
            continue
        own = own_us(groups, g.task)
        best_ours = max((g.get(p) for p in ("ours", "ours-async")), key=lambda m: (m.median or 0) if m else 0)
        best_puffer = max((g.get(p) for p in PUFFER_PEERS), key=lambda m: (m.median or 0) if m else 0)
        rows.append(
            {
                "task": g.task,
                "num_envs": g.num_envs,
                "own_us": own,
                "cells": {p: g.get(p) for p in PEERS},
                "median": {p: (g.get(p).median if g.get(p) else None) for p in PEERS},
                "overhead_us": {p: overhead_us(g.get(p), own) for p in PEERS},
                "ours/gym-async": ratio(best_ours, g.get("gym-async")),
                "ours/puffer": ratio(best_ours, best_puffer),
                "async/full (ours)": ratio(g.get("ours-async"), g.get("ours")),
                "async/full (puffer)": ratio(g.get("puffer-async"), g.get("puffer")),
            }
        )
    return rows


def print_group(g: Group, groups: list[Group]) -> None:
    own = own_us(groups, g.task)
    if g.num_envs == 0:
        print(
            f"  own (in-process, {g.measurements[0].num_envs} envs round-robin): "
            + (f"{own:.2f} µs/step" if own is not None else f"error {g.measurements[0].errors}")
        )
        return
    for m in g.measurements:
        if m.skipped and not m.samples:
            print(f"  {m.peer:13s} skipped: {m.skipped}")
        elif not m.samples:
            print(f"  {m.peer:13s} failed: {m.errors[-1] if m.errors else '?'}")
        else:
            b = f"batch={m.batch_size}" if m.batch_size else "full"
            print(f"  {m.peer:13s} {b:10s} {cell(m, own):28s} samples " + " ".join(fmt_sig(s) for s in m.samples))


def write_markdown(path: Path, groups: list[Group], info: dict[str, Any], args: argparse.Namespace) -> None:
    rows = table_rows(groups)
    lines = [
        "# Python-env throughput (env steps/s, median over rounds)",
        "",
        f"{info['date']} · {info['cpu_model']} · {info['cpus_usable']} CPUs · "
        f"python {info['ours']['python']} · gymnasium {info['ours'].get('gymnasium')} · "
        f"pufferlib {info.get('puffer', {}).get('pufferlib', 'not run')} · "
        f"load avg at start {info['loadavg_start'][0]:.2f}, end {info['loadavg_end'][0]:.2f}",
        "",
        f"Settings: {args.rounds} rounds × {args.seconds} s (+{args.warmup} s warm-up) per sample; "
        f"PufferLib num_workers={args.puffer_workers} (puffer-w1: 1); async rows batch = num_envs/2. "
        "Each cell: median steps/s ± half-spread, (per-step overhead = 1e6/rate − own µs).",
        "",
        "| task | envs | own µs | "
        + " | ".join(PEERS)
        + " | ours/gym-async | ours/puffer | async/full ours | async/full puffer |",
        "|---|---:|---:|" + "---:|" * (len(PEERS) + 4),
    ]
    for r in rows:
        own = f"{r['own_us']:.1f}" if r["own_us"] is not None else "-"
        lines.append(
            f"| {r['task']} | {r['num_envs']} | {own} | "
            + " | ".join(cell(r["cells"][p], r["own_us"]) for p in PEERS)
            + f" | {r['ours/gym-async']} | {r['ours/puffer']} | "
            f"{r['async/full (ours)']} | {r['async/full (puffer)']} |"
        )
    skipped = {m.peer: m.skipped for g in groups for m in g.measurements if m.skipped}
    if skipped:
        lines += ["", "Skipped: " + "; ".join(f"{p}: {s}" for p, s in skipped.items())]
    lines.append("")
    path.write_text("\n".join(lines))


def write_json(path: Path, groups: list[Group], info: dict[str, Any], args: argparse.Namespace) -> None:
    out = {
        "info": info,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "groups": [],
    }
    for g in groups:
        out["groups"].append(
            {
                "task": g.task,
                "num_envs": g.num_envs,
                "own_us": own_us(groups, g.task),
                "measurements": [
                    {**m.as_json(), "overhead_us": overhead_us(m, own_us(groups, g.task)) if g.num_envs else None}
                    for m in g.measurements
                ],
            }
        )
    path.write_text(json.dumps(out, indent=1))


def write_plot(path: Path, groups: list[Group], info: dict[str, Any]) -> None:
    """steps/s vs num_envs per task, one line per peer, the env's own cost as the grey line."""
    panels: dict[str, dict[str, list[tuple[int, float]]]] = {}
    hlines = {}
    for g in (g for g in groups if g.num_envs):
        for m in g.measurements:
            if m.median:
                panels.setdefault(g.task, {}).setdefault(m.peer, []).append((g.num_envs, m.median))
        own = own_us(groups, g.task)
        if own:
            hlines[g.task] = (1e6 / own, "own (1 core, no overhead)")
    plot_rates(path, panels, f"{info['cpu_model']} ({info['cpus_usable']} CPUs) — {info['date']}", hlines)


def host_info(args: argparse.Namespace) -> dict[str, Any]:
    info = machine_info(ours=run_worker(sys.executable, {"mode": "info"}, 60, False, REPO_ROOT))
    if args.puffer_python:
        info["puffer"] = run_worker(args.puffer_python, {"mode": "info"}, 60, True, args.tmpdir)
    return info


# --------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument(
        "--tasks",
        default="CartPole-v1,LunarLander-v3",
        type=lambda s: [t for t in s.split(",") if t],
        help="gymnasium ids (e.g. HalfCheetah-v5 for MuJoCo)",
    )
    p.add_argument("--num-envs", default="8,16,64", type=int_list)
    p.add_argument(
        "--no-burn",
        dest="burn",
        action="store_false",
        help="skip the varying-step-time scenario (bench.envs.burn_env:BurnStep-v0)",
    )
    p.add_argument("--burn-num-envs", default="8,16,64", type=int_list)
    p.add_argument("--peers", default=",".join(PEERS), type=lambda s: [x.strip() for x in s.split(",") if x.strip()])
    p.add_argument(
        "--puffer-python",
        default=os.environ.get("PUFFER_PYTHON"),
        help="python of the venv holding pufferlib 3.0 (bench/tools/peers/pufferlib.sh)",
    )
    p.add_argument(
        "--puffer-workers",
        default=os.cpu_count() or 1,
        type=int,
        help="PufferLib num_workers (it refuses more than the physical cores "
        "unless overwork=True, which is then passed)",
    )
    p.add_argument(
        "--ours-workers", default=None, type=int, help="num_workers for make_python (default: its own default)"
    )
    p.add_argument("--gym-async-max-envs", default=64, type=int)
    p.add_argument(
        "--own-envs", default=8, type=int, help="envs stepped round-robin for the in-process own-cost baseline"
    )
    p.add_argument("--rounds", default=3, type=int)
    p.add_argument("--seconds", default=1.0, type=float)
    p.add_argument("--warmup", default=0.3, type=float)
    p.add_argument("--action-batches", default=64, type=int)
    p.add_argument("--seed", default=0, type=int, help="even: env i of the burn task is slow when seed + i is odd")
    p.add_argument("--out", default=str(REPO_ROOT / "bench" / "results"), type=Path)
    p.add_argument(
        "--quick", action="store_true", help="smoke run: CartPole-v1 only, 8 and 64 envs, burn at 8, 1 round, 0.3 s"
    )
    if p.parse_known_args(argv)[0].quick:
        p.set_defaults(tasks="CartPole-v1", num_envs="8,64", burn_num_envs="8", rounds=1, seconds=0.3, warmup=0.1)
    args = p.parse_args(argv)
    unknown = set(args.peers) - set(PEERS)
    if unknown:
        p.error(f"unknown peers {sorted(unknown)}; choose from {list(PEERS)}")
    return args


def load_groups(path: Path) -> tuple[list[Group], dict[str, Any]]:
    """Groups and machine info back from a python_envs.json (to redraw its plot)."""
    data = json.loads(Path(path).read_text())
    names = {f.name for f in dataclasses.fields(Measurement)}
    groups = []
    for g in data["groups"]:
        ms = [
            Measurement(**{"task": g["task"], **{k: v for k, v in m.items() if k in names}}) for m in g["measurements"]
        ]
        groups.append(Group(task=g["task"], num_envs=g["num_envs"], measurements=ms))
    return groups, data["info"]


def main(argv: list[str] | None = None) -> int:
    if argv is None and len(sys.argv) == 4 and sys.argv[1] == "--replot":
        # python -m bench.envs.python_envs --replot results.json out.png
        groups, info = load_groups(Path(sys.argv[2]))
        write_plot(Path(sys.argv[3]), groups, info)
        return 0
    args = parse_args(argv)
    peers = list(args.peers)
    if not args.puffer_python:
        print(
            "note: no --puffer-python / $PUFFER_PYTHON; skipping PufferLib (bench/tools/peers/pufferlib.sh makes one)"
        )
        peers = [p for p in peers if p not in PUFFER_PEERS]
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pybench-") as tmp:
        args.tmpdir = Path(tmp)
        info = host_info(args)
        ours = info["ours"]
        print(f"machine: {info['cpu_model']}, {info['cpus_usable']} CPUs, load {info['loadavg_start'][0]:.2f}")
        print(
            f"ours: python {ours.get('python')} gymnasium {ours.get('gymnasium')} envpool "
            f"{ours.get('envpool')} make_python={ours.get('envpool_has_make_python', False)}"
        )
        if "puffer" in info:
            pf = info["puffer"]
            print(
                f"puffer: {pf.get('executable')} pufferlib {pf.get('pufferlib')} "
                f"gymnasium {pf.get('gymnasium')} numpy {pf.get('numpy')}"
            )
        if not ours.get("envpool_has_make_python"):
            print(
                "note: envpool.make_python is not available in this interpreter; the ours rows are reported as skipped"
            )
        groups = build_plan(args, peers)
        skip: dict[str, str] = {}
        for i, g in enumerate(groups, 1):
            label = "own baseline" if g.num_envs == 0 else f"num_envs={g.num_envs}"
            print(f"\n[{i}/{len(groups)}] {g.task} {label}", flush=True)
            run_group(g, args, skip)
            print_group(g, groups)
        args.tmpdir = str(args.tmpdir)
    info["loadavg_end"] = os.getloadavg()
    write_json(args.out / "python_envs.json", groups, info, args)
    write_markdown(args.out / "python_envs.md", groups, info, args)
    write_plot(args.out / "python_envs.png", groups, info)
    print("\n" + (args.out / "python_envs.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
