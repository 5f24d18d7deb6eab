#!/usr/bin/env python3
"""Procgen throughput: env steps per second of envpool's Procgen tasks against the reference
EnvPool's and Procgen's own vectorized env, at the same thread count.

All three run Procgen's games; envpool and Procgen's env run the very same compiled library (the
installed procgen-mirror's ``libenv.so``), the reference EnvPool its own build of Procgen 0.10.7's
sources (against the system's Qt 5: ``apt install libqt5gui5`` where it is missing). Peers, each
timed in a fresh subprocess (made, reset, warmed up, then stepped with pre-drawn random actions
for ``--seconds``; levels end and restart as in training):

  * ``ours``: ``envpool.make(task, num_envs=N, num_threads=T)``, full-batch ``step()`` (Procgen's
    ``(64, 64, 3)`` frames);
  * ``ours async``: ``num_envs=N, batch_size=N/2``, a ``recv()`` / ``send(actions, env_id)`` loop;
  * ``ref``: the reference EnvPool (``--peer-python``, default: the venv
    bench/peers/envpool.sh makes), ``make_gymnasium(task, num_envs=N, num_threads=T,
    channel_first=False)``, ``step()``: the same frame layout as ours (its default,
    ``channel_first=True``, adds a transpose);
  * ``procgen``: ``ProcgenGym3Env(num=N, env_name=game, distribution_mode=mode, num_threads=T)``
    driven as gym3 envs are, ``act(actions)`` then ``observe()`` (which copies the batch, as
    gym3's CEnv does by default), imported without procgen's ``__init__`` (it imports gym,
    which numpy 2 breaks).

Rounds interleave the peers (rotated each round); medians, and ours over each peer.

    python bench/procgen.py [--rounds 3] [--seconds 3] [--sizes 16 64 256] [--tasks CoinrunHard-v0]

Writes the table to bench/results/procgen.md (``--out``); bench/README.md has the last one.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import child_env, run_child  # bench/ is sys.path[0] when a script runs

REPO_ROOT = Path(__file__).resolve().parent.parent
PEER_SCRIPT = REPO_ROOT / "bench" / "peers" / "envpool.sh"

WORKER = r"""
import importlib, importlib.util, json, sys, time, types
import numpy as np

a = json.loads(sys.argv[1])
task, n, kind, batch, threads = a["task"], a["num_envs"], a["kind"], a["batch_size"], a["threads"]
rng = np.random.default_rng(0)
acts = rng.integers(15, size=(64, batch))
if kind == "procgen":
    spec = importlib.util.find_spec("procgen")
    package = types.ModuleType("procgen")
    package.__path__, package.__spec__ = list(spec.submodule_search_locations), spec
    sys.modules["procgen"] = package
    ProcgenGym3Env = importlib.import_module("procgen.env").ProcgenGym3Env
    env = ProcgenGym3Env(num=n, env_name=a["game"], distribution_mode=a["mode"], num_threads=threads, rand_seed=0)
    acts = acts.astype(np.int32)

    def step(k):
        env.act(acts[k % 64])
        env.observe()
else:
    import envpool
    if kind == "ref":
        env = envpool.make_gymnasium(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0,
                                     channel_first=False)
        acts = acts.astype(np.int32)
    else:
        env = envpool.make(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
    if batch < n:
        env.async_reset()

        def step(k):
            env.send(acts[k % 64], env.recv()[-1]["env_id"])
    else:
        env.reset()

        def step(k):
            env.step(acts[k % 64])
k = 0
t_end = time.perf_counter() + a["warmup"]
while time.perf_counter() < t_end:
    step(k)
    k += 1
k = 0
t0 = time.perf_counter()
while time.perf_counter() < t0 + a["seconds"]:
    for _ in range(4):
        step(k)
        k += 1
dt = time.perf_counter() - t0
env.close()
print("@@BENCH_RESULT@@ " + json.dumps({"steps_per_s": k * batch / dt}), flush=True)
"""


def fmt(v: float | None) -> str:
    return f"{v:,.0f}" if v else "—"


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=["CoinrunHard-v0", "StarpilotHard-v0"])
    p.add_argument("--sizes", nargs="+", type=int, default=[16, 64, 256])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--peer-python", default=None, help="the reference EnvPool's interpreter ('' to skip it)")
    p.add_argument("--out", default=str(REPO_ROOT / "bench" / "results" / "procgen.md"))
    a = p.parse_args()
    if a.peer_python is None:  # the reference's venv, made once by the repository's own script
        a.peer_python = subprocess.run([str(PEER_SCRIPT)], check=True, capture_output=True, text=True).stdout.strip()
    return a


def main() -> None:
    a = parse_args()
    # (name, kind, num_envs, batch_size)
    peers = []
    for n in a.sizes:
        peers += [(f"ours N={n}", "ours", n, n), (f"procgen N={n}", "procgen", n, n)]
        peers += [(f"ref N={n}", "ref", n, n)] if a.peer_python else []
    n_async = 64 if 64 in a.sizes else a.sizes[0]
    peers.append((f"ours async {n_async}/{n_async // 2}", "ours", n_async, n_async // 2))
    if a.peer_python:
        peers.append((f"ref async {n_async}/{n_async // 2}", "ref", n_async, n_async // 2))
    env, peer_env = child_env(), child_env(peer=True)
    samples = {t: {name: [] for name, *_ in peers} for t in a.tasks}
    loads, started = [loadavg()], time.time()
    for r in range(a.rounds):
        for task in a.tasks:
            game, mode = task[: -len("-v0")], ""
            for m in ("Easy", "Hard", "Extreme", "Memory", "Exploration"):
                if game.endswith(m):
                    game, mode = game[: -len(m)].lower(), m.lower()
            shift = (r * 2) % len(peers)
            for name, kind, n, batch in peers[shift:] + peers[:shift]:
                python = a.peer_python if kind == "ref" else sys.executable
                args = dict(task=task, game=game, mode=mode, num_envs=n, batch_size=batch, kind=kind)
                args.update(threads=a.threads, seconds=a.seconds, warmup=a.warmup)
                found = run_child(python, WORKER, args, peer_env if kind == "ref" else env, "/tmp", 180 + 4 * a.seconds)
                if "error" in found:
                    sys.stderr.write(f"{name} {task} failed: {found['error']}\n")
                else:
                    samples[task][name].append(found["steps_per_s"])
            print(f"round {r + 1}/{a.rounds} {task} (load {loadavg()})", flush=True)
        loads.append(loadavg())
    med = {t: {k: (statistics.median(v) if v else None) for k, v in s.items()} for t, s in samples.items()}
    lines = [
        "# Procgen throughput (env steps/s)\n",
        f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.node()}, {os.cpu_count()} CPUs, {a.threads} threads for "
        f"every peer, median of {a.rounds} interleaved round(s) of {a.seconds:g} s (+{a.warmup:g} s warm-up), "
        f"random actions; load average at the start and after each round: {' | '.join(loads)}; "
        f"{(time.time() - started) / 60:.1f} min.\n",
        "| peer | " + " | ".join(a.tasks) + " |",
        "|---|" + "---:|" * len(a.tasks),
    ]
    lines += [f"| {name} | " + " | ".join(fmt(med[t][name]) for t in a.tasks) + " |" for name, *_ in peers]
    lines += ["", "| ratio of medians | " + " | ".join(a.tasks) + " |", "|---|" + "---:|" * len(a.tasks)]
    ratios = [(f"ours / procgen, N={n}", f"ours N={n}", f"procgen N={n}") for n in a.sizes]
    if a.peer_python:
        ratios += [(f"ours / ref, N={n}", f"ours N={n}", f"ref N={n}") for n in a.sizes]
        pair = f"{n_async}/{n_async // 2}"
        ratios.append(("ours async / ref async", f"ours async {pair}", f"ref async {pair}"))
    for label, x, y in ratios:
        cells = [f"{med[t][x] / med[t][y]:.2f}" if med[t].get(x) and med[t].get(y) else "—" for t in a.tasks]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(text)


if __name__ == "__main__":
    main()
