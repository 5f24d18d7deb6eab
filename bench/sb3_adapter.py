"""Steps per second of SB3 VecEnvs on CartPole-v1: envpool.sb3's adapter, the adapter as it was
(send in step_async, recv in step_wait), and SB3's DummyVecEnv over gymnasium envs, with 1 and 8
envs. The variants alternate (A B C A B C ...) and the medians are reported, with the load
average, since the machine may be shared.

    python bench/sb3_adapter.py [--rounds 5] [--steps 5000]

Needs stable-baselines3 (and torch): see docs/runner.md, Stable-Baselines3.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

from envpool.sb3 import VecEnvAdapter, make_vec_env


class SendRecvAdapter(VecEnvAdapter):
    """The adapter before the change: the pool's send() in step_async, recv() in step_wait, so
    every step hands the envs to a worker thread and waits for it."""

    def step_async(self, actions):
        self.envs.send(actions)
        self._actions = actions

    def step_wait(self):
        self._actions = None
        return self._sb3_result(self.envs.recv())


def make(variant: str, num_envs: int):
    if variant == "dummy":
        return DummyVecEnv([lambda: gym.make("CartPole-v1") for _ in range(num_envs)])
    if variant == "adapter":
        return make_vec_env("CartPole-v1", num_envs=num_envs, seed=0)
    import envpool

    return SendRecvAdapter(envpool.make("CartPole-v1", num_envs=num_envs, seed=0, autoreset_mode="same_step"))


def steps_per_second(venv, steps: int) -> float:
    venv.reset()
    actions = np.zeros(venv.num_envs, dtype=np.int64)
    start = time.perf_counter()
    for _ in range(steps):
        venv.step(actions)
    return steps * venv.num_envs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5000)
    args = parser.parse_args()
    variants = ["adapter", "adapter send/recv (before)", "dummy"]
    print(f"load average at start: {os.getloadavg()}")
    for num_envs in (1, 8):
        venvs = {v: make(v, num_envs) for v in variants}
        samples: dict[str, list[float]] = {v: [] for v in variants}
        for _ in range(args.rounds):
            for v in variants:
                samples[v].append(steps_per_second(venvs[v], args.steps))
        for venv in venvs.values():
            venv.close()
        dummy = statistics.median(samples["dummy"])
        for v in variants:
            med = statistics.median(samples[v])
            lo, hi = min(samples[v]), max(samples[v])
            print(
                f"{num_envs} env(s)  {v:28s} {med:10,.0f} steps/s ({lo:,.0f}-{hi:,.0f})  {med / dummy:.2f}x DummyVecEnv"
            )
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
