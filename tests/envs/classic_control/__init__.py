"""cpp/envs/classic_control against gymnasium's classic-control envs."""
