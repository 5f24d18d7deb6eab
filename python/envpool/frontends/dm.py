"""The dm_env front end (``env_type="dm"``): ``dm_env.TimeStep`` batches, as the reference
EnvPool's dm envs return them.

Each result is ``TimeStep(step_type, reward, discount, observation)`` with arrays of one row
per env: ``step_type`` is FIRST for a reset, LAST when the episode ended (terminated or
truncated) and MID otherwise; ``discount`` is 0 on termination and 1 otherwise (a truncated
episode may be bootstrapped), or lower where the env declares an info array ``discount``;
``observation`` is a namedtuple ``State(obs, env_id, elapsed_step, ...env info arrays)``.
Episodes restart on the step after LAST, which is the dm_env convention (and next-step autoreset).

dm_control suite tasks (``CheetahRun-v1``, ...) give ``obs`` and ``observation_spec()`` the
structure dm_control gives for every option: an ``OrderedDict`` of named entries in dm_control's
order, each spec a ``specs.Array`` named by its key, also where the pool's observation is one
array: ``{"pixels": ...}`` for ``from_pixels`` with ``pixels_only`` (``pixels.Wrapper``),
``{"observations": ...}`` for ``flat_observation`` (``flatten_observation``).
"""

from __future__ import annotations

import collections
from collections.abc import Mapping
from typing import Any

import numpy as np

try:
    import dm_env
    from dm_env import specs
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("env_type='dm' needs the dm-env package: pip install 'envpool-ng[dm]'") from exc

from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from envpool import _core
from envpool.frontends.pool import PoolFrontEnd
from envpool.frontends.sources import PoolSource, parse_autoreset_mode
from envpool.result_names import check_front_end


def _space_to_spec(space: spaces.Space, name: str):
    """The dm_env spec of one env's ``space``; Tuple and Dict spaces give a tuple / dict of specs,
    the structure of the observations."""
    if isinstance(space, spaces.Discrete):
        start = int(space.start)
        if start == 0:
            return specs.DiscreteArray(num_values=int(space.n), dtype=np.int64, name=name)
        # DiscreteArray always starts at 0: keep the range [start, start + n - 1] as bounds.
        return specs.BoundedArray((), np.int64, minimum=start, maximum=start + int(space.n) - 1, name=name)
    if isinstance(space, spaces.Box):
        return specs.BoundedArray(space.shape, space.dtype, space.low, space.high, name=name)
    if isinstance(space, spaces.Tuple):
        return tuple(_space_to_spec(sub, f"{name}_{i}") for i, sub in enumerate(space.spaces))
    if isinstance(space, spaces.Dict):
        return {key: _space_to_spec(sub, key) for key, sub in space.spaces.items()}
    raise TypeError(f"no dm_env spec for {space}")


def _check_autoreset(mode: Any) -> None:
    if parse_autoreset_mode(mode) != AutoresetMode.NEXT_STEP:
        raise ValueError(
            f"env_type='dm' restarts episodes on the step after LAST; autoreset_mode {mode!r} is not supported"
        )


# The kwargs of dm_control's suite tasks that shape their observation (cpp/envs/mujoco/dmc/).
_SUITE_KWARGS = ("from_pixels", "pixels_only", "flat_observation")


def _suite_key(config: Any) -> str | None:
    """For a dm_control suite task, the key dm_control gives an observation that the pool gives as
    one array: ``"pixels"`` (``from_pixels`` with ``pixels_only``: ``pixels.Wrapper``'s),
    ``"observations"`` (``flat_observation``: ``flatten_observation``'s); ``""`` where the pool's
    observation is a dict of the entries already; None for other tasks."""
    if not all(key in config for key in _SUITE_KWARGS):
        return None
    if config["from_pixels"] and config["pixels_only"]:
        return "pixels"
    return "observations" if config["flat_observation"] and not config["from_pixels"] else ""


def _state_class(fields: list[str]) -> type:
    """The namedtuple ``State(obs, env_id, elapsed_step, ...)``, which also reads the entries of
    a dict ``obs`` by key: code written for dm_control, whose ``TimeStep.observation`` is the
    dict itself, indexes ``time_step.observation["pixels"]``."""

    class State(collections.namedtuple("State", fields)):
        __slots__ = ()

        def __getitem__(self, key):
            if not isinstance(key, str):
                return tuple.__getitem__(self, key)
            obs = self.obs
            if not isinstance(obs, Mapping):
                raise TypeError(f"State[{key!r}]: this task's observation is not a dict (State.obs)")
            if key not in obs:
                raise KeyError(f"{key!r}: the observation's entries are {', '.join(obs)}")
            return obs[key]

    return State


class EnvPoolDmEnv(PoolFrontEnd, dm_env.Environment):
    """``num_envs`` copies of a native env as a batched ``dm_env.Environment``.

    >>> import envpool, numpy as np
    >>> env = envpool.make("CartPole-v1", env_type="dm", num_envs=2)
    >>> ts = env.reset()
    >>> ts.step_type.tolist(), ts.observation.obs.shape
    ([0, 0], (2, 4))
    >>> ts = env.step(np.array([0, 1]))
    >>> ts.step_type.tolist(), ts.discount.tolist()
    ([1, 1], [1.0, 1.0])
    >>> env.close()
    """

    @classmethod
    def pool_kwargs(cls, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Next-step autoreset only, checked before the pool starts threads."""
        _check_autoreset(kwargs.get("autoreset_mode", AutoresetMode.NEXT_STEP))
        return kwargs

    def __init__(self, source: PoolSource):
        self._open_pool(source)
        if self.autoreset_mode != AutoresetMode.NEXT_STEP:  # a source made with another mode
            self._close_pool()
            _check_autoreset(self.autoreset_mode)
        check_front_end(self, ("obs",), fields=True)  # the info arrays become State's fields beside obs
        info_names = [name for name in self.task_spec.info_keys if name not in ("env_id", "elapsed_step")]
        self._state_type = _state_class(["obs", "env_id", "elapsed_step", *info_names])
        self._state_names = self._state_type._fields[1:]
        self._suite_key = _suite_key(self.task_spec.config)

    # -- dm_env.Environment --------------------------------------------------------------------

    def reset(self) -> dm_env.TimeStep:
        """Start new episodes in all envs; with ``batch_size < num_envs`` the first
        ``batch_size`` envs to finish resetting."""
        self._send_reset(None, None)
        return self._time_step(self._pool.recv())

    def step(self, action, env_id=None, timeout: float | None = None) -> dm_env.TimeStep:
        return self._time_step(self._step(action, env_id, timeout))

    def recv(self, timeout: float | None = None) -> dm_env.TimeStep:
        return self._time_step(self._recv(timeout))

    def observation_spec(self):
        """Spec of one env's observation (the ``obs`` field of ``TimeStep.observation``): one
        spec, or a tuple (dict) of specs when ``obs`` is a tuple (dict) of arrays; for dm_control
        suite tasks an ``OrderedDict`` of ``specs.Array`` s, as dm_control's."""
        space = self.task_spec.observation_space
        if self._suite_key is None:
            return _space_to_spec(space, "obs")
        if self._suite_key:
            entries = [(self._suite_key, space)]
        else:  # the pool's order, dm_control's (gymnasium's Dict space sorts its keys)
            entries = [(array["name"], space[array["name"]]) for array in self.task_spec.arrays["obs"]]
        return collections.OrderedDict((key, specs.Array(sub.shape, sub.dtype, name=key)) for key, sub in entries)

    def action_spec(self):
        return _space_to_spec(self.task_spec.action_space, "action")

    def reward_spec(self):
        return specs.Array(shape=(), dtype=np.float64, name="reward")

    def discount_spec(self):
        return specs.BoundedArray(shape=(), dtype=np.float64, minimum=0.0, maximum=1.0, name="discount")

    def close(self) -> None:
        self._close_pool()  # no pool when __init__ raised before building it

    # -- helpers -----------------------------------------------------------------------------------

    def _time_step(self, result, xp: Any = np) -> dm_env.TimeStep:
        """The TimeStep of a pool result; also what ``xla()``'s functions return inside jit
        (``xp=jax.numpy``). With numpy, step_type and discount come from one C++ pass
        (``_core.dm_step_fields``: the same values and dtypes as the expressions below, a
        sixth of their cost per batch); inside jit, and for arrays a pool does not give, from
        the expressions."""
        obs, reward, terminated, truncated, info = result
        fields = None
        if xp is np:
            fields = _core.dm_step_fields(info["elapsed_step"], terminated, truncated, info.get("discount"))
        if fields is not None:
            step_type, discount = fields
        else:
            step_type = xp.where(
                info["elapsed_step"] == 0,
                int(dm_env.StepType.FIRST),
                xp.where(terminated | truncated, int(dm_env.StepType.LAST), int(dm_env.StepType.MID)),
            ).astype(xp.int32)
            discount = xp.where(terminated, 0.0, 1.0)
            if "discount" in info:  # an env's own discount (Atari's zero_discount_on_life_loss)
                discount = xp.minimum(discount, info["discount"])
        if self._suite_key is not None:  # dm_control's structure (an OrderedDict, in the pool's order)
            obs = collections.OrderedDict([(self._suite_key, obs)] if self._suite_key else obs)
        state = self._state_type(obs, *[info[key] for key in self._state_names])
        return dm_env.TimeStep(step_type, reward, discount, state)
