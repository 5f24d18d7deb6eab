"""A multi-agent envpool task as an RLlib ``MultiAgentEnv`` (new API stack). Imports Ray.

RLlib 2.60's ``MultiAgentEnvRunner`` vectorizes multi-agent envs only its own way (``"sync"``:
one ``MultiAgentEnv`` per env copy, stepped one after another), so each copy is one env of a
one-env pool, seen through the PettingZoo view (:mod:`envpool.multiagent.parallel`).
:func:`envpool.rllib.register_envs` registers every multi-agent task with this creator.
"""

from __future__ import annotations

import secrets
from typing import Any

from ray.rllib.env.multi_agent_env import MultiAgentEnv

from envpool.registration import make


class PoolMultiAgentEnv(MultiAgentEnv):
    """One env of ``task_id`` as RLlib's ``MultiAgentEnv``.

    ``agents`` are those in the episode; an observation is returned for every agent that acts
    next (turn-based games: the one to move) and for every agent whose episode ends in the step
    (its last one), with ``terminateds["__all__"]`` / ``truncateds["__all__"]`` once no agent is
    left. ``make_kwargs`` go to :func:`envpool.make` (env kwargs, ``max_episode_steps``,
    ``seed``: without one each copy draws a random seed, as RLlib resets with ``seed=None``).
    """

    def __init__(self, task_id: str, **make_kwargs: Any):
        super().__init__()
        make_kwargs.setdefault("seed", secrets.randbelow(2**31))
        make_kwargs.setdefault("num_threads", 1)
        self._view = make(task_id, env_type="pettingzoo", num_envs=1, **make_kwargs)
        self.possible_agents = list(self._view.possible_agents)
        self.agents = []
        self.observation_spaces = {a: self._view.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self._view.action_space(a) for a in self.possible_agents}
        self._turn_based = self._view._layout.turn_based
        self.metadata = {"render_modes": []}

    def _acting(self, obs: dict, infos: dict, done: set[str]) -> dict:
        if not self._turn_based:
            return obs
        return {a: o for a, o in obs.items() if a in done or infos[a].get("needs_action", False)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, infos = self._view.reset(seed=seed, options=options)
        self.agents = list(self._view.agents)
        return self._acting(obs, infos, set()), infos

    def step(self, action_dict: dict):
        obs, rewards, terminateds, truncateds, infos = self._view.step(action_dict)
        self.agents = list(self._view.agents)
        done = {a for a in obs if terminateds[a] or truncateds[a]}
        over = not self.agents
        all_terminated = over and any(terminateds.values())
        terminateds = {**terminateds, "__all__": all_terminated}
        truncateds = {**truncateds, "__all__": over and not all_terminated}
        return self._acting(obs, infos, done), rewards, terminateds, truncateds, infos

    def close(self) -> None:
        self._view.close()


class MultiAgentCreator:
    """RLlib env creator of a multi-agent task: ``creator(env_config) -> PoolMultiAgentEnv``;
    picklable, so Ray ships it to remote env runners."""

    def __init__(self, name: str, task_id: str, make_kwargs: dict[str, Any]):
        self.name, self.task_id, self.make_kwargs = name, task_id, dict(make_kwargs)

    def __call__(self, env_config: dict[str, Any]) -> PoolMultiAgentEnv:
        kwargs = {**self.make_kwargs, **dict(env_config)}
        for key in ("num_envs", "batch_size", "env_type", "autoreset_mode"):
            if key in kwargs:
                raise ValueError(
                    f"{self.name} in RLlib: RLlib's multi-agent env runners make one env per copy "
                    f"(config.env_runners(num_envs_per_env_runner=...)); remove {key!r} from env_config"
                )
        return PoolMultiAgentEnv(self.task_id, **kwargs)

    def __repr__(self) -> str:
        return f"MultiAgentCreator({self.name!r}, {self.task_id!r}, make_kwargs={self.make_kwargs!r})"
