"""Sampling throughput on Ray: RLlib's env runners vs envpool.ray.RunnerGroup, random policy.

Run in a venv with ray[rllib] and torch (scripts/ci_ray.sh builds one; or
``pip install torch==2.13.0 && pip install '.[rllib]'``), from the repository root::

    python -m bench.runner.ray                 # 2 runners, 8 envs each, 3 rounds (~2-3 minutes)
    python -m bench.runner.ray --runners 2 --num-envs 8 --rounds 3 --seconds 2

Rows (same number of Ray actors, ``--runners``, each reserving 1 CPU; ``--num-envs`` envs each):

| row | what runs in each actor |
|---|---|
| ``rllib-gym`` | RLlib's ``SingleAgentEnvRunner`` on gymnasium's ``CartPole-v1`` (its default ``sync`` vectorization) |
| ``rllib-envpool`` | RLlib's ``SingleAgentEnvRunner`` on ``envpool/CartPole-v1``, ``gym_env_vectorize_mode="vector_entry_point"`` |
| ``envpool.ray`` | ``envpool.ray.RunnerGroup("CartPole-v1", num_runners=R, num_envs=N, num_threads=1)`` |
| ``envpool.ray-async`` | the same with ``num_envs=2N, batch_size=N`` (the runner overlaps policy and env steps; with a random policy there is little to overlap) |
| ``envpool.ray-64`` | ``envpool.ray`` with ``--big-envs`` (64) envs per actor: same actor count, envpool's usual pool size |

Each RLlib actor is ``ray.remote(SingleAgentEnvRunner)`` built from a ``PPOConfig`` (as RLlib's own
``EnvRunnerGroup`` builds them) and called with ``sample(num_timesteps=..., random_actions=True)``;
envpool.ray calls ``RunnerGroup.sample(num_timesteps=..., random_actions=True)``. A sample: after a
warm-up call, repeated calls on all actors in parallel until ``--seconds`` have passed; env steps/s
= env steps returned / wall time, as seen by the driver (transport of the episodes included).
The rows are interleaved in rounds (A B C D A B C D ...); medians over rounds and the ratio to
``rllib-gym`` are printed, with the spread (min-max) of the samples.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time


def rllib_actors(env: str, runners: int, num_envs: int):
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    config = PPOConfig().environment(env).env_runners(num_env_runners=runners, num_envs_per_env_runner=num_envs)
    if env.startswith("envpool/"):
        config = config.env_runners(gym_env_vectorize_mode="vector_entry_point")
    cls = ray.remote(num_cpus=1)(SingleAgentEnvRunner)
    return [cls.remote(config=config, worker_index=i + 1) for i in range(runners)]


class RllibRow:
    def __init__(self, env, runners, num_envs, chunk):
        import ray

        self.actors = rllib_actors(env, runners, num_envs)
        self.chunk = chunk
        ray.get([a.sample.remote(num_timesteps=chunk, random_actions=True) for a in self.actors])  # warm-up

    def sample(self) -> int:
        import ray

        results = ray.get([a.sample.remote(num_timesteps=self.chunk, random_actions=True) for a in self.actors])
        return sum(len(e) for episodes in results for e in episodes)

    def close(self):
        import ray

        for a in self.actors:
            ray.kill(a)


class EnvpoolRow:
    def __init__(self, runners, num_envs, chunk, batch_size=None):
        import envpool.ray

        kwargs = {} if batch_size is None else {"batch_size": batch_size}
        self.group = envpool.ray.RunnerGroup(
            "CartPole-v1", num_runners=runners, num_envs=num_envs, num_threads=1, **kwargs
        )
        self.total = chunk * runners
        self.group.sample(num_timesteps=self.total, random_actions=True)  # warm-up

    def sample(self) -> int:
        return sum(len(e) for e in self.group.sample(num_timesteps=self.total, random_actions=True))

    def close(self):
        self.group.stop()


def measure(row, seconds: float) -> float:
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        steps += row.sample()
    return steps / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runners", type=int, default=2)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--big-envs", type=int, default=64, help="envs per actor of the envpool.ray-64 row")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time per sample")
    parser.add_argument("--out", default=None, help="write the samples and medians as JSON here")
    args = parser.parse_args()

    import ray

    import envpool.rllib

    ray.init(num_cpus=args.runners, include_dashboard=False, log_to_driver=False)
    envpool.rllib.register_envs(["CartPole-v1"])
    n, r = args.num_envs, args.runners
    makers = {
        "rllib-gym": lambda: RllibRow("CartPole-v1", r, n, chunk=40 * n),
        "rllib-envpool": lambda: RllibRow("envpool/CartPole-v1", r, n, chunk=40 * n),
        "envpool.ray": lambda: EnvpoolRow(r, n, chunk=4000 * n),
        "envpool.ray-async": lambda: EnvpoolRow(r, 2 * n, chunk=4000 * n, batch_size=n),
        "envpool.ray-64": lambda: EnvpoolRow(r, args.big_envs, chunk=32000),
    }
    samples: dict[str, list[float]] = {name: [] for name in makers}
    for rnd in range(args.rounds):
        for name, make_row in makers.items():
            # One row's actors at a time: each row gets the machine's CPUs to itself.
            row = make_row()
            try:
                samples[name].append(measure(row, args.seconds))
            finally:
                row.close()
            print(f"round {rnd + 1} {name:18s} {samples[name][-1]:12,.0f} env steps/s", flush=True)
    ray.shutdown()

    base = statistics.median(samples["rllib-gym"])
    print(f"\nCartPole-v1, {r} runner actors x {n} envs, random actions, {args.rounds} rounds of {args.seconds} s")
    print(f"{'row':18s} {'median steps/s':>15s} {'min-max':>23s} {'vs rllib-gym':>13s}")
    medians = {}
    for name, values in samples.items():
        med = statistics.median(values)
        medians[name] = med
        print(f"{name:18s} {med:15,.0f} {min(values):11,.0f}-{max(values):<11,.0f} {med / base:12.1f}x")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(
                {
                    "args": vars(args),
                    "samples": samples,
                    "medians": medians,
                    "cpus": os.cpu_count(),
                    "machine": platform.platform(),
                },
                f,
                indent=1,
            )


if __name__ == "__main__":
    main()
