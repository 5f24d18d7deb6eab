"""A pool beside busy processes (issue 43 item 3).

Where other processes take the cores, a worker preempted while it holds part of a batch makes
the caller wait, and the caller of quick envs then steps batches alone (cpp/core/solo_switch.h
decides by timed cycles; tests/cpp/test_solo_switch.cc and test_thread_pool.cc test the
decision and the hand-over). Whichever way each batch goes, and however often the way
changes, each env's trajectory is the one a single thread gives, in full batches and in the
async loop, and the pool stays usable. How fast it goes is measured in bench/core/contention.py.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import envpool

from .test_engine import scripted_actions

# Pure CPU work that ends when the test process does (its parent id changes).
BUSY = """
import os
parent = os.getppid()
x = 0
while os.getppid() == parent:
    for i in range(200000):
        x = (x * 31 + i) & 0xFFFFFFFF
"""


@pytest.fixture
def busy_cores():
    """Two busy processes beside the test, for its duration."""
    procs = [subprocess.Popen([sys.executable, "-c", BUSY], stdin=subprocess.DEVNULL) for _ in range(2)]
    yield
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def summarize(num_envs: int, batch_size: int, num_threads: int, steps: int) -> dict[str, np.ndarray]:
    """Per env: the sum of its observations, rewards and episode ends over its first `steps`
    steps with scripted actions, and its last observation; full batches with step() (where
    the caller steps envs too), smaller ones in the recv/send loop. The pool is then checked
    usable (a reset)."""
    envs = envpool.make("CartPole-v1", num_envs=num_envs, batch_size=batch_size, num_threads=num_threads, seed=5)
    obs_sum = np.zeros((num_envs, 4))
    rew_sum = np.zeros(num_envs)
    ends = np.zeros(num_envs, np.int64)
    last = np.zeros((num_envs, 4), np.float32)
    taken = np.zeros(num_envs, np.int64)
    if batch_size == num_envs:
        envs.reset()
        ids, elapsed = np.arange(num_envs), np.zeros(num_envs, np.int64)
    else:
        envs.async_reset()
    while taken.min() < steps:
        if batch_size == num_envs:
            obs, rew, term, trunc, info = envs.step(scripted_actions(ids, elapsed))
            elapsed = info["elapsed_step"]
        else:
            obs, rew, term, trunc, info = envs.recv()
            ids = info["env_id"]
        live = taken[ids] < steps  # rows past an env's `steps` are left out of its sums
        rows, live_ids = np.flatnonzero(live), ids[live]
        np.add.at(obs_sum, live_ids, obs[rows])
        np.add.at(rew_sum, live_ids, rew[rows])
        np.add.at(ends, live_ids, (term | trunc)[rows])
        last[live_ids] = obs[rows]
        taken[live_ids] += 1
        if batch_size < num_envs:
            envs.send(scripted_actions(ids, info["elapsed_step"]), ids)
    if batch_size < num_envs:
        for _ in range(num_envs // batch_size):  # every env back before the reset
            envs.recv()
    obs, _ = envs.reset()
    assert obs.shape == (batch_size, 4)
    envs.close()
    return dict(obs_sum=obs_sum, rew_sum=rew_sum, ends=ends, last=last)


@pytest.mark.parametrize("num_envs,batch_size", [(64, 64), (64, 32)], ids=["full batch", "async"])
def test_trajectories_beside_busy_processes_are_a_single_threads(busy_cores, num_envs, batch_size):
    # ~0.3-1 s of stepping: several of the switch's phases (100 ms and more) and its probes.
    contended = summarize(num_envs, batch_size, num_threads=2, steps=20000 * batch_size // num_envs)
    alone = summarize(num_envs, batch_size, num_threads=1, steps=20000 * batch_size // num_envs)
    assert alone["ends"].sum() > 0  # episodes ended and autoreset within the run
    for key in alone:
        np.testing.assert_array_equal(contended[key], alone[key], err_msg=key)
