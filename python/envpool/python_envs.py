"""Python envs in worker processes, behind the same pool API: ``envpool.make_python``.

The C++ core does what it does for native envs - the send/recv protocol, action checks,
episode rules, batch assembly - with a process executor (cpp/core/process_executor.h): sent
envs are queued to the worker process hosting them through shared memory, and the caller
collects finished rows into batches while it waits in ``recv()``. This module starts and
watches the workers (``_worker.py`` is their loop), turns nested spaces into flat arrays and
back (``leaves.py``), and batches info dicts as gymnasium's vector envs do.
"""

from __future__ import annotations

import inspect
import multiprocessing
import os
import pickle
import sys
import weakref
from typing import Any, Callable, Sequence

import cloudpickle
import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envpool import _core, leaves
from envpool._worker_procs import WorkerProcesses
from envpool.errors import EnvError
from envpool.pool import CORE_AUTORESET, OpenedPool, _check_int, parse_autoreset_mode
from envpool.registration import front_end_class
from envpool.tasks import TaskSpec

# Room for one env's error text (exception, message and traceback) in shared memory.
ERROR_BYTES = 16384

def make_python(
    env: str | Callable[..., gymnasium.Env] | Sequence[Callable[..., gymnasium.Env]],
    num_envs: int = 1,
    batch_size: int | None = None,
    num_workers: int | None = None,
    seed: int | None = 42,
    max_episode_steps: int | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    env_type: str = "gymnasium",
    step_timeout: float | None = None,
    max_restarts: int = 10,
    context: str | None = None,
    info_bytes: int = 4096,
    **env_kwargs: Any,
):
    """A pool of Python (gymnasium) envs stepped in worker processes.

    Args:
        env: a registered gymnasium id (``env_kwargs`` go to ``gymnasium.make``), a callable
            returning a ``gymnasium.Env``, or a list of ``num_envs`` such callables (lambdas
            and closures too: they are sent to the workers with cloudpickle). A callable that
            takes one argument gets an env context: ``env_kwargs`` plus ``worker_index``,
            ``vector_index`` (0..num_envs-1) and ``num_workers``, like RLlib's ``env_config``.
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
        info_bytes: room for one env's pickled info dict per step.

    >>> import envpool
    >>> envs = envpool.make_python("CartPole-v1", num_envs=4, num_workers=2)
    >>> obs, info = envs.reset()
    >>> obs.shape, info["env_id"].tolist()
    ((4, 4), [0, 1, 2, 3])
    >>> obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
    >>> reward.tolist()
    [1.0, 1.0, 1.0, 1.0]
    >>> envs.close()
    """
    if env_type == "dm" and parse_autoreset_mode(autoreset_mode) != AutoresetMode.NEXT_STEP:
        raise ValueError(f"env_type='dm' restarts episodes on the step after LAST; autoreset_mode {autoreset_mode!r} is not supported")
    source = PythonEnvSource(
        env,
        num_envs=num_envs,
        batch_size=batch_size,
        num_workers=num_workers,
        seed=seed,
        max_episode_steps=max_episode_steps,
        autoreset_mode=autoreset_mode,
        step_timeout=step_timeout,
        max_restarts=max_restarts,
        context=context,
        info_bytes=info_bytes,
        env_kwargs=env_kwargs,
    )
    return front_end_class(env_type)(source)


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
        if not isinstance(env, gymnasium.Env):
            raise TypeError(f"the env callable returned {type(env).__name__}, not a gymnasium.Env")
        return env


class _MakeById:
    def __init__(self, env_id: str, kwargs: dict):
        self.env_id = env_id
        self.kwargs = kwargs

    def __call__(self) -> gymnasium.Env:
        return gymnasium.make(self.env_id, **self.kwargs)


class PythonEnvSource:
    """Validates ``make_python``'s arguments and opens the pool when a front end asks."""

    def __init__(self, env, *, num_envs, batch_size, num_workers, seed, max_episode_steps, autoreset_mode,
                 step_timeout, max_restarts, context, info_bytes, env_kwargs):
        self.num_envs = _check_int("num_envs", num_envs, 1)
        self.batch_size = self.num_envs if batch_size is None else _check_int("batch_size", batch_size, 1)
        if self.batch_size > self.num_envs:
            raise ValueError(f"batch_size ({self.batch_size}) must not exceed num_envs ({self.num_envs})")
        cores = os.cpu_count() or 1
        self.num_workers = min(self.num_envs, cores) if num_workers is None else _check_int("num_workers", num_workers, 1)
        if self.num_workers > self.num_envs:
            raise ValueError(f"num_workers ({self.num_workers}) must not exceed num_envs ({self.num_envs})")
        self.seed = None if seed is None else _check_int("seed", seed, 0)
        self.max_episode_steps = None if max_episode_steps is None else _check_int("max_episode_steps", max_episode_steps, 0)
        self.autoreset_mode = parse_autoreset_mode(autoreset_mode)
        if step_timeout is not None and not (isinstance(step_timeout, (int, float)) and step_timeout > 0):
            raise ValueError(f"step_timeout must be a positive number of seconds or None, got {step_timeout!r}")
        self.step_timeout = step_timeout
        self.max_restarts = _check_int("max_restarts", max_restarts, 0)
        if context is None:
            context = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.context = context
        if self.context not in multiprocessing.get_all_start_methods():
            raise ValueError(f"context must be one of {multiprocessing.get_all_start_methods()}, got {context!r}")
        self.info_bytes = _check_int("info_bytes", info_bytes, 0)
        # Worker w hosts envs [worker_start[w], worker_start[w + 1]): contiguous, near-equal blocks.
        split = np.array_split(np.arange(self.num_envs), self.num_workers)
        self.worker_start = [int(ids[0]) for ids in split] + [self.num_envs]
        self.env_kwargs = dict(env_kwargs)
        self.name, self.factories = self._factories(env)

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
            raise TypeError(f"env must be a gymnasium id, a callable returning a gymnasium.Env or a list of them; got {env!r}")
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
                context = {**self.env_kwargs, "worker_index": worker, "vector_index": i, "num_workers": self.num_workers}
            factories.append(_EnvFactory(fn, context))
        name = getattr(fns[0], "__name__", type(fns[0]).__name__)
        return f"python:{name}", factories

    def open_pool(self) -> OpenedPool:
        # One env made here, as gymnasium's AsyncVectorEnv does, tells the spaces.
        probe = self.factories[0]()
        try:
            obs_space, action_space = probe.observation_space, probe.action_space
            render_mode = getattr(probe, "render_mode", None)
            spec_max_steps = probe.spec.max_episode_steps if probe.spec is not None else None
        finally:
            probe.close()
        pool = ProcessPool(self, obs_space, action_space)
        task_spec = TaskSpec(
            task_id=self.name,
            observation_space=obs_space,
            action_space=action_space,
            config=dict(self.env_kwargs),
            max_episode_steps=self.max_episode_steps or spec_max_steps,
            reward_threshold=None,
            info_keys=("env_id", "elapsed_step"),
            render_shape=None,
        )
        return OpenedPool(
            pool=pool,
            task_spec=task_spec,
            num_envs=self.num_envs,
            batch_size=self.batch_size,
            num_threads=self.num_workers,
            max_episode_steps=self.max_episode_steps,
            autoreset_mode=self.autoreset_mode,
            render_mode=render_mode,
            config=dict(task_spec.config),
        )


def _structure(space: spaces.Space) -> Any:
    if isinstance(space, spaces.Dict):
        return ("dict", {key: _structure(sub) for key, sub in space.spaces.items()})
    if isinstance(space, spaces.Tuple):
        return ("tuple", [_structure(sub) for sub in space.spaces])
    return None


def batch_infos(infos: list[dict], n: int) -> dict:
    """Per-row info dicts batched as gymnasium's vector envs batch them: each key an array of
    ``n`` rows (numbers and arrays typed, anything else an object array) with a ``_key`` mask."""
    out: dict = {}
    for row, info in enumerate(infos):
        if info:
            _add_info(out, info, row, n)
    return out


def _add_info(out: dict, info: dict, row: int, n: int) -> None:
    for key, value in info.items():
        if isinstance(value, dict):
            sub = out.setdefault(key, {})
            _add_info(sub, value, row, n)
        else:
            if key not in out:
                if type(value) in (int, float, bool) or isinstance(value, np.number):
                    out[key] = np.zeros(n, dtype=type(value))
                elif isinstance(value, np.ndarray):
                    out[key] = np.zeros((n, *value.shape), dtype=value.dtype)
                else:
                    out[key] = np.full(n, fill_value=None, dtype=object)
            out[key][row] = value
        mask = out.setdefault(f"_{key}", np.zeros(n, dtype=np.bool_))
        mask[row] = True


class ProcessPool:
    """The ``_core.Pool`` of a Python-env pool plus its worker processes, with the methods
    the front ends call (``send_reset``, ``send``, ``recv``, ``step``, ``render``, ...)."""

    def __init__(self, source: PythonEnvSource, obs_space: spaces.Space, action_space: spaces.Space):
        self.source = source
        self.obs_space, self.action_space = obs_space, action_space
        self.num_envs, self.batch_size = source.num_envs, source.batch_size
        self.obs_leaves = leaves.leaves(obs_space)
        self.action_leaves = leaves.leaves(action_space)
        spec = {
            "obs": [leaves.array_spec(p, s, "obs") for p, s in self.obs_leaves],
            "action": [leaves.array_spec(p, s, "action") for p, s in self.action_leaves],
            "info": [],
            "obs_is_tuple": False,
        }
        self.obs_names = [s["name"] for s in spec["obs"]]
        self.action_names = [s["name"] for s in spec["action"]]
        self.worker_start = source.worker_start
        self.core = _core.Pool.for_processes(
            source.name,
            spec,
            self.num_envs,
            self.batch_size,
            source.max_episode_steps or 0,
            CORE_AUTORESET[source.autoreset_mode],
            self.worker_start,
            source.info_bytes,
            ERROR_BYTES,
        )
        self.max_episode_steps = self.core.max_episode_steps
        layout = self.core.process_layout
        self.layout = layout
        buf = np.frombuffer(self.core.shm_buffer(), dtype=np.uint8)
        fields = layout["env_fields"]
        # Per env: lengths of its staged info dicts (-1: that half of the op did not happen).
        stride = layout["env_stride"]
        i32 = buf[layout["envs"] :].view(np.int32)
        self._info_step_len = i32[fields["info_step_len"] // 4 :: stride // 4][: self.num_envs]
        self._info_reset_len = i32[fields["info_reset_len"] // 4 :: stride // 4][: self.num_envs]
        self._buf = buf
        pickled = [cloudpickle.dumps(source.factories[s:e]) for s, e in zip(self.worker_start, self.worker_start[1:])]
        self.workers = WorkerProcesses(
            self.core,
            source.context,
            self.worker_start,
            [self._worker_args(w, pickled[w]) for w in range(source.num_workers)],
            step_timeout=source.step_timeout,
            max_restarts=source.max_restarts,
        )
        self.workers.start()
        # A pool dropped without close() (or alive at interpreter exit) is shut down all the
        # same; the finalizer holds the workers, not the pool.
        self._finalizer = weakref.finalize(self, self.workers.shutdown)

    def _worker_args(self, w: int, env_fns: bytes) -> dict:
        s, e = self.worker_start[w], self.worker_start[w + 1]
        seed = self.source.seed
        obs = [(p, leaves.leaf_dtype(sp), sp.shape, isinstance(sp, spaces.Discrete)) for p, sp in self.obs_leaves]
        act = [(p, leaves.leaf_dtype(sp), sp.shape, isinstance(sp, spaces.Discrete)) for p, sp in self.action_leaves]
        return {
            "sys_path": list(sys.path),  # so that envs defined in the user's modules unpickle
            "main_pid": os.getpid(),
            "shm_fd": self.core.shm_fd,
            "layout": self.layout,
            "worker": w,
            "env_fns": env_fns,
            "seeds": [None if seed is None else seed + i for i in range(s, e)],
            "autoreset_mode": CORE_AUTORESET[self.source.autoreset_mode],
            "obs_leaves": obs,
            "action_leaves": act,
            "action_structure": _structure(self.action_space),
            "max_restarts": self.source.max_restarts,
            "spin_us": 50.0,
        }

    # -- the pool API the front ends call ---------------------------------------------------------

    def _actions(self, actions):
        if len(self.action_leaves) == 1 and self.action_leaves[0][0] == ():
            return actions
        try:
            return {name: leaves.get(actions, path) for name, (path, _) in zip(self.action_names, self.action_leaves)}
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"actions must match the batched action space {batch_space(self.action_space, 1)}: {exc!r}") from exc

    def send_reset(self, env_id, seeds, keep, wait_follows):
        self.core.send_reset(env_id, seeds, keep, wait_follows)

    def send(self, actions, env_id=None):
        self.core.send(self._actions(actions), env_id)

    def recv(self, timeout: float = -1.0):
        try:
            return self._finish(self.core.recv(timeout))
        except EnvError as err:
            raise EnvError(err.env_ids, err.messages, self._finish(err.result)) from None

    def step(self, actions, env_id=None, timeout: float = -1.0):
        try:
            return self._finish(self.core.step(self._actions(actions), env_id, timeout))
        except EnvError as err:
            raise EnvError(err.env_ids, err.messages, self._finish(err.result)) from None

    def _obs(self, flat):
        if len(self.obs_leaves) == 1 and self.obs_leaves[0][0] == ():
            return flat
        return leaves.build(self.obs_space, {path: flat[name] for name, (path, _) in zip(self.obs_names, self.obs_leaves)})

    def _staged_info(self, env_id: int, reset: bool) -> dict:
        e = self.layout["envs"] + env_id * self.layout["env_stride"]
        start = e + (self.layout["info_reset"] if reset else self.layout["info_step"])
        length = int((self._info_reset_len if reset else self._info_step_len)[env_id])
        return pickle.loads(self._buf[start : start + length].tobytes()) if length > 0 else {}

    def _finish(self, result):
        obs, reward, terminated, truncated, info = result
        ids = info["env_id"]
        n = len(ids)
        step_len, reset_len = self._info_step_len[ids], self._info_reset_len[ids]
        # A row's info is its reset's when it reset (a reset, or a same-step autoreset), else its step's.
        rows = np.flatnonzero((reset_len > 0) | ((reset_len < 0) & (step_len > 0)))
        if len(rows):
            per_row = [{} for _ in range(n)]
            for r in rows:
                per_row[r] = self._staged_info(int(ids[r]), reset=bool(reset_len[r] >= 0))
            for key, value in batch_infos(per_row, n).items():
                info.setdefault(key, value)
        if "final_obs" in info:
            info["final_obs"] = self._obs(info["final_obs"])
            ended = np.flatnonzero(info["_final_obs"] & (step_len > 0))
            if len(ended):
                per_row = [{} for _ in range(n)]
                for r in ended:
                    per_row[r] = self._staged_info(int(ids[r]), reset=False)
                for key, value in batch_infos(per_row, n).items():
                    info["final_info"].setdefault(key, value)
        return self._obs(obs), reward, terminated, truncated, info

    def render(self, env_id=None):
        ids = np.arange(self.num_envs) if env_id is None else np.asarray(env_id, dtype=np.int64).reshape(-1)
        if ((ids < 0) | (ids >= self.num_envs)).any():
            raise ValueError(f"env_id must be in [0, {self.num_envs}), got {ids.tolist()}")
        frames = {}
        for w in range(self.source.num_workers):
            s, e = self.worker_start[w], self.worker_start[w + 1]
            mine = [int(i) for i in ids if s <= i < e]
            if mine:
                for i, frame in zip(mine, self._control(w, ("render", mine))):
                    frames[i] = frame
        return np.stack([frames[int(i)] for i in ids])

    def _control(self, w: int, message: tuple) -> Any:
        if self.core.in_flight:
            raise RuntimeError(
                f"{message[0]}() needs every env idle, but {self.core.in_flight} are in flight; recv() them first"
            )
        return self.workers.control(w, message)

    def call(self, name: str, *args, **kwargs) -> tuple:
        out: list = []
        for w in range(self.source.num_workers):
            out.extend(self._control(w, ("call", name, args, kwargs)))
        return tuple(out)

    def get_attr(self, name: str) -> tuple:
        out: list = []
        for w in range(self.source.num_workers):
            out.extend(self._control(w, ("get_attr", name)))
        return tuple(out)

    def set_attr(self, name: str, values) -> None:
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"set_attr() got {len(values)} values for {self.num_envs} envs")
        for w in range(self.source.num_workers):
            s, e = self.worker_start[w], self.worker_start[w + 1]
            self._control(w, ("set_attr", name, list(values[s:e])))

    def get_state(self, env_id):
        raise NotImplementedError("Python envs have no state vector; use call() or get_attr()")

    set_state = get_state

    @property
    def in_flight(self) -> int:
        return self.core.in_flight

    @property
    def closed(self) -> bool:
        return self.workers.closed

    @property
    def worker_pids(self) -> list[int]:
        return [p.pid for p in self.workers.procs if p is not None]

    def close(self) -> None:
        self.workers.shutdown()
        finalizer = getattr(self, "_finalizer", None)  # none if the workers failed to start
        if finalizer is not None:
            finalizer.detach()
