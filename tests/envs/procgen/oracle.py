"""Procgen's own env, the oracle of the Procgen tests, as it runs in this test process.

The oracle is ``procgen.ProcgenGym3Env`` (procgen/env.py of the installed procgen-mirror wheel):
its option handling, its cffi loader (gym3's ``CEnv``) and the same compiled library our pool
opens. Two adaptations, both about imports, none about behaviour:

* ``import procgen`` runs procgen/__init__.py, which registers gym (< 1.0) envs and so imports
  gym, which is neither installed here nor importable with numpy 2. The package is therefore
  entered without its ``__init__`` (a bare package module for ``procgen`` whose path is the
  installed folder), and only ``procgen.env`` is imported.
* procgen-mirror's metadata pins numpy < 2, gym < 1 and gym3; installed with ``--no-deps``
  into ``.test-oracles/`` (the README's test command; tests/support/optional.py), numpy stays
  at 2.x. It needs gym3 (installed the same way; pure Python: ``CEnv`` runs on numpy 2 and cffi
  2 as it is), cffi, which gym3 loads the library with, and imageio, which gym3's ``__init__``
  imports (both in envpool-ng's ``[test]`` extra).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types

import numpy as np
import pytest
from support.optional import skip_for_import

# How the README's test command installs Procgen and its oracle's loader (support/optional.py).
INSTALL = (
    "Procgen tests need procgen-mirror and gym3: "
    "pip install --no-deps --upgrade --target .test-oracles procgen-mirror==0.10.7 gym3==0.3.3"
)


def procgen_env_module():
    """``procgen.env``, or a pytest skip saying what is missing."""
    if "procgen.env" in sys.modules:
        return sys.modules["procgen.env"]
    spec = importlib.util.find_spec("procgen")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{INSTALL}; import procgen failed: not found", allow_module_level=True)
    if "procgen" not in sys.modules:
        package = types.ModuleType("procgen")
        package.__path__ = list(spec.submodule_search_locations)
        package.__spec__ = spec
        sys.modules["procgen"] = package
    try:
        import cffi  # noqa: F401 - gym3's loader; imported first, so that its absence is named as such
    except ImportError as exc:
        skip_for_import("the Procgen oracle loads its library with cffi (envpool-ng's [test] extra)", "cffi", exc)
    try:
        return importlib.import_module("procgen.env")
    except ImportError as exc:
        skip_for_import(f"the Procgen oracle (procgen.env) needs gym3 and imageio; {INSTALL}", "procgen.env", exc)


class Oracle:
    """One Procgen game as Procgen's own env runs it (``ProcgenGym3Env(num=1)``), stepped one
    action at a time; ``step(-1)`` is Procgen's forced reset."""

    def __init__(self, env_name: str, rand_seed: int, render: bool = False, **options):
        self.env = procgen_env_module().ProcgenGym3Env(
            num=1,
            env_name=env_name,
            rand_seed=rand_seed,
            num_threads=0,
            render_mode="rgb_array" if render else None,
            **options,
        )

    def observe(self):
        """(obs, reward, first, info) after the last step: the same as the pool's row holds."""
        reward, ob, first = self.env.observe()
        return ob["rgb"][0].copy(), float(reward[0]), bool(first[0]), self.env.get_info()[0]

    def step(self, action: int):
        self.env.act(np.array([action], dtype=np.int32))
        return self.observe()

    def state(self) -> bytes:
        return self.env.get_state()[0]

    def close(self) -> None:
        self.env.close()
