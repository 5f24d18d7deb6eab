"""The agents-as-rows front end: a multi-agent task as a gymnasium ``VectorEnv`` whose rows are
agents, the layout PufferLib trains on (``envpool.make(task, num_envs=n)`` for a multi-agent task).
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector.utils import batch_space

from envpool.agents import AGENT_INFO, AgentLayout, agent_rows
from envpool.errors import EnvError
from envpool.frontends.sources import PoolSource
from envpool.frontends.vector_env import EnvPoolVectorEnv
from envpool.result_names import check_front_end


class AgentRowsVectorEnv(EnvPoolVectorEnv):
    """``num_envs`` copies of a multi-agent env; every result has one row per agent slot.

    Row ``env * agents_per_env + slot`` is agent ``slot`` of env ``env`` (``num_agents =
    num_envs * agents_per_env`` rows in a full batch, ``batch_size * agents_per_env`` in an
    async one: an env's agents always come back together). ``single_observation_space`` /
    ``single_action_space`` are one row's (padded to the widest agent's observation);
    ``agents.observation_space(slot)`` gives an agent's own. Per row: ``reward``,
    ``terminated`` and ``truncated`` are the agent's (a time limit truncates every active agent
    of the env that is not terminated), and ``info`` holds ``env_id``, ``agent_id`` (the slot),
    ``active`` (the agent is in this step: absent agents' rows are zeros and mean nothing),
    ``needs_action`` (its action is used by the next step: turn-based games move one agent at a
    time), ``all_done`` (its env's episode ended in this step), ``elapsed_step`` and the env's
    own info fields. With same-step autoreset an ended env's rows hold the new episode's
    observations and ``active``, and the ended step's rewards and flags (``final_obs`` /
    ``final_info`` per row, as gymnasium's).

    Actions: one row per agent row (``(rows, ...)``, or ``(envs, agents_per_env, ...)``); the
    actions of agents that are absent or do not need to act are ignored but must lie in the
    action space (e.g. 0). ``send(actions, env_id)`` takes the env ids of a batch either as
    ``recv()``'s ``info["env_id"]`` (one per row) or one per env.

    >>> import envpool, envpool.testing, numpy as np
    >>> _ = envpool.testing.load_step_counter()
    >>> envs = envpool.make("AgentCounter-v0", num_envs=2)
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape, envs.num_agents, info["agent_id"].tolist(), info["active"].tolist()
    ((6, 4), 6, [0, 1, 2, 0, 1, 2], [True, True, False, True, True, False])
    >>> obs, reward, terminated, truncated, info = envs.step(np.ones(6, dtype=np.int64))
    >>> reward.tolist()
    [1.0, 2.0, 0.0, 1.0, 2.0, 0.0]
    >>> envs.close()
    """

    _added_info_keys = ("all_done", "agent_id")  # _to_rows'
    _xla_layout = "agent_rows"  # xla() gives these rows too (envpool/xla/rows.py)
    agents: AgentLayout
    agents_per_env: int
    num_agents: int
    _agent_id_rows: dict[int, np.ndarray]  # agent_id of the rows of n envs, by n

    def __init__(self, source: PoolSource):
        super().__init__(source)
        layout = self.task_spec.agents
        if layout is None:
            self.close()
            raise ValueError(f"{self.task_id} is not a multi-agent task: use envpool.make's default front end")
        check_front_end(self, self._added_info_keys)
        self.agents = layout
        self.agents_per_env = layout.num_slots
        self.num_agents = self.num_envs * self.agents_per_env
        self.single_observation_space = layout.row_observation_space
        self.single_action_space = layout.row_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_agents)
        self.action_space = batch_space(self.single_action_space, self.num_agents)
        self.batch_action_space = batch_space(self.single_action_space, self.batch_size * self.agents_per_env)
        self._agent_id_rows = {}

    # -- actions in, rows out ------------------------------------------------------------------------

    def _env_ids(self, env_id) -> np.ndarray | None:
        """Env ids given per row (``info["env_id"]`` of a batch) or per env, as per-env ids."""
        if env_id is None:
            return None
        ids = np.asarray(env_id).reshape(-1)
        m = self.agents_per_env
        if m > 1 and len(ids) % m == 0 and len(ids):
            blocks = ids.reshape(-1, m)
            if (blocks == blocks[:, :1]).all():
                return blocks[:, 0]
        return ids

    def _env_actions(self, actions, ids: np.ndarray | None) -> np.ndarray:
        envs = self.num_envs if ids is None else len(ids)
        arr = np.asarray(actions)
        m = self.agents_per_env
        row_shape = self.single_action_space.shape
        if arr.shape == (envs, m, *row_shape):
            return arr
        if arr.shape[:1] == (envs * m,):
            return arr.reshape(envs, m, *arr.shape[1:])
        raise ValueError(
            f"actions must have one row per agent row: shape ({envs * m}, {', '.join(map(str, row_shape))}) for "
            f"{envs} envs of {m} agents (or ({envs}, {m}, ...)), got {arr.shape}"
        )

    def send(self, actions, env_id=None) -> None:
        ids = self._env_ids(env_id)
        super().send(self._env_actions(actions, ids), ids)

    def _step(self, actions, env_id, timeout: float | None = None, with_ids: bool = True):
        ids = self._env_ids(env_id)
        actions = self._env_actions(actions, ids)
        return self._in_rows(lambda: super(AgentRowsVectorEnv, self)._step(actions, ids, timeout, True))

    def _recv(self, timeout: float | None, with_ids: bool = True):
        return self._in_rows(lambda: super(AgentRowsVectorEnv, self)._recv(timeout, True))

    def _in_rows(self, call):
        """``call()``'s batch in agent rows; an EnvError's batch too (its ``result``)."""
        try:
            return self._to_rows(call())
        except EnvError as exc:
            obs, reward, terminated, truncated, info = self._to_rows(exc.result)
            # A failed env's per-agent values are whatever it wrote before raising: its rows read
            # truncated (every slot), with no reward, as the core reads an env-level failed row.
            failed = np.isin(info["env_id"], exc.env_ids)
            reward = np.where(failed, 0.0, reward)
            terminated = terminated & ~failed
            truncated = truncated | failed
            exc.result = (obs, reward, terminated, truncated, info)
            raise

    def _to_rows(self, result):
        obs, _, terminated, truncated, info = result
        n, m = len(terminated), self.agents_per_env
        missing = [key for key in AGENT_INFO if key not in info]
        if missing:
            # A Python env that raised returned no info: a batch whose every env failed in a
            # make_python worker has none of the per-agent arrays. Its rows read as a failed env's
            # rows of a partly failed batch do (no reward, no agent flags; _in_rows marks them
            # truncated), so the EnvError reaches the caller with its batch.
            info = dict(info)
            for key in missing:
                info[key] = np.zeros((n, m), dtype=np.float64 if key == "agent_reward" else bool)
        obs, reward, terminated, truncated, rows = agent_rows((obs, None, terminated, truncated, info), m)
        rows["agent_id"] = self._agent_ids(n)
        return obs, reward, terminated, truncated, rows

    def _agent_ids(self, n: int) -> np.ndarray:
        """``[0, 1, .., m-1] * n`` (int32), made once per batch size and copied: results belong to
        the caller."""
        ids = self._agent_id_rows.get(n)
        if ids is None:
            ids = self._agent_id_rows[n] = np.tile(np.arange(self.agents_per_env, dtype=np.int32), n)
        return ids.copy()
