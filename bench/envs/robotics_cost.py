"""The C++ side's own cost per env step of a gymnasium-robotics task, next to a bare ``mj_step``
loop of the same model: both on one thread in one process, alternated A B A B in short windows
(so that a shared machine's drift hits both alike), medians of the per-pair ratios.

  * ours: ``envpool.make(task, num_envs=N, num_threads=1)``, full-batch ``step()`` with
    pre-generated random actions (the Python call, the action copy-in and the observation
    copy-out included: at N=16 one ``step()`` call carries 16 env steps);
  * raw: bench/cpp/mujoco_raw.cc's C++ loop on one thread, N MjData of the model
    :func:`bench.envs.robotics.model_file` gives (the task's physics steps per env step, a random
    ctrl, a reset to qpos0 after 10 s of sim time).

    PYTHONPATH=.test-oracles python -m bench.envs.robotics_cost [--pairs 10] [--seconds 0.5] [--num-envs 16]

Prints a table: µs per env step of each (medians), their difference, and ours / raw in rate.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from bench.envs.robotics import model_file
from bench.harness import REPO_ROOT, build_bench_extension, loadavg_text


def ours_rate(env, actions, seconds: float) -> float:
    """Env steps per second of full-batch ``step()`` over ``seconds``."""
    k, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.step(actions[k % len(actions)])
        k += 1
    return k * env.num_envs / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=["FetchPush-v4", "AntMaze_UMaze-v5", "PointMaze_UMaze-v3"])
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=0.5, help="timed wall time of each side per pair")
    ap.add_argument("--num-envs", type=int, default=16)
    ap.add_argument("--raw-build-dir", default=str(REPO_ROOT / "build" / "bench-mujoco-raw"))
    a = ap.parse_args()
    hint = " (MuJoCo headers not found? see the cmake output)"
    sys.path.insert(0, build_bench_extension(Path(a.raw_build_dir), "ENVPOOL_MUJOCO_BENCH", "envpool_mujoco_raw", hint))
    import envpool_mujoco_raw

    import envpool

    print(f"{time.strftime('%Y-%m-%d %H:%M')}, 1 thread each, N={a.num_envs}, {a.pairs} pairs of {a.seconds:g} s")
    print(f"load average at the start: {loadavg_text()}\n")
    print("| task | ours µs/step | raw µs/step | ours - raw | ours / raw (rate), pairs' range |")
    print("|---|---:|---:|---:|---:|")
    for task in a.tasks:
        xml, frame_skip, rne = model_file(task)
        env = envpool.make(task, num_envs=a.num_envs, num_threads=1, seed=0)
        space = env.single_action_space
        rng = np.random.default_rng(0)
        actions = [
            rng.uniform(space.low, space.high, (a.num_envs, *space.shape)).astype(space.dtype) for _ in range(64)
        ]
        env.reset()
        raw = functools.partial(
            envpool_mujoco_raw.steps_per_second, xml, a.num_envs, 1, frame_skip=frame_skip, rne_post_constraint=rne
        )
        ours_rate(env, actions, 0.2), raw(0.2)  # warm-up
        ours, bare = [], []
        for i in range(a.pairs):
            for side in ("ours", "raw") if i % 2 == 0 else ("raw", "ours"):
                if side == "ours":
                    ours.append(ours_rate(env, actions, a.seconds))
                else:
                    bare.append(raw(a.seconds))
        env.close()
        ratios = [o / r for o, r in zip(ours, bare)]
        us_ours, us_raw = 1e6 / statistics.median(ours), 1e6 / statistics.median(bare)
        print(
            f"| {task} | {us_ours:.1f} | {us_raw:.1f} | {us_ours - us_raw:+.1f} | "
            f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}) |",
            flush=True,
        )
    print(f"\nload average at the end: {loadavg_text()}")


if __name__ == "__main__":
    main()
