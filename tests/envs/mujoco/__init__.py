"""cpp/envs/mujoco against gymnasium's MuJoCo envs."""
