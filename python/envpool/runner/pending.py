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
    _buffers: tuple  # obs, rewards, terminated, truncated: (capacity, num_streams, ...) each
    # What the buffers take, as put() checks it (one tuple comparison: this runs once per batch):
    # obs type, shape and dtype, rewards type and dtype, flags dtypes.
    _spec: tuple | None
    _room: int  # batches the buffers hold

    def __init__(self, num_streams: int) -> None:
        self._num_streams = num_streams
        self._buffers, self._spec, self._room = (), None, 0
        self.clear()

    def clear(self) -> None:
        self.count, self.rows, self.bases = 0, 0, []

    def put(self, obs: Any, rew: Any, term: Any, trunc: Any, base: int) -> bool:
        """Put a batch aside; False (nothing done) if its arrays are not the plain NumPy arrays
        of the layout the buffers hold (made for the first batch put aside)."""
        k = self.count
        if (
            k == self._room
            or type(obs) is not np.ndarray  # (a nested observation: a dict or tuple of arrays)
            or (
                type(obs),
                obs.shape,
                obs.dtype,
                type(rew),
                rew.shape,
                rew.dtype,
                term.dtype,
                trunc.dtype,
            )
            != self._spec
        ):
            return self._grow(obs, rew, term, trunc) and self.put(obs, rew, term, trunc, base)
        b_obs, b_rew, b_term, b_trunc = self._buffers
        b_obs[k] = obs
        b_rew[k] = rew
        b_term[k] = term
        b_trunc[k] = trunc
        self.count, self.rows = k + 1, self.rows + self._num_streams
        self.bases.append(base)
        return True

    def _grow(self, obs: Any, rew: Any, term: Any, trunc: Any) -> bool:
        """Buffers for this batch's layout with room for more batches (the ones put aside kept).
        False if the layout is not one to buffer or differs from the batches put aside."""
        n = self._num_streams
        if not all(type(a) is np.ndarray for a in (obs, rew, term, trunc)):
            return False
        spec = (np.ndarray, obs.shape, obs.dtype, np.ndarray, rew.shape, rew.dtype, term.dtype, trunc.dtype)
        if obs.shape[:1] != (n,) or rew.shape != (n,) or term.shape != (n,) or trunc.shape != (n,):
            return False
        if term.dtype != bool or trunc.dtype != bool or (self.count and spec != self._spec):
            return False
        room = max(16, 2 * self.count)
        buffers = (
            np.empty((room, *obs.shape), obs.dtype),
            np.empty((room, n), rew.dtype),
            np.empty((room, n), bool),
            np.empty((room, n), bool),
        )
        for new, old in zip(buffers, self._buffers):
            new[: self.count] = old[: self.count]
        self._buffers, self._spec, self._room = buffers, spec, room
        return True

    def take(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The batches put aside, one after the other (copies: the buffers are reused), and
        their action bases; then none is."""
        k = self.count
        out = tuple(b[:k].reshape(k * self._num_streams, *b.shape[2:]).copy() for b in self._buffers)
        bases = np.array(self.bases, np.int64)
        self.clear()
        return (*out, bases)
