"""Exercises the engine's threading paths for sanitizer builds (scripts/sanitize.sh runs it
under ASan+UBSan and under TSan): full batch, async, resets, every autoreset mode, env errors
(with same-step final_obs, and with actions of autoresetting envs),
timeouts, close while busy, many pools, and process pools (make_python: the collector, the
monitor thread reporting a killed worker, close with envs in flight; forks of a worker written
off by the collector, cut-short rows, pools made in exiting threads), and every registered
task made and stepped with each kwarg at its extremes (0, 1, large, negative, NaN, empty; with
the row guard of these builds, core/row_guard.h). Exits non-zero on any unexpected exception.

    python tests/stress/stress_pool.py [--quick] [--extreme-kwargs (that mode only)]

With ENVPOOL_STRESS_PLUGINS=<build folder of tests/plugin>, env plugins too.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import gymnasium
import numpy as np

import envpool
import envpool.testing

envpool.testing.load_step_counter()  # StepCounter-v0 is a test plugin

QUICK = "--quick" in sys.argv
STEPS = 200 if QUICK else 2000
LARGE = 64 if QUICK else 1000  # a large size kwarg (agents, obstacles, frame_skip, ...)


def full_batch(task: str, threads: int, mode: str) -> None:
    envs = envpool.make(task, num_envs=33, num_threads=threads, autoreset_mode=mode, seed=threads)
    envs.reset()
    for i in range(STEPS):
        obs, rew, term, trunc, info = envs.step(np.stack([envs.single_action_space.sample() for _ in range(33)]))
        if mode == "disabled" and (term | trunc).any():
            envs.reset(options={"reset_mask": term | trunc})
        if i % 97 == 0:
            envs.reset(seed=i)
    envs.close()


def full_batch_subsets(make, steps: int) -> None:
    """A full-batch pool stepped and reset a random subset at a time (rows in send order, a
    short batch), sometimes in two sends before one recv, between full steps."""
    envs = make()
    rng = np.random.default_rng(0)
    envs.reset()
    n = envs.num_envs
    for i in range(steps):
        ids = rng.permutation(n)[: rng.integers(1, n + 1)]
        if i % 7 == 0:
            obs, info = envs.reset(ids)
        elif i % 5 == 0 and len(ids) > 1:
            envs.send(np.zeros(len(ids) // 2, np.int64), ids[: len(ids) // 2])
            envs.send(np.zeros(len(ids) - len(ids) // 2, np.int64), ids[len(ids) // 2 :])
            obs, *_, info = envs.recv()
        else:
            obs, *_, info = envs.step(np.zeros(len(ids), np.int64), ids)
        if "env_id" in info and info["env_id"].tolist() != ids.tolist():
            raise AssertionError(f"rows {info['env_id']} for envs sent as {ids}")
        if obs.shape[0] != len(ids):
            raise AssertionError(f"{obs.shape[0]} rows for {len(ids)} envs")
        if i % 11 == 0:
            envs.step(np.zeros(n, np.int64))
    envs.close()


def async_loop(task: str, num_envs: int, batch: int, threads: int) -> None:
    envs = envpool.make(task, num_envs=num_envs, batch_size=batch, num_threads=threads)
    envs.async_reset()
    actions = np.stack([envs.single_action_space.sample() for _ in range(batch)])
    for _ in range(STEPS):
        obs, rew, term, trunc, info = envs.recv()
        envs.send(actions, info["env_id"])
    envs.close()


def env_errors() -> None:
    envs = envpool.make("StepCounter-v0", num_envs=8, batch_size=4, num_threads=2, terminate_at=7, fail_at=5)
    envs.async_reset()
    for _ in range(STEPS):
        try:
            obs, rew, term, trunc, info = envs.recv()
        except envpool.EnvError as err:
            obs, rew, term, trunc, info = err.result
        envs.send(np.zeros(4, dtype=np.int64), info["env_id"])
    envs.close()


def autoreset_actions_and_errors() -> None:
    """Same-step final_obs with env errors (the final masks leave failed envs out) and actions
    out of range for envs that autoreset (not validated; the check reads their episode state)."""
    for mode in ("same_step", "next_step"):
        envs = envpool.make("StepCounter-v0", num_envs=8, num_threads=2, terminate_at=3, fail_at=5, autoreset_mode=mode)
        envs.reset()
        for _ in range(STEPS):
            for actions in (np.zeros(8, dtype=np.int64), np.full(8, 99, dtype=np.int64)):
                try:
                    envs.step(actions)
                except envpool.EnvError:
                    pass
                except ValueError:  # out of range, for an env that does not autoreset
                    pass
        envs.close()


def timeouts_and_close_while_busy() -> None:
    for _ in range(20):
        envs = envpool.make("StepCounter-v0", num_envs=4, batch_size=2, num_threads=2, step_sleep_us=2000)
        envs.async_reset()
        try:
            envs.recv(timeout=0.0005)
        except TimeoutError:
            pass
        ids = envs.recv()[4]["env_id"]
        envs.send(np.zeros(2, dtype=np.int64), ids)
        envs.close()  # with envs in flight


def many_pools_in_threads() -> None:
    def work(seed: int) -> None:
        for _ in range(5):
            envs = envpool.make("CartPole-v1", num_envs=16, num_threads=2, seed=seed)
            envs.reset()
            for _ in range(STEPS // 5):
                envs.step(np.zeros(16, dtype=np.int64))
            del envs  # dropped without close()

    threads = [threading.Thread(target=work, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


class _Uneven(gymnasium.Env):
    """Steps take 0-300 us (by env), every 50th step raises."""

    observation_space = gymnasium.spaces.Box(-1, 1, (3,), np.float32)
    action_space = gymnasium.spaces.Discrete(2)

    def __init__(self, index: int = 0):
        self.index, self.t = index, 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(3, np.float32), {}

    def step(self, action):
        self.t += 1
        time.sleep(self.index * 5e-5)
        if self.t % 50 == 0:
            raise ValueError("on purpose")
        return np.full(3, self.t / 1e3, np.float32), 1.0, self.t % 37 == 0, False, {"t": self.t} if self.t % 3 else {}


def python_envs() -> None:
    fns = [lambda i=i: _Uneven(i) for i in range(6)]
    for mode in ("next_step", "same_step"):
        envs = envpool.make_python(fns, num_envs=6, num_workers=3, autoreset_mode=mode, context="spawn")
        envs.reset()
        for _ in range(STEPS // 2):
            try:
                envs.step(np.zeros(6, np.int64))
            except envpool.EnvError:
                pass
        envs.close()
    envs = envpool.make_python(fns, num_envs=6, batch_size=3, num_workers=3, context="spawn")
    envs.async_reset()
    for i in range(STEPS):
        try:
            info = envs.recv()[4]
        except envpool.EnvError as err:
            info = err.result[4]
        if i == STEPS // 2:  # the monitor thread reports it while this thread collects
            os.kill(envs.unwrapped._pool.worker_pids[1], signal.SIGKILL)
        envs.send(np.zeros(3, np.int64), info["env_id"])
    envs.close()  # with envs in flight


class _Forking(_Uneven):
    """Forks in the 20th step of an episode, and the child returns from the step, as a library
    that forks and lets its child run on would: the child reports itself, the collector writes
    the worker off while the monitor thread replaces it."""

    def step(self, action):
        if self.t == 19:
            os.fork()
        return super().step(action)


def python_env_faults() -> None:
    """make_python's fault paths under concurrency: forks of a worker written off by the
    collector (full batch and async), killed workers whose worker-mates' unreturned rows are
    cut short, and pools made in threads that exit (the workers' parent watch)."""
    fns = [lambda i=i: _Forking(i) if i == 1 else _Uneven(i) for i in range(4)]
    steps = STEPS // 4
    for batch in (4, 2):
        envs = envpool.make_python(fns, num_envs=4, batch_size=batch, num_workers=2, context="spawn")
        envs.async_reset()
        forks = 0
        for i in range(steps):
            try:
                info = envs.recv(timeout=60)[4]
            except envpool.EnvError as err:
                info = err.result[4]
                forks += any("forked" in m for m in err.messages)
            if i == steps // 2:
                os.kill(envs.unwrapped._pool.worker_pids[1], signal.SIGKILL)
            envs.send(np.zeros(len(info["env_id"]), np.int64), info["env_id"])
        envs.close()  # with envs in flight
        assert forks > 0, "no fork was reported"
    made = []
    threads = [
        threading.Thread(
            target=lambda: made.append(envpool.make_python(_Uneven, num_envs=2, num_workers=2, context="spawn"))  # noqa: F821 - ruff misses the closure
        )
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for envs in made:
        envs.reset()
        for _ in range(20):
            try:
                envs.step(np.zeros(2, np.int64), timeout=60)
            except envpool.EnvError:
                pass
    del made  # dropped without close(): the finalizers end them


def external_episodes() -> None:
    """envpool.serve: client threads complete rows while the trainer cuts partial batches and
    sends; closed with calls waiting (skipped without pyzmq/msgpack)."""
    try:
        import msgpack  # noqa: F401
        import zmq  # noqa: F401
    except ImportError:
        return
    if "libtsan" in os.environ.get("LD_PRELOAD", ""):
        # libzmq is not instrumented: TSan reads its lock-free queues as races. Checked with
        # `race:libzmq` suppressed instead (see docs/external.md, Guarantees).
        return
    import gymnasium

    server = envpool.serve(
        gymnasium.spaces.Box(-1, 1, (3,)), gymnasium.spaces.Discrete(3), batch_size=4, max_episodes=16, wait_ms=0.2
    )
    client = envpool.PolicyClient(server.address, timeout=2)
    stop = threading.Event()

    def run(k: int) -> None:
        obs = np.full(3, k / 10, np.float32)
        try:
            while not stop.is_set():
                eid = client.start_episode()
                for t in range(k + 3):
                    if t % 4 == 3:
                        client.log_action(eid, obs, 1)
                    else:
                        client.get_action(eid, obs)
                    client.log_returns(eid, 1.0)
                client.end_episode(eid, obs, truncated=k % 2 == 0)
        except (envpool.ExternalError, TimeoutError):
            pass  # the server closed (a call sent after it closed times out)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for _ in range(STEPS * 2):
        info = server.recv(timeout=30)[4]
        server.send(np.zeros(len(info["env_id"]), np.int64), info["env_id"])
    stop.set()
    server.close()  # with calls waiting
    for t in threads:
        t.join()
    client.close()


def plugin_envs(build_dir: str) -> None:
    """Env plugins (tests/plugin, built by scripts/sanitize.sh): refused plugins are unloaded
    again, then a plugin env that fails in step and reset runs async and full batch."""
    import glob

    so = {os.path.basename(p)[:-3]: p for p in glob.glob(os.path.join(build_dir, "*.so"))}
    for refused in ("probe_taken_id", "probe_throws", "fake_version", "probe_bad_id"):
        try:
            envpool.load_plugin(so[refused])
        except ImportError:
            pass
        else:
            raise AssertionError(f"{refused} was loaded")
    envpool.load_plugin(so["probe"])
    for fail_in in ("step", "reset"):
        envs = envpool.make("PluginProbe-v0", num_envs=8, batch_size=4, num_threads=2, fail_in=fail_in, fail_at=3)
        envs.async_reset()
        for _ in range(STEPS):
            try:
                obs, rew, term, trunc, info = envs.recv()
            except envpool.EnvError as err:
                obs, rew, term, trunc, info = err.result
            envs.send(np.ones(4, dtype=np.int64), info["env_id"])
        envs.close()
    full_batch("probe.Probe3-v0", 2, "same_step")


def _extremes(value, large: int) -> list:
    """The values at the edges of a kwarg's type, for a kwarg whose default is ``value``."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [-1, 0, 1, large, 2**31]
    if isinstance(value, float):
        return [0.0, -1.0, 1e9, float("nan"), float("inf")]
    if isinstance(value, str):
        return ["", value + "-missing"]
    if isinstance(value, list):
        return [[], [""] if not value else value[:1], value * 2 or [0], [float("nan")] * max(len(value), 1)]
    return []


def _extreme_configs(config: dict, large: int, joint: bool = True):
    """One kwarg at a time at each of its extremes, then (``joint``) the integer kwargs
    together: all at 0, all at 1, and each pair at (0, 1) and (1, 0), where sizes meet
    (SimpleTag-v3 with num_adversaries=0 overflowed its rows). Not all large at once: sizes
    multiply (an Atari frame stack of 1000 frames of 1000 x 1000 pixels)."""
    # The test envs' sleep kwargs are durations that any value of may take that long.
    config = {k: v for k, v in config.items() if "sleep" not in k}
    for key, value in config.items():
        for v in _extremes(value, large):
            yield {key: v}
    ints = [k for k, v in config.items() if isinstance(v, int) and not isinstance(v, bool)]
    if joint and len(ints) > 1:
        for v in (0, 1):
            yield dict.fromkeys(ints, v)
        for a in ints:
            for b in ints:
                if a != b:
                    yield {a: 0, b: 1}


def all_tasks_extreme_kwargs(large: int) -> None:
    """Every registered task made with each of its kwargs at their extremes, reset and stepped
    with random actions (two envs, two threads, same-step autoreset: the final_* copies too).
    A kwarg may be refused at make (ValueError / TypeError saying why) and an env may fail its
    step (EnvError); a crash, a sanitizer report or a write outside an env's rows (the row guard
    of debug builds, core/row_guard.h) fails the run."""
    counts = {"stepped": 0, "refused": 0, "env errors": 0, "library missing": 0}
    families = set()
    for task in envpool.list_all_envs():
        spec = envpool.make_spec(task)
        config = {k: v for k, v in spec.config.items() if k != "max_episode_steps"}  # the env kwargs
        # A plugin's tasks with the same kwargs are one env class (the Atari plugin's 104
        # games): its first task runs the cases, the others their defaults. With --quick, the
        # first runs its kwargs one at a time and the others nothing (an Atari make loads a ROM:
        # the 72 pairs of its 9 integer kwargs take a minute). Built-in tasks run every case:
        # different classes share kwarg names (MountainCar-v0 and MountainCarContinuous-v0).
        # Except, with --quick, dm_control's suite (the tasks with from_pixels): its 51 tasks
        # take their kwargs through one base (cpp/envs/mujoco/dmc/dmc_env.h), so the first of
        # each kwarg set runs the cases and the others their defaults (every case of all 51
        # took 7.5 minutes under ASan+UBSan, 2026-11-27); so do MiniGrid's six WFC tasks, one
        # class that differs by its wfc_config (their cases regenerate the level at each autoreset:
        # 3.3 s natively for all six).
        family = (spec.origin, tuple(sorted(config)))
        plugin = spec.origin != "built-in"
        shares_cases = plugin or (QUICK and ("from_pixels" in config or "wfc_config" in config))
        cases = [{}, *_extreme_configs(config, large, joint=not (QUICK and plugin))]
        if shares_cases and family in families:
            cases = [] if QUICK and plugin else [{}]
        families.add(family)
        for kwargs in cases:
            try:
                envs = envpool.make(task, num_envs=2, num_threads=2, seed=1, autoreset_mode="same_step", **kwargs)
            except (ValueError, TypeError):
                counts["refused"] += 1
                continue
            except RuntimeError as err:
                # A family whose library is opened at run time (MuJoCo, Procgen) and is not
                # installed here: make names what to install; nothing of it can be stressed.
                if "pip install" not in str(err):
                    raise
                counts["library missing"] += 1
                break
            try:
                envs.reset()
                for _ in range(3):
                    envs.step(envs.action_space.sample())
                counts["stepped"] += 1
            except envpool.EnvError as err:
                if any("outside its row" in m for m in err.messages):
                    raise AssertionError(f"{task} {kwargs}: {err}") from None
                counts["env errors"] += 1
            finally:
                envs.close()
    print(f"extreme kwargs: {counts}")


def main() -> int:
    if "--extreme-kwargs" in sys.argv:  # only this mode (e.g. to check one fix quickly)
        all_tasks_extreme_kwargs(LARGE)
        print("stress: ok")
        return 0
    for task in ["CartPole-v1", "Pendulum-v1", "Acrobot-v1"]:
        for threads in (1, 2, 3):
            for mode in ("next_step", "same_step", "disabled"):
                full_batch(task, threads, mode)
    # (256, 128, 1): one worker leaves the caller a core on 2 cores, so the waiting caller steps
    # queued envs too (thread_executor.cc, Help) beside the worker.
    for num_envs, batch, threads in [(16, 8, 2), (64, 7, 3), (10, 1, 2), (8, 8, 2), (256, 128, 1)]:
        async_loop("CartPole-v1", num_envs, batch, threads)
    async_loop("Pendulum-v1", 32, 16, 2)
    async_loop("Pendulum-v1", 64, 32, 1)
    for threads in (1, 3):
        full_batch_subsets(lambda threads=threads: envpool.make("CartPole-v1", num_envs=17, num_threads=threads), STEPS)
    full_batch_subsets(
        lambda: envpool.make_python(lambda: gymnasium.make("CartPole-v1"), num_envs=5, num_workers=2), STEPS // 4
    )
    env_errors()
    autoreset_actions_and_errors()
    timeouts_and_close_while_busy()
    many_pools_in_threads()
    python_envs()
    python_env_faults()
    external_episodes()
    if os.environ.get("ENVPOOL_STRESS_PLUGINS"):
        plugin_envs(os.environ["ENVPOOL_STRESS_PLUGINS"])
    # Hostile kwargs are ASan+UBSan's subject (each env steps in one thread at a time); the
    # TSan run (scripts/sanitize.sh) leaves them out: 84 s there, measured 2026-11-27.
    if "--no-extreme-kwargs" not in sys.argv:
        all_tasks_extreme_kwargs(LARGE)  # after plugin_envs: its tasks too
    print("stress: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
