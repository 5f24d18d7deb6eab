"""The whole-batch recorder's put-aside batches and its cut against the row-by-row recorder, on a
scripted full-batch pool whose rows CartPole never gives: rewards that are not integers (the
returns summed one by one), and failed resets (a reset row that reads truncated, as
``envpool.EnvError``'s rows do), inside runs of batches that are worked out all at once."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envpool

from .oracle import StepHook, same_samples


class ScriptedPool:
    """``num_envs`` scripted envs, full batch, next-step autoreset. After a step that ended an
    episode an env sends a reset row, which fails (reads truncated) one time in three; after a
    failed one, another reset row. Observations: env, a row counter and the action taken."""

    def __init__(self, num_envs: int, seed: int, integer_rewards: bool):
        self.num_envs = self.batch_size = num_envs
        self.single_action_space = gymnasium.spaces.Discrete(3)
        self.autoreset_mode = AutoresetMode.NEXT_STEP
        self._rng = np.random.default_rng(seed)
        self._integer = integer_rewards
        self._resetting = np.zeros(num_envs, bool)  # the next row is a reset row
        self._rows = 0

    def _obs(self, actions: np.ndarray) -> np.ndarray:
        self._rows += 1
        n = self.num_envs
        return np.stack([np.arange(n), np.full(n, self._rows), actions], 1).astype(np.float64)

    def reset(self, seed=None, options=None):
        self._resetting[:] = False
        return self._obs(np.full(self.num_envs, -1)), {"env_id": np.arange(self.num_envs)}

    def step(self, actions):
        n, rng = self.num_envs, self._rng
        reset_row = self._resetting
        u = rng.random(n)
        failed = reset_row & (u < 1 / 3)
        term = ~reset_row & (u < 0.08)
        trunc = (~reset_row & (u > 0.96)) | failed
        rew = rng.integers(-3, 4, n).astype(np.float64) if self._integer else rng.normal(size=n)
        rew[reset_row] = 0.0
        self._resetting = failed | (~reset_row & (term | trunc))
        return self._obs(np.asarray(actions)), rew, term, trunc, {"env_id": np.arange(n)}


@pytest.mark.parametrize("integer_rewards", [True, False])
@pytest.mark.parametrize("num_envs", [1, 7])
def test_put_aside_batches_match_row_by_row(num_envs, integer_rewards):
    calls = [
        dict(num_timesteps=500),
        dict(num_timesteps=3),
        dict(num_timesteps=num_envs * 40 + 1),
        dict(num_episodes=4),
        dict(num_timesteps=333, force_reset=True),
        dict(num_timesteps=1000),
    ]
    runs = []
    for hooks in (None, StepHook()):
        runner = envpool.EnvRunner(ScriptedPool(num_envs, 5, integer_rewards), callbacks=hooks, seed=2)
        assert type(runner._recorder).__name__ == ("EpisodeRecorder" if hooks else "ColumnRecorder")
        runs.append(([runner.sample(**call) for call in calls], runner.get_metrics(), runner.get_state()))
    (columns, col_metrics, col_state), (rows, row_metrics, row_state) = runs
    same_samples(calls, columns, rows)
    assert col_state == row_state
    for key in ("episode_return_mean", "episode_return_min", "episode_len_mean", "num_episodes"):
        assert col_metrics[key] == row_metrics[key], key
    assert col_metrics["num_env_steps_sampled"] == row_metrics["num_env_steps_sampled"]


def test_episode_views_made_when_read_behave_as_fields():
    """The whole-batch recorder's episodes make their arrays when first read: a read gives the
    same array each time, a set field is kept, and a copy or pickle is a plain Episode."""
    import copy
    import pickle

    runner = envpool.EnvRunner(ScriptedPool(3, 1, False), lambda obs: (np.zeros(len(obs), np.int64), {"v": obs[:, 1]}))
    episodes = runner.sample(num_timesteps=200)
    ep = episodes[0]
    assert isinstance(ep, envpool.Episode) and ep.observations is ep.observations
    np.testing.assert_array_equal(ep.extras["v"], ep.observations[:-1, 1])
    ep.rewards = np.zeros(len(ep))
    assert not ep.rewards.any()
    for back in (pickle.loads(pickle.dumps(ep)), copy.copy(ep), copy.deepcopy(ep)):
        assert type(back) is envpool.Episode and back.id == ep.id
        np.testing.assert_array_equal(back.observations, ep.observations)
        np.testing.assert_array_equal(back.rewards, ep.rewards)
