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


# The reference 1.2.7's ids by family, as tests/registry/reference_ids_1_2_7.txt records them
# (scripts/reference_ids.py made it from the wheel): "<family>\t<id>" lines.
_REFERENCE_IDS = pathlib.Path(__file__).resolve().parents[1] / "registry" / "reference_ids_1_2_7.txt"
_IDS_BY_FAMILY: dict[str, list[str]] = {}
for _line in _REFERENCE_IDS.read_text().splitlines():
    if not _line.startswith("#"):
        _family, _task_id = _line.split("\t")
        _IDS_BY_FAMILY.setdefault(_family, []).append(_task_id)

# envpool.mujoco.gym.registration.gym_mujoco_envs: (task, versions, max_episode_steps), versions
# as the reference lists them (v3 or v2, v4, v5), for the reference's gym MuJoCo tasks (its
# mujoco/gym family: not the v5 AntMaze ids, which are gymnasium-robotics').
_ALL = set(envpool.list_all_envs())
gym_mujoco_envs = [
    (name, tuple(v for v in ("v2", "v3", "v4", "v5") if f"{name}-{v}" in _ALL), envpool.make_spec(task_id).max_episode_steps)
    for task_id in _IDS_BY_FAMILY["mujoco/gym"]
    if task_id.endswith("-v5") and task_id in _ALL and (name := task_id.rsplit("-", 1)[0])
]

# envpool.mujoco.robotics.registration's id lists: the reference's robotics ids split by prefix;
# the tests skip where this envpool lacks ids (README.md here).
_ROBOTICS_IDS = _IDS_BY_FAMILY["mujoco/robotics"]
gymnasium_robotics_fetch_envs = [t for t in _ROBOTICS_IDS if t.startswith("Fetch")]
gymnasium_robotics_hand_envs = [t for t in _ROBOTICS_IDS if t.startswith("Hand")]
gymnasium_robotics_adroit_envs = [t for t in _ROBOTICS_IDS if t.startswith("AdroitHand")]
gymnasium_robotics_point_maze_envs = [t for t in _ROBOTICS_IDS if t.startswith("PointMaze_")]
gymnasium_robotics_kitchen_envs = [t for t in _ROBOTICS_IDS if t.startswith("FrankaKitchen")]
