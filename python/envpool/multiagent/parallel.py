"""The PettingZoo front end: each env of a pool as a ``pettingzoo.ParallelEnv``
(``envpool.make(task, env_type="pettingzoo", num_envs=n)``).

The pool runs with autoreset disabled, as a PettingZoo env is used: an episode ends when its
last agent is done, and the next one starts at ``reset()``. A view's ``step`` steps its own env;
``ParallelEnvs.step`` steps every view that has agents in one pool step (the threads step them
together).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from envpool.agents import AgentLayout, truncated_agents
from envpool.errors import EnvError
from envpool.frontends.pool import PoolFrontEnd
from envpool.frontends.seeding import check_int
from envpool.frontends.sources import POOL_DEFAULTS, PoolSource

try:  # optional (the pettingzoo extra): where installed, views are pettingzoo.ParallelEnv instances
    from pettingzoo import ParallelEnv as _Base
except ImportError:  # pragma: no cover - exercised only without the extra
    _Base = object


class PerEnvResults:
    """The results of a :class:`ParallelEnvs` call, one per env: ``result[i]`` is env ``i``'s
    (as ``envs[i].reset()`` / ``envs[i].step()`` return it), ``len(result)`` the number of envs,
    ``result.tolist()`` all of them in a list.

    It is not iterable: ``obs, infos = envs.reset()`` with two envs would otherwise bind env 0's
    result to ``obs`` and env 1's to ``infos`` without a word (and ``step`` likewise with five).
    """

    __slots__ = ("_items", "_what")

    def __init__(self, items: list, what: str):
        self._items = items
        self._what = what  # "(observations, infos)": what one env's result is, for the error

    def __getitem__(self, i: int) -> Any:
        return self._items[i]

    def __len__(self) -> int:
        return len(self._items)

    def tolist(self) -> list:
        return list(self._items)

    def __iter__(self):
        raise TypeError(
            f"this holds one {self._what} per env ({len(self._items)} envs), not one env's {self._what}: "
            "take env i's with result[i] (all: result.tolist()), or use envs[i] alone, a PettingZoo ParallelEnv"
        )

    def __repr__(self) -> str:
        return f"PerEnvResults({self._items!r})"


_STEP_RESULT = "(observations, rewards, terminations, truncations, infos)"


class ParallelEnvs(PoolFrontEnd, Sequence):
    """``num_envs`` PettingZoo ``ParallelEnv`` views of one pool (a sequence of them: ``envs[i]``).

    Not itself a ``ParallelEnv``: ``reset(seed=s)`` resets every env (env ``i`` with ``s + i``)
    and ``step(actions)`` (a list of one action dict per env) steps every env with agents, both
    returning :class:`PerEnvResults` (env ``i``'s result is ``result[i]``; unpacking it is
    refused); each view also steps alone. ``close()`` closes the pool (and every view).
    """

    agents: AgentLayout
    _views: list[ParallelEnvView]
    closed: bool = False
    _xla_layout = "pettingzoo"  # xla() refuses: its results are per-agent dicts

    @classmethod
    def pool_kwargs(cls, kwargs: dict[str, Any]) -> dict[str, Any]:
        """A full batch and no autoreset (each env is reset by its user, as a PettingZoo env): a
        maker's defaults become those, anything else is refused."""
        given = {"autoreset_mode": kwargs.get("autoreset_mode"), "batch_size": kwargs.get("batch_size")}
        for key, value in given.items():
            default = value is None or (key == "autoreset_mode" and value == POOL_DEFAULTS.autoreset_mode)
            if not default and value != "disabled" and not (key == "batch_size" and value == kwargs.get("num_envs")):
                raise ValueError(
                    f"env_type='pettingzoo' steps each env like a PettingZoo env (full batch, reset by the "
                    f"user): {key}={value!r} is not supported"
                )
        return {**kwargs, "batch_size": None, "autoreset_mode": "disabled"}

    def __init__(self, source: PoolSource):
        self._open_pool(source)
        if self.autoreset_mode != AutoresetMode.DISABLED or self.batch_size != self.num_envs:
            self._pool.close()
            raise ValueError(
                "env_type='pettingzoo' steps each env like a PettingZoo env: its source's pool must have a full "
                "batch and autoreset_mode='disabled' (ParallelEnvs.pool_kwargs gives them)"
            )
        if self.task_spec.agents is None:
            self._pool.close()
            raise ValueError(f"{self.task_id} is not a multi-agent task: env_type='pettingzoo' needs one")
        self.agents = self.task_spec.agents
        self._views = [ParallelEnvView(self, i) for i in range(self.num_envs)]

    def __getitem__(self, i):
        return self._views[i]

    def __len__(self) -> int:
        return self.num_envs

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError(f"{self.task_id}: the pool is closed")

    def reset(self, seed: int | list[int] | None = None, options: dict[str, Any] | None = None) -> PerEnvResults:
        """Starts a new episode in every env: ``result[i]`` is env ``i``'s ``(observations, infos)``.
        ``options`` are accepted and ignored, as by the reference envs."""
        self._check_open()
        self._send_reset(seed, None)
        result = self._pool.recv(-1.0)
        return PerEnvResults(
            [view._take_reset(result, row) for row, view in enumerate(self._views)], "(observations, infos)"
        )

    def step(self, actions: Sequence[dict[str, Any]]) -> PerEnvResults:
        """Steps every env that has agents, with ``actions[i]`` (a dict agent -> action) for env
        ``i``; ``result[i]`` is env ``i``'s ``(observations, rewards, terminations, truncations,
        infos)`` (``None`` for envs whose episode is over: reset them). An env that raises cuts its
        episode short: ``envpool.EnvError`` names it, and its ``result`` holds the other envs'
        results (theirs are not lost)."""
        self._check_open()
        if isinstance(actions, dict) or not isinstance(actions, Sequence):
            raise TypeError(
                f"step() takes a list of action dicts, one per env ({self.num_envs}), got {type(actions).__name__}; "
                "a single env's dict goes to envs[i].step()"
            )
        if len(actions) != self.num_envs:
            raise ValueError(f"step() needs one action dict per env ({self.num_envs}), got {len(actions)}")
        live = [i for i, view in enumerate(self._views) if view.agents]
        rows = self.agents.blank_actions(len(live))
        for k, i in enumerate(live):
            self._views[i]._fill_actions(actions[i], rows[k])
        results = PerEnvResults([None] * self.num_envs, _STEP_RESULT)
        if live:
            try:
                result = self._pool.step(rows, np.asarray(live, dtype=np.int32), -1.0)
            except EnvError as exc:
                # The others' rows are in the error's batch: take them; the failed envs' episodes
                # are cut short (reset() starts their next one).
                for k, i in enumerate(live):
                    if i in exc.env_ids:
                        self._views[i].agents = []
                    else:
                        results._items[i] = self._views[i]._take_step(exc.result, k)
                exc.result = results
                raise
            for k, i in enumerate(live):
                results._items[i] = self._views[i]._take_step(result, k)
        return results

    def close(self) -> None:
        """Closes the pool (idempotent)."""
        if not self.closed:
            self.closed = True
            self._close_pool()

    def __enter__(self) -> ParallelEnvs:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "closed", True) and getattr(self, "_pool", None) is not None:
            self.close()


class ParallelEnvView(_Base):
    """Env ``index`` of a :class:`ParallelEnvs` pool as a PettingZoo ``ParallelEnv``.

    ``possible_agents`` are the task's agent slots; ``agents`` those still in the episode.
    ``step(actions)`` needs an action for every agent in ``agents`` that acts this step (every
    one, or in turn-based games the agent to move: ``infos[agent]["needs_action"]``, the one
    whose ``action_mask`` is not all zeros); actions of other live agents are ignored, an action
    for an agent not in ``agents`` is refused (``KeyError``). ``close()`` of the only view of a
    pool closes the pool; a view of a larger pool leaves it to ``ParallelEnvs.close()``.
    """

    metadata = {"render_modes": [], "is_parallelizable": True}
    render_mode: str | None = None

    def __init__(self, pool: ParallelEnvs, index: int):
        self._owner = pool
        self._index = index
        self._layout = pool.agents
        self.possible_agents = list(self._layout.names)
        self.agents: list[str] = []
        self._needs = np.zeros(self._layout.num_slots, dtype=bool)
        self.render_mode = pool.render_mode
        renders = pool.task_spec.render_shape is not None
        self.metadata = {**type(self).metadata, "name": pool.task_id, "render_modes": ["rgb_array"] if renders else []}
        if renders and pool.task_spec.render_fps:
            self.metadata["render_fps"] = pool.task_spec.render_fps  # the reference's (PettingZoo's, mpe2's)

    @property
    def unwrapped(self) -> ParallelEnvView:
        return self

    def observation_space(self, agent: str):
        return self._layout.observation_space(self._layout.slot(agent))

    def action_space(self, agent: str):
        return self._layout.action_space(self._layout.slot(agent))

    @property
    def observation_spaces(self) -> dict[str, Any]:
        return {a: self.observation_space(a) for a in self.possible_agents}

    @property
    def action_spaces(self) -> dict[str, Any]:
        return {a: self.action_space(a) for a in self.possible_agents}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Starts a new episode (``seed``: this env's new seed; ``options`` are ignored, as by
        the reference envs): ``(observations, infos)`` of the agents present."""
        self._owner._check_open()
        if seed is not None:
            seed = [check_int("seed", seed, 0)]
        self._owner._send_reset(seed, None, np.asarray([self._index], dtype=np.int32))
        return self._take_reset(self._owner._pool.recv(-1.0), 0)

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """One step of this env: ``(observations, rewards, terminations, truncations, infos)``
        of the agents in this step (those in ``agents`` before it, and any that joined)."""
        self._owner._check_open()
        if not self.agents:
            raise RuntimeError(
                f"{self._owner.task_id} env {self._index}: the episode is over (no agents left); call reset()"
            )
        row = self._layout.blank_actions(1)
        self._fill_actions(actions, row[0])
        try:
            result = self._owner._pool.step(row, np.asarray([self._index], dtype=np.int32), -1.0)
        except EnvError:
            self.agents = []  # the env's episode is cut short: reset() starts the next one
            raise
        return self._take_step(result, 0)

    def close(self) -> None:
        if len(self._owner) == 1:
            self._owner.close()

    def render(self) -> np.ndarray | None:
        """The env's frame, ``(H, W, 3)`` uint8, with ``render_mode="rgb_array"`` at make (as a
        PettingZoo env's ``render()``); ``None`` without a render mode."""
        if self.render_mode is None:
            return None
        return self._owner.render([self._index])[0]

    def state(self) -> np.ndarray:
        """The env's full internal state (``get_state``; tasks that expose one)."""
        return self._owner.get_state(self._index)

    # -- rows of the pool's results ------------------------------------------------------------------

    def _fill_actions(self, actions: dict[str, Any], row: np.ndarray) -> None:
        if not isinstance(actions, dict):
            raise TypeError(f"actions must be a dict agent -> action, got {type(actions).__name__}")
        live = set(self.agents)
        for agent, action in actions.items():
            if agent not in live:
                slot = self._layout.slot(agent)  # unknown agents: KeyError naming the possible ones
                raise KeyError(
                    f"{self._owner.task_id} env {self._index}: got an action for {agent!r} (slot {slot}), "
                    f"which is not in the episode; agents are {self.agents}"
                )
            slot = self._layout.slot(agent)
            where = f"{self._owner.task_id} env {self._index}"
            row[slot] = _agent_action(where, agent, action, self._layout.action_space(slot))
        missing = [a for a in self.agents if self._needs[self._layout.slot(a)] and a not in actions]
        if missing:
            raise ValueError(f"{self._owner.task_id} env {self._index}: no action for {missing}, which must act")

    def _take_reset(self, result, row: int) -> tuple[dict, dict]:
        obs, _, _, _, info = result
        active = info["active"][row]
        self.agents = [a for k, a in enumerate(self.possible_agents) if active[k]]
        self._needs = info["needs_action"][row].copy()
        observations = {a: self._layout.agent_obs(obs, row, self._layout.slot(a)) for a in self.agents}
        return observations, {a: self._agent_info(info, row, self._layout.slot(a)) for a in self.agents}

    def _take_step(self, result, row: int):
        obs, _, _, env_truncated, info = result
        active = info["active"][row]
        term = info["agent_terminated"][row]
        trunc = truncated_agents(info["agent_truncated"][row], env_truncated[row], active, term)
        reward = info["agent_reward"][row]
        reported = [(k, a) for k, a in enumerate(self.possible_agents) if active[k]]
        observations = {a: self._layout.agent_obs(obs, row, k) for k, a in reported}
        rewards = {a: float(reward[k]) for k, a in reported}
        terminations = {a: bool(term[k]) for k, a in reported}
        truncations = {a: bool(trunc[k]) for k, a in reported}
        infos = {a: self._agent_info(info, row, k) for k, a in reported}
        self.agents = [a for k, a in reported if not (term[k] or trunc[k])]
        self._needs = info["needs_action"][row].copy()
        return observations, rewards, terminations, truncations, infos

    def _agent_info(self, info: dict[str, Any], row: int, slot: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self._layout.turn_based:
            out["needs_action"] = bool(info["needs_action"][row, slot])
        for name in self._layout.env_info:
            value = info[name][row]
            out[name] = value[slot] if value.ndim and value.shape[0] == self._layout.num_slots else value
        return out

    def __repr__(self) -> str:
        return f"ParallelEnvView({self._owner.task_id!r}, env {self._index} of {len(self._owner)})"


def _agent_action(where: str, agent: str, action: Any, space: spaces.Space) -> Any:
    """``action`` checked against ``agent``'s action space, as the agents-as-rows front end checks
    a row: the type and shape the space has, never cast (2.7 or "3" for a Discrete agent) or
    broadcast (a scalar for a Box agent); a Discrete action also in its range. Errors name the
    env (``where``) and the agent."""
    if isinstance(space, spaces.Discrete):
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            raise TypeError(
                f"{where}: the action for {agent!r} must be an integer ({space}), got {action!r} "
                f"of type {type(action).__name__}"
            )
        if not space.start <= action < space.start + space.n:
            raise ValueError(f"{where}: the action for {agent!r} is {action}, outside {space}")
        return action
    integers = np.issubdtype(space.dtype, np.integer)
    try:
        arr = np.asarray(action)
    except (TypeError, ValueError) as exc:  # ragged nesting
        raise TypeError(f"{where}: the action for {agent!r} is not an array for {space}: {exc}") from None
    if arr.dtype.kind not in ("iu" if integers else "iuf"):
        raise TypeError(
            f"{where}: the action for {agent!r} must hold {'integers' if integers else 'real numbers'} ({space}), "
            f"got {arr.dtype} values"
        )
    if arr.shape != space.shape:
        raise ValueError(
            f"{where}: the action for {agent!r} must have shape {space.shape} ({space}), got shape {arr.shape}"
        )
    return arr
