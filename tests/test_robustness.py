"""No crash, no hang, no leak: timeouts, Ctrl-C, env errors, lifecycle, threads."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import gymnasium
import numpy as np
import pytest
from support.subprocs import start_python

import envpool

ZEROS2 = np.zeros(2, dtype=np.int64)


def slow_pool(sleep_s: float, num_envs=2, batch_size=1, num_threads=1):
    """StepCounter envs that sleep `sleep_s` in every step (never terminating)."""
    return envpool.make(
        "StepCounter-v0",
        num_envs=num_envs,
        batch_size=batch_size,
        num_threads=num_threads,
        terminate_at=0,
        step_sleep_us=int(sleep_s * 1e6),
    )


def run_python(code: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )


# -- timeouts ---------------------------------------------------------------------------------


def test_recv_timeout_loses_nothing():
    envs = slow_pool(0.3)
    envs.async_reset()
    envs.recv()
    envs.recv()
    envs.send(np.zeros(1, dtype=np.int64), np.array([1]))
    start = time.perf_counter()
    with pytest.raises(TimeoutError, match=r"^no batch was complete within 0\.05 s; nothing is lost"):
        envs.recv(timeout=0.05)
    assert time.perf_counter() - start < 0.25
    obs, rew, term, trunc, info = envs.recv()  # the late result arrives
    assert info["env_id"].tolist() == [1] and info["elapsed_step"].tolist() == [1]
    envs.close()


def test_step_timeout_then_recv_returns_the_batch():
    envs = slow_pool(0.2, batch_size=2, num_threads=2)
    envs.reset()
    with pytest.raises(TimeoutError, match=r"within 0\.02 s"):  # the number, not a literal %g
        envs.step(ZEROS2, timeout=0.02)
    obs, rew, term, trunc, info = envs.recv()
    assert info["elapsed_step"].tolist() == [1, 1]
    envs.step(ZEROS2)  # usable again
    envs.close()


# -- Ctrl-C -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("call", ["recv", "step"])
def test_ctrl_c_interrupts_a_blocking_call_quickly(call):
    """SIGINT during a blocking recv()/step() raises KeyboardInterrupt within 100 ms; the pool
    stays usable and the interrupted batch is returned by the next recv()."""
    code = f"""
        import sys, time, numpy as np, envpool, envpool.testing
        envpool.testing.load_step_counter()
        envs = envpool.make("StepCounter-v0", num_envs=2, batch_size=2, num_threads=2, terminate_at=0,
                            step_sleep_us=1_500_000)
        envs.reset()
        print("ready", flush=True)
        try:
            if "{call}" == "recv":
                envs.send(np.zeros(2, dtype=np.int64))
                envs.recv()
            else:
                envs.step(np.zeros(2, dtype=np.int64))
            print("not interrupted", flush=True)
        except KeyboardInterrupt:
            print("interrupted", time.perf_counter(), flush=True)
        obs, rew, term, trunc, info = envs.recv()
        print("recovered", info["elapsed_step"].tolist(), flush=True)
        envs.step(np.zeros(2, dtype=np.int64))
        envs.close()
        print("closed", flush=True)
    """
    proc = start_python(code)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.3)  # inside the blocking call by now
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        line = proc.stdout.readline().split()
        latency = time.perf_counter() - sent
        assert line[0] == "interrupted", line
        assert latency < 0.1, f"KeyboardInterrupt took {latency * 1000:.0f} ms"
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert "recovered [1, 1]" in out, out + err
    assert "closed" in out
    assert proc.returncode == 0, err


# -- env errors -------------------------------------------------------------------------------


def test_env_error_names_the_env_keeps_the_batch_and_the_env_restarts():
    envs = envpool.make("StepCounter-v0", num_envs=4, terminate_at=0, fail_at=[0, 3, 0, 0])
    envs.reset()
    envs.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(envpool.EnvError, match="env 1: std::runtime_error: StepCounter failed on purpose") as exc_info:
        envs.step(np.zeros(4, dtype=np.int64))
        envs.step(np.zeros(4, dtype=np.int64))
    assert exc_info.value.result[4]["env_id"].tolist() == [0, 1, 2, 3]  # a full batch, in env order
    envs.close()

    # The same through the async API, whose info counts each env's steps.
    envs = envpool.make("StepCounter-v0", num_envs=4, terminate_at=0, fail_at=[0, 3, 0, 0])
    envs.reset()

    def step():
        envs.send(np.zeros(4, dtype=np.int64))
        return envs.recv()

    step()
    step()
    with pytest.raises(envpool.EnvError, match="env 1: std::runtime_error: StepCounter failed on purpose") as exc_info:
        step()
    err = exc_info.value
    assert err.env_ids == [1]
    # The C++ exception's type, demangled, comes before its message.
    assert err.messages == ["std::runtime_error: StepCounter failed on purpose at total step 3"]
    obs, rew, term, trunc, info = err.result
    assert trunc.tolist() == [False, True, False, False]
    assert info["elapsed_step"][[0, 2, 3]].tolist() == [3, 3, 3]  # the others stepped normally
    obs, rew, term, trunc, info = step()
    assert info["elapsed_step"].tolist() == [4, 0, 4, 4]  # env 1 restarted (next-step autoreset)
    obs, rew, term, trunc, info = step()
    assert info["elapsed_step"].tolist() == [5, 1, 5, 5]
    envs.close()


def test_env_error_in_async_mode():
    envs = envpool.make("StepCounter-v0", num_envs=4, batch_size=2, num_threads=2, terminate_at=0, fail_at=[2, 0, 0, 0])
    envs.async_reset()
    errors = 0
    for _ in range(40):
        try:
            obs, rew, term, trunc, info = envs.recv()
        except envpool.EnvError as err:
            errors += 1
            assert err.env_ids == [0]
            obs, rew, term, trunc, info = err.result
        envs.send(np.zeros(2, dtype=np.int64), info["env_id"])
    assert errors >= 3  # env 0 fails every 2nd step and keeps coming back
    envs.close()


# -- lifecycle --------------------------------------------------------------------------------


def test_close_with_steps_in_flight_and_twice():
    envs = slow_pool(0.2, num_envs=4, batch_size=2, num_threads=2)
    envs.async_reset()
    start = time.perf_counter()
    envs.close()
    envs.close()
    assert time.perf_counter() - start < 2.0
    for call in (lambda: envs.recv(), lambda: envs.step(np.zeros(4, dtype=np.int64)), lambda: envs.async_reset()):
        with pytest.raises(RuntimeError, match="closed"):
            call()


def test_dropping_pools_and_exiting_with_live_pools_does_not_hang():
    result = run_python(
        """
        import numpy as np, envpool, envpool.testing
        envpool.testing.load_step_counter()
        a = envpool.make("CartPole-v1", num_envs=8, num_threads=2)
        a.reset()
        b = envpool.make("StepCounter-v0", num_envs=4, batch_size=2, num_threads=2, step_sleep_us=100_000)
        b.async_reset()            # in flight at exit
        c = envpool.make("CartPole-v1", num_envs=4, batch_size=2, num_threads=2)
        c.async_reset()
        del c                      # dropped without close()
        print("exiting", flush=True)
        """,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert "exiting" in result.stdout


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
@pytest.mark.parametrize(
    "kwargs", [{"gravity": 3.0}, {"render_mode": "human"}, {"num_envs": 2, "sutton_barto_reward": [True] * 3}]
)
def test_failed_make_leaves_nothing_that_raises_on_collection(monkeypatch, env_type, kwargs):
    """A make() that fails part-way must raise only its own error: collecting the half-built
    front end (gymnasium's VectorEnv.__del__ -> close -> close_extras) must not raise too."""
    if "__del__" not in gymnasium.vector.VectorEnv.__dict__:  # gymnasium >= 1.3 dropped it; 1.1-1.2 have:

        def __del__(self):  # noqa: N807
            if not getattr(self, "closed", True):
                self.close()

        monkeypatch.setattr(gymnasium.vector.VectorEnv, "__del__", __del__, raising=False)
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with pytest.raises(ValueError):
        envpool.make("CartPole-v1", env_type=env_type, **kwargs)
    gc.collect()
    assert not unraisable, [(u.exc_type, u.exc_value, u.object) for u in unraisable]


@pytest.mark.parametrize("cls", ["EnvPoolVectorEnv", "EnvPoolGymEnv", "EnvPoolDmEnv"])
def test_close_of_a_half_built_front_end_is_a_no_op(cls):
    from envpool.frontends import dm

    front_end = getattr(dm if cls == "EnvPoolDmEnv" else envpool, cls)
    env = front_end.__new__(front_end)  # as if __init__ raised before the pool existed
    env.close()
    env.close()


def _threads_and_fds():
    return len(os.listdir("/proc/self/task")), len(os.listdir("/proc/self/fd"))


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_create_destroy_cycles_leave_threads_and_fds_flat():
    for _ in range(20):  # warm up lazily created resources
        envpool.make("CartPole-v1", num_envs=4, num_threads=3).close()
    before = _threads_and_fds()
    for i in range(1000):
        envs = envpool.make("CartPole-v1", num_envs=4, batch_size=2 if i % 2 else 4, num_threads=3)
        envs.async_reset() if i % 2 else envs.reset()
        if i % 3:
            envs.close()
        del envs
    after = _threads_and_fds()
    # Not more: a leak over 1000 cycles would show as many. (Fewer happens: a thread an earlier
    # test left, e.g. a dropped pool's finalizer, may end meanwhile; it failed CI once as 5 -> 4.)
    assert after[0] <= before[0] and after[1] <= before[1], (before, after)


# -- threads ----------------------------------------------------------------------------------


def test_second_thread_gets_a_clear_error_not_corruption():
    """Calls on one pool must not overlap: a second thread entering while the first waits gets
    RuntimeError; the first call completes normally."""
    envs = slow_pool(0.3, batch_size=2, num_threads=2)
    envs.reset()
    results = {}

    def first():
        results["first"] = envs.step(ZEROS2)

    t = threading.Thread(target=first)
    t.start()
    time.sleep(0.1)
    with pytest.raises(RuntimeError, match="another thread"):
        envs.step(ZEROS2)
    with pytest.raises(RuntimeError, match="another thread"):
        envs.close()
    t.join()
    assert results["first"][0][:, 0].tolist() == [1, 1]  # StepCounter's obs[0]: the episode's steps
    envs.step(ZEROS2)
    envs.close()


def test_pools_in_different_threads_run_concurrently():
    def work(seed, out):
        envs = envpool.make("CartPole-v1", num_envs=8, num_threads=2, seed=seed)
        envs.reset()
        for _ in range(300):
            envs.step(np.zeros(8, dtype=np.int64))
        out[seed] = envs.get_state(0)
        envs.close()

    out = {}
    threads = [threading.Thread(target=work, args=(s, out)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    serial = {}
    for s in range(4):
        work(s, serial)
    for s in range(4):
        np.testing.assert_array_equal(out[s], serial[s])
