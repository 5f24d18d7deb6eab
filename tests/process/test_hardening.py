"""make_python against what envs and their callers really do (issue 19): envs that fork and let
the child run on, pools made in short-lived threads, envs that start processes, pools dropped
or alive at exit, envs that raise KeyboardInterrupt, and one worker fault = one EnvError."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from support import TESTS_DIR as TESTS
from support.py_envs import FaultyEnv, SlowEnv, mixed
from support.subprocs import _sigint_default, alive, start_python

import envpool

ZEROS4 = np.zeros(4, np.int64)


def wait_gone(pids, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def run_script(code: str, timeout: float) -> subprocess.CompletedProcess:
    """Runs `code` in a new session: its process group (workers of the old code included) is
    ended afterwards, whatever happened."""
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"timed out after {timeout} s; stdout:\n{out[-3000:]}\nstderr:\n{err[-3000:]}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything left in the script's process group
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


# -- 1: an env whose step forks, and the child runs on in the worker's loop -----------------------


@pytest.mark.slow
def test_an_env_that_forks_is_reported_once_and_its_worker_replaced_never_a_hang():
    """The forked child used to run the worker's loop beside the worker: the collector took its
    completion counter on trust, went past what was sent and spun at 100% CPU, Ctrl-C and
    step(timeout=3) ignored, in about 1 pool in 8. Now the fork is stopped and reported as a
    fault of the worker (both its envs, one EnvError), which is replaced. 40 pools, bounded."""
    result = run_script(
        f"""
        import sys, time, numpy as np
        sys.path.insert(0, {TESTS!r})
        import envpool
        from support.py_envs import FaultyEnv, SlowEnv
        from support.subprocs import alive
        # Env 1 forks at step 3 of each episode; the loops stop before its second episode gets there.
        fns = [SlowEnv, lambda: FaultyEnv("fork", at=3), SlowEnv, SlowEnv]
        for i in range(40):
            envs = envpool.make_python(fns, num_envs=4, num_workers=2, batch_size=4 if i % 2 else 2)
            pool = envs.unwrapped._pool
            old = pool.worker_pids
            errors = []
            # Until 3 batches after the first error (the child reports itself when it is next
            # scheduled: under load, some batches later: 3-34 here beside three busy processes).
            # Bounded in time, not batches: in a CI run's extras step (2026-11-28, a fast machine,
            # another lane beside it) 2,000 batches went by without the report. Whether that
            # child was slow to be scheduled or never reported is not known; a lost report still
            # fails here, after 60 s, with the batch count.
            t = 0
            deadline = time.monotonic() + 60
            if i % 2:
                envs.reset()
                while not errors or t < errors_at + 3:
                    try:
                        envs.step(np.zeros(4, np.int64), timeout=3)
                    except envpool.EnvError as err:
                        errors.append(err)
                        errors_at = t
                    t += 1
                    assert time.monotonic() < deadline, t
            else:  # async, two envs a batch
                envs.async_reset()
                while not errors or t < errors_at + 3:
                    try:
                        info = envs.recv(timeout=3)[4]
                    except envpool.EnvError as err:
                        errors.append(err)
                        errors_at = t
                        info = err.result[4]
                    envs.send(np.zeros(2, np.int64), info["env_id"])
                    t += 1
                    assert time.monotonic() < deadline, t
            # Full batch: one EnvError naming both envs of the worker. Async: each env's error
            # comes with the batch that holds its row (two errors when the worker's two envs land
            # in different batches), and an env whose row was returned before the fault was seen
            # reports its lost episode on its next row.
            assert len(errors) == 1 if i % 2 else len(errors) in (1, 2), [(e.env_ids, e.messages) for e in errors]
            text = " ".join(m for e in errors for m in e.messages)
            assert "worker process 0 hosting envs 0-1 forked" in text and "after env 1's step" in text, text
            assert sorted(sum((e.env_ids for e in errors), [])) == [0, 1], [e.env_ids for e in errors]
            for e in errors:
                if i % 2 == 0:  # async: the batch's rows name their envs
                    assert set(e.env_ids) <= set(e.result[4]["env_id"].tolist()), (e.env_ids, e.result[4]["env_id"])
                assert all("forked" in m or "episode was lost" in m for m in e.messages), e.messages
            deadline = time.monotonic() + 10
            while pool.worker_pids[0] == old[0] and time.monotonic() < deadline:  # replaced by the monitor
                time.sleep(0.01)
            assert pool.worker_pids[0] != old[0] and pool.worker_pids[1] == old[1], (i, old, pool.worker_pids)
            fork_pid = int(text.split("(pid ")[1].split(")")[0])
            envs.close()
            assert not alive(old[0]) and not alive(fork_pid), (i, old, fork_pid)
        print("ok", flush=True)
        """,
        timeout=150,
    )
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-3000:]


# -- 2: a pool made in a thread that then exits ---------------------------------------------------


def test_a_pool_made_in_a_short_lived_thread_keeps_its_workers():
    """PR_SET_PDEATHSIG fired when the *thread* that forked the workers exited (thread pools,
    Ray actors, web handlers): every worker was SIGKILLed. Workers follow the process now."""
    made = []
    thread = threading.Thread(target=lambda: made.append(envpool.make_python(SlowEnv, num_envs=4, num_workers=2)))
    thread.start()
    thread.join()
    envs = made[0]
    try:
        pids = envs.unwrapped._pool.worker_pids
        time.sleep(0.5)
        assert all(alive(p) for p in pids)
        envs.reset()
        for t in range(1, 4):
            obs, *_ = envs.step(ZEROS4)
            assert obs[:, 0].tolist() == [t] * 4
        assert envs.unwrapped._pool.worker_pids == pids
    finally:
        envs.close()


def test_workers_of_a_pool_made_in_a_thread_still_die_with_a_killed_parent():
    """Following the process, not the thread: SIGKILL of the parent ends every worker (one is
    busy in a long step) and what its env started."""
    proc = start_python(
        f"""
        import sys, threading, time, numpy as np
        sys.path.insert(0, {TESTS!r})
        import envpool
        from support.py_envs import FaultyEnv, SlowEnv
        made = []
        fns = [lambda: FaultyEnv("popen", at=1), lambda: SlowEnv(delay=60.0)]
        t = threading.Thread(target=lambda: made.append(envpool.make_python(fns, num_envs=2, num_workers=2)))
        t.start(); t.join()
        envs = made[0]
        envs.reset()
        envs.send(np.zeros(2, np.int64))  # env 0 starts `sleep 600`, env 1 sleeps 60 s in its step
        time.sleep(0.5)
        print("pids", *envs.unwrapped._pool.worker_pids, flush=True)
        time.sleep(60)
        """
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("pids"), line + proc.stderr.read()
        workers = [int(p) for p in line.split()[1:]]
        members = group_members(workers[0])
        assert len(members) == 2 and all(alive(p) for p in workers)  # worker 0 and its `sleep`
        proc.kill()
        proc.wait()
        assert wait_gone(workers + members, 5.0) == []
    finally:
        proc.kill()


def group_members(pgid: int) -> list[int]:
    """The processes of process group `pgid`."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:
                out.append(int(entry))
    return out


# -- 4: processes an env started -------------------------------------------------------------------


def _children_of_first_step(envs) -> list[int]:
    envs.reset()
    _, _, _, _, info = envs.step(ZEROS4[:2])
    pids = [int(p) for p in info["child_pid"][info["_child_pid"]]]
    assert pids and all(alive(p) for p in pids)
    return pids


def test_processes_an_env_started_do_not_outlive_close():
    envs = envpool.make_python(lambda: FaultyEnv("popen", at=1), num_envs=2, num_workers=2)
    try:
        children = _children_of_first_step(envs)
    finally:
        envs.close()
    assert wait_gone(children, 5.0) == []


def test_processes_an_env_started_end_with_a_replaced_worker():
    envs = envpool.make_python(lambda: FaultyEnv("popen", at=1), num_envs=2, num_workers=2)
    try:
        children = _children_of_first_step(envs)
        os.kill(envs.unwrapped._pool.worker_pids[0], signal.SIGKILL)
        with pytest.raises(envpool.EnvError, match="killed by SIGKILL"):
            for _ in range(3):
                envs.step(ZEROS4[:2], timeout=10)
        assert wait_gone(children[:1], 5.0) == []
        assert alive(children[1])  # the other worker's
    finally:
        envs.close()


def test_processes_an_env_started_do_not_outlive_interpreter_exit():
    result = run_script(
        f"""
        import sys, numpy as np
        sys.path.insert(0, {TESTS!r})
        import envpool
        from support.py_envs import FaultyEnv
        envs = envpool.make_python(lambda: FaultyEnv("popen", at=1), num_envs=2, num_workers=2)
        envs.reset()
        info = envs.step(np.zeros(2, np.int64))[4]
        print("children", *info["child_pid"].tolist(), flush=True)
        """,
        timeout=60,
    )
    line = [ln for ln in result.stdout.splitlines() if ln.startswith("children")]
    assert result.returncode == 0 and line, result.stderr[-3000:]
    assert wait_gone([int(p) for p in line[0].split()[1:]], 5.0) == []


# -- 5: shutdown is silent ---------------------------------------------------------------------------

SILENT_CASES = {
    "dropped": "envs.step(np.zeros(4, np.int64)); del envs; gc.collect(); time.sleep(0.3)",
    "at_exit": "envs.step(np.zeros(4, np.int64))",
    "after_a_worker_death": "os.kill(envs.unwrapped._pool.worker_pids[0], signal.SIGKILL); time.sleep(0.05)",
    "dropped_after_a_worker_death": (
        "os.kill(envs.unwrapped._pool.worker_pids[0], signal.SIGKILL); time.sleep(0.05); del envs; gc.collect()"
    ),
}


@pytest.mark.parametrize("case", sorted(SILENT_CASES))
def test_shutdown_without_close_is_silent_and_leaves_no_worker(case):
    """Dropping a pool, exiting with one alive, or either right after a worker died used to
    print 'Exception in thread envpool-worker-monitor ... RuntimeError: the pool is closed'."""
    result = run_script(
        f"""
        import gc, os, signal, sys, time, numpy as np
        sys.path.insert(0, {TESTS!r})
        import envpool
        from support.py_envs import SlowEnv
        for _ in range(5):
            envs = envpool.make_python(SlowEnv, num_envs=4, num_workers=2)
            envs.reset()
            print("pids", *envs.unwrapped._pool.worker_pids, flush=True)
            {SILENT_CASES[case]}
        print("exiting", flush=True)
        """,
        timeout=90,
    )
    assert result.returncode == 0 and "exiting" in result.stdout, result.stderr[-3000:]
    assert result.stderr == "", result.stderr[-3000:]
    pids = [int(p) for ln in result.stdout.splitlines() if ln.startswith("pids") for p in ln.split()[1:]]
    assert wait_gone(pids, 5.0) == []


# -- 6: KeyboardInterrupt raised by an env -------------------------------------------------------------


def test_keyboard_interrupt_in_an_envs_step_is_that_envs_error():
    envs = envpool.make_python(mixed("interrupt"), num_envs=4, num_workers=2)
    try:
        envs.reset()
        pids = envs.unwrapped._pool.worker_pids
        envs.step(ZEROS4)
        envs.step(ZEROS4)
        with pytest.raises(envpool.EnvError) as info:
            envs.step(ZEROS4)
        err = info.value
        assert err.env_ids == [1] and err.messages[0].startswith("KeyboardInterrupt"), err.messages
        obs, _, _, trunc, step_info = err.result
        assert trunc.tolist() == [False, True, False, False]
        obs, *_, step_info = envs.step(ZEROS4, env_id=np.arange(4))  # with ids: elapsed_step
        # The worker lives on: env 0, its worker-mate, keeps its episode; env 1 starts anew.
        assert step_info["elapsed_step"].tolist() == [4, 0, 4, 4] and obs[0, 0] == 4.0
        assert envs.unwrapped._pool.worker_pids == pids
    finally:
        envs.close()


def test_terminal_ctrl_c_interrupts_the_caller_and_the_workers_go_on():
    """Ctrl-C in a terminal signals the whole foreground process group: the training script
    gets KeyboardInterrupt, the workers (in process groups of their own) are not touched."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import sys, time, numpy as np
        sys.path.insert(0, {TESTS!r})
        import envpool
        from support.py_envs import SlowEnv
        envs = envpool.make_python(lambda: SlowEnv(delay=0.5), num_envs=2, num_workers=2)
        envs.reset()
        pids = envs.unwrapped._pool.worker_pids
        print("ready", flush=True)
        try:
            envs.step(np.zeros(2, np.int64))
            print("not interrupted", flush=True)
        except KeyboardInterrupt:
            obs, *_ = envs.recv()
            obs, *_ = envs.step(np.zeros(2, np.int64))
            print("interrupted", obs[:, 0].tolist(), envs.unwrapped._pool.worker_pids == pids, flush=True)
        envs.close()
        """),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_sigint_default,
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)  # as the terminal does
        out, err = proc.communicate(timeout=30)
        assert "interrupted [2.0, 2.0] True" in out, out + err
    finally:
        proc.kill()


# -- 7: one worker fault, one EnvError -------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("fault", ["exit", "segfault"])
def test_one_worker_death_is_one_env_error_naming_all_its_envs(fault, mode):
    """The dead worker's env and its worker-mate (whose step was done, its episode lost) used
    to come as two EnvErrors on consecutive steps. Both are in one now, rows truncated."""
    envs = envpool.make_python(mixed(fault), num_envs=4, num_workers=2, autoreset_mode=mode)
    try:
        envs.reset()
        errors = []
        for _ in range(5):  # the replacement's env 1 would fail again at the 3rd step of its episode
            try:
                envs.step(ZEROS4, timeout=10)
            except envpool.EnvError as err:
                errors.append(err)
                if mode == "disabled":
                    envs.reset(options={"reset_mask": np.array([True, True, False, False])})
        assert len(errors) == 1, [(e.env_ids, e.messages) for e in errors]
        err = errors[0]
        assert sorted(err.env_ids) == [0, 1] and all("worker process 0 hosting envs 0-1" in m for m in err.messages)
        obs, _, term, trunc, info = err.result
        assert trunc.tolist() == [True, True, False, False] and not term.any()
        assert obs[0, 0] == 3.0  # env 0's step is there: only its episode was lost
        if mode == "same_step":
            # Envs the EnvError names have no final_obs entry (as any env that failed: docs/compat.md).
            assert not info.get("_final_obs", np.zeros(4, bool)).any(), info.get("_final_obs")
    finally:
        envs.close()
