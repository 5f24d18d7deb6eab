"""EnvRunner.get_metrics: against gymnasium's RecordEpisodeStatistics, and episodes finished
since the last call across chunks."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import envpool

from .oracle import LIMIT, SEED, join_chunks, make_pool, policy


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
