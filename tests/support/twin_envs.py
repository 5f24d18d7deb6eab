"""Python twins of the C++ test envs, run by gymnasium's own vector envs as the oracle."""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces


class StepCounterTwin(gymnasium.Env):
    """Same dynamics as cpp/envs/step_counter.h (without fail_at)."""

    observation_space = spaces.Box(0.0, 1e9, (4,), np.float32)
    action_space = spaces.Discrete(4)

    def __init__(self, terminate_at: int = 5, truncate_at: int = 0):
        self.terminate_at = terminate_at
        self.truncate_at = truncate_at
        self.steps = self.episodes = self.last_action = self.total_steps = 0

    def _obs(self):
        return np.array([self.steps, self.episodes, self.last_action, 1.0], dtype=np.float32)

    def _info(self):
        return {"total_steps": np.int64(self.total_steps)}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.steps = 0
        self.episodes += 1
        self.last_action = 0
        return self._obs(), self._info()

    def step(self, action):
        self.total_steps += 1
        self.steps += 1
        self.last_action = int(action)
        reward = self.steps * 0.5 + self.last_action
        terminated = self.terminate_at > 0 and self.steps >= self.terminate_at
        truncated = self.truncate_at > 0 and self.steps >= self.truncate_at
        return self._obs(), reward, terminated, truncated, self._info()


def twin_vector_env(terminate_at: list[int], truncate_at: list[int], max_episode_steps: int | None, mode):
    def factory(i):
        def make():
            env = StepCounterTwin(terminate_at[i], truncate_at[i])
            if max_episode_steps:
                env = gymnasium.wrappers.TimeLimit(env, max_episode_steps)
            return env

        return make

    return gymnasium.vector.SyncVectorEnv([factory(i) for i in range(len(terminate_at))], autoreset_mode=mode)
