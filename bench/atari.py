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
contenders of one row are interleaved (A B C ... A B C ...) over --rounds rounds and the median
of each is reported with the ratios ours/other, and the machine's load average before and after.

Usage (the reference runs under --peer-python, default $PEER_PYTHON):
  python bench/atari.py --peer-python "$(bench/peers/envpool.sh)"
  python bench/atari.py --quick            # one size, one round
Outputs in --out (default bench/results): atari.json, atari.md, atari.png (if matplotlib).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from _common import child_env, plot_rates, run_child  # bench/ is sys.path[0] when a script runs

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


def load_average() -> float:
    return os.getloadavg()[0]


def sample(kind: str, num_envs: int, mode: str, args) -> float | None:
    python = args.peer_python if kind == "reference" else sys.executable
    spec = dict(kind=kind, num_envs=num_envs, mode=mode, threads=args.threads, seconds=args.seconds, warmup=args.warmup)
    env = dict(child_env(peer=kind == "reference"), OMP_NUM_THREADS="1")
    result = run_child(python, WORKER, spec, env, cwd="/", timeout=600)
    if "error" not in result:
        return result["sps"]
    print(f"  {kind} {mode} {num_envs}: failed: {result['error']}", file=sys.stderr)
    return None


def contenders(num_envs: int, mode: str, args) -> list[str]:
    kinds = ["ours", "ale-vector"]
    if args.peer_python:
        kinds.insert(1, "reference")
    if mode == "sync" and num_envs <= args.gym_max:
        kinds.append("gym-async")
    if mode == "sync":
        kinds += ["emulator", "emulator-n"]
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer-python", default=os.environ.get("PEER_PYTHON"))
    parser.add_argument("--sizes", default="8,16,32,64")
    parser.add_argument("--modes", default="sync,async")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--warmup", type=float, default=0.5)
    parser.add_argument("--gym-max", type=int, default=16, help="largest num_envs for gym-async (a process per env)")
    parser.add_argument("--quick", action="store_true", help="8 envs, 1 round, 1 s samples")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.rounds, args.seconds, args.warmup = "8", 1, 1.0, 0.3
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = args.modes.split(",")
    load_before = load_average()
    rows = []
    for mode in modes:
        for n in sizes:
            kinds = contenders(n, mode, args)
            samples: dict[str, list[float]] = {k: [] for k in kinds}
            loads = []
            for r in range(args.rounds):
                order = kinds[r % len(kinds) :] + kinds[: r % len(kinds)]
                for kind in order:
                    sps = sample(kind, n, mode, args)
                    if sps is not None:
                        samples[kind].append(sps)
                loads.append(load_average())
            medians = {k: statistics.median(v) for k, v in samples.items() if v}
            row = dict(
                mode=mode,
                num_envs=n,
                samples=samples,
                median=medians,
                load=loads,
                ratio={k: medians["ours"] / v for k, v in medians.items() if k != "ours" and "ours" in medians},
            )
            rows.append(row)
            print(
                f"{mode:5s} {n:3d} envs  "
                + "  ".join(f"{k} {v:8.0f}" for k, v in medians.items())
                + "  | ours/x "
                + " ".join(f"{k} {v:.2f}" for k, v in row["ratio"].items())
                + f"  | load {statistics.median(loads):.1f}",
                flush=True,
            )
    result = dict(
        rows=rows,
        load_before=load_before,
        load_after=load_average(),
        threads=args.threads,
        seconds=args.seconds,
        rounds=args.rounds,
        cpus=os.cpu_count(),
        when=time.strftime("%Y-%m-%d %H:%M:%S"),
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "atari.json").write_text(json.dumps(result, indent=1))
    (out / "atari.md").write_text(markdown(result))
    plot(result, out / "atari.png")
    print((out / "atari.md").read_text())


def markdown(result) -> str:
    kinds = KINDS
    lines = [
        f"Pong-v5, {result['threads']} threads, env steps/s (medians of {result['rounds']} rounds); "
        f"load average {result['load_before']:.1f} before, {result['load_after']:.1f} after",
        "",
        "| mode | envs | " + " | ".join(kinds) + " | ours/ref | ours/ale-vector | ours/emulator | ours/emulator-n |",
        "|---|---|" + "---|" * (len(kinds) + 4),
    ]
    for row in result["rows"]:
        med, ratio = row["median"], row["ratio"]
        cells = [f"{med[k]:.0f}" if k in med else "" for k in kinds]
        rcells = [
            f"{ratio[k]:.2f}" if k in ratio else "" for k in ("reference", "ale-vector", "emulator", "emulator-n")
        ]
        lines.append(f"| {row['mode']} | {row['num_envs']} | " + " | ".join(cells) + " | " + " | ".join(rcells) + " |")
    return "\n".join(lines) + "\n"


def plot(result, path: Path) -> None:
    panels = {
        f"Pong-v5, {mode}, {result['threads']} threads (load {result['load_before']:.1f})": {
            kind: [
                (r["num_envs"], r["median"][kind]) for r in result["rows"] if r["mode"] == mode and kind in r["median"]
            ]
            for kind in KINDS
        }
        for mode in sorted({r["mode"] for r in result["rows"]}, reverse=True)
    }
    plot_rates(path, panels, f"Atari throughput, {result['when']}", log_y=False)


if __name__ == "__main__":
    main()
