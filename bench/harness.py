"""What every bench shares: the children that measure (the line a child prints its result on, the
worker scripts' common head, a pool's timed loop, the C++ loops' loop), how a child is started
(its interpreter's environment, busy competitor processes beside it), the machine and command a
result came from, number formats, the common arguments and the output files.

A bench runs each measurement in a fresh interpreter (``python -c WORKER json``) so that the
packages compared never share a process; the child prints one line ``RESULT_MARK + json`` and
the parent finds it with :func:`parse_result`. Benches run from the repository root as modules,
``python -m bench.core.throughput``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shlex
import signal
import statistics
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

RESULT_MARK = "@@BENCH_RESULT@@ "
REPO_ROOT = Path(__file__).resolve().parent.parent

# The head of a worker script that runs alone under ``python -c`` (WORKER_PRELUDE + the script's
# own part), in our interpreter and in a peer's (the reference EnvPool's, PufferLib's), so the
# standard library and numpy only: the result line, random action batches drawn before the
# timing (so no RNG is timed), the timed loops of a step() function (run_for and measure: a call
# count fixed by the first round; timed_rate: a wall time) and the versions of the packages that
# interpreter imports.
WORKER_PRELUDE = r'''
import json, math, sys, time
import numpy as np

MARK = "@@BENCH_RESULT@@ "  # RESULT_MARK


def emit(obj):
    print(MARK + json.dumps(obj), flush=True)


def random_action_block(space, batch, n_batches, seed):
    """n_batches pre-generated batches of `batch` random actions of one env's `space`."""
    rng = np.random.default_rng(seed)
    if hasattr(space, "n"):  # Discrete
        start = int(getattr(space, "start", 0))
        acts = rng.integers(start, start + int(space.n), size=(n_batches, batch))
    else:  # Box
        low = np.broadcast_to(space.low, space.shape)
        high = np.broadcast_to(space.high, space.shape)
        acts = rng.uniform(low, high, size=(n_batches, batch) + tuple(space.shape))
    return [np.ascontiguousarray(x, dtype=space.dtype) for x in acts]


def run_for(step, seconds, min_calls):
    """Calls step() for at least `seconds` and `min_calls`: (calls, elapsed)."""
    t0 = time.perf_counter()
    calls = 0
    while calls < min_calls or time.perf_counter() - t0 < seconds:
        step()
        calls += 1
    return calls, time.perf_counter() - t0


def measure(step, a):
    """Times step() (which returns the env steps it made) after a["warmup"] seconds: a["calls"]
    calls, or (0, the first round) as many as take a["seconds"] at the rate after the warm-up."""
    run_for(step, a["warmup"], 3)
    calls = a["calls"]
    if not calls:  # first round: the rate after the warm-up sets the call count
        probe, probe_s = run_for(step, a["seconds"] / 3, 2)
        calls = max(3, math.ceil(a["seconds"] * probe / probe_s))
    steps = 0
    t0 = time.perf_counter()
    for _ in range(calls):
        steps += step()
    elapsed = time.perf_counter() - t0
    return {"calls": calls, "env_steps": steps, "elapsed": elapsed, "steps_per_s": steps / elapsed}


def timed_rate(step, envs_per_call, a):
    """Env steps/s of step(k) (k: the call's index): a["warmup"] s untimed, then a["seconds"] s."""
    k, end = 0, time.perf_counter() + a["warmup"]
    while time.perf_counter() < end:
        step(k)
        k += 1
    k, t0 = 0, time.perf_counter()
    while time.perf_counter() < t0 + a["seconds"]:
        step(k)
        k += 1
    return k * envs_per_call / (time.perf_counter() - t0)


def step_loop(env, actions, n):
    """loop(seconds) -> (env steps, elapsed): full-batch step() calls of n envs, cycling through
    `actions` (from call to call of loop too)."""
    state = {"k": 0}

    def loop(seconds):
        k, steps = state["k"], 0
        t0 = now = time.perf_counter()
        while now < t0 + seconds:
            env.step(actions[k])
            k = (k + 1) % len(actions)
            steps += n
            now = time.perf_counter()
        state["k"] = k
        return steps, now - t0
    return loop


def recv_send_loop(env, actions):
    """The same for recv() / send(actions, env_id) cycles, counting the env steps received."""
    state = {"k": 0}

    def loop(seconds):
        k, steps = state["k"], 0
        t0 = now = time.perf_counter()
        while now < t0 + seconds:
            env_id = env.recv()[4]["env_id"]
            env.send(actions[k][: len(env_id)], env_id)
            k = (k + 1) % len(actions)
            steps += len(env_id)
            now = time.perf_counter()
        state["k"] = k
        return steps, now - t0
    return loop


def cycler(items):
    """A function returning items[0], items[1], ... round and round."""
    state = {"k": -1}

    def nxt():
        state["k"] = (state["k"] + 1) % len(items)
        return items[state["k"]]
    return nxt


def emit_measured(built, a):
    """Emits measure() of a (step, close) pair, closing it after; a dict (a skip) as it is."""
    if isinstance(built, dict):
        return emit(built)
    step, close = built
    try:
        out = measure(step, a)
    finally:
        close()
    emit(out)


def versions(modules):
    """python, numpy and each module's version and file (or why it does not import)."""
    out = {"python": sys.version.split()[0], "numpy": np.__version__, "executable": sys.executable}
    for mod in modules:
        try:
            m = __import__(mod)
            out[mod] = str(getattr(m, "__version__", "?"))
            out[mod + "_file"] = getattr(m, "__file__", "?")
        except Exception as e:  # noqa: BLE001
            out[mod] = "unavailable: %s" % e
    return out
'''

# One pool, one mode, a timed loop, executed by ``python -c POOL_WORKER json(payload)`` in a fresh
# child (the core benches, tools/ab_throughput.py). payload: kind ("native", "python" for make_python,
# "ref" for the reference EnvPool under its own interpreter), task, num_envs, batch_size (full
# batch when equal to num_envs, else the recv/send loop), make_kwargs, seconds, warmup. Prints
# {"sps": env steps per second}.
POOL_WORKER = r"""
import json, sys, time
import numpy as np
import envpool

a = json.loads(sys.argv[1])
N, B, kw = a["num_envs"], a["batch_size"], dict(a["make_kwargs"])
if a["kind"] == "python":
    env = envpool.make_python(a["task"], num_envs=N, batch_size=B, seed=1, **kw)
else:
    if a["task"] == "StepCounter-v0":
        import envpool.testing
        envpool.testing.load_step_counter()
    if a["kind"] == "ref":
        kw["env_type"] = "gymnasium"
    env = envpool.make(a["task"], num_envs=N, batch_size=B, seed=1, **kw)
# The reference's action_space is one env's; ours is the batch's, with single_action_space.
space = env.action_space if a["kind"] == "ref" else env.single_action_space
rng = np.random.default_rng(0)
if hasattr(space, "n"):
    acts = rng.integers(int(getattr(space, "start", 0)), int(getattr(space, "start", 0)) + int(space.n), size=(16, N))
else:
    acts = rng.uniform(space.low, space.high, size=(16, N) + tuple(space.shape))
acts = [np.ascontiguousarray(x, dtype=space.dtype) for x in acts]


def full(seconds):
    k = steps = 0
    t0 = now = time.perf_counter()
    while now < t0 + seconds:
        env.step(acts[k & 15])
        k += 1
        steps += N
        now = time.perf_counter()
    return steps / (now - t0)


def partial(seconds):
    k = steps = 0
    t0 = now = time.perf_counter()
    while now < t0 + seconds:
        ids = env.recv()[4]["env_id"]
        env.send(acts[k & 15][: len(ids)], ids)
        k += 1
        steps += len(ids)
        now = time.perf_counter()
    return steps / (now - t0)


if B == N:
    env.reset()
    loop = full
else:
    env.async_reset()
    loop = partial
loop(a["warmup"])
sps = loop(a["seconds"])
env.close()
print("@@BENCH_RESULT@@ " + json.dumps({"sps": sps}), flush=True)
"""


# A plain C++ loop over the package's own env class (bench/cpp/<family>_raw.cc, built by
# build_bench_extension): T threads each stepping N / T envs, no pool and no Python per step; the
# limit that classic_limit.py and thread_scaling.py hold the pool to. payload: task, num_envs,
# threads, seconds, warmup. Prints {"sps": env steps per second}.
RAW_WORKER = r"""
import json, sys

a = json.loads(sys.argv[1])
task, N, T = a["task"], a["num_envs"], a["threads"]
if task.startswith("CartPole"):
    import envpool_classic_raw
    run = lambda s: envpool_classic_raw.cartpole_steps_per_second(N, T, s)
else:
    import envpool, envpool_mujoco_raw
    cfg = envpool._core.env_spec(task, {})["config"]
    run = lambda s: envpool_mujoco_raw.steps_per_second(cfg["xml_file"], N, T, s, cfg["frame_skip"], True)
run(a["warmup"])
print("@@BENCH_RESULT@@ " + json.dumps({"sps": run(a["seconds"])}), flush=True)
"""


def parse_result(stdout: str) -> Any:
    """The JSON of the last result line in a child's stdout, or None when it printed none."""
    found = None
    for line in stdout.splitlines():
        if line.startswith(RESULT_MARK):
            found = json.loads(line[len(RESULT_MARK) :])
    return found


def spread(xs: Sequence[float]) -> str:
    """min..max as percentages of the median."""
    m = statistics.median(xs)
    return f"{100 * (min(xs) / m - 1):+.0f}..{100 * (max(xs) / m - 1):+.0f}%"


def fmt_rate(x: float) -> str:
    """Steps per second, short: 1.234M or 56.7k."""
    return f"{x / 1e6:.3f}M" if x >= 1e6 else f"{x / 1e3:.1f}k"


def rate_cell(xs: Sequence[float]) -> str:
    """A table cell of samples: their median rate and spread, "1.234M (-3..+2%)"; "-" for none."""
    return f"{fmt_rate(statistics.median(xs))} ({spread(xs)})" if xs else "-"


def md_table(head: Sequence[str], rows: Iterable[Sequence[Any]], align: str = "") -> list[str]:
    """The lines of a Markdown table; ``align`` has an "l" or "r" per column (default: the first
    column left, the others right)."""
    align = align or "l" + "r" * (len(head) - 1)
    lines = ["| " + " | ".join(head) + " |", "|" + "".join("---:|" if a == "r" else "---|" for a in align)]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


def run_args(
    description: str, rounds: int, seconds: float, warmup: float, peer: bool = False
) -> argparse.ArgumentParser:
    """The parser with what every side-by-side script takes: --rounds, --seconds (timed wall time
    per sample), --warmup (untimed before it), --out (the folder of the .md and .json, default
    bench/results) and, with ``peer``, --peer-python (a reference EnvPool venv, default $PEER_PYTHON,
    as bench/tools/peers/envpool.sh makes it; see :func:`peer_python`)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--seconds", type=float, default=seconds, help="timed wall time per sample")
    ap.add_argument("--warmup", type=float, default=warmup, help="untimed wall time before it")
    ap.add_argument("--out", default=str(REPO_ROOT / "bench" / "results"))
    if peer:
        ap.add_argument(
            "--peer-python", default=os.environ.get("PEER_PYTHON"), help="python of a reference EnvPool venv"
        )
    return ap


def peer_python(given: str | None) -> str:
    """The reference EnvPool's interpreter for a family bench: ``given``, '' to leave it out, or
    (None) the venv bench/tools/peers/envpool.sh makes once and prints."""
    if given is not None:
        return given
    script = REPO_ROOT / "bench" / "tools" / "peers" / "envpool.sh"
    return subprocess.run([str(script)], check=True, capture_output=True, text=True).stdout.strip()


def fmt_sig(x: float | None) -> str:
    """A rate to three significant digits (25.8M, 398k, 6.5k), "-" for none."""
    if x is None:
        return "-"
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def half_range(xs: Sequence[float]) -> str:
    """(max - min) / 2 as a percentage of the median, as a noise mark: "±7%"; "" for one sample."""
    if len(xs) < 2:
        return ""
    return f"±{(max(xs) - min(xs)) / statistics.median(xs) / 2 * 100:.0f}%"


def int_list(text: str) -> list[int]:
    """A command-line list: "8,64,256" -> [8, 64, 256]."""
    return [int(x) for x in text.split(",") if x]


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, else what platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_revision() -> str:
    """This checkout's short commit, "-dirty" when tracked files changed; "unknown" outside git."""
    try:
        git = ["git", "-C", str(REPO_ROOT)]
        rev = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    rev_text = rev.stdout.strip()
    return rev_text + ("-dirty" if dirty.stdout.strip() else "") if rev_text else "unknown"


def command_line() -> str:
    """The command that ran this script (``python3 -m bench.x.y ...``), with its PYTHONPATH, as it
    can be pasted again."""
    prefix = f"PYTHONPATH={shlex.quote(os.environ['PYTHONPATH'])} " if os.environ.get("PYTHONPATH") else ""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    script = ["-m", spec.name] if spec else [os.path.relpath(os.path.abspath(sys.argv[0]), os.getcwd())]
    return prefix + " ".join(["python3", *script] + [shlex.quote(a) for a in sys.argv[1:]])


def machine_info(**extra: Any) -> dict[str, Any]:
    """Where and when a result was taken: platform, CPU, usable CPUs, load average, commit, date
    (UTC), command; plus ``extra`` (each script's interpreters and package versions)."""
    return {
        "platform": platform.platform(),
        "cpu_model": cpu_model(),
        "nproc": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)),
        "loadavg_start": os.getloadavg(),
        "git_revision": git_revision(),
        "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "command": command_line(),
        **extra,
    }


def load_span(loads: Sequence[Sequence[float]]) -> str:
    """The 1-minute load averages seen during a run (os.getloadavg() samples), as min..max."""
    ones = [load[0] for load in loads]
    return f"{min(ones):.2f}..{max(ones):.2f}"


def loadavg_text() -> str:
    """The 1, 5 and 15-minute load averages, "1.52 1.80 2.01"."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def child_env(*paths: str, peer: bool = False) -> dict[str, str]:
    """The environment of a measuring child process. Ours (``peer=False``): this process's, with
    ``paths`` (the repository root for bench.envs.burn_env, a built C++ loop) before its
    PYTHONPATH, so the child imports the envpool this interpreter imports (choose a build with
    PYTHONPATH). A peer's interpreter (``peer=True``): without this process's PYTHONPATH and
    PYTHONHOME, only ``paths``, so that a release that also imports as ``envpool`` never sees ours."""
    env = dict(os.environ)
    if peer:
        env.pop("PYTHONPATH", None)
        env.pop("PYTHONHOME", None)
    # Absolute: the children run elsewhere (cwd /tmp), where a relative --raw-dir means nothing.
    joined = os.pathsep.join([*map(os.path.abspath, paths), *filter(None, [env.get("PYTHONPATH")])])
    if joined:
        env["PYTHONPATH"] = joined
    return env


def cpu_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs from /proc/stat, (0, 0) where there is none: what the
    whole machine, other jobs included, spent while a sample ran."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    idle = v[3] + (v[4] if len(v) > 4 else 0)  # idle + iowait; guest time is inside user already
    return sum(v[:8]) - idle, sum(v[:8])


def run_child(python: str, source: str, payload: dict[str, Any], env: dict[str, str], cwd: Any, timeout: float) -> dict:
    """Runs ``python -c source json(payload)`` and returns the result it printed after
    RESULT_MARK, or ``{"error": ...}`` (a timeout, or its exit status and last lines): one
    measurement in a child process, so that a peer that crashes or conflicts takes nothing down.
    The child leads a process group of its own, killed when it is done or timed out: processes
    it started (a peer's vector-env workers, hung or not) do not outlive the measurement."""
    with subprocess.Popen(
        [python, "-c", source, json.dumps(payload)],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stdout = None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:  # the child and all it started are gone
                pass
        if stdout is None:
            proc.communicate()
            return {"error": f"timed out after {timeout:.0f} s"}
    found = parse_result(stdout)
    if found is not None:
        return found
    tail = [line for line in (stderr or stdout).strip().splitlines() if line.strip()][-3:]
    return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}


def child_rate(python: str, worker: str, payload: dict, peer: bool, timeout: float, key: str = "steps_per_s"):
    """One sample: ``worker`` run by ``python`` in /tmp (a peer's without our PYTHONPATH: see
    :func:`child_env`); the rate it printed under ``key``, or None after saying why on stderr."""
    found = run_child(python, worker, payload, child_env(peer=peer), "/tmp", timeout)
    if "error" in found:
        print(f"{payload.get('kind')} {payload.get('task', '')} failed: {found['error']}", file=sys.stderr)
    return found.get(key)


# A competitor: pure CPU work in chunks of ~10 ms, checking between chunks that the process that
# started it still lives (its parent id changes when it dies), so none outlives a killed run.
COMPETITOR = r"""
import os
parent = os.getppid()
x = 0
while os.getppid() == parent:
    for i in range(200000):
        x = (x * 31 + i) & 0xFFFFFFFF
"""


class Competitors:
    """``count`` busy processes (the stand-in for a learner or another job on the same cores),
    running from ``__enter__`` until ``__exit__`` kills them (also when the block raises, Ctrl-C
    included); :meth:`kill_all` ends any still running (a SIGTERM handler's cleanup)."""

    live: list[subprocess.Popen] = []  # every running one

    def __init__(self, count: int) -> None:
        self.count = count
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> Competitors:
        try:
            for _ in range(self.count):
                p = subprocess.Popen([sys.executable, "-c", COMPETITOR], stdin=subprocess.DEVNULL)
                self.procs.append(p)
                Competitors.live.append(p)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
            Competitors.live.remove(p)
        self.procs.clear()

    @classmethod
    def kill_all(cls) -> None:
        for p in list(cls.live):
            p.kill()
            p.wait()
        cls.live.clear()


def write_outputs(out: Any, stem: str, text: str, data: Any) -> None:
    """``<out>/<stem>.md`` (the table as printed) and ``<out>/<stem>.json`` (the samples)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.md").write_text(text)
    (out / f"{stem}.json").write_text(json.dumps(data, indent=1, default=str))


def plot_rates(
    path: Any,
    panels: dict[str, dict[str, list[tuple[float, float]]]],
    title: str,
    hlines: dict[str, tuple[float, str]] | None = None,
    log_y: bool = True,
) -> None:
    """Env steps/s against num_envs, log x, one panel per ``panels`` key, one line per label of
    its ``{label: [(num_envs, steps/s)]}`` (dashed where the label says async), and a grey line
    per panel in ``hlines`` (``(y, label)``). Written to ``path`` as PNG when matplotlib imports
    (the ``bench`` extra); otherwise a note, and no stale plot is left."""
    Path(path).unlink(missing_ok=True)
    panels = {k: v for k, v in panels.items() if any(v.values())}
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib not importable (pip install matplotlib); no plot")
        return
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    for ax, (name, series) in zip(axes[0], panels.items()):
        for label, pts in series.items():
            if pts:
                xs, ys = zip(*sorted(pts))
                ax.plot(xs, ys, "--" if "async" in label else "-", marker="o", label=label)
        if hlines and name in hlines:
            ax.axhline(hlines[name][0], color="gray", linewidth=0.8, label=hlines[name][1])
        ax.set_xscale("log", base=2)
        if log_y:
            ax.set_yscale("log")
        ax.set(xlabel="num_envs", ylabel="env steps / s", title=name)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def build_bench_extension(build_dir: Path, option: str, target: str, missing: str = "") -> str:
    """Configures this repository with ``-D<option>=ON`` into ``build_dir`` and builds ``target``
    (a pybind11 module under bench/cpp, never part of the package) against this interpreter;
    exits with cmake's output on failure, and with ``missing`` as the hint when no module came
    out. Returns the folder that holds it."""
    try:
        import pybind11
    except ImportError:
        sys.exit(f"{target} needs pybind11 and cmake: pip install pybind11 cmake")
    configure = [
        "cmake",
        "-S",
        str(Path(__file__).resolve().parent.parent),
        "-B",
        str(build_dir),
        "-DCMAKE_BUILD_TYPE=Release",
        f"-D{option}=ON",
        f"-Dpybind11_DIR={pybind11.get_cmake_dir()}",
        f"-DPython_EXECUTABLE={sys.executable}",
    ]
    for cmd in (configure, ["cmake", "--build", str(build_dir), "--target", target, "-j", "2"]):
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{out.stdout[-3000:]}{out.stderr[-3000:]}")
    if not list(Path(build_dir).glob(f"{target}*.so")):
        sys.exit(f"no {target} in {build_dir}{missing}")
    return str(build_dir)
