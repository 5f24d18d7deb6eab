"""Thread scaling: native CartPole-v1 and HalfCheetah-v5 at 1..16 threads, ours beside the
reference EnvPool and beside a plain C++ loop over the same env code (the limit).

For each task and thread count T, five rows, each in a fresh process:

  * ours full / ref full: ``make(task, num_envs=N, num_threads=T)`` full-batch ``step()`` with
    random actions (the reference with ``env_type="gymnasium"``, under ``--peer-python``);
  * ours async / ref async: ``batch_size=N/2``, the ``recv()`` / ``send(actions, env_id)`` loop;
  * C++ loop: the package's own env class stepped on T threads, each owning N/T envs, no pool,
    no Python per step and no thread waiting for another (``bench/cpp/classic_raw.cc`` for
    CartPole, ``bench/cpp/mujoco_raw.cc`` with ``mj_rnePostConstraint`` per step, as the env
    does, for HalfCheetah). Where the loop stops scaling the machine does (cores, memory,
    shared caches); where ours stops before it, the pool's per-batch cost does.

The five rows of one (task, T) run back to back, their order rotated each round so no row
always runs first; medians over rounds. Issue 25 asks for these rows on the 16-core device.

    python -m bench.core.thread_scaling --peer-python "$(bench/tools/peers/envpool.sh)" [--threads 1,2,4,8,16]
        [--configs CartPole-v1:1024,CartPole-v1:8192,HalfCheetah-v5:256] [--rounds 3]

The C++ loops are built on demand into ``--build-dir`` (``-DENVPOOL_CLASSIC_BENCH=ON
-DENVPOOL_MUJOCO_BENCH=ON``), or taken from ``--raw-dir`` where they are built already. Without
``--peer-python`` the reference rows are left out; its interpreter runs without ``PYTHONPATH``.
Writes ``thread_scaling.md`` and ``thread_scaling.json`` to ``--out`` (default ``bench/results``)
after every round, so a run cut short keeps the rounds it finished.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

from bench.harness import (
    POOL_WORKER,
    RAW_WORKER,
    REPO_ROOT,
    build_bench_extension,
    child_env,
    fmt_rate,
    load_span,
    md_table,
    rate_cell,
    run_args,
    run_child,
    write_outputs,
)

ROWS = ("ours full", "ref full", "ours async", "ref async", "C++ loop")


def machine() -> dict:
    """CPU model, logical CPUs and threads per core (from /proc/cpuinfo), for the table's header."""
    info = {"cpus": os.cpu_count(), "platform": platform.platform()}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return info
    blocks = [b for b in text.split("\n\n") if b.strip()]
    fields = [dict(line.split(":", 1) for line in b.splitlines() if ":" in line) for b in blocks]
    fields = [{k.strip(): v.strip() for k, v in f.items()} for f in fields]
    if fields:
        info["model"] = fields[0].get("model name", "?")
        cores = {(f.get("physical id"), f.get("core id")) for f in fields}
        info["physical_cores"] = len(cores)
    return info


def main() -> None:
    ap = run_args(__doc__.split("\n\n")[0], rounds=3, seconds=0.7, warmup=0.2, peer=True)
    ap.add_argument(
        "--configs", default="CartPole-v1:1024,CartPole-v1:8192,HalfCheetah-v5:256", help="TASK:NUM_ENVS,..."
    )
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--raw-dir", default=None, help="folder holding envpool_classic_raw and envpool_mujoco_raw, built")
    ap.add_argument("--build-dir", default=str(REPO_ROOT / "bench" / "results" / "thread_scaling_build"))
    opts = ap.parse_args()
    configs = [(task, int(n)) for task, n in (c.split(":") for c in opts.configs.split(","))]
    threads = [int(t) for t in opts.threads.split(",")]
    raw_dir = opts.raw_dir
    if raw_dir is None:
        raw_dir = build_bench_extension(Path(opts.build_dir), "ENVPOOL_CLASSIC_BENCH", "envpool_classic_raw")
        build_bench_extension(Path(opts.build_dir), "ENVPOOL_MUJOCO_BENCH", "envpool_mujoco_raw")
    rows = [r for r in ROWS if opts.peer_python or not r.startswith("ref")]
    # Ours and the loops import the envpool this interpreter imports (PYTHONPATH picks a build).
    ours_env = child_env(raw_dir)
    host = machine()

    def measure(task: str, n: int, t: int, row: str) -> float | None:
        payload = dict(task=task, num_envs=n, seconds=opts.seconds, warmup=opts.warmup)
        env = ours_env
        if row == "C++ loop":
            python, worker = sys.executable, RAW_WORKER
            payload.update(threads=t)
        else:
            kind = "ref" if row.startswith("ref") else "native"
            python, worker = (opts.peer_python if kind == "ref" else sys.executable), POOL_WORKER
            payload.update(kind=kind, batch_size=n // 2 if row.endswith("async") else n, make_kwargs={"num_threads": t})
            if kind == "ref":  # never our package (both import as envpool)
                env = child_env(peer=True)
        res = run_child(python, worker, payload, env, cwd="/tmp", timeout=60 + 4 * opts.seconds)
        if "error" in res:  # reported and left out: one failing row must not cost the others
            print(f"{task} {n} envs {t}T {row}: {res['error']}", file=sys.stderr, flush=True)
            return None
        return res["sps"]

    keys = [(task, n, t) for task, n in configs for t in threads]
    samples = {k: {r: [] for r in rows} for k in keys}
    loads = []
    started = time.time()
    for rnd in range(opts.rounds):
        loads.append(os.getloadavg())
        for k in keys:
            shift = (rnd + keys.index(k)) % len(rows)
            for row in rows[shift:] + rows[:shift]:
                sps = measure(*k, row)
                if sps is not None:
                    samples[k][row].append(sps)
            got = "  ".join(f"{r} {fmt_rate(samples[k][r][-1])}" for r in rows if samples[k][r])
            print(f"round {rnd + 1}/{opts.rounds} {k[0]} {k[1]} envs {k[2]:2d}T  {got}", file=sys.stderr, flush=True)
        loads.append(os.getloadavg())
        table = render(configs, threads, rows, samples, host, loads, opts, rnd + 1)
        meta = dict(started=started, loads=loads, argv=sys.argv, host=host, rounds_done=rnd + 1)
        data = dict(meta=meta, samples=[dict(task=k[0], num_envs=k[1], threads=k[2], **samples[k]) for k in keys])
        write_outputs(opts.out, "thread_scaling", table + "\n", data)
    print(table)


def render(configs, threads, rows, samples, host, loads, opts, rounds_done) -> str:
    """One table per task size: each row's median rate with its spread and its speedup over the
    same row at the fewest threads, then ours over the reference and ours over the loop."""

    def med(k, row):
        xs = samples[k][row]
        return statistics.median(xs) if xs else None

    lines = [
        f"{host.get('model', '?')}: {host['cpus']} logical CPUs, {host.get('physical_cores', '?')} cores; "
        f"{rounds_done} rounds x {opts.seconds} s, load {load_span(loads)}. Env steps/s, median (spread) "
        f"and speedup over {threads[0]} thread(s); async batch_size = num_envs / 2.",
    ]
    for task, n in configs:
        lines += ["", f"**{task}, {n} envs**", ""]
        head = ["threads"] + list(rows) + ["ours/ref full", "ours/ref async", "ours full / loop"]
        table = []
        for t in threads:
            k = (task, n, t)
            base = (task, n, threads[0])
            cells = [str(t)]
            for row in rows:
                m, b = med(k, row), med(base, row)
                speedup = f" {m / b:.1f}x" if m is not None and b else ""
                cells.append(rate_cell(samples[k][row]) + speedup)
            for a, b in (("ours full", "ref full"), ("ours async", "ref async"), ("ours full", "C++ loop")):
                x, y = med(k, a), (med(k, b) if b in rows else None)
                cells.append(f"{x / y:.2f}" if x and y else "-")
            table.append(cells)
        lines += md_table(head, table, "r" * len(head))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
