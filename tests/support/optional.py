"""Skips for a missing optional dependency, and the folder of the tests' conflicting oracles.

Every skip of the suite for an import that failed says which import failed and how: a
package may be installed and still fail to import for a dependency of its own (gym3 without
cffi: "No module named 'cffi'"), and a reason that only said "install gym3" would send the
reader to reinstall what is there. ``pytest -rs`` (the README's test command) prints them.

``ORACLES_DIR`` (``.test-oracles/`` at the repository root) holds the oracles whose metadata
pins conflict with envpool's own requirements (procgen-mirror and gym3: numpy < 2, gym < 1;
dm-control: the ``mujoco`` package). The README's test command installs them there with
``pip install --no-deps --target .test-oracles``, out of the venv's site-packages, so that pip
never sees their unmet pins (``pip check`` stays clean); tests/conftest.py puts the folder on
``sys.path`` and ``PYTHONPATH`` for the tests and the processes they start, where envpool finds
Procgen's library and dm_control's model files as it finds an installed package's
(``importlib.util.find_spec``).
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLES_DIR = os.path.join(REPO_DIR, ".test-oracles")


def import_failure(module: str, exc: BaseException) -> str:
    """``"import gym3 failed: ModuleNotFoundError: No module named 'cffi'"``."""
    return f"import {module} failed: {type(exc).__name__}: {exc}"


def skip_for_import(needs: str, module: str, exc: BaseException) -> NoReturn:
    """Skips the caller (a test, or a whole module at import): ``needs`` says what the tests need
    and how to install it, then the import that failed."""
    __tracebackhide__ = True
    pytest.skip(f"{needs}; {import_failure(module, exc)}", allow_module_level=True)
