"""envpool under other projects' APIs, each imported only when used (the projects are extras):

- :mod:`envpool.integrations.sb3` (``envpool.sb3``): Stable-Baselines3's ``VecEnv`` over a pool;
- :mod:`envpool.integrations.rllib` (``envpool.rllib``): envpool tasks as RLlib envs;
- :mod:`envpool.integrations.ray` (``envpool.ray``): :class:`~envpool.runner.EnvRunner` groups as
  Ray actors.
"""
