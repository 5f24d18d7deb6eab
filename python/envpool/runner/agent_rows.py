"""The runner over a multi-agent pool (agents as rows, docs/multiagent.md): each agent slot of
each env is a stream of its own (``stream = env * agents_per_env + slot``), cut into that
agent's episodes; rows of absent agents are no steps. :class:`AgentRowAccounts` also keeps the
env-level episodes (the sum of the agents' rewards, RLlib's ``episode_return_*`` of a
multi-agent env) and the per-agent metrics (``agent_episode_returns_mean`` by agent name)."""

from __future__ import annotations

from typing import Any

import numpy as np

from envpool.runner.metrics import SampleMetrics


class AgentRowAccounts:
    """Per batch: which rows are agents' steps; per env: its episode's return and length."""

    names: tuple[str, ...]
    slots: int
    _env_return: list[float]
    _env_length: list[int]
    _batch: tuple | None  # per row, as lists: env id, slot, stepped, all_done, step row, active
    agent_returns: dict[str, list[float]]
    agent_lengths: dict[str, list[int]]
    env_steps: int
    _metrics: SampleMetrics  # the runner's: env episodes are its episodes

    def __init__(self, names: tuple[str, ...], num_envs: int, metrics: SampleMetrics):
        self.names, self.slots = tuple(names), len(names)
        self._metrics = metrics
        self._env_return = [0.0] * num_envs
        self._env_length = [0] * num_envs
        self._batch = None
        self.clear()

    def clear(self) -> None:
        """Starts a new reporting period."""
        self.agent_returns = {name: [] for name in self.names}
        self.agent_lengths = {name: [] for name in self.names}
        self.env_steps = 0

    def stream_ids(self, info: dict[str, Any]) -> np.ndarray:
        """Each row's stream (env * slots + slot)."""
        return np.asarray(info["env_id"], dtype=np.int64) * self.slots + np.asarray(info["agent_id"])

    def env_ids(self, streams: np.ndarray) -> np.ndarray:
        """The env id of each stream (what the pool's send takes, one per row)."""
        return np.asarray(streams) // self.slots

    def new_batch(self, info: dict[str, Any], same_step: bool) -> None:
        step = np.asarray(info["elapsed_step"]) > 0
        active = np.asarray(info["active"])
        stepped = active  # the agent was in the step this row reports
        if same_step and "_final_info" in info:
            # An ended env's row shows its new episode (``active`` of the new one); the step that
            # ended the old one had final_info's agents.
            ended = np.asarray(info["_final_info"])
            step |= ended
            stepped = np.where(ended, np.asarray(info["final_info"]["active"]), active)
        self._batch = (
            np.asarray(info["env_id"]).tolist(),
            np.asarray(info["agent_id"]).tolist(),
            stepped.tolist(),
            np.asarray(info["all_done"]).tolist(),
            step.tolist(),
            active.tolist(),
        )

    def starts_episode(self, row: int) -> bool:
        """Same-step autoreset, an agent's episode ended at ``row``: whether the row also holds
        its next episode's first observation (its env started a new episode it is in)."""
        return self._batch[3][row] and self._batch[5][row]

    def take(self, row: int, reward: float) -> bool:
        """Accounts row ``row`` (its env's return, length and end) and says whether it is an
        active agent's row, a step or a start (the others are no steps and start nothing)."""
        env_l, slot_l, active_l, done_l, step_l, new_l = self._batch
        env, active = env_l[row], active_l[row]
        if active and step_l[row]:
            self._env_return[env] += reward
        if slot_l[row] == self.slots - 1 and step_l[row]:  # once per env step, at its last slot
            self.env_steps += 1
            self._env_length[env] += 1
            if done_l[row]:
                self._metrics.add_episode(self._env_return[env], self._env_length[env])
                self._env_return[env], self._env_length[env] = 0.0, 0
        # Same-step autoreset: an agent not in the ended step may start the env's new episode here.
        return active or (done_l[row] and new_l[row])

    def reset_env_counts(self) -> None:
        """Every env starts a new episode (the runner reset them)."""
        self._env_return = [0.0] * len(self._env_return)
        self._env_length = [0] * len(self._env_length)

    def agent_episode(self, stream: int, episode_return: float, length: int) -> None:
        name = self.names[stream % self.slots]
        self.agent_returns[name].append(episode_return)
        self.agent_lengths[name].append(length)

    def report(self) -> dict[str, Any]:
        """RLlib's multi-agent names beside the runner's (whose ``episode_return_*`` /
        ``episode_len_*`` count env episodes here): ``agent_episode_returns_mean`` and
        ``agent_episode_len_mean`` by agent (agents with a finished episode in the period) and
        ``num_env_steps_sampled`` (env steps; the runner's count, agent steps, becomes
        ``num_agent_steps_sampled``)."""
        out = {
            "num_env_steps_sampled": self.env_steps,
            "agent_episode_returns_mean": {a: float(np.mean(r)) for a, r in self.agent_returns.items() if r},
            "agent_episode_len_mean": {a: float(np.mean(v)) for a, v in self.agent_lengths.items() if v},
        }
        self.clear()
        return out
