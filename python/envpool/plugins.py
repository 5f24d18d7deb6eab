"""C++ env plugins: shared libraries built against envpool's SDK that add tasks at run time.

A plugin is found in one of two ways:

* explicitly, ``envpool.load_plugin("/path/to/mysim.so")``;
* installed, through an entry point in the group ``envpool.envs`` of any installed package,
  loaded at ``import envpool`` (it costs one scan of the installed packages' entry points, a few
  milliseconds; see docs/cpp_sdk.md). The entry point names an object that is
  the plugin file's path (a ``str`` or ``os.PathLike``), or a list of such paths, e.g. in the
  plugin package's pyproject.toml::

      [project.entry-points."envpool.envs"]
      mysim = "mysim:PLUGIN_PATH"

  where ``mysim/__init__.py`` sets ``PLUGIN_PATH`` to the path of the built ``.so`` (and must
  not need ``envpool`` at import time: it is imported while ``envpool`` itself is imported).

Plugin tasks then behave as built-in ones: ``list_all_envs()``, ``make_spec``, ``make`` with
every front end, ``gymnasium.make_vec("envpool/<task>", ...)`` and the CLI. ``envpool info
TASK`` shows where a task came from.

The SDK itself (headers and a CMake package) ships in the wheel: :func:`cmake_dir` and
:func:`include_dir` (``python -m envpool --cmake-dir`` / ``--include-dir``) locate it.
"""

from __future__ import annotations

import os
import pathlib
import warnings
from typing import Any

from envpool import _core
from envpool.registration import register_envs
from envpool.tasks import refresh_tasks

ENTRY_POINT_GROUP = "envpool.envs"


def load_plugin(path: str | os.PathLike) -> list[str]:
    """Load the env plugin at ``path`` and register its tasks; returns their ids.

    Loading a file that is already loaded returns its task ids again. A plugin built for
    another envpool version or C++ ABI, a file that is not a plugin, a plugin whose
    registration throws and one that offers a task id already taken are refused with an
    ``ImportError`` saying which and what to do; a refused plugin registers nothing.

    >>> import envpool
    >>> envpool.load_plugin("/nonexistent/mysim.so")
    Traceback (most recent call last):
    ...
    FileNotFoundError: envpool plugin '/nonexistent/mysim.so' not found
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"plugin path must be a str or os.PathLike, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"envpool plugin {path!r} not found")
    info = _core.load_plugin(os.path.abspath(path))
    refresh_tasks()
    register_envs()
    return list(info["task_ids"])


def loaded_plugins() -> list[dict[str, Any]]:
    """The plugins loaded so far: ``[{"name": ..., "path": ..., "task_ids": [...]}, ...]``."""
    return list(_core.plugins())


def _entry_point_paths(value: Any) -> list[str]:
    if callable(value):
        value = value()
    items = value if isinstance(value, (list, tuple)) else [value]
    if not items or not all(isinstance(p, (str, os.PathLike)) for p in items):
        raise TypeError(
            f"the entry point must give a plugin path (str or os.PathLike) or a list of them, got {value!r}"
        )
    return [os.fspath(p) for p in items]


def load_installed_plugins() -> list[str]:
    """Load the plugins of every ``envpool.envs`` entry point; returns the task ids added.

    Called on ``import envpool``. A plugin that cannot be loaded does not stop the import: it
    is reported with a ``RuntimeWarning`` naming the entry point, its package and the reason.
    """
    from importlib.metadata import entry_points

    added: list[str] = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = f"{ep.dist.name} {ep.dist.version}" if ep.dist is not None else "an unknown package"
        try:
            for path in _entry_point_paths(ep.load()):
                added += [t for t in load_plugin(path) if t not in added]
        except Exception as exc:  # noqa: BLE001 - one broken plugin must not break envpool
            warnings.warn(
                f"envpool: plugin entry point {ep.name!r} = {ep.value!r} (from {dist}) was not loaded: "
                f"{type(exc).__name__}: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )
    return added


def _package_dir() -> pathlib.Path:
    return pathlib.Path(__file__).resolve().parent


def cmake_dir() -> str:
    """The folder of envpool's CMake package (``envpoolConfig.cmake``): pass it as ``envpool_DIR``.

    In an installed wheel it is ``<site-packages>/envpool/share/cmake/envpool``; in a source
    checkout used in place, the checkout's ``cmake/`` folder.
    """
    for candidate in (_package_dir() / "share" / "cmake" / "envpool", _package_dir().parents[1] / "cmake"):
        if (candidate / "envpoolConfig.cmake").is_file():
            return str(candidate)
    raise FileNotFoundError(f"envpool's CMake package is not installed next to {_package_dir()}")


def include_dir() -> str:
    """The folder of the SDK headers (``core/plugin.h``, ``core/env.h``, ...): the include path."""
    for candidate in (_package_dir() / "include", _package_dir().parents[1] / "cpp"):
        if (candidate / "core" / "plugin.h").is_file():
            return str(candidate)
    raise FileNotFoundError(f"envpool's SDK headers are not installed next to {_package_dir()}")
