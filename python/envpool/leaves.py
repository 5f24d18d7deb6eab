"""Nested gymnasium spaces as flat lists of arrays ("leaves"), the form the core batches.

Box, Discrete, MultiDiscrete and MultiBinary are leaves; Dict and Tuple nest them. A Python env's
observations and actions travel as one array per leaf, through shared memory; the front end
rebuilds the nesting, batched as ``gymnasium.vector.utils.batch_space`` batches it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

Path = tuple[Any, ...]

SUPPORTED_DTYPES = ("bool", "int8", "int32", "int64", "uint8", "float32", "float64")


def leaves(space: spaces.Space, path: Path = ()) -> list[tuple[Path, spaces.Space]]:
    """``[(path, leaf space), ...]`` in a fixed order (Dict keys as the space orders them)."""
    if isinstance(space, spaces.Dict):
        return [leaf for key, sub in space.spaces.items() for leaf in leaves(sub, (*path, key))]
    if isinstance(space, spaces.Tuple):
        return [leaf for i, sub in enumerate(space.spaces) for leaf in leaves(sub, (*path, i))]
    if isinstance(space, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)):
        return [(path, space)]
    raise TypeError(
        f"{type(space).__name__} spaces are not supported (at {_name(path) or 'the top level'}): "
        "use Box, Discrete, MultiDiscrete, MultiBinary, or Dict / Tuple of them"
    )


def _name(path: Path) -> str:
    return ".".join(str(p) for p in path)


def leaf_name(path: Path, default: str) -> str:
    return _name(path) or default


def leaf_dtype(space: spaces.Space) -> np.dtype:
    """The dtype a leaf's values are stored with (Discrete: int64, MultiBinary: int8)."""
    if isinstance(space, spaces.Discrete):
        return np.dtype(np.int64)
    if isinstance(space, spaces.MultiBinary):
        return np.dtype(np.int8)
    return np.dtype(space.dtype)


def array_spec(path: Path, space: spaces.Space, default: str) -> dict[str, Any]:
    """The core's ArraySpec (cpp/core/spec.h) of one leaf, as the bindings take it."""
    name = leaf_name(path, default)
    dtype = leaf_dtype(space)
    if dtype.name not in SUPPORTED_DTYPES:
        raise TypeError(f"{default} {name!r} has dtype {dtype}; supported: {', '.join(SUPPORTED_DTYPES)}")
    if isinstance(space, spaces.Discrete):
        start = int(space.start)
        return dict(name=name, dtype="int64", shape=[], low=[float(start)], high=[float(start + space.n - 1)], discrete=True)
    if isinstance(space, spaces.MultiDiscrete):
        start = np.broadcast_to(np.asarray(space.start, dtype=np.float64), space.shape)
        return dict(
            name=name,
            dtype=dtype.name,
            shape=list(space.shape),
            low=start.ravel().tolist(),
            high=(start + np.asarray(space.nvec, dtype=np.float64) - 1).ravel().tolist(),
            discrete=False,
        )
    if isinstance(space, spaces.MultiBinary):
        return dict(name=name, dtype="int8", shape=list(space.shape), low=[0.0], high=[1.0], discrete=False)
    # Integer boxes: the core checks actions against the bounds; float boxes only for NaN/inf
    # (envs clip, as gymnasium's do).
    low = np.broadcast_to(np.asarray(space.low, dtype=np.float64), space.shape).ravel().tolist()
    high = np.broadcast_to(np.asarray(space.high, dtype=np.float64), space.shape).ravel().tolist()
    return dict(name=name, dtype=dtype.name, shape=list(space.shape), low=low, high=high, discrete=False)


def get(value: Any, path: Path) -> Any:
    for key in path:
        value = value[key]
    return value


def build(space: spaces.Space, arrays: dict[Path, Any], path: Path = ()) -> Any:
    """The nested value of ``space`` whose leaves are ``arrays[path]`` (dicts stay dicts, tuples tuples)."""
    if isinstance(space, spaces.Dict):
        return {key: build(sub, arrays, (*path, key)) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(build(sub, arrays, (*path, i)) for i, sub in enumerate(space.spaces))
    return arrays[path]
