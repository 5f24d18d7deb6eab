"""A/B throughput of two builds of the native engine, interleaved in one run.

Compares env steps per second of two ``envpool`` package folders (each holding ``envpool/`` with
its built ``_core*.so``; ``bench/tools/peers/build_commit.sh COMMIT`` makes one), e.g. the commit
before a change (A, "old") and after it (B, "new")::

    OLD=$(bench/tools/peers/build_commit.sh 93d8db1) NEW=$(bench/tools/peers/build_commit.sh HEAD)
    python -m bench.tools.ab_throughput --old "$OLD" --new "$NEW"
    python -m bench.tools.ab_throughput --old OLD --new NEW --rounds 7 --seconds 0.8 --only CartPole
    python -m bench.tools.ab_throughput --old OLD --new NEW --autoreset same_step   # with final_obs
    python -m bench.tools.ab_throughput --old OLD --new NEW --task CheetahRun-v1 --num-envs 32 --competitors 2

Every sample is a fresh process (``PYTHONPATH=<package folder>``) running
``bench.harness.POOL_WORKER``: ``envpool.make(task, num_envs=N, batch_size=B, num_threads=T)``,
a warm-up, then a timed full-batch ``step()`` loop (B == N) or ``recv()`` / ``send()`` loop. Per
round and config the two builds run back to back, A B then B A; ``--competitors K`` runs K busy
processes beside every sample (``bench.harness.Competitors``). The table: medians, spreads, the
ratio of medians new/old, the per-round ratios' range and how many rounds were below 0.95.
Outputs (``--out``): ``ab_throughput.json`` and ``ab_throughput.md``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench.harness import POOL_WORKER, Competitors, run_args, run_child
from bench.rounds import PairedTable, paired_report

# (label, task, num_envs, batch_size, num_threads)
CONFIGS = [
    ("CartPole-v1 1 env 1T", "CartPole-v1", 1, 1, 1),
    ("CartPole-v1 64 1T", "CartPole-v1", 64, 64, 1),
    ("CartPole-v1 64 2T", "CartPole-v1", 64, 64, 2),
    ("CartPole-v1 256 1T", "CartPole-v1", 256, 256, 1),
    ("CartPole-v1 256 2T", "CartPole-v1", 256, 256, 2),
    ("CartPole-v1 1024 1T", "CartPole-v1", 1024, 1024, 1),
    ("CartPole-v1 1024 2T", "CartPole-v1", 1024, 1024, 2),
    ("CartPole-v1 async 256/128 2T", "CartPole-v1", 256, 128, 2),
    ("CartPole-v1 async 1024/512 2T", "CartPole-v1", 1024, 512, 2),
    # one worker beside the caller: on 2 cores nothing is oversubscribed, so the caller's own
    # per-row cost (recv/send) shows; it is also async pools' default on 2 cores
    ("CartPole-v1 async 1024/512 1T", "CartPole-v1", 1024, 512, 1),
    ("CartPole-v1 async 64/32 1T", "CartPole-v1", 64, 32, 1),
    ("CartPole-v1 async 256/128 1T", "CartPole-v1", 256, 128, 1),
    ("Pendulum-v1 256 2T", "Pendulum-v1", 256, 256, 2),
    ("Pendulum-v1 async 256/128 2T", "Pendulum-v1", 256, 128, 2),
    ("HalfCheetah-v5 16 2T", "HalfCheetah-v5", 16, 16, 2),
    ("HalfCheetah-v5 async 16/8 2T", "HalfCheetah-v5", 16, 8, 2),
    ("HalfCheetah-v5 64 2T", "HalfCheetah-v5", 64, 64, 2),
    ("HalfCheetah-v5 async 64/32 1T", "HalfCheetah-v5", 64, 32, 1),
    ("HalfCheetah-v5 async 256/128 1T", "HalfCheetah-v5", 256, 128, 1),
    # toy text: a random draw every step, and Blackjack resets every 1-2 steps
    ("Taxi-v4 1024 1T", "Taxi-v4", 1024, 1024, 1),
    ("FrozenLake-v1 1024 1T", "FrozenLake-v1", 1024, 1024, 1),
    ("Blackjack-v1 1024 1T", "Blackjack-v1", 1024, 1024, 1),
]


def parse_args():
    ap = run_args(__doc__.split("\n\n")[0], rounds=7, seconds=0.8, warmup=0.3)
    ap.add_argument("--old", required=True, help="package folder A (holds envpool/)")
    ap.add_argument("--new", required=True, help="package folder B (holds envpool/)")
    ap.add_argument("--only", default="", help="comma-separated: keep configs whose label contains one of these")
    ap.add_argument("--autoreset", default="next_step", choices=["next_step", "same_step"], help="autoreset_mode")
    ap.add_argument("--threads", type=int, default=None, help="num_threads of every config (a many-core machine)")
    ap.add_argument("--task", help="one config instead of the list: this task, full batch (--num-envs, --threads)")
    ap.add_argument("--num-envs", type=int, default=32)
    ap.add_argument("--competitors", type=int, default=0, help="busy processes beside every sample")
    return ap.parse_args()


def main() -> None:
    opts = parse_args()
    configs = [c for c in CONFIGS if any(k.strip() in c[0] for k in opts.only.split(","))]
    if opts.task:
        t = opts.threads or 2
        configs = [(f"{opts.task} {opts.num_envs} {t}T", opts.task, opts.num_envs, opts.num_envs, t)]
    elif opts.threads is not None:  # the same configs with another thread count, named for it
        configs = list(
            dict.fromkeys((f"{c[0].rsplit(' ', 1)[0]} {opts.threads}T", *c[1:4], opts.threads) for c in configs)
        )
    pkgs = {"old": str(Path(opts.old).resolve()), "new": str(Path(opts.new).resolve())}
    by_label = {c[0]: c for c in configs}

    def measure(label: str, side: str) -> float:
        _, task, n, b, t = by_label[label]
        payload = dict(kind="native", task=task, num_envs=n, batch_size=b, seconds=opts.seconds, warmup=opts.warmup)
        payload["make_kwargs"] = dict(num_threads=t, autoreset_mode=opts.autoreset)
        with Competitors(opts.competitors):
            res = run_child(sys.executable, POOL_WORKER, payload, dict(os.environ, PYTHONPATH=pkgs[side]), "/tmp", 120)
        if "error" in res:
            raise RuntimeError(f"{label} with {pkgs[side]} failed: {res['error']}")
        return res["sps"]

    title = f"{opts.autoreset} autoreset, {opts.competitors} competitors"
    meta = dict(packages=pkgs, autoreset_mode=opts.autoreset, competitors=opts.competitors)
    paired_report(
        opts,
        list(by_label),
        ("old", "new"),
        measure,
        PairedTable("ab_throughput", title, ["config"], ["old", "new"], lambda k: [k], meta=meta),
    )


if __name__ == "__main__":
    main()
