"""The runner's counters: lifetime totals (checkpointed by ``get_state``) and what
``get_metrics`` reports since its last call, with RLlib's names."""

from __future__ import annotations

from typing import Any

import numpy as np

STATE_KEYS = ("num_env_steps_sampled_lifetime", "num_episodes_lifetime")


def episode_stats(returns: list[float], lengths: list[int]) -> dict[str, float | int]:
    """RLlib's ``episode_return_*``, ``episode_len_*`` and ``num_episodes`` of finished episodes
    (NaN where there are none)."""
    r = np.asarray(returns, dtype=np.float64)
    ln = np.asarray(lengths, dtype=np.int64)
    n = len(r)
    return {
        "episode_return_mean": float(r.mean()) if n else float("nan"),
        "episode_return_min": float(r.min()) if n else float("nan"),
        "episode_return_max": float(r.max()) if n else float("nan"),
        "episode_len_mean": float(ln.mean()) if n else float("nan"),
        "episode_len_min": int(ln.min()) if n else float("nan"),
        "episode_len_max": int(ln.max()) if n else float("nan"),
        "num_episodes": n,
    }


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

    def report(self) -> dict[str, float | int]:
        """The period's metrics (see ``EnvRunner.get_metrics``); starts a new period."""
        metrics = {
            **episode_stats(self.returns, self.lengths),
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
