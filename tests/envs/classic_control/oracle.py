"""Pendulum-v0's oracle: gym 0.20's PendulumEnv.step, written here as the formula it is.

Pendulum-v0 is the reference EnvPool's ``version=0`` pendulum, and gym 0.20 (gym/envs/
classic_control/pendulum.py) is the last gym that registered Pendulum-v0 (gym 0.21 fixed the
integration order and named the result Pendulum-v1, gymnasium's). gym 0.20 does not install on
the Python and numpy the suite runs (its setup.py predates them), so the oracle is its ``step``,
verbatim in arithmetic, on gymnasium's PendulumEnv, whose reset (``np_random.uniform([-pi, -1],
[pi, 1])``), observation and reward helper are gym 0.20's with gymnasium's generator (docs/
tasks.md: Pendulum-v0 is seeded as every gymnasium-family task). Under numpy 2 the torque stays
float32 where it meets Python floats (NEP 50), as for Pendulum-v1.
"""

from __future__ import annotations

import numpy as np
from gymnasium.envs.classic_control.pendulum import PendulumEnv, angle_normalize
from gymnasium.wrappers import TimeLimit


class PendulumV0(PendulumEnv):
    """gym 0.20's Pendulum-v0 step: the gravity term written -3 g / (2 l) sin(th + pi), and the
    angle moved by the new speed before the speed is clipped."""

    def step(self, u):
        th, thdot = self.state
        g, m, l, dt = self.g, self.m, self.l, self.dt  # noqa: E741 (gym's names)
        u = np.clip(u, -self.max_torque, self.max_torque)[0]
        self.last_u = u
        costs = angle_normalize(th) ** 2 + 0.1 * thdot**2 + 0.001 * (u**2)
        newthdot = thdot + (-3 * g / (2 * l) * np.sin(th + np.pi) + 3.0 / (m * l**2) * u) * dt
        newth = th + newthdot * dt
        newthdot = np.clip(newthdot, -self.max_speed, self.max_speed)
        self.state = np.array([newth, newthdot])
        return self._get_obs(), -costs, False, False, {}


def make_pendulum_v0(max_episode_steps: int = 200, **kwargs):
    """Pendulum-v0 as gym 0.20 registered it: the env under a 200-step TimeLimit."""
    return TimeLimit(PendulumV0(**kwargs), max_episode_steps)
