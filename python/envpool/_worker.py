"""The loop of one worker process of a Python-env pool (see ``envpool.python_envs``).

A worker hosts a contiguous block of envs. It sleeps on its command ring in shared memory
(``_core.WorkerChannel``), runs each command - reset or step one env - and stages the result in
that env's block: observations and actions as raw arrays, info dicts pickled only when they
are not empty, failures as text. Control messages (call, get_attr, set_attr, render, close)
arrive on a pipe, only while none of its envs is in flight.

A worker leads a process group of its own (the terminal's Ctrl-C goes to the foreground group,
the training script's, and the pool ends the worker's whole group), ignores SIGINT too, and
dies with the pool's process (see ``envpool._worker_procs``). It exits when the pool shuts down
or writes it off.

An env may raise anything, KeyboardInterrupt included: that is the env's error, reported for
it, and the env is re-created. An env may fork; a child that returns into this loop instead of
exec'ing or exiting is stopped before it touches the shared memory and reported, and the pool
replaces the worker (two processes running one worker's loop would corrupt its results).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import traceback
from typing import Any, Callable

import numpy as np

# Ops, as cpp/core/orders.h numbers them.
OP_STEP, OP_RESET = 0, 1
# WorkerChannel.wait(): called in a fork of the worker (WorkerChannel::kForked).
FORKED = -2


# What an env may raise that counts as its own failure. KeyboardInterrupt too: an env that
# raises it (or whose code got a SIGINT of its own making) must not end the worker's other envs.
ENV_FAILURES = (Exception, KeyboardInterrupt)


class _EnvSlot:
    """One hosted env: the env itself and NumPy views of its block in shared memory."""

    def __init__(self, buf: np.ndarray, layout: dict, env_id: int, obs_leaves, action_leaves):
        base = layout["envs"] + env_id * layout["env_stride"]
        f = layout["env_fields"]
        mem = buf.data

        def view(offset: int, dtype, shape=()):
            return np.ndarray(shape, dtype=dtype, buffer=mem, offset=base + offset)

        self.env_id = env_id
        self.fixed = view(0, np.uint8, (64,))  # the one-byte fields, indexed by their offsets
        self.seed = view(f["seed"], np.uint64)
        self.reward = view(f["reward"], np.float64)
        self.info_step_len = view(f["info_step_len"], np.int32)
        self.info_reset_len = view(f["info_reset_len"], np.int32)
        self.error_len = view(f["error_len"], np.int32)
        self.actions = [view(off, dtype, shape) for off, (_, dtype, shape, _) in zip(layout["action"], action_leaves)]
        self.obs_step = [view(off, dtype, shape) for off, (_, dtype, shape, _) in zip(layout["obs_step"], obs_leaves)]
        self.obs_reset = [view(off, dtype, shape) for off, (_, dtype, shape, _) in zip(layout["obs_reset"], obs_leaves)]
        cap = layout["info_capacity"]
        self.info_step = buf[base + layout["info_step"] : base + layout["info_step"] + cap]
        self.info_reset = buf[base + layout["info_reset"] : base + layout["info_reset"] + cap]
        self.error = buf[base + layout["error"] : base + layout["error"] + layout["error_capacity"]]
        self.env: Any = None
        self.restarts = 0
        self.pending_seed: int | None = None  # the seed of its first reset
        self.needs_reset = True  # not reset since it was made
        self.broken: str | None = None  # why it can no longer run (too many restarts)


class Worker:
    def __init__(self, args: dict):
        from envpool import _core

        self.args = args
        self.main_pid = args["main_pid"]
        self.forked = False  # set in a fork of this process (os.fork in an env), see leave_if_forked
        os.register_at_fork(after_in_child=self._mark_forked)
        layout = args["layout"]
        self.layout = layout
        self.channel = _core.WorkerChannel(f"/proc/{self.main_pid}/fd/{args['shm_fd']}", layout, args["worker"])
        self.buf = np.frombuffer(self.channel.buffer(), dtype=np.uint8)
        self.same_step = args["autoreset_mode"] == "same_step"
        self.obs_leaves = args["obs_leaves"]  # [(path, dtype, shape, is_discrete)]
        self.action_leaves = args["action_leaves"]
        self.single_obs = len(self.obs_leaves) == 1 and self.obs_leaves[0][0] == ()
        self.single_action = len(self.action_leaves) == 1 and self.action_leaves[0][0] == ()
        f = layout["env_fields"]
        self.OP, self.RESEED, self.TIME_LIMIT, self.FAILED = f["op"], f["reseed"], f["time_limit"], f["failed"]
        self.TERMINATED, self.TRUNCATED = f["terminated"], f["truncated"]
        self.info_capacity = layout["info_capacity"]
        self.error_capacity = layout["error_capacity"]
        self.env_fns: list[Callable] = pickle.loads(args["env_fns"])
        self.first_env = layout["worker_start"][args["worker"]]
        self.slots: dict[int, _EnvSlot] = {}
        for k, fn in enumerate(self.env_fns):
            env_id = self.first_env + k
            slot = _EnvSlot(self.buf, layout, env_id, self.obs_leaves, self.action_leaves)
            slot.pending_seed = args["seeds"][k]
            self.slots[env_id] = slot

    # -- forks of the worker ------------------------------------------------------------------------

    def _mark_forked(self) -> None:
        self.forked = True

    def leave_if_forked(self, env_id: int) -> None:
        """Called where control returns from env code: in a fork of the worker (an env's
        os.fork() whose child returned), report it and exit before writing anything. Forks
        made below Python (a C library's fork()) are caught by the channel at done()."""
        if self.forked:
            self.channel.report_fork(env_id)
            os._exit(0)

    # -- envs -------------------------------------------------------------------------------------

    def make_env(self, slot: _EnvSlot) -> None:
        fn = self.env_fns[slot.env_id - self.first_env]
        slot.env = fn()
        self.leave_if_forked(slot.env_id)
        slot.needs_reset = True

    def make_all(self) -> None:
        for slot in self.slots.values():
            if self.args.get("broken"):
                slot.broken = self.args["broken"]
                continue
            self.make_env(slot)

    def restart(self, slot: _EnvSlot, reason: str) -> str:
        """Re-creates a failed env (up to max_restarts); returns text to add to the error."""
        try:
            if slot.env is not None:
                slot.env.close()
        except Exception:  # noqa: BLE001 - a broken env may fail to close too
            pass
        slot.env = None
        slot.restarts += 1
        if slot.restarts > self.args["max_restarts"]:
            slot.broken = (
                f"env {slot.env_id} failed {slot.restarts} times, more than max_restarts="
                f"{self.args['max_restarts']}; it is not restarted again. Last failure:\n{reason}"
            )
            return "\n(not restarted: max_restarts exceeded)"
        try:
            self.make_env(slot)
            # Reproducible after a restart too: the k-th incarnation gets its own seed.
            base = self.args["seeds"][slot.env_id - self.first_env]
            slot.pending_seed = None if base is None else base + slot.restarts * self.layout["num_envs"]
        except ENV_FAILURES:
            self.leave_if_forked(slot.env_id)
            slot.broken = f"env {slot.env_id} could not be re-created:\n{traceback.format_exc()}"
            return "\n(re-creating it failed too)"
        return ""

    # -- staging ------------------------------------------------------------------------------------

    def write_obs(self, views: list[np.ndarray], obs: Any) -> None:
        if self.single_obs:
            views[0][...] = obs
            return
        for view, (path, _, _, _) in zip(views, self.obs_leaves):
            value = obs
            for key in path:
                value = value[key]
            view[...] = value

    def write_info(self, area: np.ndarray, length: np.ndarray, info: dict) -> None:
        if not info:
            length[()] = 0
            return
        data = pickle.dumps(info, protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) > self.info_capacity:
            raise ValueError(
                f"the info dict pickles to {len(data)} bytes, more than info_bytes={self.info_capacity} "
                f"(pass a larger info_bytes to make_python); keys: {sorted(info)}"
            )
        area[: len(data)] = np.frombuffer(data, dtype=np.uint8)
        length[()] = len(data)

    def fail(self, slot: _EnvSlot, text: str) -> None:
        data = text.encode("utf-8", "replace")[: self.error_capacity]
        slot.error[: len(data)] = np.frombuffer(data, dtype=np.uint8)
        slot.error_len[()] = len(data)
        slot.fixed[self.FAILED] = 1
        slot.info_step_len[()] = 0
        slot.info_reset_len[()] = 0

    def action_of(self, slot: _EnvSlot) -> Any:
        if self.single_action:
            _, dtype, shape, discrete = self.action_leaves[0]
            view = slot.actions[0]
            return int(view) if discrete else view.copy()
        values = {}
        for view, (path, _, _, discrete) in zip(slot.actions, self.action_leaves):
            values[path] = int(view) if discrete else view.copy()
        return _nest(self.args["action_structure"], values)

    def reset_env(self, slot: _EnvSlot, seed: int | None) -> None:
        if seed is None and slot.pending_seed is not None:
            seed = slot.pending_seed
        slot.pending_seed = None
        obs, info = slot.env.reset(seed=seed)
        self.leave_if_forked(slot.env_id)
        self.write_obs(slot.obs_reset, obs)
        self.write_info(slot.info_reset, slot.info_reset_len, info)
        slot.needs_reset = False

    def run(self, env_id: int) -> None:
        slot = self.slots[env_id]
        fixed = slot.fixed
        op = fixed[self.OP]
        fixed[self.FAILED] = 0
        try:
            if slot.broken is not None:
                raise _Broken(slot.broken)
            if op == OP_RESET:
                slot.info_step_len[()] = -1  # no step: the row's info is the reset's
                self.reset_env(slot, int(slot.seed) if fixed[self.RESEED] else None)
            else:
                if slot.needs_reset:
                    raise _Broken(
                        f"env {env_id} was re-created (its worker process was replaced) and its episode was lost; "
                        "it starts a new episode"
                    )
                obs, reward, terminated, truncated, info = slot.env.step(self.action_of(slot))
                self.leave_if_forked(env_id)
                self.write_obs(slot.obs_step, obs)
                slot.reward[()] = reward
                fixed[self.TERMINATED] = bool(terminated)
                fixed[self.TRUNCATED] = bool(truncated)
                self.write_info(slot.info_step, slot.info_step_len, info)
                # Same-step autoreset happens here, where the env is (the time limit is the pool's).
                if self.same_step and (terminated or truncated or fixed[self.TIME_LIMIT]):
                    self.reset_env(slot, None)
                else:
                    slot.info_reset_len[()] = -1
        except _Broken as exc:  # a broken env, or one whose episode was lost: it stays as it is
            self.fail(slot, str(exc))
        except ENV_FAILURES as exc:  # any env failure is reported, then the env restarts
            self.leave_if_forked(env_id)
            text = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
            text += self.restart(slot, text)
            self.fail(slot, text)

    # -- control messages ------------------------------------------------------------------------

    def control(self, conn) -> bool:
        """Handles one control message; False when the worker should exit."""
        message = conn.recv()
        kind = message[0]
        if kind == "close":
            return False
        try:
            if kind == "call":
                _, name, args, kwargs = message
                result = []
                for slot in self.slots.values():
                    attr = getattr(slot.env, name)
                    result.append(attr(*args, **kwargs) if callable(attr) else attr)
            elif kind == "get_attr":
                result = [getattr(slot.env, message[1]) for slot in self.slots.values()]
            elif kind == "set_attr":
                _, name, values = message
                for slot, value in zip(self.slots.values(), values):
                    setattr(slot.env, name, value)
                result = None
            elif kind == "render":
                ids = message[1]
                result = [np.asarray(self.slots[i].env.render()) for i in ids]
            else:
                raise ValueError(f"unknown control message {kind!r}")
            self.leave_if_forked(-1)
            conn.send(("ok", result))
        except ENV_FAILURES as exc:  # reported to the caller
            self.leave_if_forked(-1)
            conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        return True

    def loop(self, conn) -> None:
        spin_us = self.args["spin_us"]
        channel = self.channel
        while True:
            n = channel.wait(0.1, spin_us)
            if n == FORKED:  # a fork of this worker got here (reported by the channel)
                os._exit(0)
            if n < 0:  # the pool shuts down, or wrote this worker off
                return
            for _ in range(n):
                env_id = channel.next()
                self.run(env_id)
                if not channel.done():  # as above
                    os._exit(0)
            if n == 0:
                while conn.poll():
                    if not self.control(conn):
                        return


class _Broken(Exception):
    """An env that cannot run its command (its text says why)."""


def _nest(structure: Any, values: dict, path: tuple = ()) -> Any:
    """Rebuilds a nested action from its leaves: ``structure`` is ("dict", {key: sub}),
    ("tuple", [sub, ...]) or None for a leaf."""
    if structure is None:
        return values[path]
    kind, children = structure
    if kind == "dict":
        return {key: _nest(sub, values, (*path, key)) for key, sub in children.items()}
    return tuple(_nest(sub, values, (*path, i)) for i, sub in enumerate(children))


def main(args: dict, conn) -> None:
    """Entry point of a worker process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from envpool import _core

    try:
        # A process group of its own (see envpool._worker_procs). Not a session: sessions are
        # the kernel's scheduling groups (autogroup), and a worker alone in one waits longer
        # for a core on a busy machine (3-5x fewer steps of a 1 ms env, measured).
        os.setpgid(0, 0)
    except OSError:  # pragma: no cover - already a group leader: then its group is not ended
        pass
    try:
        _core.end_process_group_when_process_exits(args["main_pid"])
    except RuntimeError:  # the pool's process is gone already
        os._exit(0)
    for entry in reversed(args["sys_path"]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    try:
        worker = Worker(args)
        worker.make_all()
    except BaseException:  # noqa: BLE001 - reported to the parent, which raises it
        conn.send(("error", traceback.format_exc()))
        return
    conn.send(("ready", os.getpid()))
    try:
        worker.loop(conn)
    finally:
        for slot in worker.slots.values():
            try:
                if slot.env is not None:
                    slot.env.close()
            except Exception:  # noqa: BLE001 - closing at exit
                pass
        sys.stdout.flush()
