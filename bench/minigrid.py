#!/usr/bin/env python3
"""MiniGrid throughput: envpool's native MiniGrid against the reference EnvPool's, gymnasium's
vector envs of minigrid 3.2.0 and PufferLib 3.0's MiniGrid binding.

Env steps/s of full-batch steps with random actions, at ``--sizes`` envs, on ``--tasks``
(default ``MiniGrid-Empty-8x8-v0`` and ``MiniGrid-KeyCorridorS3R3-v0``, a RoomGrid env), of:

- ``envpool``: ours, ``envpool.make(task, num_envs=n, num_threads=2)``, ``step()``;
- ``envpool-ref``: the reference EnvPool (its own venv, ``--peer-python``, from
  ``bench/peers/envpool.sh``), ``make(task, env_type="gymnasium", num_envs=n, batch_size=n,
  num_threads=2)``, ``step()``;
- ``gym-sync`` / ``gym-async``: ``gymnasium.vector.SyncVectorEnv`` / ``AsyncVectorEnv`` (one
  process per env, which is how AsyncVectorEnv works; ``shared_memory=False``, as minigrid's
  ``mission`` space has no shared-memory form) of
  ``gymnasium.make(task)`` of minigrid 3.2.0, ``step()``;
- ``puffer-serial`` / ``puffer-mp``: ``pufferlib.vector.make(pufferlib.environments.minigrid
  .env_creator(task), backend=Serial`` or ``Multiprocessing, num_workers=2, batch_size=n)``, in
  PufferLib's venv (``--puffer-python``, from ``bench/peers/pufferlib.sh``, which adds
  minigrid 3.2.0), driven by ``recv()`` / ``send()``. That binding drops ``mission`` from the
  observation and ends every episode at its 100th step (minigrid's own limit is 256 for
  Empty-8x8, 270 for KeyCorridorS3R3), so its envs reset more often than the others'.

Each sample is a fresh child (``python -c WORKER_SOURCE '<json>'``) that builds the env, draws
its random actions, warms up, then times a fixed number of batch calls (sized by a probe in round
1 to take ``--seconds``; the same count in later rounds); the peers of one task and size are
interleaved in rounds (A B C ..., then the reverse order, so that none always runs first),
medians and spreads reported, ours over each peer. Results and settings: bench/README.md,
"MiniGrid".

Run from the repository root::

    REF=$(bench/peers/envpool.sh); PUFFER=$(bench/peers/pufferlib.sh)
    python bench/minigrid.py --peer-python "$REF" --puffer-python "$PUFFER"   # ~4 minutes on 2 cores
    python bench/minigrid.py --quick --peer-python "$REF" --puffer-python "$PUFFER"   # ~40 s
    python bench/minigrid.py --only envpool,gymnasium --sizes 64 --tasks MiniGrid-DoorKey-8x8-v0

``--only`` takes peer names or groups (``envpool``, ``ref``, ``gymnasium``, ``pufferlib``); a peer
whose interpreter is not given is reported "not run". Writes ``minigrid.md`` and
``minigrid.json`` (every sample) to ``--out`` (default ``bench/results``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import (  # bench/ is sys.path[0]
    WORKER_PRELUDE,
    Samples,
    child_env,
    fmt_rate,
    int_list,
    load_span,
    machine_info,
    run_child,
    spread,
    write_outputs,
)

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent

# --------------------------------------------------------------------------------------
# The timing script, run verbatim by this interpreter, the reference EnvPool's and PufferLib's
# (standard library and numpy, plus what the peer needs; _common.WORKER_PRELUDE: emit,
# random_action_block, run_for / measure, versions).
# --------------------------------------------------------------------------------------
_TIMING = r"""
import functools, math, time, warnings
warnings.filterwarnings("ignore")


def cycler(items):
    state = {"k": -1}

    def nxt():
        state["k"] = (state["k"] + 1) % len(items)
        return items[state["k"]]
    return nxt


def actions(space, a):
    return cycler(random_action_block(space, a["num_envs"], a["action_batches"], a["seed"]))


def build_envpool(a):
    import envpool
    n = a["num_envs"]
    kwargs = dict(num_envs=n, num_threads=a["threads"], seed=a["seed"])
    if a["kind"] == "envpool-ref":
        kwargs.update(env_type="gymnasium", batch_size=n)
        try:
            env = envpool.make(a["task"], **kwargs)
        except Exception as e:  # noqa: BLE001 - a task the release lacks is a skip, not a failure
            return {"skipped": "%s: %s" % (type(e).__name__, e)}
    else:
        env = envpool.make(a["task"], **kwargs)
    # The reference's action_space is one env's; ours is the batch's, with single_action_space.
    acts = actions(getattr(env, "single_action_space", None) or env.action_space, a)
    env.reset()

    def step():
        env.step(acts())
        return n
    return step, env.close


def make_minigrid(task):
    import gymnasium, minigrid  # noqa: F401 - importing minigrid registers its ids
    return gymnasium.make(task)


def build_gym(a):
    import gymnasium
    n = a["num_envs"]
    fns = [functools.partial(make_minigrid, a["task"]) for _ in range(n)]
    if a["kind"] == "gym-async":
        # minigrid's `mission` space (MissionSpace, not gymnasium's Text) has no shared-memory
        # form: AsyncVectorEnv refuses shared_memory=True and sends observations through pipes.
        env = gymnasium.vector.AsyncVectorEnv(fns, shared_memory=False)
    else:
        env = gymnasium.vector.SyncVectorEnv(fns)
    env.reset(seed=a["seed"])
    acts = actions(env.single_action_space, a)

    def step():
        env.step(acts())
        return n
    return step, env.close


def build_puffer(a):
    # The binding's package imports torch only for its policy class, which stepping never uses;
    # without it a child starts in about 2 s instead of 7 (untimed either way).
    sys.modules.setdefault("torch", None)
    import psutil
    import pufferlib.vector
    import pufferlib.environments.minigrid as binding
    n = a["num_envs"]
    creator = binding.env_creator(a["task"])
    if a["kind"] == "puffer-serial":
        env = pufferlib.vector.make(creator, backend=pufferlib.vector.Serial, num_envs=n, seed=a["seed"])
    else:
        w = min(a["num_workers"], n)
        env = pufferlib.vector.make(creator, backend=pufferlib.vector.Multiprocessing, num_envs=n, seed=a["seed"],
                                    num_workers=w, batch_size=n, overwork=w > psutil.cpu_count(logical=False))
    acts = actions(env.single_action_space, a)
    env.async_reset(a["seed"])

    def step():
        ids = env.recv()[5]
        env.send(acts())
        return len(ids)
    return step, env.close


def main():
    a = json.loads(sys.argv[1])
    if a["kind"] == "info":
        return emit(versions(("envpool", "gymnasium", "minigrid", "pufferlib")))
    build = {"envpool": build_envpool, "envpool-ref": build_envpool, "gym-sync": build_gym,
             "gym-async": build_gym, "puffer-serial": build_puffer, "puffer-mp": build_puffer}[a["kind"]]
    built = build(a)
    if isinstance(built, dict):
        return emit(built)
    step, close = built
    try:
        out = measure(step, a)
    finally:
        close()
    emit(out)


main()
"""
WORKER_SOURCE = WORKER_PRELUDE + _TIMING

# --------------------------------------------------------------------------------------
# Plan and measurement
# --------------------------------------------------------------------------------------
PEERS = ("envpool", "envpool-ref", "gym-sync", "gym-async", "puffer-serial", "puffer-mp")
GROUPS = {
    "envpool": ("envpool",),
    "ref": ("envpool-ref",),
    "gymnasium": ("gym-sync", "gym-async"),
    "pufferlib": ("puffer-serial", "puffer-mp"),
}
PUFFER = GROUPS["pufferlib"]
HEADS = {
    "envpool": "envpool",
    "envpool-ref": "reference EnvPool",
    "gym-sync": "gym SyncVectorEnv",
    "gym-async": "gym AsyncVectorEnv",
    "puffer-serial": "PufferLib Serial",
    "puffer-mp": "PufferLib MP",
}


@dataclass
class Cell(Samples):
    """The samples of one peer at one task and size (``skipped``: why it did not run)."""

    peer: str
    task: str
    num_envs: int
    details: list[dict[str, Any]] = field(default_factory=list)
    calls: int | None = None  # fixed after the first sample


def interpreter(peer: str, args: argparse.Namespace) -> tuple[str | None, dict[str, str]]:
    """The python and environment of a peer's child: the peers that also import as `envpool` or
    pin other numpy/gymnasium versions run in their own venv, without our PYTHONPATH."""
    if peer == "envpool-ref":
        return args.peer_python, child_env(peer=True)
    if peer in PUFFER:
        return args.puffer_python, child_env(peer=True)
    return sys.executable, child_env()


def measure_once(c: Cell, args: argparse.Namespace) -> None:
    payload = {
        "kind": c.peer,
        "task": c.task,
        "num_envs": c.num_envs,
        "threads": args.threads,
        "num_workers": args.puffer_workers,
        "seed": args.seed,
        "action_batches": args.action_batches,
        "warmup": args.warmup,
        "seconds": args.seconds,
        "calls": c.calls,
    }
    python, env = interpreter(c.peer, args)
    env["OMP_NUM_THREADS"] = "1"  # torch, imported by PufferLib's binding, must not spread threads
    # PufferLib's __init__ symlinks `resources` into the working directory: keep it out of the repo.
    res = run_child(python, WORKER_SOURCE, payload, env, args.tmpdir, args.timeout + 4 * args.seconds)
    if not c.add(res):
        print(f"  {c.peer:14s} n={c.num_envs:<4d} {res.get('skipped') or 'error: ' + res['error']}", flush=True)
        return
    c.calls = c.calls or res["calls"]
    c.details.append(res)
    print(
        f"  {c.peer:14s} n={c.num_envs:<4d} {fmt_rate(res['steps_per_s']):>8s} env steps/s "
        f"({res['env_steps']} in {res['elapsed']:.2f} s; load {c.loadavg[-1]:.2f})",
        flush=True,
    )


def build_plan(args: argparse.Namespace) -> dict[tuple[str, int], list[Cell]]:
    plan = {}
    for task in args.tasks:
        for n in args.sizes:
            cells = []
            for p in args.only:
                cell = Cell(p, task, n)
                if interpreter(p, args)[0] is None:
                    flag = "--peer-python (bench/peers/envpool.sh)" if p == "envpool-ref" else "--puffer-python"
                    cell.skipped = f"no {flag}"
                cells.append(cell)
            plan[(task, n)] = cells
    return plan


def run_cells(cells: list[Cell], args: argparse.Namespace) -> None:
    """Rounds of A B C ... then ... C B A: each peer once per round."""
    for r in range(args.rounds):
        print(f" round {r + 1}/{args.rounds}", flush=True)
        for c in cells if r % 2 == 0 else cells[::-1]:
            if c.skipped is None and len(c.errors) < 2:  # a peer that failed twice is given up
                measure_once(c, args)
    for c in cells:
        if not c.samples and c.skipped is None:
            c.skipped = c.errors[-1] if c.errors else "no sample"


# --------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------
def best(cells: dict[str, Cell], peers: tuple[str, ...]) -> tuple[str, float] | None:
    """The peer of `peers` with the highest median, and that median."""
    found = [(p, cells[p].median) for p in peers if p in cells and cells[p].median]
    return max(found, key=lambda x: x[1]) if found else None


def cell_text(c: Cell | None) -> str:
    if c is None:
        return "-"
    if c.median is None:
        return "not run" if c.skipped else "error"
    s = f" ({spread(c.samples)})" if len(c.samples) > 1 else ""
    return f"{fmt_rate(c.median)}{s}"


def ratio(ours: float | None, other: tuple[str, float] | None) -> str:
    if not (ours and other):
        return "-"
    r = ours / other[1]
    return f"{r:.0f}x" if r >= 10 else f"{r:.2f}x"


RATIOS = {  # column head: the peers whose best median ours is divided by
    "ours/ref": ("envpool-ref",),
    "ours/gym async": ("gym-async",),
    "ours/gym sync": ("gym-sync",),
    "ours/PufferLib": PUFFER,
}


def table(plan: dict[tuple[str, int], list[Cell]]) -> list[str]:
    lines = [
        "| task | envs | " + " | ".join(HEADS[p] for p in PEERS) + " | " + " | ".join(RATIOS) + " |",
        "|---|---:|" + "---:|" * (len(PEERS) + len(RATIOS)),
    ]
    for (task, n), cl in plan.items():
        cells = {c.peer: c for c in cl}
        ours = cells["envpool"].median if "envpool" in cells else None
        lines.append(
            f"| {task} | {n} | "
            + " | ".join(cell_text(cells.get(p)) for p in PEERS)
            + " | "
            + " | ".join(ratio(ours, best(cells, peers)) for peers in RATIOS.values())
            + " |"
        )
    return lines


def targets(plan: dict[tuple[str, int], list[Cell]]) -> list[str]:
    """Issue 40's bar: ours >= 2x the reference and >= 10x gymnasium's AsyncVectorEnv."""
    out = []
    for (task, n), cl in plan.items():
        cells = {c.peer: c for c in cl}
        ours = cells["envpool"].median if "envpool" in cells else None
        for peer, bar in (("envpool-ref", 2), ("gym-async", 10)):
            other = best(cells, (peer,))
            if ours and other:
                verdict = "met" if ours / other[1] >= bar else "NOT met"
                out.append(f"- {task} n={n}: ours/{peer} {ours / other[1]:.2f}x (target >= {bar}x: {verdict})")
    return out


def notes(plan: dict[tuple[str, int], list[Cell]]) -> list[str]:
    out = []
    for (task, n), cl in plan.items():
        for c in cl:
            if c.skipped:
                out.append(f"- {c.peer}, {task}, {n} envs: not run: {c.skipped}")
            elif c.errors:
                out.append(f"- {c.peer}, {task}, {n} envs: {len(c.errors)} failed sample(s): {c.errors[-1]}")
    times = [d["elapsed"] for cl in plan.values() for c in cl for d in c.details]
    if times:
        out.append(f"- timed part of a sample: {min(times):.2f}..{max(times):.2f} s")
    return out


def versions_line(name: str, v: dict[str, Any] | None) -> str:
    if not v:
        return f"{name}: not run"
    mods = ("numpy", "gymnasium", "minigrid", "envpool", "pufferlib")
    return f"{name}: python {v.get('python')} " + " ".join(f"{m} {v.get(m)}" for m in mods if m in v)


def report(plan: dict[tuple[str, int], list[Cell]], info: dict[str, Any], args: argparse.Namespace) -> str:
    loads = [(ld,) for cl in plan.values() for c in cl for ld in c.loadavg]
    lines = [
        f"MiniGrid, env steps/s of full-batch steps with random actions, median of {args.rounds} rounds "
        f"(spread: min..max vs. the median); {info['date']}, git {info['git_revision']}, {info['cpu_model']}, "
        f"nproc {info['nproc']} ({info['cpus_usable']} usable), load average at the start "
        f"{info['loadavg_start'][0]:.2f}, 1-min load at the samples {load_span(loads) if loads else '?'}; "
        f"envpool num_threads={args.threads}, PufferLib MP num_workers={args.puffer_workers}",
        versions_line("ours", info.get("ours")),
        versions_line("reference", info.get("ref")),
        versions_line("pufferlib venv", info.get("puffer")),
        f"command: {info['command']}",
        "",
        *table(plan),
        "",
        *targets(plan),
        *notes(plan),
    ]
    return "\n".join(lines) + "\n"


def host_info(args: argparse.Namespace) -> dict[str, Any]:
    """Machine, date, command and each interpreter's package versions."""
    found = {}
    for key, peer in (("ours", "envpool"), ("ref", "envpool-ref"), ("puffer", "puffer-mp")):
        python, env = interpreter(peer, args)
        if python and (key == "ours" or peer in args.only):
            found[key] = run_child(python, WORKER_SOURCE, {"kind": "info"}, env, args.tmpdir, 120)
    return machine_info(**found)


# --------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------
def peer_list(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    unknown = [x for x in names if x not in PEERS and x not in GROUPS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown peers {unknown}; choose from {list(dict.fromkeys([*PEERS, *GROUPS]))}"
        )
    return [p for p in PEERS if p in names or any(p in GROUPS[g] for g in names if g in GROUPS)]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument(
        "--tasks",
        default="MiniGrid-Empty-8x8-v0,MiniGrid-KeyCorridorS3R3-v0",
        type=lambda s: [t for t in s.split(",") if t],
    )
    p.add_argument("--sizes", default="8,64", type=int_list, help="num_envs values")
    p.add_argument("--only", default=",".join(PEERS), type=peer_list, help="peers or groups: " + ", ".join(GROUPS))
    p.add_argument("--rounds", default=3, type=int)
    p.add_argument("--seconds", default=1.0, type=float, help="timed part of a sample in round 1 (sets the call count)")
    p.add_argument("--warmup", default=0.3, type=float)
    p.add_argument("--threads", default=2, type=int, help="num_threads of both EnvPools")
    p.add_argument("--puffer-workers", default=2, type=int, help="PufferLib Multiprocessing num_workers")
    p.add_argument(
        "--peer-python",
        default=os.environ.get("PEER_PYTHON"),
        help="python of a reference EnvPool venv (bench/peers/envpool.sh)",
    )
    p.add_argument(
        "--puffer-python",
        default=os.environ.get("PUFFER_PYTHON"),
        help="python of the venv holding pufferlib 3.0 and minigrid 3.2.0 (bench/peers/pufferlib.sh)",
    )
    p.add_argument("--action-batches", default=16, type=int, help="pre-generated action batches, cycled")
    p.add_argument("--seed", default=0, type=int)
    p.add_argument("--timeout", default=240.0, type=float, help="seconds a child may take beyond 4x --seconds")
    p.add_argument("--out", default=str(BENCH_DIR / "results"), help="folder of minigrid.md and minigrid.json")
    p.add_argument("--quick", action="store_true", help="smoke run: Empty-8x8 only, 8 and 64 envs, 1 round, 0.3 s")
    if p.parse_known_args(argv)[0].quick:
        p.set_defaults(tasks="MiniGrid-Empty-8x8-v0", rounds=1, seconds=0.3, warmup=0.1)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="minigrid-bench-") as tmp:
        args.tmpdir = Path(tmp)
        info = host_info(args)
        print(f"machine: {info['cpu_model']}, nproc {info['nproc']}, load {os.getloadavg()[0]:.2f}")
        for key in ("ours", "ref", "puffer"):
            print(f"{key}: {info.get(key, 'not run')}", flush=True)
        plan = build_plan(args)
        for (task, n), cells in plan.items():
            print(f"\n{task} num_envs={n}", flush=True)
            run_cells(cells, args)
        args.tmpdir = str(args.tmpdir)
    info["loadavg_end"] = os.getloadavg()
    text = report(plan, info, args)
    print("\n" + text)
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    cells = [c.as_json() for cl in plan.values() for c in cl]
    write_outputs(args.out, "minigrid", text, {"info": info, "settings": settings, "cells": cells})
    return 0


if __name__ == "__main__":
    sys.exit(main())
