"""cpp/envs/mujoco/dmc against dm_control's suite (dm-control 1.0.50)."""
