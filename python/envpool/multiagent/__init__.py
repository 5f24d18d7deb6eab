"""Multi-agent tasks: agents as rows (cpp/core/agents.h, docs/multiagent.md).

Front ends: :class:`~envpool.multiagent.rows.AgentRowsVectorEnv` (``envpool.make(task)``, a
gymnasium ``VectorEnv`` with one row per agent) and
:class:`~envpool.multiagent.parallel.ParallelEnvs` (``envpool.make(task, env_type="pettingzoo")``,
PettingZoo ``ParallelEnv`` views of the pool's envs).
"""
