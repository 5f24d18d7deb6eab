"""A multi-agent task's agents and spaces, read from its spec: the Python side of the core's
agents (cpp/core/agents.h), beside ``tasks`` (whose ``make_spec`` gives a task's
:class:`AgentLayout`) and below every front end; and the reshaping of pool results
(``(envs, slots, ...)`` per array) into agent rows.

Every obs and action array of a multi-agent env leads with its agent slots, so a pool's result
of ``n`` envs holds ``(n, slots, ...)`` per array: ``reshape(n * slots, ...)`` is the
agents-as-rows layout (row = env * slots + slot) and costs no copy. Agents whose observations
are narrower than the padded array (a group's ``obs_size``) see the leading part of their row.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np
from gymnasium import spaces

from envpool.spaces import array_spec_to_space

# The per-agent info arrays every multi-agent env fills (cpp/core/agents.h), in this order.
AGENT_INFO = ("agent_reward", "agent_terminated", "agent_truncated", "active", "needs_action")


@dataclasses.dataclass(frozen=True)
class AgentGroup:
    """Consecutive agent slots that share their spaces."""

    name: str
    slots: range
    obs_size: tuple[int, ...]  # per obs array: this group's size of its last dimension


def _per_agent_spec(spec: dict[str, Any], size: int | None = None) -> dict[str, Any]:
    """An array spec without its leading slot dimension (and its last one cut to ``size``)."""
    shape = list(spec["shape"][1:])
    if size is not None and shape:
        shape[-1] = size
    per_row = int(np.prod(spec["shape"][1:], dtype=np.int64))

    def cut(bounds: list[float]) -> list[float]:
        if len(bounds) <= 1:
            return bounds
        arr = np.asarray(bounds).reshape(spec["shape"])[0]  # slot 0's bounds stand for the group
        return arr[..., :size].reshape(-1).tolist() if size is not None else arr.reshape(-1).tolist()

    out = dict(spec, shape=tuple(shape), low=cut(spec["low"]), high=cut(spec["high"]))
    if per_row == 1 and spec["discrete"]:
        out["shape"] = ()
    return out


class AgentLayout:
    """What the front ends need to know about a multi-agent task's agents.

    ``names`` (one per slot: PettingZoo's ``possible_agents``), ``groups``, ``turn_based``,
    ``num_slots``; ``observation_space(slot)`` / ``action_space(slot)`` (one agent's own, cached:
    the same object every call), ``row_observation_space`` / ``row_action_space`` (the padded,
    uniform per-row spaces of the agents-as-rows layout), ``obs_names`` (the obs arrays in order,
    ``None`` for a single unnamed array) and ``env_info`` (the env's own info arrays after the
    standard five).
    """

    names: tuple[str, ...]
    groups: tuple[AgentGroup, ...]
    turn_based: bool
    num_slots: int
    obs_names: tuple[str, ...] | None
    obs_is_tuple: bool
    env_info: tuple[str, ...]
    row_observation_space: spaces.Space
    row_action_space: spaces.Space

    def __init__(self, raw_spec: dict[str, Any]):
        agents = raw_spec["agents"]
        self.names = tuple(agents["names"])
        self.turn_based = bool(agents["turn_based"])
        self.num_slots = len(self.names)
        obs_specs, act_specs = raw_spec["obs"], raw_spec["action"]
        self.obs_is_tuple = bool(raw_spec["obs_is_tuple"])
        self.obs_names = None if len(obs_specs) == 1 else tuple(s["name"] for s in obs_specs)
        full = tuple(s["shape"][-1] if len(s["shape"]) > 1 else 0 for s in obs_specs)
        self.groups = tuple(
            AgentGroup(
                g["name"],
                range(g["first_slot"], g["first_slot"] + g["num_slots"]),
                tuple(g["obs_size"]) if g["obs_size"] else full,
            )
            for g in agents["groups"]
        )
        self._group_of = [g for g in self.groups for _ in g.slots]
        self._obs_specs, self._act_specs = obs_specs, act_specs
        self.row_observation_space = self._space(obs_specs, None, self.obs_is_tuple)
        self.row_action_space = self._space(act_specs, None, False)
        self.env_info = tuple(s["name"] for s in raw_spec["info"][len(AGENT_INFO) :])
        self._obs_spaces: dict[int, spaces.Space] = {}
        self._act_spaces: dict[int, spaces.Space] = {}

    @staticmethod
    def _space(specs: list[dict[str, Any]], sizes: tuple[int, ...] | None, as_tuple: bool) -> spaces.Space:
        parts = [
            array_spec_to_space(_per_agent_spec(s, None if sizes is None or len(s["shape"]) < 2 else sizes[k]))
            for k, s in enumerate(specs)
        ]
        if len(parts) == 1:
            return parts[0]
        if as_tuple:
            return spaces.Tuple(parts)
        return spaces.Dict({s["name"]: p for s, p in zip(specs, parts)})

    def slot(self, agent: str) -> int:
        """The slot of agent ``agent`` (a KeyError naming the possible agents otherwise)."""
        try:
            return self._slots[agent]
        except KeyError:
            raise KeyError(f"unknown agent {agent!r}; the possible agents are {list(self.names)}") from None

    @functools.cached_property
    def _slots(self) -> dict[str, int]:
        return {name: k for k, name in enumerate(self.names)}

    def observation_space(self, slot: int) -> spaces.Space:
        """Agent ``slot``'s own observation space (its group's width): one object per agent, the
        same at every call (PettingZoo's API test asks for that)."""
        if slot not in self._obs_spaces:
            self._obs_spaces[slot] = self._space(self._obs_specs, self._group_of[slot].obs_size, self.obs_is_tuple)
        return self._obs_spaces[slot]

    def action_space(self, slot: int) -> spaces.Space:
        """Agent ``slot``'s action space (one object per agent, so that seeding one agent's space
        does not seed another's)."""
        if slot not in self._act_spaces:
            self._act_spaces[slot] = self._space(self._act_specs, None, False)
        return self._act_spaces[slot]

    def agent_obs(self, obs: Any, env_row: int, slot: int) -> Any:
        """Agent ``slot``'s observation in row ``env_row`` of a result's ``obs`` (views, narrowed
        to its group's width)."""
        sizes = self._group_of[slot].obs_size
        if self.obs_names is None:
            return _narrow(obs[env_row, slot], sizes[0])
        if self.obs_is_tuple:
            return tuple(_narrow(a[env_row, slot], sizes[k]) for k, a in enumerate(obs))
        return {name: _narrow(obs[name][env_row, slot], sizes[k]) for k, name in enumerate(self.obs_names)}

    def group_view(self, rows: Any, group: str) -> Any:
        """Group ``group``'s own fixed-shape arrays of agent rows ``rows`` (a batch's observations,
        or any per-row array): ``(envs, group slots, ...)``, a view without a copy; observations
        (arrays whose last dimension is the padded observation width) are cut to the group's
        width. For a Dict observation, a dict of such views."""
        g = next((g for g in self.groups if g.name == group), None)
        if g is None:
            raise KeyError(f"no agent group {group!r}; the groups are {[g.name for g in self.groups]}")
        if isinstance(rows, dict):
            return {k: self._group_part(v, g, self.obs_names.index(k)) for k, v in rows.items()}
        return self._group_part(rows, g, 0)

    def _group_part(self, arr: np.ndarray, g: AgentGroup, field: int) -> np.ndarray:
        arr = np.asarray(arr)
        by_env = arr.reshape(-1, self.num_slots, *arr.shape[1:])[:, g.slots.start : g.slots.stop]
        padded = self._obs_specs[field]["shape"]
        if by_env.ndim == len(padded) + 1 and by_env.shape[2:] == tuple(padded[1:]) and len(padded) > 1:
            return _narrow(by_env, g.obs_size[field])
        return by_env

    def blank_actions(self, rows: int) -> np.ndarray:
        """Action rows for ``rows`` envs with every agent's action at its space's low end (what
        the front ends send for agents that do not act: the protocol checks whole rows)."""
        spec = self._act_specs[0]
        low = spec["low"][0] if spec["low"] else 0
        return np.full((rows, *spec["shape"]), low, dtype=np.dtype(spec["dtype"]))


def truncated_agents(agent_truncated, env_truncated, active, agent_terminated):
    """The agents truncated in a step: those the env truncated, and, when the pool's time limit
    truncated the env, every agent in the step that did not terminate (arrays or scalars that
    broadcast: one env's slots, or ``(n, slots)`` with ``env_truncated[:, None]``)."""
    return agent_truncated | (env_truncated & active & ~agent_terminated)


def _narrow(arr: np.ndarray, size: int) -> np.ndarray:
    return arr if arr.ndim == 0 or size == arr.shape[-1] else arr[..., :size]


def to_rows(value: Any, n: int, slots: int, xp: Any = np) -> Any:
    """One result field in agent rows: per-agent arrays ``(n, slots, ...)`` are reshaped to
    ``(n * slots, ...)``, per-env arrays ``(n, ...)`` repeated once per slot, dicts field by
    field, gymnasium's per-env object arrays (same-step ``final_obs``) split per agent. ``xp``:
    the array module, numpy or jax.numpy (inside jit same-step ``final_obs`` is a dense array,
    reshaped like the observations)."""
    if isinstance(value, dict):
        return {k: to_rows(v, n, slots, xp) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(to_rows(v, n, slots, xp) for v in value)
    if not hasattr(value, "shape") or value.ndim == 0 or value.shape[0] != n:
        return value
    if value.dtype == object:
        out = np.empty(n * slots, dtype=object)
        for i, item in enumerate(value):
            if item is not None:
                for k in range(slots):
                    out[i * slots + k] = to_rows_item(item, k)
        return out
    if value.ndim >= 2 and value.shape[1] == slots:
        return value.reshape(n * slots, *value.shape[2:])
    return xp.repeat(value, slots, axis=0)


# Info keys agent rows do not pass on: the per-agent values the rows' own fields hold, and the
# masks gymnasium's stacking gives a Python env's info (all True here).
NOT_ROWS = frozenset(AGENT_INFO[:3]) | {"_" + name for name in AGENT_INFO}


def agent_rows(result: tuple[Any, ...], slots: int, xp: Any = np) -> tuple[Any, ...]:
    """A multi-agent pool's result (per env: ``(n, slots, ...)`` arrays) as agent rows, ``(obs,
    reward, terminated, truncated, info)`` with one row per agent slot: the agent's own reward
    and flags (a time limit truncates every active agent that did not terminate), the env's info
    fields per row and ``all_done``. The caller adds ``agent_id``. One definition for the
    agents-as-rows front end (numpy, envpool.multiagent.rows) and its ``xla()`` (jax.numpy,
    envpool.xla.rows)."""
    obs, _, terminated, truncated, info = result
    n = terminated.shape[0]
    reward, agent_terminated = info["agent_reward"], info["agent_terminated"]
    agent_truncated, active = info["agent_truncated"], info["active"]
    ended = info.get("_final_info")
    # Inside jit whether any env ended is not known while tracing: the where runs regardless
    # (where none ended it changes nothing).
    if ended is not None and (xp is not np or ended.any()):
        # Same-step autoreset: an ended env's row holds its new episode (obs, active) and the
        # step that ended the old one (reward, flags), whose per-agent values are final_info's.
        final, where = info["final_info"], ended[:, None]
        reward = xp.where(where, final["agent_reward"], reward)
        agent_terminated = xp.where(where, final["agent_terminated"], agent_terminated)
        agent_truncated = xp.where(where, final["agent_truncated"], agent_truncated)
        active = xp.where(where, final["active"], active)
    agent_truncated = truncated_agents(agent_truncated, truncated[:, None], active, agent_terminated)
    rows = {key: to_rows(value, n, slots, xp) for key, value in info.items() if key not in NOT_ROWS}
    rows["all_done"] = xp.repeat(terminated | truncated, slots)
    return (
        to_rows(obs, n, slots, xp),
        reward.reshape(n * slots),
        agent_terminated.reshape(n * slots),
        agent_truncated.reshape(n * slots),
        rows,
    )


def to_rows_item(item: Any, slot: int) -> Any:
    """Agent ``slot``'s part of one env's observation (an array, or a dict/tuple of them)."""
    if isinstance(item, dict):
        return {k: v[slot] for k, v in item.items()}
    if isinstance(item, tuple):
        return tuple(v[slot] for v in item)
    return item[slot]
