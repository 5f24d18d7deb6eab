"""What every front end shares: adopting the pool a source opens (envpool.frontends.sources),
seeding, reset masks, the asynchronous send/recv API and state access.

Front ends (gymnasium, gym-style, dm_env) subclass their framework's base class and mix in
:class:`PoolFrontEnd`; they only decide how results are presented.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envpool.frontends.gl_notice import note_gl_renderer
from envpool.frontends.goals import GoalMethods
from envpool.frontends.reference import ReferencePoolAPI
from envpool.frontends.seeding import EnvSeeds, check_env_ids, check_env_index
from envpool.frontends.sources import POOL_SETTINGS, CorePool, OpenedPool, PoolAbilities, PoolSource
from envpool.tasks import TaskSpec


def timeout_seconds(timeout: Any) -> float:
    """A recv/step ``timeout`` as a number of seconds (not parsed from a string, not a bool)."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer, np.floating)):
        raise TypeError(f"timeout must be None or a number of seconds, got {type(timeout).__name__} {timeout!r}")
    return float(timeout)


def check_reset_mask(mask: Any, num_envs: int) -> np.ndarray:
    """``options["reset_mask"]``, checked as gymnasium's vector envs check it, with their messages."""
    mask = np.asarray(mask)
    if mask.shape != (num_envs,):
        raise ValueError(f"`options['reset_mask']` must have shape `({num_envs},)`, got {mask.shape}")
    if mask.dtype != np.bool_:
        raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
    if not mask.any():
        raise ValueError(
            f"`options['reset_mask']` must contain a boolean array with at least one True value, got reset_mask={mask}"
        )
    return mask


class PoolFrontEnd(GoalMethods, ReferencePoolAPI):
    """Owns the pool a :class:`~envpool.frontends.sources.PoolSource` opened, and shows its settings.

    Attributes: ``task_id`` and the settings of the :class:`~envpool.frontends.sources.OpenedPool`
    (``POOL_SETTINGS``): ``num_envs``, ``batch_size``, ``num_threads``, ``max_episode_steps``
    (``None``: no limit), ``autoreset_mode``, ``render_mode``, ``config`` (the env kwargs;
    per-env kwargs as lists) and ``task_spec`` (a :class:`envpool.tasks.TaskSpec`).
    Goal-conditioned tasks add ``compute_reward`` / ``compute_terminated`` / ``compute_truncated``
    (:class:`~envpool.frontends.goals.GoalMethods`).
    """

    _pool: CorePool
    _abilities: PoolAbilities
    _seeds: EnvSeeds
    task_id: str
    task_spec: TaskSpec  # and the other POOL_SETTINGS, adopted from the OpenedPool
    # After xla(): waits for jitted calls jax has dispatched (see _close_pool). Kept as a function,
    # not imported at close: close paths import nothing (at interpreter exit imports fail).
    _xla_wait: Any = None

    @classmethod
    def pool_kwargs(cls, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The pool options (``PoolOptions``'s keywords) a maker gives this front end, as it needs
        them: checked, or completed, before the source is made (``make``, ``make_python``)."""
        return kwargs

    def _open_pool(self, source: PoolSource) -> OpenedPool:
        """Opens ``source``'s pool and adopts it: the pool's settings become the front end's
        attributes, what it can do its abilities."""
        if not isinstance(source, PoolSource):
            hint = (
                f": envpool.make({source!r}, ...) makes a pool of a task, or pass envpool.NativeSource({source!r}, "
                "envpool.PoolOptions(...))"
                if isinstance(source, str)
                else ""
            )
            raise TypeError(
                f"{type(self).__name__} opens a pool source (an object with open_pool(): NativeSource, "
                f"PythonEnvSource, ExternalSource), got {type(source).__name__} {source!r:.60}{hint}"
            )
        opened = source.open_pool()
        self._pool = opened.pool
        self._abilities = opened.abilities
        self._seeds = EnvSeeds(opened.num_envs, None if opened.abilities.python_envs else opened.env_seeds)
        for name in POOL_SETTINGS:
            setattr(self, name, getattr(opened, name))
        self.task_id = opened.task_spec.task_id
        self._note_make_settings(opened)
        note_gl_renderer()  # once per process, where MuJoCo frames are drawn in software
        return opened

    # -- resetting -------------------------------------------------------------------------------

    def _send_reset(self, seed, options, env_id=None) -> None:
        """Start the reset that ``reset(env_id, seed=..., options=...)`` asks for (see the front
        ends). ``env_id`` (as the reference EnvPool) resets just those envs, whose rows the
        result holds in that order; ``seed=int`` still seeds env ``i`` with ``seed + i``.
        ``options`` other than ``reset_mask`` go to each reset env's ``reset`` (Python envs;
        native envs take none)."""
        options = dict(options) if options is not None else None
        mask = options.pop("reset_mask", None) if options is not None else None
        if options and not self._python_envs:
            raise ValueError(f"reset() got unsupported options {sorted(options)}; native envs only know 'reset_mask'")
        extra = {"options": options} if options else {}
        if env_id is not None and mask is not None:
            raise ValueError("reset() got both env_id and options['reset_mask']: pass one of them")
        if env_id is not None:
            ids = check_env_ids(env_id, self.num_envs)
            subset = self._seeds.for_ids(seed, ids)
            self._pool.send_reset(ids, subset, None, True, **extra)
            if subset is not None:
                self._seeds.note(ids.tolist(), subset)
            return
        seeds = self._seeds.for_all(seed)
        if mask is None:
            self._pool.send_reset(None, seeds, None, True, **extra)
            if seeds is not None:
                self._seeds.note(range(self.num_envs), seeds)
            return
        mask = check_reset_mask(mask, self.num_envs)
        ids = np.flatnonzero(mask)
        subset = None if seeds is None else [seeds[i] for i in ids]
        if self.batch_size == self.num_envs:
            self._pool.send_reset(None, seeds, (~mask).tolist(), True, **extra)
        else:
            self._pool.send_reset(ids, subset, None, True, **extra)
        if subset is not None:
            self._seeds.note(ids.tolist(), subset)

    # -- the reference EnvPool's attributes -------------------------------------------------------

    def __len__(self) -> int:
        """The number of envs (Tianshou's ``Collector`` reads it)."""
        return self.num_envs

    @property
    def is_async(self) -> bool:
        """True when ``recv()`` returns batches of fewer than ``num_envs`` envs."""
        return self.batch_size != self.num_envs

    @property
    def all_env_ids(self) -> np.ndarray:
        """``np.arange(num_envs)`` as int32, as the reference EnvPool."""
        return np.arange(self.num_envs, dtype=np.int32)

    # -- asynchronous API (as the reference EnvPool) ---------------------------------------------

    def async_reset(self, env_id=None) -> None:
        """Start new episodes in all envs (or in ``env_id``) without waiting; collect them
        with ``recv()``."""
        self._pool.send_reset(None if env_id is None else check_env_ids(env_id, self.num_envs), None, None, False)

    def send(self, actions, env_id=None) -> None:
        """Hand ``actions`` to envs ``env_id`` (all envs when ``None``) and return at once."""
        try:
            self._pool.send(actions, env_id)
        except ValueError as exc:
            # The core names the shape it expected for all envs; a partial batch (typically the
            # rows of an async recv()) also needs their ids: say so.
            if env_id is None and "envs need shape" in str(exc):
                raise ValueError(
                    f"{exc}; send() without env_id sends to all {self.num_envs} envs: to send a partial batch "
                    "(e.g. the rows of recv()), pass their ids, send(actions, env_id=info['env_id'])"
                ) from None
            raise

    def _recv(self, timeout: float | None, with_ids: bool = True):
        """The next batch; ``with_ids``: its info holds ``env_id`` and ``elapsed_step`` (pools
        of external episodes always give them, and take no such argument)."""
        timeout = -1.0 if timeout is None else timeout_seconds(timeout)
        return self._pool.recv(timeout) if with_ids else self._pool.recv(timeout, False)

    def _step(self, actions, env_id, timeout: float | None = None, with_ids: bool = True):
        timeout = -1.0 if timeout is None else timeout_seconds(timeout)
        return (
            self._pool.step(actions, env_id, timeout) if with_ids else self._pool.step(actions, env_id, timeout, False)
        )

    def xla(self, timeout: float | None = None):
        """``(handle, recv, send, step)``: pure functions that step this pool from inside
        ``jax.jit`` / ``lax.scan``, as the reference EnvPool's ``xla()`` (needs the ``jax`` extra;
        see envpool.xla and docs/jax.md). ``timeout`` bounds each recv's wait, in seconds."""
        from envpool.xla.calls import make_xla, wait_for_dispatched_calls

        self._xla_wait = wait_for_dispatched_calls
        return make_xla(self, timeout)

    def _close_pool(self) -> None:
        """Close the pool (if ``__init__`` got as far as making one). After ``xla()``, first let
        jitted calls jax has dispatched but not yet run finish: jax dispatches asynchronously,
        so ``rollout(handle); envs.close()`` would otherwise close the pool under them. Imports
        nothing: a pool dropped at interpreter exit is closed when imports fail."""
        pool = getattr(self, "_pool", None)
        if pool is None:
            return
        if self._xla_wait is not None:
            self._xla_wait()
        pool.close()

    # -- rendering ---------------------------------------------------------------------------------

    def render(self, env_ids=None) -> tuple:
        """Frames of envs ``env_ids`` (all when ``None``), one per env in a tuple, as gymnasium's
        vector envs return them. Native envs: ``(H, W, 3)`` uint8 frames drawn in C++ (views of
        one ``(n, H, W, 3)`` array; ``render_mode="rgb_array"`` at ``make``). Python envs: what
        each env's ``render()`` returns. The envs must not be in flight."""
        if env_ids is not None:
            env_ids = check_env_ids(env_ids, self.num_envs)
        if self._python_envs:
            return self._pool.render(env_ids)
        if self.render_mode != "rgb_array":
            raise RuntimeError("render() needs render_mode='rgb_array' at make()")
        return tuple(self._pool.render(env_ids))

    @property
    def _python_envs(self) -> bool:
        """Whether the envs are Python envs in worker processes (envpool.make_python)."""
        return self._abilities.python_envs

    # -- state access (tests, reproducing situations) --------------------------------------------

    def get_state(self, env_id: int) -> np.ndarray:
        """The full internal state of an idle env, as float64 (for the classic-control tasks
        the same vector gymnasium's env holds in ``env.unwrapped.state``)."""
        return self._pool.get_state(check_env_index("env_id", env_id, self.num_envs))

    def set_state(self, env_id: int, state) -> None:
        """Put an idle env in ``state``; its next step starts from there."""
        self._pool.set_state(
            check_env_index("env_id", env_id, self.num_envs), np.asarray(state, dtype=np.float64).tolist()
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.task_id!r}, num_envs={self.num_envs}, "
            f"batch_size={self.batch_size}, num_threads={self.num_threads}, "
            f"autoreset_mode={self.autoreset_mode.name})"
        )
