"""``xla()`` of a multi-agent task's agents-as-rows front end (envpool.multiagent.rows): actions,
env ids and results inside jit in the layout that front end's Python ``step``/``recv`` use.

The pool's own calls are per env: an env's agents are one pool row, ``(envs, slots, ...)`` per
array. The front end's rows are agents (row = env * slots + slot). So, as its Python methods do:

- actions come as one row per agent row, ``(envs * slots, ...)``, or ``(envs, slots, ...)``;
- ``env_id`` comes per env, or per agent row (``recv()``'s ``info["env_id"]``); which one is
  decided from the shapes (the action's envs), as values are not known while tracing, and
  per-row ids are turned into per-env ids by the ``envpool_ng_agent_env_ids`` call, which fails
  at run time when one env's rows name different envs (cpp/xla_ffi/handlers.cc);
- results are the front end's ``_to_rows`` of the pool's batch, written with jax operations
  (tests/xla/test_families.py compares them with the Python front end field for field).
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
from jax import ffi

from envpool.agents import agent_rows


def is_agent_rows(envs: Any) -> bool:
    """Whether ``envs`` is the agents-as-rows front end (``PoolFrontEnd._xla_layout``)."""
    return getattr(envs, "_xla_layout", None) == "agent_rows"


def is_pettingzoo(envs: Any) -> bool:
    """Whether ``envs`` is the PettingZoo views' front end, which xla() cannot serve."""
    return getattr(envs, "_xla_layout", None) == "pettingzoo"


class AgentRows:
    """Converts one agents-as-rows front end's arguments and results inside jit."""

    def __init__(self, envs: Any, spec: dict):
        self.slots = int(envs.agents_per_env)
        # One agent row's shape per action array (the front end's single_action_space): the
        # array's shape after its slots, () for one discrete action (envpool.agents).
        self.row_shapes = {
            a["name"]: () if a["discrete"] and math.prod(a["shape"][1:]) == 1 else tuple(a["shape"][1:])
            for a in spec["action"]
        }

    def _action_envs(self, action: Any) -> int | None:
        """How many envs ``action`` holds, from its shape (None: it fits neither layout, and
        env_actions says so)."""
        name = next(iter(self.row_shapes))
        if isinstance(action, dict):
            action = action.get(name)
        try:
            shape = jnp.shape(action)
        except TypeError:  # not an array: the action checks say what is wrong
            return None
        m, extra = self.slots, len(self.row_shapes[name])
        if len(shape) == extra + 2 and shape[1] == m:
            return int(shape[0])
        if len(shape) == extra + 1 and shape[0] % m == 0:
            return int(shape[0]) // m
        return None

    def env_ids(self, env_id: Any, action: Any) -> Any:
        """Per-env ids: ``env_id`` itself, or (one id per agent row) its first id of each env's
        rows, checked when the call runs."""
        ids = jnp.asarray(env_id)
        envs = self._action_envs(action)
        if (
            self.slots == 1
            or envs is None
            or ids.ndim != 1
            or not jnp.issubdtype(ids.dtype, jnp.integer)
            or ids.shape[0] != envs * self.slots
        ):
            return ids  # per env (the pool's checks name what is wrong, if anything)
        call = ffi.ffi_call("envpool_ng_agent_env_ids", jax.ShapeDtypeStruct((envs,), jnp.int32))
        return call(ids.astype(jnp.int32), agents=self.slots)

    def env_actions(self, name: str, value: Any, envs: int) -> Any:
        """Action array ``name`` as the pool's ``(envs, slots, ...)``, from either layout the
        front end takes (any other shape is refused naming both, where the Python front end
        leaves some to the pool's per-env message)."""
        m, row_shape = self.slots, self.row_shapes[name]
        if value.shape == (envs, m, *row_shape):
            return value
        if value.shape == (envs * m, *row_shape):
            return value.reshape(envs, m, *row_shape)
        raise ValueError(
            f"actions of a multi-agent task's agents-as-rows pool have one row per agent row: shape "
            f"{(envs * m, *row_shape)} for {envs} envs of {m} agents (or {(envs, m, *row_shape)}), "
            f"got {tuple(value.shape)}"
        )

    def result(self, result: tuple[Any, ...]) -> tuple[Any, ...]:
        """The front end's agent rows of the pool's per-env result (AgentRowsVectorEnv._to_rows)."""
        n = result[2].shape[0]  # envs: the pool's per-env terminated
        obs, reward, terminated, truncated, rows = agent_rows(result, self.slots, jnp)
        rows["agent_id"] = jnp.tile(jnp.arange(self.slots, dtype=jnp.int32), n)
        return obs, reward, terminated, truncated, rows
