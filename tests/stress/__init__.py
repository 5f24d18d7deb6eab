"""Long-running checks run as scripts, not collected by pytest: the stateful fuzzer (fuzz_pool.py,
run by tests/core/test_fuzz.py) and the threading stress run (stress_pool.py, run under the
sanitizers by scripts/sanitize.sh)."""
