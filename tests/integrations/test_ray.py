"""envpool.ray.RunnerGroup on a local Ray (2 CPUs): sampling, tagging, weights, metrics, a runner
killed mid-sample. Needs ray: skipped without it; scripts/ci_ray.sh runs it for real. The
multi-node test (a node killed mid-sample) is tests/integrations/test_ray_cluster.py."""

import sys
import threading
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="needs ray (pip install 'envpool-ng[ray]'; scripts/ci_ray.sh)")
if not hasattr(ray, "remote"):  # a folder named ray on sys.path (e.g. Ray's /tmp/ray from the cwd)
    pytest.skip(f"'ray' here is not Ray: {ray.__path__}", allow_module_level=True)

import envpool  # noqa: E402
import envpool.ray  # noqa: E402

pytestmark = pytest.mark.integration

# Policies defined here travel to the runner actors by value (the workers cannot import this file).
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


class ConstantPolicy:
    """Always the action it was last given by set_weights; sleeps a little per batch so that a
    sample() call lasts long enough to kill a runner during it."""

    def __init__(self, action=0, delay=0.0):
        self.action = action
        self.delay = delay

    def __call__(self, obs):
        if self.delay:
            time.sleep(self.delay)
        return np.full(len(obs), self.action, dtype=np.int64), {"weights": np.full(len(obs), self.action)}

    def set_weights(self, weights):
        self.action = int(weights["action"])


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def steps(episodes):
    return sum(len(e) for e in episodes)


def test_sample_splits_over_runners_and_tags_episodes(local_ray):
    with envpool.ray.RunnerGroup("CartPole-v1", num_runners=2, num_envs=4, seed=3) as group:
        first = group.sample(num_timesteps=1001)
        assert steps(first) == 1001
        by_runner = {r: steps([e for e in first if e.runner == r]) for r in (0, 1)}
        assert by_runner == {0: 501, 1: 500}
        assert all(isinstance(e, envpool.ray.RunnerEpisode) for e in first)
        # Ongoing episodes continue in the next call: same id, next t_started, first obs = last obs.
        ongoing = {e.id: e for e in first if not e.is_done}
        assert 4 <= len(ongoing) <= 8  # one per env, unless its episode ended on the last step
        second = group.sample(num_timesteps=400)
        cont = [e for e in second if e.id in ongoing]
        assert len(cont) == len(ongoing)
        for e in cont:
            prev = ongoing[e.id]
            assert e.runner == prev.runner and e.env_id == prev.env_id
            assert e.t_started == prev.t_started + len(prev)
            np.testing.assert_array_equal(e.observations[0], prev.observations[-1])
        # Every (runner, env) samples its own episodes: no two runners start alike.
        starts = {(e.runner, e.env_id): e.observations[0].tobytes() for e in first if e.t_started == 0}
        assert len(set(starts.values())) == len(starts)
        episodes = group.sample(num_episodes=7)
        assert len(episodes) == 7 and all(e.is_done for e in episodes)
        assert sorted({e.runner for e in episodes}) == [0, 1]


def test_metrics_merge_over_runners(local_ray):
    with envpool.ray.RunnerGroup("CartPole-v1", num_runners=2, num_envs=4, seed=0) as group:
        episodes = group.sample(num_timesteps=2000)
        m = group.get_metrics()
        done = [e for e in episodes if e.is_done]
        assert m["num_env_steps_sampled"] == 2000 and m["num_episodes"] == len(done)
        assert m["episode_return_mean"] == pytest.approx(np.mean([e.get_return() for e in done]))
        assert m["episode_len_max"] == max(len(e) for e in done)  # all started in this first call
        assert m["num_healthy_runners"] == 2
        # Since the last call only.
        assert group.get_metrics()["num_env_steps_sampled"] == 0


def test_set_weights_reaches_every_runner(local_ray):
    with envpool.ray.RunnerGroup("CartPole-v1", num_runners=2, policy=ConstantPolicy(0), num_envs=2) as group:
        assert all((e.actions == 0).all() for e in group.sample(num_timesteps=100))
        group.set_weights({"action": 1})
        episodes = group.sample(num_timesteps=100)
        assert {e.runner for e in episodes} == {0, 1}
        assert all((e.actions == 1).all() and (e.extras["weights"] == 1).all() for e in episodes)


def test_python_env_pool(local_ray):
    with envpool.ray.RunnerGroup("CartPole-v1", num_runners=2, python=True, num_envs=2, context="forkserver") as group:
        episodes = group.sample(num_timesteps=200)
        assert steps(episodes) == 200 and {e.runner for e in episodes} == {0, 1}
        assert group.get_metrics()["num_env_steps_sampled"] == 200


def test_bad_arguments_are_refused(local_ray):
    with pytest.raises(ValueError, match="num_runners"):
        envpool.ray.RunnerGroup("CartPole-v1", num_runners=0)
    with pytest.raises(ValueError, match="without 'envpool/'"):
        envpool.ray.RunnerGroup("envpool/CartPole-v1")
    with pytest.raises(ValueError, match="not an envpool task"):
        envpool.ray.RunnerGroup("NoSuchTask-v0", python=False)
    with pytest.raises(RuntimeError, match="could not start") as err:
        envpool.ray.RunnerGroup("CartPole-v1", num_runners=1, no_such_kwarg=1)
    assert "no_such_kwarg" in str(err.value)
    with envpool.ray.RunnerGroup("CartPole-v1", num_runners=1) as group:
        with pytest.raises(ValueError, match="exactly one"):
            group.sample()
        with pytest.raises(TypeError, match="set_weights"):
            group.set_weights({})
    with pytest.raises(RuntimeError, match="stopped"):
        group.sample(num_timesteps=1)


def test_a_runner_killed_mid_sample_is_replaced_and_nothing_is_duplicated(local_ray):
    policy = ConstantPolicy(0, delay=0.002)
    with envpool.ray.RunnerGroup("CartPole-v1", num_runners=2, policy=policy, num_envs=2, max_restarts=2) as group:
        group.set_weights({"action": 1})
        victim = group._actors[1]
        killer = threading.Timer(1.0, lambda: ray.kill(victim, no_restart=False))
        killer.start()
        t0 = time.monotonic()
        # 3000 steps per runner, 2 envs each, 2 ms per batch: >= 3 s, the kill comes at 1 s.
        episodes = group.sample(num_timesteps=6000, timeout=120)
        killer.join()
        assert time.monotonic() - t0 > 1.0  # the kill happened during the call
        assert 1 in group.last_dead
        assert steps(episodes) == 6000  # completed by the survivor
        assert {e.runner for e in episodes} == {0}
        keys = [(e.id, e.t_started) for e in episodes]
        assert len(keys) == len(set(keys))
        # The restarted runner: a fresh seed (not the episodes it had already sampled) and the
        # latest weights.
        later = group.sample(num_timesteps=400, timeout=120)
        assert {e.runner for e in later} == {0, 1}
        assert all((e.actions == 1).all() for e in later)
        assert not {e.id for e in later if e.runner == 1} & {e.id for e in episodes}
        assert group.get_metrics()["num_healthy_runners"] == 2


def test_docstring_examples():
    import doctest

    result = doctest.testmod(envpool.ray, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
