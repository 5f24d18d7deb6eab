"""bench/ stays smaller than what it measures (issue 54): the benches' Python has fewer lines than
the pool's C++ core, cpp/core, counted as the other size caps count them."""

from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _lines(paths: list[pathlib.Path]) -> int:
    """Every line of the files, blank and comment lines included (as tests/package/test_size_caps.py)."""
    return sum(len(p.read_text().splitlines()) for p in paths)


def test_bench_python_has_fewer_lines_than_cpp_core():
    bench = sorted((ROOT / "bench").rglob("*.py"))
    core = sorted(p for p in (ROOT / "cpp" / "core").rglob("*") if p.suffix in (".h", ".cc"))
    assert len(bench) > 20 and len(core) > 30  # the walks saw both trees
    bench_lines, core_lines = _lines(bench), _lines(core)
    assert bench_lines < core_lines, (
        f"bench/**/*.py has {bench_lines} lines, cpp/core's .h and .cc {core_lines}: merge the copies a "
        "new bench repeats into bench/harness.py or bench/rounds.py, or retire finished one-off "
        "benches to bench/history.md (their tables, and the commit to rerun them at)"
    )
