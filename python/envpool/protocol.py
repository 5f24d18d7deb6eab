"""The reference EnvPool's public typing interface (its ``envpool.python.protocol``), answered by
this envpool: ``EnvSpec``, ``EnvPool``, ``DMEnvPool`` and ``GymnasiumEnvPool`` for annotations
and ``isinstance`` checks, and what the reference's specs offer beyond spaces: a config readable
by attribute and by key (:class:`Config`), ``state_array_spec`` and ``action_array_spec``
(:class:`ArraySpec` per array) and, for a pool, ``envs.spec`` (:class:`PoolSpec`).

The reference's classes are ``typing.Protocol`` classes that ``isinstance`` refuses; here they
are abstract classes that every matching object is an instance of:

* ``EnvSpec``: what :func:`envpool.make_spec` returns and every pool's ``spec``;
* ``EnvPool``: every pool ``envpool.make`` (or ``make_python``) returns;
* ``GymnasiumEnvPool``: pools that are gymnasium vector envs (``env_type="gymnasium"`` and
  ``"gym"``: the reference's ``make_gymnasium`` and ``make_gym`` both return one);
* ``DMEnvPool``: pools that are ``dm_env.Environment`` s (``env_type="dm"``).

>>> import envpool
>>> envs = envpool.make("CartPole-v1", num_envs=2)
>>> isinstance(envs, envpool.GymnasiumEnvPool), isinstance(envs, envpool.DMEnvPool)
(True, False)
>>> envs.spec.config.max_episode_steps, envs.spec.config["num_envs"]
(500, 2)
>>> envs.spec.state_array_spec["obs"]
ArraySpec(shape=[4], dtype=float32, minimum=[-4.8 -inf -0.41887903 -inf], maximum=[4.8 inf 0.41887903 inf])
>>> envs.spec.state_array_spec["info:env_id"].dtype
dtype('int32')
>>> envs.close()
"""

from __future__ import annotations

import abc
import sys
from typing import Any

import numpy as np
from gymnasium import spaces


class Config(dict):
    """A config readable both ways: ``config["g"]`` as a dict and ``config.g`` as the
    reference's namedtuple config. A key that is not a Python identifier is read by key only."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # pickle/copy probe dunders; never config keys
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"config has no key {name!r}; its keys: {', '.join(sorted(self))}") from None

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *(k for k in self if isinstance(k, str) and k.isidentifier())})


class ArraySpec:
    """One array of an env's row, as the reference's ``ArraySpec``: ``dtype`` (a NumPy dtype),
    ``shape`` (a list; per env, without the batch dimension; ``-1`` is the reference's players
    dimension), ``minimum`` / ``maximum`` (scalars, or arrays of per-element bounds) and
    ``is_discrete``."""

    def __init__(self, dtype: Any, shape: list[int], minimum: Any, maximum: Any, is_discrete: bool = False):
        self.dtype = np.dtype(dtype)
        self.shape = list(shape)
        self.minimum = minimum
        self.maximum = maximum
        self.is_discrete = is_discrete

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArraySpec):
            return NotImplemented
        return (
            (self.dtype, self.shape, self.is_discrete) == (other.dtype, other.shape, other.is_discrete)
            and np.array_equal(self.minimum, other.minimum)
            and np.array_equal(self.maximum, other.maximum)
        )

    __hash__ = None  # mutable, compared by value

    def __repr__(self) -> str:
        return f"ArraySpec(shape={self.shape}, dtype={self.dtype}, minimum={self.minimum}, maximum={self.maximum})"


def _bound(values: list[float], default: float, dtype: np.dtype) -> Any:
    """A scalar, or per-element bounds as an array of the array's dtype (the core lists them
    as doubles)."""
    if not values:
        return default
    bound = np.asarray(values).astype(dtype)
    return bound[0] if len(values) == 1 else bound


def _from_core(spec: dict[str, Any]) -> ArraySpec:
    """An array as ``_core.env_spec`` lists it (bounds: none, one broadcast, or one per element)."""
    dtype = np.dtype(spec["dtype"])
    if dtype.kind == "f":
        lo, hi = -np.inf, np.inf
    elif dtype.kind == "b":
        lo, hi = False, True
    else:
        lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
    return ArraySpec(
        dtype,
        list(spec["shape"]),
        _bound(spec["low"], lo, dtype),
        _bound(spec["high"], hi, dtype),
        bool(spec["discrete"]),
    )


def _from_space(space: spaces.Space) -> ArraySpec:
    """An array of a Python env's space (its bounds where the space has them)."""
    if isinstance(space, spaces.Discrete):
        return ArraySpec(space.dtype, [], int(space.start), int(space.start + space.n - 1), True)
    low, high = getattr(space, "low", None), getattr(space, "high", None)
    if isinstance(space, spaces.MultiBinary):
        low, high = 0, 1
    elif isinstance(space, spaces.MultiDiscrete):
        low, high = space.start, space.start + space.nvec - 1
    return ArraySpec(space.dtype, list(space.shape or ()), low, high)


def _named(prefix: str, space: spaces.Space) -> dict[str, ArraySpec]:
    """``{prefix: spec}`` for one array; ``{prefix:name: spec}`` for each of a Tuple / Dict."""
    if isinstance(space, spaces.Dict):
        return {f"{prefix}:{key}": _from_space(sub) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return {f"{prefix}:{i}": _from_space(sub) for i, sub in enumerate(space.spaces)}
    return {prefix: _from_space(space)}


# The reference's common state arrays (its core/env_spec.h common_state_spec), in its order.
_COMMON_STATE = {
    "info:env_id": ArraySpec(np.int32, [], np.iinfo(np.int32).min, np.iinfo(np.int32).max),
    "info:players.env_id": ArraySpec(np.int32, [-1], np.iinfo(np.int32).min, np.iinfo(np.int32).max),
    "elapsed_step": ArraySpec(np.int32, [], np.iinfo(np.int32).min, np.iinfo(np.int32).max),
    "done": ArraySpec(np.bool_, [], False, True),
    "reward": ArraySpec(np.float32, [-1], -np.inf, np.inf),
    "discount": ArraySpec(np.float32, [-1], 0.0, 1.0),
    "step_type": ArraySpec(np.int32, [], np.iinfo(np.int32).min, np.iinfo(np.int32).max),
    "trunc": ArraySpec(np.bool_, [], False, True),
}
_COMMON_ACTION = {
    "env_id": ArraySpec(np.int32, [], np.iinfo(np.int32).min, np.iinfo(np.int32).max),
    "players.env_id": ArraySpec(np.int32, [-1], np.iinfo(np.int32).min, np.iinfo(np.int32).max),
}


def state_array_spec(
    arrays: dict[str, Any] | None, observation_space: spaces.Space, info_keys: tuple[str, ...]
) -> dict[str, ArraySpec]:
    """The reference's ``state_array_spec``: its common arrays (``info:env_id``,
    ``elapsed_step``, ``done``, ``reward``, ``discount``, ``step_type``, ``trunc``, ...), then
    the observation (``obs``, or ``obs:<name>`` per array of several) and the env's own info
    arrays (``info:<name>``). ``arrays``: ``_core.env_spec``'s lists (native tasks); None for
    Python envs, whose observation comes from its space (their info arrays are not declared)."""
    out = {key: spec for key, spec in _COMMON_STATE.items()}
    if arrays is None:
        out.update(_named("obs", observation_space))
        return out
    obs = arrays["obs"]
    if len(obs) == 1:
        out["obs"] = _from_core(obs[0])
    else:
        for i, spec in enumerate(obs):
            out[f"obs:{i if arrays.get('obs_is_tuple') else spec['name']}"] = _from_core(spec)
    declared = {spec["name"]: spec for spec in arrays["info"]}
    for key in info_keys:
        if key in declared:
            out[f"info:{key}"] = _from_core(declared[key])
    return out


def action_array_spec(arrays: dict[str, Any] | None, action_space: spaces.Space) -> dict[str, ArraySpec]:
    """The reference's ``action_array_spec``: ``env_id``, ``players.env_id``, then ``action``
    (or ``action:<name>`` per array of several)."""
    out = dict(_COMMON_ACTION)
    if arrays is None:
        out.update(_named("action", action_space))
    elif len(arrays["action"]) == 1:
        out["action"] = _from_core(arrays["action"][0])
    else:
        out.update({f"action:{spec['name']}": _from_core(spec) for spec in arrays["action"]})
    return out


class EnvSpec(abc.ABC):  # noqa: B024 - an interface for isinstance and annotations, no abstract method
    """A task's spec (:class:`envpool.tasks.TaskSpec`, from :func:`envpool.make_spec`) or a pool's
    (:class:`PoolSpec`, ``envs.spec``): ``config`` (a :class:`Config`), ``observation_space`` /
    ``action_space`` (one env's), ``reward_threshold``, ``state_array_spec``,
    ``action_array_spec``."""


def _pool_front_end() -> type | None:
    module = sys.modules.get("envpool.frontends.pool")
    return None if module is None else module.PoolFrontEnd


class EnvPool(abc.ABC):  # noqa: B024
    """Every pool ``envpool.make`` returns, whatever its ``env_type``."""

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        if cls is not EnvPool:
            return NotImplemented
        base = _pool_front_end()
        return NotImplemented if base is None or not issubclass(other, base) else True


class GymnasiumEnvPool(EnvPool):
    """Pools that are gymnasium vector envs: ``make(..., env_type="gymnasium")`` and
    ``make_gym`` (the reference's ``make_gymnasium`` and ``make_gym`` both return one)."""

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        if cls is not GymnasiumEnvPool:
            return NotImplemented
        import gymnasium

        base = _pool_front_end()
        if base is not None and issubclass(other, base) and issubclass(other, gymnasium.vector.VectorEnv):
            return True
        return NotImplemented


class DMEnvPool(EnvPool):
    """Pools that are ``dm_env.Environment`` s: ``make(..., env_type="dm")`` / ``make_dm``."""

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        if cls is not DMEnvPool:
            return NotImplemented
        dm_env = sys.modules.get("dm_env")  # no dm pool exists until dm_env is imported
        base = _pool_front_end()
        if (
            dm_env is not None
            and base is not None
            and issubclass(other, base)
            and issubclass(other, dm_env.Environment)
        ):
            return True
        return NotImplemented


class PoolSpec(EnvSpec):
    """A pool's ``envs.spec``, as the reference's: ``config`` (a :class:`Config` of the env
    kwargs, per-env ones as lists, and the pool's ``num_envs``, ``batch_size``, ``num_threads``,
    ``seed``, ``max_episode_steps`` (None: no limit) and ``thread_affinity_offset``),
    ``observation_space`` / ``action_space`` (one env's), ``reward_threshold``,
    ``state_array_spec`` and ``action_array_spec``.

    A pool made by ``gymnasium.make_vec`` also has gymnasium's spec (its ``EnvSpec``): its other
    attributes (``id``, ``kwargs``, ``entry_point``, ...) are read through, as gymnasium's
    wrappers read them. Other pools: ``id`` is their task's gymnasium id (``"envpool/<task>"``,
    see envpool.registration.gymnasium_ids).
    """

    def __init__(self, task_spec: Any, config: dict[str, Any], gymnasium_spec: Any = None):
        self.task_spec = task_spec
        self.config = Config(config)
        self.gymnasium_spec = gymnasium_spec

    @property
    def observation_space(self) -> spaces.Space:
        return self.task_spec.observation_space

    @property
    def action_space(self) -> spaces.Space:
        return self.task_spec.action_space

    @property
    def reward_threshold(self) -> float | None:
        return self.task_spec.reward_threshold

    @property
    def max_episode_steps(self) -> int | None:
        return self.config.get("max_episode_steps")

    @property
    def state_array_spec(self) -> dict[str, ArraySpec]:
        return self.task_spec.state_array_spec

    @property
    def action_array_spec(self) -> dict[str, ArraySpec]:
        return self.task_spec.action_array_spec

    @property
    def id(self) -> str:
        if self.gymnasium_spec is not None:
            return self.gymnasium_spec.id
        task_id = self.task_spec.task_id
        registration = sys.modules.get("envpool.registration")  # loaded with envpool; not imported here (a cycle)
        ids = registration.gymnasium_ids() if registration is not None else {}
        return ids.get(task_id, f"envpool/{task_id}")

    def __getattr__(self, name: str) -> Any:
        gym_spec = self.__dict__.get("gymnasium_spec")
        if gym_spec is not None and not name.startswith("__"):
            return getattr(gym_spec, name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"PoolSpec({self.id!r}, config={dict(self.config)!r})"


class ReferencePoolAPI:
    """What the reference EnvPool's pools have beyond stepping, mixed into every pool front end
    (envpool.frontends.pool.PoolFrontEnd): ``spec`` and ``seed()``."""

    # make's settings the spec reports (set by _note_make_settings when the pool opens).
    _make_settings: dict[str, Any] | None = None
    # gymnasium.make_vec sets env.unwrapped.spec to its EnvSpec; PoolSpec reads it through.
    _gymnasium_spec: Any = None

    def _note_make_settings(self, opened: Any) -> None:
        """Keeps what ``envs.spec.config`` reports from the opened pool (OpenedPool)."""
        self._make_settings = {
            "seed": opened.env_seeds[0] if opened.env_seeds else None,
            "thread_affinity_offset": opened.thread_affinity_offset,
        }

    @property
    def spec(self) -> EnvSpec:  # a PoolSpec, annotated with the exported class
        """The reference EnvPool's ``envs.spec`` (:class:`PoolSpec`): ``config`` (by attribute and
        key: the env kwargs and the pool's settings), ``state_array_spec``, one env's spaces; for
        a pool ``gymnasium.make_vec`` made, also the attributes of gymnasium's spec."""
        settings = self._make_settings or {"seed": None, "thread_affinity_offset": -1}
        pool_config = {
            "num_envs": self.num_envs,
            "batch_size": self.batch_size,
            "num_threads": self.num_threads,
            "seed": settings["seed"],
            "max_episode_steps": self.max_episode_steps,
            "thread_affinity_offset": settings["thread_affinity_offset"],
        }
        return PoolSpec(self.task_spec, {**self.config, **pool_config}, self._gymnasium_spec)

    @spec.setter
    def spec(self, value: Any) -> None:
        self._gymnasium_spec = value

    def seed(self, seed: int | list[int] | None = None) -> None:
        """The reference EnvPool's ``seed()``: does nothing but warn, as there. Seeds are given at
        ``make(seed=...)`` or to ``reset(seed=...)``."""
        import warnings

        warnings.warn(
            "envpool's seed() does nothing (as the reference EnvPool's): pass seed to envpool.make(...) "
            "or to reset(seed=...)",
            stacklevel=2,
        )
