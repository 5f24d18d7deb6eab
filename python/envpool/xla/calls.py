"""``envs.xla()``: the pool stepped from inside ``jax.jit`` / ``lax.scan`` / ``lax.while_loop``.

``handle, recv, send, step = envs.xla()`` returns the reference EnvPool's pure functions:

- ``recv(handle) -> (handle, result)``: the next batch;
- ``send(handle, action, env_id=None) -> handle``: hands actions to envs and returns at once;
- ``step(handle, action, env_id=None) -> (handle, result)``: both in one call.

``result`` is what the front end's ``recv()`` returns (``(obs, reward, terminated, truncated,
info)`` for ``env_type="gymnasium"``; ``(obs, reward, done, info)`` for ``"gym"`` with gym
0.21-0.25 installed; a ``TimeStep`` for ``"dm"``) as jax arrays. Each function
is one XLA FFI custom call (``jax.ffi.ffi_call``) into the C++ pool: no Python runs per step.
Threading ``handle`` (an int32[1] naming the pool) through the calls orders them: every call
takes the handle the previous one returned (an input aliased to its output) and is marked
``has_side_effect``, so XLA neither reorders, drops nor merges them.

The handlers are a small C++ library compiled against the installed jaxlib at first use
(envpool/xla/build.py); they call ``envpool._core`` through the C table of
``cpp/xla_ffi/envpool_xla_api.h``. docs/jax.md has the design, the API and its limits.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import jax
    import jax.numpy as jnp
    from jax import ffi
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("envs.xla() needs jax: pip install 'envpool-ng[jax]'") from exc

from envpool import _core
from envpool.xla import build as _xla_build
from envpool.xla.rows import AgentRows, is_agent_rows, is_pettingzoo

_register_lock = threading.Lock()
_registered = False


def _register_targets() -> None:
    """Builds or loads the handler library, hands it _core's table, registers the targets."""
    global _registered
    with _register_lock:
        if _registered:
            return
        library = _xla_build.handler_library()
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype = ctypes.c_void_p
        get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        table = get_pointer(_core.xla_api(), b"envpool._core.xla_api")
        found = library.envpool_xla_init(table)
        if found != 0:
            raise RuntimeError(
                f"envpool's XLA handler library expects table version {library.envpool_xla_api_version()}, "
                f"_core has {found}: rebuild envpool"
            )
        for call in ("send", "recv", "step", "agent_env_ids"):
            ffi.register_ffi_target(
                f"envpool_ng_{call}", ffi.pycapsule(getattr(library, f"envpool_ng_{call}_cpu")), platform="cpu"
            )
        _registered = True


def _jax_dtype(name: str) -> np.dtype:
    """The dtype jax gives a field of dtype ``name`` now (float64 -> float32 without x64)."""
    return np.dtype(jax.dtypes.canonicalize_dtype(np.dtype(name)))


def _check_action(spec: dict, value: Any, rows: int) -> None:
    """While tracing, the checks the core makes of NumPy actions (core/protocol.h: ActionKindFits,
    CheckActionShape), with the same messages; tests/xla/test_xla.py checks that both agree."""
    name, dtype = spec["name"], np.dtype(spec["dtype"])
    integers = jnp.issubdtype(value.dtype, jnp.integer)
    if dtype == np.bool_:
        ok, what = integers or value.dtype == jnp.bool_, "bools"
    elif spec["discrete"] or dtype.kind in "iu":
        ok, what = integers, "integers (a discrete action)" if spec["discrete"] else "integers"
    else:
        ok, what = integers or jnp.issubdtype(value.dtype, jnp.floating), "real numbers"
    if not ok:
        raise TypeError(f"action {name!r} must hold {what}, got {value.dtype} values")
    if value.ndim == 0:
        raise TypeError(f"action {name!r} is a scalar; a batch needs one action per env ({rows} rows)")
    want = (rows, *spec["shape"])
    if tuple(value.shape) != want:
        raise ValueError(f"action {name!r} has shape {tuple(value.shape)} but {rows} envs need shape {want}")


class _Calls:
    """The pool's three FFI calls and the conversion of their arguments and results."""

    def __init__(self, envs: Any, pool: Any, timeout: float | None):
        self.envs = envs
        self.pool_id = pool.xla_id()
        self.num_envs, self.batch_size = pool.num_envs, pool.batch_size
        self.fields = pool.batch_fields
        spec = pool.spec
        self.action_specs = spec["action"]
        self.obs_names = [a["name"] for a in spec["obs"]]
        self.obs_is_tuple = spec["obs_is_tuple"]
        self.info_names = [a["name"] for a in spec["info"]]
        self.at = _Positions(self.fields, self.obs_names, self.info_names)
        self.timeout = np.float64(-1.0 if timeout is None else timeout)
        # The agents-as-rows front end: actions, env ids and results in agent rows (xla/rows.py).
        self.rows = AgentRows(envs, spec) if is_agent_rows(envs) else None

    # -- arguments -------------------------------------------------------------------------------

    def env_ids(self, env_id: Any, action: Any = None) -> tuple[Any, bool, int]:
        """(ids array, all_envs, rows)."""
        if self.rows is not None and env_id is not None:
            env_id = self.rows.env_ids(env_id, action)
        if env_id is None:
            if self.batch_size != self.num_envs:
                raise ValueError(
                    f"send()/step() of an asynchronous pool (batch_size={self.batch_size} < num_envs="
                    f"{self.num_envs}) needs env_id: the info['env_id'] of the batch being answered"
                )
            return jnp.zeros((0,), jnp.int32), True, self.num_envs
        ids = jnp.asarray(env_id)
        if not jnp.issubdtype(ids.dtype, jnp.integer):
            raise TypeError(f"env_id must hold integers, got {ids.dtype}")
        if ids.ndim != 1:
            raise ValueError(f"env_id must be 1-D, got shape {ids.shape}")
        if self.batch_size == self.num_envs and ids.shape[0] != self.num_envs:
            raise ValueError(
                f"a full-batch pool steps all its {self.num_envs} envs at once inside jit; "
                f"env_id has {ids.shape[0]} ids"
            )
        return ids.astype(jnp.int32), False, int(ids.shape[0])

    def actions(self, action: Any, rows: int) -> list[Any]:
        """One array per action field, in the core's dtype as jax has it (int64 or int32 for
        discrete actions, without x64), checked for kind and shape while tracing."""
        if len(self.action_specs) == 1 and not isinstance(action, dict):
            given = [action]
        else:
            if not isinstance(action, dict):
                raise TypeError(
                    f"actions must be a dict of arrays for this env: {[a['name'] for a in self.action_specs]}"
                )
            missing = [a["name"] for a in self.action_specs if a["name"] not in action]
            if missing:
                raise ValueError(f"actions lack the keys {missing}")
            given = [action[a["name"]] for a in self.action_specs]
        out = []
        for value, spec in zip(given, self.action_specs):
            value = jnp.asarray(value)
            if self.rows is not None:
                value = self.rows.env_actions(spec["name"], value, rows)
            _check_action(spec, value, rows)
            out.append(value.astype(_jax_dtype(spec["dtype"])))
        return out

    # -- the calls -------------------------------------------------------------------------------

    def results_shape(self) -> tuple[Any, ...]:
        handle = jax.ShapeDtypeStruct((1,), jnp.int32)
        fields = [jax.ShapeDtypeStruct((self.batch_size, *f["shape"]), _jax_dtype(f["dtype"])) for f in self.fields]
        return (handle, *fields)

    def send(self, handle: Any, action: Any, env_id: Any = None) -> Any:
        ids, all_envs, rows = self.env_ids(env_id, action)
        call = ffi.ffi_call(
            "envpool_ng_send", jax.ShapeDtypeStruct((1,), jnp.int32), has_side_effect=True, input_output_aliases={0: 0}
        )
        return call(_handle(handle), ids, *self.actions(action, rows), pool=self.pool_id, all_envs=all_envs)

    def recv(self, handle: Any) -> tuple[Any, Any]:
        call = ffi.ffi_call("envpool_ng_recv", self.results_shape(), has_side_effect=True, input_output_aliases={0: 0})
        out = call(_handle(handle), pool=self.pool_id, timeout=self.timeout)
        return out[0], self.present(out[1:])

    def step(self, handle: Any, action: Any, env_id: Any = None) -> tuple[Any, Any]:
        ids, all_envs, rows = self.env_ids(env_id, action)
        call = ffi.ffi_call("envpool_ng_step", self.results_shape(), has_side_effect=True, input_output_aliases={0: 0})
        out = call(
            _handle(handle),
            ids,
            *self.actions(action, rows),
            pool=self.pool_id,
            all_envs=all_envs,
            timeout=self.timeout,
        )
        return out[0], self.present(out[1:])

    # -- results ---------------------------------------------------------------------------------

    def _obs(self, values: tuple[Any, ...]) -> Any:
        if len(values) == 1:
            return values[0]
        if self.obs_is_tuple:
            return tuple(values)
        return dict(zip(self.obs_names, values))

    def present(self, arrays: tuple[Any, ...]) -> Any:
        """The front end's result from the batch's fields, as the pool's recv() shapes them
        (cpp/bindings/results.cc); same-step autoreset's final_* keys are always present inside
        jit (static structure). Fields are taken by position, never by name: an env's info array
        may share its name with a pool field (Atari's info ``reward`` is the unclipped reward,
        the pool's ``reward`` the clipped one), and both must arrive where the Python API puts them."""
        at = self.at
        reward, terminated, truncated = arrays[at.reward], arrays[at.terminated], arrays[at.truncated]
        info = {"env_id": arrays[at.env_id], "elapsed_step": arrays[at.elapsed_step]}
        info.update(zip(self.info_names, arrays[at.info]))
        if at.final_obs is not None:
            done = terminated | truncated
            info["final_obs"] = self._obs(arrays[at.final_obs])
            info["_final_obs"] = done
            final_info = {"env_id": arrays[at.env_id], "_env_id": done}
            final_info.update({"elapsed_step": arrays[at.final_elapsed_step], "_elapsed_step": done})
            for name, value in zip(self.info_names, arrays[at.final_info]):
                final_info[name], final_info["_" + name] = value, done
            info["final_info"], info["_final_info"] = final_info, done
        result = (self._obs(arrays[at.obs]), reward, terminated, truncated, info)
        if self.rows is not None:
            return self.rows.result(result)
        return _present_for(self.envs, result)


class _Positions:
    """Where each part of a batch lies among its fields (cpp/core/buffers.h, BatchLayout::For:
    obs..., reward, terminated, truncated, env_id, elapsed_step, info..., and with same-step
    autoreset final_<obs>..., final_elapsed_step, final_<info>...). The names are checked
    against that order once, so a layout change fails loudly here instead of mixing fields."""

    def __init__(self, fields: list[dict], obs_names: list[str], info_names: list[str]):
        n_obs, n_info = len(obs_names), len(info_names)
        self.obs = slice(0, n_obs)
        self.reward, self.terminated, self.truncated, self.env_id, self.elapsed_step = range(n_obs, n_obs + 5)
        self.info = slice(n_obs + 5, n_obs + 5 + n_info)
        expected = [*obs_names, "reward", "terminated", "truncated", "env_id", "elapsed_step", *info_names]
        self.final_obs = self.final_elapsed_step = self.final_info = None
        if len(fields) > len(expected):
            start = len(expected)
            self.final_obs = slice(start, start + n_obs)
            self.final_elapsed_step = start + n_obs
            self.final_info = slice(start + n_obs + 1, start + n_obs + 1 + n_info)
            expected += [*("final_" + n for n in obs_names), "final_elapsed_step", *("final_" + n for n in info_names)]
        names = [f["name"] for f in fields]
        if names != expected:
            raise RuntimeError(f"envpool's batch layout {names} is not the one envpool.xla expects {expected}")


def _handle(handle: Any) -> Any:
    handle = jnp.asarray(handle)
    if handle.shape != (1,) or handle.dtype != jnp.int32:
        raise TypeError(
            "handle must be the int32[1] array xla() returned (or its successor), "
            f"got {handle.dtype}{list(handle.shape)}"
        )
    return handle


def _present_for(envs: Any, result: tuple[Any, ...]) -> Any:
    """``result`` as ``envs``' own recv() would present it: through the front end's own
    reshaping, written for NumPy and jax arrays alike."""
    if hasattr(envs, "_time_step"):  # the dm front end
        return envs._time_step(result, jnp)
    gym_result = getattr(envs, "_gym_result", None)  # the gym front end's reshaping, where it has one
    if gym_result is not None:
        return gym_result(result)
    return result


def wait_for_dispatched_calls() -> None:
    """Waits until every jitted computation with side effects that jax has dispatched has run
    (``jax.effects_barrier``). Their own errors stay with their results, not raised here."""
    try:
        jax.effects_barrier()
    except Exception:  # noqa: BLE001 - e.g. a dispatched call that failed: its results raise it
        pass


def make_xla(envs: Any, timeout: float | None = None) -> tuple[np.ndarray, Callable, Callable, Callable]:
    """``(handle, recv, send, step)`` for the pool behind front end ``envs`` (see the module doc).

    ``timeout`` (seconds) bounds each recv's wait inside jit: past it the call fails with
    "no batch was complete within ..." (nothing is lost; the next recv returns the batch).
    """
    pool = getattr(envs, "_pool", None)
    if not isinstance(pool, _core.Pool):
        raise TypeError(
            "xla() steps native and plugin pools (envpool.make); pools of Python envs (make_python, whose "
            "info dicts are Python objects) and of external episodes (envpool.serve, whose batches may be "
            "partial) cannot run inside jit"
        )
    if is_pettingzoo(envs):
        raise TypeError(
            "xla() cannot step env_type='pettingzoo' views inside jit: their results are per-agent dicts of the "
            "agents alive in each env; make the task with env_type='gymnasium' (agents as rows, fixed shapes) "
            "for xla()"
        )
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer, np.floating))
    ):
        raise TypeError(f"timeout must be None or a number of seconds, got {type(timeout).__name__} {timeout!r}")
    if timeout is not None and not timeout >= 0:
        raise ValueError(f"timeout must be None or >= 0 seconds, got {timeout!r}")
    calls = _Calls(envs, pool, timeout)
    _register_targets()
    handle = np.array([calls.pool_id], dtype=np.int32)
    return handle, calls.recv, calls.send, calls.step
