#!/usr/bin/env python3
"""MuJoCo throughput: env steps per second for a few gymnasium v5 tasks.

Peers, each timed in a fresh subprocess by the same loop (reset, warm up, then step with
pre-generated random actions for a fixed wall time):

  * ours-1t / ours-2t: ``envpool.make(task, num_envs=N, num_threads=1 or 2)`` (full batch);
  * gymnasium-sync: ``gymnasium.make_vec(task, N, vectorization_mode="sync")``;
  * raw-mj_step: the physics alone, one thread: ``mujoco.mj_step(m, d, nstep=frame_skip)`` and
    ``mj_rnePostConstraint`` on N MjData from the mujoco Python bindings (no rewards,
    observations or Python env logic: the floor a gymnasium env cannot beat per core);
  * peer-1t / peer-2t: the reference EnvPool release, if ``--peer-python`` names its
    interpreter (it imports as ``envpool`` too, hence the subprocess).

    python bench/mujoco_throughput.py [--seconds 3] [--num-envs 8] [--peer-python PATH]

Prints a markdown table (steps/s, median over --rounds, peers interleaved per round).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MARK = "@@MJ_BENCH@@ "
TASKS = ["HalfCheetah-v5", "Hopper-v5", "Ant-v5", "Humanoid-v5"]

WORKER = r'''
import json, sys, time
import numpy as np
a = json.loads(sys.argv[1])
task, n, kind = a["task"], a["num_envs"], a["kind"]
rng = np.random.default_rng(0)

if kind == "raw":
    import mujoco
    import gymnasium as gym
    ref = gym.make(task).unwrapped          # for the model file and frame_skip only
    m = mujoco.MjModel.from_xml_path(ref.fullpath)
    datas = [mujoco.MjData(m) for _ in range(n)]
    skip = ref.frame_skip
    lo, hi = m.actuator_ctrlrange.T
    acts = rng.uniform(lo, hi, size=(64, n, m.nu))
    def step(k):
        for d, u in zip(datas, acts[k % 64]):
            d.ctrl[:] = u
            mujoco.mj_step(m, d, nstep=skip)
            mujoco.mj_rnePostConstraint(m, d)
            if d.time > 10.0:
                mujoco.mj_resetData(m, d)
else:
    if kind == "gym":
        import gymnasium as gym
        env = gym.make_vec(task, num_envs=n, vectorization_mode="sync")
        space = env.single_action_space
    else:
        import envpool
        if kind == "peer":
            env = envpool.make_gymnasium(task, num_envs=n, batch_size=n, num_threads=a["threads"], seed=0)
            space = env.action_space  # the old gym-style API: one env's space
        else:
            env = envpool.make(task, num_envs=n, num_threads=a["threads"], seed=0)
            space = env.single_action_space
    acts = rng.uniform(space.low, space.high, size=(64, n, *space.shape)).astype(np.float32)
    env.reset()
    def step(k):
        env.step(acts[k % 64])

k = 0
t_end = time.perf_counter() + a["warmup"]
while time.perf_counter() < t_end:
    step(k); k += 1
k = 0
t0 = time.perf_counter()
t_end = t0 + a["seconds"]
while time.perf_counter() < t_end:
    for _ in range(8):
        step(k); k += 1
dt = time.perf_counter() - t0
print("@@MJ_BENCH@@ " + json.dumps({"steps_per_s": k * n / dt}), flush=True)
'''


def run(python: str, args: dict, env: dict) -> float | None:
    out = subprocess.run([python, "-c", WORKER, json.dumps(args)], capture_output=True, text=True, env=env,
                         timeout=120 + 2 * args["seconds"])
    for line in out.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])["steps_per_s"]
    sys.stderr.write(f"{args['kind']} {args['task']} failed:\n{out.stderr[-2000:]}\n")
    return None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=TASKS)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=0.5)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--peer-python", default=None, help="interpreter of the reference EnvPool release")
    p.add_argument("--json", default=None, help="also write the medians here")
    a = p.parse_args()

    env = dict(os.environ)
    peers = [("ours-1t", sys.executable, "ours", 1), ("ours-2t", sys.executable, "ours", 2),
             ("gymnasium-sync", sys.executable, "gym", 1), ("raw-mj_step", sys.executable, "raw", 1)]
    if a.peer_python:
        peers += [("peer-1t", a.peer_python, "peer", 1), ("peer-2t", a.peer_python, "peer", 2)]
    results: dict[str, dict[str, float | None]] = {}
    for task in a.tasks:
        samples: dict[str, list[float]] = {name: [] for name, *_ in peers}
        for _ in range(a.rounds):
            for name, python, kind, threads in peers:
                peer_env = env
                if kind == "peer":  # keep our package off the peer's path
                    peer_env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
                sps = run(python, {"task": task, "num_envs": a.num_envs, "kind": kind, "threads": threads,
                                   "seconds": a.seconds, "warmup": a.warmup}, peer_env)
                if sps is not None:
                    samples[name].append(sps)
        results[task] = {name: (statistics.median(s) if s else None) for name, s in samples.items()}
        print(task, {k: (round(v) if v else None) for k, v in results[task].items()}, flush=True)

    names = [name for name, *_ in peers]
    print(f"\nenv steps/s, num_envs={a.num_envs}, median of {a.rounds} round(s) of {a.seconds:g} s, "
          f"{os.cpu_count()} CPUs\n")
    print("| task | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for task, row in results.items():
        print(f"| {task} | " + " | ".join(f"{row[n]:,.0f}" if row[n] else "—" for n in names) + " |")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
