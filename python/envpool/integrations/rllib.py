"""envpool as the vector env of RLlib's env runners (new API stack). Imports Ray only when called.

RLlib builds each env runner's envs with ``gymnasium.make_vec(config.env, num_envs=...,
vectorization_mode=config.gym_env_vectorize_mode, **config.env_config)``. A bare
``"envpool/CartPole-v1"`` is a gymnasium id that exists only in processes that imported envpool,
and RLlib's remote env runners never do. :func:`register_envs` registers every task under the
same id in RLlib's own env registry, which Ray ships to every process of the job, so the bare id
works locally and in remote env runners alike::

    import envpool.rllib
    from ray.rllib.algorithms.ppo import PPOConfig

    envpool.rllib.register_envs()
    config = (
        PPOConfig()
        .environment("envpool/CartPole-v1")
        .env_runners(num_env_runners=2, num_envs_per_env_runner=8,
                     gym_env_vectorize_mode="vector_entry_point")
    )
    algo = config.build_algo()
    print(algo.train()["env_runners"]["episode_return_mean"])

``env_config`` entries are :func:`envpool.make` kwargs (``num_threads``, ``seed``, the env's own
kwargs). Refused when the env is built, with a message saying what to change: an
``autoreset_mode`` other than next-step and ``batch_size < num_envs`` (RLlib checks neither and
would record wrong transitions), ``env_type`` other than gymnasium, and any
``gym_env_vectorize_mode`` other than ``"vector_entry_point"`` (RLlib would wrap one whole pool
per env copy). Without ``seed`` in ``env_config`` each env runner's pool gets a fresh random seed
(RLlib resets with ``seed=None`` unless ``config.debugging(seed=...)`` is set, and identical
default seeds would make every runner sample the same episodes).

:func:`register_env` does the same for any pool: a Python env for :func:`envpool.make_python`
(an id or a callable) or a native task with fixed kwargs.

Multi-agent tasks (``envpool/SimpleSpread-v3``, ...) are made as RLlib ``MultiAgentEnv``s
(:mod:`envpool.integrations.rllib_multiagent`): RLlib's ``MultiAgentEnvRunner`` makes one per env
copy in its own ``"sync"`` vectorization (leave ``gym_env_vectorize_mode`` at its default), and
``env_config`` entries are env kwargs, ``seed`` and ``max_episode_steps``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envpool.process.pool import make_python
from envpool.registration import make, rllib_kwargs
from envpool.tasks import is_multi_agent, list_all_envs


class PoolCreator:
    """RLlib env creator: ``creator(env_config) -> VectorEnv``; picklable, so Ray ships it to
    remote env runners (unpickling it imports envpool there).

    ``env`` is an envpool task id (a native pool, :func:`envpool.make`) or what
    :func:`envpool.make_python` takes (a gymnasium id or env callable); ``make_kwargs`` are
    defaults that ``env_config`` entries override.
    """

    def __init__(self, name: str, env: str | Callable[..., Any], python: bool, make_kwargs: dict[str, Any]):
        self.name = name
        self.env = env
        self.python = python
        self.make_kwargs = dict(make_kwargs)

    def __call__(self, env_config: dict[str, Any]):
        kwargs = {**self.make_kwargs, **dict(env_config)}
        if "num_envs" not in kwargs:
            # RLlib calls a registered creator with num_envs only as a vector entry point; in its
            # default "sync" mode it would call us once per env copy and wrap the pools.
            raise ValueError(
                f"{self.name} is an envpool pool (a whole vector env): set "
                "config.env_runners(gym_env_vectorize_mode='vector_entry_point'); RLlib's default "
                "'sync' mode would build one pool per env copy"
            )
        num_envs = kwargs.pop("num_envs")
        kwargs = rllib_kwargs(self.name, num_envs, kwargs)
        if self.python:
            if "context" not in kwargs:
                # Ray's worker processes run many threads; fork() from them can deadlock.
                kwargs["context"] = "forkserver"
            return make_python(self.env, num_envs=num_envs, **kwargs)
        return make(self.env, num_envs=num_envs, **kwargs)

    def __repr__(self) -> str:
        return f"PoolCreator({self.name!r}, env={self.env!r}, python={self.python}, make_kwargs={self.make_kwargs!r})"


class TaskCreator:
    """RLlib env creator of a native task: a pool (:class:`PoolCreator`), or for a multi-agent
    task an RLlib ``MultiAgentEnv`` (:class:`envpool.integrations.rllib_multiagent.MultiAgentCreator`).

    Which of the two is decided each time RLlib calls it, not at registration: the answer is in
    the task's spec, and building a spec loads the task family's library (libmujoco for the
    MuJoCo tasks). So :func:`register_envs` loads no library, and a task whose library is
    missing fails only when it is made, with the message saying how to install it.
    """

    def __init__(self, name: str, task_id: str, make_kwargs: dict[str, Any]):
        self.name, self.task_id, self.make_kwargs = name, task_id, dict(make_kwargs)

    def __call__(self, env_config: dict[str, Any]):
        if is_multi_agent(self.task_id):
            from envpool.integrations.rllib_multiagent import MultiAgentCreator

            return MultiAgentCreator(self.name, self.task_id, self.make_kwargs)(env_config)
        return PoolCreator(self.name, self.task_id, False, self.make_kwargs)(env_config)

    def __repr__(self) -> str:
        return f"TaskCreator({self.name!r}, {self.task_id!r}, make_kwargs={self.make_kwargs!r})"


def register_env(
    name: str, env: str | Callable[..., Any] | None = None, *, python: bool | None = None, **make_kwargs: Any
) -> str:
    """Register ``name`` in RLlib's env registry as an envpool pool; returns ``name``.

    Args:
        name: the id to pass to ``config.environment(name)``.
        env: an envpool task id (default: ``name`` without an ``"envpool/"`` prefix), or what
            :func:`envpool.make_python` takes (a gymnasium id or a callable returning a
            ``gymnasium.Env``).
        python: ``True`` builds ``envpool.make_python(env, ...)``; default: ``False`` for an
            envpool task id, ``True`` otherwise.
        **make_kwargs: defaults for ``make`` / ``make_python`` (``num_threads``, ``num_workers``,
            env kwargs); ``config.environment(env_config=...)`` entries override them.

    >>> import envpool.rllib  # doctest: +SKIP
    >>> envpool.rllib.register_env("cartpole-2threads", "CartPole-v1", num_threads=2)  # doctest: +SKIP
    'cartpole-2threads'
    >>> envpool.rllib.register_env("my-env", lambda: MyEnv(), num_workers=2)  # doctest: +SKIP
    'my-env'
    """
    from ray.tune.registry import register_env as ray_register_env

    if env is None:
        env = name.removeprefix("envpool/")
    if python is None:
        python = not (isinstance(env, str) and env in list_all_envs())
    if not python and env not in list_all_envs():
        raise ValueError(
            f"{env!r} is not an envpool task (see envpool.list_all_envs()); pass python=True for a gymnasium id"
        )
    if python:
        ray_register_env(name, PoolCreator(name, env, True, make_kwargs))
    else:
        ray_register_env(name, TaskCreator(name, env, make_kwargs))
    return name


def register_envs(tasks: list[str] | None = None) -> list[str]:
    """Register ``envpool/<task>`` in RLlib's env registry for every task (or ``tasks``); returns
    the ids. Call once in the driver before building the algorithm (before or after
    ``ray.init()``): Ray makes the registry available to every process of the job, so remote
    env runners find the ids without importing envpool themselves.

    Registering loads no task family's library (:class:`TaskCreator`): without ``[mujoco]`` the
    MuJoCo ids are registered all the same and fail when made, saying what to install.

    >>> import envpool.rllib  # doctest: +SKIP
    >>> "envpool/CartPole-v1" in envpool.rllib.register_envs()  # doctest: +SKIP
    True
    """
    all_tasks = list_all_envs()
    tasks = all_tasks if tasks is None else list(tasks)
    unknown = [t for t in tasks if t not in all_tasks]
    if unknown:
        raise ValueError(f"not envpool tasks: {unknown} (see envpool.list_all_envs())")
    return [register_env(f"envpool/{task}", task, python=False) for task in tasks]
