"""gymnasium's MuJoCo classes as the oracle of every gym MuJoCo id here, v5, v4 and v3 / v2.

* v5 and v4 ids: gymnasium's own registration of the id (gymnasium 1.4 ships both classes).
* v3 / v2 ids: gymnasium 1.4 registers them only to raise an ImportError (the mujoco-py classes
  moved out, and mujoco-py cannot run MuJoCo 4). The reference EnvPool registers them as its v4
  configurations with the v3 defaults (its ``envpool/mujoco/gym/registration.py``:
  ``use_contact_force=True`` for Ant-v3 and Humanoid-v3), and so does envpool here: their oracle
  is gymnasium's v4 class with those kwargs. gymnasium's Ant-v4 calls the kwarg
  ``use_contact_forces``; its Humanoid-v4 takes none, always observing the contact forces.
  Their time limits and reward thresholds are gym 0.26's (``V3_V2_LIMITS``).
* Pusher-v4: gymnasium's class raises ImportError on MuJoCo >= 3 (``pusher_v4.py``: on MuJoCo
  3, pusher.xml's very light object no longer stops the arm, Gymnasium issue 950, and pusher_v5
  uses a heavier one). envpool's Pusher-v4 is that class's code on MuJoCo 4; to compare with it
  the guard is bypassed here, in the tests only, while the env is made: the module's ``mujoco``
  reads as version 2.3.7 for the check and is the real module otherwise.
"""

from __future__ import annotations

import contextlib
import types
import warnings
from unittest import mock

import gymnasium as gym

# The v3 / v2 ids: the v4 id whose class is their oracle, with the reference's v3 kwargs.
V3_V2 = {
    "Ant-v3": ("Ant-v4", {"use_contact_forces": True}),
    "HalfCheetah-v3": ("HalfCheetah-v4", {}),
    "Hopper-v3": ("Hopper-v4", {}),
    "Humanoid-v3": ("Humanoid-v4", {}),
    "Swimmer-v3": ("Swimmer-v4", {}),
    "Walker2d-v3": ("Walker2d-v4", {}),
    "HumanoidStandup-v2": ("HumanoidStandup-v4", {}),
    "InvertedDoublePendulum-v2": ("InvertedDoublePendulum-v4", {}),
    "InvertedPendulum-v2": ("InvertedPendulum-v4", {}),
    "Pusher-v2": ("Pusher-v4", {}),
    "Reacher-v2": ("Reacher-v4", {}),
}
# gym 0.26's registrations of the v3 / v2 ids (max_episode_steps, reward_threshold): the
# reference EnvPool's time limits; its reward thresholds are its env classes' (Hopper: 6000 for
# every version, where gym and gymnasium say 3800), docs/compat.md.
V3_V2_LIMITS = {
    "Ant-v3": (1000, 6000.0),
    "HalfCheetah-v3": (1000, 4800.0),
    "Hopper-v3": (1000, 3800.0),
    "Humanoid-v3": (1000, None),
    "Swimmer-v3": (1000, 360.0),
    "Walker2d-v3": (1000, None),
    "HumanoidStandup-v2": (1000, None),
    "InvertedDoublePendulum-v2": (1000, 9100.0),
    "InvertedPendulum-v2": (1000, 950.0),
    "Pusher-v2": (100, 0.0),
    "Reacher-v2": (50, -3.75),
}
V4 = sorted({v4 for v4, _ in V3_V2.values()})


def oracle_id(task: str) -> tuple[str, dict]:
    """The gymnasium id whose class is `task`'s oracle, and the kwargs that make it `task`."""
    return V3_V2.get(task, (task, {}))


class _MujocoBelow3(types.ModuleType):
    """The mujoco module as pusher_v4's version check sees it while the env is made."""

    def __init__(self, real):
        super().__init__(real.__name__)
        self.__version__ = "2.3.7"
        self._real = real

    def __getattr__(self, name):
        return getattr(self._real, name)


@contextlib.contextmanager
def pusher_v4_allowed():
    """gymnasium's Pusher-v4 can be made inside this block (its MuJoCo < 3 guard bypassed)."""
    from gymnasium.envs.mujoco import pusher_v4

    with mock.patch.object(pusher_v4, "mujoco", _MujocoBelow3(pusher_v4.mujoco)):
        yield


def make(task: str, **kwargs) -> gym.Env:
    """gym.make of `task`'s oracle (kwargs: the caller's, over the v3 defaults); a v3 / v2
    oracle gets its id's time limit."""
    gym_id, defaults = oracle_id(task)
    if task in V3_V2_LIMITS:
        kwargs.setdefault("max_episode_steps", V3_V2_LIMITS[task][0])
    with pusher_v4_allowed(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "Ant-v4 is out of date": v4 is the point
        return gym.make(gym_id, **{**defaults, **kwargs})


def limits(task: str) -> tuple[int, float | None]:
    """`task`'s registered (max_episode_steps, reward_threshold)."""
    if task in V3_V2_LIMITS:
        return V3_V2_LIMITS[task]
    spec = gym.spec(task)
    return spec.max_episode_steps, spec.reward_threshold


def make_class(task: str, **kwargs) -> gym.Env:
    """`task`'s oracle class itself, unwrapped (no time limit or checker)."""
    return make(task, **kwargs).unwrapped
