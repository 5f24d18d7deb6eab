"""Shared test setup: registers the StepCounter-v0 test plugin (envpool.testing) for every test,
puts the oracles of ``.test-oracles/`` on the path, makes ``pytest.importorskip`` skip on any
ImportError with the failed import in its reason, and lists the env families' skipped tests
(with ``ENVPOOL_TESTS_NO_FAMILY_SKIPS=1``, as .ci/run runs the README's test command, any
such skip fails the run)."""

import functools
import os
import sys
import warnings

import pytest
from support.optional import ORACLES_DIR, import_failure

# Before anything imports them: procgen-mirror, gym3 and dm-control, installed with
# `pip install --no-deps --target .test-oracles` (the README's test command; support/optional.py
# says why). Appended, so that a package installed in the venv comes first; PYTHONPATH carries
# the folder to the processes the tests start (make_python's workers, scripts, examples).
if os.path.isdir(ORACLES_DIR):
    if ORACLES_DIR not in sys.path:
        sys.path.append(ORACLES_DIR)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if ORACLES_DIR not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([*paths, ORACLES_DIR])

import envpool.testing  # noqa: E402 - after the oracles' folder is on the path

envpool.testing.load_step_counter()


# An optional package may be installed but fail to import: `ray` without `ray[rllib]`'s
# dependencies raises ImportError("Can't import ray.tune as some dependencies are missing") from
# `import ray.rllib`. Since pytest 9.1, importorskip skips only on ModuleNotFoundError unless
# given exc_type, so such a test module would error at collection and fail the README's test
# command. Here every importorskip of the suite (module level or in a test) skips on any
# ImportError, a partial install's usual symptom (tests/install/test_optional_deps.py checks),
# and its reason ends with the import that failed (pytest's own gives only `reason` when one is
# passed: "install gym3" where gym3 is installed and its cffi is not).
@functools.wraps(pytest.importorskip)
def _importorskip(modname, minversion=None, reason=None, *, exc_type=ImportError):
    __tracebackhide__ = True  # skips are reported at the caller's line, as pytest's own are
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # as pytest's: an import's warnings are not the test's
        try:
            __import__(modname)
        except exc_type as exc:
            failed = import_failure(modname, exc)
            pytest.skip(f"{reason}; {failed}" if reason else failed, allow_module_level=True)
    return _pytest_importorskip(modname, minversion, reason, exc_type=exc_type)  # minversion


_pytest_importorskip = pytest.importorskip
pytest.importorskip = _importorskip


@pytest.fixture
def without_the_gym_package(monkeypatch):
    """env_type="gym" as where the gym package is not installed: the reference EnvPool 1.x's
    gymnasium-based front end. With gym installed (0.23.1 for CleanRL's Atari scripts,
    docs/atari.md) it follows gym's API instead, which tests/frontends/test_legacy_gym.py checks."""
    monkeypatch.setitem(sys.modules, "gym", None)  # find_spec("gym") is None: as if not installed


# The env families' tests (tests/envs/<family>/) compare each family with its own package, the
# oracle: a skip there means a family went unchecked. Listed at the end of every run; .ci/run
# sets ENVPOOL_TESTS_NO_FAMILY_SKIPS=1, which makes any of them fail the run.
_family_skips: list[str] = []
# Read once and removed: the pytest runs that tests start themselves (collection checks with
# broken packages, the docs' examples) are not the README's run.
_NO_FAMILY_SKIPS = os.environ.pop("ENVPOOL_TESTS_NO_FAMILY_SKIPS", "") == "1"


def _family_skip(report) -> None:
    parts = report.nodeid.split("::")[0].split("/")
    if not (report.skipped and len(parts) > 3 and parts[:2] == ["tests", "envs"]) or hasattr(report, "wasxfail"):
        return
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    _family_skips.append(f"{report.nodeid}: {reason}")


def pytest_collectreport(report):
    _family_skip(report)


def pytest_runtest_logreport(report):
    _family_skip(report)


def pytest_terminal_summary(terminalreporter):
    if _family_skips:
        terminalreporter.section(
            "env families' tests skipped"
            + (" (ENVPOOL_TESTS_NO_FAMILY_SKIPS=1: the run fails)" if _NO_FAMILY_SKIPS else ""),
            sep="=",
        )
        for line in _family_skips:
            terminalreporter.line(line)


def pytest_sessionfinish(session):
    ran = session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)  # all skipped: 5
    if _family_skips and _NO_FAMILY_SKIPS and ran:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
