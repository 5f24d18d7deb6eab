#!/usr/bin/env python3
"""What one CheetahRun control step costs, per env, beside MuJoCo's own step: bare MuJoCo (the
suite's model, dm_control's legacy step ``mj_step2`` + ``mj_step1`` through the ``mujoco``
bindings, the loop's Python subtracted), dm_control's ``suite.load`` loop, ours and the
reference EnvPool (``env_type="dm"`` full batches, 1 and 2 threads), in interleaved rounds of
fresh child processes. Columns: wall and process CPU microseconds per env step (CPU time is what
a step costs a core, steadier than wall time on a machine other jobs share).

    python bench/dmc_step_cost.py [--rounds 3] [--seconds 1.5] [--peer-python PY]

Instruction counts (steady on a busy machine): ``--loop KIND N BATCHES`` runs BATCHES batches of
one kind (bare, dmc, ours) after set-up and exits, for valgrind; two lengths subtracted give the
count per env step, e.g.

    for K in 100 600; do valgrind --tool=callgrind --callgrind-out-file=cg.$K \\
        python bench/dmc_step_cost.py --loop ours 8 $K; done
    callgrind_annotate --inclusive=no --threshold=100 cg.100 / cg.600, (total_600 - total_100) / (500 * 8)

(numpy's OpenBLAS worker spins under valgrind's serial scheduler, not in real runs: leave
libscipy_openblas out). Needs dm-control 1.0.50 (the tests' MuJoCo 4 shim is applied here too).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, os, sys, time
import numpy as np
kind, n, threads, secs, batches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
acts = np.random.default_rng(0).uniform(-1, 1, size=(64, n, 6))
if kind in ("dmc", "bare"):
    import mujoco
    from dm_control.mujoco.wrapper.mjbindings import sizes
    for struct, cls in (("mjmodel", mujoco.MjModel), ("mjdata", mujoco.MjData)):
        for name in [k for k in sizes.array_sizes[struct] if not hasattr(cls, k)]:
            del sizes.array_sizes[struct][name]
    from dm_control import suite
    envs = [suite.load("cheetah", "run", task_kwargs={"random": i}) for i in range(n)]
    for e in envs:
        e.reset()
    if kind == "dmc":
        def step(k):
            for e, a in zip(envs, acts[k % 64]):
                if e.step(a).last():
                    e.reset()
    else:
        md = [(e.physics.model._model, e.physics.data._data) for e in envs]
        s1, s2 = mujoco.mj_step1, mujoco.mj_step2
        def step(k):
            for (m, d), a in zip(md, acts[k % 64]):
                d.ctrl[:] = a
                s2(m, d); s1(m, d)
        def empty(k):  # the same loop with two trivial MuJoCo calls: the Python to subtract
            for (m, d), a in zip(md, acts[k % 64]):
                d.ctrl[:] = a
                mujoco.mj_version(); mujoco.mj_version()
else:
    import envpool
    env = envpool.make_dm("CheetahRun-v1", num_envs=n, batch_size=n, num_threads=threads, seed=0)
    env.reset()
    step = lambda k: env.step(acts[k % 64])
if batches:  # --loop: a fixed number of batches for valgrind
    for k in range(20 + batches):
        step(k)
    os._exit(0)
def timed(f):
    for k in range(20):
        f(k)
    k = 0; t0 = time.perf_counter(); c0 = time.process_time()
    while time.perf_counter() - t0 < secs:
        f(k); k += 1
    return (time.perf_counter() - t0) / (k * n) * 1e6, (time.process_time() - c0) / (k * n) * 1e6
w, c = timed(step)
if kind == "bare":
    we, ce = timed(empty); w -= we; c -= ce
print("@@" + json.dumps({"wall": w, "cpu": c}))
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=1.5)
    p.add_argument("--sizes", nargs="+", type=int, default=[8, 32])
    p.add_argument("--peer-python", default=os.path.expanduser("~/.cache/peer-envpool-1.2.7/bin/python"))
    p.add_argument("--loop", nargs=3, metavar=("KIND", "N", "BATCHES"), help="bare|dmc|ours N BATCHES, for valgrind")
    a = p.parse_args()
    if a.loop:
        kind, n, batches = a.loop
        os.execv(sys.executable, [sys.executable, "-c", CHILD, kind, n, "1", "0", batches])
    peer = a.peer_python if a.peer_python and os.path.exists(a.peer_python) else None
    cases = [("bare", 8, 1), ("dmc", 8, 1)]
    for n in a.sizes:
        cases += [("ours", n, 1), ("ours", n, 2)] + ([("ref", n, 1), ("ref", n, 2)] if peer else [])
    samples: dict = {}
    loads = [os.getloadavg()[0]]
    for r in range(a.rounds):
        for kind, n, threads in cases[r % len(cases) :] + cases[: r % len(cases)]:
            env = dict(os.environ)
            python = sys.executable
            if kind == "ref":
                python = peer
                env.pop("PYTHONPATH", None)
            args = ["ours" if kind == "ref" else kind, str(n), str(threads), str(a.seconds), "0"]
            out = subprocess.run([python, "-c", CHILD, *args], capture_output=True, text=True, env=env, cwd="/tmp")
            found = [line for line in out.stdout.splitlines() if line.startswith("@@")]
            if not found:
                sys.stderr.write(f"{kind} N={n} {threads}T failed: {out.stderr[-400:]}\n")
                continue
            samples.setdefault((kind, n, threads), []).append(json.loads(found[0][2:]))
        loads.append(os.getloadavg()[0])
    print(f"load average (1 min) at start and after each round: {' '.join(f'{x:.2f}' for x in loads)}\n")
    print("| case | wall us/step | CPU us/step |\n|---|---:|---:|")
    names = {"bare": "bare MuJoCo (mj_step2 + mj_step1)", "dmc": "dm_control loop", "ours": "ours", "ref": "reference"}
    for (kind, n, threads), v in samples.items():
        wall = statistics.median(x["wall"] for x in v)
        cpu = statistics.median(x["cpu"] for x in v)
        print(f"| {names[kind]} N={n} {threads}T | {wall:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
