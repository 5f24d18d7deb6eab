"""The runner's bookkeeping between the pool and the episodes: :class:`HeldRows` (a batch the
pool returned, taken into the episodes), :class:`StaleRows` (streams whose next row is to be
dropped) and :class:`EpisodeRecorder` (each stream's current episode, the action sent to it, and
the cutting of rows into episodes, row by row; :class:`~envpool.runner.columns.ColumnRecorder`
does the same per batch where no callback needs the episodes as they grow)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envpool.errors import EnvError
from envpool.runner.episodes import Episode
from envpool.runner.metrics import SampleMetrics
from envpool.runner.trees import info_row, row_of, rows_of


class HeldRows:
    """The last batch from the pool, ``(ids, obs, rew, term, trunc, info)``, and how far the
    episodes have taken it in. ``batch is None``: a batch is due from ``recv()``."""

    batch: tuple | None
    lists: tuple | None  # ids, rewards, term, trunc and obs rows as Python lists, made once per batch
    next: int  # first row not yet taken into the episodes

    def __init__(self, stream_ids: Any = None) -> None:
        # Multi-agent pools: each row's stream (env * slots + slot, agent_rows.py) from its info.
        self._stream_ids = stream_ids if stream_ids is not None else (lambda info: np.asarray(info["env_id"]))
        self.hold(None)

    def hold(self, batch: tuple | None) -> None:
        self.batch, self.lists, self.next = batch, None, 0

    def has_rows(self) -> bool:
        return self.batch is not None and self.next < len(self.batch[0])

    def skip_rest(self) -> None:
        if self.batch is not None:
            self.next = len(self.batch[0])

    def as_lists(self) -> tuple:
        if self.lists is None:
            ids, obs, rew, term, trunc, _ = self.batch
            self.lists = (
                np.asarray(ids).tolist(),
                np.asarray(rew, dtype=np.float64).tolist(),
                np.asarray(term).tolist(),
                np.asarray(trunc).tolist(),
                rows_of(obs, len(ids)),
            )
        return self.lists

    def hold_failed(self, err: EnvError, ids) -> None:
        """An env failed: the pool still returned the batch (``err.result``, the failed envs'
        rows truncated). Keep it, so the episodes stay consistent: the caller sees the error, and
        the next ``sample`` takes those rows in (the failed envs' episodes end truncated)."""
        if err.result is None:
            return
        obs, rew, term, trunc, info = err.result
        if ids is None:
            ids = self._stream_ids(info)
        self.hold((ids, obs, rew, term, trunc, info))

    def receive(self, envs: Any, ids) -> None:
        """Hold the next batch from ``recv()`` (an env failure's batch too, then re-raise)."""
        try:
            obs, rew, term, trunc, info = envs.recv()
        except EnvError as err:
            self.hold_failed(err, ids)
            raise
        self.hold((self._stream_ids(info), obs, rew, term, trunc, info))


class StaleRows:
    """Per stream: its next row is stale (it was in flight when the runner reset every env, so
    it is dropped and the env reset at its next send)."""

    discard: np.ndarray
    discarding: bool  # discard.any()

    def __init__(self, num_streams: int) -> None:
        self.discard = np.zeros(num_streams, dtype=bool)
        self.discarding = False

    def discard_all(self) -> None:
        """Every env's next row is stale (envs in flight can't be reset now)."""
        self.discard[:] = True
        self.discarding = True

    def stop_discarding(self, ids) -> None:
        self.discard[ids] = False
        self.discarding = bool(self.discard.any())


class EpisodeRecorder(StaleRows):
    """Each env's current episode and the action last sent to it; takes held rows into the
    episodes one by one and calls the episode callbacks (with ``env_runner=runner``)."""

    episodes: list[Episode | None]  # the current one of each env
    pending: list[Any]  # (actions, extras, row) sent to each env
    done: list[Episode]  # finished in this sample() call (and carried from a failed one)
    _returns: list[float]  # the whole episode's return and length so far
    _lengths: list[int]
    _runner: Any
    _agents: Any  # AgentRowAccounts of a multi-agent pool (streams are agent rows), else None
    _hooks: dict[str, list]
    _metrics: SampleMetrics
    _mode: AutoresetMode
    _keep_infos: bool

    def __init__(
        self,
        runner: Any,
        num_envs: int,
        hooks: dict[str, list],
        metrics: SampleMetrics,
        agents: Any,
        mode: AutoresetMode,
        keep_infos: bool,
    ):
        super().__init__(num_envs)
        self._mode, self._keep_infos = mode, keep_infos
        self._runner, self._hooks, self._metrics, self._agents = runner, hooks, metrics, agents
        self.episodes = [None] * num_envs
        self.pending = [None] * num_envs
        self.done = []
        self._returns = [0.0] * num_envs
        self._lengths = [0] * num_envs

    def new_episode(self, env: int) -> Episode:
        ep = Episode(env)
        self.episodes[env] = ep
        self._returns[env] = 0.0
        self._lengths[env] = 0
        for hook in self._hooks["on_episode_created"]:
            hook(episode=ep, env_runner=self._runner, env_index=env)
        return ep

    def new_episodes(self) -> None:
        for env in range(len(self.episodes)):
            self.new_episode(env)

    def begin(self, carried: list[Episode]) -> None:
        self.done = list(carried)

    @property
    def num_done(self) -> int:
        return len(self.done)

    def end(self, chunks: bool) -> list[Episode]:
        """The episodes finished in this call, and with ``chunks`` the ongoing ones' chunks."""
        out, self.done = self.done, []
        return out + self.cut_chunks() if chunks else out

    def record_sent(self, ids: np.ndarray, actions: Any, extras: dict, sel: np.ndarray | None = None) -> None:
        """The actions sent to these envs (``sel``: only those rows were sent)."""
        ids_l = np.asarray(ids).tolist()
        action_rows, pending = rows_of(actions, len(ids_l)), self.pending
        for i in range(len(ids_l)) if sel is None else sel.tolist():
            pending[ids_l[i]] = (action_rows[i], extras, i)

    def settle(self) -> int:
        """Steps taken in but not yet counted by ``consume``: none (every row is counted as taken)."""
        return 0

    def start(self, env: int, obs: Any, info: dict | None) -> None:
        ep = self.episodes[env]
        ep.observations.append(obs)
        if info is not None:
            ep.infos.append(info)
        for hook in self._hooks["on_episode_start"]:
            hook(episode=ep, env_runner=self._runner, env_index=env)

    def consume(self, held: HeldRows, steps: int, limits: tuple) -> int:
        """Take held rows into the episodes until a limit, ``(num_timesteps, num_episodes)``, is
        met or the rows run out; returns the call's step count. The per-row work is on Python
        lists (made once per batch): it bounds the runner's speed."""
        num_timesteps, num_episodes = limits
        done, mode, keep_infos = self.done, self._mode, self._keep_infos
        info = held.batch[5]
        ids_l, rew_l, term_l, trunc_l, obs_rows = held.as_lists()
        same_step = mode == AutoresetMode.SAME_STEP
        disabled = mode == AutoresetMode.DISABLED
        final_obs = info.get("final_obs") if same_step else None
        final_mask = info.get("_final_obs") if same_step else None
        step_hooks, end_hooks = self._hooks["on_episode_step"], self._hooks["on_episode_end"]
        runner, discarding, discard = self._runner, self.discarding, self.discard
        episodes, pending, ret, length = self.episodes, self.pending, self._returns, self._lengths
        agents = self._agents
        if agents is not None and held.next == 0:
            agents.new_batch(info, same_step)
        i = held.next
        n = len(ids_l)
        while i < n:
            row = i
            i += 1
            env = ids_l[row]
            if discarding and discard[env]:
                continue
            if agents is not None and not agents.take(row, rew_l[row]):
                continue  # an absent agent's row: no step
            ep = episodes[env]
            if not ep.observations:  # a reset row: the episode's first observation
                if disabled and (term_l[row] or trunc_l[row]):
                    continue  # full batch, disabled: the ended env's row, replaced at the next send
                self.start(env, obs_rows[row], info_row(info, row) if keep_infos else None)
                continue
            action, extras, j = pending[env]
            terminated, truncated = term_l[row], trunc_l[row]
            r = rew_l[row]
            ep.actions.append(action)
            ep.rewards.append(r)
            if extras:
                for k, v in extras.items():
                    ep.extras.setdefault(k, []).append(v[j])
            if (terminated or truncated) and final_obs is not None and final_mask[row]:
                ep.observations.append(row_of(final_obs, row))
                if keep_infos:
                    ep.infos.append(info_row(info["final_info"], row))
            else:
                ep.observations.append(obs_rows[row])
                if keep_infos:
                    ep.infos.append(info_row(info, row))
            ret[env] += r
            length[env] += 1
            steps += 1
            for hook in step_hooks:
                hook(episode=ep, env_runner=runner, env_index=env)
            if terminated or truncated:
                ep.terminated, ep.truncated = bool(terminated), bool(truncated)
                done.append(ep._finalized())
                if agents is None:
                    self._metrics.add_episode(ret[env], length[env])
                else:  # an agent's episode (the env's are counted by agents.take)
                    agents.agent_episode(env, ret[env], length[env])
                for hook in end_hooks:
                    hook(episode=ep, env_runner=runner, env_index=env)
                self.new_episode(env)
                if same_step and (agents is None or agents.starts_episode(row)):
                    self.start(env, obs_rows[row], info_row(info, row) if keep_infos else None)
                if num_episodes is not None and len(done) >= num_episodes:
                    break
            if num_timesteps is not None and steps >= num_timesteps:
                break
        held.next = i
        return steps

    def cut_chunks(self) -> list[Episode]:
        """Chunks of the ongoing episodes (with at least one step in this call); their
        continuations become the current episodes."""
        chunks = []
        for env, ep in enumerate(self.episodes):
            if ep is not None and len(ep) and not self.discard[env]:
                chunks.append(ep._finalized())
                self.episodes[env] = ep._continuation()
        return chunks
