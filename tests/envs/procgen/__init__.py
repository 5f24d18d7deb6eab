"""The Procgen tasks against Procgen's own env (procgen-mirror)."""
