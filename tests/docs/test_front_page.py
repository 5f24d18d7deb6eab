"""The README is a front page (issue 54): at most 150 lines and one table of speed numbers, from
one machine and one date; every other number lives on bench's results pages."""

from __future__ import annotations

import pathlib

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_is_at_most_150_lines_with_one_table_of_speed_numbers():
    lines = README.read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines: move the detail to docs/ or bench/"
    speed_tables = [line for line in lines if line.startswith("| workload |")]
    assert len(speed_tables) == 1, speed_tables
