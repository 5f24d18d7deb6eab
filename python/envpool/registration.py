"""Entry points: envpool.make / make_gymnasium / make_gym / make_dm, and gymnasium registration
(``envpool/<task>`` for every registered task: ``gymnasium.make_vec`` gives a pool,
``gymnasium.make`` one env, see envpool.frontends.single_env)."""

from __future__ import annotations

import functools
import secrets
import sys
from typing import Any

from gymnasium.vector import AutoresetMode

from envpool.frontends.classes import front_end_class
from envpool.frontends.single_env import SingleEnvEntryPoint
from envpool.frontends.sources import POOL_DEFAULTS, NativeSource, PoolOptions, parse_autoreset_mode
from envpool.protocol import DMEnvPool, GymnasiumEnvPool
from envpool.tasks import gymnasium_ids, is_multi_agent, registered_tasks


def make(
    task_id: str,
    env_type: str = "gymnasium",
    num_envs: int = POOL_DEFAULTS.num_envs,
    batch_size: int | None = POOL_DEFAULTS.batch_size,
    num_threads: int | None = POOL_DEFAULTS.num_threads,
    seed: int = POOL_DEFAULTS.seed,
    max_episode_steps: int | None = POOL_DEFAULTS.max_episode_steps,
    autoreset_mode: Any = POOL_DEFAULTS.autoreset_mode,
    render_mode: str | None = None,
    **kwargs: Any,
):
    """Create a pool of ``num_envs`` copies of ``task_id``.

    Args:
        task_id: a registered task, see :func:`list_all_envs`.
        env_type: the front end: ``"gymnasium"`` a :class:`gymnasium.vector.VectorEnv`;
            ``"gym"`` the reference EnvPool's front end (:class:`envpool.EnvPoolGymEnv`: a
            single env's spaces, float32 rewards, its info keys; where the ``gym`` package is
            installed, its spaces and its API: four-value ``step`` for gym < 0.26, see
            envpool.frontends.installed_gym and docs/compat.md); ``"dm"`` a
            ``dm_env.Environment`` returning ``TimeStep`` batches (needs the ``dm-env`` package:
            ``pip install envpool-ng[dm]``). Multi-agent tasks (docs/multiagent.md): ``"gymnasium"``
            a vector env with one row per agent, ``"pettingzoo"`` a PettingZoo ``ParallelEnv``
            when ``num_envs == 1``, else a ``ParallelEnvs`` sequence of them (``envs[i]``), whose
            own ``reset``/``step`` return ``PerEnvResults``, one result per env.
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
        render_mode: ``"rgb_array"`` enables ``render()``, which returns a tuple of
            ``(H, W, 3)`` uint8 frames drawn in C++, one per env.
        thread_affinity_offset: (a keyword, as the reference EnvPool's) ``>= 0`` pins worker
            thread ``i`` to CPU ``(offset + i) % cpus``, counting the CPUs this process may run
            on; ``-1`` (the default) leaves them unpinned.
        **kwargs: the env's own kwargs (e.g. ``g=9.81`` for Pendulum-v1); a sequence of
            ``num_envs`` values gives each env its own value.

    >>> envs = make("CartPole-v1", num_envs=8, batch_size=4, num_threads=2)
    >>> envs.async_reset()
    >>> obs, reward, terminated, truncated, info = envs.recv()
    >>> obs.shape, info["env_id"].shape
    ((4, 4), (4,))
    >>> envs.close()
    """
    front_end = front_end_class(env_type, isinstance(task_id, str) and is_multi_agent(task_id))
    # The reference EnvPool 1.x's make takes gym_reset_return_info for every env_type and refuses
    # False (its reset always returns (obs, info), as ours); the front end for gym < 0.26 takes
    # it (False by default: reset returns obs alone).
    front_end_kwargs = {}
    if getattr(front_end, "takes_gym_reset_return_info", False):
        if "gym_reset_return_info" in kwargs:
            front_end_kwargs["gym_reset_return_info"] = kwargs.pop("gym_reset_return_info")
    elif not kwargs.pop("gym_reset_return_info", True):
        raise ValueError(
            "gym_reset_return_info=False is not supported: reset() always returns (obs, info), as "
            "gymnasium's reset, gym 0.26's and the reference EnvPool 1.x's (which refuses False too); "
            "reset() returning obs alone is gym 0.21-0.25's API, which env_type='gym' has where that gym is installed"
        )
    # The pool's own options (gymnasium's vector_kwargs), apart from the env's kwargs.
    pool_kwargs = front_end.pool_kwargs(
        {
            "num_envs": num_envs,
            "batch_size": batch_size,
            "num_threads": num_threads,
            "seed": seed,
            "max_episode_steps": max_episode_steps,
            "autoreset_mode": autoreset_mode,
            "thread_affinity_offset": kwargs.pop("thread_affinity_offset", POOL_DEFAULTS.thread_affinity_offset),
        }
    )
    source = NativeSource(task_id, PoolOptions(**pool_kwargs), render_mode=render_mode, **kwargs)
    envs = front_end(source, **front_end_kwargs)
    return envs[0] if env_type == "pettingzoo" and num_envs == 1 else envs


def make_gymnasium(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """``make(task_id, env_type="gymnasium", ...)``."""
    return make(task_id, env_type="gymnasium", **kwargs)


def make_gym(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """``make(task_id, env_type="gym", ...)``: the reference EnvPool's gym-style front end."""
    return make(task_id, env_type="gym", **kwargs)


def make_dm(task_id: str, **kwargs: Any) -> DMEnvPool:
    """``make(task_id, env_type="dm", ...)``: a ``dm_env.Environment``."""
    return make(task_id, env_type="dm", **kwargs)


def _vector_entry_point(task_id: str, num_envs: int = POOL_DEFAULTS.num_envs, **kwargs: Any):
    if _rllib_is_building():
        kwargs = rllib_kwargs(f"envpool/{task_id}", num_envs, kwargs)
    return make(task_id, num_envs=num_envs, **kwargs)


def _rllib_is_building() -> bool:
    """True when an RLlib env runner's ``make_env`` is on the call stack.

    RLlib passes its ``env_config`` straight to ``gymnasium.make_vec`` and never asks which
    autoreset mode it got, so ``envpool/<task>`` checks for it here, whichever way the id was
    reached (``envpool.rllib``'s creator, the ``envpool:`` module prefix, a setup hook). Only
    looked at when ``ray.rllib`` is loaded; costs a stack walk per pool made, never per step.
    """
    if "ray.rllib" not in sys.modules:
        return False
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "make_env" and frame.f_globals.get("__name__", "").startswith("ray.rllib."):
            return True
        frame = frame.f_back
    return False


def rllib_kwargs(env_id: str, num_envs: int, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``make`` kwargs for a pool that RLlib's env runner builds: refuses those under which it
    would record wrong data, and without a ``seed`` picks a random one.

    RLlib's ``SingleAgentEnvRunner`` assumes next-step autoreset (the step after an episode's
    end only starts the next one) and a full batch every step (row ``i`` is env ``i``); it
    checks neither. Same-step autoreset would make it store the next episode's first
    observation as the last one of the episode that ended; a batch smaller than ``num_envs``
    would attribute rows to the wrong episodes.

    The seed: RLlib resets its envs with ``seed=None`` unless ``config.debugging(seed=...)`` is
    set, so every env runner's pool would keep make's default seed and sample the same episodes
    as the others.

    >>> rllib_kwargs("envpool/CartPole-v1", 8, {"num_threads": 2, "seed": 3})
    {'num_threads': 2, 'seed': 3}
    >>> rllib_kwargs("envpool/CartPole-v1", 8, {"autoreset_mode": "same_step"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: envpool/CartPole-v1 in RLlib: RLlib's env runners need autoreset_mode='next_step' ...
    """
    mode = parse_autoreset_mode(kwargs.get("autoreset_mode", AutoresetMode.NEXT_STEP))
    if mode != AutoresetMode.NEXT_STEP:
        raise ValueError(
            f"{env_id} in RLlib: RLlib's env runners need autoreset_mode='next_step' (they record "
            f"the step after an episode's end as the next episode's start), got {mode.name.lower()!r}; remove "
            "'autoreset_mode' from config.environment(env_config=...)"
        )
    batch_size = kwargs.get("batch_size")
    if batch_size is not None and batch_size != num_envs:
        raise ValueError(
            f"{env_id} in RLlib: RLlib's env runners step every env every step and read row i as "
            f"env i, so batch_size must equal num_envs ({num_envs}), got {batch_size}; remove "
            "'batch_size' from config.environment(env_config=...) (the asynchronous mode is for "
            "envpool.EnvRunner / envpool.ray)"
        )
    env_type = kwargs.get("env_type", "gymnasium")
    if env_type != "gymnasium":
        raise ValueError(
            f"{env_id} in RLlib: RLlib needs env_type='gymnasium' (a gymnasium VectorEnv), got {env_type!r}"
        )
    if kwargs.get("seed") is None:
        kwargs = {**kwargs, "seed": secrets.randbelow(2**31)}
    return kwargs


def register_envs() -> None:
    """Register every task, and every alias of one, as ``envpool/<id>`` (an id with a namespace
    of its own, ``phys2d/CartPole-v1``: ``envpool-phys2d/CartPole-v1``; a plugin task whose name
    clashes with another origin's: ``envpool-<plugin>/<task>``; see :func:`gymnasium_ids`):
    ``gymnasium.make_vec("envpool/<task>", num_envs=n)`` makes a pool (its vector entry point,
    gymnasium's default when one is registered), ``gymnasium.make("envpool/<task>")`` one env
    (:class:`envpool.frontends.single_env.EnvPoolEnv`). Called on ``import envpool``; without
    it, ``"envpool:envpool/<task>"`` (gymnasium's ``module:id`` form) imports envpool first."""
    import gymnasium

    tasks = registered_tasks()
    for task_id, env_id in gymnasium_ids(tasks).items():
        task = tasks[task_id]
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point=SingleEnvEntryPoint(task_id),
            vector_entry_point=functools.partial(_vector_entry_point, task_id),
            max_episode_steps=task["max_episode_steps"] or None,
            reward_threshold=task["reward_threshold"],
        )
