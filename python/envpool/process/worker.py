"""The loop of one worker process of a Python-env pool (see ``envpool.process.pool``).

A worker hosts a contiguous block of envs. It sleeps on its command ring in shared memory
(``_core.WorkerChannel``), runs each command - reset or step one env - and stages the result in
that env's block: observations and actions as raw arrays, info dicts pickled only when they
are not empty, failures as text. Control messages (call, get_attr, set_attr, render, close)
arrive on a pipe, only while none of its envs is in flight.

A worker leads a process group of its own (the terminal's Ctrl-C goes to the foreground group,
the training script's, and the pool ends the worker's whole group), ignores SIGINT too, and
dies with the pool's process (see ``envpool.process.supervisor``). It exits when the pool shuts down
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
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from envpool import payloads
from envpool.leaves import SpaceLeaves

# Ops, as cpp/core/orders.h numbers them.
OP_STEP, OP_RESET = 0, 1
# WorkerChannel.wait(): called in a fork of the worker (WorkerChannel::kForked).
FORKED = -2


# What an env may raise that counts as its own failure. KeyboardInterrupt too: an env that
# raises it (or whose code got a SIGINT of its own making) must not end the worker's other envs.
ENV_FAILURES = (Exception, KeyboardInterrupt)


class _EnvSlot:
    """One hosted env: the env itself and NumPy views of its block in shared memory."""

    def __init__(self, buf: np.ndarray, layout: dict, env_id: int, obs_rows, action_rows):
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
        # One view per core field: (dtype, shape) of each row, as SpaceLeaves.array_specs() lists them.
        self.actions = [view(off, dtype, shape) for off, (dtype, shape) in zip(layout["action"], action_rows)]
        self.obs_step = [view(off, dtype, shape) for off, (dtype, shape) in zip(layout["obs_step"], obs_rows)]
        self.obs_reset = [view(off, dtype, shape) for off, (dtype, shape) in zip(layout["obs_reset"], obs_rows)]
        cap = layout["info_capacity"]
        self.info_step = buf[base + layout["info_step"] : base + layout["info_step"] + cap]
        self.info_reset = buf[base + layout["info_reset"] : base + layout["info_reset"] + cap]
        self.error = buf[base + layout["error"] : base + layout["error"] + layout["error_capacity"]]
        self.env: Any = None
        self.restarts = 0
        self.pending_seed: int | None = None  # the seed of its first reset
        self.pending_options: dict | None = None  # reset(options=...) for its next reset
        self.needs_reset = True  # not reset since it was made
        self.broken: str | None = None  # why it can no longer run (too many restarts)


class _FixedFields(NamedTuple):
    """Where an env block's one-byte fields sit: their offsets, indexes into ``_EnvSlot.fixed``."""

    op: int
    reseed: int
    time_limit: int
    failed: int
    terminated: int
    truncated: int


class _Staging:
    """How an env's block is read and written: its action in, its results out (observation
    arrays, the one-byte flags, info payloads, error text)."""

    obs: SpaceLeaves
    action: SpaceLeaves
    at: _FixedFields
    _info_capacity: int
    _error_capacity: int
    _spill_dir: str | None

    def __init__(self, layout: dict, obs_space: Any, action_space: Any, spill_dir: str | None):
        self.obs = SpaceLeaves(obs_space, "obs", layout["info_capacity"])
        self.action = SpaceLeaves(action_space, "action", layout["info_capacity"])
        self.at = _FixedFields(**{k: layout["env_fields"][k] for k in _FixedFields._fields})
        self._info_capacity = layout["info_capacity"]
        self._error_capacity = layout["error_capacity"]
        self._spill_dir = spill_dir

    def slot(self, buf: np.ndarray, layout: dict, env_id: int) -> _EnvSlot:
        obs_rows = [(np.dtype(s["dtype"]), tuple(s["shape"])) for s in self.obs.array_specs()]
        action_rows = [(np.dtype(s["dtype"]), tuple(s["shape"])) for s in self.action.array_specs()]
        return _EnvSlot(buf, layout, env_id, obs_rows, action_rows)

    def action_of(self, slot: _EnvSlot) -> Any:
        return self.action.read_action(slot.actions)

    def write_info(self, area: np.ndarray, length: np.ndarray, info: dict, objects: list | None) -> None:
        """Stages the info dict (pickled, when not empty) and the observation's variable-size
        values (pickled with it, always, when the space has any); see payloads.py."""
        if not info and objects is None:
            length[()] = 0
            return
        what = "the info dict" if objects is None else "the info dict and variable-size observation values"
        data = payloads.pack(info if objects is None else (info, objects), self._info_capacity, self._spill_dir, what)
        area[: len(data)] = np.frombuffer(data, dtype=np.uint8)
        length[()] = len(data)

    def fail(self, slot: _EnvSlot, text: str) -> None:
        data = text.encode("utf-8", "replace")[: self._error_capacity]
        slot.error[: len(data)] = np.frombuffer(data, dtype=np.uint8)
        slot.error_len[()] = len(data)
        slot.fixed[self.at.failed] = 1
        slot.info_step_len[()] = 0
        slot.info_reset_len[()] = 0


class Worker:
    """One worker process's envs and its loop: run the commands the pool queues, answer the
    control messages."""

    def __init__(self, args: dict):
        from envpool import _core

        self.args = args
        self.forked = False  # set in a fork of this process (os.fork in an env), see leave_if_forked
        os.register_at_fork(after_in_child=self._mark_forked)
        layout = self.layout = args["layout"]
        path = f"/proc/{args['main_pid']}/fd/{args['shm_fd']}"
        self.channel = _core.WorkerChannel(path, layout, args["worker"])
        buf = np.frombuffer(self.channel.buffer(), dtype=np.uint8)
        self.same_step = args["autoreset_mode"] == "same_step"
        obs_space, action_space, self.expected_spaces = pickle.loads(args["spaces"])
        self.stage = _Staging(layout, obs_space, action_space, args["spill_dir"])
        self.env_fns: list[Callable] = pickle.loads(args["env_fns"])
        self.first_env = layout["worker_start"][args["worker"]]
        self.slots: dict[int, _EnvSlot] = {}
        for k in range(len(self.env_fns)):
            env_id = self.first_env + k
            slot = self.stage.slot(buf, layout, env_id)
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
        check_spaces(slot.env, slot.env_id, self.expected_spaces)

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

    def reset_env(self, slot: _EnvSlot, seed: int | None) -> None:
        if seed is None and slot.pending_seed is not None:
            seed = slot.pending_seed
        slot.pending_seed = None
        options, slot.pending_options = slot.pending_options, None
        obs, info = slot.env.reset(seed=seed, options=options)
        self.leave_if_forked(slot.env_id)
        objects = self.stage.obs.write(obs, slot.obs_reset, f"the observation of env {slot.env_id}'s reset")
        self.stage.write_info(slot.info_reset, slot.info_reset_len, _checked_info(info, slot.env_id, "reset"), objects)
        slot.needs_reset = False

    def run(self, env_id: int) -> None:
        slot = self.slots[env_id]
        fixed, at = slot.fixed, self.stage.at
        op = fixed[at.op]
        fixed[at.failed] = 0
        try:
            if slot.broken is not None:
                raise _Broken(slot.broken)
            if op == OP_RESET:
                slot.info_step_len[()] = -1  # no step: the row's info is the reset's
                self.reset_env(slot, int(slot.seed) if fixed[at.reseed] else None)
            else:
                if slot.needs_reset:
                    raise _Broken(
                        f"env {env_id} was re-created (its worker process was replaced) and its episode was lost; "
                        "it starts a new episode"
                    )
                obs, reward, terminated, truncated, info = slot.env.step(self.stage.action_of(slot))
                self.leave_if_forked(env_id)
                objects = self.stage.obs.write(obs, slot.obs_step, f"the observation of env {env_id}'s step")
                slot.reward[()] = _checked_reward(reward, env_id)
                fixed[at.terminated] = bool(terminated)
                fixed[at.truncated] = bool(truncated)
                self.stage.write_info(slot.info_step, slot.info_step_len, _checked_info(info, env_id, "step"), objects)
                # Same-step autoreset happens here, where the env is (the time limit is the pool's).
                if self.same_step and (terminated or truncated or fixed[at.time_limit]):
                    self.reset_env(slot, None)
                else:
                    slot.info_reset_len[()] = -1
        except _Broken as exc:  # a broken env, or one whose episode was lost: it stays as it is
            self.stage.fail(slot, str(exc))
        except ENV_FAILURES as exc:  # any env failure is reported, then the env restarts
            self.leave_if_forked(env_id)
            text = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
            text += self.restart(slot, text)
            self.stage.fail(slot, text)

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
                    # As gymnasium's vector envs: the attribute of the first wrapper (or the env) that has it.
                    attr = slot.env.get_wrapper_attr(name)
                    result.append(attr(*args, **kwargs) if callable(attr) else attr)
            elif kind == "get_attr":
                result = [slot.env.get_wrapper_attr(message[1]) for slot in self.slots.values()]
            elif kind == "set_attr":
                _, name, values = message
                for slot, value in zip(self.slots.values(), values):
                    slot.env.set_wrapper_attr(name, value)
                result = None
            elif kind == "render":
                ids = message[1]
                result = [self.slots[i].env.render() for i in ids]
            elif kind == "reset_options":
                for env_id, options in message[1].items():
                    self.slots[env_id].pending_options = options
                result = None
            else:
                raise ValueError(f"unknown control message {kind!r}")
            self.leave_if_forked(-1)
            conn.send(("ok", result))
        except ENV_FAILURES as exc:  # reported to the caller
            self.leave_if_forked(-1)
            text = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
            reply = ("error", text)
            # The exception itself when it survives pickling (the caller raises it), else its text;
            # a KeyboardInterrupt of the env's own is never re-raised as the user's.
            if isinstance(exc, Exception):
                try:
                    pickle.loads(pickle.dumps(exc))
                    reply = ("raised", (exc, text))
                except Exception:  # noqa: BLE001
                    pass
            conn.send(reply)
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


def check_spaces(env: Any, env_id: int, expected: tuple | None) -> None:
    """Refuses an env whose spaces differ from the pool's, as gymnasium's ``AsyncVectorEnv``
    does: ``expected`` is (observation_mode, single observation space, single action space)."""
    if expected is None:
        return
    from gymnasium.spaces.utils import is_space_dtype_shape_equiv

    mode, obs_space, action_space = expected
    if mode == "same" and env.observation_space != obs_space:
        raise SpaceMismatch(
            f"observation_mode='same', but the sub-environments observation spaces are not equivalent. env "
            f"{env_id}'s is {env.observation_space}, env 0's {obs_space}. If this is intentional, use "
            "`observation_mode='different'` instead."
        )
    if mode != "same" and not is_space_dtype_shape_equiv(obs_space, env.observation_space):
        raise SpaceMismatch(
            f"observation_mode={mode!r}, but the sub-environment's observation spaces do not share a common shape "
            f"and dtype: env {env_id}'s is {env.observation_space}, the pool's {obs_space}"
        )
    if env.action_space != action_space:
        raise SpaceMismatch(
            f"env {env_id}'s action space {env.action_space} differs from env 0's {action_space}; in order to batch "
            "actions, the action spaces of all envs must be equal"
        )


class SpaceMismatch(Exception):
    """An env's spaces differ from the pool's (the parent raises it as a RuntimeError)."""


def _checked_reward(reward: Any, env_id: int) -> float:
    """A reward as a float; anything that is not one real number is an error naming the env
    (a None reward would otherwise become NaN, a string be parsed)."""
    if isinstance(reward, (int, float, np.integer, np.floating, np.bool_)):
        return float(reward)
    arr = np.asarray(reward) if not isinstance(reward, (str, bytes)) else None
    if arr is not None and arr.shape == () and arr.dtype.kind in "biuf":
        return float(arr)
    raise TypeError(f"the reward of env {env_id}'s step must be a real number, got {type(reward).__name__} {reward!r}")


def _checked_info(info: Any, env_id: int, what: str) -> dict:
    if not isinstance(info, dict):
        raise TypeError(f"the info of env {env_id}'s {what} must be a dict, got {type(info).__name__} {info!r}")
    return info


def main(args: dict, conn) -> None:
    """Entry point of a worker process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from envpool import _core

    try:
        # A process group of its own (see envpool.process.supervisor). Not a session: sessions are
        # the kernel's scheduling groups (autogroup), and a worker alone in one waits longer
        # for a core on a busy machine (3-5x fewer steps of a 1 ms env, measured).
        os.setpgid(0, 0)
    except OSError:  # pragma: no cover - already a group leader: then its group is not ended
        pass
    try:
        # The spill directory goes with the pool's process too: a SIGKILLed parent leaves it.
        _core.end_process_group_when_process_exits(args["main_pid"], args["spill_dir"])
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
