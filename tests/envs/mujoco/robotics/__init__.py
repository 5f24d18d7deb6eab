"""cpp/envs/mujoco/robotics against gymnasium-robotics 1.4.2."""
