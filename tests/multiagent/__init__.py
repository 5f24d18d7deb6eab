"""Multi-agent tasks (envpool.multiagent): agent rows, PettingZoo views and collections."""
