"""What the runner tests hold episodes to: CartPole policies and pools, and each env's episodes
stepped alone (the oracle).

The oracle for trajectories is gymnasium's own CartPole-v1, one env per pool row, seeded as the
pool seeds it (env ``i`` with ``seed + i``, later resets continue its stream): envpool's CartPole
agrees with it bit for bit, and a policy that is a function of the observation makes every
env's trajectory independent of how the pool batches or orders its rows.
"""

from __future__ import annotations

import gymnasium
import numpy as np

import envpool

SEED = 3
LIMIT = 40  # time limit: this policy both terminates and truncates episodes within it


def policy(obs):
    return (obs[:, 2] > 0).astype(np.int64)


def policy_with_extras(obs):
    # extras: a per-row value that can be checked against the step's observation
    return policy(obs), {"pole": obs[:, 2].astype(np.float64) * 2.0}


def make_pool(kind: str, num_envs: int, batch_size: int, mode: str = "next_step"):
    kwargs = dict(num_envs=num_envs, batch_size=batch_size, seed=SEED, max_episode_steps=LIMIT, autoreset_mode=mode)
    if kind == "native":
        return envpool.make("CartPole-v1", **kwargs)
    return envpool.make_python("CartPole-v1", num_workers=2, **kwargs)


class _OneNativeEnv:
    """Env ``env_id`` of a native pool, alone: a one-env pool seeded as the pool seeds that env,
    stepped in a plain loop (autoreset disabled: it resets only when told, continuing its
    random stream as the pool's env does)."""

    def __init__(self, env_id: int):
        self.pool = envpool.make(
            "CartPole-v1", num_envs=1, seed=SEED + env_id, max_episode_steps=LIMIT, autoreset_mode="disabled"
        )

    def reset(self, seed=None):
        return self.pool.reset()[0][0], {}

    def step(self, action):
        obs, rew, term, trunc, _ = self.pool.step(np.array([action]))
        return obs[0], rew[0], bool(term[0]), bool(trunc[0]), {}

    def close(self):
        self.pool.close()


def reference_episodes(kind: str, env_id: int, num_episodes: int):
    """The first episodes env ``env_id`` runs under ``policy``, stepped alone in a plain loop:
    for Python-env pools gymnasium's own CartPole seeded as make_python seeds it, for native
    pools a one-env native pool seeded as the pool seeds env ``env_id``."""
    if kind == "python":
        env = gymnasium.make("CartPole-v1", max_episode_steps=LIMIT)
    else:
        env = _OneNativeEnv(env_id)
    obs, _ = env.reset(seed=SEED + env_id)
    episodes = []
    for _ in range(num_episodes):
        observations, actions, rewards = [obs], [], []
        while True:
            action = int(policy(obs[None])[0])
            obs, reward, terminated, truncated, _ = env.step(action)
            observations.append(obs)
            actions.append(action)
            rewards.append(reward)
            if terminated or truncated:
                break
        episodes.append((np.array(observations), np.array(actions), np.array(rewards), terminated, truncated))
        obs, _ = env.reset()
    env.close()
    return episodes


def join_chunks(episodes):
    """Per env, its episodes in order, each the concatenation of its chunks (chunks must share
    the id, follow each other's step counts and start with the previous chunk's last obs)."""
    per_env: dict[int, list[dict]] = {}
    by_id: dict[str, dict] = {}
    for ep in episodes:
        assert len(ep) == len(ep.actions) == len(ep.rewards) == len(ep.observations) - 1 >= 1
        joined = by_id.get(ep.id)
        if joined is None:
            assert ep.t_started == 0, f"first chunk of {ep!r} has t_started {ep.t_started}"
            joined = {"obs": [ep.observations], "actions": [ep.actions], "rewards": [ep.rewards], "done": None}
            by_id[ep.id] = joined
            per_env.setdefault(ep.env_id, []).append(joined)
        else:
            assert joined["done"] is None, "a chunk after the episode ended"
            assert ep.t_started == sum(len(a) for a in joined["actions"])
            np.testing.assert_array_equal(ep.observations[0], joined["obs"][-1][-1])
            joined["obs"].append(ep.observations[1:])
            joined["actions"].append(ep.actions)
            joined["rewards"].append(ep.rewards)
        if ep.is_done:
            joined["done"] = (ep.terminated, ep.truncated)
    out = {}
    for env, eps in per_env.items():
        out[env] = [
            (np.concatenate(j["obs"]), np.concatenate(j["actions"]), np.concatenate(j["rewards"]), j["done"])
            for j in eps
        ]
    return out


def check_against_reference(kind: str, joined: dict[int, list], num_envs: int) -> None:
    for env, eps in joined.items():
        assert 0 <= env < num_envs
        ref = reference_episodes(kind, env, len(eps))
        for k, ((obs, actions, rewards, done), (r_obs, r_act, r_rew, r_term, r_trunc)) in enumerate(zip(eps, ref)):
            n = len(actions)
            if done is None:  # the ongoing last episode: a prefix of the reference
                assert k == len(eps) - 1 and n <= len(r_act)
            else:
                assert done == (r_term, r_trunc) and n == len(r_act), f"env {env} episode {k}"
            np.testing.assert_array_equal(obs, r_obs[: n + 1], err_msg=f"env {env} episode {k}")
            np.testing.assert_array_equal(actions, r_act[:n])
            np.testing.assert_array_equal(rewards, r_rew[:n])


class NestedCartPole(gymnasium.ObservationWrapper):
    """CartPole with a Dict-of-Tuple observation, for the runner's handling of nested rows."""

    def __init__(self):
        super().__init__(gymnasium.make("CartPole-v1", max_episode_steps=LIMIT))
        box = gymnasium.spaces.Box(-np.inf, np.inf, (2,), np.float32)
        self.observation_space = gymnasium.spaces.Dict({"cart": box, "pole": gymnasium.spaces.Tuple((box,))})

    def observation(self, obs):
        return {"cart": obs[:2], "pole": (obs[2:],)}


def nested_policy(obs):
    angle = obs["pole"][0][:, 0] if isinstance(obs, dict) else obs[:, 2]
    actions = (angle > 0).astype(np.int64)
    return actions, {"angle": np.asarray(angle, np.float64)}


def same_episode(a, b, ids: dict) -> None:
    assert (a.env_id, a.t_started, len(a), a.terminated, a.truncated) == (
        b.env_id,
        b.t_started,
        len(b),
        b.terminated,
        b.truncated,
    ), f"{a!r} vs {b!r}"
    assert ids.setdefault(a.id, b.id) == b.id, "chunks of one episode must share one id"
    for x, y in zip(leaves(a.observations), leaves(b.observations)):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a.actions, b.actions)
    assert a.actions.dtype == b.actions.dtype and a.rewards.dtype == b.rewards.dtype == np.float64
    np.testing.assert_array_equal(a.rewards, b.rewards)
    assert a.extras.keys() == b.extras.keys()
    for k in a.extras:
        np.testing.assert_array_equal(a.extras[k], b.extras[k])


class StepHook:
    """An ``on_episode_step`` callback that does nothing: with it the runner takes the rows into
    the episodes one by one (``EpisodeRecorder``), without it whole batches at a time
    (``ColumnRecorder``)."""

    def on_episode_step(self, *, episode, env_runner, env_index):
        pass


def same_samples(calls: list[dict], a: list, b: list) -> None:
    """Two runners' samples of the same ``calls`` (one list of episodes per call): the same
    episodes in the same order (``same_episode``, chunk ids consistent) with equal returns."""
    ids: dict = {}
    for call, first, second in zip(calls, a, b):
        assert len(first) == len(second), call
        for x, y in zip(first, second):
            same_episode(x, y, ids)
            assert x.get_return() == y.get_return()


def leaves(tree):
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in leaves(tree[k])]
    if isinstance(tree, tuple):
        return [x for v in tree for x in leaves(v)]
    return [np.asarray(tree)]
