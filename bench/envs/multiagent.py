"""Multi-agent throughput: envpool's native ``SimpleSpread-v3`` against the Python ways of running
mpe2's ``simple_spread_v3`` (N=3 agents, max_cycles=25) many times.

Env steps/s (one env step = all N agents act once) at ``--sizes`` envs of: ours full batch and
async (``batch_size=n/2``); n mpe2 ``parallel_env()`` stepped in a Python loop (``mpe2-loop``);
SuperSuit's ``concat_vec_envs_v1`` in-process and with 2 processes; PufferLib 3.0's Serial and
Multiprocessing backends (in its own venv, ``--puffer-python``, from
``bench/tools/peers/pufferlib.sh`` with pettingzoo and mpe2 added; "not run" without it). Each
sample is a fresh child that times a call count set in round 1 (``bench.rounds.sample_cell``);
the peers of one size alternate in rounds.

    PUFFER=$(bench/tools/peers/pufferlib.sh)                      # venv with pufferlib 3.0 + mpe2
    python -m bench.envs.multiagent --puffer-python "$PUFFER"   # full run, ~7 minutes on 2 cores
    python -m bench.envs.multiagent --quick --only envpool,supersuit --sizes 64

``--only`` takes peer names or groups (``envpool``, ``mpe2-loop``, ``supersuit``, ``pufferlib``).
Writes ``multiagent.md`` and ``multiagent.json`` (every sample) to ``--out``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import WORKER_PRELUDE, child_env, fmt_rate, load_span, machine_info, run_child, write_outputs
from bench.rounds import Cell, best, cell_args, cell_notes, cell_text, ratio_text, run_cells, sample_cell

AGENTS = 3  # simple_spread_v3's default N

# Run verbatim by this interpreter and by PufferLib's.
WORKER = (
    WORKER_PRELUDE
    + r"""
import functools, warnings
warnings.filterwarnings("ignore")


def action_pool(space, rows, a):
    return random_action_block(space, rows, a["action_batches"], a["seed"])


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


a = json.loads(sys.argv[1])
if a["kind"] == "info":
    emit(versions(("gymnasium", "pettingzoo", "mpe2", "supersuit", "envpool", "pufferlib", "psutil")))
else:
    build = {"envpool": build_envpool, "envpool-async": build_envpool, "mpe2-loop": build_mpe2_loop,
             "supersuit-0": build_supersuit, "supersuit-2": build_supersuit,
             "puffer-serial": build_puffer, "puffer-mp": build_puffer}[a["kind"]]
    emit_measured(build(a), a)
"""
)

PEERS = ("envpool", "envpool-async", "mpe2-loop", "supersuit-0", "supersuit-2", "puffer-serial", "puffer-mp")
GROUPS = {
    "envpool": ("envpool", "envpool-async"),
    "mpe2-loop": ("mpe2-loop",),
    "supersuit": ("supersuit-0", "supersuit-2"),
}
GROUPS["pufferlib"] = PUFFER = ("puffer-serial", "puffer-mp")
HEADS = ["envs", "envpool", "envpool async (n/2)", "mpe2-loop", "SuperSuit cpus=0", "SuperSuit cpus=2"]
HEADS += ["PufferLib Serial", "PufferLib MP", "ours/mpe2-loop", "ours/SuperSuit", "ours/PufferLib"]
HEADS += ["ours/best peer (which)", "ours agent-steps/s"]


def report(plan: dict[int, list[Cell]], info: dict[str, Any], opts) -> str:
    lines = ["| " + " | ".join(HEADS) + " |", "|---:|" + "---:|" * 12]
    for n, cl in plan.items():
        cells = {c.peer: c for c in cl}
        ours = cells["envpool"].median if "envpool" in cells else None
        groups = {g: best(cells, GROUPS[g]) for g in ("mpe2-loop", "supersuit", "pufferlib")}
        top = max((v for v in groups.values() if v), key=lambda x: x[1], default=None)
        row = [n, *(cell_text(cells.get(p)) for p in PEERS), *(ratio_text(ours, g) for g in groups.values())]
        row += [f"{ratio_text(ours, top)} ({top[0] if top else '-'})", fmt_rate(AGENTS * ours) if ours else "-"]
        lines.append("| " + " | ".join(map(str, row)) + " |")
    loads = [(ld,) for cl in plan.values() for c in cl for ld in c.loadavg]
    head = (
        f"SimpleSpread-v3 / simple_spread_v3 (N={AGENTS}), env steps/s, median over {opts.rounds} rounds "
        f"(spread: min..max vs. median); {info['date']}, git {info['git_revision']}, {info['cpu_model']}, "
        f"{info['cpus_usable']} CPUs, 1-min load {load_span(loads) if loads else '?'}; "
        f"envpool num_threads={opts.threads}"
    )
    found = [f"{k}: {v}" for k, v in info.items() if k in ("ours", "puffer")]
    notes = cell_notes([c for cl in plan.values() for c in cl])
    return "\n".join([head, *found, f"command: {info['command']}", "", *lines, "", *notes]) + "\n"


def main() -> None:
    ap = cell_args(__doc__.split("\n\n")[0], PEERS, GROUPS)
    ap.add_argument("--async-sizes", default="64,256", help="sizes that get the envpool-async row")
    ap.set_defaults(sizes="8,64,256", rounds=5, seconds=3.0, warmup=0.5)
    opts = ap.parse_args()
    if opts.quick:
        opts.sizes, opts.async_sizes, opts.rounds, opts.seconds, opts.warmup = [8, 64], "64", 1, 0.3, 0.1
    with tempfile.TemporaryDirectory(prefix="mabench-") as tmp:
        opts.tmpdir = Path(tmp)  # PufferLib's __init__ symlinks `resources` into the working directory
        found = {"ours": run_child(sys.executable, WORKER, {"kind": "info"}, child_env(), opts.tmpdir, 120)}
        if opts.puffer_python:
            found["puffer"] = run_child(opts.puffer_python, WORKER, {"kind": "info"}, child_env(peer=True), tmp, 120)
        info = machine_info(**found)
        async_sizes = [int(x) for x in opts.async_sizes.split(",")]
        keep = lambda p, n: p != "envpool-async" or n in async_sizes
        plan = {n: [Cell(p, "SimpleSpread-v3", n) for p in opts.only if keep(p, n)] for n in opts.sizes}
        for n, cells in plan.items():
            print(f"\nnum_envs={n}", flush=True)
            for c in cells:
                if c.peer in PUFFER and not opts.puffer_python:
                    c.skipped = "no --puffer-python (make one with bench/tools/peers/pufferlib.sh)"

            def sample(c: Cell) -> None:
                puffer = c.peer in PUFFER
                payload = dict(kind=c.peer, threads=opts.threads, num_cpus=2 if c.peer == "supersuit-2" else 0)
                payload["num_workers"] = min(opts.puffer_workers, c.num_envs)
                env = dict(child_env(peer=puffer), OMP_NUM_THREADS="1")
                sample_cell(c, opts.puffer_python if puffer else sys.executable, WORKER, payload, env, opts)

            run_cells(cells, opts.rounds, sample)
    text = report(plan, info, opts)
    print("\n" + text)
    cells = [c.as_json() for cl in plan.values() for c in cl]
    write_outputs(opts.out, "multiagent", text, {"info": info, "settings": vars(opts), "cells": cells})


if __name__ == "__main__":
    main()
