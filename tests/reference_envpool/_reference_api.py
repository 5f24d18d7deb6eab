"""The reference EnvPool's import paths, answered by this envpool: what the vendored tests
import in place of ``envpool``, ``envpool.registration``, ``envpool.python.protocol`` and the
per-family ``registration`` modules (see README.md here for every adaptation).

The one mapping that is more than a rename: the reference's ``make_gymnasium`` returns the same
object as its ``make_gym`` (a single env's spaces, a ``gymnasium.Env`` too), while ours returns a
true ``gymnasium.vector.VectorEnv`` with batched spaces; the reference's shape is our ``make_gym``,
so ``make_gymnasium`` and ``env_type="gymnasium"`` map to it here.
"""

from __future__ import annotations

import pathlib
from typing import Any

import envpool
from envpool import DMEnvPool, EnvPool, EnvSpec, GymnasiumEnvPool  # noqa: F401 (envpool.python.protocol's)
from envpool import list_all_envs, make_dm, make_gym, make_spec  # noqa: F401

__version__ = envpool.__version__
make_gymnasium = make_gym


def make(task_id: str, env_type: str, **kwargs: Any):
    return envpool.make(task_id, env_type="gym" if env_type == "gymnasium" else env_type, **kwargs)


# envpool.mujoco.gym.registration.gym_mujoco_envs: (task, versions, max_episode_steps), versions
# as the reference lists them (v3 or v2, v4, v5); the built-in v5 tasks are the MuJoCo ones (the
# Atari plugin's are v5 too, where it is installed).
_ALL = set(envpool.list_all_envs())
gym_mujoco_envs = [
    (name, tuple(v for v in ("v2", "v3", "v4", "v5") if f"{name}-{v}" in _ALL), spec.max_episode_steps)
    for task_id in envpool.list_all_envs()
    if task_id.endswith("-v5")
    and (spec := envpool.make_spec(task_id)).origin == "built-in"
    and (name := task_id.rsplit("-", 1)[0])
]

# envpool.mujoco.robotics.registration's id lists, read from the reference 1.2.7's ids as
# tests/registry/reference_ids_1_2_7.txt records them (scripts/reference_ids.py made it from the
# wheel); the tests skip where this envpool lacks ids (README.md here).
_REFERENCE_IDS = pathlib.Path(__file__).resolve().parents[1] / "registry" / "reference_ids_1_2_7.txt"
_ROBOTICS_IDS = [
    line.split("\t")[1]
    for line in _REFERENCE_IDS.read_text().splitlines()
    if line.startswith("mujoco/robotics\t")
]
gymnasium_robotics_fetch_envs = [t for t in _ROBOTICS_IDS if t.startswith("Fetch")]
gymnasium_robotics_hand_envs = [t for t in _ROBOTICS_IDS if t.startswith("Hand")]
gymnasium_robotics_adroit_envs = [t for t in _ROBOTICS_IDS if t.startswith("AdroitHand")]
gymnasium_robotics_point_maze_envs = [t for t in _ROBOTICS_IDS if t.startswith("PointMaze_")]
gymnasium_robotics_kitchen_envs = [t for t in _ROBOTICS_IDS if t.startswith("FrankaKitchen")]
