"""The runner's callbacks, with RLlib's names: :class:`RunnerCallbacks` and :func:`hooks_of`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from envpool.runner.env_runner import EnvRunner
    from envpool.runner.episodes import Episode

CALLBACK_NAMES = ("on_episode_created", "on_episode_start", "on_episode_step", "on_episode_end", "on_sample_end")


class RunnerCallbacks:
    """Base class for runner callbacks, with RLlib's names, meaning and order (every argument
    is passed by keyword). Override what you need; a callbacks object need not subclass this.

    Per episode: ``on_episode_created`` when the runner knows a new episode is coming (its
    env's reset was requested, the episode has no observation yet), ``on_episode_start`` once
    the reset observation is in it, ``on_episode_step`` after each step was added,
    ``on_episode_end`` once it terminated or was truncated (its fields are lists then, and it
    is returned as arrays). Per call: ``on_sample_end`` with the episodes ``sample`` returns.

    >>> import envpool
    >>> class CountSteps(envpool.RunnerCallbacks):
    ...     steps = 0
    ...     def on_episode_step(self, *, episode, env_runner, env_index):
    ...         self.steps += 1
    >>> envs = envpool.make("CartPole-v1", num_envs=2)
    >>> counter = CountSteps()
    >>> _ = envpool.EnvRunner(envs, callbacks=counter).sample(num_timesteps=10)
    >>> counter.steps
    10
    >>> envs.close()
    """

    def on_episode_created(self, *, episode: Episode, env_runner: EnvRunner, env_index: int) -> None:
        pass

    def on_episode_start(self, *, episode: Episode, env_runner: EnvRunner, env_index: int) -> None:
        pass

    def on_episode_step(self, *, episode: Episode, env_runner: EnvRunner, env_index: int) -> None:
        pass

    def on_episode_end(self, *, episode: Episode, env_runner: EnvRunner, env_index: int) -> None:
        pass

    def on_sample_end(self, *, env_runner: EnvRunner, samples: list[Episode]) -> None:
        pass


def hooks_of(callbacks: Any) -> dict[str, list[Callable]]:
    """The overridden callback methods, by name (``RunnerCallbacks``' empty ones are skipped, so
    the per-step hook costs nothing unless someone uses it)."""
    if callbacks is None:
        objs = []
    elif isinstance(callbacks, (list, tuple)):
        objs = list(callbacks)
    else:
        objs = [callbacks]
    hooks: dict[str, list[Callable]] = {name: [] for name in CALLBACK_NAMES}
    for obj in objs:
        known = [n for n in CALLBACK_NAMES if hasattr(obj, n)]
        if not known:
            raise TypeError(f"callbacks object {obj!r} has none of the methods {', '.join(CALLBACK_NAMES)}")
        for name in known:
            method = getattr(obj, name)
            if getattr(type(obj), name, None) is getattr(RunnerCallbacks, name):
                continue
            if not callable(method):
                raise TypeError(f"callbacks {obj!r}: {name} is not callable")
            hooks[name].append(method)
    return hooks
