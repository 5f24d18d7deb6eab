#!/usr/bin/env python3
"""Box2D throughput: env steps per second of LunarLander-v3, BipedalWalker-v3 and CarRacing-v3
(whose observation is the 96 x 96 frame, drawn every step on both sides), side by side.

Peers, each timed in a fresh subprocess (reset, warm up, then step with pre-generated uniform
random actions for a fixed wall time; episodes end and autoreset as they do in training):

  * ours N=16 / N=64 2T: ``envpool.make(task, num_envs=N, num_threads=2)``, full-batch ``step()``;
  * ours async 64/32 2T: ``num_envs=64, batch_size=32``, a ``recv()`` / ``send(actions, env_id)``
    loop;
  * ref N=16 / N=64 2T, ref async 64/32 2T: the same on the reference EnvPool release
    (``--peer-python``, default: the venv bench/peers/envpool.sh makes; it imports as
    ``envpool`` too, hence a subprocess without our PYTHONPATH);
  * gymnasium async x16: ``gymnasium.vector.AsyncVectorEnv`` of 16 envs (one process each, as
    ``gymnasium.make_vec(task, 16, vectorization_mode="async")`` makes it), and gymnasium sync x16.

CarRacing-v3 has no reference-EnvPool peer (1.2.7 registers CarRacing-v2, an older version).
Rounds interleave the peers (rotated each round); the table shows medians and the ratios the
issue asks for (ours / ref, ours / gymnasium async).

    python bench/box2d.py [--rounds 3] [--seconds 3] [--tasks LunarLander-v3 BipedalWalker-v3 CarRacing-v3]

Prints a markdown table and writes it to bench/results/box2d.md (--out).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import child_env, run_child  # bench/ is sys.path[0] when a script runs

REPO_ROOT = Path(__file__).resolve().parent.parent
PEER_SCRIPT = REPO_ROOT / "bench" / "peers" / "envpool.sh"
TASKS = ["LunarLander-v3", "BipedalWalker-v3", "CarRacing-v3"]
NO_PEER = {"CarRacing-v3"}  # the reference EnvPool has only CarRacing-v2

WORKER = r"""
import json, sys, time
import numpy as np
a = json.loads(sys.argv[1])
task, n, kind, batch = a["task"], a["num_envs"], a["kind"], a["batch_size"]
rng = np.random.default_rng(0)
if kind in ("gym-async", "gym-sync"):
    import gymnasium as gym
    env = gym.make_vec(task, num_envs=n, vectorization_mode=kind[4:])
    space = env.single_action_space
else:
    import envpool
    if kind == "peer":
        env = envpool.make_gymnasium(task, num_envs=n, batch_size=batch, num_threads=2, seed=0)
        space = env.action_space  # the old gym-style API: one env's space
    else:
        env = envpool.make(task, num_envs=n, batch_size=batch, num_threads=2, seed=0)
        space = env.single_action_space
if hasattr(space, "n"):
    acts = rng.integers(int(space.n), size=(64, batch)).astype(np.int64 if kind != "peer" else np.int32)
else:
    acts = rng.uniform(space.low, space.high, size=(64, batch, *space.shape)).astype(np.float32)
if batch < n:
    env.async_reset()
    def step(k):
        out = env.recv()
        env.send(acts[k % 64], out[-1]["env_id"])
else:
    env.reset(seed=0) if kind.startswith("gym") else env.reset()
    def step(k):
        env.step(acts[k % 64])
k = 0
t_end = time.perf_counter() + a["warmup"]
while time.perf_counter() < t_end:
    step(k); k += 1
k = 0
t0 = time.perf_counter()
while time.perf_counter() < t0 + a["seconds"]:
    for _ in range(4):
        step(k); k += 1
dt = time.perf_counter() - t0
getattr(env, "close", lambda: None)()
print("@@BENCH_RESULT@@ " + json.dumps({"steps_per_s": k * batch / dt}), flush=True)
"""

# (name, kind, num_envs, batch_size)
OURS = [("ours N=16 2T", "ours", 16, 16), ("ours N=64 2T", "ours", 64, 64), ("ours async 64/32 2T", "ours", 64, 32)]
PEER = [("ref N=16 2T", "peer", 16, 16), ("ref N=64 2T", "peer", 64, 64), ("ref async 64/32 2T", "peer", 64, 32)]
GYM = [("gymnasium async x16", "gym-async", 16, 16), ("gymnasium sync x16", "gym-sync", 16, 16)]
RATIOS = [
    ("ours N=16 / ref N=16", "ours N=16 2T", "ref N=16 2T"),
    ("ours N=64 / ref N=64", "ours N=64 2T", "ref N=64 2T"),
    ("ours async / ref async", "ours async 64/32 2T", "ref async 64/32 2T"),
    ("ours N=16 / gymnasium async x16", "ours N=16 2T", "gymnasium async x16"),
    ("ours N=64 / gymnasium async x16", "ours N=64 2T", "gymnasium async x16"),
]


def fmt(v: float | None) -> str:
    return f"{v:,.0f}" if v else "—"


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=TASKS)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=0.5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--peer-python", default=None, help="the reference EnvPool's interpreter ('' to skip)")
    p.add_argument("--no-gym", action="store_true", help="skip gymnasium's vector envs")
    p.add_argument("--out", default=str(REPO_ROOT / "bench" / "results" / "box2d.md"))
    a = p.parse_args()
    if a.peer_python is None:  # the reference's venv, made once by the repo's own script
        a.peer_python = subprocess.run([str(PEER_SCRIPT)], check=True, capture_output=True, text=True).stdout.strip()
    return a


def main() -> None:
    a = parse_args()
    peers = OURS + (PEER if a.peer_python else []) + ([] if a.no_gym else GYM)
    env, peer_env = child_env(), child_env(peer=True)
    samples = {t: {name: [] for name, *_ in peers} for t in a.tasks}
    loads, t_start = [loadavg()], time.time()
    for r in range(a.rounds):
        for task in a.tasks:
            shift = (r * 2) % len(peers)
            for name, kind, n, batch in peers[shift:] + peers[:shift]:
                if kind == "peer" and task in NO_PEER:
                    continue
                python = a.peer_python if kind == "peer" else sys.executable
                args = {"task": task, "num_envs": n, "batch_size": batch, "kind": kind}
                args.update(seconds=a.seconds, warmup=a.warmup)
                child = peer_env if kind == "peer" else env
                found = run_child(python, WORKER, args, child, "/tmp", 120 + 4 * a.seconds)
                if "error" in found:
                    sys.stderr.write(f"{name} {task} failed: {found['error']}\n")
                else:
                    samples[task][name].append(found["steps_per_s"])
            print(f"round {r + 1}/{a.rounds} {task} (load {loadavg()})", flush=True)
        loads.append(loadavg())
    med = {t: {k: (statistics.median(v) if v else None) for k, v in s.items()} for t, s in samples.items()}
    names = [name for name, *_ in peers]
    lines = [
        "# Box2D throughput (env steps/s)\n",
        f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.node()}, {os.cpu_count()} CPUs, median of {a.rounds} "
        f"interleaved round(s) of {a.seconds:g} s (+{a.warmup:g} s warm-up) per peer, random actions; load "
        f"average at start and after each round: {' | '.join(loads)}; {(time.time() - t_start) / 60:.1f} min.\n",
        "| peer | " + " | ".join(a.tasks) + " |",
        "|---|" + "---:|" * len(a.tasks),
    ]
    lines += [f"| {n} | " + " | ".join(fmt(med[t][n]) for t in a.tasks) + " |" for n in names]
    lines += ["", "| ratio of medians | " + " | ".join(a.tasks) + " |", "|---|" + "---:|" * len(a.tasks)]
    for label, x, y in RATIOS:
        if x in names and y in names:
            cells = [f"{med[t][x] / med[t][y]:.2f}" if med[t][x] and med[t][y] else "—" for t in a.tasks]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(text)


if __name__ == "__main__":
    main()
