"""``envpool.EnvRunner`` and ``envpool.ray`` sampling against RLlib and gymnasium (bench/runner/README.md)."""
