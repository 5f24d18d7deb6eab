"""The oracles of the reference EnvPool's two toy-text tasks that gymnasium does not have.

- Catch-v0: bsuite's own Catch (bsuite.environments.catch, bsuite 0.3.6, in the ``test`` extra),
  behind a gymnasium.Env adapter (bsuite's envs are dm_env ones): ``reset(seed=s)`` starts a fresh
  ``Catch(seed=s)``, whose RandomState draws the ball's column at each reset; ``reset()`` starts
  the next episode of the same Catch, as bsuite's own loop does. The adapter only translates
  calls and results; bsuite computes everything.
- NChain-v0: gym 0.19's NChainEnv (gym/envs/toy_text/nchain.py, the last gym that has it), its
  step's arithmetic written here: gym 0.19 does not install on the Python and numpy the suite runs.
  Its generator is gymnasium's ``np_random``, as for every gymnasium-family task here (docs/
  tasks.md): gym 0.19 drew ``np_random.rand()`` from a RandomState seeded through a hash of the
  seed, gymnasium's ``np_random.random()`` draws the same distribution, and test_catch_nchain.py
  checks that distribution too.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.wrappers import TimeLimit


class BsuiteCatch(gymnasium.Env):
    """bsuite's Catch as a gymnasium.Env (``rows`` x ``columns``, the reference's height x width)."""

    def __init__(self, rows: int = 10, columns: int = 5):
        from bsuite.environments import catch

        self._catch_class = catch.Catch
        self._rows, self._columns = rows, columns
        self.catch = None
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (rows, columns), np.float32)
        self.action_space = gymnasium.spaces.Discrete(3)

    def reset(self, *, seed=None, options=None):
        if seed is not None or self.catch is None:
            self.catch = self._catch_class(rows=self._rows, columns=self._columns, seed=seed)
        return self.catch.reset().observation, {}

    def step(self, action):
        ts = self.catch.step(int(action))
        return ts.observation, float(ts.reward), ts.last(), False, {}


class NChainV0(gymnasium.Env):
    """gym 0.19's NChainEnv: actions 0 forward, 1 back; with probability ``slip`` the other one."""

    def __init__(self, n=5, slip=0.2, small=2, large=10):
        self.n, self.slip, self.small, self.large = n, slip, small, large
        self.state = 0
        self.action_space = gymnasium.spaces.Discrete(2)
        self.observation_space = gymnasium.spaces.Discrete(self.n)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.state = 0
        return self.state, {}

    def step(self, action):
        assert self.action_space.contains(action)
        back = bool(action)
        if self.np_random.random() < self.slip:  # one draw every step (gym 0.19: np_random.rand())
            back = not back
        if back:  # back to the start, paying `small`
            reward = self.small
            self.state = 0
        elif self.state < self.n - 1:  # one state forward, paying nothing
            reward = 0
            self.state += 1
        else:  # forward at the last state: stay, paying `large`
            reward = self.large
        return self.state, reward, False, False, {}


def make_nchain_v0(**kwargs):
    """NChain-v0 as gym 0.19 registered it: the env under a 1000-step TimeLimit."""
    return TimeLimit(NChainV0(**kwargs), 1000)
