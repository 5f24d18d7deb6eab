"""Fixtures of the tests that install built wheels into fresh virtual environments (issue 42).

They need the repaired wheels of ``scripts/build_wheels.sh``: ``ENVPOOL_WHEELHOUSE`` names the
folder holding them (``scripts/ci_wheel_install.sh`` sets it, after repairing the wheel of
``.ci/run``'s wheel step). Without it those tests skip: building wheels is not the main suite's
business. Each venv is made with this interpreter, without system site-packages, and pip
installs binary wheels only (``--only-binary :all:``), so nothing can compile.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

# What a PATH must not reach for the install to count as "without a compiler".
BUILD_TOOLS = ("cc", "c++", "gcc", "g++", "clang", "clang++", "cmake", "ninja", "make", "ld")


def wheelhouse() -> pathlib.Path:
    folder = os.environ.get("ENVPOOL_WHEELHOUSE")
    if not folder:
        pytest.skip("ENVPOOL_WHEELHOUSE is not set: scripts/ci_wheel_install.sh runs these tests on repaired wheels")
    path = pathlib.Path(folder)
    assert path.is_dir(), f"ENVPOOL_WHEELHOUSE={folder} is not a folder"
    return path


def find_wheel(prefix: str, required: bool = True) -> pathlib.Path | None:
    """The repaired (manylinux) wheel ``<prefix>-*.whl`` of the wheelhouse."""
    found = sorted(wheelhouse().glob(f"{prefix}-*manylinux*.whl"))
    if not found and required:
        pytest.fail(f"no {prefix}-*manylinux*.whl in {wheelhouse()}")
    assert len(found) <= 1, f"several {prefix} wheels in {wheelhouse()}: {found}"
    return found[0] if found else None


class Venv:
    """A fresh venv whose commands see a PATH of only its own bin folder (no compiler)."""

    def __init__(self, root: pathlib.Path):
        self.root = root
        subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=300)
        self.bin = root / "bin"
        self.python = self.bin / "python"
        drop = {"CC", "CXX", "CMAKE_GENERATOR", "PYTHONPATH", "VIRTUAL_ENV"}
        self.env = {k: v for k, v in os.environ.items() if k not in drop}
        self.env["PATH"] = str(self.bin)
        self.env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"

    def run(self, *args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess:
        proc = subprocess.run([*args], capture_output=True, text=True, env=self.env, cwd=self.root, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def py(self, code: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return self.run(str(self.python), "-c", code, *args, check=check)

    def pip_install(self, *requirements: str, no_deps: bool = False) -> None:
        self.run(
            str(self.python),
            "-m",
            "pip",
            "install",
            "-q",
            "--only-binary",
            ":all:",
            *(["--no-deps"] if no_deps else []),
            *requirements,
        )

    def reachable_tools(self) -> list[str]:
        """The build tools this venv's PATH reaches (must be none)."""
        return [tool for tool in BUILD_TOOLS if shutil.which(tool, path=self.env["PATH"])]


@pytest.fixture
def venv_factory(tmp_path):
    def make(name: str = "venv") -> Venv:
        return Venv(tmp_path / name)

    return make
