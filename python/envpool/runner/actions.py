"""Where the runner's actions come from: the policy (checked, as NumPy) or random samples."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.vector.utils import batch_space

from envpool.runner.metrics import SampleMetrics
from envpool.runner.trees import to_numpy


class ActionSource:
    """Actions (and the policy's per-row extras) for a batch of observations; the time spent
    here counts as policy time."""

    _space: Any  # the single action space
    _seed: int | None
    _metrics: SampleMetrics
    _batched_spaces: dict[int, Any]  # per batch size: the batched space random actions come from

    def __init__(self, single_space: Any, seed: int | None, metrics: SampleMetrics):
        self._space = single_space
        self._seed = seed
        self._metrics = metrics
        self._batched_spaces = {}

    def __call__(self, policy: Callable | None, obs: Any, n: int, use_random: bool) -> tuple[Any, dict]:
        t = time.perf_counter()
        try:
            if use_random:  # (inline: a full-batch pool's every step comes here)
                space = self._batched_spaces.get(n)
                if space is None:
                    space = self._batched_space(n)
                return space.sample(), {}
            return self._from_policy(policy, obs, n)
        finally:
            self._metrics.policy_time += time.perf_counter() - t

    def _batched_space(self, n: int) -> Any:
        """The batched space random actions for ``n`` rows come from, seeded once."""
        space = batch_space(self._space, n)
        space.seed(None if self._seed is None else self._seed + n)
        self._batched_spaces[n] = space
        return space

    @staticmethod
    def _from_policy(policy: Callable, obs: Any, n: int) -> tuple[Any, dict]:
        out = policy(obs)
        if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict):
            actions, extras = out
        else:
            actions, extras = out, {}
        actions = to_numpy(actions)
        extras = {k: to_numpy(v) for k, v in extras.items()}
        rows = len(actions) if not isinstance(actions, dict) else None
        if rows is not None and rows != n:
            raise ValueError(f"policy returned {rows} actions for a batch of {n} observations")
        for k, v in extras.items():
            if np.ndim(v) == 0 or len(v) != n:
                raise ValueError(
                    f"policy extras[{k!r}] must have one row per observation ({n}), got shape {np.shape(v)}"
                )
        return actions, extras
