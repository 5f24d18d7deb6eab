"""Goal-conditioned tasks' reward functions on every front end (gymnasium-robotics' ``GoalEnv``).

Tasks with ``Dict(observation, achieved_goal, desired_goal)`` observations (PointMaze, Fetch, ...)
have ``compute_reward(achieved_goal, desired_goal, info)``, the function Hindsight Experience
Replay relabels goals with, and ``compute_terminated`` / ``compute_truncated``. Here each is the
C++ function the env's own step calls (cpp/core/goals.h), reached through the pool: a relabelled
reward equals the step's reward bit for bit. Nothing is computed in Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def goal_compute(pool: Any, which: str, achieved_goal: Any, desired_goal: Any, env_id: int | None) -> Any:
    """``pool.goal_compute`` with gymnasium-robotics' broadcasting of the two goal arrays, and
    its result types: an array over the leading axes, or for one goal a ``np.float64`` reward
    (as ``np.exp`` / ``astype`` give there) and a ``bool`` flag (its ``bool(...)``)."""
    achieved = np.asarray(achieved_goal, dtype=np.float64)
    desired = np.asarray(desired_goal, dtype=np.float64)
    if achieved.shape != desired.shape:
        try:
            achieved, desired = np.broadcast_arrays(achieved, desired)
        except ValueError:
            raise ValueError(
                f"compute_{which}: achieved_goal {achieved.shape} and desired_goal {desired.shape} do not broadcast"
            ) from None
    values = pool.goal_compute(which, np.ascontiguousarray(achieved), np.ascontiguousarray(desired), env_id)
    if values.ndim == 0:
        return values[()] if which == "reward" else bool(values)
    return values


class GoalMethods:
    """Mixed into the pool front ends (gymnasium, gym, dm) and the single-env view, which hold
    the native pool as ``_goal_pool()``. ``env_id``: whose kwargs apply when the envs of a
    pool were made with different ones that the reward reads (``reward_type=["sparse",
    "dense"]``); by default those every env shares (other kwargs, a maze map per env, may
    differ). ``info`` is accepted as gymnasium-robotics' signature has it; the tasks' rewards
    do not read it."""

    def _goal_pool(self) -> Any:
        return self._pool

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any = None, env_id: int | None = None) -> Any:
        """The reward of reaching ``achieved_goal`` when ``desired_goal`` is asked, for goal rows of
        shape ``(..., goal_size)``: rewards of shape ``(...)`` (gymnasium-robotics' ``compute_reward``).
        Raises ValueError for a task without goals."""
        return goal_compute(self._goal_pool(), "reward", achieved_goal, desired_goal, env_id)

    def compute_terminated(
        self, achieved_goal: Any, desired_goal: Any, info: Any = None, env_id: int | None = None
    ) -> Any:
        """Whether the episode ends there (gymnasium-robotics' ``compute_terminated``), per goal row."""
        return goal_compute(self._goal_pool(), "terminated", achieved_goal, desired_goal, env_id)

    def compute_truncated(
        self, achieved_goal: Any, desired_goal: Any, info: Any = None, env_id: int | None = None
    ) -> Any:
        """Whether the env cuts the episode there by itself (``compute_truncated``), per goal row."""
        return goal_compute(self._goal_pool(), "truncated", achieved_goal, desired_goal, env_id)
