"""AgentCounterTwin: a PettingZoo ParallelEnv with the rules of the native AgentCounter-v0
(cpp/testing/agent_counter.h), written from its header: agents come and go on a schedule. Run
through ``make_python`` it must give the same rows as the native env."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv


class AgentCounterTwin(ParallelEnv):
    metadata = {"name": "agent_counter_twin"}

    def __init__(self, num_agents=3, num_scouts=1, join_at=2, life=3):
        self.n, self.scouts, self.join_at, self.life = num_agents, num_scouts, join_at, life
        self.possible_agents = [f"agent_{k}" for k in range(num_agents)]
        widths = [2 if k < num_scouts else 4 for k in range(num_agents)]
        self._obs_spaces = {a: spaces.Box(0.0, 1e9, (w,), np.float32) for a, w in zip(self.possible_agents, widths)}
        self._act_spaces = {a: spaces.Discrete(3) for a in self.possible_agents}
        self.agents = []

    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    def _obs(self, agent):
        k = self.possible_agents.index(agent)
        values = np.array([self.steps, k, self.last_action[k], 1.0], dtype=np.float32)
        return values[: self._obs_spaces[agent].shape[0]]

    def reset(self, seed=None, options=None):
        self.steps = 0
        present = self.possible_agents if self.join_at == 0 else self.possible_agents[:-1]
        self.agents = list(present)
        self.born = [0] * self.n
        self.last_action = [0] * self.n
        return {a: self._obs(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions):
        self.steps += 1
        reported = list(self.agents)
        rewards, terms, truncs = {}, {}, {}
        for a in reported:
            k = self.possible_agents.index(a)
            self.last_action[k] = int(actions[a])
            rewards[a] = k + float(actions[a])
            terms[a] = self.steps - self.born[k] >= self.life + k
            truncs[a] = False
        self.agents = [a for a in reported if not terms[a]]
        last = self.possible_agents[-1]
        if self.join_at > 0 and self.steps == self.join_at:
            self.born[self.n - 1] = self.steps
            self.agents.append(last)
            reported.append(last)
            rewards[last], terms[last], truncs[last] = 0.0, False, False
        obs = {a: self._obs(a) for a in reported}
        return obs, rewards, terms, truncs, {a: {} for a in reported}
