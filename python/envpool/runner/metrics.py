"""The runner's counters: lifetime totals (checkpointed by ``get_state``) and what
``get_metrics`` reports since its last call, with RLlib's names."""

from __future__ import annotations

from typing import Any

import numpy as np

STATE_KEYS = ("num_env_steps_sampled_lifetime", "num_episodes_lifetime")


class SampleMetrics:
    """Counted by :class:`envpool.runner.EnvRunner` as it samples."""

    def __init__(self) -> None:
        self.lifetime_steps = 0
        self.lifetime_episodes = 0
        self.clear()

    def clear(self) -> None:
        """Starts a new reporting period (the lifetime counts go on)."""
        self.returns: list[float] = []
        self.lengths: list[int] = []
        self.steps = 0
        self.policy_time = 0.0  # seconds in the policy (or sampling random actions)
        self.env_time = 0.0  # seconds in the pool's calls
        self.sample_time = 0.0  # seconds in sample()

    def add_steps(self, steps: int, seconds: float) -> None:
        self.steps += steps
        self.lifetime_steps += steps
        self.sample_time += seconds

    def add_episode(self, episode_return: float, length: int) -> None:
        self.returns.append(episode_return)
        self.lengths.append(length)
        self.lifetime_episodes += 1

    def add_episodes(self, returns: list[float], lengths: list[int]) -> None:
        self.returns += returns
        self.lengths += lengths
        self.lifetime_episodes += len(returns)

    def report(self) -> dict[str, float | int]:
        """The period's metrics (see ``EnvRunner.get_metrics``); starts a new period."""
        returns = np.asarray(self.returns, dtype=np.float64)
        lengths = np.asarray(self.lengths, dtype=np.int64)
        n = len(returns)
        metrics = {
            "episode_return_mean": float(returns.mean()) if n else float("nan"),
            "episode_return_min": float(returns.min()) if n else float("nan"),
            "episode_return_max": float(returns.max()) if n else float("nan"),
            "episode_len_mean": float(lengths.mean()) if n else float("nan"),
            "episode_len_min": int(lengths.min()) if n else float("nan"),
            "episode_len_max": int(lengths.max()) if n else float("nan"),
            "num_episodes": n,
            "num_episodes_lifetime": self.lifetime_episodes,
            "num_env_steps_sampled": self.steps,
            "num_env_steps_sampled_lifetime": self.lifetime_steps,
            "num_env_steps_sampled_per_second": self.steps / self.sample_time if self.sample_time else 0.0,
            "policy_time_s": self.policy_time,
            "env_wait_time_s": self.env_time,
            "sample_time_s": self.sample_time,
        }
        self.clear()
        return metrics

    def state(self) -> dict[str, Any]:
        return {"num_env_steps_sampled_lifetime": self.lifetime_steps, "num_episodes_lifetime": self.lifetime_episodes}

    def load(self, state: dict[str, Any]) -> None:
        """Restores what :meth:`state` returned (keys missing from ``state`` are kept)."""
        if not isinstance(state, dict):
            raise TypeError(f"set_state() needs a dict from get_state(), got {type(state).__name__}")
        unknown = set(state) - set(STATE_KEYS)
        if unknown:
            raise ValueError(f"set_state() got unknown keys {sorted(unknown)}")
        if "num_env_steps_sampled_lifetime" in state:
            self.lifetime_steps = int(state["num_env_steps_sampled_lifetime"])
        if "num_episodes_lifetime" in state:
            self.lifetime_episodes = int(state["num_episodes_lifetime"])
