"""MiniGrid throughput: envpool's native MiniGrid against the reference EnvPool's, gymnasium's
vector envs of minigrid 3.2.0 and PufferLib 3.0's MiniGrid binding.

Env steps/s of full-batch steps with random actions, at ``--sizes`` envs, on ``--tasks``
(default ``MiniGrid-Empty-8x8-v0`` and ``MiniGrid-KeyCorridorS3R3-v0``, a RoomGrid env), of:
``envpool`` (ours, ``envpool.make(task, num_envs=n, num_threads=2)``); ``envpool-ref`` (the
reference EnvPool, its own venv, ``--peer-python``); ``gym-sync`` / ``gym-async``
(``SyncVectorEnv`` / ``AsyncVectorEnv`` of ``gymnasium.make(task)``, the latter with
``shared_memory=False``: minigrid's ``mission`` space has no shared-memory form);
``puffer-serial`` / ``puffer-mp`` (``pufferlib.vector.make(pufferlib.environments.minigrid
.env_creator(task), backend=Serial`` or ``Multiprocessing, num_workers=2, batch_size=n)`` in
PufferLib's venv, ``--puffer-python``, driven by ``recv()`` / ``send()``; that binding drops
``mission`` and ends every episode at its 100th step). Each sample is a fresh child that times a
call count set in round 1 (``bench.rounds.sample_cell``); the peers of one task and size
alternate A..F, F..A in rounds.

    REF=$(bench/tools/peers/envpool.sh); PUFFER=$(bench/tools/peers/pufferlib.sh)
    python -m bench.envs.minigrid --peer-python "$REF" --puffer-python "$PUFFER"   # ~4 minutes on 2 cores
    python -m bench.envs.minigrid --quick --only envpool,gymnasium --sizes 64 --tasks MiniGrid-DoorKey-8x8-v0

``--only`` takes peer names or groups (``envpool``, ``ref``, ``gymnasium``, ``pufferlib``); a peer
whose interpreter is not given is reported "not run". Writes ``minigrid.md`` and
``minigrid.json`` (every sample) to ``--out``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import WORKER_PRELUDE, child_env, load_span, machine_info, run_child, write_outputs
from bench.rounds import Cell, best, cell_args, cell_notes, cell_text, ratio_text, run_cells, sample_cell

# Run verbatim by this interpreter, the reference EnvPool's and PufferLib's.
WORKER = (
    WORKER_PRELUDE
    + r"""
import functools, warnings
warnings.filterwarnings("ignore")


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
        if a["kind"] == "envpool-ref":
            return {"skipped": "%s: %s" % (type(e).__name__, e)}
        raise
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


a = json.loads(sys.argv[1])
if a["kind"] == "info":
    emit(versions(("envpool", "gymnasium", "minigrid", "pufferlib")))
else:
    build = {"envpool": build_envpool, "envpool-ref": build_envpool, "gym-sync": build_gym,
             "gym-async": build_gym, "puffer-serial": build_puffer, "puffer-mp": build_puffer}[a["kind"]]
    emit_measured(build(a), a)
"""
)

PEERS = ("envpool", "envpool-ref", "gym-sync", "gym-async", "puffer-serial", "puffer-mp")
GROUPS = {"envpool": ("envpool",), "ref": ("envpool-ref",), "gymnasium": ("gym-sync", "gym-async")}
GROUPS["pufferlib"] = PUFFER = ("puffer-serial", "puffer-mp")
HEADS = ["envpool", "reference EnvPool", "gym SyncVectorEnv", "gym AsyncVectorEnv", "PufferLib Serial", "PufferLib MP"]
RATIOS = {"ours/ref": ("envpool-ref",), "ours/gym async": ("gym-async",), "ours/gym sync": ("gym-sync",)}
RATIOS["ours/PufferLib"] = PUFFER


def interpreter(peer: str, opts) -> tuple[str | None, dict[str, str]]:
    """The python and environment of a peer's child: the peers that also import as `envpool` or
    pin other numpy/gymnasium versions run in their own venv, without our PYTHONPATH."""
    if peer == "envpool-ref":
        return opts.peer_python, child_env(peer=True)
    if peer in PUFFER:
        return opts.puffer_python, child_env(peer=True)
    return sys.executable, child_env()


def report(plan: dict[tuple[str, int], list[Cell]], info: dict[str, Any], opts) -> str:
    lines = ["| task | envs | " + " | ".join(HEADS) + " | " + " | ".join(RATIOS) + " |"]
    lines.append("|---|---:|" + "---:|" * (len(PEERS) + len(RATIOS)))
    targets = []
    for (task, n), cl in plan.items():
        cells = {c.peer: c for c in cl}
        ours = cells["envpool"].median if "envpool" in cells else None
        row = [task, n, *(cell_text(cells.get(p)) for p in PEERS)]
        row += [ratio_text(ours, best(cells, ps)) for ps in RATIOS.values()]
        lines.append("| " + " | ".join(map(str, row)) + " |")
        for peer, bar in (("envpool-ref", 2), ("gym-async", 10)):  # issue 40's bar
            other = best(cells, (peer,))
            if ours and other:
                verdict = "met" if ours / other[1] >= bar else "NOT met"
                targets.append(f"- {task} n={n}: ours/{peer} {ours / other[1]:.2f}x (target >= {bar}x: {verdict})")
    loads = [(ld,) for cl in plan.values() for c in cl for ld in c.loadavg]
    head = (
        f"MiniGrid, env steps/s of full-batch steps with random actions, median of {opts.rounds} rounds "
        f"(spread: min..max vs. the median); {info['date']}, git {info['git_revision']}, {info['cpu_model']}, "
        f"nproc {info['nproc']}, 1-min load at the samples {load_span(loads) if loads else '?'}; "
        f"envpool num_threads={opts.threads}, PufferLib MP num_workers={opts.puffer_workers}"
    )
    found = [f"{k}: {v}" for k, v in info.items() if k in ("ours", "ref", "puffer")]
    notes = cell_notes([c for cl in plan.values() for c in cl])
    return "\n".join([head, *found, f"command: {info['command']}", "", *lines, "", *targets, *notes]) + "\n"


def main() -> None:
    ap = cell_args(__doc__.split("\n\n")[0], PEERS, GROUPS)
    ap.add_argument("--tasks", default="MiniGrid-Empty-8x8-v0,MiniGrid-KeyCorridorS3R3-v0")
    ap.add_argument("--peer-python", default=os.environ.get("PEER_PYTHON"), help="a reference EnvPool venv's python")
    opts = ap.parse_args()
    if opts.quick:
        opts.tasks, opts.rounds, opts.seconds, opts.warmup = "MiniGrid-Empty-8x8-v0", 1, 0.3, 0.1
    with tempfile.TemporaryDirectory(prefix="minigrid-bench-") as tmp:
        opts.tmpdir = Path(tmp)  # PufferLib's __init__ symlinks `resources` into the working directory
        found = {}
        for key, peer in (("ours", "envpool"), ("ref", "envpool-ref"), ("puffer", "puffer-mp")):
            python, env = interpreter(peer, opts)
            if python and (key == "ours" or peer in opts.only):
                found[key] = run_child(python, WORKER, {"kind": "info"}, env, opts.tmpdir, 120)
        info = machine_info(**found)
        plan = {(t, n): [Cell(p, t, n) for p in opts.only] for t in opts.tasks.split(",") for n in opts.sizes}
        for (task, n), cells in plan.items():
            print(f"\n{task} num_envs={n}", flush=True)
            for c in cells:
                if interpreter(c.peer, opts)[0] is None:
                    c.skipped = "no --peer-python" if c.peer == "envpool-ref" else "no --puffer-python"

            def sample(c: Cell) -> None:
                python, env = interpreter(c.peer, opts)
                payload = dict(kind=c.peer, task=c.task, threads=opts.threads, num_workers=opts.puffer_workers)
                sample_cell(c, python, WORKER, payload, dict(env, OMP_NUM_THREADS="1"), opts)

            run_cells(cells, opts.rounds, sample)
    text = report(plan, info, opts)
    print("\n" + text)
    cells = [c.as_json() for cl in plan.values() for c in cl]
    write_outputs(opts.out, "minigrid", text, {"info": info, "settings": vars(opts), "cells": cells})


if __name__ == "__main__":
    main()
