#!/usr/bin/env python3
"""MuJoCo throughput: env steps per second for a few gymnasium v5 tasks, against the raw physics.

Peers, each timed in a fresh subprocess (reset, warm up, then step with pre-generated random
actions for a fixed wall time):

  * raw-1T / raw-2T: the physics limit, a C++ loop with no pool and no Python per step
    (``envpool_mujoco_raw.steps_per_second``, bench/cpp/mujoco_raw.cc, a separate extension this
    script builds with CMake into --raw-build-dir; needs cmake and pybind11): 8 MjData
    on one shared MjModel of the task's model file, split over 1 or 2 threads, a random ctrl
    and ``frame_skip`` mj_step calls per env step, a reset to qpos0 when the sim time passes
    10 s (our envs reset when an episode ends, so Hopper, Ant and Humanoid visit other states).
    raw+rne-2T also calls mj_rnePostConstraint once per env step, as gymnasium's
    ``do_simulation`` (and ours) do; raw-2T N=16 steps 16 MjData;
  * ours N=8 / N=16, 1T / 2T: ``envpool.make(task, num_envs=N, num_threads=T)``, full batch
    ``step()``;
  * ours async 16/8 2T: ``num_envs=16, batch_size=8, num_threads=2``, a ``recv()`` /
    ``send(actions, info["env_id"])`` loop;
  * gymnasium-sync x8: ``gymnasium.make_vec(task, 8, vectorization_mode="sync")``;
  * ref async 16/8 2T and ref N=8 2T: the reference EnvPool release (``--peer-python``, its
    interpreter, default: the venv bench/peers/envpool.sh makes (created on first use); it imports
    as ``envpool`` too, hence a subprocess without PYTHONPATH).

Rounds interleave all peers (in a rotated order each round); the table shows medians. Ratios:
ours / raw-2T (the physics limit on 2 threads) and ours / ref.

    PYTHONPATH=... python bench/mujoco_throughput.py [--rounds 3] [--seconds 3] [--tasks ...]

Prints a markdown table and writes it to bench/results/mujoco.md (--out).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import (  # bench/ is sys.path[0] when a script runs
    build_bench_extension,
    child_env,
    cpu_jiffies,
    run_child,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
TASKS = ["HalfCheetah-v5", "Hopper-v5", "Ant-v5", "Humanoid-v5"]
PEER_SCRIPT = REPO_ROOT / "bench" / "peers" / "envpool.sh"

WORKER = r"""
import json, sys, time
import numpy as np
a = json.loads(sys.argv[1])
task, n, kind, threads = a["task"], a["num_envs"], a["kind"], a["threads"]
batch = a.get("batch_size") or n
rng = np.random.default_rng(0)

if kind == "raw":
    import envpool
    sys.path.insert(0, a["raw_dir"])
    import envpool_mujoco_raw
    cfg = envpool._core.env_spec(task, {})["config"]
    sps = envpool_mujoco_raw.steps_per_second(cfg["xml_file"], n, threads, a["warmup"], cfg["frame_skip"],
                                              a.get("rne", False))
    sps = envpool_mujoco_raw.steps_per_second(cfg["xml_file"], n, threads, a["seconds"], cfg["frame_skip"],
                                              a.get("rne", False))
    print("@@BENCH_RESULT@@ " + json.dumps({"steps_per_s": sps}), flush=True)
    sys.exit(0)

if kind == "gym":
    import gymnasium as gym
    env = gym.make_vec(task, num_envs=n, vectorization_mode="sync")
    space = env.single_action_space
else:
    import envpool
    if kind == "peer":
        env = envpool.make_gymnasium(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
        space = env.action_space  # the old gym-style API: one env's space
    else:
        env = envpool.make(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
        space = env.single_action_space
acts = rng.uniform(space.low, space.high, size=(64, batch, *space.shape)).astype(np.float32)
if batch < n:
    env.async_reset()
    def step(k):
        out = env.recv()
        env.send(acts[k % 64], out[-1]["env_id"])
else:
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
print("@@BENCH_RESULT@@ " + json.dumps({"steps_per_s": k * batch / dt}), flush=True)
"""

# (name, kind, num_envs, batch_size, threads, extra)
OURS = [
    ("ours N=8 1T", "ours", 8, 8, 1, {}),
    ("ours N=8 2T", "ours", 8, 8, 2, {}),
    ("ours N=16 1T", "ours", 16, 16, 1, {}),
    ("ours N=16 2T", "ours", 16, 16, 2, {}),
    ("ours async 16/8 2T", "ours", 16, 8, 2, {}),
]
RAW = [
    ("raw-1T", "raw", 8, 8, 1, {}),
    ("raw-2T", "raw", 8, 8, 2, {}),
    ("raw+rne-2T", "raw", 8, 8, 2, {"rne": True}),
    ("raw-2T N=16", "raw", 16, 16, 2, {}),
]
GYM = [("gymnasium-sync x8", "gym", 8, 8, 1, {})]
PEER = [
    ("ref N=8 2T", "peer", 8, 8, 2, {}),
    ("ref async 16/8 2T", "peer", 16, 8, 2, {}),
]


def children_cpu_s() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wait_idle(max_wait: float, threshold: float = 0.15) -> float:
    """Waits (up to max_wait s) until other processes use < `threshold` cores; returns their use."""
    hz = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + max_wait
    while True:
        b0, t0 = cpu_jiffies()
        time.sleep(0.5)
        b1, t1 = cpu_jiffies()
        foreign = (b1 - b0) / hz / 0.5 if t1 > t0 else 0.0
        if foreign < threshold or time.monotonic() >= deadline:
            return foreign


def run(python: str, args: dict, env: dict) -> tuple[float | None, float]:
    """(steps/s or None, cores used by other processes meanwhile)."""
    hz = os.sysconf("SC_CLK_TCK")
    b0, _ = cpu_jiffies()
    c0, w0 = children_cpu_s(), time.monotonic()
    found = run_child(python, WORKER, args, env, None, 120 + 4 * args["seconds"])
    b1, _ = cpu_jiffies()
    wall = time.monotonic() - w0
    foreign = max(0.0, ((b1 - b0) / hz - (children_cpu_s() - c0)) / wall) if wall > 0 else 0.0
    if "error" not in found:
        return found["steps_per_s"], foreign
    sys.stderr.write(f"{args['kind']} {args['task']} failed: {found['error']}\n")
    return None, foreign


def build_raw(build_dir: Path) -> str:
    """Builds envpool_mujoco_raw (the raw peers' loop) against this interpreter's MuJoCo headers.

    Returns the folder that holds it."""
    return build_bench_extension(
        build_dir, "ENVPOOL_MUJOCO_BENCH", "envpool_mujoco_raw", " (MuJoCo headers not found? see the cmake output)"
    )


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def fmt(v: float | None) -> str:
    return f"{v:,.0f}" if v else "—"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a and b else "—"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=TASKS)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=0.5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument(
        "--peer-python",
        default=None,
        help="interpreter of the reference EnvPool release (default: made by bench/peers/envpool.sh; '' to skip)",
    )
    p.add_argument("--no-gym", action="store_true", help="skip gymnasium's SyncVectorEnv")
    p.add_argument("--verbose", action="store_true", help="print every sample")
    p.add_argument("--peers", nargs="+", default=None, help="only peers whose name contains one of these")
    p.add_argument(
        "--wait-idle",
        type=float,
        default=0.0,
        help="before each sample wait up to this many seconds for other processes to go idle",
    )
    p.add_argument(
        "--raw-build-dir",
        default=str(REPO_ROOT / "build" / "bench-mujoco-raw"),
        help="CMake build folder of the raw peers' extension",
    )
    p.add_argument("--out", default=str(REPO_ROOT / "bench" / "results" / "mujoco.md"))
    p.add_argument("--json", default=None, help="also write all samples here")
    a = p.parse_args()
    if a.peer_python is None:  # the reference's venv, made once by the repo's own script
        a.peer_python = subprocess.run([str(PEER_SCRIPT)], check=True, capture_output=True, text=True).stdout.strip()
    return a


def measure(a, peers: list, raw_dir: str) -> tuple[dict, list, list]:
    """Per task and peer: a sample per round (the peers' order rotating); the load averages and
    the cores other processes used meanwhile."""
    env, peer_env = child_env(), child_env(peer=True)  # keep our package off the peer's path
    foreign_all: list[float] = []
    loads = [loadavg()]
    samples: dict[str, dict[str, list[float]]] = {t: {name: [] for name, *_ in peers} for t in a.tasks}
    for r in range(a.rounds):
        for task in a.tasks:
            shift = (r * 3) % len(peers)  # rotate the order so no peer always runs first/last
            for name, kind, n, batch, threads, extra in peers[shift:] + peers[:shift]:
                python = a.peer_python if kind == "peer" else sys.executable
                if a.wait_idle > 0:
                    wait_idle(a.wait_idle)
                args = {"task": task, "num_envs": n, "batch_size": batch, "kind": kind, "threads": threads}
                args.update(seconds=a.seconds, warmup=a.warmup, raw_dir=raw_dir, **extra)
                sps, foreign = run(python, args, peer_env if kind == "peer" else env)
                foreign_all.append(foreign)
                if a.verbose:
                    print(f"  {task} {name}: {fmt(sps)} (others used {foreign:.2f} cores)", flush=True)
                if sps is not None:
                    samples[task][name].append(sps)
            med = {k: round(statistics.median(v)) for k, v in samples[task].items() if v}
            print(f"round {r + 1}/{a.rounds} {task} (load {loadavg()}): {med}", flush=True)
        loads.append(loadavg())
    return samples, loads, foreign_all


RATIO_ROWS = [
    ("ours N=8 2T / raw-2T", "ours N=8 2T", "raw-2T"),
    ("ours N=16 2T / raw-2T", "ours N=16 2T", "raw-2T"),
    ("ours N=16 2T / raw-2T N=16", "ours N=16 2T", "raw-2T N=16"),
    ("ours async 16/8 2T / raw-2T", "ours async 16/8 2T", "raw-2T"),
    ("ours N=8 2T / raw+rne-2T", "ours N=8 2T", "raw+rne-2T"),
    ("ours N=8 1T / raw-1T", "ours N=8 1T", "raw-1T"),
    ("raw-2T / raw-1T", "raw-2T", "raw-1T"),
    ("ours async 16/8 2T / ref async 16/8 2T", "ours async 16/8 2T", "ref async 16/8 2T"),
    ("ours N=8 2T / ref N=8 2T", "ours N=8 2T", "ref N=8 2T"),
    ("ours N=8 1T / gymnasium-sync x8", "ours N=8 1T", "gymnasium-sync x8"),
]


def table(a, names: list[str], samples: dict, med: dict, header: str) -> str:
    lines = [header, "| peer | " + " | ".join(a.tasks) + " |", "|---|" + "---:|" * len(a.tasks)]
    for name in names:
        cells = []
        for t in a.tasks:
            s = samples[t][name]
            cells.append(
                f"{fmt(med[t][name])}" + (f" ({min(s) / 1000:.1f}–{max(s) / 1000:.1f}k)" if len(s) > 1 else "")
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Ratios of medians:", "", "| ratio | " + " | ".join(a.tasks) + " |", "|---|" + "---:|" * len(a.tasks)]
    for label, x, y in RATIO_ROWS:  # those whose two peers ran
        if x in names and y in names:
            lines.append(f"| {label} | " + " | ".join(ratio(med[t][x], med[t][y]) for t in a.tasks) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    a = parse_args()
    peers = RAW + OURS + ([] if a.no_gym else GYM) + (PEER if a.peer_python else [])
    if a.peers:
        peers = [p for p in peers if any(f in p[0] for f in a.peers)]
    names = [name for name, *_ in peers]
    raw_dir = build_raw(Path(a.raw_build_dir)) if any(kind == "raw" for _, kind, *_ in peers) else ""
    t_start = time.time()
    samples, loads, foreign_all = measure(a, peers, raw_dir)
    med = {t: {k: (statistics.median(v) if v else None) for k, v in s.items()} for t, s in samples.items()}
    header = (
        "# MuJoCo throughput (env steps/s)\n\n"
        f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.node()}, {os.cpu_count()} CPUs, median of {a.rounds} "
        f"interleaved round(s) of {a.seconds:g} s (+{a.warmup:g} s warm-up) per peer; "
        f"load average (1/5/15 min) at start and after each round: {' | '.join(loads)}; "
        f"other processes used {statistics.median(foreign_all):.2f} cores (median over samples, max "
        f"{max(foreign_all):.2f}) while peers ran; "
        f"{(time.time() - t_start) / 60:.1f} min.\n"
    )
    text = table(a, names, samples, med, header)
    print("\n" + text)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(text)
    if a.json:
        Path(a.json).write_text(json.dumps({"samples": samples, "median": med}, indent=2))


if __name__ == "__main__":
    main()
