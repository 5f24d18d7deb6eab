"""Atari throughput, side by side in one run: ours vs the reference EnvPool, ale-py and gymnasium.

Contenders, all on the same game and preprocessing (Pong, 84x84 gray, stack 4, frame skip 4,
no-op max 30, fire reset, no sticky actions) and all stepping random actions:

  ours          envpool.make("Pong-v5")  (envpool-ng-atari; the ALE stepped by our thread pool)
  reference     the reference EnvPool 1.2.5, envpool.make("Pong-v5"), in its own interpreter
  ale-vector    ale-py 0.12.1's AtariVectorEnv (its own C++ thread pool)
  gym-async     gymnasium's AsyncVectorEnv of AtariPreprocessing + FrameStackObservation over
                ale-py's AtariEnv (frameskip=1), one process per env (only up to --gym-max envs)
  emulator      a bare C++ loop of ALE act() calls with the same frame skip (and the two screen
                fetches per step an env needs), one ALE per thread: the emulator limit
  emulator-n    the same loop over num_envs ALEs (each thread steps its share in turn, as a pool
                thread steps its envs): the limit for num_envs emulators, whose states no longer
                all fit in a core's caches

Modes: sync (full-batch step(), batch = num_envs) and async (recv/send with batch = num_envs/2);
each contender with `--threads` threads (AsyncVectorEnv: processes). Each sample is a fresh
subprocess that builds the env, warms up for --warmup seconds and steps for --seconds; the
contenders of one row run in an order rotated each round; medians and the ratios ours/other.

Usage (the reference runs under --peer-python, default $PEER_PYTHON):
  python -m bench.envs.atari --peer-python "$(bench/tools/peers/envpool.sh)"
  python -m bench.envs.atari --quick            # one size, one round
Outputs in --out (default bench/results): atari.json, atari.md, atari.png (if matplotlib).
"""

from __future__ import annotations

import os
import statistics
import sys

from bench.harness import child_rate, plot_rates, run_args
from bench.rounds import rotated_report

# Run verbatim by our interpreter and by the reference's (`python -c WORKER '<json>'`).
WORKER = r"""
import json, os, sys, time
import numpy as np

a = json.loads(sys.argv[1])
kind, n, threads, mode = a["kind"], a["num_envs"], a["threads"], a["mode"]
batch = n if mode == "sync" else n // 2
out = {}

if kind in ("emulator", "emulator-n"):
    import ctypes, envpool_atari
    roms = envpool_atari.ale_py_roms_dir()
    lib = ctypes.CDLL(envpool_atari.PLUGIN_PATH)
    lib.envpool_atari_raw_steps_n.restype = ctypes.c_double
    lib.envpool_atari_raw_steps_n.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int]
    rom = os.path.join(roms, "pong.bin").encode()
    emulators = threads if kind == "emulator" else n
    lib.envpool_atari_raw_steps_n(rom, threads, emulators, 500, 4)  # warm up
    steps = 4000
    while True:
        sec = lib.envpool_atari_raw_steps_n(rom, threads, emulators, steps, 4)
        if sec < 0:
            raise SystemExit("raw loop failed")
        if sec >= a["seconds"] or steps > 10**8:
            break
        steps = int(steps * max(2.0, 1.2 * a["seconds"] / max(sec, 1e-3)))
    print("@@BENCH_RESULT@@ " + json.dumps({"sps": threads * steps / sec}), flush=True)
    raise SystemExit(0)

if kind in ("ours", "reference"):
    import envpool
    env = envpool.make("Pong-v5", env_type="gymnasium", num_envs=n, batch_size=batch, num_threads=threads, seed=0)
elif kind == "ale-vector":
    from ale_py.vector_env import AtariVectorEnv
    env = AtariVectorEnv("pong", n, batch_size=0 if mode == "sync" else batch, num_threads=threads)
elif kind == "gym-async":
    import ale_py, gymnasium
    from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation
    gymnasium.register_envs(ale_py)
    def make():
        e = gymnasium.make("ALE/Pong-v5", frameskip=1, repeat_action_probability=0.0)
        return FrameStackObservation(AtariPreprocessing(e, noop_max=30, frame_skip=4), 4)
    env = gymnasium.vector.AsyncVectorEnv([make] * n)
else:
    raise SystemExit("unknown kind " + kind)

n_actions = int(getattr(env, "single_action_space").n)
acts = [np.ascontiguousarray(x) for x in np.random.default_rng(0).integers(0, n_actions, size=(64, batch))]

def run(seconds, min_steps=0):
    steps, k = 0, 0
    t0 = time.perf_counter()
    end = t0 + seconds
    if mode == "sync":
        while time.perf_counter() < end:
            env.step(acts[k % 64]); k += 1; steps += n
    else:
        while time.perf_counter() < end or steps < min_steps:
            obs, rew, term, trunc, info = env.recv()
            env.send(acts[k % 64], info["env_id"]) if kind != "ale-vector" else env.send(acts[k % 64])
            k += 1; steps += batch
    return steps, time.perf_counter() - t0

if mode == "sync":
    env.reset(seed=0)
elif kind == "ale-vector":
    obs, info = env.reset(seed=0)  # its first batch
    env.send(acts[0])
else:
    env.async_reset()
# The warm-up covers every env's first reset (seeded resets load the ROM, 10-100 ms each).
run(a["warmup"], min_steps=3 * n)
steps, sec = run(a["seconds"])
env.close()
print("@@BENCH_RESULT@@ " + json.dumps({"sps": steps / sec}), flush=True)
"""


KINDS = ["ours", "reference", "ale-vector", "gym-async", "emulator", "emulator-n"]
RATIOS = [(f"ours / {k}", "ours", k) for k in ("reference", "ale-vector", "emulator", "emulator-n")]


def contenders(num_envs: int, mode: str, opts) -> list[str]:
    kinds = ["ours", "ale-vector"] + (["reference"] if opts.peer_python else [])
    if mode == "sync":
        kinds += (["gym-async"] if num_envs <= opts.gym_max else []) + ["emulator", "emulator-n"]
    return kinds


def main() -> None:
    ap = run_args(__doc__.split("\n\n")[0], rounds=3, seconds=2.0, warmup=0.5, peer=True)
    ap.add_argument("--sizes", default="8,16,32,64")
    ap.add_argument("--modes", default="sync,async")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--gym-max", type=int, default=16, help="largest num_envs for gym-async (a process per env)")
    ap.add_argument("--quick", action="store_true", help="8 envs, 1 round, 1 s samples")
    opts = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = "1"  # the children's: no library spreads threads beside the pools
    if opts.quick:
        opts.sizes, opts.rounds, opts.seconds, opts.warmup = "8", 1, 1.0, 0.3
    rows = {f"{m} {n}": (m, int(n)) for m in opts.modes.split(",") for n in opts.sizes.split(",")}

    def sample(row: str, kind: str) -> float | None:
        mode, n = rows[row]
        if kind not in contenders(n, mode, opts):
            return None
        payload = dict(kind=kind, num_envs=n, mode=mode, threads=opts.threads, seconds=opts.seconds)
        payload["warmup"] = opts.warmup
        python = opts.peer_python if kind == "reference" else sys.executable
        return child_rate(python, WORKER, payload, kind == "reference", 600, key="sps")

    title = f"Pong-v5, {opts.threads} threads, env steps/s"
    samples = rotated_report(opts, "atari", title, list(rows), KINDS, sample, RATIOS)
    medians = {row: {k: statistics.median(v) for k, v in by_kind.items() if v} for row, by_kind in samples.items()}
    panels = {
        f"Pong-v5, {mode}, {opts.threads} threads": {
            kind: [(rows[r][1], m[kind]) for r, m in medians.items() if rows[r][0] == mode and kind in m]
            for kind in KINDS
        }
        for mode in opts.modes.split(",")
    }
    plot_rates(os.path.join(opts.out, "atari.png"), panels, "Atari throughput", log_y=False)


if __name__ == "__main__":
    main()
