"""Entry points: envpool.make / make_gymnasium / make_spec / list_all_envs, and gymnasium registration.

Every task comes from the C++ registry (cpp/core/registry.h; built-in tasks in cpp/envs/builtin_tasks.cc), so a new env needs no
Python change: it appears here, in the CLI and as ``envpool/<task>`` in gymnasium.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np
from gymnasium import spaces

from envpool import _core
from envpool.spaces import specs_to_space

ENV_TYPES = ("gymnasium", "gym", "dm")


@functools.cache
def _tasks() -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in _core.tasks()}


def list_all_envs() -> list[str]:
    """All task ids, e.g. ``['CartPole-v0', 'CartPole-v1', ...]``."""
    return list(_tasks())


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple, np.ndarray))


def pack_env_kwargs(task_id: str, kwargs: dict[str, Any], num_envs: int) -> dict[str, list[Any]]:
    """Env kwargs -> ``{key: [value]}`` (one value for all envs) or ``{key: [v0, v1, ...]}``.

    A kwarg whose default is a scalar may be given as a sequence of ``num_envs`` values, one
    per env. For list-valued kwargs (e.g. a map description) a per-env value is a sequence of
    such lists. The core checks names, types and lengths.
    """
    task = _task(task_id)
    packed: dict[str, list[Any]] = {}
    for key, value in kwargs.items():
        default = task["defaults"].get(key)
        if value is None:
            # gymnasium's None for "not given" (a map description, a map name): the empty value.
            if isinstance(default, (str, list)):
                value = type(default)()
            else:
                raise ValueError(f"keyword argument {key!r} cannot be None (its default is {default!r})")
        if isinstance(default, list):
            per_env = _is_sequence(value) and len(value) > 0 and all(_is_sequence(v) for v in value)
        else:
            per_env = _is_sequence(value)
        if isinstance(value, np.ndarray):
            value = value.tolist()
        packed[key] = list(value) if per_env else [value]
    return packed


def _task(task_id: str) -> dict[str, Any]:
    if not isinstance(task_id, str):
        raise TypeError(f"task_id must be a str, got {type(task_id).__name__}")
    tasks = _tasks()
    if task_id not in tasks:
        _core.env_spec(task_id, {})  # raises ValueError with close matches
    return tasks[task_id]


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What ``make_spec`` returns: a task's spaces and full config, without starting threads."""

    task_id: str
    observation_space: spaces.Space
    action_space: spaces.Space
    config: dict[str, Any]
    max_episode_steps: int | None
    reward_threshold: float | None
    info_keys: tuple[str, ...]
    render_shape: tuple[int, int, int] | None  # (height, width, 3) of rgb_array frames; None: no rendering


def make_spec(task_id: str, **kwargs: Any) -> TaskSpec:
    """Spaces and config of one env of ``task_id`` with env kwargs applied.

    >>> spec = make_spec("Pendulum-v1", g=9.81)
    >>> spec.action_space
    Box(-2.0, 2.0, (1,), float32)
    >>> spec.config["g"]
    9.81
    """
    task = _task(task_id)
    max_episode_steps = kwargs.pop("max_episode_steps", None)
    raw = _core.env_spec(task_id, pack_env_kwargs(task_id, kwargs, 1))
    steps = task["max_episode_steps"] if max_episode_steps is None else max_episode_steps
    return TaskSpec(
        task_id=task_id,
        observation_space=specs_to_space(raw["obs"], raw["obs_is_tuple"]),
        action_space=specs_to_space(raw["action"]),
        config=dict(raw["config"]),
        max_episode_steps=steps or None,
        reward_threshold=task["reward_threshold"],
        info_keys=("env_id", "elapsed_step", *(i["name"] for i in raw["info"])),
        render_shape=tuple(raw["render_shape"]) if raw["render_shape"][0] > 0 else None,
    )


def make(
    task_id: str,
    env_type: str = "gymnasium",
    num_envs: int = 1,
    batch_size: int | None = None,
    num_threads: int | None = None,
    seed: int = 42,
    max_episode_steps: int | None = None,
    autoreset_mode: Any = "next_step",
    render_mode: str | None = None,
    **kwargs: Any,
):
    """Create a pool of ``num_envs`` copies of ``task_id``.

    Args:
        task_id: a registered task, see :func:`list_all_envs`.
        env_type: the front end: ``"gymnasium"`` a :class:`gymnasium.vector.VectorEnv`;
            ``"gym"`` the same with a single env's ``action_space`` / ``observation_space``, as
            the reference EnvPool; ``"dm"`` a ``dm_env.Environment`` returning ``TimeStep``
            batches (needs the ``dm-env`` package: ``pip install envpool[dm]``).
        num_envs: number of envs in the pool.
        batch_size: envs returned per ``recv()``; ``None`` means ``num_envs`` (full batch).
            Smaller values give the asynchronous ``send``/``recv`` mode.
        num_threads: threads stepping envs; ``None`` means ``min(batch_size, cpu count)`` for a
            full batch (the calling thread is one of them) and one fewer for async use.
        seed: env ``i`` is seeded with ``seed + i``.
        max_episode_steps: time limit; ``None`` keeps the task's (e.g. 500 for CartPole-v1),
            ``0`` disables it.
        autoreset_mode: a ``gymnasium.vector.AutoresetMode`` (or ``"next_step"``,
            ``"same_step"``, ``"disabled"``): what happens when an episode ends.
        render_mode: ``"rgb_array"`` enables ``render()``, which returns a ``(n, H, W, 3)``
            uint8 batch of frames drawn in C++.
        **kwargs: the env's own kwargs (e.g. ``g=9.81`` for Pendulum-v1); a sequence of
            ``num_envs`` values gives each env its own value.

    >>> envs = make("CartPole-v1", num_envs=8, batch_size=4, num_threads=2)
    >>> envs.async_reset()
    >>> obs, reward, terminated, truncated, info = envs.recv()
    >>> obs.shape, info["env_id"].shape
    ((4, 4), (4,))
    >>> envs.close()
    """
    if env_type not in ENV_TYPES:
        raise ValueError(f"env_type must be one of {ENV_TYPES}, got {env_type!r}")
    if env_type == "dm":
        from envpool.dm import EnvPoolDmEnv as front_end
    elif env_type == "gym":
        from envpool.vector_env import EnvPoolGymEnv as front_end
    else:
        from envpool.vector_env import EnvPoolVectorEnv as front_end

    return front_end(
        task_id,
        num_envs=num_envs,
        batch_size=batch_size,
        num_threads=num_threads,
        seed=seed,
        max_episode_steps=max_episode_steps,
        autoreset_mode=autoreset_mode,
        render_mode=render_mode,
        **kwargs,
    )


def make_gymnasium(task_id: str, **kwargs: Any):
    """``make(task_id, env_type="gymnasium", ...)``."""
    return make(task_id, env_type="gymnasium", **kwargs)


def make_gym(task_id: str, **kwargs: Any):
    """``make(task_id, env_type="gym", ...)``: the reference EnvPool's gym-style front end."""
    return make(task_id, env_type="gym", **kwargs)


def make_dm(task_id: str, **kwargs: Any):
    """``make(task_id, env_type="dm", ...)``: a ``dm_env.Environment``."""
    return make(task_id, env_type="dm", **kwargs)


def _vector_entry_point(task_id: str, num_envs: int = 1, **kwargs: Any):
    return make(task_id, num_envs=num_envs, **kwargs)


def register_envs() -> None:
    """Register every task as ``envpool/<task>`` for ``gymnasium.make_vec(...,
    vectorization_mode="vector_entry_point")``. Called on ``import envpool``."""
    import gymnasium

    for task_id, task in _tasks().items():
        env_id = f"envpool/{task_id}"
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            vector_entry_point=functools.partial(_vector_entry_point, task_id),
            max_episode_steps=task["max_episode_steps"] or None,
            reward_threshold=task["reward_threshold"],
        )
