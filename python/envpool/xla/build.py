"""Builds the XLA FFI handler library behind ``envs.xla()`` at first use, and caches it.

The handlers (``xla_ffi/handlers.cc``) must be compiled against the XLA FFI headers of the
jaxlib they run in, and those ship only inside the jaxlib wheel (``jax.ffi.include_dir()``).
Compiling them into ``envpool._core`` would make every ``pip install`` of envpool fetch jaxlib
(about 80 MB) as a build requirement, so instead they are a separate, tiny shared library that
this module compiles the first time a process calls ``xla()``: one C++ file, only the jaxlib
headers, no link against jaxlib, Python or ``_core`` (the pool side comes through the C table of
``envpool_xla_api.h``). Any C++17 compiler will do: installing envpool from source already
needed one. The library is cached per (source, jaxlib version, compiler) under
``$ENVPOOL_XLA_CACHE`` or ``~/.cache/envpool-ng/xla`` (``$XDG_CACHE_HOME`` respected), so later
processes load it at once and a jaxlib upgrade rebuilds it.

``python -m envpool.xla.build`` builds it ahead of time (e.g. in a container image) and prints
its path.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

_SOURCES = ("handlers.cc", "envpool_xla_api.h")
_FLAGS = ("-O2", "-std=c++17", "-shared", "-fPIC")
_lock = threading.Lock()
_library: ctypes.CDLL | None = None


def source_dir() -> Path:
    """The handlers' sources: ``envpool/xla_ffi`` in an installed package, ``cpp/xla_ffi`` in a
    checkout (the package then is ``python/envpool``)."""
    package = Path(__file__).resolve().parent.parent  # envpool/: the wheel installs xla_ffi/ there
    for candidate in (package / "xla_ffi", package.parents[1] / "cpp" / "xla_ffi"):
        if all((candidate / name).is_file() for name in _SOURCES):
            return candidate
    raise RuntimeError(
        f"envpool's XLA handler sources ({', '.join(_SOURCES)}) are missing from {package / 'xla_ffi'}; "
        "reinstall envpool-ng"
    )


def cache_dir() -> Path:
    if os.environ.get("ENVPOOL_XLA_CACHE"):
        return Path(os.environ["ENVPOOL_XLA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "envpool-ng" / "xla"


def _compiler() -> str:
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if not cxx:
        raise RuntimeError(
            "envs.xla() compiles a small C++ library against jaxlib's XLA FFI headers the first time it is "
            "used, and no C++ compiler was found: install one (e.g. apt-get install g++) or set CXX"
        )
    return cxx


def library_path() -> Path:
    """Where the library for the installed jaxlib lives, building it there if needed."""
    try:
        import jaxlib
        from jax import ffi
    except ImportError as exc:
        raise ImportError("envs.xla() needs jax: pip install 'envpool-ng[jax]'") from exc
    include = Path(ffi.include_dir())
    if not (include / "xla" / "ffi" / "api" / "ffi.h").is_file():
        raise RuntimeError(f"jaxlib {jaxlib.__version__} has no XLA FFI headers in {include}")
    sources = source_dir()
    cxx = _compiler()
    key = hashlib.sha256()
    for name in _SOURCES:
        key.update((sources / name).read_bytes())
    key.update(f"{jaxlib.__version__}|{cxx}|{' '.join(_FLAGS)}".encode())
    target = cache_dir() / f"envpool_xla_{key.hexdigest()[:16]}.so"
    if target.is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RuntimeError(
            f"cannot create {target.parent} for envpool's XLA library ({exc}); set ENVPOOL_XLA_CACHE"
        ) from exc
    # Built under a temporary name and renamed: processes building at once never load half a file.
    fd, tmp = tempfile.mkstemp(prefix=target.stem + ".", suffix=".tmp", dir=target.parent)
    os.close(fd)
    command = [cxx, *_FLAGS, "-isystem", str(include), "-I", str(sources), str(sources / "handlers.cc"), "-o", tmp]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(
                "building envpool's XLA handlers failed:\n  " + " ".join(command) + "\n" + done.stderr[-4000:]
            )
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def handler_library() -> ctypes.CDLL:
    """The loaded library (built at the first call in any process, loaded once per process)."""
    global _library
    with _lock:
        if _library is None:
            library = ctypes.CDLL(str(library_path()))
            library.envpool_xla_init.argtypes = [ctypes.c_void_p]
            library.envpool_xla_init.restype = ctypes.c_int64
            _library = library
        return _library


if __name__ == "__main__":
    print(library_path())
    sys.exit(0)
