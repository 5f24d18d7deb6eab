"""envpool inside other projects (envpool.integrations): Stable-Baselines3, RLlib, Ray, and a PPO
run."""
