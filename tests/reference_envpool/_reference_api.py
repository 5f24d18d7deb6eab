"""The reference EnvPool's import paths, answered by this envpool: what the vendored tests
import in place of ``envpool``, ``envpool.registration``, ``envpool.python.protocol`` and the
per-family ``registration`` modules (see README.md here for every adaptation).

The one mapping that is more than a rename: the reference's ``make_gymnasium`` returns the same
object as its ``make_gym`` (a single env's spaces, a ``gymnasium.Env`` too), while ours returns a
true ``gymnasium.vector.VectorEnv`` with batched spaces; the reference's shape is our ``make_gym``,
so ``make_gymnasium`` and ``env_type="gymnasium"`` map to it here.
"""

from __future__ import annotations

import types
from typing import Any

import envpool
from envpool import EnvPoolGymEnv as GymnasiumEnvPool  # noqa: F401 (the vendored casts)
from envpool import list_all_envs, make_dm, make_gym  # noqa: F401
from envpool.frontends.dm import EnvPoolDmEnv as DMEnvPool  # noqa: F401

__version__ = envpool.__version__
make_gymnasium = make_gym


def make(task_id: str, env_type: str, **kwargs: Any):
    return envpool.make(task_id, env_type="gym" if env_type == "gymnasium" else env_type, **kwargs)


def make_spec(task_id: str, **kwargs: Any):
    """Our TaskSpec, with ``config`` readable by attribute as the reference's namedtuple is
    (``make_spec(id).config.max_episode_steps``)."""
    spec = envpool.make_spec(task_id, **kwargs)
    config = types.SimpleNamespace(**spec.config, max_episode_steps=spec.max_episode_steps)
    return types.SimpleNamespace(
        config=config,
        observation_space=spec.observation_space,
        action_space=spec.action_space,
        reward_threshold=spec.reward_threshold,
    )


# envpool.mujoco.gym.registration.gym_mujoco_envs: (task, versions, max_episode_steps).
gym_mujoco_envs = [
    (task_id.rsplit("-", 1)[0], ("v5",), envpool.make_spec(task_id).max_episode_steps)
    for task_id in envpool.list_all_envs()
    if task_id.endswith("-v5")
]
