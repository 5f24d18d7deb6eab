"""The runner's two recorders (whole batches, ColumnRecorder; row by row, EpisodeRecorder, when an
on_episode_step callback needs each row): the same episodes from twin pools, and each env's own
trajectory from async pools, with either."""

from __future__ import annotations

import numpy as np
import pytest

import envpool

from .oracle import LIMIT, SEED, NestedCartPole, StepHook, leaves, nested_policy, reference_episodes, same_samples


def _twin_runs(kind: str, num_envs: int, batch_size: int, mode: str, calls: list[dict]) -> list[tuple]:
    """The same calls by a runner with each recorder, on twin pools: (samples per call,
    metrics, state), whole batches first."""
    kwargs = dict(num_envs=num_envs, batch_size=batch_size, seed=SEED, autoreset_mode=mode)
    results = []
    for hooks in (None, StepHook()):
        if kind == "native":
            envs = envpool.make("CartPole-v1", max_episode_steps=LIMIT, **kwargs)
        else:
            envs = envpool.make_python(NestedCartPole, num_workers=2, **kwargs)
        with envs:
            runner = envpool.EnvRunner(envs, nested_policy, callbacks=hooks, seed=1)
            expected = "EpisodeRecorder" if hooks else "ColumnRecorder"
            assert type(runner._recorder).__name__ == expected
            out = [runner.sample(**call) for call in calls]
            results.append((out, runner.get_metrics(), runner.get_state()))
    return results


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize("kind,num_envs", [("native", 5), ("nested", 4)])
def test_whole_batch_and_row_by_row_bookkeeping_give_the_same_episodes(kind, num_envs, mode):
    """The runner's two recorders on twin full-batch pools: the same episodes in the same order
    (every field, chunk ids consistent), the same metrics, over calls that cut chunks
    mid-batch, stop at an episode count, mix in random actions (steps without extras) and
    force resets."""
    calls = [
        dict(num_timesteps=37),
        dict(num_timesteps=50, random_actions=True),
        dict(num_episodes=3),
        dict(num_timesteps=101),
        dict(num_timesteps=64, force_reset=True),
        dict(num_timesteps=num_envs * 11),
    ]
    runs = _twin_runs(kind, num_envs, num_envs, mode, calls)
    (columns, col_metrics, col_state), (rows, row_metrics, row_state) = runs
    same_samples(calls, columns, rows)
    for call, a in zip(calls, columns):
        assert sum(e.is_done for e in a) >= (3 if "num_episodes" in call else 0)
    assert col_state == row_state
    for key in ("episode_return_mean", "episode_len_mean", "episode_len_max", "num_episodes", "num_env_steps_sampled"):
        assert col_metrics[key] == row_metrics[key], key


def _reference_trajectory(kind: str, env_id: int, num_steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Env ``env_id``'s observations (flattened, each episode's first to its last) and actions
    under ``nested_policy``, stepped alone for at least ``num_steps`` steps."""
    if kind == "native":
        episodes = reference_episodes("native", env_id, num_steps // 8 + 2)  # >= 8 steps each
        return np.concatenate([e[0] for e in episodes]), np.concatenate([e[1] for e in episodes])
    env = NestedCartPole()
    flat = lambda o: np.concatenate([o["cart"], o["pole"][0]])  # noqa: E731
    obs, _ = env.reset(seed=SEED + env_id)
    observations, actions = [flat(obs)], []
    while len(actions) < num_steps:
        action = int(nested_policy({"cart": obs["cart"][None], "pole": (obs["pole"][0][None],)})[0][0])
        obs, _, terminated, truncated, _ = env.step(action)
        observations.append(flat(obs))
        actions.append(action)
        if terminated or truncated:
            obs, _ = env.reset()
            observations.append(flat(obs))
    env.close()
    return np.array(observations), np.array(actions)


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize("kind,num_envs,batch_size", [("native", 6, 3), ("nested", 4, 2)])
def test_async_pools_give_each_env_its_own_trajectory_with_either_bookkeeping(kind, num_envs, batch_size, mode):
    """Async pools batch envs as they finish (which envs step how often depends on timing: on 2
    cores a worker can go unscheduled for milliseconds), so each env's episodes, joined in the
    order returned, are held to that env stepped alone with the same policy and seed, for both
    recorders: observations (nested ones flattened), actions, and the policy's extras."""
    for runs in _twin_runs(kind, num_envs, batch_size, mode, [dict(num_timesteps=90)] * 2):
        per_env: dict[int, tuple[list, list, list]] = {}
        for ep in (e for call in runs[0] for e in call):  # each env's episodes in time order
            obs, actions, extras = per_env.setdefault(ep.env_id, ([], [], []))
            flat = np.concatenate([x.reshape(len(x), -1) for x in leaves(ep.observations)], 1)
            obs.extend(flat if ep.t_started == 0 else flat[1:])  # a continuation repeats its first obs
            actions.extend(ep.actions)
            extras.extend(ep.extras["angle"])
        assert sum(len(a) for _, a, _ in per_env.values()) == 180
        for env, (obs, actions, extras) in per_env.items():
            ref_obs, ref_actions = _reference_trajectory(kind, env, len(actions))
            np.testing.assert_array_equal(np.asarray(obs), ref_obs[: len(obs)], err_msg=f"env {env}")
            np.testing.assert_array_equal(np.asarray(actions), ref_actions[: len(actions)])
            angle = np.asarray(obs)[:-1, 2] if len(obs) else np.zeros(0)
            # extras: the angle of the observation each action was taken in (not after an ended
            # episode's last observation, which no action follows)
            assert len(extras) == len(actions) and np.all(np.isin(np.asarray(extras, np.float32), angle))
