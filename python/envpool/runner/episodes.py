"""What the runner returns: :class:`Episode` (one env's episode or a chunk of it) and
:func:`episodes_to_batch`, which lays episodes out time-major for on-policy training."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from envpool.runner.trees import concat_tree, stack, take


def new_episode_id() -> str:
    """A random 128-bit id as 32 hex digits (as ``uuid.uuid4().hex``, at a fifth of its cost)."""
    return os.urandom(16).hex()


class Episode:
    """One env's episode, or a chunk of it, as the runner returns it.

    Attributes:
        id: a hex string; the chunks of one episode share it.
        env_id: the env (row of the pool) that ran it.
        t_started: how many steps of the episode came before this chunk (0 for a first chunk).
        observations: ``len() + 1`` observations; a continuation chunk starts with the last
            observation of the chunk before. In same-step autoreset mode the last one of a
            finished episode is ``info["final_obs"]``, not the next episode's first.
        actions, rewards: one per step (``rewards`` float64).
        terminated, truncated: whether the episode ended this way at this chunk's last step.
        infos: the info dict of each observation (``len() + 1``) when the runner keeps infos
            (``EnvRunner(keep_infos=True)``), else empty.
        extras: what the policy returned beside the actions (log-probs, values...), one row per
            step, by name.

    Returned episodes hold NumPy arrays (stacked per field); while sampling (inside callbacks)
    the fields are lists that grow. Episodes pickle (they travel between processes).

    >>> import envpool
    >>> envs = envpool.make("CartPole-v1", num_envs=2, seed=0)
    >>> ep = envpool.EnvRunner(envs, seed=0).sample(num_episodes=1)[0]
    >>> ep.is_done, len(ep) == len(ep.actions) == len(ep.observations) - 1, ep.get_return() == len(ep)
    (True, True, True)
    >>> envs.close()
    """

    __slots__ = (
        "actions",
        "env_id",
        "extras",
        "id",
        "infos",
        "observations",
        "rewards",
        "t_started",
        "terminated",
        "truncated",
    )

    def __init__(self, env_id: int, id: str | None = None, t_started: int = 0):
        self.id = new_episode_id() if id is None else id
        self.env_id = int(env_id)
        self.t_started = t_started
        self.observations: Any = []
        self.actions: Any = []
        self.rewards: Any = []
        self.terminated = False
        self.truncated = False
        self.infos: list[dict] = []
        self.extras: dict[str, Any] = {}

    @property
    def is_done(self) -> bool:
        """Whether the episode ended (terminated or truncated) in this chunk."""
        return self.terminated or self.truncated

    def __len__(self) -> int:
        return len(self.rewards)

    def get_return(self) -> float:
        """The sum of this chunk's rewards."""
        return float(np.sum(self.rewards))

    def _finalized(self) -> Episode:
        """A copy holding NumPy arrays (this builder keeps growing lists)."""
        out = Episode(self.env_id, self.id, self.t_started)
        out.observations = stack(self.observations)
        n = len(self.rewards)
        out.actions = stack(self.actions) if n else np.zeros((0,))
        out.rewards = np.asarray(self.rewards, dtype=np.float64)
        out.terminated, out.truncated = self.terminated, self.truncated
        out.infos = list(self.infos)
        out.extras = {k: np.asarray(v) for k, v in self.extras.items()}
        return out

    def _continuation(self) -> Episode:
        """The next chunk of an ongoing episode: same id, starting at this chunk's last obs."""
        nxt = Episode(self.env_id, self.id, self.t_started + len(self.rewards))
        nxt.observations.append(self.observations[-1])
        if self.infos:
            nxt.infos.append(self.infos[-1])
        return nxt

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)

    def __repr__(self) -> str:
        state = "terminated" if self.terminated else "truncated" if self.truncated else "ongoing"
        return f"Episode(id={self.id[:8]}, env_id={self.env_id}, t_started={self.t_started}, len={len(self)}, {state})"


@dataclasses.dataclass
class TimeMajorBatch:
    """Episodes laid out ``(T, B)`` for on-policy training: column ``b`` holds env
    ``env_ids[b]``'s chunks one after another, in time order, padded at the end (``mask``).

    At step ``(t, b)`` the action ``actions[t, b]`` was taken in ``observations[t, b]``. The
    next observation is ``observations[t + 1, b]`` unless ``dones[t, b]`` (the episode ended or
    the chunk was cut there): then the value to bootstrap from is 0 where ``terminated[t, b]``,
    else that of ``bootstrap_observations[k]`` at ``(bootstrap_t[k], bootstrap_b[k])`` (one per
    truncated end and per cut chunk).
    """

    observations: Any
    actions: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    dones: np.ndarray
    mask: np.ndarray
    extras: dict[str, np.ndarray]
    bootstrap_observations: Any
    bootstrap_t: np.ndarray
    bootstrap_b: np.ndarray
    env_ids: np.ndarray


def episodes_to_batch(episodes: Sequence[Episode]) -> TimeMajorBatch:
    """Stack episodes (as :meth:`EnvRunner.sample` returns them) into a :class:`TimeMajorBatch`.

    Chunks of one env are concatenated in the order given (the runner returns each env's
    episodes in time order). A full-batch pool in same-step autoreset mode sampled a multiple
    of ``num_envs`` steps at a time gives an unpadded ``(num_timesteps // num_envs, num_envs)``
    batch; in next-step mode an env loses a step to each reset row, so columns differ by a few
    steps and the shorter ones are padded (``mask``).
    """
    episodes = [e for e in episodes if len(e)]
    if not episodes:
        raise ValueError("episodes_to_batch() needs at least one episode with a step")
    columns: dict[int, list[Episode]] = {}
    for e in episodes:
        columns.setdefault(e.env_id, []).append(e)
    env_ids = np.array(sorted(columns), dtype=np.int64)
    episodes = [e for env in env_ids for e in columns[int(env)]]  # column by column, as laid out
    lengths = [sum(len(e) for e in columns[int(b)]) for b in env_ids]
    T, B = max(lengths), len(env_ids)
    # Flat (time, column) positions of every step, episode by episode.
    t_idx, b_idx, end_t, end_b = [], [], [], []
    for b, env in enumerate(env_ids):
        t = 0
        for e in columns[int(env)]:
            n = len(e)
            t_idx.append(np.arange(t, t + n))
            b_idx.append(np.full(n, b))
            t += n
            end_t.append(t - 1)
            end_b.append(b)
    t_idx, b_idx = np.concatenate(t_idx), np.concatenate(b_idx)
    end_t, end_b = np.array(end_t), np.array(end_b)

    def scatter(values, dtype=None):
        values = np.asarray(values) if dtype is None else np.asarray(values, dtype=dtype)
        out = np.zeros((T, B) + values.shape[1:], dtype=values.dtype)
        out[t_idx, b_idx] = values
        return out

    def scatter_tree(trees):
        first = trees[0]
        if isinstance(first, dict):
            return {k: scatter_tree([x[k] for x in trees]) for k in first}
        if isinstance(first, tuple):
            return tuple(scatter_tree([x[j] for x in trees]) for j in range(len(first)))
        return scatter(np.concatenate(trees))

    observations = scatter_tree([take(e.observations, slice(0, len(e))) for e in episodes])
    actions = scatter_tree([e.actions for e in episodes])
    rewards = scatter(np.concatenate([e.rewards for e in episodes]), np.float64)
    mask = scatter(np.ones(len(t_idx), dtype=bool))
    terminated = np.zeros((T, B), dtype=bool)
    truncated = np.zeros((T, B), dtype=bool)
    dones = np.zeros((T, B), dtype=bool)
    dones[end_t, end_b] = True
    is_term = np.array([e.terminated for e in episodes])
    terminated[end_t[is_term], end_b[is_term]] = True
    truncated[end_t, end_b] = np.array([e.truncated for e in episodes])
    keys = set(episodes[0].extras)
    extras = {k: scatter(np.concatenate([e.extras[k] for e in episodes])) for k in keys}
    boot = ~is_term
    boot_obs = [take(e.observations, slice(len(e), len(e) + 1)) for e, b in zip(episodes, boot) if b]
    bootstrap_observations = concat_tree(boot_obs) if boot_obs else take(episodes[0].observations, slice(0, 0))
    return TimeMajorBatch(
        observations=observations,
        actions=actions,
        rewards=rewards,
        terminated=terminated,
        truncated=truncated,
        dones=dones,
        mask=mask,
        extras=extras,
        bootstrap_observations=bootstrap_observations,
        bootstrap_t=end_t[boot],
        bootstrap_b=end_b[boot],
        env_ids=env_ids,
    )
