"""Helpers for tests that run Python in a child process or watch processes."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap


def _sigint_default() -> None:
    """Run in the child before exec: a test run started where SIGINT is ignored (a background
    shell job) would otherwise hand that on, and Python never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_python(code: str) -> subprocess.Popen:
    """``python -c code`` (dedented) with text pipes for stdout/stderr and default SIGINT."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_sigint_default,
    )


def alive(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
