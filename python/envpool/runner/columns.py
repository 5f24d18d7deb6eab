"""The runner's whole-batch bookkeeping, :class:`ColumnRecorder`: the rows a batch brings are
logged as the batch's own arrays (a handful of NumPy operations per batch, none per row), and
the log is cut into :class:`Episode` objects once per ``sample()`` call (Python work per
episode, not per env step). The runner uses it where nothing needs an episode while it grows:
no episode callbacks, no kept infos, autoreset ``next_step`` or ``same_step``, one agent per
env. Elsewhere :class:`~envpool.runner.recorder.EpisodeRecorder` takes rows one by one; both
give the same episodes (``tests/runner/test_recorder.py`` holds them to each other).

The log holds *records*, in the order the rows were taken: a *start* record (an episode's first
observation: a reset row, the reset observation a same-step row brings, or the carried last
observation of an episode that goes on from an earlier call) or a *step* record (the action's
index in the sent log, the reward, the flags and the observation after the step). Sorted by
stream (stable, so each stream's records stay in time order), every start record begins an
episode and the step records after it, up to the next start, are its steps."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envpool.runner.episodes import Episode
from envpool.runner.metrics import SampleMetrics
from envpool.runner.recorder import HeldRows, StaleRows
from envpool.runner.trees import concat_tree, take


class _SentActions:
    """The action batches sent to the pool, each row with a running index, and the policy's
    extras beside them; what a step record refers to until the log is cut."""

    batches: list[tuple[int, int, Any, dict]]  # (index of the first row, rows, actions, extras)
    next_index: int

    def __init__(self) -> None:
        self.batches, self.next_index = [], 0

    def add(self, actions: Any, extras: dict, n: int) -> int:
        first = self.next_index
        self.batches.append((first, n, actions, extras))
        self.next_index += n
        return first

    def drop_before(self, index: int) -> None:
        """Forget the batches whose rows all come before ``index`` (nothing refers to them)."""
        keep = len(self.batches)
        while keep and self.batches[keep - 1][0] + self.batches[keep - 1][1] > index:
            keep -= 1
        del self.batches[:keep]

    def gather(self, index: np.ndarray) -> tuple[Any, dict[str, tuple[np.ndarray, np.ndarray | None]]]:
        """The action rows and the extras rows of ``index`` (entries < 0: any row, unused).
        Extras by name: ``(values, present)``; ``present`` is None when every batch had that
        name, else says which rows have a value (a step's extras come from its batch)."""
        first = self.batches[0][0]
        pos = np.where(index >= 0, index - first, 0)
        actions = take(concat_tree([b[2] for b in self.batches]), pos)
        extras = {}
        names = {k for b in self.batches for k in b[3]}
        for name in names:
            have = [b for b in self.batches if name in b[3]]
            values = np.concatenate([b[3][name] for b in have])
            if len(have) == len(self.batches):
                extras[name] = (values[pos], None)
                continue
            where = np.full(self.next_index - first, -1, np.int64)  # sent row -> row of `values`
            at = 0
            for b in have:
                where[b[0] - first : b[0] - first + b[1]] = np.arange(at, at + b[1])
                at += b[1]
            rows = where[pos]
            extras[name] = (values[np.maximum(rows, 0)], (rows >= 0) & (index >= 0))
        return actions, extras


def _set_row(tree: Any, i: int, row: Any) -> None:
    if isinstance(tree, dict):
        for k in tree:
            _set_row(tree[k], i, row[k])
    elif isinstance(tree, tuple):
        for t, r in zip(tree, row):
            _set_row(t, i, r)
    else:
        tree[i] = row


def _copy_tree(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {k: _copy_tree(v) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(_copy_tree(v) for v in tree)
    return np.array(tree)


class ColumnRecorder(StaleRows):
    """Each stream's episodes, kept as a log of whole-batch records (see the module)."""

    num_done: int  # episodes finished in this sample() call (and carried from a failed one)
    _metrics: SampleMetrics
    _same_step: bool
    _fresh: np.ndarray  # per stream: its next row is a reset row (no episode observation yet)
    _action: np.ndarray  # per stream: the sent-row index of its last action
    _going_on: list[tuple | None]  # per stream: (id, t_started, return, length) of the episode
    #   whose first record in the log is carried over from before the log's last cut, else None
    _log: list[tuple]  # records: (streams, is_start, obs, action index, reward, terminated, truncated)
    _sent: _SentActions
    _aranges: np.ndarray  # 0, 1, 2, ...: the rows of a sent batch
    _carried: list[Episode]  # finished episodes a failed call left for this call

    def __init__(self, num_streams: int, mode: AutoresetMode, metrics: SampleMetrics):
        super().__init__(num_streams)
        self._metrics = metrics
        self._same_step = mode == AutoresetMode.SAME_STEP
        self._fresh = np.ones(num_streams, bool)
        self._action = np.zeros(num_streams, np.int64)
        self._aranges = np.arange(num_streams + 1)
        self._sent = _SentActions()
        self.new_episodes()
        self.begin([])

    def new_episodes(self) -> None:
        self._fresh[:] = True
        self._going_on = [None] * len(self._fresh)
        # The sent rows' indices keep counting: a stream's last action index (which may be from
        # before this) stays below those of the actions sent from now on.
        self._log, self._sent.batches = [], []

    def begin(self, carried: list[Episode]) -> None:
        self._carried, self.num_done = list(carried), len(carried)

    def record_sent(self, ids: np.ndarray, actions: Any, extras: dict, sel: np.ndarray | None = None) -> None:
        if sel is not None:
            ids, actions, extras = ids[sel], take(actions, sel), {k: v[sel] for k, v in extras.items()}
        n = len(ids)
        self._action[ids] = self._sent.add(actions, extras, n) + self._arange(n)

    def _arange(self, n: int) -> np.ndarray:
        if len(self._aranges) < n + 1:
            self._aranges = np.arange(2 * n + 1)
        return self._aranges[:n]

    def consume(self, held: HeldRows, steps: int, limits: tuple) -> int:
        """Log the held rows (up to a limit, ``(num_timesteps, num_episodes)``); returns the call's
        step count. A few NumPy operations on the batch's arrays, whatever its size (they are
        what an async pool's small batches pay, so the common case does no more than it must)."""
        ids, obs, rew, term, trunc, info = held.batch
        first = held.next
        streams = ids
        index = None  # the batch rows taken (None: all)
        if first:
            index = np.arange(first, len(ids))
            streams = ids[first:]
            ended = term[first:] | trunc[first:]
        else:
            ended = term | trunc
        start = self._fresh[streams]
        num_start = int(np.count_nonzero(start))
        if num_start:
            ended &= ~start  # (a reset row is no step)
        if self.discarding:  # rows of envs that are reset instead are dropped
            keep = np.flatnonzero(~self.discard[streams])
            streams, start, ended = streams[keep], start[keep], ended[keep]
            index = keep + first
            num_start = int(np.count_nonzero(start))
        num_ended = int(np.count_nonzero(ended))
        cut = _limit(start, ended, len(streams) - num_start, num_ended, steps, self.num_done, limits)
        if cut is not None:
            streams, start, ended = streams[:cut], start[:cut], ended[:cut]
            index = np.arange(first, first + cut) if index is None else index[:cut]
            num_start, num_ended = int(np.count_nonzero(start)), int(np.count_nonzero(ended))
        held.next = len(ids) if cut is None else int(index[-1]) + 1
        action = self._action[streams]
        if num_start:
            action[start] = -1  # a start record has no action
        if index is None:
            record = (streams, start, obs, action, rew, term, trunc)
        else:
            record = (streams, start, take(obs, index), action, rew[index], term[index], trunc[index])
        self._log.append(record)
        if not self._same_step:
            self._fresh[streams] = ended  # an ended episode's env sends a reset row next
        else:
            self._fresh[streams] = False
            if num_ended:
                self._restart(ended, info, index)
        self.num_done += num_ended
        return steps + len(streams) - num_start

    def _restart(self, ended: np.ndarray, info: dict, index: np.ndarray | None) -> None:
        """Same-step autoreset: an ended row's observation starts its env's next episode (a start
        record after the log's last), and the ended one's last observation is the row's
        ``final_obs``."""
        streams, start, rows_obs = self._log[-1][:3]
        done_rows = np.flatnonzero(ended)
        restart = take(rows_obs, done_rows)
        final, has_final = info.get("final_obs"), info.get("_final_obs")
        if final is not None:
            if index is None:  # the batch's own arrays: the policy reads them next
                rows_obs = _copy_tree(rows_obs)
                self._log[-1] = (streams, start, rows_obs) + self._log[-1][3:]
            at = done_rows if index is None else index[done_rows]
            for k, row in zip(done_rows.tolist(), at.tolist()):
                if has_final[row]:
                    _set_row(rows_obs, k, final[row])
        k = len(done_rows)
        false = np.zeros(k, bool)
        self._log.append((streams[done_rows], ~false, restart, np.full(k, -1), np.zeros(k), false, false))

    def end(self, chunks: bool) -> list[Episode]:
        """The episodes finished in this call (in the order they finished, after those carried
        from a failed call), and with ``chunks`` the ongoing ones' chunks (by stream), whose
        continuations go on. Without ``chunks`` the ongoing episodes stay whole in the log."""
        finished, cut = self._cut(chunks)
        out = self._carried + finished + cut
        self.begin([])
        return out

    def _cut(self, chunks: bool) -> tuple[list[Episode], list[Episode]]:
        if not self._log:
            return [], []
        streams, start, obs, action, rew, term, trunc = (concat_tree([r[j] for r in self._log]) for j in range(7))
        # Stable, so each stream's records stay in time order (16-bit keys sort as radix: 4x faster).
        keys = streams.astype(np.uint16) if len(self._fresh) <= 1 << 16 else streams
        order = np.argsort(keys, kind="stable")
        streams, start, action = streams[order], start[order], action[order]
        rew, term, trunc = rew[order].astype(np.float64, copy=False), term[order], trunc[order]
        obs = take(obs, order)
        actions, extras = self._sent.gather(action) if self._sent.batches else (None, {})
        heads = np.flatnonzero(start)
        ends = np.append(heads[1:], len(streams))
        seg_streams = streams[heads]
        first_of_stream = np.ones(len(heads), bool)
        first_of_stream[1:] = seg_streams[1:] != seg_streams[:-1]
        last = ends - 1
        ended = (ends - heads > 1) & (term[last] | trunc[last])
        # Per segment, as Python values (the loop below is per episode, not per step).
        segments = zip(
            seg_streams.tolist(),
            heads.tolist(),
            ends.tolist(),
            first_of_stream.tolist(),
            ended.tolist(),
            term[last].tolist(),
            trunc[last].tolist(),
            order[last].tolist(),
        )
        rewards = rew.tolist()
        make = _EpisodeSlicer(obs, actions, rew, extras)
        fresh_ids = os.urandom(16 * len(heads)).hex()  # 32 hex digits per new episode's id
        finished, cut, kept_from, kept_to = [], [], [], []
        going_on, was_going_on = [None] * len(self._going_on), self._going_on
        for k, (s, h, e, first, done, terminated, truncated, at) in enumerate(segments):
            before = was_going_on[s] if first else None
            if before is None:
                ep_id, t0, ret0, len0 = fresh_ids[32 * k : 32 * k + 32], 0, 0.0, 0
            else:
                ep_id, t0, ret0, len0 = before
            n = e - h - 1
            ret = sum(rewards[h + 1 : e], ret0)  # summed in order, as the per-row recorder does
            if done:
                ep = make(s, ep_id, t0, h, e)
                ep.terminated, ep.truncated = terminated, truncated
                finished.append((at, ep, ret, len0 + n))
            elif chunks and n:
                cut.append(make(s, ep_id, t0, h, e))
                going_on[s] = (ep_id, t0 + n, ret, len0 + n)
                kept_from.append(e - 1)  # its last observation starts the continuation
                kept_to.append(e)
            else:
                going_on[s] = (ep_id, t0, ret0, len0)
                kept_from.append(h)
                kept_to.append(e)
        self._going_on = going_on
        finished.sort(key=lambda f: f[0])  # in the order they ended, as the per-row recorder has them
        self._metrics.add_episodes([f[2] for f in finished], [f[3] for f in finished])
        self._relog(kept_from, kept_to, streams, obs, action, rew, term, trunc, chunks)
        return [f[1] for f in finished], cut

    def _relog(self, kept_from, kept_to, streams, obs, action, rew, term, trunc, chunks: bool) -> None:
        """The log after a cut: records ``kept_from[j]`` to ``kept_to[j]`` (exclusive) of the
        sorted log, what the ongoing episodes still need of it; each run's first record is its
        episode's first observation (or, after a chunk was cut, that chunk's last)."""
        self._log = []
        if kept_from:
            starts, stops = np.array(kept_from), np.array(kept_to)
            runs = stops - starts
            at = np.cumsum(runs) - runs  # where each run begins in the new log
            idx = np.arange(int(runs.sum())) + np.repeat(starts - at, runs)
            is_start = np.zeros(len(idx), bool)
            is_start[at] = True
            action = np.where(is_start, -1, action[idx])
            self._log.append((streams[idx], is_start, take(obs, idx), action, rew[idx], term[idx], trunc[idx]))
        if chunks:
            # Every kept record is a start: only actions still to be taken are needed, and each
            # of those is its stream's last, so none before the oldest last action.
            self._sent.drop_before(int(self._action.min()))


class _EpisodeSlicer:
    """Episodes as slices of the sorted log's arrays: records ``head`` (the episode's start) to
    ``end`` (exclusive)."""

    def __init__(self, obs: Any, actions: Any, rewards: np.ndarray, extras: dict) -> None:
        self.obs, self.actions, self.rewards, self.extras = obs, actions, rewards, extras
        self.plain = isinstance(obs, np.ndarray) and isinstance(actions, np.ndarray)

    def __call__(self, stream: int, ep_id: str, t_started: int, head: int, end: int) -> Episode:
        ep = Episode.__new__(Episode)
        ep.id, ep.env_id, ep.t_started = ep_id, stream, t_started
        steps = slice(head + 1, end)
        if self.plain:
            ep.observations, ep.actions = self.obs[head:end], self.actions[steps]
        else:
            ep.observations, ep.actions = take(self.obs, slice(head, end)), take(self.actions, steps)
        ep.rewards = self.rewards[steps]
        ep.terminated = ep.truncated = False
        ep.infos = []
        ep.extras = {}
        for name, (values, present) in self.extras.items():
            if present is None:
                ep.extras[name] = values[steps]
            elif present[steps].any():  # (an episode has a name only if one of its steps has)
                ep.extras[name] = values[steps][present[steps]]
        return ep


def _limit(start, ended, num_steps: int, num_ended: int, steps: int, done: int, limits: tuple) -> int | None:
    """How many of the rows to take so that a limit is met exactly (None: all)."""
    num_timesteps, num_episodes = limits
    cut = None
    if num_timesteps is not None and steps + num_steps >= num_timesteps:
        cut = int(np.searchsorted(np.cumsum(~start), num_timesteps - steps)) + 1
    if num_episodes is not None and done + num_ended >= num_episodes:
        at = int(np.searchsorted(np.cumsum(ended), num_episodes - done)) + 1
        cut = at if cut is None else min(cut, at)
    return cut
