"""Runs the vendored gymnasium 1.4.0 ``tests/vector`` files against envpool (see README.md).

They need gymnasium >= 1.4 (their helpers build spaces older releases lack), so with an older
gymnasium they are not collected; ``test_envpool_shim.py`` says so as its skip reason.
A few test AsyncVectorEnv's own implementation, not the vector-env API envpool answers: they
are skipped, each with its reason (also listed in docs/compat.md).
"""

from __future__ import annotations

from pathlib import Path

import gymnasium
import pytest

GYMNASIUM = tuple(int(part) for part in gymnasium.__version__.split(".")[:2])
VENDORED_FROM = (1, 4)

collect_ignore_glob = ["tests/*"] if GYMNASIUM < VENDORED_FROM else []

NOT_APPLICABLE = {
    "test_async_vector_env.py::test_custom_space_async_vector_env_shared_memory": (
        "asserts AsyncVectorEnv's shared-memory limitation: with shared_memory=True it refuses a custom space "
        "(its buffers need fixed-size spaces); envpool carries custom and variable-size spaces pickled, whatever "
        "shared_memory says, so the pool is made"
    ),
    "test_async_vector_env.py::test_async_vector_subenv_error": (
        "asserts AsyncVectorEnv's own failure handling: the exact warnings it logs while it shuts down the worker "
        "of an env that raised, then the env's exception re-raised as is; envpool keeps the worker, restarts the "
        "env and raises envpool.EnvError naming the env, with the exception's type, message and traceback and "
        "the rest of the batch (see docs/compat.md)"
    ),
}

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(item.fspath)
        if _HERE not in path.parents:
            continue
        reason = NOT_APPLICABLE.get(f"{path.name}::{item.originalname}")
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=f"not applicable to envpool: {reason}"))
