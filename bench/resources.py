"""Resource use of the pool: CPU time of an idle pool and resident memory over many steps.

    python bench/resources.py                 # idle CPU over 2 s; RSS over 10M CartPole steps
    python bench/resources.py --steps 1e6     # shorter

Prints the measurements and exits non-zero if the targets are missed: an idle pool (nothing
sent) must use < 5% of one core (workers spin briefly, then sleep), and the resident set must
grow < 1 MiB over the run (after a warm-up), so nothing leaks per step.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

import envpool


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def idle_cpu(task: str, num_envs: int, batch_size: int, threads: int, seconds: float) -> float:
    """Fraction of one core the process uses while a warm pool sits idle."""
    envs = envpool.make(task, num_envs=num_envs, batch_size=batch_size, num_threads=threads)
    actions = np.zeros((batch_size,) + envs.single_action_space.shape, dtype=envs.single_action_space.dtype)
    if batch_size == num_envs:
        envs.reset()
        for _ in range(1000):  # warm: workers were just spinning
            envs.step(actions)
    else:
        envs.async_reset()
        for _ in range(1000):
            info = envs.recv()[4]
            envs.send(actions, info["env_id"])
    start_cpu, start = cpu_seconds(), time.perf_counter()
    time.sleep(seconds)
    used = (cpu_seconds() - start_cpu) / (time.perf_counter() - start)
    envs.close()
    return used


def rss_growth(task: str, num_envs: int, threads: int, steps: int) -> tuple[int, int, float]:
    """(RSS after warm-up, growth after `steps` env steps, steps/s) for a full-batch loop that
    keeps the last result alive, as training loops do."""
    envs = envpool.make(task, num_envs=num_envs, num_threads=threads)
    actions = [np.stack([envs.single_action_space.sample() for _ in range(num_envs)]) for _ in range(16)]
    envs.reset()
    calls = max(1, steps // num_envs)
    warm = max(1, calls // 10)
    for i in range(warm):
        result = envs.step(actions[i % 16])
    base = rss_bytes()
    start = time.perf_counter()
    for i in range(calls):
        result = envs.step(actions[i % 16])
    rate = calls * num_envs / (time.perf_counter() - start)
    del result
    grown = rss_bytes() - base
    envs.close()
    return base, grown, rate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=float, default=10e6, help="env steps for the memory run")
    parser.add_argument("--idle-seconds", type=float, default=2.0)
    args = parser.parse_args()
    ok = True
    print(f"machine: {os.cpu_count()} CPUs; envpool {envpool.__version__}")
    for task, n, b, t in [("CartPole-v1", 1024, 1024, 2), ("CartPole-v1", 256, 128, 2), ("Pendulum-v1", 64, 64, 4)]:
        frac = idle_cpu(task, n, b, t, args.idle_seconds)
        verdict = "ok" if frac < 0.05 else "TOO HIGH"
        ok &= frac < 0.05
        print(
            f"idle CPU  {task} num_envs={n} batch={b} threads={t}: "
            f"{100 * frac:.2f}% of one core ({verdict}; target < 5%)"
        )
    for task, n in [("CartPole-v1", 256), ("Pendulum-v1", 256)]:
        base, grown, rate = rss_growth(task, n, 2, int(args.steps))
        verdict = "ok" if grown < 2**20 else "TOO HIGH"
        ok &= grown < 2**20
        print(
            f"RSS       {task} num_envs={n}: {base / 2**20:.1f} MiB after warm-up, grew {grown / 2**10:+.0f} KiB "
            f"over {args.steps:.3g} steps at {rate / 1e6:.2f}M steps/s ({verdict}; target < 1024 KiB)"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
