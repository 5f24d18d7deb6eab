"""What every front end shares: building the C++ pool from ``make``'s arguments, seeding,
reset masks, the asynchronous send/recv API and state access.

Front ends (gymnasium, gym-style, dm_env) subclass their framework's base class and mix in
:class:`PoolFrontEnd`; they only decide how results are presented.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envpool import _core
from envpool.tasks import TaskSpec, make_spec, pack_env_kwargs

# The core's names of the autoreset modes.
CORE_AUTORESET = {
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


@dataclasses.dataclass
class OpenedPool:
    """A pool and what a front end knows about it: made by ``_open_pool`` for native tasks and
    by ``envpool.python_envs`` for Python envs, adopted by ``PoolFrontEnd._attach``."""

    pool: Any  # _core.Pool, or an object with its methods (python_envs.ProcessPool)
    task_spec: TaskSpec
    num_envs: int
    batch_size: int
    num_threads: int
    max_episode_steps: int | None
    autoreset_mode: AutoresetMode
    render_mode: str | None
    config: dict[str, Any]


class PoolFrontEnd:
    """Owns a ``_core.Pool`` and the arguments it was made with.

    Attributes: ``task_id``, ``num_envs``, ``batch_size``, ``num_threads``,
    ``max_episode_steps`` (``None``: no limit), ``autoreset_mode``, ``config`` (the env kwargs;
    per-env kwargs as lists) and ``task_spec`` (a :class:`envpool.tasks.TaskSpec`).
    """

    _pool: _core.Pool

    def _open_pool(
        self,
        task_id: str,
        num_envs: int = 1,
        batch_size: int | None = None,
        num_threads: int | None = None,
        seed: int = 42,
        max_episode_steps: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(task_id, str) and hasattr(task_id, "open_pool"):
            # A pool built elsewhere (envpool.make_python): same attributes, same protocol.
            self._attach(task_id.open_pool())
            return
        num_envs = _check_int("num_envs", num_envs, 1)
        batch_size = num_envs if batch_size is None else _check_int("batch_size", batch_size, 1)
        if batch_size > num_envs:
            raise ValueError(f"batch_size ({batch_size}) must not exceed num_envs ({num_envs})")
        if num_threads is None:
            # Full batch: the calling thread steps envs too, so use every core. Async: the
            # caller runs the policy meanwhile, so leave it a core.
            cores = os.cpu_count() or 1
            num_threads = max(1, min(batch_size, cores if batch_size == num_envs else cores - 1))
        num_threads = _check_int("num_threads", num_threads, 1)
        seed = _check_int("seed", seed, 0)
        if max_episode_steps is not None:
            max_episode_steps = _check_int("max_episode_steps", max_episode_steps, 0)
        autoreset_mode = parse_autoreset_mode(autoreset_mode)
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        # Env kwargs are checked by make_spec (names and types, as the pool checks them) and the
        # spaces come from it; all before the pool, whose constructor starts the worker threads.
        packed = pack_env_kwargs(task_id, kwargs, num_envs)
        # Spaces are those of env 0 (all envs share them); config lists per-env kwargs whole.
        task_spec = make_spec(task_id, **{key: values[0] for key, values in packed.items()})
        if render_mode == "rgb_array" and task_spec.render_shape is None:
            raise ValueError(f"{task_id} does not render")
        pool = _core.Pool(
            task_id,
            num_envs,
            batch_size,
            num_threads,
            seed,
            -1 if max_episode_steps is None else max_episode_steps,
            packed,
            CORE_AUTORESET[autoreset_mode],
        )
        config = dict(task_spec.config)
        config.update({key: values for key, values in packed.items() if len(values) > 1})
        self._attach(
            OpenedPool(
                pool=pool,
                task_spec=task_spec,
                num_envs=num_envs,
                batch_size=batch_size,
                num_threads=num_threads,
                max_episode_steps=pool.max_episode_steps or None,
                autoreset_mode=autoreset_mode,
                render_mode=render_mode,
                config=config,
            )
        )

    def _attach(self, opened: OpenedPool) -> None:
        """Adopt an opened pool: the one place a front end's attributes are set."""
        self._pool = opened.pool
        self.task_spec = opened.task_spec
        self.task_id = opened.task_spec.task_id
        self.num_envs = opened.num_envs
        self.batch_size = opened.batch_size
        self.num_threads = opened.num_threads
        self.max_episode_steps = opened.max_episode_steps
        self.autoreset_mode = opened.autoreset_mode
        self.render_mode = opened.render_mode
        self.config = opened.config

    # -- resetting -------------------------------------------------------------------------------

    def _send_reset(self, seed, options) -> None:
        """Start the reset that ``reset(seed=..., options=...)`` asks for (see the front ends)."""
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"reset() got unsupported options {sorted(options)}; only 'reset_mask' is known")
        seeds = self._seeds(seed)
        if mask is None:
            self._pool.send_reset(None, seeds, None, True)
            return
        mask = self._check_reset_mask(mask)
        if self.batch_size == self.num_envs:
            self._pool.send_reset(None, seeds, (~mask).tolist(), True)
        else:
            ids = np.flatnonzero(mask)
            self._pool.send_reset(ids, None if seeds is None else [seeds[i] for i in ids], None, True)

    def _seeds(self, seed: int | list[int] | None) -> list[int] | None:
        if seed is None:
            return None
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            return [int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset() got {len(seeds)} seeds for {self.num_envs} envs")
        return [_check_int("seed", s, 0) for s in seeds]

    def _check_reset_mask(self, mask) -> np.ndarray:
        mask = np.asarray(mask)
        if mask.dtype != np.bool_:
            raise TypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
        if mask.shape != (self.num_envs,):
            raise ValueError(f"options['reset_mask'] must have shape ({self.num_envs},), got {mask.shape}")
        if not mask.any():
            raise ValueError("options['reset_mask'] must select at least one env")
        return mask

    # -- asynchronous API (as the reference EnvPool) ---------------------------------------------

    def async_reset(self, env_id=None) -> None:
        """Start new episodes in all envs (or in ``env_id``) without waiting; collect them
        with ``recv()``."""
        self._pool.send_reset(env_id, None, None, False)

    def send(self, actions, env_id=None) -> None:
        """Hand ``actions`` to envs ``env_id`` (all envs when ``None``) and return at once."""
        self._pool.send(actions, env_id)

    def _recv(self, timeout: float | None):
        return self._pool.recv(-1.0 if timeout is None else float(timeout))

    def _step(self, actions, env_id, timeout: float | None = None):
        return self._pool.step(actions, env_id, -1.0 if timeout is None else float(timeout))

    def xla(self, timeout: float | None = None):
        """``(handle, recv, send, step)``: pure functions that step this pool from inside
        ``jax.jit`` / ``lax.scan``, as the reference EnvPool's ``xla()`` (needs the ``jax`` extra;
        see envpool.xla and docs/jax.md). ``timeout`` bounds each recv's wait, in seconds."""
        from envpool.xla import make_xla

        self._xla_used = True
        return make_xla(self, timeout)

    def _close_pool(self) -> None:
        """Close the pool (if ``__init__`` got as far as making one). After ``xla()``, first let
        jitted calls jax has dispatched but not yet run finish: jax dispatches asynchronously,
        so ``rollout(handle); envs.close()`` would otherwise close the pool under them."""
        pool = getattr(self, "_pool", None)
        if pool is None:
            return
        if getattr(self, "_xla_used", False):
            from envpool.xla import wait_for_dispatched_calls

            wait_for_dispatched_calls()
        pool.close()

    # -- rendering ---------------------------------------------------------------------------------

    def render(self, env_ids=None) -> np.ndarray:
        """Frames of envs ``env_ids`` (all when ``None``) as one ``(n, H, W, 3)`` uint8 array,
        drawn in C++ (``render_mode="rgb_array"`` at ``make``). The envs must not be in flight."""
        if self.render_mode != "rgb_array":
            raise RuntimeError("render() needs render_mode='rgb_array' at make()")
        return self._pool.render(env_ids)

    # -- state access (tests, reproducing situations) --------------------------------------------

    def get_state(self, env_id: int) -> np.ndarray:
        """The full internal state of an idle env, as float64 (for the classic-control tasks
        the same vector gymnasium's env holds in ``env.unwrapped.state``)."""
        return self._pool.get_state(int(env_id))

    def set_state(self, env_id: int, state) -> None:
        """Put an idle env in ``state``; its next step starts from there."""
        self._pool.set_state(int(env_id), np.asarray(state, dtype=np.float64).tolist())

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.task_id!r}, num_envs={self.num_envs}, "
            f"batch_size={self.batch_size}, num_threads={self.num_threads}, "
            f"autoreset_mode={self.autoreset_mode.name})"
        )
