"""The external-episode wire protocol's shared pieces (see docs/external_protocol.md).

Transport: ZeroMQ (a ROUTER socket on the server, one DEALER per client connection): zmq
frames messages, reconnects after a server restart with exponential backoff, and caps inbound
frame sizes (``zmq.MAXMSGSIZE``), so nothing here parses bytes off a stream. Every message is
a multipart message: a msgpack map (the header) and then one raw frame per array, described in
the header by ``{"dtype": numpy name, "shape": [...]}`` (C order, little-endian). No pickle.
"""

from __future__ import annotations

import functools
import importlib
import math
import reprlib
import sys
from typing import Any

import numpy as np
from gymnasium import spaces

from envpool import leaves

# 2: episode ids are per client; request ids are bounded; messages and replies have size bounds.
VERSION = 2
# A request id (echoed in its reply) is nil, an integer or a str/bin of at most this many items.
MAX_RID_LEN = 64

_brief = reprlib.Repr()
_brief.maxstring = _brief.maxother = 40
_brief.maxlevel, _brief.maxlist, _brief.maxdict = 2, 3, 3


def brief(value: Any) -> str:
    """A repr of a value from the wire, cut short (at most 80 characters): error messages never
    echo unbounded input."""
    text = _brief.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_version(v: Any) -> None:
    """ValueError unless ``v`` is this protocol's version, as an integer (2.0 or "2" is not)."""
    if type(v) is not int or v != VERSION:
        raise ValueError(f"v (the protocol version) must be the integer {VERSION}, got {brief(v)}")


def valid_rid(rid: Any) -> bool:
    t = type(rid)
    return rid is None or t is int or ((t is str or t is bytes) and len(rid) <= MAX_RID_LEN)


class ExternalError(RuntimeError):
    """An error reply from an envpool server (``code`` names the kind, see the protocol doc),
    or a client-side failure to reach it."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def endpoint(address: str) -> str:
    """The ZeroMQ endpoint of ``"host:port"`` (TCP), or of an endpoint given as is."""
    if "://" in address:
        return address
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"address must be 'host:port' or a ZeroMQ endpoint, got {address!r}")
    return f"tcp://{host}:{port}"


def import_zmq_msgpack():
    """(zmq, msgpack), or an ImportError that says which extra installs them."""
    try:
        return importlib.import_module("zmq"), importlib.import_module("msgpack")
    except ImportError as err:
        raise ImportError(
            f"external episodes (envpool.serve, PolicyClient, ExternalEnv) need pyzmq and msgpack: "
            f"pip install 'envpool-ng[external]' ({err})"
        ) from None


def single_leaf(space: spaces.Space, what: str) -> dict[str, Any]:
    """The core ArraySpec of a one-array space (Box, Discrete, MultiDiscrete, MultiBinary)."""
    found = leaves.leaves(space)
    if len(found) != 1 or found[0][0] != ():
        raise TypeError(
            f"{what} must be one Box, Discrete, MultiDiscrete or MultiBinary space for external episodes, got {space}"
        )
    return leaves.array_spec((), space, what)


def describe(spec: dict[str, Any]) -> dict[str, Any]:
    """The header entry of an array of this spec: {"dtype", "shape"}."""
    return {"dtype": spec["dtype"], "shape": list(spec["shape"])}


def row_bytes(spec: dict[str, Any]) -> int:
    return _row_bytes(spec["dtype"], tuple(spec["shape"]))


# memoryview formats of float dtypes (native order: little-endian on every supported platform).
_SMALL_FLOAT = {"float32": "f", "float64": "d"} if sys.byteorder == "little" else {}


@functools.lru_cache(maxsize=64)
def _row_bytes(dtype: str, shape: tuple[int, ...]) -> int:
    return int(np.dtype(dtype).itemsize * int(np.prod(shape, dtype=np.int64)))


def check_array(what: str, desc: Any, frame: bytes, spec: dict[str, Any]) -> None:
    """Checks that a header entry and frame carry one value of ``spec``; ValueError naming the
    problem otherwise (dtype, shape, size, non-finite values, values outside integer bounds)."""
    if not isinstance(desc, dict) or "dtype" not in desc or "shape" not in desc:
        raise ValueError(f"{what} must be described as {{'dtype': ..., 'shape': [...]}}, got {brief(desc)}")
    if desc["dtype"] != spec["dtype"]:
        raise ValueError(f"{what} has dtype {brief(desc['dtype'])}, the space needs {spec['dtype']!r}")
    shape = desc["shape"]  # a list of ints: [4.0] compares equal to [4] but is not one
    if (
        not isinstance(shape, (list, tuple))
        or [*shape] != list(spec["shape"])
        or any(type(d) is not int for d in shape)
    ):
        raise ValueError(f"{what} has shape {brief(desc['shape'])}, the space needs {list(spec['shape'])}")
    need = row_bytes(spec)
    if len(frame) != need:
        raise ValueError(
            f"{what}'s frame has {len(frame)} bytes, dtype {spec['dtype']} shape {list(spec['shape'])} needs {need}"
        )
    if spec["dtype"] in _SMALL_FLOAT and need <= 256:
        # A few floats: checking them one by one beats building an array (the server's hot path).
        if not all(map(math.isfinite, memoryview(frame).cast(_SMALL_FLOAT[spec["dtype"]]))):
            raise ValueError(f"{what} holds non-finite values (NaN or inf)")
        return None
    if spec["dtype"] == "bool":
        # numpy reads any nonzero byte as True but keeps the byte: the trainer would get it.
        if bytes(frame).translate(None, b"\x00\x01"):
            raise ValueError(f"{what} holds bytes other than 0 and 1 (a bool array)")
        return None
    arr = np.frombuffer(frame, dtype=np.dtype(spec["dtype"]).newbyteorder("<")).reshape(spec["shape"])
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{what} holds non-finite values (NaN or inf)")
    elif arr.dtype.kind in "iu" and spec["low"] and spec["high"]:
        low, high = (np.asarray(spec[k], dtype=np.float64) for k in ("low", "high"))
        low = low[0] if low.size == 1 else low.reshape(arr.shape)
        high = high[0] if high.size == 1 else high.reshape(arr.shape)
        if (arr < low).any() or (arr > high).any():
            raise ValueError(f"{what} holds values outside the space's bounds")


def to_frame(value: Any, spec: dict[str, Any], what: str) -> tuple[dict[str, Any], bytes]:
    """(header entry, frame) of one value of the space (the client side's encoder)."""
    arr = np.asarray(value)
    want = np.dtype(spec["dtype"])
    if arr.shape != tuple(spec["shape"]):
        raise ValueError(f"{what} has shape {arr.shape}, the space needs {tuple(spec['shape'])}")
    if arr.dtype != want:
        if not np.can_cast(arr.dtype, want, casting="same_kind"):
            raise TypeError(f"{what} has dtype {arr.dtype}, the space needs {want}")
        arr = arr.astype(want)
    return describe(spec), np.ascontiguousarray(arr, dtype=want.newbyteorder("<")).tobytes()


class RowBytes:
    """The server's constant bytes per row, made once: the logged-action fields a row carries,
    and get_action's answer header but for its rid: ``{"rid": ..., "ok": true, "action":
    {"dtype", "shape"}}`` as a 3-entry msgpack map (fixmap 0x83), split around the rid."""

    def __init__(self, pack: Any, action_spec: dict[str, Any]):
        self.action_bytes = row_bytes(action_spec)
        self.no_action = bytes(self.action_bytes)  # the action field of a row with none logged
        self.logged = (np.zeros(1, np.bool_).tobytes(), np.ones(1, np.bool_).tobytes())  # _logged_action
        self.answer_head = b"\x83" + pack("rid")
        self.answer_tail = pack("ok") + pack(True) + pack("action") + pack(describe(action_spec))


# Array frames each episode op carries (after its header).
ARRAY_FRAMES = {"get_action": 1, "log_action": 2, "log_returns": 0, "end_episode": 1}


def parse_request(op: str, header: dict, arrays: list[bytes], obs_spec: dict, action_spec: dict) -> tuple:
    """Checks an episode request's arguments: ``(obs bytes, action bytes, reward, info,
    truncated)``, or a ValueError that says what is wrong."""
    want = ARRAY_FRAMES[op]
    if len(arrays) != want:
        raise ValueError(f"{op} carries {want} array frame(s), got {len(arrays)}")
    obs = action = None
    if want:
        check_array("obs", header.get("obs"), arrays[0], obs_spec)
        obs = arrays[0]
    if op == "log_action":
        check_array("action", header.get("action"), arrays[1], action_spec)
        action = arrays[1]
    reward, info, truncated = 0.0, None, False
    if op == "log_returns":
        reward = header.get("reward")
        if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not math.isfinite(reward):
            raise ValueError(f"reward must be a finite number, got {brief(reward)}")
        info = header.get("info")
        if info is not None and not isinstance(info, dict):
            raise ValueError("info must be a map or nil")
    if op == "end_episode":
        truncated = header.get("truncated", False)
        if not isinstance(truncated, bool):
            raise ValueError("truncated must be a bool")
    return obs, action, float(reward), info, truncated
