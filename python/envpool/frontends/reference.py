"""The reference EnvPool's pool attributes beyond stepping, shared by every front end: a pool's
``envs.spec`` (:class:`PoolSpec`) and ``seed()`` (:class:`ReferencePoolAPI`)."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from envpool.protocol import ArraySpec, Config, EnvPool, EnvSpec
from envpool.tasks import gymnasium_ids


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
        return gymnasium_ids().get(task_id, f"envpool/{task_id}")

    def __getattr__(self, name: str) -> Any:
        gym_spec = self.__dict__.get("gymnasium_spec")
        if gym_spec is not None and not name.startswith("__"):
            return getattr(gym_spec, name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"PoolSpec({self.id!r}, config={dict(self.config)!r})"


class ReferencePoolAPI(EnvPool):
    """What the reference EnvPool's pools have beyond stepping, mixed into every pool front end
    (envpool.frontends.pool.PoolFrontEnd): ``spec`` and ``seed()``; an :class:`envpool.EnvPool`."""

    # make's settings the spec reports (set by _note_make_settings when the pool opens).
    _make_settings: dict[str, Any] | None = None
    # gymnasium.make_vec sets env.unwrapped.spec to its EnvSpec; PoolSpec reads it through.
    _gymnasium_spec: Any = None

    def _note_make_settings(self, opened: Any) -> None:
        """Keeps what ``envs.spec.config`` reports from the opened pool (OpenedPool)."""
        options = opened.pool.options
        self._make_settings = {"seed": options.seed, "thread_affinity_offset": options.thread_affinity_offset}

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
