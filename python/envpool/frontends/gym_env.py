"""The gym front end (``env_type="gym"``, ``make_gym``): the reference EnvPool's front end, for
scripts written for it.

The reference EnvPool (1.1 and later) answers ``env_type="gym"`` with its gymnasium front end:
it dropped the ``gym`` package, so spaces are gymnasium's even where ``gym`` is installed. That
object is at once a ``gymnasium.vector.VectorEnv`` and a ``gymnasium.Env`` (so
``gymnasium.Wrapper`` subclasses accept it), its ``observation_space`` / ``action_space`` are a
single env's, ``reset(env_id=None)`` returns ``(obs, info)``, ``step(action, env_id=None)`` five
values, a step before any reset starts the episodes, and ``info`` holds ``env_id``,
``players.env_id`` and ``elapsed_step`` besides the env's own keys. :class:`EnvPoolGymEnv` copies
that (checked against the reference 1.2.5 in tests/frontends/test_gym.py); docs/compat.md lists
what it deliberately does not copy.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np

from envpool.frontends.seeding import is_int
from envpool.frontends.sources import PoolSource
from envpool.frontends.vector_env import EnvPoolVectorEnv
from envpool.result_names import check_front_end


class EnvPoolGymEnv(EnvPoolVectorEnv, gymnasium.Env):
    """``num_envs`` copies of a native env with the reference EnvPool's gym front end.

    >>> import envpool, numpy as np
    >>> envs = envpool.make_gym("CartPole-v1", num_envs=2, seed=0)
    >>> envs.action_space, len(envs), envs.is_async
    (Discrete(2), 2, False)
    >>> obs, rew, term, trunc, info = envs.step(np.array([0, 1]))  # no reset needed first
    >>> sorted(info), rew.dtype, info["elapsed_step"]
    (['elapsed_step', 'env_id', 'players'], dtype('float32'), array([0, 0], dtype=int32))
    >>> obs, info = envs.reset(np.array([1]))  # just env 1
    >>> obs.shape, info["env_id"]
    ((1, 4), array([1], dtype=int32))
    >>> envs.close()
    """

    _full_batch_ids = True  # every info names its rows' envs, as the reference's
    _added_info_keys = ("env_id", "players", "elapsed_step")  # _gym_info's

    def __init__(self, source: PoolSource):
        super().__init__(source)
        check_front_end(self, self._added_info_keys)
        self.observation_space = self.single_observation_space
        self.action_space = self.single_action_space
        # Envs never reset: the reference starts their episodes on their first step.
        self._not_reset = np.ones(self.num_envs, dtype=bool)

    # -- resetting -------------------------------------------------------------------------------

    def reset(self, env_id=None, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        """Start new episodes in all envs (or in ``env_id``): ``(obs, info)``, rows in the order
        of ``env_id``. Unlike the reference, ``seed`` is honoured (env ``i`` gets ``seed + i``)."""
        self._send_reset(seed, options, env_id)  # checks seed first: a refused reset changes nothing
        if is_int(seed):
            gymnasium.vector.VectorEnv.reset(self, seed=int(seed))  # np_random, for wrappers
        self._mark_reset(env_id, (options or {}).get("reset_mask"))
        obs, _, _, _, info = self._pool.recv()
        return obs, self._gym_info(info)

    def async_reset(self, env_id=None) -> None:
        super().async_reset(env_id)
        self._mark_reset(env_id, None)

    def _mark_reset(self, env_id, mask) -> None:
        if env_id is not None:
            self._not_reset[np.asarray(env_id).reshape(-1)] = False
        elif mask is not None:
            self._not_reset[np.asarray(mask, dtype=bool)] = False
        else:
            self._not_reset[:] = False

    def set_state(self, env_id: int, state) -> None:
        super().set_state(env_id, state)
        self._not_reset[int(env_id)] = False

    # -- stepping --------------------------------------------------------------------------------

    def step(self, action, env_id=None, timeout: float | None = None):
        """Step envs (all, or ``env_id``): ``(obs, reward, terminated, truncated, info)`` with
        float32 rewards, as the reference. An env never reset starts its episode instead (its row
        is a first observation, reward 0), as the reference does."""
        if not self._not_reset.any():
            return self._gym_result(self._step(action, env_id, timeout))
        sent = self._send_starting(action, env_id)
        result = self._gym_result(self._recv(timeout))
        if sent is None or self.is_async:
            return result
        # Full batch: rows come in send order (envs started first); put them in the asked order.
        got = result[-1]["env_id"].tolist()  # info: last of 5 values (4 on gym < 0.26's front end)
        where = {env: row for row, env in enumerate(got)}
        return _take_rows(result, np.array([where[int(i)] for i in sent]))

    def send(self, action, env_id=None) -> None:
        if self._not_reset.any():
            self._send_starting(action, env_id)
        else:
            super().send(action, env_id)

    def _send_starting(self, action, env_id) -> np.ndarray | None:
        """Sends a step of envs some of which were never reset: those are reset instead. Returns
        the env ids asked for, or None when the pool got the call unchanged (e.g. bad ids, which
        it refuses naming them)."""
        ids = np.arange(self.num_envs) if env_id is None else np.asarray(env_id).reshape(-1)
        if ids.dtype.kind not in "iu" or not ((ids >= 0) & (ids < self.num_envs)).all():
            self._pool.send(action, env_id)
            return None
        fresh = self._not_reset[ids]
        if not fresh.any():
            self._pool.send(action, env_id)
            return None
        if not fresh.all():
            # Checked first, so that a bad action leaves the fresh envs unsent.
            stepped = np.flatnonzero(~fresh)
            self._pool.send(_take_rows(action, stepped), ids[stepped])
        self._pool.send_reset(ids[fresh], None, None, False)
        self._not_reset[ids[fresh]] = False
        return ids

    def recv(self, reset: bool = False, return_info: bool = True, timeout: float | None = None):
        """The next batch, as the reference's ``recv(reset, return_info)``: ``(obs, info)`` when
        ``reset``, else ``(obs, reward, terminated, truncated, info)``."""
        obs, reward, terminated, truncated, info = self._gym_result(self._recv(timeout))
        if reset:
            return obs, info
        return obs, reward, terminated, truncated, info

    def render(self, env_ids=None, camera_id: int | None = None) -> np.ndarray:
        """Frames of envs ``env_ids`` as ``(n, H, W, 3)`` uint8; env 0 alone by default, as the
        reference. Native envs have one camera: ``camera_id`` must be None (or -1, the default one)."""
        if camera_id not in (None, -1):
            raise ValueError(f"camera_id={camera_id!r}: these envs have only their default camera")
        # One array, as the reference (gymnasium's front end returns a tuple of frames).
        return np.stack(super().render([0] if env_ids is None else env_ids))

    def seed(self, seed: int | list[int] | None = None) -> None:
        """Ignored, with a warning, as the reference: seed at ``make(seed=...)`` or ``reset(seed=...)``."""
        warnings.warn(
            "envpool's seed() does nothing (as the reference EnvPool's): pass seed to envpool.make(...) "
            "or to reset(seed=...)",
            stacklevel=2,
        )

    # -- results ---------------------------------------------------------------------------------

    def _gym_result(self, result):
        obs, reward, terminated, truncated, info = result
        return obs, reward.astype(np.float32), terminated, truncated, self._gym_info(info)

    @staticmethod
    def _gym_info(info: dict[str, Any]) -> dict[str, Any]:
        """The reference's info: ``env_id``, ``players`` ({``env_id``}), the env's own keys,
        ``elapsed_step``. Built here from the pool's raw result, whatever the gymnasium front end
        shows."""
        ids = info["env_id"]
        out = {"env_id": ids, "players": {"env_id": ids.copy()}}
        out.update((key, value) for key, value in info.items() if key not in ("env_id", "elapsed_step"))
        out["elapsed_step"] = info["elapsed_step"]
        return out


def _take_rows(value, rows: np.ndarray):
    """``value`` (arrays nested in tuples and dicts) with only ``rows``, in that order."""
    if isinstance(value, dict):
        return {key: _take_rows(sub, rows) for key, sub in value.items()}
    if isinstance(value, tuple):
        return tuple(_take_rows(sub, rows) for sub in value)
    return np.asarray(value)[rows]
