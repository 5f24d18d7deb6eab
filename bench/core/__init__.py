"""The pool itself: throughput, async against full batch, the C++ loop limit, thread scaling,
contention and ``xla()`` (bench/core/README.md)."""
