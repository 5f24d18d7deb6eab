"""Nested gymnasium spaces as flat lists of values ("leaves"), the form the core batches.

Dict and Tuple nest leaves. Box, Discrete, MultiDiscrete and MultiBinary of a numeric dtype are
*fixed-size* leaves: one array each, written in place through shared memory and batched by the
C++ core. Every other space (Text, Graph, Sequence, OneOf, user-defined ones) is a
*variable-size* leaf: its values are pickled, as gymnasium's ``AsyncVectorEnv`` carries them
without shared memory, and batched with gymnasium's own ``concatenate`` (a tuple of values).
The front end rebuilds the nesting, batched as ``gymnasium.vector.utils.batch_space`` batches it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate

from envpool import payloads

Path = tuple[Any, ...]

# The dtypes of fixed-size leaves (cpp/core/spec.h: DType): every one gymnasium's Box allows
# (integer, floating, bool) but long double.
SUPPORTED_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
)
FIXED_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)

# The action field that carries an env's pickled variable-size action values (see SpaceLeaves).
OBJECTS_FIELD = "__objects__"
_LENGTH_BYTES = 4


def leaves(space: spaces.Space, path: Path = ()) -> list[tuple[Path, spaces.Space]]:
    """``[(path, leaf space), ...]`` in a fixed order (Dict keys as the space orders them)."""
    if isinstance(space, spaces.Dict):
        return [leaf for key, sub in space.spaces.items() for leaf in leaves(sub, (*path, key))]
    if isinstance(space, spaces.Tuple):
        return [leaf for i, sub in enumerate(space.spaces) for leaf in leaves(sub, (*path, i))]
    if isinstance(space, FIXED_SPACES) and np.dtype(space.dtype).name not in SUPPORTED_DTYPES:
        raise TypeError(
            f"{type(space).__name__} at {_name(path) or 'the top level'} has dtype {np.dtype(space.dtype)}; "
            f"supported: {', '.join(SUPPORTED_DTYPES)}"
        )
    return [(path, space)]


def is_fixed(space: spaces.Space) -> bool:
    """Whether a leaf has one array of a fixed shape (else its values are pickled)."""
    return isinstance(space, FIXED_SPACES)


def _name(path: Path) -> str:
    return ".".join(str(p) for p in path)


def leaf_name(path: Path, default: str) -> str:
    return _name(path) or default


def leaf_dtype(space: spaces.Space) -> np.dtype:
    """The dtype a fixed-size leaf's values are stored with: the space's own."""
    return np.dtype(space.dtype)


def array_spec(path: Path, space: spaces.Space, default: str) -> dict[str, Any]:
    """The core's ArraySpec (cpp/core/spec.h) of one fixed-size leaf, as the bindings take it."""
    name = leaf_name(path, default)
    dtype = leaf_dtype(space)
    if isinstance(space, spaces.Discrete):
        start = int(space.start)
        return dict(
            name=name, dtype=dtype.name, shape=[], low=[float(start)], high=[float(start + space.n - 1)], discrete=True
        )
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
        return dict(name=name, dtype=dtype.name, shape=list(space.shape), low=[0.0], high=[1.0], discrete=False)
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


def put(view: np.ndarray, value: Any, where: str) -> None:
    """Writes one env's value of a fixed-size leaf into its row, refusing what gymnasium's
    vector envs refuse: another shape (nothing is broadcast) or a dtype that does not cast to the
    space's under NumPy's same-kind rule (``np.stack(..., out=...)``, as their ``concatenate``)."""
    if type(value) is np.ndarray and value.dtype == view.dtype and value.shape == view.shape:
        view[...] = value
        return
    arr = np.asarray(value)
    if arr.shape != view.shape:
        raise ValueError(f"{where} has shape {arr.shape}, but its space's shape is {view.shape}: {value!r}")
    if not np.can_cast(arr.dtype, view.dtype, casting="same_kind"):
        raise TypeError(f"{where} has dtype {arr.dtype}, which does not cast to its space's {view.dtype}: {value!r}")
    view[...] = arr


class SpaceLeaves:
    """One space split into leaves, for both ends of a process pool.

    Fixed-size leaves (``fixed``, named ``names``) are arrays (``array_specs()`` for the core).
    Variable-size leaves (``objects``) are pickled: observation values ride along with
    the env's staged info dict, action values in one extra uint8 action field
    (``OBJECTS_FIELD``, ``object_bytes`` per env) that the core copies like any action row.
    """

    def __init__(self, space: spaces.Space, default_name: str, object_bytes: int = 0, spill_dir: str | None = None):
        self.space = space
        self.default_name = default_name
        self.object_bytes = object_bytes
        self.spill_dir = spill_dir  # where action values too big for object_bytes go (payloads.py)
        found = leaves(space)
        self.fixed = [(path, sub) for path, sub in found if is_fixed(sub)]
        self.objects = [(path, sub) for path, sub in found if not is_fixed(sub)]
        self.names = [leaf_name(path, default_name) for path, _ in self.fixed]
        self.single = len(found) == 1 and found[0][0] == ()  # the space is one leaf, not a Dict/Tuple
        self._batched: dict[int, list[spaces.Space]] = {}

    def array_specs(self) -> list[dict[str, Any]]:
        specs = [array_spec(path, sub, self.default_name) for path, sub in self.fixed]
        if self.objects:
            specs.append(
                dict(name=OBJECTS_FIELD, dtype="uint8", shape=[self.object_bytes], low=[], high=[], discrete=False)
            )
        return specs

    # -- the worker's end: one env's values ------------------------------------------------------

    def write(self, value: Any, views: list[np.ndarray], what: str) -> list[Any] | None:
        """Writes the fixed-size leaves of ``value`` into ``views`` (checked, see ``put``);
        returns the variable-size leaves' values (None when there are none)."""
        for view, path, name in zip(views, (p for p, _ in self.fixed), self.names):
            put(view, value if self.single else _leaf(value, path, what), f"{what} {name!r}" if path else what)
        if not self.objects:
            return None
        return [value if self.single else _leaf(value, path, what) for path, _ in self.objects]

    def read(self, fixed: list[Any], objects: list[Any] | None) -> Any:
        """One env's value from its fixed-size leaves' values and its variable-size values."""
        values = {path: value for (path, _), value in zip(self.fixed, fixed)}
        for (path, _), value in zip(self.objects, objects or ()):
            values[path] = value
        return values[()] if self.single else build(self.space, values)

    def read_action(self, views: list[np.ndarray]) -> Any:
        """One env's action from its rows in shared memory, as gymnasium's vector envs hand
        actions to envs (``iterate`` over the batch): an array leaf as an array of its own (in
        the space's dtype), a scalar leaf as a NumPy scalar; a floating one as ``np.float64``, a
        Python ``float`` (gymnasium passes on the caller's elements, usually float64 ones, and
        Python APIs such as ``time.sleep`` refuse ``np.float32``)."""
        objects = self.decode_objects(views[-1]) if self.objects else None
        values = [
            view.copy() if view.ndim else np.float64(view) if view.dtype.kind == "f" else view[()]
            for view in views[: len(self.fixed)]
        ]
        return self.read(values, objects)

    def encode_objects(self, rows: list[list[Any]]) -> np.ndarray:
        """Each env's variable-size action values, pickled into one ``object_bytes`` row (a
        length, then the payload: see ``payloads.py``)."""
        out = np.zeros((len(rows), self.object_bytes), dtype=np.uint8)
        room = self.object_bytes - _LENGTH_BYTES
        for i, row in enumerate(rows):
            data = payloads.pack(row, room, self.spill_dir, f"the variable-size action values of row {i}")
            out[i, :_LENGTH_BYTES] = np.frombuffer(len(data).to_bytes(_LENGTH_BYTES, "little"), dtype=np.uint8)
            out[i, _LENGTH_BYTES : _LENGTH_BYTES + len(data)] = np.frombuffer(data, dtype=np.uint8)
        return out

    @staticmethod
    def decode_objects(row: np.ndarray) -> list[Any]:
        length = int.from_bytes(row[:_LENGTH_BYTES].tobytes(), "little")
        return payloads.unpack(row[_LENGTH_BYTES : _LENGTH_BYTES + length].tobytes())

    # -- the caller's end: batches -----------------------------------------------------------------

    def batch(self, arrays: dict[str, np.ndarray], object_rows: list[list[Any] | None] | None) -> Any:
        """The batched value (as ``batch_space(space, n)``) from the core's arrays of the fixed
        leaves (by name) and each row's variable-size values."""
        values = {path: arrays[name] for (path, _), name in zip(self.fixed, self.names)}
        if self.objects:
            n = len(object_rows)
            for k, (path, sub) in enumerate(self.objects):
                items = [None if row is None else row[k] for row in object_rows]
                values[path] = concatenate(sub, items, create_empty_array(sub, n))
        return values[()] if self.single else build(self.space, values)

    def row(self, arrays: dict[str, np.ndarray], objects: list[Any] | None, i: int) -> Any:
        """Row ``i`` of a batch as one env's value (gymnasium's ``final_obs`` entries):
        Discrete values as ints, arrays as copies (kept, they must not pin the batch's memory),
        nested as the space nests."""
        values = [
            int(arrays[name][i]) if isinstance(sub, spaces.Discrete) else np.array(arrays[name][i])
            for name, (_, sub) in zip(self.names, self.fixed)
        ]
        return self.read(values, objects)

    def split(self, batched: Any, n: int) -> tuple[Any, list[list[Any]] | None]:
        """A batch of ``n`` actions as the core takes them: one array when the core has one
        action field, else a dict of arrays by name (the pickled variable-size values under
        ``OBJECTS_FIELD``); and each row's variable-size values (None when there are none)."""
        if self.single and not self.objects:
            return batched, None
        fixed = {name: get(batched, path) for (path, _), name in zip(self.fixed, self.names)}
        rows = None
        if self.objects:
            per_leaf = [
                list(iterate(self._batched_space(k, n), get(batched, path))) for k, (path, _) in enumerate(self.objects)
            ]
            if any(len(values) != n for values in per_leaf):
                raise ValueError(f"actions must hold one value per env ({n}) in every variable-size leaf")
            rows = [list(row) for row in zip(*per_leaf)]
            fixed[OBJECTS_FIELD] = self.encode_objects(rows)
        if len(fixed) == 1:  # the core's one action field takes the array itself
            return next(iter(fixed.values())), rows
        return fixed, rows

    def _batched_space(self, k: int, n: int) -> spaces.Space:
        if n not in self._batched:
            self._batched[n] = [batch_space(sub, n) for _, sub in self.objects]
        return self._batched[n][k]


def _leaf(value: Any, path: Path, what: str) -> Any:
    try:
        return get(value, path)
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"{what} {value!r} has no entry {_name(path)!r} ({type(exc).__name__}: {exc})") from None
