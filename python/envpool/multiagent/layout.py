"""Where docs/reference.md documented ``AgentLayout`` before it moved beside the core's agents
(envpool.agents, issue 37): the same objects, so that code importing them from here still runs."""

from envpool.agents import AGENT_INFO, AgentGroup, AgentLayout, to_rows, to_rows_item, truncated_agents

__all__ = ["AGENT_INFO", "AgentGroup", "AgentLayout", "to_rows", "to_rows_item", "truncated_agents"]
