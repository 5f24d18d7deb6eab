"""envpool.EnvRunner and envpool.Episode (envpool.runner)."""
