"""The server the external-episode tests share: envpool.serve on CartPole's spaces (a fixture:
closed after each test)."""

import gymnasium as gym
import pytest

import envpool

CARTPOLE = gym.make("CartPole-v1")
OBS_SPACE, ACT_SPACE = CARTPOLE.observation_space, CARTPOLE.action_space


@pytest.fixture
def server():
    # client_timeout: short for the disconnect test, long enough that a busy machine does not
    # starve a live client's heartbeats (sent every client_timeout / 4) past it.
    s = envpool.serve(OBS_SPACE, ACT_SPACE, batch_size=4, max_episodes=64, wait_ms=1.0, client_timeout=2.0)
    yield s
    s.close()
