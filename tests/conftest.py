"""Shared test setup: registers the StepCounter-v0 test plugin (envpool.testing) for every test,
and makes ``pytest.importorskip`` skip on any ImportError."""

import functools

import pytest

import envpool.testing

envpool.testing.load_step_counter()


# An optional package may be installed but fail to import: `ray` without `ray[rllib]`'s
# dependencies raises ImportError("Can't import ray.tune as some dependencies are missing") from
# `import ray.rllib`. Since pytest 9.1, importorskip skips only on ModuleNotFoundError unless
# given exc_type, so such a test module would error at collection and fail the README's test
# command. Here every importorskip of the suite (module level or in a test) skips on any
# ImportError, a partial install's usual symptom (tests/install/test_optional_deps.py checks).
@functools.wraps(pytest.importorskip)
def _importorskip(modname, minversion=None, reason=None, *, exc_type=ImportError):
    __tracebackhide__ = True  # skips are reported at the caller's line, as pytest's own are
    return _pytest_importorskip(modname, minversion, reason, exc_type=exc_type)


_pytest_importorskip = pytest.importorskip
pytest.importorskip = _importorskip
