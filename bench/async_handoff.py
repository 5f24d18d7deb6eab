#!/usr/bin/env python3
"""What one pool call costs per batch, full batch vs async, beside a fixed amount of caller work.

A bare loop (no runner) on CartPole-v1, 16 envs: full batch ``step()`` vs async batch 8
``recv()`` + ``send()`` (default threads), with ``--work-us`` of busy Python work between calls
(standing in for a runner's bookkeeping and policy). Prints env steps/s, microseconds per batch
and the process's context switches per batch (``getrusage``: all threads), alternating the two
pools ``--rounds`` times. Shows why an async pool loses on microsecond envs: the per-call cost
(thread wake-ups, context switches) is about the same for a batch of 8 as for 16, and the env
work it could hide is a few microseconds.

    python bench/async_handoff.py [--rounds 2] [--work-us 100] [--seconds 1.5]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

import envpool


def run(batch: int, work_us: float, seconds: float) -> str:
    envs = envpool.make("CartPole-v1", num_envs=16, batch_size=batch, seed=0)
    try:
        act = np.zeros(batch, dtype=np.int64)
        if batch == 16:
            envs.reset()

            def call():
                envs.step(act)

        else:
            envs.async_reset()

            def call():
                envs.send(act, envs.recv()[4]["env_id"])

        def work():
            end = time.perf_counter() + work_us / 1e6
            while time.perf_counter() < end:
                pass

        for _ in range(200):  # warm-up: the pool's step-cost estimate settles
            call()
            work()
        r0, t0, k = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter(), 0
        while time.perf_counter() - t0 < seconds:
            call()
            work()
            k += 1
        r1, elapsed = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - t0
        return (
            f"batch {batch:2d}, {envs.num_threads} env threads: {k * batch / elapsed:8.0f} steps/s, "
            f"{elapsed / k * 1e6:6.1f} us per batch ({work_us:g} us of it caller work), context switches per "
            f"batch: voluntary {(r1.ru_nvcsw - r0.ru_nvcsw) / k:.2f}, "
            f"involuntary {(r1.ru_nivcsw - r0.ru_nivcsw) / k:.2f}"
        )
    finally:
        envs.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--work-us", type=float, default=100.0)
    parser.add_argument("--seconds", type=float, default=1.5)
    args = parser.parse_args()
    for _ in range(args.rounds):
        for batch in (16, 8):
            print(run(batch, args.work_us, args.seconds), flush=True)
    print("load average:", " ".join(f"{x:.1f}" for x in __import__("os").getloadavg()))


if __name__ == "__main__":
    main()
