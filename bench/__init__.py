"""Benchmarks of envpool against its peers; not part of the package (bench/README.md).

Each bench runs from the repository root as a module: ``python -m bench.core.throughput``."""
