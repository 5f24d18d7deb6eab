"""Pool sources (envpool.frontends.sources): each opens a pool the front ends drive, a front end
built from a source behaves as one built from a task id, and what is not a source is refused."""

from __future__ import annotations

import inspect
import threading

import gymnasium
import numpy as np
import pytest

import envpool
from envpool.external.serve import ExternalSource, ExternalVectorEnv
from envpool.frontends.gym_env import EnvPoolGymEnv
from envpool.frontends.sources import POOL_DEFAULTS, CorePoolAdapter, NativeSource, PoolOptions, PoolSource
from envpool.frontends.vector_env import EnvPoolVectorEnv
from envpool.process.pool import PythonEnvSource


def _rollout(envs, steps: int, seed: int = 7) -> list:
    """What a user sees over ``steps`` random steps: every array and info value."""
    rng = np.random.default_rng(seed)
    seen = [envs.reset(seed=3)]
    for _ in range(steps):
        seen.append(envs.step(rng.integers(0, 2, size=envs.num_envs)))
    envs.close()
    return seen


def _assert_same(a: list, b: list) -> None:
    assert len(a) == len(b)
    for step, (x, y) in enumerate(zip(a, b)):
        for u, v in zip(x, y):
            if isinstance(u, dict):
                assert u.keys() == v.keys(), step
                for key in u:
                    np.testing.assert_array_equal(u[key], v[key], err_msg=f"step {step}, info[{key!r}]")
            else:
                np.testing.assert_array_equal(u, v, err_msg=f"step {step}")


def test_every_source_is_a_pool_source():
    assert isinstance(NativeSource("CartPole-v1"), PoolSource)
    assert issubclass(PythonEnvSource, PoolSource)
    assert issubclass(ExternalSource, PoolSource)
    assert not isinstance("CartPole-v1", PoolSource)


def test_a_native_source_steps_as_its_task_id_does():
    """EnvPoolVectorEnv(NativeSource(task, PoolOptions(**args))) is envpool.make(task, **args), step for step."""
    args = dict(num_envs=4, batch_size=4, num_threads=2, seed=11, max_episode_steps=20)
    by_id = envpool.make("CartPole-v1", **args)
    by_source = EnvPoolVectorEnv(NativeSource("CartPole-v1", PoolOptions(**args)))
    assert repr(by_source) == repr(by_id)
    assert by_source.spec.config == by_id.spec.config
    _assert_same(_rollout(by_source, 60), _rollout(by_id, 60))


def test_a_native_source_serves_the_gym_front_end_with_its_env_kwargs():
    envs = EnvPoolGymEnv(NativeSource("Pendulum-v1", PoolOptions(num_envs=2, seed=0), g=[9.81, 3.0]))
    assert envs.config["g"] == [9.81, 3.0]
    assert envs.observation_space.shape == (3,)
    obs, info = envs.reset()
    assert obs.shape == (2, 3)
    assert envs.step(np.zeros((2, 1), np.float32))[0].shape == (2, 3)
    envs.close()


def test_a_python_env_source_steps_as_make_python_does():
    by_make = envpool.make_python("CartPole-v1", num_envs=3, num_workers=2, seed=5)
    by_source = EnvPoolVectorEnv(PythonEnvSource("CartPole-v1", PoolOptions(num_envs=3, seed=5), num_workers=2))
    assert isinstance(by_source._pool, CorePoolAdapter)
    assert by_source.num_threads == by_make.num_threads == 2
    _assert_same(_rollout(by_source, 40), _rollout(by_make, 40))


def test_an_external_source_serves_client_episodes_through_the_front_end():
    obs_space, act_space = gymnasium.spaces.Box(-1, 1, (3,)), gymnasium.spaces.Discrete(2)
    # serve()'s arguments by name, as ExternalSource takes them.
    arguments = inspect.signature(envpool.serve).bind(obs_space, act_space, max_episodes=4)
    arguments.apply_defaults()
    server = ExternalVectorEnv(ExternalSource(*arguments.args, **arguments.kwargs))
    assert isinstance(server._pool, CorePoolAdapter) and server.num_envs == 4
    closed_after = []
    server.after_close(lambda: closed_after.append(server._pool.closed))
    client = envpool.PolicyClient(server.address)
    eid = client.start_episode()
    got = []
    t = threading.Thread(target=lambda: got.append(client.get_action(eid, np.full(3, 0.5, np.float32))))
    t.start()
    obs, reward, terminated, truncated, info = server.recv(timeout=5)
    np.testing.assert_array_equal(obs, np.full((1, 3), 0.5, np.float32))
    assert info["episode_id"].tolist() == [eid]  # the adapter's batches carry what the server knows
    server.send(np.array([1]), info["env_id"])
    t.join(5)
    assert got == [1]
    with pytest.raises(ValueError, match="do not expose their state"):
        server.get_state(0)
    client.close()
    assert closed_after == []
    server.close()
    assert closed_after == [True]  # ran once, when close() had stopped the server
    server.close()
    assert closed_after == [True]


def test_a_process_pool_refuses_state_access_as_before():
    envs = EnvPoolVectorEnv(PythonEnvSource("CartPole-v1"))
    try:
        with pytest.raises(NotImplementedError, match="no state vector"):
            envs.get_state(0)
        with pytest.raises(NotImplementedError, match="no state vector"):
            envs.set_state(0, [0.0])
    finally:
        envs.close()


@pytest.mark.parametrize("thing", [5, None, object(), b"CartPole-v1", ["CartPole-v1"]])
def test_what_is_neither_a_task_id_nor_a_source_is_refused_by_name(thing):
    with pytest.raises(TypeError, match=f"EnvPoolVectorEnv opens a pool source .* got {type(thing).__name__}"):
        EnvPoolVectorEnv(thing)
    with pytest.raises(TypeError, match=f"task_id must be a task id .* got {type(thing).__name__}"):
        envpool.make(thing, env_type="gym")


def test_a_front_end_opens_nothing_but_a_source():
    envs = envpool.make("CartPole-v1")
    with pytest.raises(TypeError, match="opens a pool source .* got str 'CartPole-v1': envpool.make"):
        envs._open_pool("CartPole-v1")
    envs.close()
    with pytest.raises(TypeError, match=r"got str 'CartPole-v1': envpool.make\('CartPole-v1', ...\) makes a pool"):
        EnvPoolVectorEnv("CartPole-v1")


def test_a_front_end_takes_a_source_and_nothing_else():
    """A source holds all of its pool's options: a front end has none to give (before, a
    front end's num_envs=1 beside a source of 8 envs was taken for make's default and ignored)."""
    source = PythonEnvSource("CartPole-v1", PoolOptions(num_envs=8))
    with pytest.raises(TypeError, match="num_envs"):
        EnvPoolVectorEnv(source, num_envs=1)
    with pytest.raises(TypeError, match="gravity"):
        EnvPoolVectorEnv(NativeSource("CartPole-v1"), gravity=9.8)
    assert list(inspect.signature(EnvPoolVectorEnv).parameters) == ["source"]
    envs = EnvPoolVectorEnv(source)
    assert envs.num_envs == 8
    envs.close()


def test_a_source_refuses_pool_options_that_are_not_pool_options():
    with pytest.raises(TypeError, match="options must be an envpool PoolOptions .* got dict"):
        NativeSource("CartPole-v1", {"num_envs": 2})
    with pytest.raises(TypeError, match="options must be an envpool PoolOptions, got int 4"):
        PythonEnvSource("CartPole-v1", 4)


def _parameters(fn, *, drop=()) -> list[tuple[str, object]]:
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values() if p.name not in drop]


POOL_FIELDS = ("num_envs", "batch_size", "num_threads", "seed", "max_episode_steps", "autoreset_mode")


@pytest.mark.parametrize("maker", [envpool.make, envpool.make_python])
def test_makers_show_the_core_s_defaults_written_once(maker):
    """make's and make_python's pool options default to what the core's PoolOptions holds
    (cpp/core/pool_options.h, the one place each default is written), as their docs say."""
    params = inspect.signature(maker).parameters
    for name in POOL_FIELDS:
        if name in params:
            assert params[name].default == getattr(POOL_DEFAULTS, name), name
    assert (POOL_DEFAULTS.num_envs, POOL_DEFAULTS.batch_size, POOL_DEFAULTS.seed) == (1, None, 42)
    assert (POOL_DEFAULTS.max_episode_steps, POOL_DEFAULTS.autoreset_mode) == (None, "next_step")


def test_make_python_and_serve_take_their_source_s_parameters():
    """make_python's arguments are its source's (PythonEnvSource's keywords, with the same
    defaults) and the pool's options; serve()'s are ExternalSource's, by name."""
    own = _parameters(PythonEnvSource, drop=("env", "options", "env_kwargs"))
    assert set(own) <= set(_parameters(envpool.make_python))
    rest = {name for name, _ in _parameters(envpool.make_python)} - {name for name, _ in own}
    assert rest == {
        "env",
        "env_type",
        "env_kwargs",
        "num_envs",
        "batch_size",
        "seed",
        "max_episode_steps",
        "autoreset_mode",
    }
    assert list(inspect.signature(envpool.serve).parameters) == [
        name for name in inspect.signature(ExternalSource).parameters if name != "name"
    ]


@pytest.mark.parametrize(
    "make",
    [
        lambda: envpool.make("CartPole-v1", num_envs=5, batch_size=2, seed=9),
        lambda: envpool.make_python("CartPole-v1", num_envs=5, batch_size=2, seed=9, num_workers=2),
    ],
)
def test_front_ends_read_the_pool_s_resolved_options_back(make):
    """num_envs, batch_size, threads and seeds come from the options the pool runs with
    (pool.options, resolved by the core), not recomputed in Python."""
    envs = make()
    try:
        resolved = envs._pool.options
        assert (envs.num_envs, envs.batch_size) == (resolved.num_envs, resolved.batch_size) == (5, 2)
        assert resolved.env_seeds == [9, 10, 11, 12, 13]
        assert envs.spec.config.seed == resolved.seed == 9
        if not envs._python_envs:
            assert envs.num_threads == resolved.num_threads
    finally:
        envs.close()
