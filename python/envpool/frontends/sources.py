"""Where a front end's pool comes from: a :class:`PoolSource` opens it, the front end adopts it.

Three sources, one per place envs run (as gymnasium's vector envs and PufferLib's backends are
named by where their envs run):

- :class:`NativeSource`: a registered native task stepped by the C++ thread pool
  (``envpool.make``);
- :class:`envpool.process.pool.PythonEnvSource`: Python envs in worker processes
  (``envpool.make_python``);
- :class:`envpool.external.serve.ExternalSource`: episodes that outside clients drive
  (``envpool.serve``, ``ExternalEnv.open``).

A source checks its arguments when it is made and opens its pool when a front end calls
``open_pool()``: an :class:`OpenedPool`, the pool and what the front end shows of it. Every
front end (:class:`envpool.frontends.pool.PoolFrontEnd`) takes a task id or a source;
:func:`pool_source` is the one place a task id becomes a :class:`NativeSource`. The process
and external pools are their executor's core pool inside a :class:`CorePoolAdapter`.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Protocol, runtime_checkable

from gymnasium.vector import AutoresetMode

from envpool import _core
from envpool.errors import EnvError
from envpool.frontends.seeding import check_env_seeds, check_int, is_int
from envpool.tasks import TaskSpec, make_spec, no_rendering_message, pack_env_kwargs, registered_tasks

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
    the :class:`CorePoolAdapter` s over the other executors' core pools, which add their own
    work around the same calls."""

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
class PoolSettings:
    """What a front end shows of its pool: the front end's attributes of these names."""

    task_spec: TaskSpec
    num_envs: int
    batch_size: int
    num_threads: int
    max_episode_steps: int | None  # None: no limit
    autoreset_mode: AutoresetMode
    render_mode: str | None
    config: dict[str, Any]  # the env kwargs; per-env kwargs as lists


@dataclasses.dataclass
class OpenedPool(PoolSettings):
    """What ``PoolSource.open_pool()`` returns: the pool, its settings and what else a front end
    needs from the source."""

    pool: CorePool
    # Python envs: the batched observation space when it is not batch_space(single) (gymnasium's
    # observation_mode="different" or custom), and the env's own metadata.
    observation_space: Any = None
    metadata: dict[str, Any] | None = None
    # Native envs: each env's seed at make (seed + i); Python envs report their own.
    env_seeds: list[int] | None = None
    thread_affinity_offset: int = -1  # native envs: worker i pinned to CPU offset + i; -1: unpinned


@runtime_checkable
class PoolSource(Protocol):
    """Opens the pool a front end presents (:class:`NativeSource`, ``PythonEnvSource``,
    ``ExternalSource``); its arguments were checked when it was made."""

    def open_pool(self) -> OpenedPool: ...


def _int_or_none(name: str, value: Any) -> int | None:
    """An option given as an int (a bool is not), or None for the core's default. Types are
    checked here, for Python's messages; values, and defaults, by the core (ResolveNativeOptions)."""
    if value is None:
        return None
    if not is_int(value):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r:.40}")
    return int(value)


class NativeSource(PoolSource):
    """A registered native task's pool, stepped by the C++ thread pool: ``envpool.make``'s
    arguments (documented there), checked here, all before ``open_pool()`` starts the pool's
    threads.

    The pool's options go to the core by name, None for each left out: their defaults (a full
    batch; ``num_threads`` every core for a full batch, one fewer for an async one, at most
    ``batch_size``; the task's ``max_episode_steps``; no pinning) and their value checks live in
    one place, ``ResolveNativeOptions`` (cpp/core/pool_factories.cc).

    ``thread_affinity_offset`` (the reference EnvPool's): ``>= 0`` pins worker thread ``i`` to
    CPU ``(offset + i) % cpus``, counting only the CPUs this process may run on; ``-1`` (the
    default) leaves the threads to the OS (cpp/core/thread_pool.h)."""

    def __init__(
        self,
        task_id: str,
        *,
        num_envs: int = 1,
        batch_size: int | None = None,
        num_threads: int | None = None,
        seed: int = 42,
        max_episode_steps: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        thread_affinity_offset: int | None = None,
        **task_kwargs: Any,
    ):
        self.task_id = task_id
        self.num_envs = check_int("num_envs", num_envs, 1)  # packing per-env kwargs and seeds needs it first
        self._options = {
            "batch_size": _int_or_none("batch_size", batch_size),
            "num_threads": _int_or_none("num_threads", num_threads),
            "max_episode_steps": _int_or_none("max_episode_steps", max_episode_steps),
            "thread_affinity_offset": _int_or_none("thread_affinity_offset", thread_affinity_offset),
        }
        self.seed = check_int("seed", seed, 0)
        check_env_seeds("seed", self.seed, self.num_envs)
        self.autoreset_mode = parse_autoreset_mode(autoreset_mode)
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        if render_mode is not None and "render_mode" in registered_tasks().get(task_id, {}).get("defaults", {}):
            # Tasks that declare a render_mode kwarg (MuJoCo's) prepare to draw when made (a GL
            # check at make, as gymnasium's constructors know their render_mode).
            task_kwargs = {**task_kwargs, "render_mode": render_mode}
        # Env kwargs are checked by make_spec (names and types, as the pool checks them) and the
        # spaces come from it.
        self._packed = pack_env_kwargs(task_id, task_kwargs, self.num_envs)
        # Spaces are those of env 0 (all envs share them); config lists per-env kwargs whole.
        self.task_spec = make_spec(task_id, **{key: values[0] for key, values in self._packed.items()})
        if render_mode == "rgb_array" and self.task_spec.render_shape is None:
            raise ValueError(no_rendering_message(task_id))

    def open_pool(self) -> OpenedPool:
        """Starts the ``_core.Pool`` (its worker threads) and reports its resolved options."""
        pool = _core.Pool(
            self.task_id,
            self._packed,
            num_envs=self.num_envs,
            seed=self.seed,
            autoreset_mode=CORE_AUTORESET[self.autoreset_mode],
            **self._options,
        )
        # The env kwargs (make_spec's config also holds max_episode_steps: the pool's is its own).
        config = {key: value for key, value in self.task_spec.config.items() if key != "max_episode_steps"}
        config.update({key: values for key, values in self._packed.items() if len(values) > 1})
        return OpenedPool(
            pool=pool,
            task_spec=self.task_spec,
            num_envs=self.num_envs,
            batch_size=pool.batch_size,
            num_threads=pool.num_threads,
            max_episode_steps=pool.max_episode_steps or None,
            autoreset_mode=self.autoreset_mode,
            render_mode=self.render_mode,
            config=config,
            env_seeds=[self.seed + i for i in range(self.num_envs)],
            thread_affinity_offset=pool.thread_affinity_offset,
        )

    def __repr__(self) -> str:
        return f"NativeSource({self.task_id!r}, num_envs={self.num_envs})"


# make()'s pool options and their defaults, as NativeSource takes them.
_MAKE_DEFAULTS = {
    name: param.default
    for name, param in inspect.signature(NativeSource).parameters.items()
    if param.kind is param.KEYWORD_ONLY
}


def _is_default(name: str, value: Any) -> bool:
    """Whether a front end passed make's default for ``name`` (as it does for every option a
    source was given with)."""
    if name not in _MAKE_DEFAULTS:
        return False  # an env kwarg
    default = _MAKE_DEFAULTS[name]
    if name == "autoreset_mode":
        try:
            return parse_autoreset_mode(value) is default
        except ValueError:
            return False
    return value is default or (is_int(value) and value == default)


def pool_source(task_id: str | PoolSource, /, **make_kwargs: Any) -> PoolSource:
    """The source a front end opens: a task id (with ``make``'s arguments) becomes a
    :class:`NativeSource`; a source is taken as it is (it holds its own arguments, so any other
    than the defaults the front end passes are refused, not ignored)."""
    if isinstance(task_id, str):
        return NativeSource(task_id, **make_kwargs)
    if not isinstance(task_id, PoolSource):
        raise TypeError(
            "task_id must be a task id (a str) or a pool source (an object with open_pool(): NativeSource, "
            f"PythonEnvSource, ExternalSource), got {type(task_id).__name__} {task_id!r:.60}"
        )
    given = sorted(name for name, value in make_kwargs.items() if not _is_default(name, value))
    if given:
        raise TypeError(f"{type(task_id).__name__} holds its pool's arguments: make it with {given}, not the front end")
    return task_id


class CorePoolAdapter:
    """The core pool of another executor (worker processes, external clients) with the Python
    work the front ends' calls need around it: ``send``/``recv``/``step`` go to ``self.core``,
    the actions through ``_actions`` and each result (an error's batch too) through ``_finish``;
    ``get_state``/``set_state`` raise ``_no_state()`` (no state vector on this side)."""

    core: Any  # the executor's _core pool
    num_envs: int
    batch_size: int
    max_episode_steps: int

    def _actions(self, actions: Any, env_id: Any) -> Any:
        """The actions as the core takes them."""
        return actions

    def _finish(self, result: tuple, with_ids: bool) -> tuple:
        """A batch from the core as the front end gets it."""
        return result

    def _no_state(self) -> Exception:
        """What ``get_state``/``set_state`` raise."""
        return NotImplementedError(f"{type(self).__name__} has no state vector")

    def send(self, actions, env_id=None) -> None:
        self.core.send(self._actions(actions, env_id), env_id)

    def recv(self, timeout: float = -1.0, with_ids: bool = True) -> tuple:
        try:
            return self._finish(self.core.recv(timeout, with_ids), with_ids)
        except EnvError as err:
            raise EnvError(err.env_ids, err.messages, self._finish(err.result, with_ids)) from None

    def step(self, actions, env_id=None, timeout: float = -1.0, with_ids: bool = True) -> tuple:
        try:
            return self._finish(self.core.step(self._actions(actions, env_id), env_id, timeout, with_ids), with_ids)
        except EnvError as err:
            raise EnvError(err.env_ids, err.messages, self._finish(err.result, with_ids)) from None

    def get_state(self, env_id):
        raise self._no_state()

    def set_state(self, env_id, state):
        raise self._no_state()

    @property
    def in_flight(self) -> int:
        return self.core.in_flight
