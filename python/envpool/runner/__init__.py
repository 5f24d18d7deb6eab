"""Sample experience from any envpool pool with a policy: :class:`EnvRunner` and :class:`Episode`.

The runner steps a pool made by :func:`envpool.make` or :func:`envpool.make_python` (gymnasium
front end), cuts the stream of results into :class:`Episode` objects, computes episode metrics
with RLlib's names and calls RLlib-style callbacks. With an asynchronous pool
(``batch_size < num_envs``) it computes the actions of one batch while the other envs step.

>>> import envpool, numpy as np
>>> envs = envpool.make("CartPole-v1", num_envs=4, seed=0)
>>> runner = envpool.EnvRunner(envs, policy=lambda obs: (obs[:, 2] > 0).astype(np.int64))
>>> episodes = runner.sample(num_timesteps=100)
>>> sum(len(e) for e in episodes)
100
>>> batch = envpool.episodes_to_batch(episodes)   # time-major, for on-policy training
>>> batch.observations.shape, batch.rewards.shape
((25, 4, 4), (25, 4))
>>> envs.close()
"""

from envpool.runner.callbacks import RunnerCallbacks
from envpool.runner.env_runner import EnvRunner
from envpool.runner.episodes import Episode, TimeMajorBatch, episodes_to_batch

__all__ = ["EnvRunner", "Episode", "RunnerCallbacks", "TimeMajorBatch", "episodes_to_batch"]
