"""envpool-ng-atari: Atari 2600 games for envpool, the ALE emulator stepped by envpool's threads.

Installing this package is enough: envpool loads the plugin through the ``envpool.envs`` entry
point at ``import envpool``, and every game of ale-py's ROM set is a task ``<Game>-v5``:

>>> import envpool
>>> envs = envpool.make("Pong-v5", num_envs=2, seed=0)
>>> envs.reset()[0].shape
(2, 4, 84, 84)
>>> envs.close()

ROMs are never shipped here: they are read at run time from ``$ALE_ROMS_DIR`` if set, else from
the installed ale-py (``ale_py/roms``). See docs/atari.md in the envpool-ng repository.

This module must not import envpool at import time: envpool imports it while it is itself
being imported.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os

# The C++ plugin, built by CMakeLists.txt into this package.
PLUGIN_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_atari.so")


def ale_py_roms_dir() -> str | None:
    """The ROM folder of the installed ale-py (without importing it), or None."""
    spec = importlib.util.find_spec("ale_py")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        roms = os.path.join(location, "roms")
        if os.path.isdir(roms):
            return roms
    return None


def _library() -> ctypes.CDLL:
    # The same file envpool opens: the dynamic loader hands both the same loaded library.
    return ctypes.CDLL(PLUGIN_PATH)


def plugin_path() -> str:
    """The ``envpool.envs`` entry point: tells the plugin where ale-py's ROMs are, returns its path."""
    roms = ale_py_roms_dir()
    _library().envpool_atari_set_roms_dir(os.fsencode(roms) if roms else None)
    return PLUGIN_PATH
