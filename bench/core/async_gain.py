"""Async against full batch, side by side: what a partial batch buys on this machine.

For each config two pools step the same envs, interleaved in rounds (full then async in odd
rounds, async then full in even ones), each sample in a fresh process: *full*,
``make(task, num_envs=N)`` and a ``step()`` loop; *async*, ``batch_size=N // 2`` and a
``recv()`` / ``send(actions, info["env_id"])`` loop; both at make's default threads unless the
config names them. The configs (issue 25 row 1): CPU-bound native envs (``CartPole-v1`` at 64,
256 and 1024 envs, ``HalfCheetah-v5`` at 64 and 256); envs whose step times differ 10x between
envs (the native ``StepCounter-v0`` test env sleeping 100 µs in even envs and 1 ms in odd ones,
a thread per env; ``bench.envs.burn_env:WaitStep-v0``, 0.5 ms or 5 ms, in ``make_python`` with a
worker process per env); with ``--peer-python``, the reference EnvPool's CartPole and
HalfCheetah rows at ``num_threads`` = the machine's cores.

    python -m bench.core.async_gain [--rounds 5 --seconds 1] [--peer-python "$(bench/tools/peers/envpool.sh)"]
    python -m bench.core.async_gain --only CartPole --rounds 3

Writes ``async_gain.json`` and ``async_gain.md`` to ``--out`` (default ``bench/results``).
"""

from __future__ import annotations

import os
import sys

from bench.harness import POOL_WORKER, REPO_ROOT, child_env, run_args, run_child
from bench.rounds import PairedTable, paired_report

CORES = os.cpu_count() or 1


def configs(peer: bool) -> list[dict]:
    """label, kind (native / python / ref), task, num_envs, make kwargs (besides batch_size)."""
    rows = [dict(label=f"CartPole-v1 {n}", kind="native", task="CartPole-v1", n=n, kw={}) for n in (64, 256, 1024)]
    rows += [dict(label=f"HalfCheetah-v5 {n}", kind="native", task="HalfCheetah-v5", n=n, kw={}) for n in (64, 256)]
    for n in (16, 64):
        sleep = [100 if i % 2 == 0 else 1000 for i in range(n)]
        label = f"StepCounter-v0 {n}, sleep 0.1/1 ms, {n} threads"
        rows.append(
            dict(label=label, kind="native", task="StepCounter-v0", n=n, kw=dict(step_sleep_us=sleep, num_threads=n))
        )
    for n in (8, 16):
        label = f"make_python WaitStep {n}, sleep 0.5/5 ms, {n} workers"
        rows.append(
            dict(label=label, kind="python", task="bench.envs.burn_env:WaitStep-v0", n=n, kw=dict(num_workers=n))
        )
    if peer:
        rows += [
            dict(label=f"reference {t} {n}", kind="ref", task=t, n=n, kw=dict(num_threads=CORES))
            for t, sizes in (("CartPole-v1", (64, 256, 1024)), ("HalfCheetah-v5", (64, 256)))
            for n in sizes
        ]
    return rows


def sample(cfg: dict, batch: int, opts) -> float:
    payload = dict(kind=cfg["kind"], task=cfg["task"], num_envs=cfg["n"], batch_size=batch, make_kwargs=cfg["kw"])
    payload.update(seconds=opts.seconds, warmup=opts.warmup)
    if cfg["kind"] == "ref":
        python, env = opts.peer_python, child_env(peer=True)
    else:  # the repository on the path: bench.envs.burn_env for make_python's worker processes
        python, env = sys.executable, child_env(str(REPO_ROOT))
    result = run_child(python, POOL_WORKER, payload, env, cwd="/tmp", timeout=120 + 4 * opts.seconds)
    if "error" in result:
        raise RuntimeError(f"{cfg['label']} batch {batch}: {result['error']}")
    return result["sps"]


def main() -> None:
    ap = run_args(__doc__.split("\n\n")[0], rounds=5, seconds=1.0, warmup=0.3, peer=True)
    ap.add_argument("--only", default="", help="comma-separated: keep configs whose label contains one of these")
    opts = ap.parse_args()
    keep = [k.strip() for k in opts.only.split(",")]
    by_label = {c["label"]: c for c in configs(bool(opts.peer_python)) if any(k in c["label"] for k in keep)}

    def measure(label: str, mode: str) -> float:
        c = by_label[label]
        return sample(c, c["n"] if mode == "full" else c["n"] // 2, opts)

    heads = ["full batch", "async, batch N/2"]
    ratio = lambda r: f"{r:.2f}x"
    table = PairedTable(
        "async_gain", f"{len(by_label)} configs", ["config"], heads, lambda k: [k], ratio, count_slow=False
    )
    paired_report(opts, list(by_label), ("full", "async"), measure, table)


if __name__ == "__main__":
    main()
