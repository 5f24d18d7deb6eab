"""The trainer's side of external episodes: :func:`serve` (a pool whose envs are client
episodes) and :class:`ExternalVectorEnv`, its gymnasium front end."""

from __future__ import annotations

from gymnasium import spaces

from envpool.external.options import ExternalOptions
from envpool.external.pool import ExternalPool
from envpool.frontends.sources import OpenedPool, PoolAbilities, PoolSource
from envpool.frontends.vector_env import EnvPoolVectorEnv
from envpool.tasks import TaskSpec


def serve(
    observation_space: spaces.Space,
    action_space: spaces.Space,
    *,
    address: str = "127.0.0.1:0",
    batch_size: int = 1,
    max_episodes: int = 1024,
    wait_ms: float = 1.0,
    token: str | None = None,
    client_timeout: float = 10.0,
    max_frame_bytes: int | None = None,
    max_message_bytes: int | None = None,
    max_send_queue: int | None = None,
    max_episodes_per_client: int | None = None,
) -> ExternalVectorEnv:
    """A pool of external episodes: clients (:class:`envpool.PolicyClient`) drive episodes and
    ask for actions; the trainer answers them with the asynchronous ``recv`` / ``send`` loop.

    Args:
        observation_space, action_space: one Box, Discrete, MultiDiscrete or MultiBinary each.
        address: ``"host:port"`` to bind (port 0 picks a free one; read ``server.address``);
            loopback by default. A ZeroMQ ``"tcp://..."`` or ``"ipc://..."`` endpoint is taken
            as is (``inproc://`` is not supported: use ``ipc://`` within one host).
        batch_size: at most this many episodes per ``recv()``.
        max_episodes: concurrent episodes (slots, the pool's ``num_envs``); an ended episode
            frees its slot once the trainer has answered its last row.
        wait_ms: a batch that has rows is returned this long after its first row arrived,
            full or not (never empty).
        token: when given, every connection must present it first (constant-time compare).
        client_timeout: seconds without a message (clients send heartbeats) after which a
            client counts as gone: its episodes end as truncated. A connection that has not
            authenticated this long after it opened is closed.
        max_frame_bytes: the largest frame (a request header or an array) the server reads;
            default: 64 KiB plus 4 observations and actions. At least one observation and one
            action.
        max_message_bytes: the largest request (all its frames); default: ``max_frame_bytes``
            plus an observation and an action. A larger message, or one of more than 3 frames,
            is dropped as it arrives (never held whole) and answered with code ``too_large``.
        max_send_queue: replies queued for one connection that its client has not read yet;
            beyond that its replies are dropped (its calls time out; nobody else waits).
            Default: 4 per episode a client may hold, at least 1000 (the trainer answers a
            batch at once: a client that reads must never see one dropped).
        max_episodes_per_client: open episodes one client may hold (default: ``max_episodes``,
            no limit of its own); lower it so that one client cannot take every slot.

    >>> import envpool, gymnasium as gym, numpy as np
    >>> server = envpool.serve(gym.spaces.Box(-1, 1, (3,)), gym.spaces.Discrete(2))
    >>> client = envpool.PolicyClient(server.address)
    >>> import threading
    >>> eid = client.start_episode()
    >>> t = threading.Thread(target=lambda: print(client.get_action(eid, np.zeros(3, np.float32))))
    >>> t.start()
    >>> obs, reward, terminated, truncated, info = server.recv(timeout=5)
    >>> info["episode_id"][0] == eid
    True
    >>> server.send(np.array([1]), info["env_id"]); t.join()
    1
    >>> client.close(); server.close()
    """
    # This call's arguments by name (locals() as the first statement holds nothing else), as
    # ExternalSource takes them.
    return ExternalVectorEnv(ExternalSource(**locals()))


class ExternalSource(ExternalOptions, PoolSource):
    """Episodes that outside clients drive: serve()'s arguments by name, checked when made;
    ``open_pool()`` binds the address and starts the server thread."""

    def open_pool(self) -> OpenedPool:
        pool = ExternalPool(self)
        task_spec = TaskSpec(
            task_id=self.name,
            observation_space=self.observation_space,
            action_space=self.action_space,
            config={},
            max_episode_steps=None,
            reward_threshold=None,
            info_keys=(
                "env_id",
                "elapsed_step",
                "episode_id",
                "client_number",
                "training_enabled",
                "logged_action",
                "_logged_action",
                "client_info",
            ),
            render_shape=None,
        )
        return OpenedPool(
            pool=pool, task_spec=task_spec, abilities=PoolAbilities(), render_mode=None, config={}, workers=1
        )


class ExternalVectorEnv(EnvPoolVectorEnv):
    """The trainer's side of :func:`serve` / :meth:`ExternalEnv.open`: a gymnasium
    ``VectorEnv`` whose envs are client episodes (``num_envs`` = ``max_episodes`` slots).

    Use the asynchronous loop: ``recv()`` returns up to ``batch_size`` episodes waiting for an
    action; ``send(actions, info["env_id"])`` answers them. ``info`` adds ``episode_id`` and
    ``client_number`` (episode ids are per client: the pair names an episode; the number is the
    server's, counting clients from 0 as they first said hello),
    ``training_enabled``, ``logged_action`` / ``_logged_action`` (off-policy actions the
    client took itself, and where) and ``client_info`` (the ``info`` of ``log_returns``).
    ``reset()`` waits for the first batch; ``step(actions)`` answers the last batch and
    waits for the next.
    """

    def __init__(self, source: ExternalSource):
        super().__init__(source)
        self._last_ids = None

    def after_close(self, fn) -> None:
        """Runs ``fn()`` once ``close()`` has stopped the server and closed the pool (an
        :class:`~envpool.ExternalEnv` joins its ``run()`` threads there)."""
        self._pool.after_close.append(fn)

    @property
    def address(self) -> str:
        """The bound address (``"127.0.0.1:PORT"`` for TCP), for ``PolicyClient``."""
        return self._pool.address

    def stats(self) -> dict[str, int]:
        """What the server holds now: ``connections`` (open), ``authenticated`` (of those),
        ``clients``, ``episodes`` (open), and ``dropped_replies`` (so far: replies to
        connections whose send queue was full)."""
        return self._pool.server.stats()

    def reset(self, *, seed=None, options=None):
        if seed is not None or options:
            raise ValueError(
                "external episodes are seeded and started by their clients: reset() takes no seed or options"
            )
        obs, _, _, _, info = self.recv()
        return obs, info

    def recv(self, timeout: float | None = None):
        result = super().recv(timeout)
        self._last_ids = result[4]["env_id"]
        return result

    def step(self, actions, env_id=None, timeout: float | None = None):
        if env_id is None:
            if self._last_ids is None:
                raise RuntimeError("step() answers the last recv()'s episodes: call reset() or recv() first")
            env_id = self._last_ids
        self._last_ids = None
        self.send(actions, env_id)
        return self.recv(timeout)
