"""What the bench scripts share: the line a measuring child process prints its result on, and
how results are summarized (medians with their spread, rates, load averages).

A bench script runs each measurement in a fresh interpreter (``python -c WORKER``) so that
the packages compared never share a process; the child prints one line
``RESULT_MARK + json`` and the parent finds it with :func:`parse_result`.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from collections.abc import Sequence
from typing import Any

RESULT_MARK = "@@BENCH_RESULT@@ "


def parse_result(stdout: str) -> Any:
    """The JSON of the last result line in a child's stdout, or None when it printed none."""
    found = None
    for line in stdout.splitlines():
        if line.startswith(RESULT_MARK):
            found = json.loads(line[len(RESULT_MARK) :])
    return found


def spread(xs: Sequence[float]) -> str:
    """min..max as percentages of the median."""
    m = statistics.median(xs)
    return f"{100 * (min(xs) / m - 1):+.0f}..{100 * (max(xs) / m - 1):+.0f}%"


def fmt_rate(x: float) -> str:
    """Steps per second, short: 1.234M or 56.7k."""
    return f"{x / 1e6:.3f}M" if x >= 1e6 else f"{x / 1e3:.1f}k"


def load_span(loads: Sequence[Sequence[float]]) -> str:
    """The 1-minute load averages seen during a run (os.getloadavg() samples), as min..max."""
    ones = [load[0] for load in loads]
    return f"{min(ones):.2f}..{max(ones):.2f}"


def run_child(python: str, source: str, payload: dict[str, Any], env: dict[str, str], cwd: Any, timeout: float) -> dict:
    """Runs ``python -c source json(payload)`` and returns the result it printed after
    RESULT_MARK, or ``{"error": ...}`` (a timeout, or its exit status and last lines): one
    measurement in a child process, so that a peer that crashes or conflicts takes nothing down."""
    try:
        proc = subprocess.run(
            [python, "-c", source, json.dumps(payload)],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    found = parse_result(proc.stdout)
    if found is not None:
        return found
    tail = [line for line in (proc.stderr or proc.stdout).strip().splitlines() if line.strip()][-3:]
    return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}
