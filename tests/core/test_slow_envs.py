"""Slow envs (issue 14, part 2): the first step after a reset, before the pool has timed any
step, must spread the envs over all threads, and Ctrl-C must interrupt it at once.

The time bounds are behavioural, not benchmarks: 4 envs x 200 ms on 2 threads take 0.8 s when
stepped one after another and 0.4 s in parallel; the bound (0.7 s) sits between the two."""

import signal
import time

import numpy as np
import pytest
from support.subprocs import start_python

import envpool

pytestmark = pytest.mark.slow

STEP_S = 0.2
SERIAL_S = 4 * STEP_S  # 0.8 s: all four envs on one thread
BOUND_S = 0.7  # parallel: 0.4 s


def slow_pool(batch_size=4, step_sleep_us=int(STEP_S * 1e6)):
    return envpool.make(
        "StepCounter-v0",
        num_envs=4,
        batch_size=batch_size,
        num_threads=2,
        terminate_at=0,
        step_sleep_us=step_sleep_us,
    )


def first_step(envs, how, env_id):
    actions = np.zeros(4, dtype=np.int64)
    start = time.perf_counter()
    if how == "step":
        out = envs.step(actions, env_id)
    else:
        envs.send(actions, env_id)
        out = envs.recv()
    return time.perf_counter() - start, out


@pytest.mark.parametrize("reset", ["reset", "async_reset"])
@pytest.mark.parametrize("how", ["step", "send_recv"])
@pytest.mark.parametrize("ids", [None, [0, 1, 2, 3], [3, 1, 0, 2]], ids=["all", "ids", "shuffled_ids"])
def test_first_step_after_reset_runs_envs_in_parallel(reset, how, ids):
    envs = slow_pool()
    if reset == "reset":
        envs.reset()
    else:
        envs.async_reset()
        envs.recv()
    env_id = None if ids is None else np.array(ids)
    elapsed, (obs, rew, term, trunc, info) = first_step(envs, how, env_id)
    if how == "step" and ids is None:
        assert info["env_id"].tolist() == [0, 1, 2, 3]  # a full batch, in env order
    else:
        assert sorted(info["env_id"].tolist()) == [0, 1, 2, 3]
        assert info["elapsed_step"].tolist() == [1, 1, 1, 1]
    assert elapsed < BOUND_S, f"first step took {elapsed:.3f} s (serial: {SERIAL_S} s, parallel: {SERIAL_S / 2} s)"
    # Later steps (the cost is known by now) stay parallel.
    elapsed, _ = first_step(envs, how, env_id)
    assert elapsed < BOUND_S, f"second step took {elapsed:.3f} s"
    envs.close()


def test_first_async_batch_after_reset_runs_envs_in_parallel():
    """batch_size < num_envs: the first batch of 2 needs 2 envs stepped, one per thread."""
    envs = slow_pool(batch_size=2)
    envs.async_reset()
    envs.recv()
    envs.recv()
    start = time.perf_counter()
    envs.send(np.zeros(4, dtype=np.int64), np.arange(4))
    obs, rew, term, trunc, info = envs.recv()
    elapsed = time.perf_counter() - start
    assert info["elapsed_step"].tolist() == [1, 1]
    assert elapsed < 0.35, f"first batch took {elapsed:.3f} s (serial: 0.4 s, parallel: 0.2 s)"
    envs.recv()
    envs.close()


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [3, 2, 1, 0], [0, 2, 1, 3]], ids=str)
def test_async_batches_fill_in_the_order_envs_finish(order):
    """Step times that differ between envs: a batch holds the envs that finished first, not
    those that started first (a slow env sent first must not hold up a batch of quick ones).
    Envs 0 and 2 sleep 0.3 s a step, 1 and 3 0.03 s; one thread per env."""
    envs = envpool.make(
        "StepCounter-v0", num_envs=4, batch_size=2, num_threads=4, step_sleep_us=[300_000, 30_000, 300_000, 30_000]
    )
    envs.async_reset()
    envs.recv()
    envs.recv()
    for step in (1, 2):  # the first send (step cost unknown) and one after it
        start = time.perf_counter()
        envs.send(np.zeros(4, dtype=np.int64), np.array(order))
        quick = envs.recv()[4]
        assert sorted(quick["env_id"].tolist()) == [1, 3], f"step {step}: {quick['env_id']}"
        assert time.perf_counter() - start < 0.25, "the quick envs' batch waited for a slow env"
        slow = envs.recv()[4]
        assert sorted(slow["env_id"].tolist()) == [0, 2]
        assert slow["elapsed_step"].tolist() == quick["elapsed_step"].tolist() == [step, step]
    envs.close()


@pytest.mark.parametrize("how", ["step", "send_recv"])
@pytest.mark.parametrize("ids", [False, True], ids=["all", "ids"])
def test_ctrl_c_interrupts_the_first_step_of_slow_envs(how, ids):
    """SIGINT 0.3 s into the first step after reset (envs of 1 s per step, 4 envs on 2 threads)
    raises KeyboardInterrupt at once, not when a step or the batch ends; the batch is returned
    by the next recv() and the pool steps on."""
    code = f"""
        import time, numpy as np, envpool, envpool.testing
        envpool.testing.load_step_counter()
        envs = envpool.make("StepCounter-v0", num_envs=4, batch_size=4, num_threads=2, terminate_at=0,
                            step_sleep_us=1_000_000)
        envs.async_reset()
        envs.recv()
        actions = np.zeros(4, dtype=np.int64)
        env_id = np.arange(4) if {ids} else None
        print("ready", flush=True)
        start = time.perf_counter()
        try:
            if "{how}" == "step":
                envs.step(actions, env_id)
            else:
                envs.send(actions, env_id)
                envs.recv()
            print("not interrupted", time.perf_counter() - start, flush=True)
        except KeyboardInterrupt:
            print("interrupted", time.perf_counter() - start, flush=True)
        obs, rew, term, trunc, info = envs.recv()
        print("recovered", sorted(info["elapsed_step"].tolist()), flush=True)
        envs.step(actions, env_id)
        envs.close()
        print("closed", flush=True)
    """
    proc = start_python(code)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.3)  # inside the first step by now
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        line = proc.stdout.readline().split()
        latency = time.perf_counter() - sent
        assert line and line[0] == "interrupted", line
        assert latency < 0.5, f"KeyboardInterrupt took {latency * 1000:.0f} ms"
        assert float(line[1]) < 0.9, f"interrupted {line[1]} s into a step of 1 s per env"
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert "recovered [1, 1, 1, 1]" in out, out + err
    assert "closed" in out
    assert proc.returncode == 0, err
