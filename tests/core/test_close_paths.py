"""Closing imports nothing, for every kind of pool (issue 35 item 10).

A pool nobody closed is closed when Python collects it, at the latest at interpreter exit, when
imports fail ("ImportError: sys.meta_path is None"): a close path that imported printed
"Exception ignored in ... __del__" in about half the runs of docs/jax.md's own examples and left
the pool open. So: every close path runs here with imports refused, and scripts that never
close their pools run many times and must exit 0 with an empty stderr.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import importlib.util
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import gymnasium
import numpy as np
import pytest
from support.subprocs import alive

import envpool

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/, where support/ is
HAS_JAX = importlib.util.find_spec("jax") is not None
HAS_DM = importlib.util.find_spec("dm_env") is not None
HAS_ZMQ = importlib.util.find_spec("zmq") is not None and importlib.util.find_spec("msgpack") is not None


@contextlib.contextmanager
def imports_refused():
    """Every ``import`` statement raises inside; yields the names that were asked for."""
    asked: list[str] = []
    real = builtins.__import__

    def refuse(name, *args, **kwargs):
        asked.append(name)
        raise ImportError(f"import {name} on a close path")

    builtins.__import__ = refuse
    try:
        yield asked
    finally:
        builtins.__import__ = real


def _twin():
    from support.agent_twin import AgentCounterTwin

    return AgentCounterTwin()


def _native():
    return envpool.make("CartPole-v1", num_envs=2)


def _xla():
    envs = envpool.make("CartPole-v1", num_envs=2)
    handle, _, _, step = envs.xla()
    envs.reset()
    step(handle, np.zeros(2, np.int32))  # a jitted call dispatched; close() waits for it
    return envs


def _served():
    return envpool.serve(gymnasium.spaces.Box(-1, 1, (4,)), gymnasium.spaces.Discrete(2))


# name -> (make, whether it needs dm_env / jax / zmq)
POOLS = {
    "gymnasium": (_native, None),
    "gym": (lambda: envpool.make_gym("CartPole-v1", num_envs=2), None),
    "dm": (lambda: envpool.make_dm("CartPole-v1", num_envs=2), "dm"),
    "single": (lambda: gymnasium.make("envpool/CartPole-v1"), None),
    "agent-rows": (lambda: envpool.make("SimpleSpread-v3", num_envs=2), None),
    "pettingzoo": (lambda: envpool.make("SimpleSpread-v3", num_envs=2, env_type="pettingzoo"), None),
    "pettingzoo-view": (lambda: envpool.make("SimpleSpread-v3", num_envs=1, env_type="pettingzoo"), None),
    "python": (lambda: envpool.make_python("CartPole-v1", num_envs=2, num_workers=2), None),
    "python-dm": (lambda: envpool.make_python("CartPole-v1", num_envs=2, env_type="dm"), "dm"),
    "python-agent-rows": (lambda: envpool.make_python(_twin, num_envs=2), None),
    "python-pettingzoo": (lambda: envpool.make_python(_twin, num_envs=1, env_type="pettingzoo"), None),
    "xla": (_xla, "jax"),
    "external": (_served, "zmq"),
}


def _skip_without(need: str | None) -> None:
    if need == "dm" and not HAS_DM:
        pytest.skip("needs dm-env")
    if need == "jax" and not HAS_JAX:
        pytest.skip("needs jax")
    if need == "zmq" and not HAS_ZMQ:
        pytest.skip("needs pyzmq and msgpack")


def _core_pool(envs):
    """The pool object under a front end (a view's is its owner's)."""
    envs = getattr(envs, "unwrapped", envs)
    envs = getattr(envs, "_envs", envs)  # the single env's pool of one
    envs = getattr(envs, "_owner", envs)  # a PettingZoo view's pool
    return envs._pool


@pytest.mark.parametrize("kind", sorted(POOLS))
def test_close_imports_nothing(kind):
    make, need = POOLS[kind]
    _skip_without(need)
    envs = make()
    pool = _core_pool(envs)
    workers = list(getattr(pool, "worker_pids", []))
    with imports_refused() as asked:
        envs.close()
    assert asked == [], f"close() of a {kind} pool imported {asked}"
    assert pool.closed
    assert not [pid for pid in workers if alive(pid)]


@pytest.mark.parametrize("kind", ["gymnasium", "pettingzoo", "python", "xla"])
def test_a_dropped_pool_is_closed_without_imports(kind):
    """The __del__ path (what runs at interpreter exit) closes without importing either."""
    make, need = POOLS[kind]
    _skip_without(need)
    envs = make()
    pool = _core_pool(envs)
    with imports_refused() as asked:
        del envs
        gc.collect()
    assert asked == [], f"dropping a {kind} pool imported {asked}"
    assert pool.closed


# Scripts that make pools and exit without closing them (docs/jax.md's examples among them).
UNCLOSED = {
    "native": """
        import gymnasium, envpool
        a = envpool.make("CartPole-v1", num_envs=2); a.reset()
        b = envpool.make("SimpleSpread-v3", num_envs=2); b.reset()
        c = envpool.make("SimpleSpread-v3", num_envs=2, env_type="pettingzoo"); c.reset()
        view = c[0]
        g = envpool.make_gym("CartPole-v1", num_envs=2); g.reset()
        s = gymnasium.make("envpool/CartPole-v1"); s.reset(seed=0)
        if HAS_DM:
            d = envpool.make_dm("CartPole-v1", num_envs=2); d.reset()
        if HAS_ZMQ:
            served = envpool.serve(gymnasium.spaces.Box(-1, 1, (4,)), gymnasium.spaces.Discrete(2))
    """,
    "python": """
        import envpool

        def twin():
            from support.agent_twin import AgentCounterTwin
            return AgentCounterTwin()

        p = envpool.make_python("CartPole-v1", num_envs=2); p.reset()
        rows = envpool.make_python(twin, num_envs=2); rows.reset()
        pz = envpool.make_python(twin, num_envs=1, env_type="pettingzoo"); pz.reset()
        if HAS_DM:
            q = envpool.make_python("CartPole-v1", num_envs=2, env_type="dm"); q.reset()
    """,
    "xla": """
        import envpool, jax, jax.numpy as jnp

        envs = envpool.make("CartPole-v1", num_envs=8, seed=0)
        handle, recv, send, step = envs.xla()
        obs, info = envs.reset()

        def body(carry, _):
            handle, obs = carry
            action = (obs[:, 2] > 0).astype(jnp.int32)
            handle, (obs, reward, terminated, truncated, info) = step(handle, action)
            return (handle, obs), reward

        (handle, obs), rewards = jax.jit(lambda c: jax.lax.scan(body, c, None, length=100))((handle, obs))
        async_envs = envpool.make("CartPole-v1", num_envs=4, batch_size=2)
        async_handle, recv, send, _ = async_envs.xla()
        async_envs.async_reset()
    """,
}
RUNS = 20


def _run(code: str) -> subprocess.CompletedProcess:
    prelude = f"import sys\nsys.path.insert(0, {TESTS_DIR!r})\nHAS_DM, HAS_ZMQ = {HAS_DM}, {HAS_ZMQ}\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def _gym_import_notice() -> str:
    """What importing the installed gym package prints on stderr by itself ("" without gym):
    gym 0.23.1, which CleanRL's Atari scripts use (docs/atari.md), prints that it is unmaintained.
    ``make_gym`` imports gym where it is installed (its API decides the front end's)."""
    if importlib.util.find_spec("gym") is None:
        return ""
    return subprocess.run([sys.executable, "-c", "import gym"], capture_output=True, text=True, timeout=120).stderr


@pytest.mark.slow
def test_scripts_that_never_close_their_pools_exit_cleanly():
    """Each script RUNS times (four at a time): exit 0, nothing on stderr but the installed gym's
    own notice, printed once where gym is installed."""
    scripts = [name for name in sorted(UNCLOSED) if name != "xla" or HAS_JAX]
    with ThreadPoolExecutor(max_workers=4) as runs:
        results = list(runs.map(_run, [UNCLOSED[name] for name in scripts for _ in range(RUNS)]))
    notice = _gym_import_notice()
    for k, name in enumerate(scripts):
        runs_of_script = results[k * RUNS : (k + 1) * RUNS]
        if notice and "make_gym" in UNCLOSED[name]:
            for r in runs_of_script:
                r.stderr = r.stderr.replace(notice, "", 1)
        failed = [r for r in runs_of_script if r.returncode != 0 or r.stderr]
        assert not failed, (
            f"{name}: {len(failed)} of {RUNS} runs failed; exit {failed[0].returncode}, stderr:\n"
            f"{failed[0].stderr[-3000:]}"
        )
