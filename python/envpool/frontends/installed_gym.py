"""Which front end ``env_type="gym"`` / ``make_gym`` gives: the one for the installed ``gym``.

- no ``gym`` package: :class:`envpool.EnvPoolGymEnv`, the reference EnvPool 1.2.5's front end
  (gymnasium spaces, ``reset -> (obs, info)``, five-value ``step``);
- ``gym`` 0.26 or later: the same five-value API with ``gym.spaces`` and a ``gym.Env``
  (:class:`envpool.frontends.legacy_gym.GymEnvPool`);
- ``gym`` 0.21-0.25: that gym's API, as the reference EnvPool 0.6 had it: ``reset -> obs``,
  ``step -> (obs, reward, done, info)`` (:class:`envpool.frontends.legacy_gym.LegacyGymEnvPool`).

``gym`` is imported only here, when such a pool is made, never on ``import envpool``.
"""

from __future__ import annotations

import importlib
import importlib.util
import re

from envpool.frontends.gym_env import EnvPoolGymEnv

# The first gym release whose reset returns (obs, info) and step five values.
FIVE_VALUE_GYM = (0, 26)


def gym_version() -> tuple[int, int] | None:
    """(major, minor) of the installed ``gym`` package, or None when there is none.

    Raises ImportError when ``gym`` is installed but cannot be imported: the API of
    ``env_type="gym"`` depends on it, so it is never guessed.
    """
    spec = importlib.util.find_spec("gym")
    if spec is None or spec.origin is None:  # origin None: a folder named gym (namespace package), not gym
        return None
    try:
        gym = importlib.import_module("gym")
        found = re.findall(r"\d+", getattr(gym, "__version__", ""))
        if len(found) < 2:
            raise ValueError(f"its __version__ is {getattr(gym, '__version__', None)!r}")
    except Exception as exc:  # noqa: BLE001 - whatever a broken install raises
        raise ImportError(
            f"env_type='gym' follows the installed gym package's API, but importing gym failed: {exc!r}. "
            "Repair or uninstall gym (without it, env_type='gym' is the reference EnvPool 1.x's gymnasium-based "
            "front end), or use env_type='gymnasium'"
        ) from exc
    return int(found[0]), int(found[1])


def gym_front_end() -> type:
    """The front-end class ``env_type="gym"`` makes with the ``gym`` installed now."""
    version = gym_version()
    if version is None:
        return EnvPoolGymEnv
    from envpool.frontends import legacy_gym

    return legacy_gym.GymEnvPool if version >= FIVE_VALUE_GYM else legacy_gym.LegacyGymEnvPool
