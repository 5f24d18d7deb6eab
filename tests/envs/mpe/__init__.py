"""cpp/envs/mpe against mpe2."""
