"""An environment with its own loop in this process (RLlib's ``ExternalEnv`` pattern):
:class:`ExternalEnv`, served over a private Unix socket by :func:`envpool.serve`."""

from __future__ import annotations

import shutil
import tempfile
import threading
from typing import Any

from gymnasium import spaces

from envpool.external import wire as _wire
from envpool.external.client import PolicyClient
from envpool.external.serve import ExternalVectorEnv, serve
from envpool.frontends.seeding import check_int


class ExternalEnv:
    """An environment that runs its own loop and asks for actions, in this process (RLlib's
    ``ExternalEnv`` pattern): subclass it, write :meth:`run` with the same calls a
    :class:`envpool.PolicyClient` makes, and :meth:`open` it as a pool. ``run()`` runs in
    ``num_runners`` threads; the calls travel over a Unix socket in a private temporary
    directory (no network) to the same server, so the trainer sees the same recv/send, checks
    and info as with :func:`serve`.

    >>> import envpool, gymnasium as gym, numpy as np
    >>> class Counter(envpool.ExternalEnv):
    ...     def run(self):
    ...         eid = self.start_episode()
    ...         for t in range(3):
    ...             action = self.get_action(eid, np.array([t], np.float32))
    ...             self.log_returns(eid, float(action))
    ...         self.end_episode(eid, np.array([3], np.float32))
    >>> envs = Counter(gym.spaces.Box(0, 10, (1,)), gym.spaces.Discrete(2)).open()
    >>> obs, info = envs.reset()
    >>> rewards = []
    >>> for _ in range(3):
    ...     obs, reward, terminated, truncated, info = envs.step(np.array([1]))
    ...     rewards.append(float(reward[0]))
    >>> rewards, bool(terminated[0])
    ([1.0, 1.0, 1.0], True)
    >>> envs.close()
    """

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space):
        self.observation_space = observation_space
        self.action_space = action_space
        self._client = None
        self._runners: list[threading.Thread] = []
        self.errors: list[BaseException] = []  # what run() raised, other than the pool closing

    def run(self) -> None:
        """The environment's own loop: start episodes, ask for actions, log returns, end them."""
        raise NotImplementedError("subclass ExternalEnv and implement run()")

    def open(
        self,
        *,
        batch_size: int = 1,
        max_episodes: int = 1024,
        wait_ms: float = 1.0,
        num_runners: int = 1,
        timeout: float = 60.0,
    ) -> ExternalVectorEnv:
        """Starts ``num_runners`` threads running :meth:`run` and returns the trainer's pool
        (an :class:`ExternalVectorEnv`). Closing the pool ends the calls waiting in ``run()``
        (they raise :class:`envpool.ExternalError` with code ``closed``) and joins the threads."""
        if self._client is not None:
            raise RuntimeError("this ExternalEnv is already open")
        num_runners = check_int("num_runners", num_runners, 1)
        where = tempfile.mkdtemp(prefix="envpool-external-")  # mode 0700: this user's only
        try:
            pool = serve(
                self.observation_space,
                self.action_space,
                address=f"ipc://{where}/server",
                batch_size=batch_size,
                max_episodes=max_episodes,
                wait_ms=wait_ms,
            )
        except BaseException:
            shutil.rmtree(where, ignore_errors=True)
            raise
        self._client = PolicyClient(pool.address, timeout=timeout)
        pool.after_close(self._stop_runners)
        pool.after_close(lambda: shutil.rmtree(where, ignore_errors=True))
        for i in range(num_runners):
            t = threading.Thread(target=self._run, name=f"envpool-external-env-{i}", daemon=True)
            self._runners.append(t)
            t.start()
        return pool

    def _run(self) -> None:
        try:
            self.run()
        except _wire.ExternalError as err:
            if err.code != "closed":
                self.errors.append(err)
        except BaseException as err:  # kept for the trainer to inspect; the thread ends
            self.errors.append(err)

    def _stop_runners(self) -> None:
        client = self._client
        client.refuse_calls()  # later calls fail at once; waiting ones got the server's "closed"
        for t in self._runners:
            t.join(timeout=5.0)
        if not any(t.is_alive() for t in self._runners):
            client.close()

    def start_episode(self, episode_id: str | None = None, training_enabled: bool = True) -> str:
        return self._client.start_episode(episode_id, training_enabled)

    def get_action(self, episode_id: str, obs) -> Any:
        return self._client.get_action(episode_id, obs)

    def log_action(self, episode_id: str, obs, action) -> None:
        self._client.log_action(episode_id, obs, action)

    def log_returns(self, episode_id: str, reward: float, info: dict | None = None) -> None:
        self._client.log_returns(episode_id, reward, info)

    def end_episode(self, episode_id: str, obs, truncated: bool = False) -> None:
        self._client.end_episode(episode_id, obs, truncated)
