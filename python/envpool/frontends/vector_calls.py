"""gymnasium's vector-env API beyond ``reset()`` and ``step()``, for the gymnasium front end
(``envpool.frontends.vector_env``): ``AsyncVectorEnv``'s split calls (``reset_async``/``reset_wait``,
``step_async``/``step_wait``, ``call_async``/``call_wait``) with its errors for calls out of
order, ``np_random_seed`` / ``np_random`` as tuples, and the warning ``close()`` gives for a
call still pending.

One difference: a ``*_wait(timeout)`` that times out leaves the call pending (the envs keep
running; a later ``*_wait`` returns the batch), where gymnasium forgets it.
"""

from __future__ import annotations

from typing import Any

from gymnasium import logger
from gymnasium.error import AlreadyPendingCallError, NoAsyncCallError

from envpool.errors import ClosedError, PoolTimeoutError


class SplitCalls:
    """Mixed into the gymnasium front end, which provides ``_begin_reset``, ``_collect``,
    ``send``, ``call``, ``get_attr`` and ``_python_envs``."""

    _pending: str | None = None  # "reset", "step" or "call": started, results not yet collected
    _pending_call: tuple | None = None

    def _assert_open(self) -> None:
        if self.closed:
            raise ClosedError(
                f"Trying to operate on `{type(self).__name__}`, after a call to `close()`: the pool is closed"
            )

    def _start_call(self, what: str) -> None:
        self._assert_open()
        if self._pending is not None:
            raise AlreadyPendingCallError(
                f"Calling `{what}_async` while waiting for a pending call to `{self._pending}` to complete.",
                self._pending,
            )

    def _end_call(self, what: str) -> None:
        self._assert_open()
        if self._pending != what:
            raise NoAsyncCallError(f"Calling `{what}_wait` without any prior call to `{what}_async`.", what)

    def reset_async(self, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts ``reset(seed=seed, options=options)``; ``reset_wait()`` returns its result."""
        self._start_call("reset")
        self._begin_reset(seed, options)
        self._pending = "reset"

    def reset_wait(self, timeout: float | None = None):
        """``(obs, info)`` of the reset ``reset_async()`` started (see ``reset``)."""
        obs, _, _, _, info = self._wait("reset", timeout)
        return obs, info

    def step_async(self, actions) -> None:
        """Sends ``actions`` to every env; ``step_wait()`` returns the results."""
        self._start_call("step")
        self.send(actions)
        self._pending = "step"

    def step_wait(self, timeout: float | None = None):
        """``(obs, reward, terminated, truncated, info)`` of the step ``step_async()`` started."""
        return self._wait("step", timeout)

    def _wait(self, what: str, timeout: float | None):
        self._end_call(what)
        try:
            result = self._collect(timeout)
        except (PoolTimeoutError, KeyboardInterrupt):
            raise  # the envs are still running: the call stays pending, a later wait returns it
        except BaseException:
            self._pending = None  # e.g. an EnvError: the batch came back (in its .result)
            raise
        self._pending = None
        return result

    def call_async(self, name: str, *args: Any, **kwargs: Any) -> None:
        """``call(name, *args, **kwargs)`` in two halves; ``call_wait()`` runs it and returns the results."""
        self._start_call("call")
        self._pending, self._pending_call = "call", (name, args, kwargs)

    def call_wait(self, timeout: float | None = None) -> tuple[Any, ...]:
        self._end_call("call")
        name, args, kwargs = self._pending_call
        self._pending, self._pending_call = None, None
        return self.call(name, *args, **kwargs)

    def _warn_if_pending(self) -> None:
        if self._pending is not None:
            logger.warn(f"Calling `close` while waiting for a pending call to `{self._pending}` to complete.")

    @property
    def np_random_seed(self) -> tuple[int | None, ...]:
        """Each env's seed, as gymnasium's vector envs report them (Python envs: their
        ``np_random_seed``)."""
        if self._python_envs:
            return self.get_attr("np_random_seed")
        return tuple(self._seeds.current)

    @property
    def np_random(self):
        """Python envs: each env's ``np_random``; native envs have C++ generators, and this is
        the vector env's own (gymnasium's ``VectorEnv.np_random``)."""
        if self._python_envs:
            return self.get_attr("np_random")
        return super().np_random

    @np_random.setter
    def np_random(self, value) -> None:
        self._np_random = value
        self._np_random_seed = -1
