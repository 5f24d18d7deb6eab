"""Full batches :class:`~envpool.runner.columns.ColumnRecorder` puts aside: :class:`PendingBatches`."""

from __future__ import annotations

from typing import Any

import numpy as np


class PendingBatches:
    """Full batches (every stream in order) put aside until their flags are worked out, copied
    into rows of preallocated arrays. Why copied: the pool reuses a batch's arrays once nothing
    else refers to them, and makes new ones otherwise; four row copies cost about a third of
    that (callgrind, CartPole, 16 envs: ~10k against ~15k instructions a batch) and leave one
    contiguous block per field instead of arrays to concatenate."""

    count: int  # batches put aside
    rows: int  # their rows
    bases: list[int]  # each batch's first sent action index
    _num_streams: int
    _buffers: tuple | None  # obs, rewards, terminated, truncated: (capacity, num_streams, ...) each
    _spec: tuple | None  # what the buffers take: obs shape and the four dtypes

    def __init__(self, num_streams: int) -> None:
        self._num_streams = num_streams
        self._buffers = self._spec = None
        self.clear()

    def clear(self) -> None:
        self.count, self.rows, self.bases = 0, 0, []

    def put(self, obs: Any, rew: Any, term: Any, trunc: Any, base: int) -> bool:
        """Put a batch aside; False (nothing done) if its arrays are not the plain NumPy arrays
        of the shapes and dtypes the buffers hold (made for the first batch put aside)."""
        if type(obs) is not np.ndarray or type(rew) is not np.ndarray:
            return False
        spec = self._spec
        if spec is None or obs.shape != spec[0] or self.count == len(self._buffers[0]):
            return self._grow(obs, rew, term, trunc) and self.put(obs, rew, term, trunc, base)
        if (
            obs.dtype is not spec[1]
            or rew.dtype is not spec[2]
            or term.dtype is not spec[3]
            or trunc.dtype is not spec[3]
        ):
            return False
        if not (len(rew) == len(term) == len(trunc) == self._num_streams):
            return False
        k = self.count
        b_obs, b_rew, b_term, b_trunc = self._buffers
        b_obs[k] = obs
        b_rew[k] = rew
        b_term[k] = term
        b_trunc[k] = trunc
        self.count, self.rows = k + 1, self.rows + self._num_streams
        self.bases.append(base)
        return True

    def _grow(self, obs: np.ndarray, rew: np.ndarray, term: Any, trunc: Any) -> bool:
        """Buffers for this batch's layout with room for more batches (the ones put aside kept).
        False if the layout differs from the batches already put aside."""
        spec = (obs.shape, obs.dtype, rew.dtype, np.dtype(bool))
        if obs.shape[:1] != (self._num_streams,) or (self.count and spec[:3] != self._spec[:3]):
            return False
        capacity = max(16, 2 * self.count)
        buffers = (
            np.empty((capacity, *obs.shape), obs.dtype),
            np.empty((capacity, self._num_streams), rew.dtype),
            np.empty((capacity, self._num_streams), bool),
            np.empty((capacity, self._num_streams), bool),
        )
        if self.count:
            for new, old in zip(buffers, self._buffers):
                new[: self.count] = old[: self.count]
        self._buffers, self._spec = buffers, spec
        return True

    def take(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The batches put aside, one after the other (copies: the buffers are reused), and
        their action bases; then none is."""
        k = self.count
        out = tuple(b[:k].reshape(k * self._num_streams, *b.shape[2:]).copy() for b in self._buffers)
        bases = np.array(self.bases, np.int64)
        self.clear()
        return (*out, bases)
