"""The worker processes of a ``make_python`` pool: started, watched, replaced and ended here.

How a worker lives and dies (``_worker.main`` is its side of it):
- It leads a process group of its own, which holds every process its envs start
  (``subprocess.Popen`` in a step), and the terminal's Ctrl-C, sent to the foreground group
  (the training script's), does not reach it. Ending a worker ends its group: at ``close()``, at interpreter
  exit and when a worker is replaced, nothing it started stays behind.
- It dies with the pool's *process*: a thread in it waits on a pidfd of that process
  (``_core.end_process_group_when_process_exits``) and kills the worker's group when the
  process exits, however it exits (SIGKILL included). ``PR_SET_PDEATHSIG`` cannot do that: it
  fires when the *thread* that forked the worker exits, which killed every worker of a pool
  made in a short-lived thread (a thread pool, a Ray actor's call, a web handler).

A monitor thread reports workers that died or overran ``step_timeout`` to the core, which
settles their commands while the caller collects, and replaces each settled one. The thread
holds this object, not the pool, so that a pool dropped without ``close()`` is collected (its
finalizer shuts this down); and once shut down it stops without a word, whatever it was doing.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.util  # noqa: F401 - its exit hook must be registered before ours (see below)
import os
import signal
import threading
import time
import weakref
from multiprocessing.connection import wait as wait_for_sentinels
from typing import Any

from envpool import _core
from envpool.process import worker as _worker

# How long close() waits for workers to exit when asked, before it kills them.
EXIT_GRACE_S = 2.0
# How long a worker may take to make its envs.
START_TIMEOUT_S = 120.0

_live: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _shut_down_live_pools() -> None:
    # Registered after multiprocessing's own exit hook, so it runs first (atexit runs hooks
    # last-in first-out): the workers are asked to stop and their groups ended before
    # multiprocessing sends its daemonic children SIGTERM, which would leave their groups.
    for procs in list(_live):
        procs.shutdown()


def end_group(pid: int | None) -> None:
    """SIGKILL to the process group a worker leads (the worker, whatever its envs started)."""
    if pid is None or pid <= 1 or pid == os.getpgrp():
        return  # never the caller's own group
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # the group is gone already
        pass


def live_groups() -> set[int]:
    """The process groups that have a live (not zombie) process, read from /proc."""
    groups = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if fields[0] != "Z":
            groups.add(int(fields[2]))
    return groups


def await_group_gone(pgids: list[int], timeout: float) -> None:
    """Waits up to ``timeout`` seconds until the groups ``end_group`` killed are empty: SIGKILL
    is delivered when a process next runs, and a member that is not this process's child (an
    env's fork, reparented when its worker died) cannot be waited for otherwise. On a loaded
    machine that can take a while; without it a fork could outlive close(), or write to the
    ring after its worker's replacement took it."""
    deadline = time.monotonic() + timeout
    pending = [g for g in pgids if g is not None and g > 1 and g != os.getpgrp()]
    while pending and time.monotonic() < deadline:
        live = live_groups()  # one pass over /proc for all the groups
        pending = [g for g in pending if g in live]
        if pending:
            time.sleep(0.005)


class _Launcher:
    """Starts incarnation k of worker w: a process running ``worker.main`` on ``base_args[w]``,
    with a pipe for control messages."""

    def __init__(self, context: str, base_args: list[dict], num_envs: int):
        self._ctx = multiprocessing.get_context(context)
        self._base_args = base_args
        self._num_envs = num_envs
        self.restarts = [0] * len(base_args)  # per worker: how many times it was replaced

    def launch(self, w: int, broken: str | None) -> tuple[Any, Any]:
        """The new process and the parent's end of its pipe."""
        args = dict(self._base_args[w])
        # Reproducible after a replacement too: the k-th incarnation of env i gets its own seed.
        shift = self.restarts[w] * self._num_envs
        args["seeds"] = [None if s is None else s + shift for s in args["seeds"]]
        args["broken"] = broken
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker.main, args=(args, child), name=f"envpool-worker-{w}", daemon=True)
        proc.start()
        child.close()
        return proc, parent


class WorkerProcesses:
    """The worker processes of one pool (worker ``w`` hosts envs ``worker_start[w]`` to
    ``worker_start[w + 1] - 1``), started from ``base_args[w]`` (``worker.main``'s arguments;
    ``seeds`` are those of the first incarnation)."""

    def __init__(
        self,
        core,
        context: str,
        worker_start: list[int],
        base_args: list[dict],
        *,
        step_timeout: float | None,
        max_restarts: int,
    ):
        self.core = core
        self.worker_start = worker_start
        self._launcher = _Launcher(context, base_args, worker_start[-1])
        self._step_timeout = step_timeout
        self._max_restarts = max_restarts
        n = len(base_args)
        self.procs: list[Any] = [None] * n
        self.conns: list[Any] = [None] * n
        self._kill_reason: list[str | None] = [None] * n
        self._lock = threading.RLock()  # the monitor thread and the user thread start and end workers
        self._closed = threading.Event()
        self._closing = threading.Lock()  # makes shutdown() idempotent
        self._monitor: threading.Thread | None = None

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def envs_of(self, w: int) -> str:
        s, e = self.worker_start[w], self.worker_start[w + 1] - 1
        return f"env {s}" if s == e else f"envs {s}-{e}"

    # -- starting ----------------------------------------------------------------------------------

    def start(self) -> None:
        """Starts every worker and waits until each has made its envs; then the monitor."""
        _live.add(self)
        try:
            for w in range(len(self.procs)):
                self._start(w)
            for w in range(len(self.procs)):
                self._await_ready(w)
        except BaseException:
            self.shutdown()
            raise
        self._monitor = threading.Thread(target=self._watch, name="envpool-worker-monitor", daemon=True)
        self._monitor.start()

    def _start(self, w: int, broken: str | None = None) -> None:
        self.procs[w], self.conns[w] = self._launcher.launch(w, broken)

    def _await_ready(self, w: int) -> None:
        conn, proc = self.conns[w], self.procs[w]
        deadline = time.monotonic() + START_TIMEOUT_S
        while not conn.poll(0.05):
            if not proc.is_alive() or self._closed.is_set():
                raise RuntimeError(f"worker process {w} exited with code {proc.exitcode} while starting its envs")
            if time.monotonic() > deadline:
                raise RuntimeError(f"worker process {w} did not start its envs within {START_TIMEOUT_S:.0f} s")
        try:
            kind, payload = conn.recv()
        except EOFError as exc:
            raise RuntimeError(f"worker process {w} exited with code {proc.exitcode} while starting its envs") from exc
        if kind != "ready":
            raise RuntimeError(f"worker process {w} could not make its envs:\n{payload}")

    # -- the monitor thread ----------------------------------------------------------------------

    def _watch(self) -> None:
        """Reports dead or hung workers and replaces them, until shut down."""
        while not self._closed.wait(0.01):
            try:
                for w in range(len(self.procs)):
                    if self._closed.is_set():
                        return
                    self._check(w)
            except Exception:
                if self._closed.is_set():
                    return  # closed under us (the core refuses calls): nothing left to watch
                raise

    def _check(self, w: int) -> None:
        proc = self.procs[w]
        if proc is None:
            return
        if self.core.death_settled(w):
            self._replace(w)
        elif not proc.is_alive():
            self._report_death(w, proc)
        elif self._step_timeout is not None:
            env_id, since = self.core.worker_activity(w)
            if env_id >= 0 and since > 0 and _core.steady_clock_ns() - since > self._step_timeout * 1e9:
                self._kill_reason[w] = (
                    f"env {env_id} did not finish its reset/step within step_timeout={self._step_timeout} s; "
                    f"its worker process {w} was killed and replaced (its other envs restart too)"
                )
                end_group(proc.pid)
                proc.kill()  # in case it left its group

    def _report_death(self, w: int, proc) -> None:
        proc.join(timeout=1.0)
        code = proc.exitcode
        reason = self._kill_reason[w]
        if reason is None:
            how = (
                f"was killed by {signal.Signals(-code).name}"
                if code is not None and code < 0
                else f"exited with code {code}"
            )
            reason = f"the worker process {w} hosting {self.envs_of(w)} {how}; its envs restart in a new worker"
        self._kill_reason[w] = None
        self.core.worker_died(w, reason)

    def _replace(self, w: int) -> None:
        with self._lock:
            if self._closed.is_set():
                return
            # The old worker may still run (written off by the core: a fork of it wrote to the
            # shared memory): it and its group go before the replacement takes the ring.
            old = self.procs[w]
            end_group(old.pid)
            old.kill()
            old.join(timeout=5.0)
            await_group_gone([old.pid], 5.0)
            restarts = self._launcher.restarts
            restarts[w] += 1
            broken = None
            if restarts[w] > self._max_restarts:
                broken = (
                    f"the worker process {w} hosting {self.envs_of(w)} died {restarts[w]} times, more than "
                    f"max_restarts={self._max_restarts}; its envs are not restarted again"
                )
            self.conns[w].close()
            self.core.revived(w)
            self._start(w, broken=broken)
        try:
            self._await_ready(w)
        except RuntimeError:
            pass  # a replacement that could not make its envs is gone: reported as a death next

    # -- control messages (call, get_attr, set_attr, render) ------------------------------------

    def control(self, w: int, message: tuple) -> Any:
        with self._lock:
            conn = self.conns[w]
            conn.send(message)
            self.core.wake_worker(w)
            while not conn.poll(0.05):
                if self._closed.is_set() or not self.procs[w].is_alive():
                    raise RuntimeError(f"worker process {w} died while answering {message[0]}()")
            kind, payload = conn.recv()
        if kind == "raised":  # the env's own exception, re-raised here as gymnasium's vector envs do
            exc, text = payload
            exc.add_note(f"(raised in {message[0]}() by worker process {w}:\n{text})")
            raise exc
        if kind != "ok":
            raise RuntimeError(f"{message[0]}() failed in worker process {w}:\n{payload}")
        return payload

    # -- ending ------------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stops the workers (asked, then killed) with their process groups and closes the
        core; idempotent, silent and bounded: a few seconds at most."""
        with self._closing:
            if self._closed.is_set():
                return
            self._closed.set()  # first: a control() waiting on a worker gives up within 50 ms
        _live.discard(self)
        try:
            self.core.close()  # sets the shutdown flag and wakes every worker
        except RuntimeError:
            pass
        with self._lock:  # a replacement being started is in self.procs once this is taken
            procs = [p for p in self.procs if p is not None]
        _reap(procs, EXIT_GRACE_S)
        for proc in procs:
            end_group(proc.pid)  # what its envs started; the worker too if it is still there
            if proc.is_alive():
                proc.kill()
        _reap(procs, 2.0)
        await_group_gone([proc.pid for proc in procs], 2.0)
        for conn in self.conns:
            if conn is not None:
                conn.close()
        monitor = self._monitor
        if monitor is not None and monitor is not threading.current_thread():
            monitor.join(timeout=1.0)


def _reap(procs: list, timeout: float) -> None:
    """Waits up to ``timeout`` seconds for ``procs`` to exit and reaps those that did. Not
    ``Process.join(timeout)``: that imports ``multiprocessing.connection`` on each call, and
    shutdown() imports nothing (it runs at interpreter exit too, when imports fail)."""
    pending = {proc.sentinel: proc for proc in procs}
    deadline = time.monotonic() + timeout
    while pending:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for sentinel in wait_for_sentinels(list(pending), left):
            pending.pop(sentinel).join()  # exited: returns at once
