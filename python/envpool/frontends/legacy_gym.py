"""``env_type="gym"`` where the ``gym`` package is installed: its spaces, its ``gym.Env``, its API.

Imported only when ``gym`` is (envpool.frontends.installed_gym picks the class). Two front ends, both
:class:`envpool.EnvPoolGymEnv` underneath (a step before any reset starts the episodes; info
holds ``env_id``, ``players``, ``elapsed_step``; float32 rewards), with ``gym.spaces`` for a
single env's spaces and ``gym.Env`` among their bases, so that ``gym.Wrapper`` subclasses and
``isinstance(envs.action_space, gym.spaces.Discrete)`` checks written for gym accept them:

- :class:`GymEnvPool` (gym 0.26 and later): the five-value API, as ``EnvPoolGymEnv``;
- :class:`LegacyGymEnvPool` (gym 0.21-0.25): that gym's API, as the reference EnvPool 0.6 gave
  it and CleanRL's ``*_envpool*.py`` scripts use it: ``reset()`` returns ``obs`` (``(obs,
  info)`` with ``gym_reset_return_info=True`` at make, or ``return_info=True`` per call, as
  gym 0.22-0.25's ``Env.reset``), ``step`` returns ``(obs, reward, done, info)`` with ``done =
  terminated | truncated`` and ``info["TimeLimit.truncated"] = truncated & ~terminated`` (as
  gym's ``TimeLimit`` wrapper sets it: the time limit ended an episode the env did not end).
  ``envs.xla()``'s ``recv``/``step`` return the same four values inside ``jax.jit``.
"""

from __future__ import annotations

import inspect
from typing import Any

import gym
import gymnasium
import numpy as np

from envpool.frontends.gym_env import EnvPoolGymEnv


def to_gym_space(space: gymnasium.spaces.Space) -> gym.spaces.Space:
    """The ``gym.spaces`` equivalent of a gymnasium space (same kind, shape, bounds, dtype).

    Raises TypeError for spaces gym has no equivalent of (e.g. gymnasium's ``Text``, ``Graph``,
    ``Sequence``, ``OneOf``, which only Python envs may have) and ValueError for a ``Discrete`` /
    ``MultiDiscrete`` starting elsewhere than 0 where the installed gym cannot express it.
    """
    spaces = gymnasium.spaces
    if isinstance(space, spaces.Box):
        return gym.spaces.Box(low=space.low, high=space.high, shape=space.shape, dtype=space.dtype)
    if isinstance(space, spaces.Discrete):
        start = int(space.start)
        if start == 0:
            return gym.spaces.Discrete(int(space.n))
        if "start" not in inspect.signature(gym.spaces.Discrete).parameters:
            raise ValueError(f"{space} starts at {start}; gym {gym.__version__}'s Discrete always starts at 0")
        return gym.spaces.Discrete(int(space.n), start=start)
    if isinstance(space, spaces.MultiDiscrete):
        if np.any(getattr(space, "start", 0) != 0):
            raise ValueError(f"{space} starts at {space.start}; gym's MultiDiscrete always starts at 0")
        return gym.spaces.MultiDiscrete(space.nvec, dtype=space.dtype)
    if isinstance(space, spaces.MultiBinary):
        return gym.spaces.MultiBinary(space.n)
    if isinstance(space, spaces.Dict):
        return gym.spaces.Dict({key: to_gym_space(sub) for key, sub in space.spaces.items()})
    if isinstance(space, spaces.Tuple):
        return gym.spaces.Tuple([to_gym_space(sub) for sub in space.spaces])
    raise TypeError(f"env_type='gym' with gym {gym.__version__} installed: gym has no space like {space}")


class GymEnvPool(EnvPoolGymEnv, gym.Env):
    """``env_type="gym"`` with gym 0.26 or later installed: :class:`envpool.EnvPoolGymEnv`'s
    five-value API, with ``gym.spaces`` and ``gym.Env`` among its bases."""

    def __init__(self, source: Any):
        super().__init__(source)
        self.single_observation_space = self.observation_space = to_gym_space(self.single_observation_space)
        self.single_action_space = self.action_space = to_gym_space(self.single_action_space)


class LegacyGymEnvPool(GymEnvPool):
    """``env_type="gym"`` with gym 0.21-0.25 installed: that gym's reset and four-value step.

    ``envpool.make_gym(task, ...)`` makes one where gym 0.21-0.25 is installed:

    >>> import envpool, numpy as np
    >>> envs = envpool.make_gym("CartPole-v1", num_envs=2, seed=0)
    >>> envs.reset().shape  # obs only (gym_reset_return_info=True at make: (obs, info))
    (2, 4)
    >>> obs, reward, done, info = envs.step(np.array([0, 1]))
    >>> done.dtype, info["TimeLimit.truncated"]
    (dtype('bool'), array([False, False]))
    >>> envs.close()
    """

    # make() passes gym_reset_return_info here instead of refusing False.
    takes_gym_reset_return_info = True
    _added_info_keys = (*GymEnvPool._added_info_keys, "TimeLimit.truncated")

    def __init__(self, source: Any, gym_reset_return_info: bool = False):
        if not isinstance(gym_reset_return_info, (bool, np.bool_)):
            raise TypeError(f"gym_reset_return_info must be True or False, got {gym_reset_return_info!r}")
        super().__init__(source)
        self.gym_reset_return_info = bool(gym_reset_return_info)

    def reset(self, env_id=None, *, seed=None, options=None, return_info: bool | None = None):
        """Start new episodes in all envs (or in ``env_id``): ``obs``, or ``(obs, info)`` when
        ``return_info`` (by default make's ``gym_reset_return_info``)."""
        obs, info = super().reset(env_id, seed=seed, options=options)
        if self.gym_reset_return_info if return_info is None else return_info:
            return obs, info
        return obs

    def step(self, action, env_id=None, timeout: float | None = None):
        """Step envs (all, or ``env_id``): ``(obs, reward, done, info)``, ``done = terminated |
        truncated``, ``info["TimeLimit.truncated"]`` true where only the time limit ended the
        episode; ``info`` keeps the env's own keys (e.g. Atari's ``terminated`` and ``lives``)."""
        return super().step(action, env_id, timeout)

    def recv(self, reset: bool = False, return_info: bool = True, timeout: float | None = None):
        """The next batch: ``(obs, reward, done, info)``; when ``reset``, ``(obs, info)``, or
        ``obs`` alone if not ``return_info`` (the reference EnvPool 0.6's ``recv``)."""
        obs, reward, done, info = self._gym_result(self._recv(timeout))
        if reset:
            return (obs, info) if return_info else obs
        return obs, reward, done, info

    def _gym_result(self, result):
        """The four-value result; also what ``xla()``'s functions return inside jit, so only
        operators that numpy and jax arrays share."""
        obs, reward, terminated, truncated, info = super()._gym_result(result)
        info["TimeLimit.truncated"] = truncated & ~terminated
        return obs, reward, terminated | truncated, info
