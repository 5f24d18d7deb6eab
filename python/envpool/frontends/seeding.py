"""Seeds and env ids as the front ends take them from their callers, checked before they reach
the pool, so that nothing is converted silently and every refusal names the argument, what was
passed and what is accepted.

The conventions are gymnasium's, stricter where gymnasium would convert:

- a seed is an ``int`` (NumPy integers too: seeds drawn with ``rng.integers`` are common),
  ``>= 0`` and ``< 2**64`` (the core's seeds are 64-bit). ``bool`` is refused: gymnasium's
  ``np_random`` takes ``True`` as 1 only because ``bool`` subclasses ``int``, and a flag where a
  seed belongs is a mistake (``TypeError``);
- ``reset(seed=s)`` of a pool seeds env ``i`` with ``s + i``; a list of seeds is a sequence
  (list, tuple, range or 1-D integer array) of one per env, where ``None`` keeps that env's
  stream. ``str``, ``bytes``, dicts and sets are refused: iterating them gives characters,
  byte values, keys, or no order at all;
- an env id is an integer in ``[0, num_envs)``; floats, strings and bools are refused, and an
  id out of range is reported as passed.
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from typing import Any

import numpy as np

# Env seeds are 64-bit in the core: env i of a pool seeded with s uses s + i, which must fit.
SEED_LIMIT = 2**64

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 40
_short.maxlist = _short.maxtuple = _short.maxdict = _short.maxset = 4


def _passed(value: Any) -> str:
    """``type value`` for a message: what the caller passed, cut short."""
    return f"{type(value).__name__} {_short.repr(value)}"


def is_int(value: Any) -> bool:
    """A Python or NumPy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def check_int(name: str, value: Any, minimum: int) -> int:
    """``value`` as an int: TypeError unless it is one (a bool is not), ValueError below ``minimum``."""
    if not is_int(value):
        raise TypeError(f"{name} must be an int, got {_passed(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_seed(name: str, value: Any) -> int:
    """One seed: an int in ``[0, 2**64)``."""
    seed = check_int(name, value, 0)
    if seed >= SEED_LIMIT:
        raise ValueError(f"{name}={seed} does not fit in 64 bits (seeds must be < 2**64)")
    return seed


def check_optional_seed(name: str, value: Any) -> int | None:
    """A seed where one env (or one stream) takes it: None, or an int in ``[0, 2**64)``."""
    if value is None:
        return None
    if not is_int(value):
        raise TypeError(f"{name} must be an int or None, got {_passed(value)}")
    return check_seed(name, value)


def check_env_seeds(name: str, first: int, num_envs: int) -> None:
    """ValueError unless ``first + i`` (env ``i``'s seed) is below 2**64 for every env."""
    last = first + num_envs - 1
    if last >= SEED_LIMIT:
        raise ValueError(
            f"{name}={first} is too large: env i is seeded with {name} + i, and env {num_envs - 1}'s seed {last} "
            f"does not fit in 64 bits (seeds must be < 2**64)"
        )


def _accepted(count: int, what: str, allow_none: bool) -> str:
    each = "an int or None (None: that env keeps its stream)" if allow_none else "an int"
    return (
        f"seed must be an int (env i gets seed + i), None, or a sequence (list, tuple, 1-D integer array) "
        f"of {count} seeds, one per {what}, each {each}"
    )


def seed_list(seed: Any, count: int, what: str, *, allow_none: bool) -> list[int | None]:
    """A sequence of one seed per env (``what``: "env" or "env id") as a list of ints in
    ``[0, 2**64)`` (and ``None`` where ``allow_none``)."""
    if isinstance(seed, np.ndarray):
        if seed.ndim != 1 or seed.dtype.kind not in "iuO":
            raise TypeError(
                f"{_accepted(count, what, allow_none)}; got a {seed.ndim}-D {seed.dtype} array: {_short.repr(seed)}"
            )
        items = seed.tolist()
    elif isinstance(seed, Sequence) and not isinstance(seed, (str, bytes, bytearray)):
        items = list(seed)
    else:
        raise TypeError(f"{_accepted(count, what, allow_none)}; got {_passed(seed)}")
    if len(items) != count:
        raise ValueError(f"reset() got {len(items)} seeds for {count} {what}s: {_accepted(count, what, allow_none)}")
    seeds: list[int | None] = []
    for i, s in enumerate(items):
        if s is None and allow_none:
            seeds.append(None)
            continue
        if not is_int(s):
            raise TypeError(f"seed[{i}] must be {'an int or None' if allow_none else 'an int'}, got {_passed(s)}")
        seeds.append(check_seed(f"seed[{i}]", s))
    return seeds


def check_env_index(name: str, value: Any, num_envs: int) -> int:
    """One env id: an int in ``[0, num_envs)``."""
    index = check_int(name, value, 0)
    if index >= num_envs:
        raise ValueError(f"{name}={index} is out of range [0, {num_envs})")
    return index


def check_env_ids(env_id: Any, num_envs: int) -> np.ndarray:
    """``env_id`` (an int or a 1-D sequence of them) as an int64 array of ids in ``[0, num_envs)``.
    For calls that are not steps (reset, render, ...): ``send``/``step`` leave it to the core."""
    if isinstance(env_id, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in env_id):
        raise TypeError(f"env_id must hold integers, not bools, got {_passed(env_id)}")
    ids = np.asarray(env_id)
    if ids.dtype.kind == "O" and ids.ndim <= 1:  # ints beyond int64, or something else
        values = ids.reshape(-1).tolist()
        for k, v in enumerate(values):
            if not is_int(v):
                raise TypeError(f"env_id must hold integers, got env_id[{k}] = {_passed(v)}")
            if not 0 <= v < num_envs:
                raise ValueError(f"env_id[{k}] = {v} is out of range [0, {num_envs})")
        ids = np.array(values, dtype=np.int64)
    if ids.size == 0 and ids.ndim == 1:
        return ids.astype(np.int64)  # no env: the pool says whether that is allowed
    if ids.dtype.kind not in "iu":
        raise TypeError(f"env_id must be an int or a 1-D sequence of ints, got {_passed(env_id)}")
    if ids.ndim > 1:
        raise ValueError(f"env_id must be 1-D, got {ids.ndim} dims")
    ids = ids.reshape(-1)
    bad = np.flatnonzero((ids < 0) | (ids >= num_envs))
    if len(bad):
        k = int(bad[0])
        raise ValueError(f"env_id[{k}] = {ids[k]} is out of range [0, {num_envs})")
    return ids.astype(np.int64, copy=False)


class EnvSeeds:
    """The seeds a reset asks for, and each native env's current seed (what gymnasium's
    ``np_random_seed`` reports: ``seed + i`` at make, then what ``reset(seed=...)`` gave it)."""

    current: list[int | None] | None  # None: Python envs (they report their own)
    _num_envs: int

    def __init__(self, num_envs: int, at_make: list[int] | None):
        self._num_envs = num_envs
        self.current = None if at_make is None else list(at_make)

    def for_all(self, seed: int | list[int | None] | None) -> list[int | None] | None:
        """One seed per env (None: that env keeps its RNG), as gymnasium's vector envs take them."""
        if seed is None:
            return None
        if is_int(seed):
            seed = check_seed("seed", seed)
            check_env_seeds("seed", seed, self._num_envs)
            return [seed + i for i in range(self._num_envs)]
        return seed_list(seed, self._num_envs, "env", allow_none=True)

    def for_ids(self, seed: int | list[int] | None, ids: np.ndarray) -> list[int] | None:
        """Seeds of a reset of envs ``ids`` (checked ids): ``seed + id`` for an int, a list has
        one per id."""
        if seed is None:
            return None
        if is_int(seed):
            base = check_seed("seed", seed)
            if len(ids):
                check_env_seeds("seed", base, int(ids.max()) + 1)
            return [base + int(i) for i in ids]
        return seed_list(seed, len(ids), "env id", allow_none=False)

    def note(self, env_ids, seeds) -> None:
        """Envs ``env_ids`` were reset with ``seeds`` (one per id; None: kept its RNG)."""
        if self.current is not None:
            for i, s in zip(env_ids, seeds):
                if s is not None:
                    self.current[i] = s
