"""Episodes packed as columns for the trip between processes: :class:`PackedEpisodes`.

Pickling a list of episodes writes three or four small arrays and a dozen attributes per
episode (a few µs each, and as many again to read them back); packed, every field of all the
episodes is one array, and the per-episode part is one tuple. ``envpool.ray.RunnerGroup``'s
runners send what they sample this way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envpool.runner.episodes import Episode
from envpool.runner.trees import concat_tree, take


class PackedEpisodes:
    """Episodes as concatenated arrays; :meth:`unpack` gives them back (their arrays are views
    of the packed ones).

    >>> import envpool
    >>> envs = envpool.make("CartPole-v1", num_envs=2, seed=0)
    >>> episodes = envpool.EnvRunner(envs, seed=0).sample(num_timesteps=50)
    >>> back = PackedEpisodes(episodes).unpack()
    >>> [(e.id, len(e)) for e in back] == [(e.id, len(e)) for e in episodes]
    True
    >>> envs.close()
    """

    # (Pickled as its slots, Python's default for a class with __slots__ and no __dict__.)
    __slots__ = ("actions", "extras", "infos", "meta", "observations", "rewards")

    observations: Any  # every episode's len + 1 observations, one after the other
    actions: Any  # every step's action (None: no episode has a step)
    rewards: np.ndarray
    extras: dict[str, tuple[np.ndarray, list[int]]]  # by name: values, and per episode how many (-1: none)
    meta: list[tuple]  # per episode: id, env_id, t_started, len, terminated, truncated
    infos: list[list[dict]] | None  # per episode, where any episode kept infos

    def __init__(self, episodes: Sequence[Episode]):
        episodes = list(episodes)
        self.meta = [(e.id, e.env_id, e.t_started, len(e), e.terminated, e.truncated) for e in episodes]
        stepped = [e for e in episodes if len(e)]
        self.observations = concat_tree([e.observations for e in episodes]) if episodes else None
        self.actions = concat_tree([e.actions for e in stepped]) if stepped else None
        self.rewards = np.concatenate([e.rewards for e in episodes]) if episodes else np.zeros(0)
        self.extras = {}
        for name in {k for e in episodes for k in e.extras}:
            have = [e.extras[name] for e in episodes if name in e.extras]
            counts = [len(e.extras[name]) if name in e.extras else -1 for e in episodes]
            self.extras[name] = (np.concatenate(have), counts)
        self.infos = [e.infos for e in episodes] if any(e.infos for e in episodes) else None

    def __len__(self) -> int:
        return len(self.meta)

    def unpack(self, cls: type = Episode, **attrs: Any) -> list:
        """The episodes (as ``cls``, an :class:`Episode` class, with ``attrs`` set on each)."""
        out = []
        obs_at = step_at = 0
        extra_at = dict.fromkeys(self.extras, 0)
        plain = isinstance(self.observations, np.ndarray) and isinstance(self.actions, np.ndarray)
        for k, (ep_id, env_id, t_started, n, terminated, truncated) in enumerate(self.meta):
            ep = cls.__new__(cls)
            ep.id, ep.env_id, ep.t_started = ep_id, env_id, t_started
            ep.terminated, ep.truncated = terminated, truncated
            obs, steps = slice(obs_at, obs_at + n + 1), slice(step_at, step_at + n)
            if plain:
                ep.observations, ep.actions = self.observations[obs], self.actions[steps]
            else:
                ep.observations = take(self.observations, obs)
                ep.actions = take(self.actions, steps) if n else np.zeros((0,))
            ep.rewards = self.rewards[steps]
            ep.infos = self.infos[k] if self.infos is not None else []
            ep.extras = {}
            for name, (values, counts) in self.extras.items():
                if counts[k] >= 0:
                    at = extra_at[name]
                    ep.extras[name] = values[at : at + counts[k]]
                    extra_at[name] = at + counts[k]
            for key, value in attrs.items():
                setattr(ep, key, value)
            out.append(ep)
            obs_at, step_at = obs_at + n + 1, step_at + n
        return out
