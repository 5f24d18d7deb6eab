"""envpool.EnvRunner and envpool.Episode: exact step and episode counts, continuation across
calls, all autoreset modes, native and Python-env pools, full-batch and async, metrics against
gymnasium's RecordEpisodeStatistics, callback order, batching, pickling and bad input.

The oracle for trajectories is gymnasium's own CartPole-v1, one env per pool row, seeded as the
pool seeds it (env ``i`` with ``seed + i``, later resets continue its stream): envpool's CartPole
agrees with it bit for bit, and a policy that is a function of the observation makes every
env's trajectory independent of how the pool batches or orders its rows.
"""

from __future__ import annotations

import doctest
import importlib
import pickle

import gymnasium
import numpy as np
import pytest

import envpool
import envpool.runner

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


POOLS = [
    ("native", 4, 4),
    ("native", 6, 2),
    ("python", 4, 4),
    ("python", 4, 2),
]


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("kind,num_envs,batch_size", POOLS)
def test_chunks_continue_the_uninterrupted_trajectory(kind, num_envs, batch_size, mode):
    """Exact step counts per call, chunks that continue across calls, and trajectories equal to
    gymnasium's, in every autoreset mode, full batch and async, native and Python envs."""
    with make_pool(kind, num_envs, batch_size, mode) as envs:
        runner = envpool.EnvRunner(envs, policy)
        episodes = []
        total = 0
        for n in (1, 7, 37, 100, 3, 250):
            got = runner.sample(num_timesteps=n)
            assert sum(len(e) for e in got) == n
            assert runner.get_metrics()["num_env_steps_sampled"] == n
            # each env's episodes in time order: finished before the ongoing chunk
            for env in {e.env_id for e in got}:
                mine = [e for e in got if e.env_id == env]
                assert all(e.is_done for e in mine[:-1])
            episodes += got
            total += n
        assert runner.get_state()["num_env_steps_sampled_lifetime"] == total
    joined = join_chunks(episodes)
    assert sum(done is not None and done[0] for eps in joined.values() for *_, done in eps) > 0
    assert sum(done is not None and done[1] for eps in joined.values() for *_, done in eps) > 0
    check_against_reference(kind, joined, num_envs)


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("kind,num_envs,batch_size", POOLS)
def test_num_episodes_returns_exactly_that_many_complete_episodes(kind, num_envs, batch_size, mode):
    with make_pool(kind, num_envs, batch_size, mode) as envs:
        runner = envpool.EnvRunner(envs, policy)
        first = runner.sample(num_episodes=5)
        assert len(first) == 5 and all(e.is_done and e.t_started == 0 for e in first)
        # Each env's episodes are the reference's first ones (the envs start fresh).
        by_env = {}
        for ep in first:
            by_env.setdefault(ep.env_id, []).append(ep)
        for env, eps in by_env.items():
            ref = reference_episodes(kind, env, len(eps))
            for ep, (r_obs, r_act, r_rew, r_term, r_trunc) in zip(eps, ref):
                np.testing.assert_array_equal(ep.observations, r_obs)
                np.testing.assert_array_equal(ep.actions, r_act)
                np.testing.assert_array_equal(ep.rewards, r_rew)
                assert (ep.terminated, ep.truncated) == (r_term, r_trunc)
        metrics = runner.get_metrics()
        assert metrics["num_episodes"] == 5
        # every step taken counts, the dropped episodes' too
        assert metrics["num_env_steps_sampled"] >= sum(len(e) for e in first)
        # Then sampling timesteps starts fresh episodes (the dropped ones are not continued).
        later = runner.sample(num_timesteps=50)
        assert sum(len(e) for e in later) == 50 and all(e.t_started == 0 for e in later)
        assert not {e.id for e in later} & {e.id for e in first}
        assert len(runner.sample(num_episodes=1)) == 1


@pytest.mark.skipif(
    tuple(int(p) for p in gymnasium.__version__.split(".")[:2]) < (1, 4),
    reason="RecordEpisodeStatistics counts same-step autoreset episodes right only from gymnasium 1.4 "
    "(older releases treat the step after each end as a reset step)",
)
@pytest.mark.parametrize("kind", ["native", "python"])
def test_metrics_equal_record_episode_statistics(kind):
    """Episode returns and lengths equal those of gymnasium's RecordEpisodeStatistics on the same
    envs, seeds and policy (same-step autoreset on both sides: every vector step is num_envs
    env steps). The wrapped envs: the same native pool stepped in a plain loop; for Python envs,
    gymnasium's own SyncVectorEnv (seeded as make_python seeds its envs)."""
    num_envs, vector_steps = 4, 300
    if kind == "python":
        ref = gymnasium.vector.SyncVectorEnv(
            [lambda: gymnasium.make("CartPole-v1", max_episode_steps=LIMIT)] * num_envs,
            autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,
        )
    else:
        ref = make_pool("native", num_envs, num_envs, "same_step")
    ref = gymnasium.wrappers.vector.RecordEpisodeStatistics(ref)
    obs, _ = ref.reset(seed=SEED)
    returns, lengths = [], []
    for _ in range(vector_steps):
        obs, _, _, _, info = ref.step(policy(obs))
        if "episode" in info:
            mask = info["_episode"]
            returns += list(info["episode"]["r"][mask])
            lengths += list(info["episode"]["l"][mask])
    ref.close()
    assert len(returns) > 10

    with make_pool(kind, num_envs, num_envs, "same_step") as envs:
        runner = envpool.EnvRunner(envs, policy)
        runner.sample(num_timesteps=num_envs * vector_steps)
        m = runner.get_metrics()
    assert m["num_episodes"] == len(returns)
    assert m["episode_return_mean"] == pytest.approx(np.mean(returns))
    assert (m["episode_return_min"], m["episode_return_max"]) == (min(returns), max(returns))
    assert m["episode_len_mean"] == pytest.approx(np.mean(lengths))
    assert (m["episode_len_min"], m["episode_len_max"]) == (min(lengths), max(lengths))
    assert m["num_env_steps_sampled"] == m["num_env_steps_sampled_lifetime"] == num_envs * vector_steps
    assert m["num_env_steps_sampled_per_second"] > 0
    assert 0 < m["policy_time_s"] < m["sample_time_s"] and 0 < m["env_wait_time_s"] < m["sample_time_s"]


def test_metrics_cover_episodes_finished_since_the_last_call_across_chunks():
    with envpool.make("CartPole-v1", num_envs=2, seed=SEED, max_episode_steps=LIMIT) as envs:
        runner = envpool.EnvRunner(envs, policy)
        episodes = []
        for _ in range(20):
            episodes += runner.sample(num_timesteps=9)
        m = runner.get_metrics()
        joined = join_chunks(episodes)
        finished = [(r.sum(), len(a)) for eps in joined.values() for _, a, r, done in eps if done is not None]
        assert m["num_episodes"] == len(finished) > 0
        assert m["episode_return_mean"] == pytest.approx(np.mean([r for r, _ in finished]))
        assert m["episode_len_max"] == max(n for _, n in finished)
        m2 = runner.get_metrics()  # nothing since
        assert m2["num_episodes"] == 0 and m2["num_env_steps_sampled"] == 0 and np.isnan(m2["episode_return_mean"])
        assert m2["num_env_steps_sampled_lifetime"] == 180


class Recorder(envpool.RunnerCallbacks):
    def __init__(self):
        self.events = []

    def on_episode_created(self, *, episode, env_runner, env_index):
        assert len(episode.observations) == 0 and episode.env_id == env_index
        self.events.append(("created", episode.id, env_index))

    def on_episode_start(self, *, episode, env_runner, env_index):
        assert len(episode.observations) == 1 and len(episode) == 0
        self.events.append(("start", episode.id, env_index))

    def on_episode_step(self, *, episode, env_runner, env_index):
        assert len(episode.observations) == len(episode) + 1
        self.events.append(("step", episode.id, env_index))

    def on_episode_end(self, *, episode, env_runner, env_index):
        assert episode.is_done
        self.events.append(("end", episode.id, env_index))

    def on_sample_end(self, *, env_runner, samples):
        self.events.append(("sample_end", len(samples), sum(len(e) for e in samples)))


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("batch_size", [4, 2])
def test_callbacks_order_and_counts(mode, batch_size):
    rec = Recorder()
    with make_pool("native", 4, batch_size, mode) as envs:
        runner = envpool.EnvRunner(envs, policy, callbacks=[rec])
        samples = [runner.sample(num_timesteps=n) for n in (50, 77, 200)]
    # Per call: one on_sample_end, after everything else of the call, with the returned samples.
    ends = [i for i, e in enumerate(rec.events) if e[0] == "sample_end"]
    assert len(ends) == 3 and ends[-1] == len(rec.events) - 1
    assert [rec.events[i][1:] for i in ends] == [(len(s), sum(len(e) for e in s)) for s in samples]
    # Per episode id: created, start, steps..., end (chunks of one episode share one id).
    per_id: dict[str, list[str]] = {}
    for event in rec.events:
        if event[0] != "sample_end":
            per_id.setdefault(event[1], []).append(event[0])
    num_steps = num_ended = 0
    for seq in per_id.values():
        assert seq[0] == "created"
        body = seq[1:]
        if body:
            assert body[0] == "start"
            steps = body[1:]
            if steps and steps[-1] == "end":
                steps = steps[:-1]
                num_ended += 1
            assert set(steps) <= {"step"}
            num_steps += len(steps)
    assert num_steps == 327
    finished = [e for s in samples for e in s if e.is_done]
    assert num_ended == len(finished) > 0
    # Every env gets one episode at the start and a new one after each end.
    assert len(per_id) == 4 + num_ended
    # A steps' episode is the env's current one: events of one env never interleave ids.
    for env in range(4):
        ids = [e[1] for e in rec.events if e[0] != "sample_end" and e[2] == env]
        order = list(dict.fromkeys(ids))
        assert ids == sorted(ids, key=order.index)


def test_extras_and_time_major_batch():
    num_envs, T = 4, 60
    with envpool.make("CartPole-v1", num_envs=num_envs, seed=SEED, max_episode_steps=LIMIT) as envs:
        runner = envpool.EnvRunner(envs, policy_with_extras)
        runner.sample(num_timesteps=13)  # so that this call starts with continuation chunks
        episodes = runner.sample(num_timesteps=num_envs * T)
    for ep in episodes:
        np.testing.assert_array_equal(ep.extras["pole"], ep.observations[:-1, 2].astype(np.float64) * 2.0)
        np.testing.assert_array_equal(ep.actions, policy(ep.observations[:-1]))
    batch = envpool.episodes_to_batch(episodes)
    assert batch.observations.shape == (T, num_envs, 4) and batch.mask.all()
    assert batch.actions.shape == batch.rewards.shape == batch.dones.shape == (T, num_envs)
    np.testing.assert_array_equal(batch.env_ids, np.arange(num_envs))
    assert batch.rewards.sum() == sum(e.get_return() for e in episodes)
    assert batch.terminated.sum() == sum(e.terminated for e in episodes)
    assert batch.truncated.sum() == sum(e.truncated for e in episodes)
    assert batch.dones.sum() == len(episodes)
    assert batch.dones[-1].all()  # every column ends with a cut chunk or an episode end
    np.testing.assert_array_equal(batch.extras["pole"], batch.observations[..., 2].astype(np.float64) * 2.0)
    # The next observation of (t, b): observations[t + 1, b], or the bootstrap one at a cut.
    boot = {(int(t), int(b)): i for i, (t, b) in enumerate(zip(batch.bootstrap_t, batch.bootstrap_b))}
    assert len(boot) == sum(not e.terminated for e in episodes)
    for ep in episodes:
        b = int(np.flatnonzero(batch.env_ids == ep.env_id)[0])
        rows = [t for t in range(T) if batch.dones[t, b]]
        # this episode's last step is one of its column's done rows; find it by its obs
        for t in rows:
            if (t, b) in boot and np.array_equal(batch.bootstrap_observations[boot[(t, b)]], ep.observations[-1]):
                break
        else:
            assert ep.terminated
    # Columns of unequal length are padded at the end, and the mask says where.
    subset = episodes[:1] + [e for e in episodes if e.env_id != episodes[0].env_id]
    short = envpool.episodes_to_batch(subset)
    b0 = int(np.flatnonzero(short.env_ids == episodes[0].env_id)[0])
    assert short.mask[:, b0].sum() == len(episodes[0]) < T
    assert not short.mask[len(episodes[0]) :, b0].any() and short.rewards[~short.mask].sum() == 0
    assert short.mask.sum() == sum(len(e) for e in subset)


def test_next_observation_in_batch_is_the_episode_next_observation():
    with envpool.make("CartPole-v1", num_envs=3, seed=SEED, max_episode_steps=LIMIT) as envs:
        episodes = envpool.EnvRunner(envs, policy).sample(num_timesteps=3 * 50)
    batch = envpool.episodes_to_batch(episodes)
    # Rebuild each column's next-observation sequence and compare with the episodes' own.
    for b, env in enumerate(batch.env_ids):
        nxt = []
        boot = {int(t): i for i, (t, bb) in enumerate(zip(batch.bootstrap_t, batch.bootstrap_b)) if bb == b}
        for t in range(batch.mask[:, b].sum()):
            if not batch.dones[t, b]:
                nxt.append(batch.observations[t + 1, b])
            elif batch.terminated[t, b]:
                nxt.append(None)
            else:
                nxt.append(batch.bootstrap_observations[boot[t]])
        expected = []
        for ep in (e for e in episodes if e.env_id == env):
            expected += list(ep.observations[1:-1]) + [None if ep.terminated else ep.observations[-1]]
        assert len(nxt) == len(expected)
        for got, want in zip(nxt, expected):
            assert (got is None) == (want is None)
            if got is not None:
                np.testing.assert_array_equal(got, want)


def test_random_actions_are_seeded_and_force_reset_starts_new_episodes():
    def run(seed):
        with envpool.make("CartPole-v1", num_envs=3, seed=SEED) as envs:
            runner = envpool.EnvRunner(envs, seed=seed)
            return np.concatenate([e.actions for e in runner.sample(num_timesteps=90)])

    np.testing.assert_array_equal(run(1), run(1))
    assert not np.array_equal(run(1), run(2))
    with envpool.make("CartPole-v1", num_envs=3, batch_size=1, seed=SEED) as envs:
        runner = envpool.EnvRunner(envs, policy, seed=0)
        before = runner.sample(num_timesteps=10, random_actions=True)
        assert sum(len(e) for e in before) == 10
        after = runner.sample(num_timesteps=30, force_reset=True)
        assert sum(len(e) for e in after) == 30
        assert all(e.t_started == 0 for e in after) and not {e.id for e in after} & {e.id for e in before}
        # after the forced reset each env starts from its reset obs: continue the reference
        # stream (env i's second reset; its first episode was cut)
        for ep in after:
            np.testing.assert_array_equal(ep.actions, policy(ep.observations[:-1]))


def test_episodes_pickle():
    with envpool.make("CartPole-v1", num_envs=2, seed=SEED) as envs:
        episodes = envpool.EnvRunner(envs, policy_with_extras).sample(num_timesteps=30)
    for ep in episodes:
        back = pickle.loads(pickle.dumps(ep))
        assert (back.id, back.env_id, back.t_started, back.terminated, back.truncated) == (
            ep.id,
            ep.env_id,
            ep.t_started,
            ep.terminated,
            ep.truncated,
        )
        np.testing.assert_array_equal(back.observations, ep.observations)
        np.testing.assert_array_equal(back.extras["pole"], ep.extras["pole"])
        assert len(back) == len(ep) and back.get_return() == ep.get_return()


def test_state_round_trip():
    with envpool.make("CartPole-v1", num_envs=2, seed=SEED) as envs:
        runner = envpool.EnvRunner(envs, policy)
        runner.sample(num_timesteps=500)
        state = runner.get_state()
        assert state["num_env_steps_sampled_lifetime"] == 500 and state["num_episodes_lifetime"] > 0
        other = envpool.EnvRunner(envs, policy)
        other.set_state(pickle.loads(pickle.dumps(state)))
        assert other.get_state() == state
        with pytest.raises(ValueError, match="unknown keys"):
            other.set_state({"bogus": 1})
        with pytest.raises(TypeError):
            other.set_state([1])


@pytest.mark.parametrize("batch_size", [3, 1])
def test_bad_input_raises_and_the_runner_stays_usable(batch_size):
    with envpool.make("CartPole-v1", num_envs=3, batch_size=batch_size, seed=SEED) as envs:
        runner = envpool.EnvRunner(envs, policy)
        for kwargs in (
            {},
            {"num_timesteps": 5, "num_episodes": 1},
            {"num_timesteps": 0},
            {"num_episodes": -1},
            {"num_timesteps": 2.5},
        ):
            with pytest.raises(ValueError, match="num_"):
                runner.sample(**kwargs)
        taken = sum(len(e) for e in runner.sample(num_timesteps=10))
        good = runner.policy
        runner.policy = lambda obs: np.zeros(len(obs) + 1, np.int64)
        with pytest.raises(ValueError, match="policy returned"):
            runner.sample(num_timesteps=10)
        runner.policy = lambda obs: (np.zeros(len(obs), np.int64), {"v": np.zeros(len(obs) + 2)})
        with pytest.raises(ValueError, match=r"extras\['v'\]"):
            runner.sample(num_timesteps=10)
        runner.policy = good
        episodes = runner.sample(num_timesteps=40)
        # The failed calls' steps (rows received before the policy raised) come back now.
        lifetime = runner.get_state()["num_env_steps_sampled_lifetime"]
        assert sum(len(e) for e in episodes) == lifetime - taken >= 40
        assert lifetime - taken - 40 < 3  # at most the rows of one held batch
        for ep in episodes:
            np.testing.assert_array_equal(ep.actions, policy(ep.observations[:-1]))
    with pytest.raises(TypeError, match="gymnasium front end"):
        envpool.EnvRunner(object())
    with envpool.make("CartPole-v1", num_envs=1) as envs:
        with pytest.raises(TypeError, match="policy must be callable"):
            envpool.EnvRunner(envs, policy=3)
        with pytest.raises(TypeError, match="none of the methods"):
            envpool.EnvRunner(envs, callbacks=object())


@pytest.mark.parametrize("module", ["", ".episodes", ".callbacks", ".env_runner", ".packed"])
def test_docstring_examples(module):
    result = doctest.testmod(
        importlib.import_module("envpool.runner" + module), optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("batch_size", [3, 1])
def test_env_failure_is_reported_and_nothing_else_is_lost(mode, batch_size):
    """StepCounter's env 0 throws from step() at its 7th, 14th, ... step: sample() raises
    envpool.EnvError naming it, keeps the batch, and the next calls go on; every step the
    runner counted is in the returned episodes, and the failed episodes end truncated."""
    with envpool.make(
        "StepCounter-v0",
        num_envs=3,
        batch_size=batch_size,
        seed=0,
        autoreset_mode=mode,
        terminate_at=[0, 5, 0],
        fail_at=[7, 0, 0],
    ) as envs:
        runner = envpool.EnvRunner(envs, lambda obs: np.ones(len(obs), np.int64))
        episodes, errors = [], 0
        for _ in range(12):
            try:
                episodes += runner.sample(num_timesteps=5)
            except envpool.EnvError as err:
                errors += 1
                assert err.env_ids == [0]
        assert errors >= 2
        lifetime = runner.get_state()["num_env_steps_sampled_lifetime"]
        assert sum(len(e) for e in episodes) == lifetime
        env0 = [e for e in episodes if e.env_id == 0 and e.is_done]
        assert env0 and all(e.truncated and not e.terminated for e in env0)
        env1 = [e for e in episodes if e.env_id == 1 and e.is_done]
        assert env1 and all(e.terminated and len(e) + e.t_started == 5 for e in env1)
        # every step of env 1 (which never fails) is there, in order: obs[0] counts its steps
        for ep in (e for e in episodes if e.env_id == 1):
            np.testing.assert_array_equal(ep.observations[:, 0], np.arange(ep.t_started, ep.t_started + len(ep) + 1))


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("batch_size", [2, 1])
def test_keep_infos_gives_each_observation_its_info(mode, batch_size):
    """StepCounter's info["total_steps"] counts the env's steps over all episodes and its
    observation[0] the episode's: each kept info must belong to its observation."""
    with envpool.make(
        "StepCounter-v0", num_envs=2, batch_size=batch_size, seed=0, autoreset_mode=mode, terminate_at=[3, 4]
    ) as envs:
        runner = envpool.EnvRunner(envs, lambda obs: np.ones(len(obs), np.int64), keep_infos=True)
        episodes = runner.sample(num_timesteps=7) + runner.sample(num_timesteps=20)
    assert sum(len(e) for e in episodes) == 27
    for ep in episodes:
        assert len(ep.infos) == len(ep) + 1
        steps = [info["total_steps"] for info in ep.infos]
        assert steps == list(range(steps[0], steps[0] + len(ep) + 1))  # one per step, in order
        np.testing.assert_array_equal(ep.observations[:, 0], np.arange(ep.t_started, ep.t_started + len(ep) + 1))
        assert all(info["env_id"] == ep.env_id for info in ep.infos)  # native pools' infos name each row's env
    finished = [e for e in episodes if e.is_done]
    assert finished
    if batch_size < 2:
        assert all(e.infos[-1]["elapsed_step"] == e.t_started + len(e) for e in finished)


@pytest.mark.parametrize("batch_size", [2, 1])
def test_interrupted_sample_loses_no_step(batch_size):
    """Ctrl-C (here: SIGALRM raising KeyboardInterrupt) while the pool steps: sample() raises,
    the pool keeps the batch for the next recv(), and so the next sample() goes on with every
    step in order (StepCounter's observation[0] counts the episode's steps)."""
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        with envpool.make("StepCounter-v0", num_envs=2, batch_size=batch_size, seed=0, step_sleep_us=100_000) as envs:
            runner = envpool.EnvRunner(envs, lambda obs: np.ones(len(obs), np.int64))
            episodes = runner.sample(num_timesteps=2)
            signal.setitimer(signal.ITIMER_REAL, 0.03)
            with pytest.raises(KeyboardInterrupt):
                runner.sample(num_timesteps=4)
            signal.setitimer(signal.ITIMER_REAL, 0)
            episodes += runner.sample(num_timesteps=4)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert sum(len(e) for e in episodes) == runner.get_state()["num_env_steps_sampled_lifetime"] >= 6
    for env in (0, 1):
        chunks = [e for e in episodes if e.env_id == env]
        assert [e.t_started for e in chunks] == sorted(e.t_started for e in chunks)
        obs = np.concatenate([chunks[0].observations[:1]] + [e.observations[1:] for e in chunks])
        np.testing.assert_array_equal(obs[:, 0], np.arange(len(obs)))


class _StepHook:
    """An ``on_episode_step`` callback that does nothing: with it the runner takes the rows into
    the episodes one by one (``EpisodeRecorder``), without it whole batches at a time
    (``ColumnRecorder``)."""

    def on_episode_step(self, *, episode, env_runner, env_index):
        pass


class _NestedCartPole(gymnasium.ObservationWrapper):
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


def _same_episode(a, b, ids: dict) -> None:
    assert (a.env_id, a.t_started, len(a), a.terminated, a.truncated) == (
        b.env_id,
        b.t_started,
        len(b),
        b.terminated,
        b.truncated,
    ), f"{a!r} vs {b!r}"
    assert ids.setdefault(a.id, b.id) == b.id, "chunks of one episode must share one id"
    for x, y in zip(_leaves(a.observations), _leaves(b.observations)):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a.actions, b.actions)
    assert a.actions.dtype == b.actions.dtype and a.rewards.dtype == b.rewards.dtype == np.float64
    np.testing.assert_array_equal(a.rewards, b.rewards)
    assert a.extras.keys() == b.extras.keys()
    for k in a.extras:
        np.testing.assert_array_equal(a.extras[k], b.extras[k])


def _leaves(tree):
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in _leaves(tree[k])]
    if isinstance(tree, tuple):
        return [x for v in tree for x in _leaves(v)]
    return [np.asarray(tree)]


def _twin_runs(kind: str, num_envs: int, batch_size: int, mode: str, calls: list[dict]) -> list[tuple]:
    """The same calls by a runner with each recorder, on twin pools: (samples per call,
    metrics, state), whole batches first."""
    kwargs = dict(num_envs=num_envs, batch_size=batch_size, seed=SEED, autoreset_mode=mode)
    results = []
    for hooks in (None, _StepHook()):
        if kind == "native":
            envs = envpool.make("CartPole-v1", max_episode_steps=LIMIT, **kwargs)
        else:
            envs = envpool.make_python(_NestedCartPole, num_workers=2, **kwargs)
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
    ids: dict = {}
    for call, a, b in zip(calls, columns, rows):
        assert len(a) == len(b), call
        for x, y in zip(a, b):
            _same_episode(x, y, ids)
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
    env = _NestedCartPole()
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
            flat = np.concatenate([x.reshape(len(x), -1) for x in _leaves(ep.observations)], 1)
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


@pytest.mark.parametrize("kind", ["native", "nested"])
def test_packed_episodes_travel_whole(kind):
    """PackedEpisodes (how RunnerGroup's runners send episodes): pickled and unpacked, every
    episode comes back with every field, also nested observations, steps without extras
    (random actions) and kept infos."""
    from envpool.runner.packed import PackedEpisodes

    kwargs = dict(num_envs=3, seed=SEED)
    if kind == "native":
        envs = envpool.make("CartPole-v1", max_episode_steps=LIMIT, **kwargs)
    else:
        envs = envpool.make_python(_NestedCartPole, num_workers=2, **kwargs)
    with envs:
        runner = envpool.EnvRunner(envs, nested_policy, keep_infos=kind == "native")
        episodes = runner.sample(num_timesteps=40, random_actions=True)  # chunks without extras
        episodes += runner.sample(num_timesteps=90)
    packed = pickle.loads(pickle.dumps(PackedEpisodes(episodes)))
    back = packed.unpack()
    assert len(packed) == len(back) == len(episodes) > 3
    assert any(not e.extras for e in episodes) and any(e.extras for e in episodes)
    ids: dict = {}
    for a, b in zip(episodes, back):
        assert a.id == b.id
        _same_episode(a, b, ids)
        assert len(a.infos) == len(b.infos) and all(x.keys() == y.keys() for x, y in zip(a.infos, b.infos))
    assert PackedEpisodes([]).unpack() == []
