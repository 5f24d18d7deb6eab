"""dm_control suite throughput: env steps per second of CheetahRun (states, and 84 x 84 pixels),
side by side.

Peers, each timed in a fresh subprocess (reset, warm up, then step with pre-generated uniform
random actions for a fixed wall time; episodes end and restart as in training): ours
(``envpool.make_dm("CheetahRun-v1", num_envs=N, num_threads=2)``, full batch; ``from_pixels=True``
draws 84 x 84 frames in the pool's threads); the reference EnvPool (``--peer-python``, default:
the venv bench/tools/peers/envpool.sh makes); dm_control's own loop (``suite.load("cheetah",
"run")`` N times in one process, stepped in turn: one core; ``pixels.Wrapper`` for the pixel
rows); for the pixel rows, dm_control in gymnasium's ``AsyncVectorEnv`` (each ``pixels.Wrapper``
env behind a minimal gymnasium.Env in its own process); with ``--baseline DIR``, ours again from
another build (a folder holding its ``envpool`` package), in the same rounds.

    python -m bench.envs.dmc [--rounds 3] [--seconds 3] [--sizes 8 32] [--pixel-sizes 8] [--baseline DIR]

Writes the table to ``dmc.md`` (and the samples to ``dmc.json``) in ``--out``.
"""

from __future__ import annotations

import sys

from bench.harness import WORKER_PRELUDE, child_env, peer_python, run_args, run_child
from bench.rounds import rotated_report

WORKER = (
    WORKER_PRELUDE
    + r"""
import os
a = json.loads(sys.argv[1])
n, kind, pixels = a["num_envs"], a["kind"], a["pixels"]
acts = np.random.default_rng(0).uniform(-1, 1, size=(64, n, 6))
def load_dmc(i):
    os.environ.setdefault("MUJOCO_GL", "egl")
    import mujoco
    from dm_control.mujoco.wrapper.mjbindings import sizes
    for struct, cls in (("mjmodel", mujoco.MjModel), ("mjdata", mujoco.MjData)):  # MuJoCo 4's fields
        for name in [k for k in sizes.array_sizes[struct] if not hasattr(cls, k)]:
            del sizes.array_sizes[struct][name]
    from dm_control import suite
    from dm_control.suite.wrappers import pixels as pixel_wrapper
    e = suite.load("cheetah", "run", task_kwargs={"random": i})
    if pixels:
        kw = {"height": 84, "width": 84, "camera_id": -1}
        e = pixel_wrapper.Wrapper(e, pixels_only=True, render_kwargs=kw)
    return e
if kind == "dmc":
    envs = [load_dmc(i) for i in range(n)]
    for e in envs:
        e.reset()
    def step(k):
        for e, act in zip(envs, acts[k % 64]):
            if e.step(act).last():
                e.reset()
elif kind == "avec":
    import gymnasium as gym
    class DmcPixels(gym.Env):
        observation_space = gym.spaces.Box(0, 255, (84, 84, 3), np.uint8)
        action_space = gym.spaces.Box(-1.0, 1.0, (6,), np.float64)
        def __init__(self, i):
            self.i, self.e = i, None
        def reset(self, *, seed=None, options=None):
            # dm_control is loaded at the first reset, in the worker process: AsyncVectorEnv
            # also makes one env in this process (for its spaces), and a GL context made here
            # before the fork would leave the workers' Mesa waiting on threads they lack.
            self.e = self.e or load_dmc(self.i)
            return self.e.reset().observation["pixels"], {}
        def step(self, action):
            ts = self.e.step(action)
            end = ts.last()
            return ts.observation["pixels"], ts.reward, end and ts.discount == 0, end and ts.discount != 0, {}
    env = gym.vector.AsyncVectorEnv([lambda i=i: DmcPixels(i) for i in range(n)])
    env.reset(seed=0)
    step = lambda k: env.step(acts[k % 64])
else:
    import envpool
    kw = {"from_pixels": True} if pixels else {}
    env = envpool.make_dm("CheetahRun-v1", num_envs=n, batch_size=n, num_threads=2, seed=0, **kw)
    env.reset()
    step = lambda k: env.step(acts[k % 64])
emit({"steps_per_s": timed_rate(step, n, a)})
"""
)

NAMES = {
    "ours": "ours 2T",
    "dmc": "dm_control loop (1 core)",
    "avec": "dm_control AsyncVectorEnv",
    "peer": "reference EnvPool 2T",
    "base": "ours (baseline) 2T",
}
RATIOS = [
    ("ours / ref", NAMES["ours"], NAMES["peer"]),
    ("ours per core / dm_control", NAMES["ours"], NAMES["dmc"], 2),
    ("ours / AsyncVectorEnv", NAMES["ours"], NAMES["avec"]),
    ("ours / baseline", NAMES["ours"], NAMES["base"]),
]


def main() -> None:
    ap = run_args(__doc__.split("\n\n")[0], rounds=3, seconds=3.0, warmup=0.5, peer=True)
    ap.add_argument("--sizes", nargs="*", type=int, default=[8, 32])
    ap.add_argument("--pixel-sizes", nargs="*", type=int, default=[8])
    ap.add_argument("--baseline", default=None, help="a folder with another envpool build, measured as 'base'")
    a = ap.parse_args()
    a.peer_python = peer_python(a.peer_python)
    rows = {f"states N={n}": (n, False) for n in a.sizes} | {f"84x84 pixels N={n}": (n, True) for n in a.pixel_sizes}
    kinds = ["ours", "dmc", "avec"] + (["peer"] if a.peer_python else []) + (["base"] if a.baseline else [])
    by_name = {NAMES[k]: k for k in kinds}

    def sample(row: str, name: str) -> float | None:
        (n, pixels), kind = rows[row], by_name[name]
        if kind == "avec" and not pixels:
            return None  # the AsyncVectorEnv peer is for frames; states have the loop
        payload = dict(num_envs=n, kind="ours" if kind == "base" else kind, pixels=pixels, seconds=a.seconds)
        payload["warmup"] = a.warmup
        python = a.peer_python if kind == "peer" else sys.executable
        env = child_env(a.baseline) if kind == "base" else child_env(peer=kind == "peer")
        found = run_child(python, WORKER, payload, env, "/tmp", 300 + 4 * a.seconds)
        if "error" in found:
            print(f"{kind} {row} failed: {found['error']}", file=sys.stderr)
        return found.get("steps_per_s")

    title = "dm_control suite throughput, CheetahRun (env steps/s)"
    rotated_report(a, "dmc", title, list(rows), list(by_name), sample, RATIOS)


if __name__ == "__main__":
    main()
