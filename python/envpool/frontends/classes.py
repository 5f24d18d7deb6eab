"""The front end of each ``env_type``: what ``envpool.make`` and ``envpool.make_python`` build
over their pools.

It picks among every front end, the multi-agent ones in envpool.multiagent included, so this one
module of frontends/ sits above multiagent/ (tests/package/test_layers.py's layer table says so);
each is imported only when asked for: ``"dm"`` needs the ``dm-env`` package.
"""

from __future__ import annotations

from envpool.frontends.installed_gym import gym_front_end
from envpool.frontends.vector_env import EnvPoolVectorEnv

ENV_TYPES = ("gymnasium", "gym", "dm", "pettingzoo")


def front_end_class(env_type: str, multi_agent: bool = False) -> type:
    """The front end for ``env_type`` (``"dm"`` needs the ``dm-env`` package: imported only then;
    ``"gym"``'s depends on the installed ``gym`` package, see envpool.frontends.installed_gym).
    Multi-agent tasks have two: ``"gymnasium"`` (agents as rows) and ``"pettingzoo"``."""
    if env_type not in ENV_TYPES:
        raise ValueError(f"env_type must be one of {ENV_TYPES}, got {env_type!r}")
    if env_type == "pettingzoo" or multi_agent:
        if not multi_agent:
            raise ValueError("env_type='pettingzoo' needs a multi-agent task; this is a single-agent task")
        if env_type == "gymnasium":
            from envpool.multiagent.rows import AgentRowsVectorEnv

            return AgentRowsVectorEnv
        if env_type == "pettingzoo":
            from envpool.multiagent.parallel import ParallelEnvs

            return ParallelEnvs
        raise ValueError(
            "this is a multi-agent task: env_type must be 'gymnasium' (agents as rows) or 'pettingzoo', "
            f"got {env_type!r}"
        )
    if env_type == "dm":
        from envpool.frontends.dm import EnvPoolDmEnv

        return EnvPoolDmEnv
    return gym_front_end() if env_type == "gym" else EnvPoolVectorEnv
