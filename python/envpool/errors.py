"""Exceptions the pool raises beyond Python's built-in ones."""

from __future__ import annotations

import multiprocessing
from typing import Any

from gymnasium.error import ClosedEnvironmentError


class EnvError(RuntimeError):
    """An environment raised while stepping or resetting.

    Raised by the ``recv()`` / ``step()`` / ``reset()`` that returns the failed env's row. The
    batch itself is not lost: ``result`` holds what that call would have returned, where the
    failed envs' rows read ``truncated=True``; those envs restart like after any episode end
    (with next-step autoreset, on their next step). The pool stays usable.

    Attributes:
        env_ids: the envs that failed.
        messages: the error of each, as ``"<C++ exception type>: <message>"`` (e.g.
            ``"std::runtime_error: ..."``).
        result: the batch, as ``(obs, reward, terminated, truncated, info)``.
    """

    def __init__(self, env_ids: list[int], messages: list[str], result: tuple[Any, ...]):
        self.env_ids = list(env_ids)
        self.messages = list(messages)
        self.result = result
        details = "; ".join(f"env {i}: {m}" for i, m in zip(self.env_ids, self.messages))
        super().__init__(f"environment error in {details} (the batch is in .result; the env restarts)")


class ClosedError(ClosedEnvironmentError, RuntimeError):
    """The pool was used after ``close()``. A ``gymnasium.error.ClosedEnvironmentError`` (as
    gymnasium's vector envs raise) and a ``RuntimeError``."""


class PoolTimeoutError(TimeoutError, multiprocessing.TimeoutError):
    """A ``recv()``, ``step()`` or ``*_wait()`` ``timeout`` passed before the batch was complete.
    Nothing is lost: the envs keep running and the next wait returns the batch. Both Python's
    ``TimeoutError`` and ``multiprocessing.TimeoutError`` (what gymnasium's ``AsyncVectorEnv``
    raises)."""


class UnexpectedKwargError(TypeError, ValueError):
    """A keyword argument the task does not take. A ``TypeError``, as Python raises for an
    unexpected keyword argument (libraries such as TorchRL probe kwargs by it), and a
    ``ValueError``, as envpool raised it before."""
