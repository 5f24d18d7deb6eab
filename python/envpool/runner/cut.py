"""Cutting :class:`~envpool.runner.columns.ColumnRecorder`'s log into episodes, every episode at
once: the log sorted by stream (:class:`SortedLog`), its segments (one per start record) found,
classified and summed with whole-array operations, and what is left per episode is making one
small object (:class:`LoggedEpisode`), whose arrays are views made when first read.

Why: CartPole under random actions ends an episode every ~22 steps, and every ``sample()`` call
returns a chunk of each env's ongoing episode, so a call makes ~0.05-0.3 episodes per env step.
An episode's Python loop body and its three or four array views cost more than the bare pool's
step of the 22 env steps it holds (bench/history.md, issue 43 item 5)."""

from __future__ import annotations

import os
from functools import reduce
from itertools import repeat
from operator import add
from typing import Any

import numpy as np

from envpool.runner.episodes import Episode
from envpool.runner.trees import take

_EXACT = 2.0**53  # integers below this add exactly in any order


class SortedLog:
    """The log's records sorted by stream (stable: each stream's records in time order), with
    the action and extras rows of their steps; ``order`` maps a sorted record to its place in
    the log (the time it was taken in)."""

    def __init__(self, columns: tuple, sent: Any, small_keys: bool) -> None:
        streams, start, obs, action, rew, term, trunc = columns
        # 16-bit keys (``small_keys``: every stream id fits) sort as radix: 4x faster.
        keys = streams.astype(np.uint16) if small_keys else streams
        order = np.argsort(keys, kind="stable")
        self.order, self.start = order, start[order]
        # In log order (gathered where read: the segments' first and last records, kept runs).
        self.log_streams, self.term, self.trunc = streams, term, trunc
        # A start record's action slot is never read (it may name an action that was forgotten).
        self.action = action[order]
        self.rewards = rew[order].astype(np.float64, copy=False)
        self.obs = take(obs, order)
        self.actions, self.extras = sent.gather(self.action) if sent.batches else (None, {})
        self.plain = isinstance(self.obs, np.ndarray) and isinstance(self.actions, np.ndarray)
        self.heads = np.flatnonzero(self.start)  # each segment's start record ...
        self.ends = np.append(self.heads[1:], len(order))  # ... and the one after its last

    def relog(self, kept_from: np.ndarray, kept_to: np.ndarray) -> tuple | None:
        """One log record holding sorted records ``kept_from[j]`` to ``kept_to[j]`` (exclusive);
        each run's first record becomes a start (its episode's first observation, or a cut
        chunk's last). None: nothing is kept."""
        if not len(kept_from):
            return None
        runs = kept_to - kept_from
        at = np.cumsum(runs) - runs  # where each run begins in the new record
        idx = np.arange(int(at[-1] + runs[-1])) + np.repeat(kept_from - at, runs)
        is_start = np.zeros(len(idx), bool)
        is_start[at] = True
        action = np.where(is_start, -1, self.action[idx])
        in_log = self.order[idx]
        return (
            self.log_streams[in_log],
            is_start,
            take(self.obs, idx),
            action,
            self.rewards[idx],
            self.term[in_log],
            self.trunc[in_log],
        )

    def extras_of(self, head: int, end: int) -> dict[str, np.ndarray]:
        """The extras of the episode whose records are ``head`` to ``end`` (exclusive)."""
        steps = slice(head + 1, end)
        out = {}
        for name, (values, present) in self.extras.items():
            if present is None:
                out[name] = values[steps]
            elif present[steps].any():  # (an episode has a name only if one of its steps has)
                out[name] = values[steps][present[steps]]
        return out


class GoingOn:
    """Per stream, the episode whose first record in the log goes on from before the log's
    last cut: its id, its steps before that record (``t0``), and its return and length so
    far. ``has`` says which streams have one."""

    def __init__(self, num_streams: int) -> None:
        self.ids = np.full(num_streams, None, object)
        self.t0 = np.zeros(num_streams, np.int64)
        self.ret = np.zeros(num_streams, np.float64)
        self.len = np.zeros(num_streams, np.int64)
        self.clear()

    def clear(self) -> None:
        self.has = np.zeros(len(self.ids), bool)


def cut(log: SortedLog, going: GoingOn, chunks: bool) -> tuple[list, list, list, list, np.ndarray, np.ndarray]:
    """The finished episodes (in the order they ended) and with ``chunks`` the ongoing ones'
    chunks (by stream); the finished ones' returns and lengths; and the runs of sorted records
    the ongoing episodes still need (``kept_from``, ``kept_to``). Updates ``going``."""
    heads, ends = log.heads, log.ends
    last = ends - 1
    n = last - heads  # steps per segment
    streams = log.log_streams[log.order[heads]]
    first = np.ones(len(heads), bool)  # the stream's first segment: the one that may go on
    first[1:] = streams[1:] != streams[:-1]
    carried = first & going.has[streams]
    t0 = np.where(carried, going.t0[streams], 0)
    len0 = np.where(carried, going.len[streams], 0)
    ret0 = np.where(carried, going.ret[streams], 0.0)
    ids = going.ids[streams]
    fresh = np.flatnonzero(~carried)
    if len(fresh):
        hexes = os.urandom(16 * len(fresh)).hex()  # 32 hex digits per new episode's id
        ids[fresh] = [hexes[i : i + 32] for i in range(0, len(hexes), 32)]
    at = log.order[last]  # when each segment's last record was taken
    term, trunc = log.term[at], log.trunc[at]
    stepped = n > 0
    done = stepped & (term | trunc)
    chunk = stepped & ~done if chunks else np.zeros(len(heads), bool)
    emitted = done | chunk
    ret = _returns(log, heads, last, ret0, emitted)
    length = len0 + n
    fin = np.flatnonzero(done)
    fin = fin[np.argsort(at[fin])]  # in the order they ended, as the per-row recorder has them
    ch = np.flatnonzero(chunk)
    finished = _episodes(log, fin, ids, streams, t0, term[fin].tolist(), trunc[fin].tolist())
    cut_chunks = _episodes(log, ch, ids, streams, t0, repeat(False), repeat(False))
    # What goes on: a chunk's continuation (from the chunk's last observation), or the whole
    # segment where nothing was cut.
    on = np.flatnonzero(~done)
    s = streams[on]
    going.clear()
    going.has[s] = True
    going.ids[s] = ids[on]
    cont = chunk[on]
    going.t0[s] = np.where(cont, t0[on] + n[on], t0[on])
    going.ret[s] = np.where(cont, ret[on], ret0[on])
    going.len[s] = np.where(cont, length[on], len0[on])
    kept_from = np.where(cont, last[on], heads[on])
    return finished, cut_chunks, ret[fin].tolist(), length[fin].tolist(), kept_from, ends[on]


def _episodes(log: SortedLog, segs: np.ndarray, ids, streams, t0, term, trunc) -> list[Episode]:
    """Segments ``segs`` as episodes: a Python loop, the one per-episode cost left."""
    out = []
    append, new, unread = out.append, LoggedEpisode.__new__, _UNREAD
    heads, ends = log.heads[segs].tolist(), log.ends[segs].tolist()
    for h, e, ep_id, env, t, te, tr in zip(
        heads, ends, ids[segs].tolist(), streams[segs].tolist(), t0[segs].tolist(), term, trunc
    ):
        ep = new(LoggedEpisode)
        ep.id, ep.env_id, ep.t_started, ep.terminated, ep.truncated, ep.infos = ep_id, env, t, te, tr, []
        ep._log, ep._h, ep._e, ep._obs, ep._act, ep._rew, ep._ext = log, h, e, unread, unread, unread, unread
        append(ep)
    return out


_UNREAD = object()  # a LoggedEpisode field whose view is not made yet


class LoggedEpisode(Episode):
    """An :class:`Episode` cut from the log, whose arrays (observations, actions, rewards,
    extras) are views of the sorted log made when first read, then kept: records ``_h`` (its
    start) to ``_e`` (exclusive). Why: a call returns ~0.05-0.3 episodes per env step, and
    making the views costs ~5k instructions an episode (callgrind), more than the bare pool's
    step of the ~22 env steps a CartPole episode holds; a caller that only counts episodes, or
    reads some fields of some, does not pay for the rest. Read, a field costs ~1.4x what making
    it at the cut did (properties over set slots; ``__getattr__`` on unset slots was tried:
    Python raises and catches an AttributeError first, ~9k instructions a field). It pickles
    (and copies) as a plain :class:`Episode`."""

    __slots__ = ("_act", "_e", "_ext", "_h", "_log", "_obs", "_rew")

    @property
    def observations(self) -> Any:
        if self._obs is _UNREAD:
            log = self._log
            self._obs = log.obs[self._h : self._e] if log.plain else take(log.obs, slice(self._h, self._e))
        return self._obs

    @observations.setter
    def observations(self, value: Any) -> None:
        self._obs = value

    @property
    def actions(self) -> Any:
        if self._act is _UNREAD:
            log = self._log
            steps = slice(self._h + 1, self._e)
            self._act = log.actions[steps] if log.plain else take(log.actions, steps)
        return self._act

    @actions.setter
    def actions(self, value: Any) -> None:
        self._act = value

    @property
    def rewards(self) -> Any:
        if self._rew is _UNREAD:
            self._rew = self._log.rewards[self._h + 1 : self._e]
        return self._rew

    @rewards.setter
    def rewards(self, value: Any) -> None:
        self._rew = value

    @property
    def extras(self) -> dict[str, Any]:
        if self._ext is _UNREAD:
            self._ext = self._log.extras_of(self._h, self._e) if self._log.extras else {}
        return self._ext

    @extras.setter
    def extras(self, value: dict[str, Any]) -> None:
        self._ext = value

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in Episode.__slots__}

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return _plain_episode, (self.__getstate__(),)


def _plain_episode(state: dict[str, Any]) -> Episode:
    """A :class:`LoggedEpisode`'s fields as a plain :class:`Episode` (unpickled, copied): it no
    longer holds the whole sorted log."""
    ep = Episode.__new__(Episode)
    ep.__setstate__(state)
    return ep


def _returns(log: SortedLog, heads: np.ndarray, last: np.ndarray, ret0: np.ndarray, need: np.ndarray) -> np.ndarray:
    """Each segment's return: ``ret0`` plus its steps' rewards, added one by one in time order
    (as the per-row recorder does, ``return += reward``), for the segments in ``need`` (the
    others: ``ret0``). Where every reward and every ``ret0`` is an integer and all of them add
    up to less than 2**53 in magnitude, every partial sum is exact, so differences of one
    cumulative sum give the same values with whole-array operations (CartPole, most Atari
    and grid worlds); otherwise the sums are taken segment by segment."""
    rew = log.rewards  # (a start record's reward is in the sums, never in a difference)
    total = float(np.abs(rew).sum()) + (float(np.abs(ret0).max()) if len(ret0) else 0.0)
    if total < _EXACT and (np.rint(rew) == rew).all() and (np.rint(ret0) == ret0).all():
        sums = np.cumsum(rew)
        return ret0 + (sums[last] - sums[heads])
    ret = ret0.copy()
    segs = np.flatnonzero(need)
    rewards = log.rewards.tolist()
    steps = map(slice, (heads[segs] + 1).tolist(), (last[segs] + 1).tolist())
    ret[segs] = list(map(reduce, repeat(add), map(rewards.__getitem__, steps), ret0[segs].tolist()))
    return ret
