"""Box2D throughput: env steps per second of LunarLander-v3, BipedalWalker-v3 and CarRacing-v3
(whose observation is the 96 x 96 frame, drawn every step on both sides), side by side.

Peers, each timed in a fresh subprocess (reset, warm up, then step with pre-generated uniform
random actions for a fixed wall time; episodes end and autoreset as they do in training):
ours N=16 / N=64 2T (``envpool.make(task, num_envs=N, num_threads=2)``, full-batch ``step()``)
and async 64/32 2T (``recv()`` / ``send(actions, env_id)``); the same on the reference EnvPool
(``--peer-python``, default: the venv bench/tools/peers/envpool.sh makes; it has no CarRacing-v3,
only CarRacing-v2); gymnasium's ``AsyncVectorEnv`` and ``SyncVectorEnv`` of 16 envs
(``gymnasium.make_vec(task, 16, vectorization_mode=...)``). Rounds interleave the peers (rotated
each round); medians and the ratios issue 39 asks for (ours / ref, ours / gymnasium async).

    python -m bench.envs.box2d [--rounds 3] [--seconds 3] [--tasks LunarLander-v3 BipedalWalker-v3 CarRacing-v3]

Writes the table to ``box2d.md`` (and the samples to ``box2d.json``) in ``--out``.
"""

from __future__ import annotations

import sys

from bench.harness import WORKER_PRELUDE, child_rate, peer_python, run_args
from bench.rounds import rotated_report

NO_PEER = {"CarRacing-v3"}  # the reference EnvPool has only CarRacing-v2

WORKER = (
    WORKER_PRELUDE
    + r"""
a = json.loads(sys.argv[1])
task, n, kind, batch = a["task"], a["num_envs"], a["kind"], a["batch_size"]
if kind in ("gym-async", "gym-sync"):
    import gymnasium as gym
    env = gym.make_vec(task, num_envs=n, vectorization_mode=kind[4:])
    space = env.single_action_space
else:
    import envpool
    make = envpool.make_gymnasium if kind == "peer" else envpool.make
    env = make(task, num_envs=n, batch_size=batch, num_threads=2, seed=0)
    space = env.action_space if kind == "peer" else env.single_action_space  # the peer's: one env's
acts = random_action_block(space, batch, 64, 0)
if kind == "peer" and hasattr(space, "n"):
    acts = [x.astype(np.int32) for x in acts]
if batch < n:
    env.async_reset()
    step = lambda k: env.send(acts[k % 64], env.recv()[-1]["env_id"])
else:
    env.reset(seed=0) if kind.startswith("gym") else env.reset()
    step = lambda k: env.step(acts[k % 64])
emit({"steps_per_s": timed_rate(step, batch, a)})
env.close()
"""
)

# name: (kind, num_envs, batch_size)
OURS = {"ours N=16 2T": ("ours", 16, 16), "ours N=64 2T": ("ours", 64, 64), "ours async 64/32 2T": ("ours", 64, 32)}
PEER = {"ref N=16 2T": ("peer", 16, 16), "ref N=64 2T": ("peer", 64, 64), "ref async 64/32 2T": ("peer", 64, 32)}
GYM = {"gymnasium async x16": ("gym-async", 16, 16), "gymnasium sync x16": ("gym-sync", 16, 16)}
RATIOS = [
    ("ours N=16 / ref N=16", "ours N=16 2T", "ref N=16 2T"),
    ("ours N=64 / ref N=64", "ours N=64 2T", "ref N=64 2T"),
    ("ours async / ref async", "ours async 64/32 2T", "ref async 64/32 2T"),
    ("ours N=16 / gymnasium async x16", "ours N=16 2T", "gymnasium async x16"),
    ("ours N=64 / gymnasium async x16", "ours N=64 2T", "gymnasium async x16"),
]


def main() -> None:
    ap = run_args(__doc__.split("\n\n")[0], rounds=3, seconds=3.0, warmup=0.5, peer=True)
    ap.add_argument("--tasks", nargs="+", default=["LunarLander-v3", "BipedalWalker-v3", "CarRacing-v3"])
    ap.add_argument("--no-gym", action="store_true", help="skip gymnasium's vector envs")
    a = ap.parse_args()
    a.peer_python = peer_python(a.peer_python)
    peers = {**OURS, **(PEER if a.peer_python else {}), **({} if a.no_gym else GYM)}

    def sample(task: str, name: str) -> float | None:
        kind, n, batch = peers[name]
        if kind == "peer" and task in NO_PEER:
            return None
        payload = dict(task=task, num_envs=n, batch_size=batch, kind=kind, seconds=a.seconds, warmup=a.warmup)
        python = a.peer_python if kind == "peer" else sys.executable
        return child_rate(python, WORKER, payload, kind == "peer", 120 + 4 * a.seconds)

    rotated_report(a, "box2d", "Box2D throughput (env steps/s)", a.tasks, list(peers), sample, RATIOS, step=2)


if __name__ == "__main__":
    main()
