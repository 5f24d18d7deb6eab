"""EnvRunner under bad input, env failures and Ctrl-C: an exception that says what, no step lost,
and the runner stays usable."""

from __future__ import annotations

import numpy as np
import pytest

import envpool

from .oracle import SEED, policy


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
