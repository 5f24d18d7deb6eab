"""MuJoCo throughput: env steps per second for a few gymnasium v5 tasks, against the raw physics.

Peers, each timed in a fresh subprocess (reset, warm up, then step with pre-generated random
actions for a fixed wall time):

  * raw-1T / raw-2T: the physics limit, a C++ loop with no pool and no Python per step
    (``envpool_mujoco_raw.steps_per_second``, bench/cpp/mujoco_raw.cc, a separate extension this
    script builds with CMake into --raw-build-dir; needs cmake and pybind11): 8 MjData on one
    shared MjModel of the task's model file, split over 1 or 2 threads, a random ctrl and
    ``frame_skip`` mj_step calls per env step, a reset to qpos0 when the sim time passes 10 s.
    raw+rne-2T also calls mj_rnePostConstraint once per env step, as gymnasium's
    ``do_simulation`` (and ours) do; raw-2T N=16 steps 16 MjData;
  * ours N=8 / N=16, 1T / 2T (``envpool.make(task, num_envs=N, num_threads=T)``, full batch) and
    ours async 16/8 2T (``recv()`` / ``send(actions, info["env_id"])``);
  * gymnasium-sync x8: ``gymnasium.make_vec(task, 8, vectorization_mode="sync")``;
  * ref N=8 2T and ref async 16/8 2T: the reference EnvPool (``--peer-python``, default: the venv
    bench/tools/peers/envpool.sh makes).

Rounds interleave all peers (in a rotated order each round); medians, and ours over raw-2T (the
physics limit on 2 threads) and over the reference.

    python -m bench.envs.mujoco [--rounds 3] [--seconds 3] [--tasks HalfCheetah-v5 ...]

Writes the table to ``mujoco.md`` (and the samples to ``mujoco.json``) in ``--out``.
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time
from pathlib import Path

from bench.harness import (
    REPO_ROOT,
    WORKER_PRELUDE,
    build_bench_extension,
    child_rate,
    cpu_jiffies,
    peer_python,
    run_args,
)
from bench.rounds import rotated_report

WORKER = (
    WORKER_PRELUDE
    + r"""
a = json.loads(sys.argv[1])
task, n, kind, threads = a["task"], a["num_envs"], a["kind"], a["threads"]
batch = a.get("batch_size") or n
if kind == "raw":
    import envpool
    sys.path.insert(0, a["raw_dir"])
    import envpool_mujoco_raw
    cfg = envpool._core.env_spec(task, {})["config"]
    run = lambda s: envpool_mujoco_raw.steps_per_second(cfg["xml_file"], n, threads, s, cfg["frame_skip"], a["rne"])
    run(a["warmup"])
    emit({"steps_per_s": run(a["seconds"])})
    sys.exit(0)
if kind == "gym":
    import gymnasium as gym
    env = gym.make_vec(task, num_envs=n, vectorization_mode="sync")
    space = env.single_action_space
else:
    import envpool
    make = envpool.make_gymnasium if kind == "peer" else envpool.make
    env = make(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
    space = env.action_space if kind == "peer" else env.single_action_space  # the peer's: one env's
acts = random_action_block(space, batch, 64, 0)
if batch < n:
    env.async_reset()
    step = lambda k: env.send(acts[k % 64], env.recv()[-1]["env_id"])
else:
    env.reset()
    step = lambda k: env.step(acts[k % 64])
emit({"steps_per_s": timed_rate(step, batch, a)})
"""
)

# name: (kind, num_envs, batch_size, threads, mj_rnePostConstraint in the raw loop)
RAW = {
    "raw-1T": ("raw", 8, 8, 1, False),
    "raw-2T": ("raw", 8, 8, 2, False),
    "raw+rne-2T": ("raw", 8, 8, 2, True),
    "raw-2T N=16": ("raw", 16, 16, 2, False),
}
OURS = {
    "ours N=8 1T": ("ours", 8, 8, 1, False),
    "ours N=8 2T": ("ours", 8, 8, 2, False),
    "ours N=16 1T": ("ours", 16, 16, 1, False),
    "ours N=16 2T": ("ours", 16, 16, 2, False),
    "ours async 16/8 2T": ("ours", 16, 8, 2, False),
}
GYM = {"gymnasium-sync x8": ("gym", 8, 8, 1, False)}
PEER = {"ref N=8 2T": ("peer", 8, 8, 2, False), "ref async 16/8 2T": ("peer", 16, 8, 2, False)}
RATIOS = [
    ("ours N=8 2T / raw-2T", "ours N=8 2T", "raw-2T"),
    ("ours N=16 2T / raw-2T", "ours N=16 2T", "raw-2T"),
    ("ours N=16 2T / raw-2T N=16", "ours N=16 2T", "raw-2T N=16"),
    ("ours async 16/8 2T / raw-2T", "ours async 16/8 2T", "raw-2T"),
    ("ours N=8 2T / raw+rne-2T", "ours N=8 2T", "raw+rne-2T"),
    ("ours N=8 1T / raw-1T", "ours N=8 1T", "raw-1T"),
    ("raw-2T / raw-1T", "raw-2T", "raw-1T"),
    ("ours async 16/8 2T / ref async 16/8 2T", "ours async 16/8 2T", "ref async 16/8 2T"),
    ("ours N=8 2T / ref N=8 2T", "ours N=8 2T", "ref N=8 2T"),
    ("ours N=8 1T / gymnasium-sync x8", "ours N=8 1T", "gymnasium-sync x8"),
]


def foreign_cores(seconds: float = 0.5) -> float:
    """Cores that other processes than this one and its children used over ``seconds``."""
    b0, _ = cpu_jiffies()
    time.sleep(seconds)
    b1, _ = cpu_jiffies()
    return (b1 - b0) / os.sysconf("SC_CLK_TCK") / seconds


def children_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = run_args(__doc__.split("\n\n")[0], rounds=3, seconds=3.0, warmup=0.5, peer=True)
    ap.add_argument("--tasks", nargs="+", default=["HalfCheetah-v5", "Hopper-v5", "Ant-v5", "Humanoid-v5"])
    ap.add_argument("--no-gym", action="store_true", help="skip gymnasium's SyncVectorEnv")
    ap.add_argument("--peers", nargs="+", default=None, help="only peers whose name contains one of these")
    idle = "before each sample wait up to this many seconds for other processes to use under 0.15 cores"
    ap.add_argument("--wait-idle", type=float, default=0.0, help=idle)
    ap.add_argument("--raw-build-dir", default=str(REPO_ROOT / "build" / "bench-mujoco-raw"))
    a = ap.parse_args()
    a.peer_python = peer_python(a.peer_python)
    peers = {**RAW, **OURS, **({} if a.no_gym else GYM), **(PEER if a.peer_python else {})}
    peers = {k: v for k, v in peers.items() if not a.peers or any(f in k for f in a.peers)}
    raw_dir = ""
    if any(v[0] == "raw" for v in peers.values()):
        hint = " (MuJoCo headers not found? see the cmake output)"
        raw_dir = build_bench_extension(Path(a.raw_build_dir), "ENVPOOL_MUJOCO_BENCH", "envpool_mujoco_raw", hint)
    foreign: list[float] = []

    def sample(task: str, name: str) -> float | None:
        kind, n, batch, threads, rne = peers[name]
        deadline = time.monotonic() + a.wait_idle
        while a.wait_idle > 0 and foreign_cores() >= 0.15 and time.monotonic() < deadline:
            pass
        payload = dict(task=task, num_envs=n, batch_size=batch, kind=kind, threads=threads, rne=rne, raw_dir=raw_dir)
        payload.update(seconds=a.seconds, warmup=a.warmup)
        busy0, _ = cpu_jiffies()
        cpu0, wall0 = children_cpu_s(), time.monotonic()
        python = a.peer_python if kind == "peer" else sys.executable
        sps = child_rate(python, WORKER, payload, kind == "peer", 120 + 4 * a.seconds)
        busy = (cpu_jiffies()[0] - busy0) / os.sysconf("SC_CLK_TCK") - (children_cpu_s() - cpu0)
        foreign.append(max(0.0, busy / (time.monotonic() - wall0)))
        return sps

    def note() -> str:
        return f"; other processes used {statistics.median(foreign):.2f} cores (median, max {max(foreign):.2f})"

    rotated_report(a, "mujoco", "MuJoCo throughput (env steps/s)", a.tasks, list(peers), sample, RATIOS, 3, note)


if __name__ == "__main__":
    main()
