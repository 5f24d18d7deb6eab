"""Runs the stateful fuzzer (tests/stress/fuzz_pool.py) in a subprocess: random sequences of
make/reset/step/send/recv/close with valid and invalid arguments must never kill the
interpreter, and the pool's invariants must hold."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_fuzzing_never_crashes_and_invariants_hold():
    script = pathlib.Path(__file__).parents[1] / "stress" / "fuzz_pool.py"
    result = subprocess.run([sys.executable, str(script), "150"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert "fuzz: ok" in result.stdout
