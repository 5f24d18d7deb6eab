"""Instructions per env step of two builds, counted by callgrind: an A/B that load cannot move.

Wall-clock A/B (``bench.tools.ab_throughput``) needs a quiet machine; instruction counts do not. For
each config and each build (``--old`` / ``--new``: package folders as ``bench/tools/peers/build_commit.sh``
prints them) this runs the same loop twice under ``valgrind --tool=callgrind`` in a fresh
process, ``--short`` and ``--long`` calls, and reports (instructions of the long run - those of
the short one) / (extra calls x envs per call): import, make and warm-up cancel out. Pools
have one worker thread (callgrind runs threads one at a time, so more would only add its
scheduling to the counts); full batches call ``step()``, async configs ``recv()`` then
``send(actions, info["env_id"])`` with random actions drawn before the loop.

    OLD=$(bench/tools/peers/build_commit.sh 91fda92) NEW=$(bench/tools/peers/build_commit.sh HEAD)
    python -m bench.tools.ab_instructions --old "$OLD" --new "$NEW"
    python -m bench.tools.ab_instructions --old "$OLD" --new "$NEW" --only "CartPole-v1 1 env"

Counts vary by about 1% between runs of async configs (which thread steps which env depends on
scheduling); full batches repeat exactly. Writes ``ab_instructions.json`` and ``.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

from bench.harness import REPO_ROOT, WORKER_PRELUDE, md_table, write_outputs

# (label, task, num_envs, batch_size)
CONFIGS = [
    ("CartPole-v1 1 env", "CartPole-v1", 1, 1),
    ("CartPole-v1 256", "CartPole-v1", 256, 256),
    ("CartPole-v1 1024", "CartPole-v1", 1024, 1024),
    ("CartPole-v1 async 64/32", "CartPole-v1", 64, 32),
    ("CartPole-v1 async 1024/512", "CartPole-v1", 1024, 512),
    ("Pendulum-v1 256", "Pendulum-v1", 256, 256),
]

LOOP = (
    WORKER_PRELUDE
    + r"""
import envpool

task, n, b, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
env = envpool.make(task, num_envs=n, batch_size=b, num_threads=1, seed=0)
acts = random_action_block(env.single_action_space, b, 8, 0)
if b == n:
    env.reset()
    for i in range(calls):
        env.step(acts[i & 7])
else:
    env.async_reset()
    for i in range(calls):
        info = env.recv()[4]
        env.send(acts[i & 7], info["env_id"])
env.close()
"""
)


def count(pkg: str, task: str, n: int, b: int, calls: int) -> int:
    """Instructions of a whole process running ``calls`` calls (callgrind's total)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        env = dict(os.environ, PYTHONPATH=pkg, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no"]
        cmd += [sys.executable, "-c", LOOP, task, str(n), str(b), str(calls)]
        subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=1800)
        with open(out) as f:
            totals = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
        if totals is None:
            raise RuntimeError(f"no totals in callgrind's output for {task}")
        return int(totals.group(1))


def per_step(pkg: str, cfg: tuple, short: int, long: int) -> float:
    _, task, n, b = cfg
    calls_short, calls_long = (short * 5, long * 5) if n == 1 else (short, long)
    extra = count(pkg, task, n, b, calls_long) - count(pkg, task, n, b, calls_short)
    return extra / ((calls_long - calls_short) * b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="package folder of build A")
    ap.add_argument("--new", required=True, help="package folder of build B")
    ap.add_argument("--short", type=int, default=300, help="calls of the short run (x5 for 1 env)")
    ap.add_argument("--long", type=int, default=1500, help="calls of the long run (x5 for 1 env)")
    ap.add_argument("--only", default="", help="comma-separated substrings of config labels")
    ap.add_argument("--out", default=str(REPO_ROOT / "bench" / "results"))
    opts = ap.parse_args()
    wanted = [w for w in opts.only.split(",") if w]
    configs = [c for c in CONFIGS if not wanted or any(w in c[0] for w in wanted)]
    rows, data = [], []
    for cfg in configs:
        old = per_step(opts.old, cfg, opts.short, opts.long)
        new = per_step(opts.new, cfg, opts.short, opts.long)
        rows.append([cfg[0], f"{old:,.0f}", f"{new:,.0f}", f"{new / old:.3f}"])
        data.append(dict(config=cfg[0], old=old, new=new))
        print(" | ".join(rows[-1]), flush=True)
    head = ["config (1 worker thread)", "old: instructions / env step", "new", "new / old"]
    text = "\n".join(md_table(head, rows, "lrrr")) + "\n"
    print(text)
    write_outputs(opts.out, "ab_instructions", text, dict(old=opts.old, new=opts.new, rows=data))


if __name__ == "__main__":
    main()
