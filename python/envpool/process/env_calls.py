"""Calls into the envs of a process pool that are not steps: gymnasium's ``call``,
``get_attr`` and ``set_attr``, ``render``, and the per-env ``reset(options=...)``. Each goes to
the worker processes hosting the envs over their control channel (``WorkerProcesses.control``),
so every env must be idle: none sent and not yet received."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from envpool.errors import ClosedError
from envpool.process.supervisor import WorkerProcesses


class EnvCalls:
    """Fans a call out to the workers, each for its own envs, and puts the answers in env order."""

    _core: Any  # the _core.ProcessPool: how many envs are in flight
    _workers: WorkerProcesses
    _worker_start: list[int]  # worker w hosts envs [start[w], start[w + 1])
    _num_envs: int

    def __init__(self, core: Any, workers: WorkerProcesses, worker_start: list[int]):
        self._core, self._workers, self._worker_start = core, workers, worker_start
        self._num_envs = worker_start[-1]

    def check_open(self) -> None:
        if self._workers.closed:
            raise ClosedError("the pool is closed")

    def reset_options(self, env_id: Any, keep: Any, options: Any) -> None:
        """Hands ``options`` to each env about to be reset (``env_id``, less those ``keep`` marks)."""
        ids = range(self._num_envs) if env_id is None else np.atleast_1d(env_id).tolist()
        resets = [int(i) for k, i in enumerate(ids) if keep is None or not keep[k]]
        for w, s, e in self._ranges():
            mine = {i: options for i in resets if s <= i < e}
            if mine:
                self._control(w, ("reset_options", mine))

    def render(self, env_id: Any = None) -> tuple:
        """What each env's ``render()`` returns (frames for ``rgb_array``), in ``env_id`` order."""
        n = self._num_envs
        ids = np.arange(n) if env_id is None else np.asarray(env_id, dtype=np.int64).reshape(-1)
        if ((ids < 0) | (ids >= n)).any():
            raise ValueError(f"env_id must be in [0, {n}), got {ids.tolist()}")
        frames = {}
        for w, s, e in self._ranges():
            mine = [int(i) for i in ids if s <= i < e]
            if mine:
                for i, frame in zip(mine, self._control(w, ("render", mine))):
                    frames[i] = frame
        return tuple(frames[int(i)] for i in ids)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple:
        if name in ("reset", "step", "close"):
            raise ValueError(f"Trying to call function `{name}` with `call`, use `{name}` directly instead.")
        return self._from_each(("call", name, args, kwargs))

    def get_attr(self, name: str) -> tuple:
        return self._from_each(("get_attr", name))

    def set_attr(self, name: str, values: Any) -> None:
        if not isinstance(values, (list, tuple)):
            values = [values] * self._num_envs
        if len(values) != self._num_envs:
            raise ValueError(
                "Values must be a list or tuple with length equal to the number of environments. "
                f"Got `{len(values)}` values for {self._num_envs} environments."
            )
        for w, s, e in self._ranges():
            self._control(w, ("set_attr", name, list(values[s:e])))

    def _ranges(self) -> Iterator[tuple[int, int, int]]:
        for w, (s, e) in enumerate(zip(self._worker_start, self._worker_start[1:])):
            yield w, s, e

    def _from_each(self, message: tuple) -> tuple:
        out: list = []
        for w, _, _ in self._ranges():
            out.extend(self._control(w, message))
        return tuple(out)

    def _control(self, w: int, message: tuple) -> Any:
        self.check_open()
        if self._core.in_flight:
            raise RuntimeError(
                f"{message[0]}() needs every env idle, but {self._core.in_flight} are in flight; recv() them first"
            )
        return self._workers.control(w, message)
