"""cpp/envs/minigrid against minigrid 3.2.0 (the MiniGrid ids)."""
