"""envpool as a drop-in for gymnasium's vector envs (issue 20 section 2), on both pools, and env
outputs that must match their declared spaces (issue 19 item 3). gymnasium's own tests/vector
files run against make_python in tests/gymnasium_vector; these pin the same behaviours down
one by one, for the native pool too."""

from __future__ import annotations

import copy
import gc
import multiprocessing
import time

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.error import AlreadyPendingCallError, ClosedEnvironmentError, NoAsyncCallError
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import SyncVectorEnv
from support.py_envs import FaultyEnv, SlowEnv
from support.subprocs import alive

import envpool

# -- env outputs must match their declared spaces (issue 19 item 3) ---------------------------


class BadOutputEnv(gymnasium.Env):
    """A Box(4,) env that returns `bad` as the observation, reward or info (`what`; None: none)
    of its step `at`."""

    def __init__(self, bad=None, what=None, at=2):
        self.observation_space = spaces.Box(-10.0, 10.0, (4,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.bad, self.what, self.at, self.t = bad, what, at, 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(4, np.float32), {}

    def step(self, action):
        self.t += 1
        obs, reward, info = np.full(4, self.t, np.float32), 1.0, {}
        if self.t == self.at:
            if self.what == "obs":
                obs = self.bad
            elif self.what == "reward":
                reward = self.bad
            elif self.what == "info":
                info = self.bad
        return obs, reward, False, False, info


@pytest.mark.parametrize(
    "bad, what, match",
    [
        (np.ones(1, np.float32), "obs", r"shape \(1,\), but its space's shape is \(4,\)"),
        (np.float32(3.0), "obs", r"shape \(\), but its space's shape is \(4,\)"),
        (["1.5", "2", "3", "4"], "obs", r"dtype <U3, which does not cast to its space's float32"),
        (np.ones(4, np.complex64), "obs", "which does not cast to its space's float32"),
        (None, "reward", "reward of env 1's step must be a real number, got NoneType"),
        ("1.5", "reward", "must be a real number, got str"),
        ([1.0, 2.0], "info", "info of env 1's step must be a dict"),
    ],
)
def test_an_output_that_does_not_match_its_space_is_an_env_error_naming_the_env(bad, what, match):
    """Gymnasium's SyncVectorEnv raises for these; they were broadcast, parsed, or NaN before."""
    fns = [BadOutputEnv, lambda: BadOutputEnv(bad, what)]
    envs = envpool.make_python(fns, num_envs=2, num_workers=1)
    try:
        envs.reset()
        envs.step(np.zeros(2, np.int64))
        with pytest.raises(envpool.EnvError, match=match) as caught:
            envs.step(np.zeros(2, np.int64))
        assert caught.value.env_ids == [1]
        obs = caught.value.result[0]
        assert obs[0].tolist() == [2.0] * 4  # the other env's row is there
        obs, *_ = envs.step(np.zeros(2, np.int64))  # the env was re-created; the pool goes on
        assert obs[0].tolist() == [3.0] * 4
    finally:
        envs.close()


def test_outputs_that_gymnasium_accepts_are_accepted():
    """Same-kind casts (float64 to float32, Python numbers), as np.stack(..., out=...) takes them."""

    class Loose(BadOutputEnv):
        def step(self, action):
            return [1.0, 2.0, 3.0, 4.0], np.int64(2), False, False, {}

    envs = envpool.make_python(Loose, num_envs=2, num_workers=1)
    try:
        envs.reset()
        obs, rew, *_ = envs.step(np.zeros(2, np.int64))
        assert obs.dtype == np.float32 and obs[1].tolist() == [1.0, 2.0, 3.0, 4.0] and rew.tolist() == [2.0, 2.0]
    finally:
        envs.close()


# -- spaces and dtypes ----------------------------------------------------------------------------


class SpaceEnv(gymnasium.Env):
    """Observation and action spaces as given; observations sampled, the action echoed in info."""

    def __init__(self, obs_space, action_space=None):
        # Copies: envs in one process (SyncVectorEnv's) must not share a space's sampling RNG.
        self.observation_space = copy.deepcopy(obs_space)
        self.action_space = copy.deepcopy(action_space) if action_space is not None else spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.observation_space.seed(seed)
        return self.observation_space.sample(), {"options": options}

    def step(self, action):
        assert action in self.action_space, action
        return self.observation_space.sample(), 0.0, False, False, {"action": action}


def _discrete_int32():
    try:
        return spaces.Discrete(4, start=1, dtype=np.int32)
    except TypeError:  # gymnasium < 1.2 has no Discrete(dtype=...)
        return pytest.param(
            None, marks=pytest.mark.skip(reason=f"gymnasium {gymnasium.__version__} has no Discrete(dtype=...)")
        )


@pytest.mark.parametrize(
    "space",
    [
        _discrete_int32(),
        spaces.Box(-1, 1, (3,), np.float16),
        spaces.Box(0, 60000, (2,), np.uint16),
        spaces.Box(-5, 5, (2,), np.int16),
        spaces.Box(0, 2**40, (2,), np.uint64),
        spaces.MultiDiscrete([3, 4], dtype=np.uint32),
    ],
    ids=str,
)
def test_every_numeric_dtype_comes_back_as_its_space_says(space):
    envs = envpool.make_python(lambda: SpaceEnv(space, space), num_envs=3, num_workers=1)
    try:
        obs, _ = envs.reset(seed=0)
        assert obs.dtype == space.dtype and obs in envs.observation_space
        obs, _, _, _, info = envs.step(envs.action_space.sample())
        assert obs.dtype == space.dtype and obs in envs.observation_space
        assert info["action"].dtype == space.dtype  # the env got its actions in the space's dtype
    finally:
        envs.close()


def test_bool_box_actions_take_their_own_samples():
    space = spaces.Box(0, 1, (3,), np.bool_)
    envs = envpool.make_python(lambda: SpaceEnv(spaces.Discrete(2), space), num_envs=2, num_workers=1)
    try:
        envs.reset(seed=0)
        actions = envs.action_space.sample()
        *_, info = envs.step(actions)
        np.testing.assert_array_equal(info["action"], actions)
    finally:
        envs.close()


def test_integer_actions_that_do_not_fit_the_dtype_are_refused():
    space = spaces.Box(-100, 100, (1,), np.int8)
    envs = envpool.make_python(lambda: SpaceEnv(spaces.Discrete(2), space), num_envs=2, num_workers=1)
    try:
        envs.reset(seed=0)
        with pytest.raises(ValueError, match="row 1 = 300 does not fit the action dtype int8"):
            envs.step(np.array([[1], [300]]))  # int64 300 would wrap around to int8 44
        *_, info = envs.step(np.array([[1], [-100]]))
        assert info["action"].tolist() == [[1], [-100]]
    finally:
        envs.close()


VARIABLE_SIZE = [
    spaces.Text(8),
    spaces.Sequence(spaces.Discrete(4)),
    spaces.Graph(node_space=spaces.Box(-1, 1, (2,)), edge_space=spaces.Discrete(3)),
    spaces.OneOf([spaces.Discrete(3), spaces.Box(0, 1, (2,))]),
    spaces.Dict({"text": spaces.Text(4), "pos": spaces.Box(-1, 1, (2,))}),
]


@pytest.mark.parametrize("space", VARIABLE_SIZE, ids=lambda s: type(s).__name__)
def test_variable_size_spaces_travel_pickled_and_batch_as_gymnasium_batches_them(space):
    """As SyncVectorEnv, step for step: observations, actions and infos equal."""
    fns = [lambda: SpaceEnv(space, space)] * 3
    ours = envpool.make_python(fns, num_envs=3, num_workers=2, seed=None)
    ref = SyncVectorEnv(fns)
    try:
        assert ours.observation_space == ref.observation_space and ours.action_space == ref.action_space
        obs, info = ours.reset(seed=5)
        r_obs, r_info = ref.reset(seed=5)
        assert data_equivalence(obs, r_obs) and data_equivalence(info, r_info)
        ref.action_space.seed(1)
        for _ in range(3):
            actions = ref.action_space.sample()
            obs, _, _, _, info = ours.step(actions)
            r_obs, _, _, _, r_info = ref.step(actions)
            assert data_equivalence(obs, r_obs) and data_equivalence(info, r_info)
    finally:
        ours.close()
        ref.close()


def test_payloads_bigger_than_info_bytes_spill_instead_of_failing():
    big = spaces.Sequence(spaces.Box(-1, 1, (64,)), stack=True)

    class Big(SpaceEnv):
        def step(self, action):
            return np.ones((200, 64), np.float32), 0.0, False, False, {"blob": np.arange(5000)}

    envs = envpool.make_python(lambda: Big(big, spaces.Text(2000)), num_envs=2, num_workers=1, info_bytes=256)
    try:
        envs.reset(seed=0)
        obs, _, _, _, info = envs.step(("x" * 1500, "y" * 1500))
        assert obs[1].shape == (200, 64) and info["blob"].shape == (2, 5000)
    finally:
        envs.close()


# -- observation_mode and space checks --------------------------------------------------------


def test_envs_with_other_spaces_are_refused_unless_observation_mode_allows():
    fns = [lambda: SpaceEnv(spaces.Box(0, 1, (2,))), lambda: SpaceEnv(spaces.Box(0, 5, (2,)))]
    with pytest.raises(RuntimeError, match="observation spaces are not equivalent.*observation_mode='different'"):
        envpool.make_python(fns, num_envs=2, num_workers=2)
    envs = envpool.make_python(fns, num_envs=2, num_workers=2, observation_mode="different")
    try:
        assert envs.single_observation_space == spaces.Box(0, 1, (2,))
        assert envs.observation_space == gymnasium.vector.utils.batch_differing_spaces(
            [f().observation_space for f in fns]
        )
        envs.reset(seed=0)
    finally:
        envs.close()
    with pytest.raises(RuntimeError, match="action space .* differs from env 0's"):
        envpool.make_python(
            [lambda: SpaceEnv(spaces.Discrete(2), spaces.Discrete(3)), lambda: SpaceEnv(spaces.Discrete(2))],
            num_envs=2,
            num_workers=2,
        )
    with pytest.raises(ValueError, match="Invalid `observation_mode`"):
        envpool.make_python(fns, num_envs=2, observation_mode="mixed")


# -- attributes, options, seeds -----------------------------------------------------------------


def test_attributes_are_reached_through_wrappers():
    envs = envpool.make_python("CartPole-v1", num_envs=2, num_workers=1)  # TimeLimit(OrderEnforcing(...))
    try:
        assert envs.get_attr("gravity") == (9.8, 9.8)
        envs.set_attr("gravity", [1.0, 2.0])
        assert envs.get_attr("gravity") == (1.0, 2.0)
        assert envs.call("get_wrapper_attr", "gravity") == (1.0, 2.0)  # the env's own copy changed
        with pytest.raises(AttributeError, match="no_such_thing"):  # the env's exception, as itself
            envs.get_attr("no_such_thing")
    finally:
        envs.close()


def test_reset_options_reach_the_envs_and_seeds_may_skip_envs():
    envs = envpool.make_python(lambda: SpaceEnv(spaces.Discrete(5)), num_envs=3, num_workers=2, seed=None)
    try:
        _, info = envs.reset(seed=[7, None, 9], options={"level": 2})
        assert info["options"]["level"].tolist() == [2, 2, 2]  # batched as gymnasium batches infos
        assert envs.np_random_seed[0] == 7 and envs.np_random_seed[2] == 9
        unseeded = envs.np_random_seed[1]
        envs.reset(seed=[1, None, 3])
        assert envs.np_random_seed == (1, unseeded, 3)
    finally:
        envs.close()


def test_native_np_random_seed_and_render_as_gymnasium():
    envs = envpool.make("CartPole-v1", num_envs=3, seed=5, render_mode="rgb_array")
    try:
        assert envs.np_random_seed == (5, 6, 7)
        envs.reset(seed=[1, None, 3])
        assert envs.np_random_seed == (1, 6, 3)
        frames = envs.render()
        assert isinstance(frames, tuple) and len(frames) == 3 and frames[0].shape == (400, 600, 3)
        with pytest.raises(ValueError, match="native envs only know 'reset_mask'"):
            envs.reset(options={"level": 2})
    finally:
        envs.close()


# -- results as SyncVectorEnv's -------------------------------------------------------------------


def test_native_full_batch_info_is_sync_vector_envs_plus_env_ids():
    """Native pools stand in for the reference EnvPool too, whose info always names its rows
    (Tianshou's EnvPoolFactory reads them): SyncVectorEnv's keys plus env_id and elapsed_step.
    CartPole's own info is empty; same-step final_obs an object array of the last observations."""
    envs = envpool.make("CartPole-v1", num_envs=4, seed=0, autoreset_mode="same_step")
    ids = ["elapsed_step", "env_id"]
    try:
        obs, info = envs.reset()
        assert sorted(info) == ids and info["env_id"].tolist() == [0, 1, 2, 3]
        assert info["elapsed_step"].tolist() == [0, 0, 0, 0]
        ended = False
        for _ in range(100):
            obs, _, term, trunc, info = envs.step(np.ones(4, np.int64))  # push right: falls fast
            done = term | trunc
            if not done.any():
                assert sorted(info) == ids
                continue
            ended = True
            assert sorted(info) == ["_final_info", "_final_obs", *ids, "final_info", "final_obs"]
            assert info["final_obs"].dtype == object
            assert sorted(info["final_info"]) == ["_elapsed_step", "_env_id", "elapsed_step", "env_id"]
            np.testing.assert_array_equal(info["final_info"]["_env_id"], done)
            np.testing.assert_array_equal(info["_final_obs"], done)
            for i in range(4):
                final = info["final_obs"][i]
                assert (final is None) != bool(done[i])
                if done[i]:
                    assert final.shape == (4,) and final.dtype == np.float32 and abs(final[2]) > 0.2  # fell over
        assert ended
        envs.send(np.ones(4, np.int64))  # the async API names each row's env as well
        info = envs.recv()[4]
        assert info["env_id"].tolist() == [0, 1, 2, 3] and "elapsed_step" in info
    finally:
        envs.close()


def test_python_full_batch_info_is_sync_vector_envs_exactly():
    """make_python stands in for AsyncVectorEnv: a full batch's info has SyncVectorEnv's keys only."""
    envs = envpool.make_python("CartPole-v1", num_envs=2, num_workers=1, seed=0)
    try:
        assert envs.reset()[1] == {}
        assert envs.step(np.ones(2, np.int64))[4] == {}
    finally:
        envs.close()


@pytest.mark.parametrize("python", [False, True], ids=["native", "python"])
def test_actions_of_envs_that_autoreset_are_ignored_not_validated(python):
    if python:
        make = lambda **kw: envpool.make_python("CartPole-v1", num_workers=1, **kw)  # noqa: E731
    else:
        make = lambda **kw: envpool.make("CartPole-v1", **kw)  # noqa: E731
    envs = make(num_envs=2, seed=0, max_episode_steps=2)
    try:
        envs.reset()
        envs.step(np.zeros(2, np.int64))
        _, _, _, trunc, _ = envs.step(np.zeros(2, np.int64))
        assert trunc.all()
        _, rew, _, _, _ = envs.step(np.array([7, -3]))  # both envs autoreset: the actions are not used
        assert rew.tolist() == [0.0, 0.0]
        with pytest.raises(ValueError, match="action 7 for env 0"):
            envs.step(np.array([7, 0]))
    finally:
        envs.close()


@pytest.mark.parametrize("python", [False, True], ids=["native", "python"])
def test_an_env_that_failed_has_no_final_obs(python):
    """Same-step autoreset: env 1 ends its episode and env 2 raises on the same step; only env 1
    has a last observation (gymnasium's vector envs have no failed-but-continuing envs)."""
    if python:
        fns = [SlowEnv, lambda: SlowEnv(end_at=2), lambda: FaultyEnv("raise", at=2)]
        envs = envpool.make_python(fns, num_envs=3, num_workers=2, autoreset_mode="same_step")
    else:
        envs = envpool.make(
            "StepCounter-v0", num_envs=3, terminate_at=[0, 2, 0], fail_at=[0, 0, 2], autoreset_mode="same_step"
        )
    try:
        envs.reset()
        envs.step(np.zeros(3, np.int64))
        with pytest.raises(envpool.EnvError) as caught:
            envs.step(np.zeros(3, np.int64))
        assert caught.value.env_ids == [2]
        obs, rew, term, trunc, info = caught.value.result
        assert term.tolist() == [False, True, False] and trunc.tolist() == [False, False, True]
        assert info["_final_obs"].tolist() == [False, True, False]
        assert info["_final_info"].tolist() == [False, True, False]
        assert info["final_obs"][0] is None and info["final_obs"][2] is None
        assert info["final_obs"][1][0] == 2.0  # the ended episode's last observation counts 2 steps
    finally:
        envs.close()


# -- gymnasium's vector-env API -----------------------------------------------------------------


@pytest.mark.parametrize("python", [False, True], ids=["native", "python"])
def test_split_calls_and_their_errors_as_async_vector_env(python):
    envs = (
        envpool.make_python("CartPole-v1", num_envs=2, num_workers=1)
        if python
        else envpool.make("CartPole-v1", num_envs=2)
    )
    with pytest.raises(NoAsyncCallError, match="without any prior call to `reset_async`"):
        envs.reset_wait()
    envs.reset_async(seed=0)
    with pytest.raises(AlreadyPendingCallError, match="pending call to `reset`"):
        envs.step(np.zeros(2, np.int64))
    obs, info = envs.reset_wait()
    # make_python's info is SyncVectorEnv's; native pools' also names the rows (as the reference's).
    assert obs.shape == (2, 4) and {k: v for k, v in info.items() if k not in ("env_id", "elapsed_step")} == {}
    assert ("env_id" in info) != python
    envs.step_async(np.zeros(2, np.int64))
    with pytest.raises(AlreadyPendingCallError, match="`reset_async` while waiting for a pending call to `step`"):
        envs.reset()
    obs, rew, term, trunc, info = envs.step_wait()
    assert rew.tolist() == [1.0, 1.0] and {k: v for k, v in info.items() if k not in ("env_id", "elapsed_step")} == {}
    envs.step_async(np.zeros(2, np.int64))
    with pytest.warns(UserWarning, match="Calling `close` while waiting for a pending call to `step`"):
        envs.close(terminate=True)
    with pytest.raises(ClosedEnvironmentError):
        envs.reset()
    with pytest.raises(RuntimeError, match="closed"):  # and still a RuntimeError
        envs.step(np.zeros(2, np.int64))


def test_python_call_async_and_wait():
    envs = envpool.make_python("CartPole-v1", num_envs=2, num_workers=1)
    try:
        envs.call_async("get_wrapper_attr", "gravity")
        assert envs.call_wait() == (9.8, 9.8)
    finally:
        envs.close()


def test_timeouts_are_multiprocessing_timeout_errors_and_lose_nothing():
    envs = envpool.make("StepCounter-v0", num_envs=2, terminate_at=0, step_sleep_us=300_000, num_threads=2)
    try:
        envs.reset()
        envs.step_async(np.zeros(2, np.int64))
        with pytest.raises(multiprocessing.TimeoutError):
            envs.step_wait(timeout=0.01)
        with pytest.raises(TimeoutError):  # Python's own, too; the call is still pending
            envs.step_wait(timeout=0.01)
        obs, *_ = envs.step_wait()
        assert obs[:, 0].tolist() == [1.0, 1.0]  # StepCounter's obs[0]: the episode's steps
    finally:
        envs.close()


def test_a_scalar_action_is_a_type_error():
    envs = envpool.make("CartPole-v1", num_envs=2)
    try:
        envs.reset()
        with pytest.raises(TypeError, match="is a scalar"):
            envs.step(0)
    finally:
        envs.close()


def test_a_dropped_pool_closes_itself():
    """As gymnasium's AsyncVectorEnv: a vector env dropped without close() stops its workers."""
    envs = envpool.make_python("CartPole-v1", num_envs=2, num_workers=2)
    pids = envs._pool.worker_pids
    del envs
    gc.collect()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    assert not any(alive(p) for p in pids)
