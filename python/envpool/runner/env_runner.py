"""The runner itself: :class:`EnvRunner` steps a pool with a policy and cuts the results into
episodes (see :mod:`envpool.runner`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envpool.errors import EnvError
from envpool.runner.callbacks import hooks_of
from envpool.runner.episodes import Episode
from envpool.runner.metrics import SampleMetrics
from envpool.runner.trees import info_row, replace_rows, row_of, rows_of, take, to_numpy


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
        keep_infos: keep each observation's info dict in ``Episode.infos`` (costs time).

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
        self.envs = envs
        self.policy = policy
        self.keep_infos = bool(keep_infos)
        self._hooks = hooks_of(callbacks)
        self.num_envs = int(envs.num_envs)
        self._async = int(envs.batch_size) < self.num_envs
        self._mode = envs.autoreset_mode
        self._space = envs.single_action_space
        self._batched_spaces: dict[int, Any] = {}
        self._seed = seed

        self._episodes: list[Episode | None] = [None] * self.num_envs  # the current one of each env
        self._discard = np.zeros(self.num_envs, dtype=bool)  # next row is stale: reset the env
        self._pending: list[Any] = [None] * self.num_envs  # (actions, extras, row) sent to each env
        self._discarding = False  # some env's next row is stale (_discard.any())
        self._ret = [0.0] * self.num_envs  # the whole episode's return and length so far
        self._len = [0] * self.num_envs
        self._held: tuple | None = None  # received rows: (ids, obs, rew, term, trunc, info)
        self._held_lists: tuple | None = None  # the same as Python lists, made once per batch
        self._next_row = 0  # first row of _held not yet taken into the episodes
        self._carry: list[Episode] = []  # episodes finished by a call that raised
        self._started = False  # the pool has been reset once
        self._needs_reset = True

        # Counters (get_state) and metrics since the last get_metrics().
        self._metrics = SampleMetrics()

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
        done, self._carry = self._carry, []
        target = None if num_episodes is None else num_episodes + len(done)
        steps = 0
        use_random = random_actions or self.policy is None
        try:
            while True:
                if self._held is not None and self._next_row < len(self._held[0]):
                    steps = self._consume(done, steps, num_timesteps, target)
                    if (num_timesteps is not None and steps >= num_timesteps) or (
                        target is not None and len(done) >= target
                    ):
                        break
                    continue
                self._act(use_random)
        except BaseException:
            # The policy or the pool raised: keep what this call sampled for the next call.
            self._carry = done
            raise
        finally:
            self._metrics.add_steps(steps, time.perf_counter() - t0)
        if num_episodes is not None:
            samples = done
            self._needs_reset = True  # the episodes still running were dropped
        else:
            samples = done + self._cut_chunks()
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
        return self._metrics.report()

    def get_state(self) -> dict[str, Any]:
        """The lifetime counters, for checkpoints (the envs' own states and the ongoing
        episodes are not part of it)."""
        return self._metrics.state()

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`get_state` returned (keys missing from ``state`` are kept)."""
        self._metrics.load(state)

    # -- internals ---------------------------------------------------------------------------

    def _new_episode(self, env: int) -> Episode:
        ep = Episode(env)
        self._episodes[env] = ep
        self._ret[env] = 0.0
        self._len[env] = 0
        for hook in self._hooks["on_episode_created"]:
            hook(episode=ep, env_runner=self, env_index=env)
        return ep

    def _reset_all(self) -> None:
        """Drop ongoing episodes and start new ones in every env."""
        if not self._async:
            for env in range(self.num_envs):
                self._new_episode(env)
            t = time.perf_counter()
            obs, info = self.envs.reset()
            self._metrics.env_time += time.perf_counter() - t
            n = self.num_envs
            self._hold((np.arange(n), obs, np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), info))
        elif not self._started:
            for env in range(self.num_envs):
                self._new_episode(env)
            t = time.perf_counter()
            self.envs.async_reset()
            self._metrics.env_time += time.perf_counter() - t
            self._hold(None)
        else:
            # Envs in flight can't be reset now: each one's next row is dropped and the env reset
            # then. Rows already received are dropped too (their envs are reset at the next send).
            self._discard[:] = True
            self._discarding = True
            for env in range(self.num_envs):
                self._new_episode(env)
            if self._held is not None:
                self._next_row = len(self._held[0])
        self._started = True
        self._needs_reset = False

    def _actions(self, obs: Any, n: int, use_random: bool):
        t = time.perf_counter()
        if use_random:
            space = self._batched_spaces.get(n)
            if space is None:
                space = batch_space(self._space, n)
                space.seed(None if self._seed is None else self._seed + n)
                self._batched_spaces[n] = space
            actions, extras = space.sample(), {}
        else:
            out = self.policy(obs)
            if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict):
                actions, extras = out
            else:
                actions, extras = out, {}
            actions = to_numpy(actions)
            extras = {k: to_numpy(v) for k, v in extras.items()}
            rows = len(actions) if not isinstance(actions, dict) else None
            if rows is not None and rows != n:
                raise ValueError(f"policy returned {rows} actions for a batch of {n} observations")
            for k, v in extras.items():
                if np.ndim(v) == 0 or len(v) != n:
                    raise ValueError(
                        f"policy extras[{k!r}] must have one row per observation ({n}), got shape {np.shape(v)}"
                    )
        self._metrics.policy_time += time.perf_counter() - t
        return actions, extras

    def _act(self, use_random: bool) -> None:
        """Give every env of the held batch its next action (or reset), then receive the next
        batch of rows."""
        if self._held is None:  # a batch is due: after async_reset, or a step/recv interrupted
            t = time.perf_counter()
            self._receive(None)
            self._metrics.env_time += time.perf_counter() - t
            return
        ids, obs = self._held[0], self._held[1]
        term, trunc = self._held[3], self._held[4]
        # The batch's env ids as a Python list (made once per batch; _consume made it already).
        ids_l = self._held_lists[0] if self._held_lists is not None else np.asarray(ids).tolist()
        disabled = self._mode == AutoresetMode.DISABLED
        # Rows whose env must be reset rather than stepped. Usually none: skip the per-batch
        # array work then (an async pool pays this per half batch).
        needs_reset = self._discard[ids] if self._discarding else None
        if disabled:
            # A row that ended an episode (and was not already replaced by a reset row).
            ended = (term | trunc) & np.array([len(self._episodes[e].observations) == 0 for e in ids_l])
            needs_reset = ended if needs_reset is None else needs_reset | ended
        if needs_reset is not None and not needs_reset.any():
            needs_reset = None
        if not self._async and needs_reset is not None:
            # Full batch, autoreset disabled: reset the ended envs, take their reset rows now.
            t = time.perf_counter()
            new_obs, info = self.envs.reset(options={"reset_mask": needs_reset})
            self._metrics.env_time += time.perf_counter() - t
            for i in np.flatnonzero(needs_reset).tolist():
                self._start(ids_l[i], row_of(new_obs, i), info_row(info, i) if self.keep_infos else None)
            obs = replace_rows(obs, new_obs, needs_reset)
            needs_reset = None
        n = len(ids_l)
        actions, extras = self._actions(obs, n, use_random)
        action_rows = rows_of(actions, n)
        pending = self._pending
        t = time.perf_counter()
        if not self._async:
            for i, env in enumerate(ids_l):
                pending[env] = (action_rows[i], extras, i)
            # Until the results are in, a batch is due: if step() is interrupted (Ctrl-C, a
            # timeout), the pool hands the batch to the next recv(), and so does the runner.
            self._hold(None)
            try:
                result = self.envs.step(actions)
            except EnvError as err:
                self._hold_failed(err, ids)
                raise
            self._hold((ids,) + tuple(result[:4]) + (result[4],))
        else:
            # Send first, so that these envs step while the runner records what it sent and
            # waits for the other envs' batch (which stepped while the policy ran).
            if needs_reset is None:
                self.envs.send(actions, ids)
                for i, env in enumerate(ids_l):
                    pending[env] = (action_rows[i], extras, i)
            else:
                sel = np.flatnonzero(~needs_reset)
                reset_ids = ids[needs_reset]
                self.envs.async_reset(reset_ids)
                self._discard[reset_ids] = False
                self._discarding = bool(self._discard.any())
                if len(sel):
                    self.envs.send(take(actions, sel), ids[sel])
                for i in sel.tolist():
                    pending[ids_l[i]] = (action_rows[i], extras, i)
            self._hold(None)  # as above: a batch is due
            self._receive(None)
        self._metrics.env_time += time.perf_counter() - t

    def _hold(self, held: tuple | None) -> None:
        self._held, self._held_lists, self._next_row = held, None, 0

    def _hold_failed(self, err: EnvError, ids) -> None:
        """An env failed: the pool still returned the batch (``err.result``, the failed envs'
        rows truncated). Keep it, so the episodes stay consistent: the caller sees the error, and
        the next ``sample`` takes those rows in (the failed envs' episodes end truncated)."""
        if err.result is None:
            return
        obs, rew, term, trunc, info = err.result
        if ids is None:
            ids = np.asarray(info["env_id"])
        self._hold((ids, obs, rew, term, trunc, info))

    def _receive(self, ids) -> None:
        """Hold the next batch from ``recv()`` (an env failure's batch too, then re-raise)."""
        try:
            obs, rew, term, trunc, info = self.envs.recv()
        except EnvError as err:
            self._hold_failed(err, ids)
            raise
        self._hold((np.asarray(info["env_id"]), obs, rew, term, trunc, info))

    def _start(self, env: int, obs: Any, info: dict | None) -> None:
        ep = self._episodes[env]
        ep.observations.append(obs)
        if info is not None:
            ep.infos.append(info)
        for hook in self._hooks["on_episode_start"]:
            hook(episode=ep, env_runner=self, env_index=env)

    def _consume(self, done: list[Episode], steps: int, num_timesteps: int | None, num_episodes: int | None) -> int:
        """Take held rows into the episodes until the call's target is met or the rows run out.
        The per-row work is on Python lists (made once per batch): it bounds the runner's speed."""
        ids, obs, rew, term, trunc, info = self._held
        if self._held_lists is None:
            n = len(ids)
            self._held_lists = (
                np.asarray(ids).tolist(),
                np.asarray(rew, dtype=np.float64).tolist(),
                np.asarray(term).tolist(),
                np.asarray(trunc).tolist(),
                rows_of(obs, n),
            )
        ids_l, rew_l, term_l, trunc_l, obs_rows = self._held_lists
        same_step = self._mode == AutoresetMode.SAME_STEP
        disabled = self._mode == AutoresetMode.DISABLED
        final_obs = info.get("final_obs") if same_step else None
        final_mask = info.get("_final_obs") if same_step else None
        keep_infos = self.keep_infos
        step_hooks = self._hooks["on_episode_step"]
        discarding, discard = self._discarding, self._discard
        episodes, pending, ret, length = self._episodes, self._pending, self._ret, self._len
        i = self._next_row
        n = len(ids_l)
        while i < n:
            row = i
            i += 1
            env = ids_l[row]
            if discarding and discard[env]:
                continue
            ep = episodes[env]
            if not ep.observations:  # a reset row: the episode's first observation
                if disabled and (term_l[row] or trunc_l[row]):
                    continue  # full batch, disabled: the ended env's row, replaced at the next send
                self._start(env, obs_rows[row], info_row(info, row) if keep_infos else None)
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
                hook(episode=ep, env_runner=self, env_index=env)
            if terminated or truncated:
                ep.terminated, ep.truncated = bool(terminated), bool(truncated)
                done.append(ep._finalized())
                self._metrics.add_episode(ret[env], length[env])
                for hook in self._hooks["on_episode_end"]:
                    hook(episode=ep, env_runner=self, env_index=env)
                self._new_episode(env)
                if same_step:
                    self._start(env, obs_rows[row], info_row(info, row) if keep_infos else None)
                if num_episodes is not None and len(done) >= num_episodes:
                    break
            if num_timesteps is not None and steps >= num_timesteps:
                break
        self._next_row = i
        return steps

    def _cut_chunks(self) -> list[Episode]:
        """Chunks of the ongoing episodes (with at least one step in this call); their
        continuations become the current episodes."""
        chunks = []
        for env, ep in enumerate(self._episodes):
            if ep is not None and len(ep) and not self._discard[env]:
                chunks.append(ep._finalized())
                self._episodes[env] = ep._continuation()
        return chunks
