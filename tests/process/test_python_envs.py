"""envpool.make_python: Python envs in worker processes behind the native pool's API.

gymnasium's SyncVectorEnv running the same env callables with the same seeds is the oracle,
step by step, in each autoreset mode."""

from __future__ import annotations

import functools
import time

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from support.py_envs import NestedEnv, SlowEnv
from support.subprocs import alive

import envpool

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


def assert_same(ours, ref, where=""):
    """Exact equality of nested observations (dicts, tuples, arrays)."""
    if isinstance(ref, dict):
        assert isinstance(ours, dict), where
        for key in ref:
            if not key.startswith("_"):
                assert_same(ours[key], ref[key], f"{where}.{key}")
        return
    if isinstance(ref, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(ref), where
        for i, (a, b) in enumerate(zip(ours, ref)):
            assert_same(a, b, f"{where}[{i}]")
        return
    ours, ref = np.asarray(ours), np.asarray(ref)
    assert ours.shape == ref.shape, f"{where}: shape {ours.shape} != {ref.shape}"
    np.testing.assert_array_equal(ours, ref, err_msg=where)


def assert_same_info(ours, ref, where):
    """The info equals gymnasium's exactly: the same keys, masks, dtypes and values
    (final_obs as its object array of the finished envs' last observations)."""
    assert data_equivalence(ours, ref, exact=True), f"{where}:\n ours {ours}\n gymnasium's {ref}"


def compare_rollout(fns, mode, steps, seed=3, ours_env=None, num_workers=2):
    ours = envpool.make_python(
        ours_env or fns, num_envs=len(fns), num_workers=num_workers, seed=None, autoreset_mode=mode
    )
    ref = gymnasium.vector.SyncVectorEnv(fns, autoreset_mode=mode)
    try:
        obs, info = ours.reset(seed=seed)
        ref_obs, ref_info = ref.reset(seed=seed)
        assert_same(obs, ref_obs, "reset obs")
        assert_same_info(info, ref_info, "reset info")
        ref.action_space.seed(seed)
        ends = 0
        for t in range(steps):
            actions = ref.action_space.sample()
            obs, rew, term, trunc, info = ours.step(actions)
            r_obs, r_rew, r_term, r_trunc, r_info = ref.step(actions)
            where = f"step {t}"
            assert_same(obs, r_obs, where + " obs")
            np.testing.assert_array_equal(rew, r_rew, err_msg=where)
            np.testing.assert_array_equal(term, r_term, err_msg=where)
            np.testing.assert_array_equal(trunc, r_trunc, err_msg=where)
            assert_same_info(info, r_info, where + " info")
            done = term | trunc
            ends += int(done.sum())
            if mode == AutoresetMode.DISABLED and done.any():
                obs, info = ours.reset(options={"reset_mask": done})
                r_obs, r_info = ref.reset(options={"reset_mask": done})
                assert_same(obs, r_obs, where + " masked reset")
                assert_same_info(info, r_info, where + " masked reset info")
        assert ends > 0, "the rollout never ended an episode: the autoreset paths went untested"
    finally:
        ours.close()
        ref.close()


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_cartpole_matches_sync_vector_env_step_by_step(mode):
    fns = [lambda: gymnasium.make("CartPole-v1")] * 4
    compare_rollout(fns, mode, steps=150)


def test_cartpole_by_id_matches_sync_vector_env():
    fns = [lambda: gymnasium.make("CartPole-v1")] * 3
    compare_rollout(fns, AutoresetMode.NEXT_STEP, steps=100, ours_env="CartPole-v1")


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_nested_dict_env_matches_sync_vector_env_step_by_step(mode):
    fns = [functools.partial(NestedEnv, end_prob=0.08)] * 5
    compare_rollout(fns, mode, steps=80)


def test_spaces_are_batched_as_gymnasium_batches_them():
    envs = envpool.make_python(NestedEnv, num_envs=3, num_workers=1)
    try:
        single = NestedEnv()
        assert envs.single_observation_space == single.observation_space
        assert envs.single_action_space == single.action_space
        assert envs.observation_space == batch_space(single.observation_space, 3)
        assert envs.action_space == batch_space(single.action_space, 3)
        obs, _ = envs.reset(seed=0)
        assert obs in envs.observation_space
        obs, *_ = envs.step(envs.action_space.sample())
        assert obs in envs.observation_space
    finally:
        envs.close()


def test_env_context_and_list_of_callables():
    seen = []

    def make(ctx):
        seen.append(ctx)
        env = SlowEnv(end_at=ctx["end_at"] + ctx["vector_index"])
        env.context = ctx
        return env

    envs = envpool.make_python(make, num_envs=4, num_workers=2, end_at=2)
    try:
        contexts = envs.get_attr("context")
        assert [c["vector_index"] for c in contexts] == [0, 1, 2, 3]
        assert [c["worker_index"] for c in contexts] == [0, 0, 1, 1]
        assert all(c["num_workers"] == 2 and c["end_at"] == 2 for c in contexts)
        assert envs.call("get_wrapper_attr", "end_at") == (2, 3, 4, 5)  # a method: called, results in env order
        assert envs.call("end_at") == (2, 3, 4, 5)  # an attribute: read
        with pytest.raises(ValueError, match="use `reset` directly"):  # as gymnasium: the pool resets envs
            envs.call("reset", seed=1)
    finally:
        envs.close()
    offsets = [10, 20, 30]
    envs = envpool.make_python([lambda k=k: SlowEnv(end_at=k) for k in offsets], num_envs=3)
    try:
        assert envs.get_attr("end_at") == (10, 20, 30)
        envs.set_attr("end_at", [1, 2, 3])
        assert envs.get_attr("end_at") == (1, 2, 3)
        envs.set_attr("delay", 0.0)
        assert envs.get_attr("delay") == (0.0, 0.0, 0.0)
        envs.reset()
        _, _, term, _, _ = envs.step(np.zeros(3, np.int64))
        assert term.tolist() == [True, False, False]
    finally:
        envs.close()


def test_render_batches_frames():
    envs = envpool.make_python(lambda: NestedEnv(render_mode="rgb_array"), num_envs=3, num_workers=2)
    try:
        envs.reset(seed=0)
        envs.step(envs.action_space.sample())
        frames = envs.render()  # as gymnasium's vector envs: a tuple of each env's frame
        assert isinstance(frames, tuple) and len(frames) == 3
        assert all(f.shape == (8, 8, 3) and f.dtype == np.uint8 and (f[..., 0] == 1).all() for f in frames)
    finally:
        envs.close()


def test_async_partial_batches_are_consistent_and_fair():
    """8 envs with step times differing 10x, batches of 4: each env's steps arrive in order,
    none is lost or repeated, and fast envs are not held back by slow ones (nor the reverse).
    One env per worker: envs sharing a worker step one after another."""
    delays = [0.001, 0.01] * 4
    envs = envpool.make_python(
        [lambda d=d: SlowEnv(delay=d) for d in delays], num_envs=8, batch_size=4, num_workers=8, seed=0
    )
    try:
        envs.async_reset()
        counts = np.zeros(8, int)
        last = np.zeros(8)
        start = time.monotonic()
        while time.monotonic() - start < 1.5:
            obs, rew, term, trunc, info = envs.recv()
            ids = info["env_id"]
            assert len(set(ids.tolist())) == 4
            for i, o, e in zip(ids, obs[:, 0], info["elapsed_step"]):
                assert o == last[i] + (1 if e > 0 else -last[i]), (i, o, last[i])
                assert e == o
                last[i] = o
            counts[ids] += 1
            envs.send(np.zeros(4, np.int64), ids)
        envs.recv()
        fast, slow = counts[0::2], counts[1::2]
        assert fast.min() > 2 * slow.max(), counts  # the fast envs are not held back
        assert slow.min() >= 20, counts  # and the slow ones keep going
    finally:
        envs.close()


def test_async_is_faster_than_full_batch_with_uneven_envs():
    """Behaviour, not a benchmark: with one slow env per worker, a full batch waits for it each
    step while async batches of the fast envs keep going (>3x as many steps in the same time)."""
    delays = [0.02, 0.0005, 0.0005, 0.0005]
    fns = [lambda d=d: SlowEnv(delay=d) for d in delays]

    def steps_in(batch_size, seconds=0.6):
        envs = envpool.make_python(fns, num_envs=4, batch_size=batch_size, num_workers=4)
        try:
            envs.async_reset()
            n = 0
            start = time.monotonic()
            while time.monotonic() - start < seconds:
                _, _, _, _, info = envs.recv()
                n += len(info["env_id"])
                envs.send(np.zeros(len(info["env_id"]), np.int64), info["env_id"])
            return n
        finally:
            envs.close()

    assert steps_in(2) > 3 * steps_in(4)


def test_seeding_rule_env_i_gets_seed_plus_i():
    envs = envpool.make_python("CartPole-v1", num_envs=3, seed=7)
    try:
        obs, _ = envs.reset()
        for i in range(3):
            ref, _ = gymnasium.make("CartPole-v1").reset(seed=7 + i)
            np.testing.assert_array_equal(obs[i], ref)
        obs, _ = envs.reset(seed=[5, 6, 8])
        ref, _ = gymnasium.make("CartPole-v1").reset(seed=8)
        np.testing.assert_array_equal(obs[2], ref)
    finally:
        envs.close()


def test_max_episode_steps_truncates_on_top_of_the_env():
    for mode in MODES:
        envs = envpool.make_python(lambda: SlowEnv(), num_envs=2, max_episode_steps=3, autoreset_mode=mode)
        try:
            envs.reset()
            for _ in range(2):
                _, _, _, trunc, _ = envs.step(np.zeros(2, np.int64))
                assert not trunc.any()
            _, _, _, trunc, info = envs.step(np.zeros(2, np.int64))
            assert trunc.all(), mode
            if mode == AutoresetMode.SAME_STEP:
                assert [o[0] for o in info["final_obs"]] == [3.0, 3.0]
        finally:
            envs.close()


def test_front_ends_gym_and_dm(without_the_gym_package):
    envs = envpool.make_python("CartPole-v1", num_envs=2, env_type="gym")
    try:
        assert envs.action_space == gymnasium.spaces.Discrete(2)
        envs.reset()
    finally:
        envs.close()
    env = envpool.make_python("CartPole-v1", num_envs=2, env_type="dm")
    try:
        ts = env.reset()
        assert ts.observation.obs.shape == (2, 4)
        ts = env.step(np.array([0, 1]))
        assert ts.step_type.tolist() == [1, 1]
    finally:
        env.close()
    with pytest.raises(ValueError, match="dm"):
        envpool.make_python("CartPole-v1", env_type="dm", autoreset_mode="same_step")


def test_bad_input_gets_clear_errors_and_the_pool_goes_on():
    envs = envpool.make_python(NestedEnv, num_envs=2, num_workers=1)
    try:
        envs.reset(seed=0)
        good = envs.action_space.sample()
        bad_shape = dict(good, force=np.zeros((3, 2), np.float32))
        with pytest.raises(ValueError, match=r"action 'force' has shape \(3, 2\) but 2 envs need shape \(2, 2\)"):
            envs.step(bad_shape)
        with pytest.raises(ValueError, match=r"action 'move' 3 for env 1 \(row 1\) is outside Discrete\(3\)"):
            envs.step(dict(good, move=np.array([0, 3])))
        with pytest.raises(ValueError, match="not finite"):
            envs.step(dict(good, force=np.array([[0, np.nan], [0, 0]], np.float32)))
        with pytest.raises(ValueError, match=r"must match the batched action space.*KeyError\(.force.\)"):
            envs.step({"move": good["move"]})
        with pytest.raises(ValueError, match="out of range"):
            envs.step(good, np.array([0, 5]))
        with pytest.raises(TypeError):
            envs.step(dict(good, move=np.array([0.5, 1.0])))
        obs, *_ = envs.step(good)
        assert obs in envs.observation_space
    finally:
        envs.close()


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_workers"):
        envpool.make_python("CartPole-v1", num_envs=2, num_workers=3)
    with pytest.raises(ValueError, match="batch_size"):
        envpool.make_python("CartPole-v1", num_envs=2, batch_size=3)
    with pytest.raises(ValueError, match="callables for num_envs"):
        envpool.make_python([SlowEnv, SlowEnv], num_envs=3)
    with pytest.raises(TypeError, match="env must be"):
        envpool.make_python(42)
    with pytest.raises(gymnasium.error.Error):
        envpool.make_python("NoSuchEnv-v9")
    with pytest.raises(TypeError, match="takes one argument"):
        envpool.make_python(SlowEnv, num_envs=1, delay=0.1)
    with pytest.raises(RuntimeError, match="could not make its envs"):
        envpool.make_python([SlowEnv, _raise_on_make], num_envs=2, num_workers=2)


def _raise_on_make():
    raise OSError("no simulator here")


def test_async_protocol_misuse():
    envs = envpool.make_python(SlowEnv, num_envs=4, batch_size=2, num_workers=2)
    try:
        envs.async_reset()
        _, _, _, _, info = envs.recv()
        ids = info["env_id"]
        others = [i for i in range(4) if i not in ids]
        with pytest.raises(RuntimeError, match="still stepping"):
            envs.send(np.zeros(1, np.int64), np.array(others[:1]))
        with pytest.raises(ValueError, match="more than once"):
            envs.send(np.zeros(2, np.int64), np.array([ids[0], ids[0]]))
        envs.send(np.zeros(2, np.int64), ids)
        envs.recv()
        envs.recv()
        with pytest.raises(RuntimeError, match="wait forever"):
            envs.recv()
        envs.set_attr("delay", 0.3)
        envs.send(np.zeros(2, np.int64), ids)
        with pytest.raises(TimeoutError):
            envs.recv(timeout=0.05)
        _, _, _, _, info = envs.recv()  # nothing was lost
        assert sorted(info["env_id"].tolist()) == sorted(ids.tolist())
    finally:
        envs.close()


def test_no_worker_outlives_close():
    envs = envpool.make_python(SlowEnv, num_envs=4, num_workers=2)
    pids = envs.unwrapped._pool.worker_pids
    assert len(pids) == 2 and all(alive(p) for p in pids)
    envs.reset()
    envs.close()
    envs.close()  # idempotent
    assert not any(alive(p) for p in pids)


@pytest.mark.parametrize("context", ["fork", "forkserver", "spawn"])
def test_every_start_method_runs_closures(context):
    length = 3  # captured by the closure: travels with cloudpickle
    envs = envpool.make_python(lambda: SlowEnv(end_at=length), num_envs=2, num_workers=2, context=context)
    try:
        envs.reset()
        for _ in range(2):
            envs.step(np.zeros(2, np.int64))
        _, _, term, _, _ = envs.step(np.zeros(2, np.int64))
        assert term.tolist() == [True, True]
    finally:
        envs.close()


def test_every_action_dtype_is_validated():
    """float64 boxes are checked for NaN/inf, integer boxes, MultiDiscrete and MultiBinary
    against their bounds (per element), naming the env, row and element."""
    from support.py_envs import TypedActionsEnv

    envs = envpool.make_python(TypedActionsEnv, num_envs=2, num_workers=1)
    try:
        envs.reset()
        good = {
            "f64": np.zeros((2, 2)),
            "i32": np.array([[3, -5], [0, 5]], np.int32),
            "md": np.array([[1, -1], [2, 1]]),
            "mb": np.array([[0, 1], [1, 1]], np.int8),
        }
        obs, *_ = envs.step(good)
        assert obs[:, 0].tolist() == [-1.0, 10.0]
        cases = [
            ({"f64": np.array([[0.0, np.inf], [0, 0]])}, r"action 'f64' element 1 for env 0 \(row 0\) is not finite"),
            (
                {"i32": np.array([[3, -5], [4, 0]], np.int32)},
                r"action 'i32' element 0 4 for env 1 \(row 1\) is outside \[0, 3\]",
            ),
            ({"i32": np.array([[3, -6], [0, 0]], np.int32)}, r"element 1 -6 for env 0 \(row 0\) is outside \[-5, 5\]"),
            ({"md": np.array([[1, -1], [0, 1]])}, r"action 'md' element 0 0 for env 1 \(row 1\) is outside \[1, 2\]"),
            ({"md": np.array([[1, 2], [1, 1]])}, r"action 'md' element 1 2 for env 0 \(row 0\) is outside \[-1, 1\]"),
            (
                {"mb": np.array([[0, 2], [1, 1]], np.int8)},
                r"action 'mb' element 1 2 for env 0 \(row 0\) is outside \[0, 1\]",
            ),
        ]
        for change, message in cases:
            with pytest.raises(ValueError, match=message):
                envs.step({**good, **change})
        obs, *_ = envs.step(good)  # the pool goes on
        assert obs[:, 0].tolist() == [-1.0, 10.0]
    finally:
        envs.close()
