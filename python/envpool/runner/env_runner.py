"""The runner itself: :class:`EnvRunner` steps a pool with a policy and cuts the results into
episodes (see :mod:`envpool.runner`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envpool.errors import EnvError
from envpool.frontends.seeding import check_optional_seed
from envpool.runner.actions import ActionSource
from envpool.runner.agent_rows import AgentRowAccounts
from envpool.runner.callbacks import hooks_of
from envpool.runner.columns import ColumnRecorder
from envpool.runner.episodes import Episode
from envpool.runner.metrics import SampleMetrics
from envpool.runner.recorder import EpisodeRecorder, HeldRows
from envpool.runner.trees import info_row, replace_rows, row_of, take


class EnvRunner:
    """Samples timesteps or episodes from a pool with a policy.

    Args:
        envs: a pool with the gymnasium front end (``envpool.make(...)``,
            ``envpool.make_python(...)``). The runner drives it: don't step it meanwhile, and
            use one runner per pool (to sample with another policy, set ``runner.policy``).
            With ``batch_size < num_envs`` the runner uses ``send``/``recv``: while the policy
            computes one batch's actions the other envs step.
        policy: ``policy(obs) -> actions`` or ``-> (actions, extras)`` where ``extras`` is a
            dict of per-row arrays (log-probs, values, ...) kept per step in the episodes.
            ``obs`` is a batch (rows of some envs); return one action row per obs row.
            ``None``: random actions from the action space.
        callbacks: an object (or list of objects) with any of RLlib's callback methods; see
            :class:`RunnerCallbacks`.
        seed: seeds the random actions.
        keep_infos: keep each observation's info dict in ``Episode.infos`` (costs time: the
            rows are then taken into the episodes one by one, as with episode callbacks).

    >>> import envpool
    >>> envs = envpool.make("CartPole-v1", num_envs=8, batch_size=4, seed=0)  # async pool
    >>> runner = envpool.EnvRunner(envs, seed=0)
    >>> episodes = runner.sample(num_timesteps=1000)
    >>> sum(len(e) for e in episodes)
    1000
    >>> m = runner.get_metrics()
    >>> m["num_env_steps_sampled"], m["num_episodes"] == sum(e.is_done for e in episodes)
    (1000, True)
    >>> len(runner.sample(num_episodes=5))
    5
    >>> envs.close()
    """

    envs: Any
    policy: Callable | None  # settable: the next sample() uses the new policy
    num_envs: int
    _hooks: dict[str, list]
    _async: bool  # batch_size < num_envs: send/recv instead of step
    _mode: AutoresetMode
    _metrics: SampleMetrics  # counters (get_state) and metrics since the last get_metrics()
    _agents: AgentRowAccounts | None  # a multi-agent pool's agent rows (agent_rows.py)
    _actions: ActionSource
    _held: HeldRows  # received rows not yet taken into the episodes
    # Whole batches at a time where no episode callback or kept info needs the rows one by one.
    _recorder: ColumnRecorder | EpisodeRecorder
    _keep_infos: bool
    _carry: list[Episode]  # episodes finished by a call that raised
    _started: bool  # the pool has been reset once
    _needs_reset: bool

    def __init__(
        self,
        envs: Any,
        policy: Callable | None = None,
        callbacks: Any = None,
        *,
        seed: int | None = None,
        keep_infos: bool = False,
    ):
        for name in ("num_envs", "batch_size", "single_action_space", "autoreset_mode", "reset", "step"):
            if not hasattr(envs, name):
                raise TypeError(
                    f"EnvRunner needs an envpool pool with the gymnasium front end "
                    f"(envpool.make / make_python); {type(envs).__name__} has no {name!r}"
                )
        if policy is not None and not callable(policy):
            raise TypeError(f"policy must be callable or None, got {type(policy).__name__}")
        seed = check_optional_seed("seed", seed)
        self.envs = envs
        self.policy = policy
        self._keep_infos = bool(keep_infos)
        self._hooks = hooks_of(callbacks)
        self.num_envs = int(envs.num_envs)
        self._async = int(envs.batch_size) < self.num_envs
        self._mode = envs.autoreset_mode
        self._metrics = SampleMetrics()
        self._actions = ActionSource(envs.single_action_space, seed, self._metrics)
        self._agents = _agent_accounts(envs, self._mode, self._metrics)
        streams = self.num_envs if self._agents is None else self.num_envs * self._agents.slots
        self._held = HeldRows(None if self._agents is None else self._agents.stream_ids)
        per_row = self._keep_infos or self._agents is not None or self._mode == AutoresetMode.DISABLED
        if per_row or any(self._hooks[name] for name in self._hooks if name != "on_sample_end"):
            self._recorder = EpisodeRecorder(
                self, streams, self._hooks, self._metrics, self._agents, self._mode, self._keep_infos
            )
        else:
            self._recorder = ColumnRecorder(streams, self._mode, self._metrics)
        self._carry = []
        self._started = False
        self._needs_reset = True

    @property
    def keep_infos(self) -> bool:
        """Whether episodes keep each observation's info (set when the runner is made)."""
        return self._keep_infos

    # -- public API --------------------------------------------------------------------------

    def sample(
        self,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list[Episode]:
        """Steps the envs and returns episodes.

        ``num_timesteps=n``: exactly ``n`` env steps (transitions; the reset rows of next-step
        autoreset are not steps), returned as the episodes that finished plus a chunk of each
        ongoing episode; the next call continues those (same ``id``, no step lost or repeated).
        ``num_episodes=m``: exactly ``m`` complete episodes, all started in this call (as in
        RLlib, the envs are reset first and episodes still running at the end are dropped).
        Each env's episodes come in time order, finished ones before ongoing chunks.

        ``random_actions``: ignore the policy for this call. ``force_reset``: drop ongoing
        episodes and reset every env first.

        If the policy or the pool raises, so does ``sample``; what that call had sampled is
        not lost: the next call returns it on top of its own ``num_timesteps`` (or
        ``num_episodes``), and the metrics count it. An env that fails (``envpool.EnvError``)
        is reported the same way; its episode ends truncated at its failed step (the pool's
        convention) and the env starts a new one; the other envs lose nothing.
        """
        if (num_timesteps is None) == (num_episodes is None):
            raise ValueError("sample() needs exactly one of num_timesteps and num_episodes")
        limit = num_timesteps if num_episodes is None else num_episodes
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            which = "num_timesteps" if num_episodes is None else "num_episodes"
            raise ValueError(f"{which} must be a positive int, got {limit!r}")
        limit = int(limit)
        t0 = time.perf_counter()
        if force_reset or num_episodes is not None or self._needs_reset:
            self._reset_all()
        # Episodes a failed call had finished come first (nothing sampled is lost).
        rec = self._recorder
        rec.begin(self._carry)
        self._carry = []
        target = None if num_episodes is None else num_episodes + rec.num_done
        steps = 0
        use_random = random_actions or self.policy is None
        limits = (num_timesteps, target)
        held = self._held
        try:
            while True:
                # (held.has_rows(), inlined: this loop turns once per batch)
                if held.batch is not None and held.next < len(held.batch[0]):
                    steps = rec.consume(held, steps, limits)
                    if (num_timesteps is not None and steps >= num_timesteps) or (
                        target is not None and rec.num_done >= target
                    ):
                        break
                    continue
                self._act(use_random)
        except BaseException:
            # The policy or the pool raised: keep what this call sampled for the next call.
            self._carry = rec.end(chunks=False)
            raise
        finally:
            steps += rec.settle()  # (after end(): a failed call's pending batches are in its episodes)
            self._metrics.add_steps(steps, time.perf_counter() - t0)
        # num_episodes: the episodes still running are dropped (the next call resets every env).
        samples = rec.end(chunks=num_episodes is None)
        if num_episodes is not None:
            self._needs_reset = True
        for hook in self._hooks["on_sample_end"]:
            hook(env_runner=self, samples=samples)
        return samples

    def get_metrics(self) -> dict[str, float | int]:
        """Metrics since the last call, with RLlib's names: ``episode_return_mean/min/max`` and
        ``episode_len_mean/min/max`` over the episodes that finished (NaN if none),
        ``num_episodes``, ``num_env_steps_sampled`` (every env step taken, also those of
        episodes ``sample(num_episodes=...)`` dropped), their ``_lifetime`` counts,
        ``num_env_steps_sampled_per_second`` (over the time spent in ``sample``), and where
        that time went: ``policy_time_s`` (in the policy or sampling random actions),
        ``env_wait_time_s`` (in the pool's calls: waiting for envs) and ``sample_time_s``."""
        metrics = self._metrics.report()
        if self._agents is not None:
            metrics["num_agent_steps_sampled"] = metrics["num_env_steps_sampled"]
            metrics.update(self._agents.report())
        return metrics

    def get_state(self) -> dict[str, Any]:
        """The lifetime counters, for checkpoints (the envs' own states and the ongoing
        episodes are not part of it)."""
        return self._metrics.state()

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`get_state` returned (keys missing from ``state`` are kept)."""
        self._metrics.load(state)

    # -- internals ---------------------------------------------------------------------------

    def _send_ids(self, ids: np.ndarray) -> np.ndarray:
        """The pool's env ids of these streams (multi-agent pools: one per agent row)."""
        return ids if self._agents is None else self._agents.env_ids(ids)

    def _timed_env_call(self, fn: Callable, *args, **kwargs) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self._metrics.env_time += time.perf_counter() - t

    def _reset_all(self) -> None:
        """Drop ongoing episodes and start new ones in every env."""
        self._recorder.new_episodes()
        if self._agents is not None:
            self._agents.reset_env_counts()
        if not self._async:
            obs, info = self._timed_env_call(self.envs.reset)
            n = len(info["env_id"]) if self._agents is not None else self.num_envs
            ids = np.arange(n) if self._agents is None else self._agents.stream_ids(info)
            self._held.hold((ids, obs, np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), info))
        elif not self._started:
            self._timed_env_call(self.envs.async_reset)
            self._held.hold(None)
        else:
            # Envs in flight can't be reset now: each one's next row is dropped and the env reset
            # then. Rows already received are dropped too (their envs are reset at the next send).
            self._recorder.discard_all()
            self._held.skip_rest()
        self._started = True
        self._needs_reset = False

    def _act(self, use_random: bool) -> None:
        """Give every env of the held batch its next action (or reset), then receive the next
        batch of rows."""
        held, rec = self._held, self._recorder
        if held.batch is None:  # a batch is due: after async_reset, or a step/recv interrupted
            self._timed_env_call(held.receive, self.envs, None)
            return
        ids, obs, _, term, trunc, _ = held.batch
        # Rows whose env must be reset rather than stepped. Usually none: skip the per-batch
        # array work then (an async pool pays this per half batch).
        needs_reset = rec.discard[ids] if rec.discarding else None
        if self._mode is _DISABLED:  # (a module global: an enum member's lookup costs ~0.15 µs)
            # A row that ended an episode (and was not already replaced by a reset row).
            ids_l = np.asarray(ids).tolist()
            ended = (term | trunc) & np.array([len(rec.episodes[e].observations) == 0 for e in ids_l])
            needs_reset = ended if needs_reset is None else needs_reset | ended
        if needs_reset is not None and not needs_reset.any():
            needs_reset = None
        if not self._async and needs_reset is not None:
            # Full batch, autoreset disabled: reset the ended envs, take their reset rows now.
            new_obs, info = self._timed_env_call(self.envs.reset, options={"reset_mask": needs_reset})
            for i in np.flatnonzero(needs_reset).tolist():
                rec.start(int(ids[i]), row_of(new_obs, i), info_row(info, i) if self.keep_infos else None)
            obs = replace_rows(obs, new_obs, needs_reset)
            needs_reset = None
        actions, extras = self._actions(self.policy, obs, len(ids), use_random)
        t = time.perf_counter()
        if not self._async:
            rec.record_sent(ids, actions, extras)
            # Until the results are in, a batch is due: if step() is interrupted (Ctrl-C, a
            # timeout), the pool hands the batch to the next recv(), and so does the runner.
            held.hold(None)
            try:
                result = self.envs.step(actions)
            except EnvError as err:
                held.hold_failed(err, ids)
                raise
            held.hold((ids, *result))
        else:
            # Send first, so that these envs step while the runner records what it sent and
            # waits for the other envs' batch (which stepped while the policy ran).
            if needs_reset is None:
                self.envs.send(actions, self._send_ids(ids))
                rec.record_sent(ids, actions, extras)
            else:
                sel = np.flatnonzero(~needs_reset)
                reset_ids = ids[needs_reset]
                self.envs.async_reset(np.unique(self._send_ids(reset_ids)))
                rec.stop_discarding(reset_ids)
                if len(sel):
                    self.envs.send(take(actions, sel), self._send_ids(ids[sel]))
                rec.record_sent(ids, actions, extras, sel)
            held.hold(None)  # as above: a batch is due
            held.receive(self.envs, None)
        self._metrics.env_time += time.perf_counter() - t


_DISABLED = AutoresetMode.DISABLED


def _agent_accounts(envs: Any, mode: AutoresetMode, metrics: SampleMetrics) -> AgentRowAccounts | None:
    """A multi-agent pool's bookkeeping (agent rows are the runner's streams), or None."""
    layout = getattr(envs, "agents", None)
    if not hasattr(envs, "agents_per_env") or layout is None:
        return None
    if mode == AutoresetMode.DISABLED:
        raise ValueError(
            "EnvRunner over a multi-agent pool needs autoreset_mode 'next_step' or 'same_step' (with 'disabled' "
            "each env's reset would have to wait for all its agents)"
        )
    return AgentRowAccounts(layout.names, int(envs.num_envs), metrics)
