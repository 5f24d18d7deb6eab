"""gymnasium-robotics throughput: env steps per second of FetchPush-v4, AntMaze_UMaze-v5 and
PointMaze_UMaze-v3 (Dict goal observations), side by side.

Peers, each timed in a fresh subprocess (reset, warm up, then step with pre-generated uniform
random actions for a fixed wall time; episodes end and autoreset as in training):

  * ours N=16 / N=256 2T: ``envpool.make(task, num_envs=N, num_threads=2)``, full-batch ``step()``;
  * ref N=16 / N=256 2T: the reference EnvPool (``--peer-python``, default: the venv
    bench/tools/peers/envpool.sh makes; 1.2.7 has FetchPush and PointMaze, no AntMaze);
  * gymnasium async x16: ``gymnasium.make_vec(task, 16, vectorization_mode="async")`` of
    gymnasium-robotics' own envs (the mazes; its Fetch needs a test-side shim under MuJoCo 4);
  * raw N=16 / N=256 2T: the physics alone, bench/cpp/mujoco_raw.cc (a C++ loop, no pool, no
    Python per step; built here with CMake into --raw-build-dir, as bench.envs.mujoco does) on the
    same model: Fetch's XML file from the installed gymnasium-robotics, the mazes' XML as
    gymnasium-robotics writes it (``Maze.make_maze`` with U_MAZE and the task's scaling), with the
    task's physics steps per env step (Fetch 20, AntMaze 5, PointMaze 1) and, for the mazes,
    gymnasium's mj_rnePostConstraint after them; a random ctrl; a reset to qpos0 after 10 s of
    sim time.

Rounds interleave the peers (rotated each round); medians and ratios. Needs gymnasium-robotics
importable (``PYTHONPATH=.test-oracles`` in a checkout: the tasks read their model files from it).

    PYTHONPATH=.test-oracles python -m bench.envs.robotics [--rounds 3] [--seconds 3] [--tasks ...]

Writes the table to ``robotics.md`` (and the samples to ``robotics.json``) in ``--out``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.harness import (
    REPO_ROOT,
    WORKER_PRELUDE,
    build_bench_extension,
    child_env,
    child_rate,
    peer_python,
    run_args,
    run_child,
)
from bench.rounds import rotated_report

NO_PEER = {"AntMaze_UMaze-v5"}  # the reference EnvPool 1.2.7 has no AntMaze
NO_GYM = {"FetchPush-v4"}  # gymnasium-robotics' Fetch fails at reset under MuJoCo 4 without a shim

WORKER = (
    WORKER_PRELUDE
    + r"""
a = json.loads(sys.argv[1])
task, n, kind, batch = a["task"], a["num_envs"], a["kind"], a["batch_size"]
if kind == "raw":
    from bench.envs.robotics import model_file
    xml, frame_skip, rne = model_file(task)
    sys.path.insert(0, a["raw_dir"])
    import envpool_mujoco_raw
    run = lambda s: envpool_mujoco_raw.steps_per_second(xml, n, 2, s, frame_skip, rne)
    run(a["warmup"])
    emit({"steps_per_s": run(a["seconds"])})
    sys.exit(0)
if kind == "gym-async":
    import gymnasium as gym
    import gymnasium_robotics
    gym.register_envs(gymnasium_robotics)
    env = gym.make_vec(task, num_envs=n, vectorization_mode="async")
    space = env.single_action_space
else:
    import envpool
    make = envpool.make_gymnasium if kind == "peer" else envpool.make
    env = make(task, num_envs=n, batch_size=batch, num_threads=2, seed=0)
    space = env.action_space if kind == "peer" else env.single_action_space  # the peer's: one env's
acts = random_action_block(space, batch, 64, 0)
env.reset(seed=0) if kind.startswith("gym") else env.reset()
step = lambda k: env.step(acts[k % 64])
emit({"steps_per_s": timed_rate(step, batch, a)})
env.close()
"""
)


def model_file(task: str) -> tuple[str, int, bool]:
    """The model the raw loop steps for ``task``: (XML file, physics steps per env step, whether
    gymnasium's mj_rnePostConstraint follows them). Fetch's file from the installed
    gymnasium-robotics; a maze's as gymnasium-robotics writes it (``Maze.make_maze``, U_MAZE)."""
    import os
    import xml.etree.ElementTree as ET

    import gymnasium_robotics
    import numpy as np

    assets = os.path.join(os.path.dirname(gymnasium_robotics.__file__), "envs", "assets")
    if task.startswith("FetchPush"):
        return os.path.join(assets, "fetch", "push.xml"), 20, False
    from gymnasium_robotics.envs.maze.maps import U_MAZE
    from gymnasium_robotics.envs.maze.maze_v4 import Maze

    if task.startswith("AntMaze_UMaze"):
        import gymnasium.envs.mujoco.ant_v5 as ant

        agent, root = os.path.join(os.path.dirname(ant.__file__), "assets", "ant.xml"), "torso"
        scaling, height, frame_skip = 4, 0.5, 5
    elif task.startswith("PointMaze_UMaze"):
        agent, root = os.path.join(assets, "point", "point.xml"), "particle"
        scaling, height, frame_skip = 1, 0.4, 1
    else:
        raise ValueError(f"no raw model for {task}: FetchPush, AntMaze_UMaze or PointMaze_UMaze")
    maze, xml = Maze.make_maze(agent, U_MAZE, scaling, height)
    # qpos0 (where the loop starts and resets) would put the agent at the maze's centre, inside
    # U_MAZE's middle wall: its root body moves to a free cell's centre, as a reset places it
    x, y = maze.cell_rowcol_to_xy(np.array([1, 1]))
    tree = ET.parse(xml)
    body = tree.find(f".//body[@name='{root}']")
    body.set("pos", f"{x} {y} {body.get('pos').split()[2]}")
    tree.write(xml)
    return xml, frame_skip, True


# name: (kind, num_envs)
PEERS = {
    "ours N=16 2T": ("ours", 16),
    "ours N=256 2T": ("ours", 256),
    "ref N=16 2T": ("peer", 16),
    "ref N=256 2T": ("peer", 256),
    "gymnasium async x16": ("gym-async", 16),
    "raw N=16 2T": ("raw", 16),
    "raw N=256 2T": ("raw", 256),
}
RATIOS = [
    ("ours N=16 / ref N=16", "ours N=16 2T", "ref N=16 2T"),
    ("ours N=256 / ref N=256", "ours N=256 2T", "ref N=256 2T"),
    ("ours N=16 / gymnasium async x16", "ours N=16 2T", "gymnasium async x16"),
    ("ours N=16 / raw N=16", "ours N=16 2T", "raw N=16 2T"),
    ("ours N=256 / raw N=256", "ours N=256 2T", "raw N=256 2T"),
]


def main() -> None:
    ap = run_args(__doc__.split("\n\n")[0], rounds=3, seconds=3.0, warmup=0.5, peer=True)
    ap.add_argument("--tasks", nargs="+", default=["FetchPush-v4", "AntMaze_UMaze-v5", "PointMaze_UMaze-v3"])
    ap.add_argument("--no-gym", action="store_true", help="skip gymnasium's AsyncVectorEnv")
    ap.add_argument("--raw-build-dir", default=str(REPO_ROOT / "build" / "bench-mujoco-raw"))
    a = ap.parse_args()
    a.peer_python = peer_python(a.peer_python)
    peers = {
        k: v for k, v in PEERS.items() if (a.peer_python or v[0] != "peer") and not (a.no_gym and v[0] == "gym-async")
    }
    hint = " (MuJoCo headers not found? see the cmake output)"
    raw_dir = build_bench_extension(Path(a.raw_build_dir), "ENVPOOL_MUJOCO_BENCH", "envpool_mujoco_raw", hint)

    def sample(task: str, name: str) -> float | None:
        kind, n = peers[name]
        if (kind == "peer" and task in NO_PEER) or (kind == "gym-async" and task in NO_GYM):
            return None
        payload = dict(task=task, num_envs=n, batch_size=n, kind=kind, seconds=a.seconds, warmup=a.warmup)
        payload["raw_dir"] = raw_dir
        if kind == "raw":  # its worker imports model_file from this module
            found = run_child(sys.executable, WORKER, payload, child_env(str(REPO_ROOT)), "/tmp", 300 + 4 * a.seconds)
            if "error" in found:
                print(f"raw {task} failed: {found['error']}", file=sys.stderr)
            return found.get("steps_per_s")
        python = a.peer_python if kind == "peer" else sys.executable
        return child_rate(python, WORKER, payload, kind == "peer", 300 + 4 * a.seconds)

    title = "gymnasium-robotics throughput (env steps/s)"
    rotated_report(a, "robotics", title, a.tasks, list(peers), sample, RATIOS, step=2)


if __name__ == "__main__":
    main()
