"""Where a front end's pool comes from: a :class:`PoolSource` opens it, the front end adopts it.

Three sources, one per place envs run (as gymnasium's vector envs and PufferLib's backends are
named by where their envs run):

- :class:`NativeSource`: a registered native task stepped by the C++ thread pool
  (``envpool.make``);
- :class:`envpool.process.pool.PythonEnvSource`: Python envs in worker processes
  (``envpool.make_python``);
- :class:`envpool.external.serve.ExternalSource`: episodes that outside clients drive
  (``envpool.serve``, ``ExternalEnv.open``).

Each takes the pool's own options as one :class:`PoolOptions` (the core's type: its defaults
written once, in C++; checked when made) apart from the env's kwargs, as gymnasium's
``make_vec`` keeps ``vector_kwargs`` apart. A source checks its arguments when it is made and
opens its pool when a front end calls ``open_pool()``: an :class:`OpenedPool`, the pool, what it
can do (:class:`PoolAbilities`) and what the front end shows of it, read back from the options
the pool resolved. Every front end (:class:`envpool.frontends.pool.PoolFrontEnd`) takes a source
and nothing else. The process and external pools are their executor's core pool inside a
:class:`CorePoolAdapter`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, runtime_checkable

from gymnasium.vector import AutoresetMode

from envpool import _core
from envpool.errors import EnvError
from envpool.tasks import TaskSpec, make_spec, no_rendering_message, pack_env_kwargs, registered_tasks

# A pool's options with nothing given: each default lives in the core (cpp/core/pool_options.h)
# and is read from here (make()'s signature shows them).
POOL_DEFAULTS = _core.PoolOptions()
PoolOptions = _core.PoolOptions

# The core's names of the autoreset modes.
CORE_AUTORESET = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}
_MODE_OF = {name: mode for mode, name in CORE_AUTORESET.items()}


def parse_autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    """``AutoresetMode.SAME_STEP``, ``"SameStep"`` and ``"same_step"`` all name the same mode
    (the core reads the spelling: a ValueError names what is accepted)."""
    return _MODE_OF[PoolOptions(autoreset_mode=mode).autoreset_mode]


class CorePool(Protocol):
    """What a front end calls on the pool it owns: ``envpool._core.Pool`` for native tasks, and
    the :class:`CorePoolAdapter` s over the other executors' core pools, which add their own
    work around the same calls."""

    @property
    def options(self) -> Any: ...  # _core.ResolvedPoolOptions: what the pool runs with

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


@dataclasses.dataclass(frozen=True)
class PoolAbilities:
    """What a pool can do beyond stepping, which the front ends offer or refuse by it."""

    python_envs: bool = False  # Python envs in processes: call/get_attr/set_attr, reset options, their own render
    renders: bool = False  # render() gives frames
    state: bool = False  # get_state()/set_state()
    xla: bool = False  # xla(): its batches are stepped from inside jax.jit


# The front ends' attributes that come from an opened pool (OpenedPool's names).
POOL_SETTINGS = (
    "task_spec",
    "num_envs",
    "batch_size",
    "num_threads",
    "max_episode_steps",
    "autoreset_mode",
    "render_mode",
    "config",
)


@dataclasses.dataclass
class OpenedPool:
    """What ``PoolSource.open_pool()`` returns: the pool, what it can do, and what a front end
    shows of it. The pool's settings are read back from the options it runs with
    (``pool.options``, resolved by the core), never recomputed here."""

    pool: CorePool
    task_spec: TaskSpec
    abilities: PoolAbilities
    render_mode: str | None
    config: dict[str, Any]  # the env kwargs; per-env kwargs as lists
    workers: int | None = None  # process pools: their worker processes (shown as num_threads)
    # Python envs: the batched observation space when it is not batch_space(single) (gymnasium's
    # observation_mode="different" or custom), and the env's own metadata.
    observation_space: Any = None
    metadata: dict[str, Any] | None = None

    @property
    def num_envs(self) -> int:
        return self.pool.options.num_envs

    @property
    def batch_size(self) -> int:
        return self.pool.options.batch_size

    @property
    def num_threads(self) -> int:
        return self.workers if self.workers is not None else self.pool.options.num_threads

    @property
    def max_episode_steps(self) -> int | None:
        """The pool's time limit; None: none."""
        return self.pool.options.max_episode_steps or None

    @property
    def autoreset_mode(self) -> AutoresetMode:
        return _MODE_OF[self.pool.options.autoreset_mode]

    @property
    def env_seeds(self) -> list[int] | None:
        """Each env's seed when the pool was made (None: unseeded)."""
        return self.pool.options.env_seeds


@runtime_checkable
class PoolSource(Protocol):
    """Opens the pool a front end presents (:class:`NativeSource`, ``PythonEnvSource``,
    ``ExternalSource``); its arguments were checked when it was made."""

    def open_pool(self) -> OpenedPool: ...


class NativeSource(PoolSource):
    """A registered native task's pool, stepped by the C++ thread pool: ``envpool.make``'s
    arguments (documented there), checked here, all before ``open_pool()`` starts the pool's
    threads: ``options`` the pool's own (a :class:`PoolOptions`, checked when made; the core
    completes them: a full batch, the task's ``max_episode_steps``, ``num_threads`` every core for
    a full batch and one fewer for an async one), ``render_mode`` and the env's kwargs.

    >>> source = NativeSource("CartPole-v1", PoolOptions(num_envs=2, seed=0))
    >>> source.options.num_envs, source.task_spec.max_episode_steps
    (2, 500)
    """

    def __init__(
        self, task_id: str, options: PoolOptions = POOL_DEFAULTS, *, render_mode: str | None = None, **env_kwargs: Any
    ):
        if not isinstance(options, PoolOptions):
            raise TypeError(
                f"options must be an envpool PoolOptions (the pool's own options; the env's kwargs go by name), "
                f"got {type(options).__name__} {options!r:.60}"
            )
        if not isinstance(task_id, str):
            raise TypeError(f"task_id must be a task id (a str), got {type(task_id).__name__} {task_id!r:.60}")
        self.task_id = task_id
        self.options = options
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        if render_mode is not None and "render_mode" in registered_tasks().get(task_id, {}).get("defaults", {}):
            # Tasks that declare a render_mode kwarg (MuJoCo's) prepare to draw when made (a GL
            # check at make, as gymnasium's constructors know their render_mode).
            env_kwargs = {**env_kwargs, "render_mode": render_mode}
        # Env kwargs are checked by make_spec (names and types, as the pool checks them) and the
        # spaces come from it.
        self._packed = pack_env_kwargs(task_id, env_kwargs, options.num_envs)
        # Spaces are those of env 0 (all envs share them); config lists per-env kwargs whole.
        self.task_spec = make_spec(task_id, **{key: values[0] for key, values in self._packed.items()})
        if render_mode == "rgb_array" and self.task_spec.render_shape is None:
            raise ValueError(no_rendering_message(task_id))

    def open_pool(self) -> OpenedPool:
        """Starts the ``_core.Pool`` (its worker threads)."""
        pool = _core.Pool(self.task_id, self._packed, self.options)
        # The env kwargs (make_spec's config also holds max_episode_steps: the pool's is its own).
        config = {key: value for key, value in self.task_spec.config.items() if key != "max_episode_steps"}
        config.update({key: values for key, values in self._packed.items() if len(values) > 1})
        renders = self.task_spec.render_shape is not None
        return OpenedPool(
            pool=pool,
            task_spec=self.task_spec,
            abilities=PoolAbilities(renders=renders, state=True, xla=True),
            render_mode=self.render_mode,
            config=config,
        )

    def __repr__(self) -> str:
        return f"NativeSource({self.task_id!r}, {self.options!r})"


class CorePoolAdapter:
    """The core pool of another executor (worker processes, external clients) with the Python
    work the front ends' calls need around it: ``send``/``recv``/``step`` go to ``self.core``,
    the actions through ``_actions`` and each result (an error's batch too) through ``_finish``;
    ``get_state``/``set_state`` raise ``_no_state()`` (no state vector on this side)."""

    core: Any  # the executor's _core pool

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
    def options(self) -> Any:
        return self.core.options

    @property
    def in_flight(self) -> int:
        return self.core.in_flight
