"""The shim the vendored tests use in place of gymnasium's AsyncVectorEnv (envpool_vector.py)."""

from __future__ import annotations

import inspect

import gymnasium
import pytest
from conftest import GYMNASIUM, VENDORED_FROM
from envpool_vector import AsyncVectorEnv


@pytest.mark.skipif(
    GYMNASIUM < VENDORED_FROM,
    reason=f"the vendored tests/vector files come from gymnasium 1.4.0 and need gymnasium >= 1.4 (found "
    f"{gymnasium.__version__}): their helpers build spaces older releases cannot (Discrete(dtype=...), Graph "
    "spaces of Dict nodes), so they are not collected",
)
def test_shim_takes_every_argument_of_gymnasiums_async_vector_env():
    ours = inspect.signature(AsyncVectorEnv).parameters
    theirs = inspect.signature(gymnasium.vector.AsyncVectorEnv.__init__).parameters
    missing = [name for name in theirs if name != "self" and name not in ours]
    assert not missing, f"the shim lacks AsyncVectorEnv's arguments {missing}"
    defaults = {name: p.default for name, p in theirs.items() if name != "self"}
    assert {name: ours[name].default for name in defaults} == defaults
