"""The gymnasium front end: a real :class:`gymnasium.vector.VectorEnv` over the C++ pool."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import gymnasium
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envpool import _core
from envpool.registration import make_spec, pack_env_kwargs


_CORE_AUTORESET = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


def parse_autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    """``AutoresetMode.SAME_STEP``, ``"SameStep"`` and ``"same_step"`` all name the same mode."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        key = mode.replace("_", "").replace("-", "").lower()
        for m in AutoresetMode:
            if key in (m.value.lower(), m.name.replace("_", "").lower()):
                return m
    raise ValueError(
        f"autoreset_mode must be a gymnasium.vector.AutoresetMode or one of "
        f"'next_step', 'same_step', 'disabled'; got {mode!r}"
    )


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


class EnvPoolVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` copies of a native env, stepped by a C++ thread pool.

    Full batch (``batch_size == num_envs``, the default) behaves like gymnasium's
    ``SyncVectorEnv`` in the chosen autoreset mode (``autoreset_mode``: next-step by default,
    same-step or disabled). With ``batch_size < num_envs`` use the
    asynchronous loop: ``async_reset()``, then ``recv()`` the first ``batch_size`` envs to
    finish and ``send(actions, info["env_id"])`` them back.

    Differences from the reference EnvPool: ``observation_space`` / ``action_space`` are
    batched, as in gymnasium; a single env's spaces are ``single_observation_space`` /
    ``single_action_space``.

    >>> import envpool, numpy as np
    >>> envs = envpool.make("CartPole-v1", num_envs=3, seed=0)
    >>> obs, info = envs.reset()
    >>> obs, rew, term, trunc, info = envs.step(np.array([0, 1, 0]))
    >>> rew, info["elapsed_step"]
    (array([1., 1., 1.]), array([1, 1, 1], dtype=int32))
    >>> envs.close()

    Returned arrays belong to the caller: later steps never overwrite them.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        task_id: str,
        num_envs: int = 1,
        batch_size: int | None = None,
        num_threads: int | None = None,
        seed: int = 42,
        max_episode_steps: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **kwargs: Any,
    ):
        num_envs = _check_int("num_envs", num_envs, 1)
        autoreset_mode = parse_autoreset_mode(autoreset_mode)
        batch_size = num_envs if batch_size is None else _check_int("batch_size", batch_size, 1)
        if batch_size > num_envs:
            raise ValueError(f"batch_size ({batch_size}) must not exceed num_envs ({num_envs})")
        if num_threads is None:
            num_threads = max(1, min(batch_size, os.cpu_count() or 1))
        num_threads = _check_int("num_threads", num_threads, 1)
        seed = _check_int("seed", seed, 0)
        if max_episode_steps is not None:
            max_episode_steps = _check_int("max_episode_steps", max_episode_steps, 0)

        packed = pack_env_kwargs(task_id, kwargs, num_envs)
        self._pool = _core.Pool(
            task_id,
            num_envs,
            batch_size,
            num_threads,
            seed,
            -1 if max_episode_steps is None else max_episode_steps,
            packed,
            _CORE_AUTORESET[autoreset_mode],
        )
        self.metadata = {**type(self).metadata, "autoreset_mode": autoreset_mode}
        self.autoreset_mode = autoreset_mode
        # Spaces are those of env 0 (all envs share them); config lists per-env kwargs whole.
        self._spec = make_spec(task_id, **{key: values[0] for key, values in packed.items()})
        self.task_id = task_id
        self.num_envs = num_envs
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.max_episode_steps = self._pool.max_episode_steps or None
        self.config = dict(self._spec.config)
        self.config.update({key: values for key, values in packed.items() if len(values) > 1})
        self.single_observation_space = self._spec.observation_space
        self.single_action_space = self._spec.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

    # -- gymnasium API -------------------------------------------------------------------------

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        """Start new episodes in all envs and return ``(obs, info)``.

        ``seed=int`` seeds env ``i`` with ``seed + i``; a list gives one seed per env;
        ``None`` continues each env's random stream. With ``batch_size < num_envs`` this
        returns the first ``batch_size`` envs to finish resetting (as the reference EnvPool).

        ``options={"reset_mask": mask}`` (a bool array of ``num_envs``) resets only the masked
        envs; in full-batch mode this needs ``autoreset_mode=DISABLED``, and the other envs'
        rows repeat their last observation, as gymnasium's ``SyncVectorEnv`` does.
        """
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            super().reset(seed=int(seed))  # gymnasium's own np_random, for wrappers that use it
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"reset() got unsupported options {sorted(options)}; only 'reset_mask' is known")
        seeds = self._seeds(seed)
        if mask is None:
            self._pool.send_reset(None, seeds, None, True)
        else:
            mask = self._check_reset_mask(mask)
            if self.batch_size == self.num_envs:
                self._pool.send_reset(None, seeds, (~mask).tolist(), True)
            else:
                ids = np.flatnonzero(mask)
                self._pool.send_reset(ids, None if seeds is None else [seeds[i] for i in ids])
        obs, _, _, _, info = self._pool.recv()
        return obs, info

    def _check_reset_mask(self, mask) -> np.ndarray:
        mask = np.asarray(mask)
        if mask.dtype != np.bool_:
            raise TypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
        if mask.shape != (self.num_envs,):
            raise ValueError(f"options['reset_mask'] must have shape ({self.num_envs},), got {mask.shape}")
        if not mask.any():
            raise ValueError("options['reset_mask'] must select at least one env")
        return mask

    def step(self, actions, env_id=None):
        """Step envs (all of them, or ``env_id``) and return the next batch of results:
        ``(obs, reward, terminated, truncated, info)``."""
        return self._pool.step(actions, env_id)

    def close_extras(self, **kwargs: Any) -> None:
        self._pool.close()

    def __enter__(self) -> EnvPoolVectorEnv:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- asynchronous API (as the reference EnvPool) ---------------------------------------------

    def async_reset(self, env_id=None) -> None:
        """Start new episodes in all envs (or in ``env_id``) without waiting; collect them
        with ``recv()``."""
        self._pool.send_reset(env_id, None, None)

    def send(self, actions, env_id=None) -> None:
        """Hand ``actions`` to envs ``env_id`` (all envs when ``None``) and return at once."""
        self._pool.send(actions, env_id)

    def recv(self, timeout: float | None = None):
        """The first ``batch_size`` envs to finish: ``(obs, reward, terminated, truncated,
        info)``, with ``info["env_id"]`` naming each row's env."""
        return self._pool.recv(-1.0 if timeout is None else float(timeout))

    # -- state access (tests, reproducing situations) --------------------------------------------

    def get_state(self, env_id: int) -> np.ndarray:
        """The full internal state of an idle env, as float64 (the same vector gymnasium's env
        holds in ``env.unwrapped.state`` for the classic-control tasks)."""
        return self._pool.get_state(int(env_id))

    def set_state(self, env_id: int, state) -> None:
        """Put an idle env in ``state``; its next step starts from there."""
        self._pool.set_state(int(env_id), np.asarray(state, dtype=np.float64).tolist())

    # -- helpers ---------------------------------------------------------------------------------

    def _seeds(self, seed: int | list[int] | None) -> list[int] | None:
        if seed is None:
            return None
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            return [int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset() got {len(seeds)} seeds for {self.num_envs} envs")
        return [int(s) for s in seeds]

    def __repr__(self) -> str:
        return (
            f"EnvPoolVectorEnv({self.task_id!r}, num_envs={self.num_envs}, "
            f"batch_size={self.batch_size}, num_threads={self.num_threads}, "
            f"autoreset_mode={self.autoreset_mode.name})"
        )
