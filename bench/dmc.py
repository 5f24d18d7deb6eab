#!/usr/bin/env python3
"""dm_control suite throughput: env steps per second of CheetahRun (states, and 84 x 84 pixels),
side by side.

Peers, each timed in a fresh subprocess (reset, warm up, then step with pre-generated uniform
random actions for a fixed wall time; episodes end and restart as in training):

  * ours N 2T: ``envpool.make("CheetahRun-v1", env_type="dm", num_envs=N, num_threads=2)``,
    full-batch ``step()`` (``from_pixels=True``: 84 x 84 frames drawn in the pool's threads);
  * ref N 2T: the same on the reference EnvPool release (``--peer-python``, default: the venv
    bench/peers/envpool.sh makes; its ``from_pixels`` frames are (3, 84, 84));
  * dm_control loop xN: ``suite.load("cheetah", "run")`` N times in one process, each stepped
    in turn (``pixels.Wrapper`` with 84 x 84 frames for the pixel rows), one core: dm_control
    itself, what a ``suite.load`` loop gives (dm-control 1.0.50 after the tests' MuJoCo 4 shim).
  * dm_control AsyncVectorEnv xN (pixel rows): the same N ``pixels.Wrapper`` envs, each behind a
    minimal gymnasium.Env in its own process of gymnasium's ``AsyncVectorEnv``: what a user
    without EnvPool runs to use every core.

  * ours (baseline) N 2T: with --baseline DIR, ours again from another build of envpool
    (a folder holding its ``envpool`` package, e.g. ``pip install --target DIR`` of an older
    commit), in the same interleaved rounds: before/after a change on a machine whose load moves.

    python bench/dmc.py [--rounds 3] [--seconds 3] [--sizes 8 32] [--pixel-sizes 8] [--baseline DIR]

Prints a markdown table and writes it to bench/results/dmc.md (--out).
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

WORKER = r"""
import json, os, sys, time
import numpy as np
a = json.loads(sys.argv[1])
n, kind, pixels = a["num_envs"], a["kind"], a["pixels"]
rng = np.random.default_rng(0)
acts = rng.uniform(-1, 1, size=(64, n, 6))
def load_dmc(i):
    os.environ.setdefault("MUJOCO_GL", "egl")
    import mujoco
    from dm_control.mujoco.wrapper.mjbindings import sizes
    for struct, cls in (("mjmodel", mujoco.MjModel), ("mjdata", mujoco.MjData)):
        for name in [k for k in sizes.array_sizes[struct] if not hasattr(cls, k)]:
            del sizes.array_sizes[struct][name]
    from dm_control import suite
    from dm_control.suite.wrappers import pixels as pixel_wrapper
    e = suite.load("cheetah", "run", task_kwargs={"random": i})
    if pixels:
        kw = {"height": 84, "width": 84, "camera_id": -1}
        e = pixel_wrapper.Wrapper(e, pixels_only=True, render_kwargs=kw)
    return e
if kind == "dmc":
    envs = [load_dmc(i) for i in range(n)]
    for e in envs:
        e.reset()
    def step(k):
        for e, act in zip(envs, acts[k % 64]):
            if e.step(act).last():
                e.reset()
elif kind == "avec":
    import gymnasium as gym
    class DmcPixels(gym.Env):
        observation_space = gym.spaces.Box(0, 255, (84, 84, 3), np.uint8)
        action_space = gym.spaces.Box(-1.0, 1.0, (6,), np.float64)
        def __init__(self, i):
            self.i, self.e = i, None
        def reset(self, *, seed=None, options=None):
            # dm_control is loaded at the first reset, in the worker process: AsyncVectorEnv
            # also makes one env in this process (for its spaces), and a GL context made here
            # before the fork would leave the workers' Mesa waiting on threads they lack.
            self.e = self.e or load_dmc(self.i)
            return self.e.reset().observation["pixels"], {}
        def step(self, action):
            ts = self.e.step(action)
            end = ts.last()
            return ts.observation["pixels"], ts.reward, end and ts.discount == 0, end and ts.discount != 0, {}
    env = gym.vector.AsyncVectorEnv([lambda i=i: DmcPixels(i) for i in range(n)])
    env.reset(seed=0)
    def step(k):
        env.step(acts[k % 64])
else:
    import envpool
    kw = {"from_pixels": True} if pixels else {}
    env = envpool.make_dm("CheetahRun-v1", num_envs=n, batch_size=n, num_threads=2, seed=0, **kw)
    env.reset()
    def step(k):
        env.step(acts[k % 64])
k = 0
t_end = time.perf_counter() + a["warmup"]
while time.perf_counter() < t_end:
    step(k); k += 1
k = 0
t0 = time.perf_counter()
while time.perf_counter() < t0 + a["seconds"]:
    step(k); k += 1
dt = time.perf_counter() - t0
print("@@BENCH_RESULT@@ " + json.dumps({"steps_per_s": k * n / dt}), flush=True)
"""


def fmt(v: float | None) -> str:
    return f"{v:,.0f}" if v else "—"


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", nargs="*", type=int, default=[8, 32])
    p.add_argument("--pixel-sizes", nargs="*", type=int, default=[8])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=0.5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--peer-python", default=None, help="the reference EnvPool's interpreter ('' to skip)")
    p.add_argument("--baseline", default=None, help="a folder with another envpool build, measured as 'base'")
    p.add_argument("--out", default=str(REPO_ROOT / "bench" / "results" / "dmc.md"))
    a = p.parse_args()
    if a.peer_python is None:  # the reference's venv, made once by the repo's own script
        a.peer_python = subprocess.run([str(PEER_SCRIPT)], check=True, capture_output=True, text=True).stdout.strip()
    return a


def main() -> None:
    a = parse_args()
    rows = [(f"states N={n}", n, False) for n in a.sizes] + [(f"84x84 pixels N={n}", n, True) for n in a.pixel_sizes]
    kinds = ["ours", "dmc", "avec"] + (["peer"] if a.peer_python else []) + (["base"] if a.baseline else [])
    env, peer_env = child_env(), child_env(peer=True)
    base_env = child_env(a.baseline) if a.baseline else None
    samples = {(row, kind): [] for row, *_ in rows for kind in kinds}
    loads, t_start = [loadavg()], time.time()
    for r in range(a.rounds):
        for row, n, pixels in rows:
            shift = r % len(kinds)
            for kind in kinds[shift:] + kinds[:shift]:
                if kind == "avec" and not pixels:
                    continue  # the AsyncVectorEnv peer is for frames; states have the loop
                python = a.peer_python if kind == "peer" else sys.executable
                args = {
                    "num_envs": n,
                    "kind": "ours" if kind == "base" else kind,
                    "pixels": pixels,
                    "seconds": a.seconds,
                    "warmup": a.warmup,
                }
                child = {"peer": peer_env, "base": base_env}.get(kind, env)
                found = run_child(python, WORKER, args, child, "/tmp", 300 + 4 * a.seconds)
                if "error" in found:
                    sys.stderr.write(f"{kind} {row} failed: {found['error']}\n")
                else:
                    samples[(row, kind)].append(found["steps_per_s"])
            print(f"round {r + 1}/{a.rounds} {row} (load {loadavg()})", flush=True)
        loads.append(loadavg())
    med = {key: (statistics.median(v) if v else None) for key, v in samples.items()}
    names = {
        "ours": "ours 2T",
        "peer": "reference EnvPool 2T",
        "dmc": "dm_control loop (1 core)",
        "avec": "dm_control AsyncVectorEnv",
        "base": "ours (baseline) 2T",
    }
    lines = [
        "# dm_control suite throughput, CheetahRun (env steps/s)\n",
        f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.node()}, {os.cpu_count()} CPUs, median of {a.rounds} "
        f"interleaved round(s) of {a.seconds:g} s (+{a.warmup:g} s warm-up) per peer, random actions; load "
        f"average at start and after each round: {' | '.join(loads)}; {(time.time() - t_start) / 60:.1f} min.\n",
        "| row | "
        + " | ".join(names[k] for k in kinds)
        + " | ours / ref | ours per core / dm_control | ours / AsyncVectorEnv |"
        + (" ours / baseline |" if a.baseline else ""),
        "|---|" + "---:|" * (len(kinds) + 3 + bool(a.baseline)),
    ]
    for row, *_ in rows:
        ours, ref, dmc = med[(row, "ours")], med.get((row, "peer")), med[(row, "dmc")]
        ratio_ref = f"{ours / ref:.2f}" if ours and ref else "—"
        ratio_dmc = f"{ours / 2 / dmc:.2f}" if ours and dmc else "—"
        avec = med[(row, "avec")]
        ratio_avec = f"{ours / avec:.2f}" if ours and avec else "—"
        cells = " | ".join(fmt(med[(row, k)]) for k in kinds)
        line = f"| {row} | {cells} | {ratio_ref} | {ratio_dmc} | {ratio_avec} |"
        if a.baseline:
            base = med[(row, "base")]
            line += f" {ours / base:.2f} |" if ours and base else " — |"
        lines.append(line)
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(text)


if __name__ == "__main__":
    main()
