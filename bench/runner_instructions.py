#!/usr/bin/env python3
"""Instructions per env step of ``EnvRunner.sample`` against the bare ``step()`` loop it drives
(callgrind: deterministic where wall clock on a shared machine is not).

    python bench/runner_instructions.py --num-envs 16 256 [--chunk 4096] [--calls 2 8]

For each row (``runner``: ``EnvRunner(envs, seed=0).sample(num_timesteps=chunk)``; ``pool``: the
same number of full-batch ``step()`` calls with actions from the same batched-space sampler),
runs the row under ``valgrind --tool=callgrind`` with ``calls[0]`` and ``calls[1]`` calls (1
thread, CartPole-v1), and prints the difference of the two totals divided by the steps it adds:
start-up and imports cancel. The rows run this file again with ``--child``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile


def child(row: str, num_envs: int, chunk: int, calls: int, task: str) -> None:
    from gymnasium.vector.utils import batch_space

    import envpool

    envs = envpool.make(task, num_envs=num_envs, num_threads=1, seed=0)
    if row == "runner":
        runner = envpool.EnvRunner(envs, seed=0)
        for _ in range(calls):
            runner.sample(num_timesteps=chunk)
    else:
        space = batch_space(envs.single_action_space, num_envs)
        space.seed(0)
        envs.reset()
        for _ in range(calls * chunk // num_envs):
            envs.step(space.sample())
    envs.close()


def instructions(row: str, num_envs: int, chunk: int, calls: int, task: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__, "--child"]
        cmd += [row, str(num_envs), str(chunk), str(calls), task]
        env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            text = f.read()
    return int(re.search(r"^totals:\s+(\d+)", text, re.M).group(1))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        row, n, chunk, calls, task = sys.argv[2:7]
        child(row, int(n), int(chunk), int(calls), task)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="CartPole-v1")
    parser.add_argument("--num-envs", type=int, nargs="+", default=[16, 256])
    parser.add_argument("--chunk", type=int, default=4096, help="env steps per sample() call")
    parser.add_argument("--calls", type=int, nargs=2, default=[2, 8])
    parser.add_argument("--rows", default="runner,pool")
    args = parser.parse_args()
    lo, hi = args.calls
    for n in args.num_envs:
        per_step = {}
        for row in args.rows.split(","):
            a = instructions(row, n, args.chunk, lo, args.task)
            b = instructions(row, n, args.chunk, hi, args.task)
            per_step[row] = (b - a) / ((hi - lo) * args.chunk)
            print(f"{args.task} {n:5d} envs chunk {args.chunk:6d} {row:7s} {per_step[row]:9,.0f} instructions/step")
        if "runner" in per_step and "pool" in per_step:
            ratio = per_step["pool"] / per_step["runner"]
            print(f"{args.task} {n:5d} envs chunk {args.chunk:6d} ratio pool/runner {ratio:.3f}")


if __name__ == "__main__":
    main()
