"""envs.xla(): the pool stepped from inside jax.jit / lax.scan / lax.while_loop (envpool.xla).

Oracle: the same pool driven through the Python API (step / send / recv) from the same seeds
with the same actions. Skipped without jax (pip install envpool-ng[jax]); what xla() says then
is tested in tests/xla/test_without_jax.py.
"""

from __future__ import annotations

import gc
import threading
import time

import numpy as np
import pytest

import envpool

pytestmark = pytest.mark.integration

jax = pytest.importorskip("jax", reason="envs.xla() needs jax: pip install 'envpool-ng[jax]'")
jnp = jax.numpy
lax = jax.lax
JaxRuntimeError = getattr(jax.errors, "JaxRuntimeError", Exception)

HAS_MUJOCO = "Hopper-v5" in envpool.list_all_envs()
try:
    import mujoco  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    HAS_MUJOCO = False


def _random_actions(space, steps: int, seed: int) -> np.ndarray:
    space.seed(seed)
    return np.stack([space.sample() for _ in range(steps)])


def _python_rollout(envs, actions):
    """The reference: the Python API's step(), one batch per row of `actions`."""
    rows = []
    for a in actions:
        # With env_id: info names the rows (a full batch without it has SyncVectorEnv's info).
        obs, rew, term, trunc, info = envs.step(a, env_id=np.arange(envs.num_envs))
        rows.append((obs, rew, term, trunc, info["env_id"], info["elapsed_step"]))
    return [np.stack(col) for col in zip(*rows)]


def _scan_rollout(envs, actions):
    handle, _, _, step = envs.xla()

    def body(h, a):
        h, (obs, rew, term, trunc, info) = step(h, a)
        return h, (obs, rew, term, trunc, info["env_id"], info["elapsed_step"])

    handle, out = jax.jit(lambda h, acts: lax.scan(body, h, acts))(handle, jnp.asarray(actions))
    return [np.asarray(x) for x in out]


def _assert_same(got, want, names=("obs", "reward", "terminated", "truncated", "env_id", "elapsed_step")):
    for name, g, w in zip(names, got, want):
        # Without x64 jax holds float64 fields as float32 (and int64 as int32): compare so.
        w = np.asarray(w).astype(g.dtype)
        np.testing.assert_array_equal(g, w, err_msg=name)


ROLLOUTS = [
    # task, envs, steps: long enough for episode ends (CartPole falls; random actions make
    # Hopper fall) and the next-step autoresets after them.
    pytest.param("CartPole-v1", 8, 120, id="CartPole-v1"),
    pytest.param(
        "Hopper-v5",
        4,
        60,
        id="Hopper-v5",
        marks=pytest.mark.skipif(not HAS_MUJOCO, reason="MuJoCo tasks need mujoco-core at build and run time"),
    ),
]


@pytest.mark.parametrize("task,n,steps", ROLLOUTS)
@pytest.mark.parametrize("x64", [False, True])
def test_scan_rollout_equals_python_steps(task, n, steps, x64):
    with jax.enable_x64(x64):
        a = envpool.make(task, num_envs=n, seed=3)
        b = envpool.make(task, num_envs=n, seed=3)
        actions = _random_actions(a.action_space, steps, seed=0)
        a.reset(), b.reset()
        got = _scan_rollout(a, actions)
        want = _python_rollout(b, actions)
        assert want[2].any(), "the rollout should see terminations"
        _assert_same(got, want)
        assert got[1].dtype == (np.float64 if x64 else np.float32)  # reward
        assert got[0].dtype == np.dtype(jax.dtypes.canonicalize_dtype(want[0].dtype))  # obs
        # The pool goes on from where the jitted rollout left it, in Python too.
        np.testing.assert_array_equal(a.step(actions[0])[0], b.step(actions[0])[0])
        a.close(), b.close()


def _per_env(rows):
    """{env_id: [(obs, reward, terminated, truncated, elapsed_step), ...]} in arrival order."""
    out: dict[int, list] = {}
    obs, rew, term, trunc, ids, elapsed = rows
    for t in range(len(ids)):
        for r in range(len(ids[t])):
            out.setdefault(int(ids[t][r]), []).append((obs[t][r], rew[t][r], term[t][r], trunc[t][r], elapsed[t][r]))
    return out


def test_async_recv_send_in_scan_matches_python_loop_per_env():
    """batch_size < num_envs: which envs come back first depends on timing, so compare each
    env's own trajectory under a policy that depends only on the observation."""
    n, batch, steps = 8, 3, 80
    policy_np = lambda obs: (obs[:, 2] > 0).astype(np.int64)  # noqa: E731
    a = envpool.make("CartPole-v1", num_envs=n, batch_size=batch, num_threads=2, seed=11)
    b = envpool.make("CartPole-v1", num_envs=n, batch_size=batch, num_threads=2, seed=11)
    handle, recv, send, _ = a.xla()

    def body(h, _):
        h, (obs, rew, term, trunc, info) = recv(h)
        h = send(h, (obs[:, 2] > 0).astype(jnp.int32), info["env_id"])
        return h, (obs, rew, term, trunc, info["env_id"], info["elapsed_step"])

    a.async_reset()
    handle, got = jax.jit(lambda h: lax.scan(body, h, None, length=steps))(handle)
    got = [np.asarray(x) for x in got]
    b.async_reset()
    rows = []
    for _ in range(steps):
        obs, rew, term, trunc, info = b.recv()
        b.send(policy_np(obs), info["env_id"])
        rows.append((obs, rew, term, trunc, info["env_id"], info["elapsed_step"]))
    want = [np.stack(col) for col in zip(*rows)]
    got_env, want_env = _per_env(got), _per_env(want)
    assert set(got_env) | set(want_env) <= set(range(n))
    compared = 0
    for env in range(n):
        # An env may not come back at all in one loop's 80 recvs (on a loaded machine a worker
        # preempted while holding its step, while the other envs took every batch: seen in CI):
        # compare what both loops have of it.
        got_rows, want_rows = got_env.get(env, []), want_env.get(env, [])
        k = min(len(got_rows), len(want_rows))
        for g, w in zip(got_rows[:k], want_rows[:k]):
            for gi, wi in zip(g, w):
                np.testing.assert_array_equal(gi, np.asarray(wi).astype(np.asarray(gi).dtype))
        compared += k
    assert compared >= steps * batch // 2
    # The jitted loop left envs in flight; the Python API takes over from there.
    obs, rew, term, trunc, info = a.recv()
    assert obs.shape == (batch, 4)
    a.close(), b.close()


def test_send_recv_order_kept_in_scan_and_while_loop():
    """StepCounter's obs[0] counts the steps of an episode: every send is followed by its recv
    exactly once, none dropped or repeated, in both loop forms."""
    n = 4
    envs = envpool.make("StepCounter-v0", num_envs=n, terminate_at=0, seed=0)
    handle, recv, send, _ = envs.xla()
    envs.reset()
    zeros = jnp.zeros(n, jnp.int32)

    def one(h):
        h = send(h, zeros)
        h, (obs, *_rest) = recv(h)
        return h, obs[:, 0]

    h, counts = jax.jit(lambda h: lax.scan(lambda h, _: one(h), h, None, length=50))(handle)
    np.testing.assert_array_equal(np.asarray(counts), np.repeat(np.arange(1, 51, dtype=np.float32)[:, None], n, 1))

    def cond(state):
        return state[1][0] < 120

    def body(state):
        h, _ = state
        return one(h)

    h, last = jax.jit(lambda h: lax.while_loop(cond, body, (h, jnp.zeros(n, jnp.float32))))(h)
    np.testing.assert_array_equal(np.asarray(last), np.full(n, 120, np.float32))
    assert envs.step(np.zeros(n, np.int64))[0][0, 0] == 121
    envs.close()


def test_send_with_unused_result_still_runs():
    """has_side_effect: a send whose handle is dropped is not eliminated as dead code."""
    envs = envpool.make("StepCounter-v0", num_envs=2, terminate_at=0)
    handle, _, send, _ = envs.xla()
    envs.reset()

    @jax.jit
    def fire_and_forget(h):
        send(h, jnp.array([1, 2], jnp.int32))
        return jnp.zeros(())

    jax.block_until_ready(fire_and_forget(handle))
    obs, *_ = envs.recv()
    np.testing.assert_array_equal(obs[:, 0], [1, 1])  # one step each
    np.testing.assert_array_equal(obs[:, 2], [1, 2])  # with the actions sent
    envs.close()


def test_bad_action_values_raise_inside_jit_and_pool_stays_usable():
    envs = envpool.make("CartPole-v1", num_envs=4, seed=0)
    handle, _, _, step = envs.xla()
    envs.reset()
    f = jax.jit(lambda h, a: step(h, a))
    with pytest.raises(JaxRuntimeError, match=r"envpool: action 5 for env 2 \(row 2\) is outside"):
        jax.block_until_ready(f(handle, jnp.array([0, 1, 5, 0], jnp.int32)))
    h, (obs, *_rest) = f(handle, jnp.array([0, 1, 1, 0], jnp.int32))
    assert np.asarray(obs).shape == (4, 4)
    envs.step(np.zeros(4, np.int64))
    envs.close()

    pend = envpool.make("Pendulum-v1", num_envs=2)
    handle, _, _, step = pend.xla()
    pend.reset()
    with pytest.raises(JaxRuntimeError, match=r"envpool: action for env 1 \(row 1\) is not finite: nan"):
        jax.block_until_ready(jax.jit(step)(handle, jnp.array([[0.5], [jnp.nan]], jnp.float32)))
    pend.step(np.zeros((2, 1), np.float32))
    pend.close()


def test_bad_action_kinds_and_shapes_raise_while_tracing():
    envs = envpool.make("CartPole-v1", num_envs=4)
    handle, _, send, step = envs.xla()
    envs.reset()
    with pytest.raises(TypeError, match="must hold integers"):
        jax.jit(step)(handle, jnp.zeros(4, jnp.float32))
    with pytest.raises(ValueError, match=r"has shape \(3,\) but 4 envs need shape \(4,\)"):
        jax.jit(step)(handle, jnp.zeros(3, jnp.int32))
    with pytest.raises(ValueError, match="steps all its 4 envs"):
        jax.jit(send)(handle, jnp.zeros(2, jnp.int32), jnp.array([0, 1]))
    with pytest.raises(TypeError, match="handle must be the int32"):
        jax.jit(step)(jnp.zeros(2), jnp.zeros(4, jnp.int32))
    envs.step(np.zeros(4, np.int64))
    envs.close()
    asy = envpool.make("CartPole-v1", num_envs=4, batch_size=2)
    handle, _, send, _ = asy.xla()
    with pytest.raises(ValueError, match="needs env_id"):
        jax.jit(send)(handle, jnp.zeros(2, jnp.int32))
    asy.close()


@pytest.mark.parametrize("task", ["CartPole-v1", "Pendulum-v1"])
def test_trace_time_action_checks_agree_with_the_core(task):
    """jax checks actions while tracing, before any buffer reaches the core; its verdicts and
    messages must be the core's (core/protocol.h, as a NumPy step reports them)."""
    from envpool.xla.calls import _check_action

    envs = envpool.make(task, num_envs=3)
    envs.reset(seed=0)
    spec = envs.unwrapped._pool.spec["action"][0]
    per_env = tuple(spec["shape"])
    cases = [
        (dtype, shape)
        for dtype in ("bool", "int8", "uint8", "int32", "float16", "float32")
        for shape in ((3, *per_env), (2, *per_env), (3, 1, *per_env), ())
    ]
    for dtype, shape in cases:
        core = trace = None
        try:
            envs.step(np.zeros(shape, dtype))
        except (TypeError, ValueError) as err:
            core = (type(err), str(err))
        try:
            _check_action(spec, jnp.zeros(shape, dtype), 3)
        except (TypeError, ValueError) as err:
            trace = (type(err), str(err))
        assert trace == core, (dtype, shape)
    envs.close()


def test_protocol_errors_inside_jit():
    """A recv with nothing in flight, and a step before any reset, fail with the pool's own
    message (not a hang, not a crash)."""
    envs = envpool.make("CartPole-v1", num_envs=2)
    handle, recv, _, step = envs.xla()
    with pytest.raises(JaxRuntimeError, match="has not been reset"):
        jax.block_until_ready(jax.jit(step)(handle, jnp.zeros(2, jnp.int32)))
    envs.reset()
    with pytest.raises(JaxRuntimeError, match="would wait forever"):
        jax.block_until_ready(jax.jit(recv)(handle))
    envs.step(np.zeros(2, np.int64))
    envs.close()


def test_closed_pool_raises():
    envs = envpool.make("CartPole-v1", num_envs=2)
    handle, _, _, step = envs.xla()
    envs.reset()
    f = jax.jit(step)
    h, _ = f(handle, jnp.zeros(2, jnp.int32))
    envs.close()
    with pytest.raises(JaxRuntimeError, match=r"the pool \(CartPole-v1, 2 envs\) is closed"):
        jax.block_until_ready(f(h, jnp.zeros(2, jnp.int32)))


def test_functions_keep_their_pool_alive():
    """Dropping the env object while its xla() functions live does not pull the pool from under
    them (the functions hold it, as the reference's do); close() is what ends it."""
    envs = envpool.make("CartPole-v1", num_envs=2)
    handle, _, _, step = envs.xla()
    envs.reset()
    f = jax.jit(step)
    del envs
    gc.collect()
    h, (obs, *_rest) = f(handle, jnp.zeros(2, jnp.int32))
    assert np.asarray(obs).shape == (2, 4)


def _run_in_thread(fn):
    """Runs fn() in a thread; returns (thread, box): box gets 'result' or 'error'."""
    box: dict = {}

    def run():
        try:
            box["result"] = jax.block_until_ready(fn())
        except Exception as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


def test_close_waits_for_a_dispatched_rollout():
    """jax dispatches large computations asynchronously: close() right after a rollout call
    must let it finish instead of closing the pool under it."""
    envs = envpool.make("StepCounter-v0", num_envs=2, step_sleep_us=10_000, num_threads=2, terminate_at=0)
    handle, _, _, step = envs.xla()
    envs.reset()
    w = jnp.full((256, 256), 0.01)

    def body(carry, _):
        h, x = carry
        x = jnp.tanh(x @ w)  # enough work for jax to dispatch the call asynchronously
        h, (obs, *_rest) = step(h, (x[:2, 0] > 0).astype(jnp.int32))
        return (h, x), obs[:, 0]

    f = jax.jit(lambda h: lax.scan(body, (h, jnp.ones((256, 256))), None, length=40))
    f.lower(handle).compile()
    _, counts = f(handle)
    envs.close()
    np.testing.assert_array_equal(np.asarray(counts)[:, 0], np.arange(1, 41))


def test_core_close_while_a_jitted_recv_waits():
    """The core's close (what deleting a pool runs) from another thread while a jitted recv
    waits for slow envs: the recv gives up at once with an error; no hang, no crash."""
    envs = envpool.make("StepCounter-v0", num_envs=2, step_sleep_us=3_000_000, num_threads=2)
    handle, recv, _, _ = envs.xla()
    envs.reset()
    f = jax.jit(recv)
    f.lower(handle).compile()  # so that the thread below is in the recv quickly
    envs.send(np.zeros(2, np.int64))  # both workers take an env: the recv only waits
    time.sleep(0.2)
    thread, box = _run_in_thread(lambda: f(handle))
    time.sleep(0.5)
    envs._pool.close()  # returns once the workers finished their 3 s steps
    thread.join(10)
    assert not thread.is_alive()
    # Gave up rather than waiting out the steps: it would have had its batch by then.
    assert isinstance(box.get("error"), JaxRuntimeError), box
    assert "closed while recv() waited" in str(box["error"])


def test_python_call_while_jitted_step_is_inside_is_refused():
    envs = envpool.make("StepCounter-v0", num_envs=2, step_sleep_us=1_000_000, num_threads=2)
    handle, _, _, step = envs.xla()
    envs.reset()
    f = jax.jit(step)
    f.lower(handle, jnp.zeros(2, jnp.int32)).compile()
    thread, box = _run_in_thread(lambda: f(handle, jnp.zeros(2, jnp.int32)))
    time.sleep(0.5)  # the handler is inside, waiting for the 1 s steps
    with pytest.raises(RuntimeError, match="jitted function"):
        envs.step(np.zeros(2, np.int64))
    thread.join(10)
    assert "result" in box, box
    envs.step(np.zeros(2, np.int64))  # free again once it is done
    envs.close()


def test_timeout_inside_jit_loses_nothing():
    envs = envpool.make("StepCounter-v0", num_envs=2, step_sleep_us=300_000, num_threads=2, terminate_at=0)
    handle, recv, send, step = envs.xla(timeout=0.05)
    envs.reset()
    with pytest.raises(JaxRuntimeError, match=r"no batch was complete within 0.05 s; nothing is lost"):
        jax.block_until_ready(jax.jit(step)(handle, jnp.array([1, 3], jnp.int32)))
    obs, *_ = envs.recv()  # the batch the jitted step waited for
    np.testing.assert_array_equal(obs[:, 0], [1, 1])
    np.testing.assert_array_equal(obs[:, 2], [1, 3])
    envs.close()


def test_env_error_inside_jit_names_the_env_and_pool_goes_on():
    envs = envpool.make("StepCounter-v0", num_envs=3, fail_at=2, terminate_at=0)
    handle, _, _, step = envs.xla()
    envs.reset()
    f = jax.jit(step)
    h, _ = f(handle, jnp.zeros(3, jnp.int32))
    with pytest.raises(
        JaxRuntimeError, match=r"environment error in env \d: std::runtime_error: StepCounter failed on purpose"
    ):
        jax.block_until_ready(f(h, jnp.zeros(3, jnp.int32)))
    h, (obs, *_rest) = f(h, jnp.zeros(3, jnp.int32))
    assert np.asarray(obs).shape == (3, 4)
    envs.close()


def test_handle_of_another_pool_is_refused():
    a = envpool.make("CartPole-v1", num_envs=2)
    b = envpool.make("CartPole-v1", num_envs=2)
    handle_a, _, _, _ = a.xla()
    handle_b, _, _, step_b = b.xla()
    b.reset()
    assert int(handle_a[0]) != int(handle_b[0])
    with pytest.raises(JaxRuntimeError, match="this handle belongs to pool"):
        jax.block_until_ready(jax.jit(step_b)(handle_a, jnp.zeros(2, jnp.int32)))
    b.step(np.zeros(2, np.int64))
    a.close(), b.close()


def test_same_step_autoreset_has_final_obs():
    n, steps = 4, 40
    a = envpool.make("StepCounter-v0", num_envs=n, terminate_at=3, autoreset_mode="same_step")
    b = envpool.make("StepCounter-v0", num_envs=n, terminate_at=3, autoreset_mode="same_step")
    actions = _random_actions(a.action_space, steps, seed=2)
    a.reset(), b.reset()
    handle, _, _, step = a.xla()
    _, out = jax.jit(lambda h, acts: lax.scan(lambda h, x: step(h, x), h, acts))(handle, jnp.asarray(actions))
    for t in range(steps):
        obs, rew, term, trunc, info = b.step(actions[t])
        np.testing.assert_array_equal(np.asarray(out[0][t]), obs)
        mask = np.asarray(out[4]["_final_obs"][t])
        np.testing.assert_array_equal(mask, term | trunc)
        if "final_obs" in info:
            np.testing.assert_array_equal(np.asarray(out[4]["final_obs"][t])[mask], np.stack(info["final_obs"][mask]))
            np.testing.assert_array_equal(
                np.asarray(out[4]["final_info"]["total_steps"][t])[mask], info["final_info"]["total_steps"][mask]
            )
    a.close(), b.close()


def test_dm_front_end_returns_time_steps():
    pytest.importorskip("dm_env")
    a = envpool.make("CartPole-v1", env_type="dm", num_envs=3, seed=5)
    b = envpool.make("CartPole-v1", env_type="dm", num_envs=3, seed=5)
    actions = _random_actions(envpool.make_spec("CartPole-v1").action_space, 40, seed=4)
    a.reset(), b.reset()
    handle, _, _, step = a.xla()
    f = jax.jit(step)
    for t in range(40):
        handle, ts = f(handle, jnp.asarray(actions[t].repeat(3) if np.ndim(actions[t]) == 0 else actions[t]))
        want = b.step(np.asarray(actions[t]).repeat(3) if np.ndim(actions[t]) == 0 else actions[t])
        np.testing.assert_array_equal(np.asarray(ts.step_type), want.step_type)
        np.testing.assert_array_equal(np.asarray(ts.discount), want.discount.astype(np.float32))
        np.testing.assert_array_equal(np.asarray(ts.observation.obs), want.observation.obs)
        np.testing.assert_array_equal(np.asarray(ts.observation.elapsed_step), want.observation.elapsed_step)
    a.close(), b.close()


def test_gym_front_end_result_matches_its_step():
    a = envpool.make("CartPole-v1", env_type="gym", num_envs=3, seed=1)
    b = envpool.make("CartPole-v1", env_type="gym", num_envs=3, seed=1)
    a.reset(), b.reset()
    handle, _, _, step = a.xla()
    handle, got = jax.jit(step)(handle, jnp.array([0, 1, 0], jnp.int32))
    want = b.step(np.array([0, 1, 0]))
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w).astype(np.asarray(g).dtype))
    a.close(), b.close()


def test_python_env_and_external_pools_are_refused():
    # spawn: forking a process that runs jax's threads is unsafe.
    envs = envpool.make_python("CartPole-v1", num_envs=2, num_workers=1, context="spawn")
    with pytest.raises(TypeError, match="native and plugin pools"):
        envs.xla()
    envs.close()
    # The core refuses pools with partial batches too (external episodes).
    spec = {
        "obs": [{"name": "obs", "dtype": "float32", "shape": (2,), "low": [], "high": [], "discrete": False}],
        "action": [{"name": "action", "dtype": "int64", "shape": (), "low": [0], "high": [1], "discrete": True}],
    }
    core = envpool._core.ExternalPool("ext", spec, envpool._core.PoolOptions(num_envs=4, batch_size=2), 1.0)
    with pytest.raises(ValueError, match="external episodes and may be partial"):
        core.xla_id()
    core.close()
