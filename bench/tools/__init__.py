"""A/B of two builds (wall clock, instruction counts) and the peers' venvs (bench/tools/README.md)."""
