#!/usr/bin/env python3
"""Multi-agent throughput: envpool's native ``SimpleSpread-v3`` against the Python ways of running
mpe2's ``simple_spread_v3`` (N=3 agents, max_cycles=25) many times.

Env steps/s (one env step = all N agents act once) at ``--sizes`` envs of: ours full batch and
async (``batch_size=n/2``); n mpe2 ``parallel_env()`` stepped in a Python loop (``mpe2-loop``);
SuperSuit's ``concat_vec_envs_v1`` in-process and with 2 processes; PufferLib 3.0's Serial and
Multiprocessing backends (in its own venv, ``--puffer-python``, from ``bench/peers/pufferlib.sh``
with pettingzoo and mpe2 added; its rows are "not run" without it). Each sample is a fresh child
(``python -c WORKER_SOURCE '<json>'``) that draws its random actions first, warms up, then times
a fixed number of batch calls (sized by a probe in round 1 to take ``--seconds``, the same count
in later rounds); peers of one size are interleaved in rounds, medians and spreads reported, ours
over each peer. The peers in full and what they measured: bench/README.md, "Multi-agent".

Run from the repository root::

    PUFFER=$(bench/peers/pufferlib.sh)                      # venv with pufferlib 3.0 + mpe2
    python bench/multiagent.py --puffer-python "$PUFFER"   # full run, ~7 minutes on 2 cores
    python bench/multiagent.py --quick --puffer-python "$PUFFER"   # smoke run, ~15 s
    python bench/multiagent.py --only envpool,supersuit --sizes 64 --rounds 3

``--only`` takes peer names or groups (``envpool``, ``mpe2-loop``, ``supersuit``, ``pufferlib``);
``--json PATH`` writes every sample.
"""

from __future__ import annotations

import argparse
import json
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
)

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
AGENTS = 3  # simple_spread_v3's default N

# --------------------------------------------------------------------------------------
# The timing script, run verbatim by this interpreter and by PufferLib's (standard library and
# numpy, plus what the peer needs; _common.WORKER_PRELUDE: emit, random_action_block, run_for /
# measure).
# --------------------------------------------------------------------------------------
_TIMING = r'''
import functools, math, time, warnings
warnings.filterwarnings("ignore")


def action_pool(space, rows, a):
    """a["action_batches"] pre-generated batches of `rows` random actions of `space`."""
    return random_action_block(space, rows, a["action_batches"], a["seed"])


def cycler(items):
    state = {"k": -1}

    def nxt():
        state["k"] = (state["k"] + 1) % len(items)
        return items[state["k"]]
    return nxt


def build_envpool(a):
    import envpool
    n = a["num_envs"]
    kwargs = dict(num_envs=n, num_threads=a["threads"], seed=a["seed"])
    if a["kind"] == "envpool-async":
        kwargs["batch_size"] = n // 2
    env = envpool.make("SimpleSpread-v3", **kwargs)
    m = env.agents_per_env
    acts = cycler(action_pool(env.single_action_space, n * m, a))
    if a["kind"] == "envpool":
        env.reset()

        def step():
            env.step(acts())
            return n
    else:
        env.async_reset()

        def step():
            ids = env.recv()[4]["env_id"]
            env.send(acts()[: len(ids)], ids)
            return len(ids) // m
    return step, env.close


def build_mpe2_loop(a):
    from mpe2 import simple_spread_v3
    n = a["num_envs"]
    envs = [simple_spread_v3.parallel_env() for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=a["seed"] + i)
    names = envs[0].possible_agents
    blocks = action_pool(envs[0].action_space(names[0]), n * len(names), a)
    acts = cycler([[dict(zip(names, row.tolist())) for row in b.reshape(n, len(names))] for b in blocks])

    def step():
        for e, act in zip(envs, acts()):
            if e.agents:
                e.step(act)
            else:
                e.reset()
        return n
    return step, lambda: [e.close() for e in envs]


def build_supersuit(a):
    import supersuit
    from mpe2 import simple_spread_v3
    n = a["num_envs"]
    vec = supersuit.pettingzoo_env_to_vec_env_v1(simple_spread_v3.parallel_env())
    env = supersuit.concat_vec_envs_v1(vec, n, num_cpus=a["num_cpus"], base_class="gymnasium")
    env.reset(seed=a["seed"])
    acts = cycler(action_pool(env.action_space, env.num_envs, a))

    def step():
        env.step(acts())
        return n
    return step, env.close


def build_puffer(a):
    import psutil
    import pufferlib
    import pufferlib.emulation
    import pufferlib.vector
    from mpe2 import simple_spread_v3
    n = a["num_envs"]
    creator = functools.partial(pufferlib.emulation.PettingZooPufferEnv, env_creator=simple_spread_v3.parallel_env)
    if a["kind"] == "puffer-serial":
        env = pufferlib.vector.make(creator, backend=pufferlib.vector.Serial, num_envs=n, seed=a["seed"])
    else:
        w = a["num_workers"]
        env = pufferlib.vector.make(creator, backend=pufferlib.vector.Multiprocessing, num_envs=n, seed=a["seed"],
                                    num_workers=w, batch_size=n, overwork=w > psutil.cpu_count(logical=False))
    m = env.driver_env.num_agents
    acts = cycler(action_pool(env.single_action_space, env.num_agents, a))
    env.async_reset(a["seed"])

    def step():
        ids = env.recv()[5]
        env.send(acts())
        return len(ids) // m
    return step, env.close


def info():
    out = {"python": sys.version.split()[0], "executable": sys.executable}
    for mod in ("numpy", "gymnasium", "pettingzoo", "mpe2", "supersuit", "envpool", "pufferlib", "psutil"):
        try:
            from importlib.metadata import PackageNotFoundError, version
            m = __import__(mod)
            try:
                out[mod] = version(mod)
            except PackageNotFoundError:  # e.g. envpool from a source tree on PYTHONPATH
                out[mod] = "%s (%s)" % (getattr(m, "__version__", "?"), m.__file__)
        except Exception as e:  # noqa: BLE001
            out[mod] = "unavailable: %s" % type(e).__name__
    emit(out)


def main():
    a = json.loads(sys.argv[1])
    if a["kind"] == "info":
        return info()
    build = {"envpool": build_envpool, "envpool-async": build_envpool, "mpe2-loop": build_mpe2_loop,
             "supersuit-0": build_supersuit, "supersuit-2": build_supersuit,
             "puffer-serial": build_puffer, "puffer-mp": build_puffer}[a["kind"]]
    step, close = build(a)
    try:
        out = measure(step, a)
    finally:
        close()
    emit(out)


main()
'''
WORKER_SOURCE = WORKER_PRELUDE + _TIMING

# --------------------------------------------------------------------------------------
# Plan and measurement
# --------------------------------------------------------------------------------------
PEERS = ("envpool", "envpool-async", "mpe2-loop", "supersuit-0", "supersuit-2", "puffer-serial", "puffer-mp")
GROUPS = {
    "envpool": ("envpool", "envpool-async"),
    "mpe2-loop": ("mpe2-loop",),
    "supersuit": ("supersuit-0", "supersuit-2"),
    "pufferlib": ("puffer-serial", "puffer-mp"),
}
PUFFER = GROUPS["pufferlib"]


@dataclass
class Cell(Samples):
    """The samples of one peer at one size (``skipped``: why it did not run)."""

    peer: str
    num_envs: int
    details: list[dict[str, Any]] = field(default_factory=list)
    calls: int | None = None  # fixed after the first sample


def worker_env(puffer: bool) -> dict[str, str]:
    """PufferLib's venv must not see our package."""
    return dict(child_env(peer=puffer), OMP_NUM_THREADS="1")


def run_worker(python: str, payload: dict[str, Any], timeout: float, cwd: Path) -> dict[str, Any]:
    puffer = payload["kind"] in PUFFER or payload.get("puffer", False)
    return run_child(python, WORKER_SOURCE, payload, worker_env(puffer), cwd, timeout)


def measure_once(c: Cell, args: argparse.Namespace) -> None:
    payload = {
        "kind": c.peer,
        "num_envs": c.num_envs,
        "threads": args.threads,
        "num_cpus": 2 if c.peer == "supersuit-2" else 0,
        "num_workers": min(args.puffer_workers, c.num_envs),
        "seed": args.seed,
        "action_batches": args.action_batches,
        "warmup": args.warmup,
        "seconds": args.seconds,
        "calls": c.calls,
    }
    python = args.puffer_python if c.peer in PUFFER else sys.executable
    res = run_worker(python, payload, args.timeout + 4 * args.seconds, args.tmpdir)
    if not c.add(res):
        print(f"  {c.peer:14s} n={c.num_envs:<4d} error: {res['error']}", flush=True)
        return
    c.calls = c.calls or res["calls"]
    c.details.append(res)
    print(
        f"  {c.peer:14s} n={c.num_envs:<4d} {fmt_rate(res['steps_per_s']):>8s} env steps/s "
        f"({fmt_rate(AGENTS * res['steps_per_s'])} agent-steps/s; {res['env_steps']} env steps in "
        f"{res['elapsed']:.2f} s; load {c.loadavg[-1]:.2f})",
        flush=True,
    )


def build_plan(args: argparse.Namespace) -> dict[int, list[Cell]]:
    plan = {}
    for n in args.sizes:
        cells = []
        for p in args.only:
            cell = Cell(p, n)
            if p == "envpool-async" and n not in args.async_sizes:
                continue
            if p in PUFFER and not args.puffer_python:
                cell.skipped = "no --puffer-python (make one with bench/peers/pufferlib.sh)"
            cells.append(cell)
        plan[n] = cells
    return plan


def run_size(cells: list[Cell], args: argparse.Namespace) -> None:
    """Rounds of A B C D ...: each peer once per round, the peers in the same order every round."""
    for r in range(args.rounds):
        print(f" round {r + 1}/{args.rounds}", flush=True)
        for c in cells:
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


def cell_text(c: Cell | None, scale: float = 1.0) -> str:
    if c is None:
        return "-"
    if c.median is None:
        return "not run" if c.skipped else "error"
    s = f" ({spread(c.samples)})" if len(c.samples) > 1 else ""
    return f"{fmt_rate(c.median * scale)}{s}"


def ratio(ours: float | None, other: tuple[str, float] | None) -> str:
    if not (ours and other):
        return "-"
    r = ours / other[1]
    return f"{r:.0f}x" if r >= 10 else f"{r:.2f}x"


def table(plan: dict[int, list[Cell]]) -> list[str]:
    lines = [
        "| envs | envpool | envpool async (n/2) | mpe2-loop | SuperSuit cpus=0 | SuperSuit cpus=2 | "
        "PufferLib Serial | PufferLib MP (2 workers) | ours/mpe2-loop | ours/SuperSuit | ours/PufferLib | "
        "ours/best peer (which) | ours agent-steps/s |",
        "|---:|" + "---:|" * 12,
    ]
    for n, cl in plan.items():
        cells = {c.peer: c for c in cl}
        ours = cells["envpool"].median if "envpool" in cells else None
        groups = {g: best(cells, GROUPS[g]) for g in ("mpe2-loop", "supersuit", "pufferlib")}
        top = max((v for v in groups.values() if v), key=lambda x: x[1], default=None)
        agent_rate = fmt_rate(AGENTS * ours) if ours else "-"
        lines.append(
            f"| {n} | "
            + " | ".join(cell_text(cells.get(p)) for p in PEERS)
            + " | "
            + " | ".join(ratio(ours, groups[g]) for g in ("mpe2-loop", "supersuit", "pufferlib"))
            + f" | {ratio(ours, top)} ({top[0] if top else '-'}) | {agent_rate} |"
        )
    return lines


def notes(plan: dict[int, list[Cell]]) -> list[str]:
    out = []
    for n, cl in plan.items():
        for c in cl:
            if c.skipped:
                out.append(f"- {c.peer} at {n} envs: not run: {c.skipped}")
            elif c.errors:
                out.append(f"- {c.peer} at {n} envs: {len(c.errors)} failed sample(s): {c.errors[-1]}")
    times = [d["elapsed"] for cl in plan.values() for c in cl for d in c.details]
    if times:
        out.append(f"- timed part of a sample: {min(times):.2f}..{max(times):.2f} s")
    return out


def report(plan: dict[int, list[Cell]], info: dict[str, Any], args: argparse.Namespace) -> str:
    loads = [(ld,) for cl in plan.values() for c in cl for ld in c.loadavg]
    ours, puf = info["ours"], info.get("puffer", {})
    lines = [
        f"SimpleSpread-v3 / simple_spread_v3 (N={AGENTS}), env steps/s, median over {args.rounds} rounds "
        f"(spread: min..max vs. median); {info['date']}, git {info['git_revision']}, {info['cpu_model']}, "
        f"{info['cpus_usable']} CPUs, 1-min load {load_span(loads) if loads else '?'}",
        f"ours: python {ours.get('python')} numpy {ours.get('numpy')} pettingzoo {ours.get('pettingzoo')} "
        f"mpe2 {ours.get('mpe2')} supersuit {ours.get('supersuit')} envpool {ours.get('envpool')}; "
        f"envpool num_threads={args.threads}",
        f"pufferlib venv: pufferlib {puf.get('pufferlib', 'not run')} numpy {puf.get('numpy', '-')} "
        f"pettingzoo {puf.get('pettingzoo', '-')} mpe2 {puf.get('mpe2', '-')}",
        "",
        *table(plan),
        "",
        *notes(plan),
    ]
    return "\n".join(lines)


def host_info(args: argparse.Namespace) -> dict[str, Any]:
    info = machine_info(ours=run_worker(sys.executable, {"kind": "info"}, 120, args.tmpdir))
    if args.puffer_python:
        info["puffer"] = run_worker(args.puffer_python, {"kind": "info", "puffer": True}, 120, args.tmpdir)
    return info


# --------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------
def peer_list(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    unknown = [x for x in names if x not in PEERS and x not in GROUPS]
    if unknown:
        names = list(dict.fromkeys([*PEERS, *GROUPS]))
        raise argparse.ArgumentTypeError(f"unknown peers {unknown}; choose from {names}")
    return [p for p in PEERS if p in names or any(p in GROUPS[g] for g in names if g in GROUPS)]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--sizes", default="8,64,256", type=int_list, help="num_envs values")
    p.add_argument("--async-sizes", default="64,256", type=int_list, help="sizes that get the envpool-async row")
    p.add_argument("--only", default=",".join(PEERS), type=peer_list, help="peers or groups: " + ", ".join(GROUPS))
    p.add_argument("--rounds", default=5, type=int)
    p.add_argument("--seconds", default=3.0, type=float, help="timed part of a sample in round 1 (sets the call count)")
    p.add_argument("--warmup", default=0.5, type=float)
    p.add_argument("--threads", default=2, type=int, help="envpool num_threads")
    p.add_argument("--puffer-workers", default=2, type=int, help="PufferLib Multiprocessing num_workers")
    p.add_argument(
        "--puffer-python",
        default=os.environ.get("PUFFER_PYTHON"),
        help="python of the venv holding pufferlib 3.0 and mpe2 (bench/peers/pufferlib.sh)",
    )
    p.add_argument("--action-batches", default=16, type=int, help="pre-generated action batches, cycled")
    p.add_argument("--seed", default=0, type=int)
    p.add_argument("--timeout", default=240.0, type=float, help="seconds a child may take beyond 4x --seconds")
    p.add_argument("--json", type=Path, help="write every sample and the settings here")
    p.add_argument("--quick", action="store_true", help="smoke run: 8 and 64 envs, 1 round, 0.3 s samples")
    if p.parse_known_args(argv)[0].quick:
        p.set_defaults(sizes="8,64", async_sizes="64", rounds=1, seconds=0.3, warmup=0.1)
    return p.parse_args(argv)


def write_json(path: Path, plan: dict[int, list[Cell]], info: dict[str, Any], args: argparse.Namespace) -> None:
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    cells = [c.as_json() for cl in plan.values() for c in cl]
    path.write_text(json.dumps({"info": info, "settings": settings, "cells": cells}, indent=1))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mabench-") as tmp:
        args.tmpdir = Path(tmp)
        info = host_info(args)
        print(f"machine: {info['cpu_model']}, {info['cpus_usable']} CPUs, load {os.getloadavg()[0]:.2f}")
        print(f"ours: {info['ours']}\npuffer: {info.get('puffer', 'not run (no --puffer-python)')}", flush=True)
        plan = build_plan(args)
        for n, cells in plan.items():
            print(f"\nnum_envs={n}", flush=True)
            run_size(cells, args)
        args.tmpdir = str(args.tmpdir)
    text = report(plan, info, args)
    print("\n" + text)
    if args.json:
        write_json(args.json, plan, info, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
