"""The envpool command line (envpool.cli)."""
