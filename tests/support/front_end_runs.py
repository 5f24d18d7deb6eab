"""One seeded run of a task through each front end, as plain arrays: for comparing an alias with
its task, or the front ends with each other (tests/registry/test_aliases.py, the family tests of
the reference EnvPool's tasks).

A run resets with ``seed``, then takes ``steps`` steps with actions drawn from a generator seeded
with ``action_seed`` over the task's single-env action space (the same actions for the same task
whatever the front end), and records every array a user reads: observations, rewards,
terminations, truncations and info (the dm front end: step types, rewards, discounts and its
observation fields). Front ends:

- ``gymnasium``: ``envpool.make(task)``, the gymnasium ``VectorEnv``;
- ``gym``: ``env_type="gym"``, the reference EnvPool's front end (four values from ``step`` where
  a gym < 0.26 is installed: ``assert_front_ends_agree`` compares the gymnasium-based one, so its
  tests hide an installed gym with the ``without_the_gym_package`` fixture);
- ``dm``: ``env_type="dm"``, a ``dm_env.Environment``;
- ``single``: ``gymnasium.make`` of the task's gymnasium id, one env, reset (and the reset
  recorded) where an episode ends.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

import envpool
from envpool.tasks import gymnasium_ids

FRONT_ENDS = ("gymnasium", "gym", "dm", "single")


def _arrays(value: Any, prefix: str = "") -> dict[str, np.ndarray]:
    """Every array in ``value`` (nested dicts, tuples, namedtuples), by a path name."""
    if isinstance(value, dict):
        out = {}
        for key in sorted(value):
            out.update(_arrays(value[key], f"{prefix}.{key}"))
        return out
    if hasattr(value, "_asdict"):
        return _arrays(value._asdict(), prefix)
    if isinstance(value, tuple):
        out = {}
        for i, item in enumerate(value):
            out.update(_arrays(item, f"{prefix}[{i}]"))
        return out
    return {prefix: np.asarray(value)}


def _actions(space: gymnasium.Space, action_seed: int, steps: int, num_envs: int) -> list[np.ndarray]:
    space = gymnasium.spaces.utils.flatten_space(space) if isinstance(space, gymnasium.spaces.Dict) else space
    space.seed(action_seed)
    return [np.stack([np.asarray(space.sample()) for _ in range(num_envs)]) for _ in range(steps)]


def run(task_id: str, front_end: str, steps: int, seed: int = 0, action_seed: int = 1, num_envs: int = 2, **kwargs):
    """The arrays of a run, one dict per reset or step (``single``: one env, so ``num_envs`` is 1)."""
    spec = envpool.make_spec(task_id, **kwargs)
    n = 1 if front_end == "single" else num_envs
    actions = _actions(spec.action_space, action_seed, steps, n)
    if front_end == "single":
        env = gymnasium.make(gymnasium_ids()[task_id], **kwargs)
        try:
            records = [_arrays(env.reset(seed=seed))]
            for a in actions:
                records.append(_arrays(env.step(a[0])))
                if records[-1]["[2]"] or records[-1]["[3]"]:  # the episode ended: a reset, recorded
                    records.append(_arrays(env.reset()))
        finally:
            env.close()
        return records
    env_type = "gymnasium" if front_end == "gymnasium" else front_end
    envs = envpool.make(task_id, env_type=env_type, num_envs=n, seed=seed, **kwargs)
    try:
        records = [_arrays(envs.reset())]
        records += [_arrays(envs.step(a)) for a in actions]
    finally:
        envs.close()
    return records


def assert_same_runs(ours: list[dict], theirs: list[dict], what: str) -> None:
    """Two runs record the same arrays, bit for bit, at every step."""
    assert len(ours) == len(theirs), what
    for t, (a, b) in enumerate(zip(ours, theirs)):
        assert a.keys() == b.keys(), f"{what}, step {t}: {sorted(a)} vs {sorted(b)}"
        for key in a:
            assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), (
                f"{what}, step {t}, {key}: {a[key]!r} vs {b[key]!r}"
            )


def _fields(front_end: str, record: dict) -> tuple:
    """(observation arrays, reward or None) of one record, whatever the front end."""
    if front_end == "dm":
        obs = {k.removeprefix(".observation.obs"): v for k, v in record.items() if k.startswith(".observation.obs")}
        return obs, record[".reward"]
    obs = {k.removeprefix("[0]"): v for k, v in record.items() if k.startswith("[0]")}
    return obs, record.get("[1]")  # a reset's record has no reward


def _single_observation(record: dict, space: gymnasium.Space) -> Any:
    """The single env's observation of one record, in the shape of ``space`` (one array, a Dict
    by key or a Tuple)."""
    if "[0]" in record:
        return record["[0]"]
    if isinstance(space, gymnasium.spaces.Dict):
        return {key: record[f"[0].{key}"] for key in space.spaces}
    return tuple(record[f"[0][{i}]"] for i in range(len(space)))


def assert_front_ends_agree(task_id: str, steps: int, **kwargs) -> None:
    """The task makes and steps through every front end, and the gym and dm front ends give the
    observations and rewards of the gymnasium vector env (rewards in their own dtype), step by step; the
    single env (one env, its own actions) gives observations in the task's space."""
    vector = run(task_id, "gymnasium", steps, **kwargs)
    for front_end in ("gym", "dm"):
        for t, (a, b) in enumerate(zip(run(task_id, front_end, steps, **kwargs), vector, strict=True)):
            (obs, reward), (want_obs, want_reward) = _fields(front_end, a), _fields("gymnasium", b)
            assert obs.keys() == want_obs.keys(), (front_end, t)
            for key in obs:
                assert np.array_equal(obs[key], want_obs[key]), f"{task_id} {front_end} obs{key}, step {t}"
            if t and reward is not None:  # the gym front end's are float32, as the reference's
                assert np.array_equal(reward, np.asarray(want_reward).astype(reward.dtype)), (front_end, t)
    space = envpool.make_spec(task_id, **kwargs).observation_space
    for record in run(task_id, "single", steps, **kwargs):
        obs = _single_observation(record, space)
        assert space.contains(obs.item() if isinstance(obs, np.ndarray) and obs.shape == () else obs), obs
