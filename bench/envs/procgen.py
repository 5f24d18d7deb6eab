"""Procgen throughput: env steps per second of envpool's Procgen tasks against the reference
EnvPool's and Procgen's own vectorized env, at the same thread count.

All three run Procgen's games; envpool and Procgen's env run the very same compiled library (the
installed procgen-mirror's ``libenv.so``), the reference EnvPool its own build of Procgen 0.10.7's
sources (against the system's Qt 5: ``apt install libqt5gui5`` where it is missing). Peers, each
timed in a fresh subprocess (made, reset, warmed up, then stepped with pre-drawn random actions
for ``--seconds``): ours (``envpool.make(task, num_envs=N, num_threads=T)``, full batch, and
async ``batch_size=N/2``); the reference (``--peer-python``, default: the venv
bench/tools/peers/envpool.sh makes; ``make_gymnasium(..., channel_first=False)``, our frame
layout); ``ProcgenGym3Env(num=N, env_name=game, distribution_mode=mode, num_threads=T)`` driven
as gym3 envs are, ``act(actions)`` then ``observe()``, imported without procgen's ``__init__``
(it imports gym, which numpy 2 breaks). Rounds interleave the peers (rotated each round).

    python -m bench.envs.procgen [--rounds 3] [--seconds 3] [--sizes 16 64 256] [--tasks CoinrunHard-v0]

Writes the table to ``procgen.md`` (and the samples to ``procgen.json``) in ``--out``.
"""

from __future__ import annotations

import sys

from bench.harness import WORKER_PRELUDE, child_rate, peer_python, run_args
from bench.rounds import rotated_report

WORKER = (
    WORKER_PRELUDE
    + r"""
import importlib, importlib.util, types

a = json.loads(sys.argv[1])
task, n, kind, batch, threads = a["task"], a["num_envs"], a["kind"], a["batch_size"], a["threads"]
acts = np.random.default_rng(0).integers(15, size=(64, batch))
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
        step = lambda k: env.send(acts[k % 64], env.recv()[-1]["env_id"])
    else:
        env.reset()
        step = lambda k: env.step(acts[k % 64])
emit({"steps_per_s": timed_rate(step, batch, a)})
env.close()
"""
)


def game_and_mode(task: str) -> tuple[str, str]:
    """CoinrunHard-v0 -> ("coinrun", "hard")."""
    game = task[: -len("-v0")]
    for m in ("Easy", "Hard", "Extreme", "Memory", "Exploration"):
        if game.endswith(m):
            return game[: -len(m)].lower(), m.lower()
    return game.lower(), ""


def main() -> None:
    ap = run_args(__doc__.split("\n\n")[0], rounds=3, seconds=3.0, warmup=1.0, peer=True)
    ap.add_argument("--tasks", nargs="+", default=["CoinrunHard-v0", "StarpilotHard-v0"])
    ap.add_argument("--sizes", nargs="+", type=int, default=[16, 64, 256])
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    a.peer_python = peer_python(a.peer_python)
    peers = {}  # name: (kind, num_envs, batch_size)
    for n in a.sizes:
        peers |= {f"ours N={n}": ("ours", n, n), f"procgen N={n}": ("procgen", n, n)}
        peers |= {f"ref N={n}": ("ref", n, n)} if a.peer_python else {}
    n_async = 64 if 64 in a.sizes else a.sizes[0]
    pair = f"{n_async}/{n_async // 2}"
    peers[f"ours async {pair}"] = ("ours", n_async, n_async // 2)
    if a.peer_python:
        peers[f"ref async {pair}"] = ("ref", n_async, n_async // 2)
    ratios = [(f"ours / procgen, N={n}", f"ours N={n}", f"procgen N={n}") for n in a.sizes]
    ratios += [(f"ours / ref, N={n}", f"ours N={n}", f"ref N={n}") for n in a.sizes]
    ratios.append(("ours async / ref async", f"ours async {pair}", f"ref async {pair}"))

    def sample(task: str, name: str) -> float | None:
        kind, n, batch = peers[name]
        game, mode = game_and_mode(task)
        payload = dict(task=task, game=game, mode=mode, num_envs=n, batch_size=batch, kind=kind, threads=a.threads)
        payload.update(seconds=a.seconds, warmup=a.warmup)
        python = a.peer_python if kind == "ref" else sys.executable
        return child_rate(python, WORKER, payload, kind == "ref", 180 + 4 * a.seconds)

    title = f"Procgen throughput (env steps/s), {a.threads} threads for every peer"
    rotated_report(a, "procgen", title, a.tasks, list(peers), sample, ratios, step=2)


if __name__ == "__main__":
    main()
