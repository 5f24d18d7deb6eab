"""Python envs in worker processes, behind the same pool API: ``envpool.make_python``.

The C++ core does what it does for native envs - the send/recv protocol, action checks,
episode rules, batch assembly - with a process executor (cpp/core/process_executor.h): sent
envs are queued to the worker process hosting them through shared memory, and the caller
collects finished rows into batches while it waits in ``recv()``. This module starts and
watches the workers (``supervisor.py``; ``worker.py`` is their loop), turns nested spaces into flat arrays and
back (``leaves.py``), and batches info dicts as gymnasium's vector envs do.
"""

from __future__ import annotations

import inspect
import multiprocessing
import os
import sys
import tempfile
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import cloudpickle
import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envpool import _core, payloads
from envpool.agents import AgentLayout
from envpool.frontends.classes import front_end_class
from envpool.frontends.seeding import check_int
from envpool.frontends.sources import (
    POOL_DEFAULTS,
    CorePoolAdapter,
    OpenedPool,
    PoolAbilities,
    PoolOptions,
    PoolSource,
)
from envpool.leaves import SpaceLeaves
from envpool.multiagent.python_envs import ParallelEnvAdapter, is_parallel_env
from envpool.process.env_calls import EnvCalls
from envpool.process.results import ResultAssembler
from envpool.process.supervisor import WorkerProcesses
from envpool.spaces import check_observation_mode, observation_spaces
from envpool.tasks import TaskSpec

# Room for one env's error text (exception, message and traceback) in shared memory.
ERROR_BYTES = 16384


def make_python(
    env: str | Callable[..., gymnasium.Env] | Sequence[Callable[..., gymnasium.Env]],
    num_envs: int = POOL_DEFAULTS.num_envs,
    batch_size: int | None = POOL_DEFAULTS.batch_size,
    num_workers: int | None = None,
    seed: int | None = POOL_DEFAULTS.seed,
    max_episode_steps: int | None = POOL_DEFAULTS.max_episode_steps,
    autoreset_mode: AutoresetMode | str = POOL_DEFAULTS.autoreset_mode,
    env_type: str = "gymnasium",
    step_timeout: float | None = None,
    max_restarts: int = 10,
    context: str | None = None,
    info_bytes: int = 4096,
    observation_mode: str | tuple = "same",
    **env_kwargs: Any,
):
    """A pool of Python (gymnasium) envs stepped in worker processes.

    Args:
        env: a registered gymnasium id (``env_kwargs`` go to ``gymnasium.make``), a callable
            returning a ``gymnasium.Env``, or a list of ``num_envs`` such callables (lambdas
            and closures too: they are sent to the workers with cloudpickle). A callable that
            takes one argument gets an env context: ``env_kwargs`` plus ``worker_index``,
            ``vector_index`` (0..num_envs-1) and ``num_workers``, like RLlib's ``env_config``.
            A callable may return a PettingZoo ``ParallelEnv``: a multi-agent env, laid out as
            the native ones (docs/multiagent.md).
        num_envs, batch_size, seed, max_episode_steps, autoreset_mode, env_type: as for
            :func:`envpool.make` (``max_episode_steps``: a limit on top of the env's own;
            ``None`` adds none). Env ``i``'s first reset gets ``seed + i``; ``seed=None``
            leaves envs unseeded.
        num_workers: worker processes, each hosting a block of envs; default: the number of
            cores (at most ``num_envs``).
        step_timeout: seconds one env may take for a reset or step; past it, its worker is
            killed and replaced and the call reports an :class:`envpool.EnvError` naming the
            env. ``None``: no limit.
        max_restarts: how often one env is re-created after it raised (or one worker replaced
            after it died) before its rows only report the failure.
        context: the multiprocessing start method. Default ``"fork"`` where there is one
            (Linux): workers start fast and a script needs no ``if __name__ == "__main__":``
            guard. ``"forkserver"`` and ``"spawn"`` work too (they re-import the main module
            in each worker, so a script needs the guard).
        info_bytes: room for one env's pickled info dict per step (with the values of its
            variable-size observation spaces, if any), and for one env's pickled values of
            variable-size action spaces.
        observation_mode: as gymnasium's vector envs: ``"same"`` (every env's observation
            space must equal env 0's), ``"different"`` (same shape and dtype, other bounds:
            ``observation_space`` batches them all) or ``(batched, single)`` spaces.

    >>> import envpool
    >>> envs = envpool.make_python("CartPole-v1", num_envs=4, num_workers=2)
    >>> obs, info = envs.reset()
    >>> obs.shape, info
    ((4, 4), {})
    >>> obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
    >>> reward.tolist()
    [1.0, 1.0, 1.0, 1.0]
    >>> envs.close()
    """
    # The pool's own options, apart from the env's kwargs, as the front end of env_type needs them.
    options = {"num_envs": num_envs, "batch_size": batch_size, "seed": seed, "max_episode_steps": max_episode_steps}
    options = _pool_options(env_type, {**options, "autoreset_mode": autoreset_mode})
    source = PythonEnvSource(
        env,
        options,
        num_workers=num_workers,
        step_timeout=step_timeout,
        max_restarts=max_restarts,
        context=context,
        info_bytes=info_bytes,
        observation_mode=observation_mode,
        **env_kwargs,
    )
    return _front_end(source, env_type)


def _pool_options(env_type: str, kwargs: dict[str, Any]) -> PoolOptions:
    """``make_python``'s pool options as the front end of ``env_type`` takes them (PettingZoo
    views: a full batch, no autoreset), before any worker starts."""
    return PoolOptions(**front_end_class(env_type, env_type == "pettingzoo").pool_kwargs(kwargs))


def _front_end(source: PythonEnvSource, env_type: str):
    """The front end of ``env_type`` over ``source``'s pool; PettingZoo ``ParallelEnv``s are
    multi-agent envs: agents as rows for ``"gymnasium"``, views for ``"pettingzoo"`` (one view
    for one env)."""
    try:
        envs = front_end_class(env_type, source.multi_agent())(source)
    finally:
        source.close_probe()  # if the front end failed before its pool took it
    return envs[0] if env_type == "pettingzoo" and source.num_envs == 1 else envs


def _takes_context(fn: Callable) -> bool:
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):  # builtins without a signature
        return False
    return len(params) == 1


class _EnvFactory:
    """Env ``vector_index``'s constructor as a zero-argument callable (picklable with cloudpickle)."""

    def __init__(self, fn: Callable, context: dict | None):
        self.fn = fn
        self.context = context

    def __call__(self) -> gymnasium.Env:
        env = self.fn(dict(self.context)) if self.context is not None else self.fn()
        if is_parallel_env(env):
            return ParallelEnvAdapter(env)  # agents as slots of one env (envpool.multiagent)
        if not isinstance(env, gymnasium.Env):
            raise TypeError(
                f"the env callable returned {type(env).__name__}, not a gymnasium.Env or a pettingzoo.ParallelEnv"
            )
        return env


class _MakeById:
    def __init__(self, env_id: str, kwargs: dict):
        self.env_id = env_id
        self.kwargs = kwargs

    def __call__(self) -> gymnasium.Env:
        return gymnasium.make(self.env_id, **self.kwargs)


class PythonEnvSource(PoolSource):
    """Python envs in worker processes: ``make_python``'s arguments (documented there), the pool's
    own as ``options`` (a ``PoolOptions``: ``num_threads`` and ``thread_affinity_offset`` are the
    thread pool's and unused here), checked when made; ``open_pool()`` starts the workers. A front
    end takes it, e.g. ``EnvPoolVectorEnv(PythonEnvSource(env_fn, PoolOptions(num_envs=4)))``."""

    def __init__(
        self,
        env: str | Callable[..., gymnasium.Env] | Sequence[Callable[..., gymnasium.Env]],
        options: PoolOptions = POOL_DEFAULTS,
        *,
        num_workers: int | None = None,
        step_timeout: float | None = None,
        max_restarts: int = 10,
        context: str | None = None,
        info_bytes: int = 4096,
        observation_mode: str | tuple = "same",
        **env_kwargs: Any,
    ):
        if not isinstance(options, PoolOptions):
            raise TypeError(f"options must be an envpool PoolOptions, got {type(options).__name__} {options!r:.60}")
        self.options = options
        self.num_envs = options.num_envs
        cores = os.cpu_count() or 1
        self.num_workers = (
            min(self.num_envs, cores) if num_workers is None else check_int("num_workers", num_workers, 1)
        )
        if self.num_workers > self.num_envs:
            raise ValueError(f"num_workers ({self.num_workers}) must not exceed num_envs ({self.num_envs})")
        if step_timeout is not None and not (isinstance(step_timeout, (int, float)) and step_timeout > 0):
            raise ValueError(f"step_timeout must be a positive number of seconds or None, got {step_timeout!r}")
        self.step_timeout = step_timeout
        self.max_restarts = check_int("max_restarts", max_restarts, 0)
        if context is None:
            context = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.context = context
        if self.context not in multiprocessing.get_all_start_methods():
            raise ValueError(f"context must be one of {multiprocessing.get_all_start_methods()}, got {context!r}")
        self.info_bytes = check_int("info_bytes", info_bytes, 0)
        check_observation_mode(observation_mode)
        self.observation_mode = observation_mode
        # Worker w hosts envs [worker_start[w], worker_start[w + 1]): contiguous, near-equal blocks.
        split = np.array_split(np.arange(self.num_envs), self.num_workers)
        self.worker_start = [int(ids[0]) for ids in split] + [self.num_envs]
        self.env_kwargs = env_kwargs
        self.name, self.factories = self._factories(env)
        self._probe: gymnasium.Env | None = None  # env 0, made by multi_agent() for open_pool

    def _factories(self, env) -> tuple[str, list[_EnvFactory]]:
        n = self.num_envs
        if isinstance(env, str):
            if env not in gymnasium.registry:
                gymnasium.make(env)  # raises gymnasium's error (with its suggestions)
            fns: list[Callable] = [_MakeById(env, self.env_kwargs)] * n
            return env, [_EnvFactory(fn, None) for fn in fns]
        if callable(env):
            fns = [env] * n
        elif isinstance(env, Sequence) and all(callable(f) for f in env):
            if len(env) != n:
                raise ValueError(f"got {len(env)} env callables for num_envs={n}")
            fns = list(env)
        else:
            raise TypeError(
                f"env must be a gymnasium id, a callable returning a gymnasium.Env or a list of them; got {env!r}"
            )
        takes_context = [_takes_context(f) for f in fns]
        if self.env_kwargs and not all(takes_context):
            raise TypeError(
                f"env kwargs {sorted(self.env_kwargs)} need an env callable that takes one argument (the env context)"
            )
        factories = []
        for i, (fn, with_context) in enumerate(zip(fns, takes_context)):
            context = None
            if with_context:
                worker = int(np.searchsorted(self.worker_start, i, side="right")) - 1
                context = {
                    **self.env_kwargs,
                    "worker_index": worker,
                    "vector_index": i,
                    "num_workers": self.num_workers,
                }
            factories.append(_EnvFactory(fn, context))
        name = getattr(fns[0], "__name__", type(fns[0]).__name__)
        return f"python:{name}", factories

    def multi_agent(self) -> bool:
        """Whether the envs are PettingZoo ParallelEnvs. Env 0 is made here to see, and kept:
        open_pool reads the spaces from it, so it is made once."""
        if self._probe is None:
            self._probe = self.factories[0]()
        return isinstance(self._probe, ParallelEnvAdapter)

    def close_probe(self) -> None:
        """Closes env 0 if multi_agent() made it and open_pool did not take it."""
        if self._probe is not None:
            probe, self._probe = self._probe, None
            probe.close()

    def open_pool(self) -> OpenedPool:
        # One env made here, as gymnasium's AsyncVectorEnv does, tells the spaces.
        probe, self._probe = self._probe if self._probe is not None else self.factories[0](), None
        agents = AgentLayout(probe.spec_dict) if isinstance(probe, ParallelEnvAdapter) else None
        try:
            action_space = probe.action_space
            obs_space, batched_obs_space = observation_spaces(
                self.observation_mode, probe.observation_space, self.factories, self.num_envs
            )
            render_mode = getattr(probe, "render_mode", None)
            metadata = dict(probe.metadata)  # a copy: the env's (class-level) metadata stays as it is
            spec_max_steps = probe.spec.max_episode_steps if probe.spec is not None else None
        finally:
            probe.close()
        check_mode = self.observation_mode if isinstance(self.observation_mode, str) else "custom"
        pool = ProcessPool(self, obs_space, action_space, (check_mode, obs_space, action_space))
        task_spec = TaskSpec(
            task_id=self.name,
            observation_space=obs_space,
            action_space=action_space,
            config=dict(self.env_kwargs),
            max_episode_steps=self.options.max_episode_steps or spec_max_steps,
            reward_threshold=None,
            info_keys=("env_id", "elapsed_step"),
            render_shape=None,
            agents=agents,
        )
        return OpenedPool(
            pool=pool,
            task_spec=task_spec,
            abilities=PoolAbilities(python_envs=True, renders=render_mode is not None),
            render_mode=render_mode,
            config=dict(task_spec.config),
            workers=self.num_workers,
            observation_space=batched_obs_space,
            metadata=metadata,
        )


class ProcessPool(CorePoolAdapter):
    """The ``_core.ProcessPool`` of Python envs plus its worker processes, with the methods the
    front ends call (``send_reset``, ``render``, ``close``; ``send``/``recv``/``step`` as every
    :class:`CorePoolAdapter`'s: actions as flat arrays in, results with their info dicts out);
    ``env_calls`` has gymnasium's ``call``/``get_attr``/``set_attr``."""

    source: PythonEnvSource
    action_space: spaces.Space
    num_envs: int
    core: Any  # _core.ProcessPool
    workers: WorkerProcesses
    env_calls: EnvCalls
    _action: SpaceLeaves  # the action space as flat arrays (what the core checks and copies)
    _results: ResultAssembler
    _spill_dir: tempfile.TemporaryDirectory  # payloads too big for their slot (payloads.py)
    _finalizer: weakref.finalize | None

    def __init__(self, source: PythonEnvSource, obs_space: spaces.Space, action_space: spaces.Space, check: tuple):
        """``check``: (observation mode, observation space, action space) every env must match."""
        self._finalizer = None
        self.source = source
        self.action_space = action_space
        self.num_envs = source.num_envs
        self._spill_dir = payloads.make_spill_dir()
        obs = SpaceLeaves(obs_space, "obs", source.info_bytes)
        self._action = SpaceLeaves(action_space, "action", source.info_bytes, self._spill_dir.name)
        spec = {"obs": obs.array_specs(), "action": self._action.array_specs(), "info": [], "obs_is_tuple": False}
        self.core = _core.ProcessPool(
            source.name,
            spec,
            options=source.options,
            worker_start=source.worker_start,
            info_capacity=source.info_bytes,
            error_capacity=ERROR_BYTES,
        )
        layout = self.core.process_layout
        shm = np.frombuffer(self.core.shm_buffer(), dtype=np.uint8)
        self._results = ResultAssembler(obs, layout, shm, self.num_envs)
        self._finish = self._results.finish  # each batch's info dicts and nested obs (one call per step)
        # For the workers (cloudpickle: spaces of classes defined in a script travel too).
        pickled_spaces = cloudpickle.dumps((obs_space, action_space, check))
        self.workers = WorkerProcesses(
            self.core,
            source.context,
            source.worker_start,
            _worker_args(source, self.core, pickled_spaces, self._spill_dir.name),
            step_timeout=source.step_timeout,
            max_restarts=source.max_restarts,
        )
        self.env_calls = EnvCalls(self.core, self.workers, source.worker_start)
        self.workers.start()
        # A pool dropped without close() (or alive at interpreter exit) is shut down all the
        # same; the finalizer holds the workers, not the pool.
        self._finalizer = weakref.finalize(self, self.workers.shutdown)

    # -- the pool API the front ends call ---------------------------------------------------------

    def _actions(self, actions, env_id):
        n = self.num_envs if env_id is None else len(np.atleast_1d(env_id))
        try:
            return self._action.split(actions, n)[0]
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(
                f"actions must match the batched action space {batch_space(self.action_space, n)}: {exc!r}"
            ) from exc

    def send_reset(self, env_id, seeds, keep, wait_follows, options=None):
        """As ``_core.Pool.send_reset``; ``options``: the ``reset(options=...)`` each reset env
        gets (handed to the workers first; every env is idle then)."""
        self.env_calls.check_open()
        if options is not None:
            self.env_calls.reset_options(env_id, keep, options)
        self.core.send_reset(env_id, seeds, keep, wait_follows)

    def render(self, env_id=None) -> tuple:
        return self.env_calls.render(env_id)

    def _no_state(self) -> Exception:
        return NotImplementedError("Python envs have no state vector; use call() or get_attr()")

    @property
    def closed(self) -> bool:
        return self.workers.closed

    @property
    def worker_pids(self) -> list[int]:
        return [p.pid for p in self.workers.procs if p is not None]

    def close(self) -> None:
        workers = getattr(self, "workers", None)  # none if the core failed to open
        if workers is not None:
            workers.shutdown()
        spill_dir = getattr(self, "_spill_dir", None)
        if spill_dir is not None:
            spill_dir.cleanup()
        if self._finalizer is not None:  # none if the workers failed to start
            self._finalizer.detach()


def _worker_args(source: PythonEnvSource, core: Any, spaces_: bytes, spill_dir: str) -> list[dict]:
    """What each worker process starts from: its envs' factories and seeds (the pool's, as the
    core resolved them), and the pool's shared memory layout."""
    args = []
    seeds = core.options.env_seeds
    layout = core.process_layout
    for w, (s, e) in enumerate(zip(source.worker_start, source.worker_start[1:])):
        args.append(
            {
                "sys_path": list(sys.path),  # so that envs defined in the user's modules unpickle
                "main_pid": os.getpid(),
                "shm_fd": core.shm_fd,
                "layout": layout,
                "worker": w,
                "env_fns": cloudpickle.dumps(source.factories[s:e]),
                "seeds": [None] * (e - s) if seeds is None else seeds[s:e],
                "autoreset_mode": core.options.autoreset_mode,
                "spaces": spaces_,
                "spill_dir": spill_dir,
                "max_restarts": source.max_restarts,
                "spin_us": 50.0,
            }
        )
    return args
