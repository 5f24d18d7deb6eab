"""Python envs in worker processes (envpool.make_python, envpool.process): results, faults and
hardening."""
