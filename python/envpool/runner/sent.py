"""The actions the runner sent, for :class:`~envpool.runner.columns.ColumnRecorder`:
:class:`SentActions` keeps each sent batch (what a step record's action index refers to until
the log is cut) and each stream's last action index."""

from __future__ import annotations

from typing import Any

import numpy as np

from envpool.runner.trees import concat_tree, take


class SentActions:
    """The action batches sent to the pool, each row with a running index, the policy's extras
    beside them, and per stream the index of its last action: ``last_base + stream`` where
    ``last_base`` is not None (the last batch went to every stream in order, as a full-batch
    pool's always do: then no per-stream array is written per batch), else ``last[stream]``."""

    batches: list[tuple[int, int, Any, dict]]  # (index of the first row, rows, actions, extras)
    next_index: int
    last: np.ndarray
    last_base: int | None
    in_order: np.ndarray  # 0, 1, ..., num_streams - 1: a batch of every stream in order
    in_order_ids: Any  # the last batch ids found equal to in_order (a full-batch pool keeps them)
    _aranges: np.ndarray  # 0, 1, 2, ...: the rows of a sent batch

    def __init__(self, num_streams: int) -> None:
        self.batches, self.next_index = [], 0
        self.last, self.last_base = np.zeros(num_streams, np.int64), None
        self.in_order = np.arange(num_streams)
        self.in_order_ids = None
        self._aranges = np.arange(num_streams + 1)

    def forget(self) -> None:
        """Drop the batches (every env starts anew). The indices keep counting: a stream's last
        action index (which may be from before this) stays below those of the actions sent from
        now on."""
        self.batches = []

    def all_in_order(self, ids: Any) -> bool:
        """Whether a batch's rows are every stream in order (the same ids object is checked once)."""
        if ids is self.in_order_ids:
            return True
        if len(ids) != len(self.in_order) or not np.array_equal(ids, self.in_order):
            return False
        self.in_order_ids = ids
        return True

    def add(self, ids: np.ndarray, actions: Any, extras: dict, whole: bool) -> None:
        """A batch sent to streams ``ids`` (``whole``: the batch was sent as the pool gave it)."""
        n = len(ids)
        first = self.next_index
        self.batches.append((first, n, actions, extras))
        self.next_index += n
        if whole and (ids is self.in_order_ids or self.all_in_order(ids)):
            self.last_base = first
            return
        self.last = self.last_actions()
        self.last_base = None
        if len(self._aranges) < n:
            self._aranges = np.arange(2 * n)
        self.last[ids] = first + self._aranges[:n]

    def last_actions(self) -> np.ndarray:
        """Each stream's last action index as an array (not to be changed by the caller)."""
        return self.last if self.last_base is None else self.in_order + self.last_base

    def oldest_last(self) -> int:
        """The smallest of the streams' last action indices."""
        return self.last_base if self.last_base is not None else int(self.last.min())

    def drop_before(self, index: int) -> None:
        """Forget the batches whose rows all come before ``index`` (nothing refers to them)."""
        keep = len(self.batches)
        while keep and self.batches[keep - 1][0] + self.batches[keep - 1][1] > index:
            keep -= 1
        del self.batches[:keep]

    def gather(self, index: np.ndarray) -> tuple[Any, dict[str, tuple[np.ndarray, np.ndarray | None]]]:
        """The action rows and the extras rows of ``index``; entries below the first kept
        batch's (start records': they have no action) give any row. Extras by name:
        ``(values, present)``; ``present`` is None when every batch had that name, else says
        which rows have a value (a step's extras come from its batch)."""
        first = self.batches[0][0]
        pos = np.maximum(index - first, 0)
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
            extras[name] = (values[np.maximum(rows, 0)], rows >= 0)
        return actions, extras
