"""Pickled payloads in the fixed-size slots of a process pool's shared memory (info dicts,
variable-size observation and action values, ``info_bytes`` each). One too big for its slot
spills to a file in the pool's spill directory, and the slot holds the file's path: gymnasium's
``AsyncVectorEnv`` sends such values through pipes, without a size limit, and so must we. The
reader deletes the file; the pool deletes the directory when it closes.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from typing import Any

_SPILLED = b"F"  # a pickle starts with b"\x80"


def make_spill_dir() -> tempfile.TemporaryDirectory:
    """A new spill directory, in memory (``/dev/shm``) where there is one; removed by its
    ``cleanup()`` or, failing that, when it is garbage collected or the interpreter exits."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    return tempfile.TemporaryDirectory(prefix="envpool-spill-", dir=base, ignore_cleanup_errors=True)


def pack(value: Any, capacity: int, spill_dir: str | None, what: str) -> bytes:
    """``value`` pickled, or the path of the file it spilled to: at most ``capacity`` bytes."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    if len(data) <= capacity:
        return data
    if spill_dir is not None:
        fd, path = tempfile.mkstemp(dir=spill_dir)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        marker = _SPILLED + path.encode()
        if len(marker) <= capacity:
            return marker
        os.unlink(path)
    raise ValueError(
        f"{what} pickles to {len(data)} bytes, more than info_bytes={capacity}, too few even for the path of a "
        "file to spill it to (pass a larger info_bytes to make_python)"
    )


def unpack(data: bytes) -> Any:
    if data[:1] == _SPILLED:
        path = data[1:].decode()
        with open(path, "rb") as f:
            data = f.read()
        os.unlink(path)
    return pickle.loads(data)
