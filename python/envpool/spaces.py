"""Turn the core's array specs into gymnasium spaces."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


def array_spec_to_space(spec: dict[str, Any]) -> spaces.Space:
    """A gymnasium space for one array spec (see cpp/core/spec.h: ArraySpec)."""
    if spec["discrete"]:
        start = int(spec["low"][0])
        n = int(spec["high"][0]) - start + 1
        if spec["shape"]:  # one choice per element (a multi-agent env's slots)
            shape = tuple(spec["shape"])
            return spaces.MultiDiscrete(np.full(shape, n), start=np.full(shape, start))
        return spaces.Discrete(n, start=start)
    dtype = np.dtype(spec["dtype"])
    shape = tuple(spec["shape"])
    low = _bound(spec["low"], -np.inf, shape)
    high = _bound(spec["high"], np.inf, shape)
    return spaces.Box(low=low.astype(dtype), high=high.astype(dtype), shape=shape, dtype=dtype)


def _bound(values: list[float], unbounded: float, shape: tuple[int, ...]) -> np.ndarray:
    """Bounds come as one value per element, a single value for all, or none (unbounded)."""
    arr = np.asarray(values if values else [unbounded], dtype=np.float64)
    if arr.size == 1:
        return np.full(shape, arr[0])
    return arr.reshape(shape)


def specs_to_space(specs: list[dict[str, Any]], as_tuple: bool = False) -> spaces.Space:
    """One array -> its space; several -> a Tuple space (``as_tuple``) or a Dict keyed by name."""
    if len(specs) == 1:
        return array_spec_to_space(specs[0])
    if as_tuple:
        return spaces.Tuple([array_spec_to_space(s) for s in specs])
    return spaces.Dict({s["name"]: array_spec_to_space(s) for s in specs})


OBSERVATION_MODE_ERROR = (
    "Invalid `observation_mode`, expected: 'same' or 'different' or tuple of single and batch observation space, "
    "actual got {mode}"
)


def check_observation_mode(mode: Any) -> None:
    """``observation_mode`` as gymnasium's vector envs take it (errors worded as theirs)."""
    if isinstance(mode, tuple) and len(mode) == 2:
        if not isinstance(mode[0], spaces.Space) or not isinstance(mode[1], spaces.Space):
            raise TypeError(
                f"Expected both elements of observation_mode to be Spaces, got {type(mode[0])} and {type(mode[1])}"
            )
    elif not (isinstance(mode, str) and mode in ("same", "different")):
        raise ValueError(OBSERVATION_MODE_ERROR.format(mode=mode))


def observation_spaces(mode: Any, first: spaces.Space, env_fns, num_envs: int) -> tuple[spaces.Space, spaces.Space]:
    """(single, batched) observation spaces for ``observation_mode``, as gymnasium's vector envs
    set them: ``"same"``: env 0's space, batched; ``"different"``: env 0's, and every env's
    batched together (``batch_differing_spaces``: same shape and dtype, bounds per env; each env
    is made once to read its space); a tuple: ``(batched, single)`` as given."""
    from gymnasium.vector.utils import batch_differing_spaces, batch_space

    check_observation_mode(mode)
    if isinstance(mode, tuple):
        return mode[1], mode[0]
    if mode == "same":
        return first, batch_space(first, num_envs)
    found = []
    for fn in env_fns:
        env = fn()
        try:
            found.append(env.observation_space)
        finally:
            env.close()
    return found[0], batch_differing_spaces(found)
