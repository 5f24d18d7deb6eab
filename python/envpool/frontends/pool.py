"""What every front end shares: building the C++ pool from ``make``'s arguments, seeding,
reset masks, the asynchronous send/recv API and state access.

Front ends (gymnasium, gym-style, dm_env) subclass their framework's base class and mix in
:class:`PoolFrontEnd`; they only decide how results are presented.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

import numpy as np
from gymnasium.vector import AutoresetMode

from envpool import _core
from envpool.frontends.seeding import (
    EnvSeeds,
    check_env_ids,
    check_env_index,
    check_env_seeds,
    check_int,
    is_int,
)
from envpool.protocol import ReferencePoolAPI
from envpool.tasks import TaskSpec, make_spec, pack_env_kwargs

# The core's names of the autoreset modes.
CORE_AUTORESET = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


def parse_autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    """``AutoresetMode.SAME_STEP``, ``"SameStep"`` and ``"same_step"`` all name the same mode."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        key = mode.replace("_", "").replace("-", "").lower()
        for m in AutoresetMode:
            if key in (m.value.lower(), m.name.replace("_", "").lower()):
                return m
    raise ValueError(
        f"autoreset_mode must be a gymnasium.vector.AutoresetMode or one of "
        f"'next_step', 'same_step', 'disabled'; got {mode!r}"
    )


class CorePool(Protocol):
    """What a front end calls on the pool it owns: ``envpool._core.Pool`` for native tasks, and
    the Python classes over the other executors' core pools (:class:`envpool.process.pool.ProcessPool`,
    :class:`envpool.external.pool.ExternalPool`), which add their own work around the same calls."""

    num_envs: int
    batch_size: int
    max_episode_steps: int

    def send_reset(self, env_id: Any, seeds: Any, keep: Any, wait_follows: bool) -> None: ...

    def send(self, actions: Any, env_id: Any = None) -> None: ...

    def recv(self, timeout: float = -1.0) -> tuple: ...

    def step(self, actions: Any, env_id: Any = None, timeout: float = -1.0) -> tuple: ...

    def render(self, env_id: Any = None) -> Any: ...

    def get_state(self, env_id: int) -> Any: ...

    def set_state(self, env_id: int, state: Any) -> None: ...

    def close(self) -> None: ...

    @property
    def closed(self) -> bool: ...

    @property
    def in_flight(self) -> int: ...


@dataclasses.dataclass
class OpenedPool:
    """A pool and what a front end knows about it: made by ``open_native_pool`` for native tasks
    and by ``envpool.process.pool`` for Python envs, adopted by ``PoolFrontEnd._open_pool``."""

    pool: CorePool
    task_spec: TaskSpec
    num_envs: int
    batch_size: int
    num_threads: int
    max_episode_steps: int | None
    autoreset_mode: AutoresetMode
    render_mode: str | None
    config: dict[str, Any]
    # Python envs: the batched observation space when it is not batch_space(single) (gymnasium's
    # observation_mode="different" or custom), and the env's own metadata.
    observation_space: Any = None
    metadata: dict[str, Any] | None = None
    # Native envs: each env's seed at make (seed + i); Python envs report their own.
    env_seeds: list[int] | None = None
    thread_affinity_offset: int = -1  # native envs: worker i pinned to CPU offset + i; -1: unpinned


def timeout_seconds(timeout: Any) -> float:
    """A recv/step ``timeout`` as a number of seconds (not parsed from a string, not a bool)."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer, np.floating)):
        raise TypeError(f"timeout must be None or a number of seconds, got {type(timeout).__name__} {timeout!r}")
    return float(timeout)


def check_reset_mask(mask: Any, num_envs: int) -> np.ndarray:
    """``options["reset_mask"]``, checked as gymnasium's vector envs check it, with their messages."""
    mask = np.asarray(mask)
    if mask.shape != (num_envs,):
        raise ValueError(f"`options['reset_mask']` must have shape `({num_envs},)`, got {mask.shape}")
    if mask.dtype != np.bool_:
        raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
    if not mask.any():
        raise ValueError(
            f"`options['reset_mask']` must contain a boolean array with at least one True value, got reset_mask={mask}"
        )
    return mask


def _int_or_none(name: str, value: Any) -> int | None:
    """An option given as an int (a bool is not), or None for the core's default. Types are
    checked here, for Python's messages; values, and defaults, by the core (ResolveNativeOptions)."""
    if value is None:
        return None
    if not is_int(value):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r:.40}")
    return int(value)


def open_native_pool(
    task_id: str,
    num_envs: int = 1,
    batch_size: int | None = None,
    num_threads: int | None = None,
    seed: int = 42,
    max_episode_steps: int | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    render_mode: str | None = None,
    thread_affinity_offset: int | None = None,
    **kwargs: Any,
) -> OpenedPool:
    """``make``'s arguments checked, then the ``_core.Pool`` of a native task.

    The pool's options go to the core by name, None for each left out: their defaults (a full
    batch; ``num_threads`` every core for a full batch, one fewer for an async one, at most
    ``batch_size``; the task's ``max_episode_steps``; no pinning) and their value checks live in
    one place, ``ResolveNativeOptions`` (cpp/core/pool_factories.cc).

    ``thread_affinity_offset`` (the reference EnvPool's): ``>= 0`` pins worker thread ``i`` to
    CPU ``(offset + i) % cpus``, counting only the CPUs this process may run on; ``-1`` (the
    default) leaves the threads to the OS (cpp/core/thread_pool.h)."""
    num_envs = check_int("num_envs", num_envs, 1)  # packing per-env kwargs and seeds needs it first
    options = {
        "batch_size": _int_or_none("batch_size", batch_size),
        "num_threads": _int_or_none("num_threads", num_threads),
        "max_episode_steps": _int_or_none("max_episode_steps", max_episode_steps),
        "thread_affinity_offset": _int_or_none("thread_affinity_offset", thread_affinity_offset),
    }
    seed = check_int("seed", seed, 0)
    check_env_seeds("seed", seed, num_envs)
    autoreset_mode = parse_autoreset_mode(autoreset_mode)
    if render_mode not in (None, "rgb_array"):
        raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
    # Env kwargs are checked by make_spec (names and types, as the pool checks them) and the
    # spaces come from it; all before the pool, whose constructor starts the worker threads.
    packed = pack_env_kwargs(task_id, kwargs, num_envs)
    # Spaces are those of env 0 (all envs share them); config lists per-env kwargs whole.
    task_spec = make_spec(task_id, **{key: values[0] for key, values in packed.items()})
    if render_mode == "rgb_array" and task_spec.render_shape is None:
        raise ValueError(f"{task_id} does not render")
    pool = _core.Pool(
        task_id, packed, num_envs=num_envs, seed=seed, autoreset_mode=CORE_AUTORESET[autoreset_mode], **options
    )
    # The env kwargs (make_spec's config also holds max_episode_steps: the pool's is its own).
    config = {key: value for key, value in task_spec.config.items() if key != "max_episode_steps"}
    config.update({key: values for key, values in packed.items() if len(values) > 1})
    return OpenedPool(
        pool=pool,
        task_spec=task_spec,
        num_envs=num_envs,
        batch_size=pool.batch_size,
        num_threads=pool.num_threads,
        max_episode_steps=pool.max_episode_steps or None,
        autoreset_mode=autoreset_mode,
        render_mode=render_mode,
        config=config,
        env_seeds=[seed + i for i in range(num_envs)],
        thread_affinity_offset=pool.thread_affinity_offset,
    )


class PoolFrontEnd(ReferencePoolAPI):
    """Owns a ``_core.Pool`` and the arguments it was made with.

    Attributes: ``task_id``, ``num_envs``, ``batch_size``, ``num_threads``,
    ``max_episode_steps`` (``None``: no limit), ``autoreset_mode``, ``config`` (the env kwargs;
    per-env kwargs as lists) and ``task_spec`` (a :class:`envpool.tasks.TaskSpec`).
    """

    _pool: CorePool
    _seeds: EnvSeeds
    task_spec: TaskSpec
    task_id: str
    num_envs: int
    batch_size: int
    num_threads: int
    max_episode_steps: int | None
    autoreset_mode: AutoresetMode
    render_mode: str | None
    config: dict[str, Any]
    # After xla(): waits for jitted calls jax has dispatched (see _close_pool). Kept as a function,
    # not imported at close: close paths import nothing (at interpreter exit imports fail).
    _xla_wait: Any = None

    def _open_pool(self, task_id: Any, **kwargs: Any) -> OpenedPool:
        """Opens the pool ``make`` asks for (or adopts one built elsewhere: ``make_python``
        passes an object with ``open_pool()``) and sets the front end's attributes from it."""
        if not isinstance(task_id, str) and hasattr(task_id, "open_pool"):
            opened = task_id.open_pool()  # same attributes, same protocol
        else:
            opened = open_native_pool(task_id, **kwargs)
        self._pool = opened.pool
        self._seeds = EnvSeeds(opened.num_envs, opened.env_seeds)
        self.task_spec = opened.task_spec
        self.task_id = opened.task_spec.task_id
        self.num_envs = opened.num_envs
        self.batch_size = opened.batch_size
        self.num_threads = opened.num_threads
        self.max_episode_steps = opened.max_episode_steps
        self.autoreset_mode = opened.autoreset_mode
        self.render_mode = opened.render_mode
        self.config = opened.config
        self._note_make_settings(opened)
        return opened

    # -- resetting -------------------------------------------------------------------------------

    def _send_reset(self, seed, options, env_id=None) -> None:
        """Start the reset that ``reset(env_id, seed=..., options=...)`` asks for (see the front
        ends). ``env_id`` (as the reference EnvPool) resets just those envs, whose rows the
        result holds in that order; ``seed=int`` still seeds env ``i`` with ``seed + i``.
        ``options`` other than ``reset_mask`` go to each reset env's ``reset`` (Python envs;
        native envs take none)."""
        options = dict(options) if options is not None else None
        mask = options.pop("reset_mask", None) if options is not None else None
        if options and not self._python_envs:
            raise ValueError(f"reset() got unsupported options {sorted(options)}; native envs only know 'reset_mask'")
        extra = {"options": options} if options else {}
        if env_id is not None and mask is not None:
            raise ValueError("reset() got both env_id and options['reset_mask']: pass one of them")
        if env_id is not None:
            ids = check_env_ids(env_id, self.num_envs)
            subset = self._seeds.for_ids(seed, ids)
            self._pool.send_reset(ids, subset, None, True, **extra)
            if subset is not None:
                self._seeds.note(ids.tolist(), subset)
            return
        seeds = self._seeds.for_all(seed)
        if mask is None:
            self._pool.send_reset(None, seeds, None, True, **extra)
            if seeds is not None:
                self._seeds.note(range(self.num_envs), seeds)
            return
        mask = check_reset_mask(mask, self.num_envs)
        ids = np.flatnonzero(mask)
        subset = None if seeds is None else [seeds[i] for i in ids]
        if self.batch_size == self.num_envs:
            self._pool.send_reset(None, seeds, (~mask).tolist(), True, **extra)
        else:
            self._pool.send_reset(ids, subset, None, True, **extra)
        if subset is not None:
            self._seeds.note(ids.tolist(), subset)

    # -- the reference EnvPool's attributes -------------------------------------------------------

    def __len__(self) -> int:
        """The number of envs (Tianshou's ``Collector`` reads it)."""
        return self.num_envs

    @property
    def is_async(self) -> bool:
        """True when ``recv()`` returns batches of fewer than ``num_envs`` envs."""
        return self.batch_size != self.num_envs

    @property
    def all_env_ids(self) -> np.ndarray:
        """``np.arange(num_envs)`` as int32, as the reference EnvPool."""
        return np.arange(self.num_envs, dtype=np.int32)

    # -- asynchronous API (as the reference EnvPool) ---------------------------------------------

    def async_reset(self, env_id=None) -> None:
        """Start new episodes in all envs (or in ``env_id``) without waiting; collect them
        with ``recv()``."""
        self._pool.send_reset(None if env_id is None else check_env_ids(env_id, self.num_envs), None, None, False)

    def send(self, actions, env_id=None) -> None:
        """Hand ``actions`` to envs ``env_id`` (all envs when ``None``) and return at once."""
        try:
            self._pool.send(actions, env_id)
        except ValueError as exc:
            # The core names the shape it expected for all envs; a partial batch (typically the
            # rows of an async recv()) also needs their ids: say so.
            if env_id is None and "envs need shape" in str(exc):
                raise ValueError(
                    f"{exc}; send() without env_id sends to all {self.num_envs} envs: to send a partial batch "
                    "(e.g. the rows of recv()), pass their ids, send(actions, env_id=info['env_id'])"
                ) from None
            raise

    def _recv(self, timeout: float | None, with_ids: bool = True):
        """The next batch; ``with_ids``: its info holds ``env_id`` and ``elapsed_step`` (pools
        of external episodes always give them, and take no such argument)."""
        timeout = -1.0 if timeout is None else timeout_seconds(timeout)
        return self._pool.recv(timeout) if with_ids else self._pool.recv(timeout, False)

    def _step(self, actions, env_id, timeout: float | None = None, with_ids: bool = True):
        timeout = -1.0 if timeout is None else timeout_seconds(timeout)
        return (
            self._pool.step(actions, env_id, timeout) if with_ids else self._pool.step(actions, env_id, timeout, False)
        )

    def xla(self, timeout: float | None = None):
        """``(handle, recv, send, step)``: pure functions that step this pool from inside
        ``jax.jit`` / ``lax.scan``, as the reference EnvPool's ``xla()`` (needs the ``jax`` extra;
        see envpool.xla and docs/jax.md). ``timeout`` bounds each recv's wait, in seconds."""
        from envpool.xla.calls import make_xla, wait_for_dispatched_calls

        self._xla_wait = wait_for_dispatched_calls
        return make_xla(self, timeout)

    def _close_pool(self) -> None:
        """Close the pool (if ``__init__`` got as far as making one). After ``xla()``, first let
        jitted calls jax has dispatched but not yet run finish: jax dispatches asynchronously,
        so ``rollout(handle); envs.close()`` would otherwise close the pool under them. Imports
        nothing: a pool dropped at interpreter exit is closed when imports fail."""
        pool = getattr(self, "_pool", None)
        if pool is None:
            return
        if self._xla_wait is not None:
            self._xla_wait()
        pool.close()

    # -- rendering ---------------------------------------------------------------------------------

    def render(self, env_ids=None) -> tuple:
        """Frames of envs ``env_ids`` (all when ``None``), one per env in a tuple, as gymnasium's
        vector envs return them. Native envs: ``(H, W, 3)`` uint8 frames drawn in C++ (views of
        one ``(n, H, W, 3)`` array; ``render_mode="rgb_array"`` at ``make``). Python envs: what
        each env's ``render()`` returns. The envs must not be in flight."""
        if env_ids is not None:
            env_ids = check_env_ids(env_ids, self.num_envs)
        if self._python_envs:
            return self._pool.render(env_ids)
        if self.render_mode != "rgb_array":
            raise RuntimeError("render() needs render_mode='rgb_array' at make()")
        return tuple(self._pool.render(env_ids))

    @property
    def _python_envs(self) -> bool:
        """Whether the envs are Python envs in worker processes (envpool.make_python)."""
        return hasattr(self._pool, "env_calls")

    # -- state access (tests, reproducing situations) --------------------------------------------

    def get_state(self, env_id: int) -> np.ndarray:
        """The full internal state of an idle env, as float64 (for the classic-control tasks
        the same vector gymnasium's env holds in ``env.unwrapped.state``)."""
        return self._pool.get_state(check_env_index("env_id", env_id, self.num_envs))

    def set_state(self, env_id: int, state) -> None:
        """Put an idle env in ``state``; its next step starts from there."""
        self._pool.set_state(
            check_env_index("env_id", env_id, self.num_envs), np.asarray(state, dtype=np.float64).tolist()
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.task_id!r}, num_envs={self.num_envs}, "
            f"batch_size={self.batch_size}, num_threads={self.num_threads}, "
            f"autoreset_mode={self.autoreset_mode.name})"
        )
