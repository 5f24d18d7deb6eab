"""The runner's whole-batch bookkeeping, :class:`ColumnRecorder`: the rows a batch brings are
logged as the batch's own arrays (a handful of NumPy operations per batch, none per row; none
at all for a full batch that cannot reach the call's step limit), and the log is cut into
:class:`Episode` objects once per ``sample()`` call (whole-array work, then one small object
per episode, :mod:`envpool.runner.cut`). The runner uses it where nothing needs an
episode while it grows: no episode callbacks, no kept infos, autoreset ``next_step`` or
``same_step``, one agent per env. Elsewhere :class:`~envpool.runner.recorder.EpisodeRecorder`
takes rows one by one; both give the same episodes (``tests/runner/test_recorder.py`` holds
them to each other).

The log holds *records*, in the order the rows were taken: a *start* record (an episode's first
observation: a reset row, the reset observation a same-step row brings, or the carried last
observation of an episode that goes on from an earlier call) or a *step* record (the action's
index in the sent log, the reward, the flags and the observation after the step). Sorted by
stream (stable, so each stream's records stay in time order), every start record begins an
episode and the step records after it, up to the next start, are its steps."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envpool.runner.cut import GoingOn, SortedLog, cut
from envpool.runner.episodes import Episode
from envpool.runner.metrics import SampleMetrics
from envpool.runner.pending import PendingBatches
from envpool.runner.recorder import HeldRows, StaleRows
from envpool.runner.sent import SentActions
from envpool.runner.trees import concat_tree, take


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
    # Per stream: its next row is a reset row (no episode observation yet), and how many are.
    # Replaced, never changed in place, by a batch of every stream in order (the fast path):
    # that batch's log record holds the array it replaced as its start flags.
    _fresh: np.ndarray
    _pending: PendingBatches  # full batches consume() put aside
    _late_steps: int  # the steps of pending batches a cut logged (settle() reports them)
    _going: GoingOn  # per stream: the episode its first record in the log goes on
    # Records: (streams, is_start, obs, action index, reward, terminated, truncated, base);
    # a step's action index is its ``action index + base`` (base: 0, or a batch of every stream
    # in order holds 0, 1, 2, ... and its first action's index).
    _log: list[tuple]
    _sent: SentActions  # the actions sent, and each stream's last
    _carried: list[Episode]  # finished episodes a failed call left for this call

    def __init__(self, num_streams: int, mode: AutoresetMode, metrics: SampleMetrics):
        super().__init__(num_streams)
        self._metrics = metrics
        self._same_step = mode == AutoresetMode.SAME_STEP
        self._sent = SentActions(num_streams)
        self._pending = PendingBatches(num_streams)
        self._going = GoingOn(num_streams)
        self.new_episodes()
        self.begin([])

    def new_episodes(self) -> None:
        self._fresh = np.ones(len(self._sent.in_order), bool)
        self._pending.clear()
        self._late_steps = 0
        self._going.clear()
        # The sent rows' indices keep counting: a stream's last action index (which may be from
        # before this) stays below those of the actions sent from now on.
        self._log = []
        self._sent.forget()

    def begin(self, carried: list[Episode]) -> None:
        self._carried, self.num_done = list(carried), len(carried)

    def record_sent(self, ids: np.ndarray, actions: Any, extras: dict, sel: np.ndarray | None = None) -> None:
        if sel is not None:
            ids, actions, extras = ids[sel], take(actions, sel), {k: v[sel] for k, v in extras.items()}
        self._sent.add(ids, actions, extras, sel is None)

    def consume(self, held: HeldRows, steps: int, limits: tuple) -> int:
        """Log the held rows (up to a limit, ``(num_timesteps, num_episodes)``); returns the call's
        step count, not counting the pending batches (see :meth:`settle`).

        A batch of every stream in order (a full-batch pool's), next-step autoreset, that cannot
        reach ``num_timesteps`` even if every row were a step, is only put aside as it is: no
        NumPy operation per batch (each costs about what the pool's step of 16 CartPoles
        does). Its flags and step count are worked out with the other pending batches', all at
        once, when the limit comes near or the log is cut."""
        ids, obs, rew, term, trunc, _ = held.batch
        base, limit = self._sent.last_base, limits[0]
        if (
            base is None
            or limit is None
            or held.next
            or self.discarding
            or self._same_step
            or (ids is not self._sent.in_order_ids and not self._sent.all_in_order(ids))
        ):
            return self._consume_rows(held, steps + self.settle(), limits)
        n = len(ids)
        if steps + self._pending.rows + n >= limit:
            steps += self.settle()
            if steps + n >= limit:  # the limit may fall in this batch
                return self._consume_rows(held, steps, limits)
        if not self._pending.put(obs, rew, term, trunc, base):  # (nested or unusual arrays)
            return self._consume_rows(held, steps + self.settle(), limits)
        held.next = n
        return steps

    def settle(self) -> int:
        """Log the pending batches as one record; the steps they held (and those of pending
        batches a cut logged since the last call), which ``consume`` has not counted."""
        if self._pending.count:
            self._late_steps += self._log_pending()
        late, self._late_steps = self._late_steps, 0
        return late

    def _log_pending(self) -> int:
        """The pending batches as one record: a row starts an episode where its stream's row in
        the batch before ended one (or, for the first batch, where the stream is fresh). Returns
        their steps."""
        in_order = self._sent.in_order
        n, k = len(in_order), self._pending.count
        obs, rew, term, trunc, bases = self._pending.take()
        ended = term | trunc
        start = np.empty(k * n, bool)
        start[:n] = self._fresh
        start[n:] = ended[:-n]
        if (ended & start).any():  # a reset row that reads ended (a failed reset) is no step
            start, ended = _flags_batch_by_batch(self._fresh, ended.reshape(k, n))
        action = (bases[:, None] + in_order).ravel()
        self._log.append((np.tile(in_order, k), start, obs, action, rew, term, trunc, 0))
        self._fresh = ended[-n:].copy()  # an ended episode's env sends a reset row next
        self.num_done += int(np.count_nonzero(ended))
        return k * n - int(np.count_nonzero(start))

    def _consume_rows(self, held: HeldRows, steps: int, limits: tuple) -> int:
        """``consume`` for any batch: from row ``held.next``, without stale rows, up to a limit."""
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
        action = self._sent.last_actions()[streams]
        if num_start:
            action[start] = -1  # a start record has no action
        if index is None:
            record = (streams, start, obs, action, rew, term, trunc, 0)
        else:
            record = (streams, start, take(obs, index), action, rew[index], term[index], trunc[index], 0)
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
        self._log.append((streams[done_rows], ~false, restart, np.full(k, -1), np.zeros(k), false, false, 0))

    def end(self, chunks: bool) -> list[Episode]:
        """The episodes finished in this call (in the order they finished, after those carried
        from a failed call), and with ``chunks`` the ongoing ones' chunks (by stream), whose
        continuations go on. Without ``chunks`` the ongoing episodes stay whole in the log."""
        out = self._carried
        if self._log:
            out = out + self._cut(chunks)
        self.begin([])
        return out

    def _cut(self, chunks: bool) -> list[Episode]:
        if self._pending.count:
            self._late_steps += self._log_pending()
        log = self._log
        columns = [concat_tree([r[j] for r in log]) for j in range(7)]
        bases = [r[7] for r in log]
        if any(bases):
            columns[3] = columns[3] + np.repeat(bases, [len(r[0]) for r in log])
        log = SortedLog(columns, self._sent, len(self._sent.in_order) <= 1 << 16)
        finished, cut_chunks, returns, lengths, kept_from, kept_to = cut(log, self._going, chunks)
        self._metrics.add_episodes(returns, lengths)
        kept = log.relog(kept_from, kept_to)
        self._log = [] if kept is None else [kept + (0,)]
        if chunks:
            # Every kept record is a start: only actions still to be taken are needed, and each
            # of those is its stream's last, so none before the oldest last action.
            self._sent.drop_before(self._sent.oldest_last())
        return finished + cut_chunks


def _flags_batch_by_batch(fresh: np.ndarray, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and ended flags of ``ended.shape[0]`` batches of every stream, one batch after the
    other (``ended``: terminated or truncated, changed in place): a fresh stream's row starts
    an episode and ends none."""
    start = np.empty_like(ended)
    for j in range(len(ended)):
        start[j] = fresh
        ended[j] &= ~fresh
        fresh = ended[j]
    return start.ravel(), ended.ravel()


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
