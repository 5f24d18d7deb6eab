"""Steps per second of a jitted rollout through ``envs.xla()``, against the Python ``step()``
loop and against the reference EnvPool's ``xla()``.

    python -m bench.core.xla                                   # ours only, 8-256 envs
    python -m bench.core.xla --peer-python "$(bench/tools/peers/envpool_jax.sh)"   # with the reference
    python -m bench.core.xla --quick                           # smoke run

Four rows per ``num_envs`` (CartPole-v1, full batch, ``--threads`` threads on both sides):

- ``ours xla``: ``jax.jit(lax.scan(step))`` over T pre-generated action batches; each step is
  one XLA FFI call into the pool; the scan keeps every observation (as a rollout buffer does);
- ``ours python``: ``for a in actions: envs.step(a)`` with the same actions;
- ``ref xla`` / ``ref python``: the same two loops on the reference EnvPool (1.2.5), in its own
  interpreter (``--peer-python``: a venv with it and jax, made by bench/tools/peers/envpool_jax.sh).

Each timing is one call of T steps (T = 2M env steps / num_envs, between 500 and 20,000),
after a warm-up call that also compiles. Every interpreter keeps its pools and compiled
functions for the whole run; rows are interleaved in rounds (ours xla, ours python, ref xla,
ref python, then again) and the median over ``--rounds`` is reported with the min-max spread.
The same code (``measure`` below) times both sides; the reference side runs it in a worker
process (``python -m bench.core.xla --worker``), so the reference never shares an interpreter with ours.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.harness import REPO_ROOT
from bench.harness import RESULT_MARK as MARK

TASK = "CartPole-v1"


def steps_for(num_envs: int, quick: bool) -> int:
    return min(2000 if quick else 20000, max(200 if quick else 500, (200_000 if quick else 2_000_000) // num_envs))


class Timer:
    """Pools and compiled rollouts of one interpreter, built at first use and kept."""

    def __init__(self, threads: int):
        import jax
        import numpy as np

        import envpool

        self.envpool, self.jax, self.np = envpool, jax, np
        self.threads = threads
        self.cache: dict = {}

    def _setup(self, num_envs: int, steps: int):
        key = (num_envs, steps)
        if key not in self.cache:
            jax, np = self.jax, self.np
            rng = np.random.default_rng(0)
            actions = rng.integers(0, 2, (steps, num_envs)).astype(np.int32)
            xla_envs = self.envpool.make(
                TASK, env_type="gymnasium", num_envs=num_envs, num_threads=self.threads, seed=0
            )
            py_envs = self.envpool.make(TASK, env_type="gymnasium", num_envs=num_envs, num_threads=self.threads, seed=0)
            xla_envs.reset()
            py_envs.reset()
            handle, _, _, step = xla_envs.xla()

            def body(h, a):
                h, (obs, _reward, _term, _trunc, _info) = step(h, a)
                return h, obs

            rollout = jax.jit(lambda h, a: jax.lax.scan(body, h, a))
            state = {"handle": handle, "actions": jax.numpy.asarray(actions)}
            self.cache[key] = (xla_envs, py_envs, rollout, state, actions)
            self.run(num_envs, steps, "xla")  # compile and warm up
            self.run(num_envs, steps, "python")
        return self.cache[key]

    def run(self, num_envs: int, steps: int, mode: str) -> float:
        """Env steps per second of one call of `steps` steps."""
        xla_envs, py_envs, rollout, state, actions = self._setup(num_envs, steps)
        start = time.perf_counter()
        if mode == "xla":
            state["handle"], obs = rollout(state["handle"], state["actions"])
            self.jax.block_until_ready(obs)
        else:
            for a in actions:
                py_envs.step(a)
        return num_envs * steps / (time.perf_counter() - start)


def worker(threads: int) -> None:
    """The reference side: reads {"num_envs", "steps", "mode"} lines, answers steps/s."""
    import envpool

    timer = Timer(threads)
    print(MARK + json.dumps({"ready": True, "version": envpool.__version__}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        try:
            print(MARK + json.dumps({"sps": timer.run(req["num_envs"], req["steps"], req["mode"])}), flush=True)
        except Exception as exc:  # noqa: BLE001 - reported to the parent
            print(MARK + json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)


class Peer:
    def __init__(self, python: str, threads: int):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.proc = subprocess.Popen(
            [python, "-m", "bench.core.xla", "--worker", "--threads", str(threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO_ROOT,  # where `-m bench.core.xla` imports from; it holds no envpool
        )
        self.version = self._read()["version"]

    def _read(self) -> dict:
        for line in self.proc.stdout:
            if line.startswith(MARK):
                return json.loads(line[len(MARK) :])
        raise RuntimeError(f"the reference worker exited (code {self.proc.wait()})")

    def run(self, num_envs: int, steps: int, mode: str) -> float:
        self.proc.stdin.write(json.dumps({"num_envs": num_envs, "steps": steps, "mode": mode}) + "\n")
        self.proc.stdin.flush()
        reply = self._read()
        if "error" in reply:
            raise RuntimeError(f"reference {mode} at {num_envs} envs: {reply['error']}")
        return reply["sps"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--num-envs", default="8,32,64,128,256")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--peer-python",
        default=os.environ.get("PEER_XLA_PYTHON"),
        help="python of a venv with the reference EnvPool and jax (bench/tools/peers/envpool_jax.sh)",
    )
    parser.add_argument("--quick", action="store_true", help="short runs, 2 rounds")
    parser.add_argument("--json", default=None, help="also write the samples here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.threads)
        return
    sizes = [int(x) for x in args.num_envs.split(",")]
    rounds = 2 if args.quick else args.rounds
    ours = Timer(args.threads)
    peer = Peer(args.peer_python, args.threads) if args.peer_python else None
    rows = [("ours", "xla"), ("ours", "python")] + ([("ref", "xla"), ("ref", "python")] if peer else [])
    samples: dict = {(n, side, mode): [] for n in sizes for side, mode in rows}
    load_start = os.getloadavg()[0]
    for n in sizes:
        steps = steps_for(n, args.quick)
        for _ in range(rounds):
            for side, mode in rows:
                timer = ours if side == "ours" else peer
                samples[(n, side, mode)].append(timer.run(n, steps, mode))
    load_end = os.getloadavg()[0]
    if peer:
        peer.close()

    def med(n, side, mode):
        return statistics.median(samples[(n, side, mode)])

    print(
        f"{TASK}, full batch, {args.threads} threads, median of {rounds} interleaved rounds "
        f"(min-max); load average {load_start:.1f} at the start, {load_end:.1f} at the end"
        + (f"; reference EnvPool {peer.version}" if peer else "; no reference (--peer-python)")
    )
    header = "| envs | " + " | ".join(f"{s} {m} steps/s" for s, m in rows) + " | ours xla / ours python |"
    header += " ours xla / ref xla |" if peer else ""
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for n in sizes:
        cells = [
            f"{med(n, s, m):,.0f} ({min(samples[(n, s, m)]):,.0f}-{max(samples[(n, s, m)]):,.0f})" for s, m in rows
        ]
        line = f"| {n} | " + " | ".join(cells) + f" | {med(n, 'ours', 'xla') / med(n, 'ours', 'python'):.2f}x |"
        if peer:
            line += f" {med(n, 'ours', 'xla') / med(n, 'ref', 'xla'):.1f}x |"
        print(line)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "task": TASK,
                    "threads": args.threads,
                    "rounds": rounds,
                    "load": [load_start, load_end],
                    "samples": {f"{n}/{s}/{m}": v for (n, s, m), v in samples.items()},
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
