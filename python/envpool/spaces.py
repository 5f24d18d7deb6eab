"""Turn the core's array specs into gymnasium spaces."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


def array_spec_to_space(spec: dict[str, Any]) -> spaces.Space:
    """A gymnasium space for one array spec (see cpp/core/spec.h: ArraySpec)."""
    if spec["discrete"]:
        start = int(spec["low"][0])
        return spaces.Discrete(int(spec["high"][0]) - start + 1, start=start)
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
