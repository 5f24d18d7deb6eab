"""Bad input raises a Python exception that says what is wrong, and the pool stays usable."""

from __future__ import annotations

import importlib.util

import gymnasium
import numpy as np
import pytest

import envpool


@pytest.fixture
def cartpole():
    envs = envpool.make("CartPole-v1", num_envs=4, seed=0)
    envs.reset()
    yield envs
    envs.close()


@pytest.fixture
def async_cartpole():
    envs = envpool.make("CartPole-v1", num_envs=4, batch_size=2, num_threads=2, seed=0)
    envs.async_reset()
    yield envs
    envs.close()


def still_works(envs):
    obs, rew, term, trunc, info = envs.step(np.zeros(envs.num_envs, dtype=np.int64))
    assert obs.shape == (envs.num_envs, 4)


@pytest.mark.parametrize(
    "actions, error, match",
    [
        (np.zeros(3, dtype=np.int64), ValueError, r"shape \(3,\) but 4 envs need shape \(4,\)"),
        (np.zeros((4, 1), dtype=np.int64), ValueError, r"shape \(4, 1\)"),
        (np.zeros(4, dtype=np.float32), TypeError, "must hold integers"),
        (np.array([0, 1, 2, 0]), ValueError, r"action 2 for env 2 \(row 2\) is outside Discrete\(2\)"),
        (np.array([0, -1, 0, 0]), ValueError, "action -1 for env 1"),
        (np.array(["a", "b", "c", "d"]), TypeError, "must hold integers"),
        ("left", TypeError, "must hold integers"),
        (None, TypeError, "must hold integers"),
    ],
)
def test_bad_discrete_actions(cartpole, actions, error, match):
    with pytest.raises(error, match=match):
        cartpole.step(actions)
    still_works(cartpole)


def test_lists_of_ints_are_accepted(cartpole):
    cartpole.step([0, 1, 0, 1])


def test_discrete_bounds_that_are_not_a_power_of_two():
    """Discrete(3): the core's quick check ORs the actions together (1 | 2 = 3, beyond the
    highest action 2) and must then look at each: every action in range passes, one out of
    range anywhere in the batch is named."""
    envs = envpool.make("MountainCar-v0", num_envs=8)
    envs.reset(seed=0)
    envs.step(np.array([1, 2, 0, 2, 1, 1, 2, 0], dtype=np.int64))
    with pytest.raises(ValueError, match=r"action 3 for env 5 \(row 5\) is outside Discrete\(3\)"):
        envs.step(np.array([1, 2, 0, 2, 1, 3, 2, 0], dtype=np.int64))
    envs.step(np.full(8, 2, dtype=np.uint8))
    envs.close()


@pytest.mark.skipif("Pendulum-v1" not in envpool.list_all_envs(), reason="Pendulum not built")
@pytest.mark.parametrize(
    "actions, error, match",
    [
        (np.array([[np.nan], [0.0]], dtype=np.float32), ValueError, r"env 0 \(row 0\) is not finite"),
        (np.array([[0.0], [np.inf]]), ValueError, r"env 1 \(row 1\) is not finite"),
        (np.zeros(2, dtype=np.float32), ValueError, r"shape \(2,\) but 2 envs need shape \(2, 1\)"),
        (np.zeros((2, 1), dtype=np.complex64), TypeError, "real numbers"),
    ],
)
def test_bad_continuous_actions(actions, error, match):
    envs = envpool.make("Pendulum-v1", num_envs=2)
    envs.reset()
    with pytest.raises(error, match=match):
        envs.step(actions)
    envs.step(np.zeros((2, 1)))  # float64 is accepted and converted
    envs.step(np.full((2, 1), 5.0, dtype=np.float32))  # out of the box: clipped as gymnasium does
    envs.close()


@pytest.mark.parametrize(
    "env_id, error, match",
    [
        (["R", 4], ValueError, r"env_id\[1\] = 4 is out of range \[0, 4\)"),
        ([99], ValueError, "99 is out of range"),
        ([-1], ValueError, "-1 is out of range"),
        (["R", "R"], ValueError, "appears more than once"),
        ([0.0, 1.0], TypeError, "env_id must hold integers"),
        ([2**40, "R"], ValueError, "out of range"),
        ([], ValueError, "empty"),
    ],
)
def test_bad_env_ids(async_cartpole, env_id, error, match):
    envs = async_cartpole
    obs, rew, term, trunc, info = envs.recv()
    # "R" is an env just received (idle): one still in flight would fail as "still stepping".
    env_id = [int(info["env_id"][0]) if e == "R" else e for e in env_id]
    with pytest.raises(error, match=match):
        envs.send(np.zeros(len(env_id), dtype=np.int64), np.array(env_id) if env_id else np.array([], dtype=np.int64))
    # The rejected call changed nothing: the received envs can still be sent.
    envs.send(np.zeros(2, dtype=np.int64), info["env_id"])
    envs.recv()


def test_send_to_env_still_stepping(async_cartpole):
    envs = async_cartpole
    obs, rew, term, trunc, info = envs.recv()
    busy = sorted(set(range(4)) - set(info["env_id"].tolist()))[0]
    with pytest.raises(RuntimeError, match=f"env {busy} is still stepping") as caught:
        envs.send(np.zeros(1, dtype=np.int64), np.array([busy]))
    assert "asynchronous" not in str(caught.value)  # a send by id: the async loop is already in use
    envs.send(np.zeros(2, dtype=np.int64), info["env_id"])
    envs.recv()


def test_recv_with_nothing_in_flight_raises_at_once():
    envs = envpool.make("CartPole-v1", num_envs=4, batch_size=2, num_threads=1)
    with pytest.raises(RuntimeError, match=r"would wait forever.*no env has been reset yet: call async_reset\(\)"):
        envs.recv()
    envs.async_reset()
    envs.recv()
    envs.recv()
    with pytest.raises(RuntimeError, match="would wait forever.*; send\\(\\) more envs first$"):
        envs.recv()
    envs.close()


def test_recv_with_envs_never_reset_names_them():
    envs = envpool.make("CartPole-v1", num_envs=4, batch_size=2, num_threads=1)
    envs.async_reset(np.array([0, 1]))
    envs.recv()
    with pytest.raises(RuntimeError, match=r"send\(\) more envs first \(2 envs have not been reset: async_reset"):
        envs.recv()
    envs.close()


def test_step_before_reset_raises():
    envs = envpool.make("CartPole-v1", num_envs=2)
    with pytest.raises(RuntimeError, match="call reset"):
        envs.step(np.zeros(2, dtype=np.int64))
    envs.reset()
    envs.step(np.zeros(2, dtype=np.int64))
    envs.close()


def test_unknown_task_suggests_close_names():
    with pytest.raises(ValueError, match="unknown task id 'CartPol-v1'; did you mean 'CartPole-v1'"):
        envpool.make("CartPol-v1")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"num_envs": 0}, ValueError, "num_envs must be >= 1"),
        ({"num_envs": -3}, ValueError, "num_envs must be >= 1"),
        ({"num_envs": 2.5}, TypeError, "num_envs must be an int"),
        ({"num_envs": 4, "batch_size": 5}, ValueError, r"batch_size \(5\) must not exceed num_envs \(4\)"),
        ({"num_envs": 4, "batch_size": 0}, ValueError, "batch_size must be >= 1"),
        ({"num_threads": 0}, ValueError, "num_threads must be >= 1"),
        ({"seed": -1}, ValueError, "seed must be >= 0"),
        ({"max_episode_steps": -5}, ValueError, "max_episode_steps must be >= 0"),
        ({"gravity": 3.0}, ValueError, "unexpected keyword argument 'gravity' for CartPole-v1 .*sutton_barto_reward"),
        ({"sutton_barto_reward": "yes"}, ValueError, "'sutton_barto_reward' must be bool, got str"),
        ({"num_envs": 2, "sutton_barto_reward": [True, False, True]}, ValueError, "3 per-env values but num_envs is 2"),
        ({"env_type": "atari"}, ValueError, "env_type must be one of"),
    ],
)
def test_bad_make_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        envpool.make("CartPole-v1", **kwargs)


@pytest.fixture
def no_pool_allowed(monkeypatch):
    """Fail the test if a C++ pool (and so its worker threads) gets built."""
    import envpool.frontends.sources

    real = envpool.frontends.sources._core

    class Core:
        def __getattr__(self, name):
            return getattr(real, name)

        def Pool(self, *args, **kwargs):  # noqa: N802 - the name of the attribute it stands in for
            raise AssertionError("a pool was built before every argument was checked")

    monkeypatch.setattr(envpool.frontends.sources, "_core", Core())


@pytest.mark.parametrize(
    "task_id, kwargs, match",
    [
        ("CartPole-v1", {"render_mode": "human"}, "render_mode must be None or 'rgb_array'"),
        ("StepCounter-v0", {"render_mode": "rgb_array"}, "StepCounter-v0 does not render"),
        ("CartPole-v1", {"env_type": "dm", "autoreset_mode": "same_step"}, "not supported"),
        ("CartPole-v1", {"autoreset_mode": "sometimes"}, "autoreset_mode must be"),
        ("CartPole-v1", {"gravity": 3.0}, "unexpected keyword argument 'gravity'"),
    ],
)
def test_bad_arguments_are_rejected_before_the_pool_is_built(no_pool_allowed, task_id, kwargs, match):
    with pytest.raises(ValueError, match=match):
        envpool.make(task_id, num_envs=2, num_threads=2, **kwargs)


def test_per_env_kwargs_are_applied():
    envs = envpool.make("CartPole-v1", num_envs=2, sutton_barto_reward=[True, False])
    envs.reset()
    obs, rew, *_ = envs.step(np.zeros(2, dtype=np.int64))
    np.testing.assert_array_equal(rew, [0.0, 1.0])
    envs.close()


def test_bad_reset_seeds(cartpole):
    with pytest.raises(ValueError, match="3 seeds for 4 envs"):
        cartpole.reset(seed=[1, 2, 3])
    cartpole.reset(seed=1)
    still_works(cartpole)


def test_reset_while_envs_in_flight_raises(async_cartpole):
    with pytest.raises(RuntimeError, match="still stepping"):
        async_cartpole.reset()
    async_cartpole.recv()


ASYNC_HINT = r"This pool is asynchronous \(batch_size=2 < num_envs=4\).*async_reset\(\) once, then recv\(\) and send"


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_full_batch_calls_on_an_async_pool_say_which_loop_it_runs(env_type):
    """step() or reset() of every env of an asynchronous pool names the cause (issue 55 item 6):
    the pool is asynchronous and runs the async_reset/recv/send loop; the pool stays usable."""
    envs = envpool.make("CartPole-v1", env_type=env_type, num_envs=4, batch_size=2, num_threads=1)
    try:
        if env_type != "gym":  # the gym front end starts episodes on the first step (the reference's)
            with pytest.raises(RuntimeError, match="env 0 has not been reset.*" + ASYNC_HINT):
                envs.step(np.zeros(4, dtype=np.int64))
        envs.reset()
        with pytest.raises(RuntimeError, match="still stepping.*" + ASYNC_HINT):
            envs.step(np.zeros(4, dtype=np.int64))
        with pytest.raises(RuntimeError, match="still stepping.*" + ASYNC_HINT):
            envs.reset()
        result = envs.recv()  # the envs reset() left in flight
        # info is the last item: (obs, reward, terminated, truncated, info), or gym < 0.26's four
        ids = result.observation.env_id if env_type == "dm" else result[-1]["env_id"]
        envs.send(np.zeros(2, dtype=np.int64), ids)
        envs.recv()
    finally:
        envs.close()


def test_the_async_loop_samples_batch_sized_actions():
    """action_space covers num_envs rows; batch_action_space one recv() batch's."""
    envs = envpool.make("CartPole-v1", num_envs=4, batch_size=2, num_threads=1)
    try:
        assert envs.action_space.shape == (4,) and envs.batch_action_space.shape == (2,)
        envs.async_reset()
        for _ in range(5):
            info = envs.recv()[4]
            envs.send(envs.batch_action_space.sample(), info["env_id"])
    finally:
        envs.close()
    rows = envpool.make("SimpleSpread-v3", num_envs=4, batch_size=2, num_threads=1)  # agents as rows
    try:
        assert rows.batch_action_space.shape == (2 * rows.agents_per_env,)
        rows.async_reset()
        info = rows.recv()[4]
        rows.send(rows.batch_action_space.sample(), info["env_id"])
        rows.recv()
    finally:
        rows.close()


def test_per_env_kwargs_that_change_the_spaces_are_rejected():
    with pytest.raises(ValueError, match="env 1 give it other observation/action spaces"):
        envpool.make("FrozenLake-v1", num_envs=2, map_name=["4x4", "8x8"])
    envs = envpool.make("FrozenLake-v1", num_envs=2, is_slippery=[True, False])  # same spaces: fine
    envs.close()


def test_none_kwargs_mean_not_given():
    envs = envpool.make("FrozenLake-v1", desc=None, map_name="8x8")
    assert envs.single_observation_space.n == 64
    envs.close()
    with pytest.raises(ValueError, match="'is_slippery' cannot be None"):
        envpool.make("FrozenLake-v1", is_slippery=None)


def test_pendulum_per_env_gravity():
    """The example of docs/api.md (per-env kwargs): different g per env changes the dynamics of those envs."""
    envs = envpool.make("Pendulum-v1", num_envs=4, g=[9.81, 9.81, 1.62, 1.62])
    assert envs.config["g"] == [9.81, 9.81, 1.62, 1.62]
    envs.reset()
    for i in range(4):
        envs.set_state(i, [1.0, 0.0])  # same state everywhere
    obs, *_ = envs.step(np.zeros((4, 1), dtype=np.float32))
    np.testing.assert_array_equal(obs[0], obs[1])
    np.testing.assert_array_equal(obs[2], obs[3])
    assert abs(obs[0, 2]) > abs(obs[2, 2])  # stronger gravity, faster swing
    with pytest.raises(ValueError, match="'g' has 3 per-env values but num_envs is 4"):
        envpool.make("Pendulum-v1", num_envs=4, g=[9.81, 1.62, 3.0])
    with pytest.raises(ValueError, match="'g' must be float, got str"):
        envpool.make("Pendulum-v1", num_envs=2, g=["a", "b"])


def test_an_unexpected_kwarg_is_a_type_error_as_python_raises_it():
    """TorchRL's GymEnv passes frameskip= and drops it on a TypeError saying "unexpected keyword
    argument 'frameskip'" (Python's own wording); it used to be a ValueError only."""
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'") as info:
        envpool.make("CartPole-v1", num_envs=1, frameskip=4)
    assert isinstance(info.value, ValueError)
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        gymnasium.make("envpool/CartPole-v1", frameskip=4)


class _ManyArraysEnv(gymnasium.Env):
    """An env whose observation is a Dict of `n` arrays."""

    def __init__(self, n):
        self.observation_space = gymnasium.spaces.Dict(
            {f"a{i:02d}": gymnasium.spaces.Box(-1, 1, (1,)) for i in range(n)}
        )
        self.action_space = gymnasium.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 0.0, False, False, {}


def test_more_arrays_than_the_core_holds_are_refused_by_count():
    # 32 obs arrays is the limit (kMaxArraysPerKind, cpp/core/spec.h): one more is refused
    # before any worker starts, saying how many are allowed.
    with pytest.raises(ValueError, match="too many arrays in the env spec: at most 32"):
        envpool.make_python(lambda: _ManyArraysEnv(33), num_envs=1, num_workers=1)
    envs = envpool.make_python(lambda: _ManyArraysEnv(32), num_envs=1, num_workers=1)
    try:
        obs, _ = envs.reset(seed=0)
        assert len(obs) == 32
    finally:
        envs.close()


# -- env ids and timeouts as passed (issue 35 item 11) --------------------------------------------


def test_env_ids_beyond_int32_are_reported_as_passed():
    """env_id=2**40 was reported as "2147483647 is out of range" (clamped to int32); uint64 ids
    wrapped to negative ones. Every call taking env ids names the value passed."""
    envs = envpool.make("CartPole-v1", num_envs=2, batch_size=1, render_mode="rgb_array")
    try:
        big = 2**40
        calls = {
            "reset": lambda ids: envs.reset(ids),
            "reset-seeded": lambda ids: envs.reset(ids, seed=1),
            "async_reset": lambda ids: envs.async_reset(ids),
            "render": lambda ids: envs.render(ids),
        }
        for call in calls.values():
            for ids in (big, [big], np.array([0, big]), np.array([big], np.uint64)):
                with pytest.raises(ValueError, match=rf"env_id\[\d\] = {big} is out of range \[0, 2\)"):
                    call(ids)
        envs.async_reset()
        envs.recv()
        for ids in (np.array([big]), [big], np.array([2**64 - 1], np.uint64), np.array([-big])):
            value = int(np.asarray(ids)[0])
            with pytest.raises(ValueError, match=rf"env_id\[0\] = {value} is out of range"):
                envs.send(np.zeros(1, np.int64), ids)
        for state_call in (envs.get_state, lambda i: envs.set_state(i, [0.0] * 4)):
            with pytest.raises(ValueError, match=rf"env_id={big} is out of range \[0, 2\)"):
                state_call(big)
            for wrong in (1.5, "1", True, np.float64(0)):  # int(env_id) took 1.5 as 1 and "1" as 1
                with pytest.raises(TypeError, match="env_id must be an int"):
                    state_call(wrong)
        for wrong in (1.5, "1", [True], [0.5]):
            with pytest.raises(TypeError, match="env_id must"):
                envs.reset(wrong)
        obs, *_ = envs.recv()  # the batch sent before is still there: nothing was lost
        assert obs.shape == (1, 4)
    finally:
        envs.close()


def test_python_pools_check_env_ids_before_anything_changes():
    """A process pool's render and reset(options=...) cast env ids with int64/int() before."""
    envs = envpool.make_python("CartPole-v1", num_envs=2, num_workers=1, render_mode="rgb_array")
    try:
        envs.reset()
        for ids, error, match in [
            ([0.5], TypeError, "env_id must be an int or a 1-D sequence of ints"),
            (["1"], TypeError, "env_id must be an int or a 1-D sequence of ints"),
            ([2**40], ValueError, rf"env_id\[0\] = {2**40} is out of range \[0, 2\)"),
        ]:
            with pytest.raises(error, match=match):
                envs.render(ids)
            with pytest.raises(error, match=match):
                envs.reset(ids, options={"anything": 1})
        assert len(envs.render([1])) == 1
    finally:
        envs.close()


def test_timeouts_are_numbers():
    envs = envpool.make("CartPole-v1", num_envs=2, batch_size=1)
    try:
        envs.async_reset()
        for wrong in ("1", b"1", [1], True):
            with pytest.raises(TypeError, match=r"timeout must be None or a number of seconds, got"):
                envs.recv(timeout=wrong)  # float("1") took the string as 1 s
        envs.recv(timeout=5)
        if importlib.util.find_spec("jax") is not None:
            for wrong in ("1", [1], True):  # "'>=' not supported between instances of 'str' and 'int'"
                with pytest.raises(TypeError, match=r"timeout must be None or a number of seconds, got"):
                    envs.xla(timeout=wrong)
            envs.xla(timeout=np.float32(1.0))
    finally:
        envs.close()
