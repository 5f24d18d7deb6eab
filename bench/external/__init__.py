"""External episodes: ``envpool.serve`` round trips on loopback (bench/external/README.md)."""
