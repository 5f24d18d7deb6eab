"""What the README's test command says about skips, and what .ci/run makes of them (issue 55
item 1): a fresh venv lacked cffi, gym3's own dependency, so every Procgen test skipped with a
reason that said to install gym3 (installed), and ``pytest -q`` hid even that.

- A skip for an optional import names the import that failed and its error, whether the test
  module catches the ImportError itself or calls ``pytest.importorskip`` with a reason (whose
  own message is then only the reason).
- The env families' skipped tests are listed at the end; with ``ENVPOOL_TESTS_NO_FAMILY_SKIPS=1``
  (how .ci/run runs the README's command) any of them fails the run.
- The README's test command is one line that .ci/run reads from README.md, shows skip reasons
  and installs the conflicting oracles out of the environment; docs/install.md quotes it.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def _pytest(tmp_path, broken: dict[str, str], args: list[str], strict: bool) -> subprocess.CompletedProcess:
    """pytest on `args` from the repository root, each package of `broken` present but raising
    ModuleNotFoundError for the module named beside it (a dependency of its own)."""
    fakes = tmp_path / "fakes"
    for package, missing in broken.items():
        (fakes / package).mkdir(parents=True)
        (fakes / package / "__init__.py").write_text(f"import {missing}\n")
    env = {k: v for k, v in os.environ.items() if k != "ENVPOOL_TESTS_NO_FAMILY_SKIPS"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(fakes), env.get("PYTHONPATH", "")) if p)
    if strict:
        env["ENVPOOL_TESTS_NO_FAMILY_SKIPS"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _skipped(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("SKIPPED")]


@pytest.mark.slow
def test_an_installed_package_that_fails_to_import_is_named_with_its_error(tmp_path):
    # minigrid's WFC tests: pytest.importorskip("networkx", reason=...), networkx present but
    # missing a dependency of its own.
    out = _pytest(tmp_path, {"networkx": "networkx_own_dependency"}, ["tests/envs/minigrid/test_wfc.py"], False)
    skipped = _skipped(out.stdout)
    assert len(skipped) == 1, out.stdout[-3000:] + out.stderr[-2000:]
    assert "minigrid's WFC envs need networkx" in skipped[0], skipped
    assert "ModuleNotFoundError: No module named 'networkx_own_dependency'" in skipped[0], skipped
    assert out.returncode in (0, 5), out.stdout[-3000:]  # skipped, not failed (5: nothing else collected)


@pytest.mark.slow
def test_the_procgen_oracle_without_cffi_names_cffi_and_fails_the_strict_run(tmp_path):
    if importlib.util.find_spec("procgen") is None:
        pytest.skip("needs procgen-mirror (the README's test command installs it into .test-oracles/)")
    test = "tests/envs/procgen/test_procgen.py::test_episodes_match_procgen[bigfish]"
    lax = _pytest(tmp_path, {"cffi": "_cffi_backend_missing"}, [test], False)
    skipped = _skipped(lax.stdout)
    assert len(skipped) == 1, lax.stdout[-3000:] + lax.stderr[-2000:]
    assert "import cffi failed: ModuleNotFoundError: No module named '_cffi_backend_missing'" in skipped[0], skipped
    assert "env families' tests skipped" in lax.stdout and lax.returncode == 0, lax.stdout[-3000:]

    strict = _pytest(tmp_path / "strict", {"cffi": "_cffi_backend_missing"}, [test], True)
    assert strict.returncode == 1, strict.stdout[-3000:]
    assert "env families' tests skipped (ENVPOOL_TESTS_NO_FAMILY_SKIPS=1: the run fails)" in strict.stdout
    assert f"{test}: " in strict.stdout.split("env families' tests skipped")[1], strict.stdout[-3000:]


def test_a_family_test_that_runs_passes_the_strict_run(tmp_path):
    out = _pytest(tmp_path, {}, ["tests/envs/classic_control/test_classic_control.py", "-k", "CartPole"], True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "env families' tests skipped" not in out.stdout


# The pattern .ci/run's readme_test_command greps README.md for: its one test command line.
CI_PATTERN = r'^python3 -m pip install .*"\.\[test\]".*python3 -m pytest'


def test_the_readme_has_one_test_command_which_ci_runs_and_the_docs_quote():
    ci = (REPO / ".ci" / "run").read_text()
    assert f"grep -E '{CI_PATTERN}' README.md" in ci
    assert 'ENVPOOL_TESTS_NO_FAMILY_SKIPS=1 bash -c "$command"' in ci and "python3 -m pip check" in ci
    lines = re.findall(CI_PATTERN + ".*$", (REPO / "README.md").read_text(), re.MULTILINE)
    assert len(lines) == 1, lines
    command = lines[0]
    assert re.search(r"python3 -m pytest .*-r[a-zA-Z]*s", command), command  # skip reasons shown
    assert "--no-deps --upgrade --target .test-oracles " in command, command  # conflicting pins out of the env
    assert command in (REPO / "docs" / "install.md").read_text()
