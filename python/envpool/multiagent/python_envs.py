"""PettingZoo ``ParallelEnv``s in ``make_python``'s worker processes, in the native layout.

A worker steps gymnasium envs; :class:`ParallelEnvAdapter` makes a ``ParallelEnv`` one: its
observations and actions are arrays with one slot per possible agent (absent agents' rows are
zeros), and its info carries the five per-agent arrays of cpp/core/agents.h, so the front ends
(agents as rows, PettingZoo views) read Python and native multi-agent envs alike.

Supported agent spaces: observation ``Box`` (or a ``Dict`` of them) whose shapes differ at most
in their last dimension (narrower agents are zero-padded and form their own group), and one
action space shared by every agent (``Discrete`` or ``Box``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from envpool.agents import AGENT_INFO
from envpool.spaces import specs_to_space


def is_parallel_env(env: Any) -> bool:
    """Whether ``env`` is a PettingZoo ``ParallelEnv`` (duck-typed: PettingZoo is an extra)."""
    try:
        from pettingzoo import ParallelEnv
    except ImportError:
        return False
    return isinstance(env, ParallelEnv)


def _array_spec(name: str, space: spaces.Space, slots: int, width: int | None) -> dict[str, Any]:
    if isinstance(space, spaces.Discrete):
        low, high = int(space.start), int(space.start + space.n - 1)
        return {"name": name, "dtype": "int64", "shape": (slots,), "low": [low], "high": [high], "discrete": True}
    if not isinstance(space, spaces.Box):
        raise TypeError(f"multi-agent Python envs need Box or Discrete agent spaces, got {space}")
    shape = list(space.shape)
    if width is not None:
        shape[-1] = width
    lo, hi = np.unique(space.low), np.unique(space.high)
    if len(lo) > 1 or len(hi) > 1:
        raise TypeError(f"multi-agent Python envs need one bound per agent Box, got {space}")
    bound = [] if not np.isfinite(lo[0]) and not np.isfinite(hi[0]) else None
    return {
        "name": name,
        "dtype": np.dtype(space.dtype).name,
        "shape": (slots, *shape),
        "low": bound if bound is not None else [float(lo[0])],
        "high": bound if bound is not None else [float(hi[0])],
        "discrete": False,
    }


def _group_name(agent: str) -> str:
    head, _, tail = agent.rpartition("_")
    return head if head and tail.isdigit() else agent


class ParallelEnvAdapter(gymnasium.Env):
    """A PettingZoo ``ParallelEnv`` as a gymnasium env with one slot per possible agent."""

    def __init__(self, env: Any):
        self.env = env
        self.names = list(env.possible_agents)
        n = len(self.names)
        if n == 0:
            raise ValueError(
                f"the PettingZoo env {type(env).__name__} has no possible_agents: a multi-agent env needs at least "
                "one agent (possible_agents lists every agent that may appear in an episode)"
            )
        if len(set(self.names)) != n:
            twice = sorted({str(a) for a in self.names if self.names.count(a) > 1})
            raise ValueError(f"the PettingZoo env {type(env).__name__} lists agents twice in possible_agents: {twice}")
        agent_obs = [env.observation_space(a) for a in self.names]
        actions = [env.action_space(a) for a in self.names]
        if any(a != actions[0] for a in actions):
            raise TypeError(f"multi-agent Python envs need one action space for every agent, got {actions}")
        keys = list(agent_obs[0].spaces) if isinstance(agent_obs[0], spaces.Dict) else [None]
        parts = [[o[k] if k is not None else o for o in agent_obs] for k in keys]
        widths = [[p.shape[-1] if isinstance(p, spaces.Box) and p.shape else 0 for p in part] for part in parts]
        obs_specs = [_array_spec(k or "obs", part[0], n, max(w)) for k, part, w in zip(keys, parts, widths)]
        groups, sizes = [], [tuple(w[k] for w in widths) for k in range(n)]
        for k in range(n):
            if groups and sizes[k] == sizes[groups[-1]["first_slot"]]:
                groups[-1]["num_slots"] += 1
            else:
                groups.append({"name": _group_name(self.names[k]), "first_slot": k, "num_slots": 1, "obs_size": []})
        for g in groups:
            g["obs_size"] = list(sizes[g["first_slot"]]) if len(groups) > 1 else []
            if len(groups) == 1:
                g["name"] = "agent"
        self._keys = keys
        self.spec_dict = {
            "obs": obs_specs,
            "action": [_array_spec("action", actions[0], n, None)],
            "info": [
                {
                    "name": name,
                    "dtype": "float64" if name == "agent_reward" else "bool",
                    "shape": (n,),
                    "low": [],
                    "high": [],
                    "discrete": False,
                }
                for name in AGENT_INFO
            ],
            "obs_is_tuple": False,
            "agents": {"names": self.names, "groups": groups, "turn_based": False},
        }
        self.observation_space = specs_to_space(obs_specs)
        self.action_space = specs_to_space(self.spec_dict["action"])  # Box, or MultiDiscrete over slots
        self.metadata = dict(getattr(env, "metadata", {}))
        self.render_mode = getattr(env, "render_mode", None)
        self._slot = {a: k for k, a in enumerate(self.names)}

    def _obs(self, observations: dict[str, Any]) -> Any:
        out = []
        for key, spec in zip(self._keys, self.spec_dict["obs"]):
            arr = np.zeros(spec["shape"], dtype=spec["dtype"])
            for agent, value in observations.items():
                v = np.asarray(value[key] if key is not None else value)
                if arr.ndim == 1:
                    arr[self._slot[agent]] = v
                else:
                    arr[self._slot[agent], ..., : v.shape[-1]] = v
            out.append(arr)
        return out[0] if self._keys == [None] else dict(zip(self._keys, out))

    def _info(self, reported, rewards=None, terms=None, truncs=None) -> dict[str, np.ndarray]:
        n = len(self.names)
        info = {name: np.zeros(n, dtype=bool) for name in AGENT_INFO}
        info["agent_reward"] = np.zeros(n)
        for agent in reported:
            k = self._slot[agent]
            info["active"][k] = True
            if rewards is not None:
                info["agent_reward"][k] = rewards.get(agent, 0.0)
                info["agent_terminated"][k] = bool(terms.get(agent, False))
                info["agent_truncated"][k] = bool(truncs.get(agent, False))
        for agent in self.env.agents:
            info["needs_action"][self._slot[agent]] = True
        return info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        observations, _ = self.env.reset(seed=seed, options=options)
        return self._obs(observations), self._info(observations)

    def step(self, action):
        action = np.asarray(action)
        live = list(self.env.agents)
        observations, rewards, terms, truncs, _ = self.env.step({a: action[self._slot[a]] for a in live})
        info = self._info(observations, rewards, terms, truncs)
        over = not self.env.agents
        terminated = over and any(terms.values())
        return self._obs(observations), float(sum(rewards.values())), terminated, over and not terminated, info

    def render(self):
        return self.env.render()

    def close(self):
        self.env.close()
