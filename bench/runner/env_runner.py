"""Sampling throughput of envpool.EnvRunner vs a plain gymnasium SyncVectorEnv loop vs RLlib's
SingleAgentEnvRunner, with a random policy and with a small MLP policy (PyTorch, CPU).

Run from the repository root (needs torch for the MLP rows: ``pip install torch==2.13.0``)::

    python -m bench.runner.env_runner                                         # ours and gymnasium
    python -m bench.runner.env_runner --rllib-python "$(bench/tools/peers/rllib.sh)"  # + RLlib (its own venv)

Rows (same task, ``--num-envs`` envs, CPU; pools with their default ``num_threads``: one per
core for full batch, cores - 1 for async):

| row | what runs |
|---|---|
| ``ours-sync`` | ``EnvRunner(envpool.make(task, num_envs=N))``: full-batch ``step()`` |
| ``ours-async`` | ``EnvRunner(envpool.make(task, num_envs=N, batch_size=N/2))``: the policy computes one half's actions while the other half steps (``send``/``recv``) |
| ``pool-sync``, ``pool-async`` | the same two pools driven by a bare loop (``step`` / ``recv``, policy, ``send``) with no episodes or bookkeeping: what the pool alone gives, so the runner's own share of a row shows |
| ``gym-sync`` | ``gymnasium.vector.SyncVectorEnv`` of the task, a plain loop ``obs -> policy -> step`` (no episode bookkeeping) |
| ``rllib`` | ``ray.rllib.env.single_agent_env_runner.SingleAgentEnvRunner`` (PPO config, ``num_envs_per_env_runner=N``, no remote runners) ``.sample(num_timesteps=...)``, in its own interpreter (``--rllib-python``) |

Overlap rows (``--overlap``, policies ``--overlap-policies``): ``ours-sync`` vs ``ours-async`` (and
``ours-async-tc``, as many env threads as cores) on envs whose step costs more than CartPole's:
HalfCheetah-v5, and StepCounter-v0 waiting ``step_sleep_us`` with a policy waiting ``policy_ms``.
Policies: ``random`` and ``mlp`` (a 2x64 tanh MLP, torch with 1 thread; RLlib: its default PPO
module with ``fcnet_hiddens=[64, 64]``). Each row's sampler is built once, warmed up, then run
in chunks of ``--chunk`` env steps for ``--seconds``; rows interleaved in rounds, medians with
min-max, and each sample's CPU use of this process and of the machine (``/proc/stat``). Why and
what they measured: bench/history.md, "Env runner sampling".
Results: ``bench/results/runner.json`` and ``runner.md`` (``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

from bench.harness import cpu_jiffies

RLLIB_SOURCE = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import os
os.environ.setdefault("RAY_DEDUP_LOGS", "0")
import torch
torch.set_num_threads(1)
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

task, num_envs, chunk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
config = (
    PPOConfig()
    .environment(task)
    .env_runners(num_env_runners=0, num_envs_per_env_runner=num_envs)
    .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=[64, 64], fcnet_activation="tanh"))
)
runner = SingleAgentEnvRunner(config=config)
import ray
print(json.dumps({"ready": True, "ray": ray.__version__}), flush=True)
for line in sys.stdin:
    policy, seconds = line.split()
    seconds = float(seconds)
    random_actions = policy == "random"
    runner.sample(num_timesteps=chunk, random_actions=random_actions)  # warm-up
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        eps = runner.sample(num_timesteps=chunk, random_actions=random_actions)
        steps += sum(len(e) for e in eps)
    print(json.dumps({"steps_per_s": steps / (time.perf_counter() - t0)}), flush=True)
runner.stop()
"""


class MLP:
    """A 2x64 tanh MLP, numpy in and out: a categorical sample per row (Discrete actions) or
    the mean plus Gaussian noise, clipped to the box (Box actions)."""

    def __init__(self, obs_space, action_space):
        import numpy as np
        import torch

        torch.set_num_threads(1)
        torch.manual_seed(0)
        self.torch, self.np = torch, np
        self.discrete = hasattr(action_space, "n")
        out = int(action_space.n) if self.discrete else int(np.prod(action_space.shape))
        self.low, self.high = (None, None) if self.discrete else (action_space.low, action_space.high)
        self.net = torch.nn.Sequential(
            torch.nn.Linear(int(np.prod(obs_space.shape)), 64),
            torch.nn.Tanh(),
            torch.nn.Linear(64, 64),
            torch.nn.Tanh(),
            torch.nn.Linear(64, out),
        )

    def __call__(self, obs):
        torch = self.torch
        with torch.inference_mode():
            x = torch.as_tensor(self.np.asarray(obs).reshape(len(obs), -1), dtype=torch.float32)
            out = self.net(x)
            if self.discrete:
                return torch.multinomial(torch.softmax(out, -1), 1).squeeze(-1).numpy()
            noisy = (out + 0.1 * torch.randn_like(out)).numpy()
            return self.np.clip(noisy, self.low, self.high)


def make_samplers(
    task: str, num_envs: int, chunk: int, policy_kind: str, env_kwargs=None, gym=True, policy_ms: float = 0.0
):
    """name -> callable(seconds) -> steps/s, each built once (and closed by the caller)."""
    from gymnasium.vector.utils import batch_space

    import envpool
    import envpool.testing

    if task == "StepCounter-v0":  # a test plugin, registered on request
        envpool.testing.load_step_counter()
    samplers, closers = {}, []
    spec = envpool.make_spec(task, **(env_kwargs or {}))
    policy = MLP(spec.observation_space, spec.action_space) if policy_kind == "mlp" else None
    if policy is not None and policy_ms:
        mlp = policy

        def policy(obs):  # the MLP, then waiting as for a remote or GPU inference server
            actions = mlp(obs)
            time.sleep(policy_ms / 1000)
            return actions

    def make(batch, threads):
        envs = envpool.make(
            task, num_envs=num_envs, batch_size=batch, num_threads=threads, seed=0, **(env_kwargs or {})
        )
        closers.append(envs.close)
        return envs

    rows = [("ours-sync", num_envs, None), ("ours-async", num_envs // 2, None)]
    if not gym:  # the overlap rows: also async with as many env threads as the full batch has
        rows.append(("ours-async-tc", num_envs // 2, os.cpu_count()))
    for name, batch, threads in rows:
        samplers[name] = _runner_sampler(envpool.EnvRunner(make(batch, threads), policy, seed=0), chunk)
    # The same pools driven by a bare loop (no episodes, no bookkeeping): what the pool itself
    # costs per batch, so that the runner's share of a row's time can be told apart.
    for name, batch in (("pool-sync", num_envs), ("pool-async", num_envs // 2)):
        space = batch_space(spec.action_space, batch)
        space.seed(0)
        act = (lambda obs, space=space: space.sample()) if policy is None else policy
        samplers[name] = _pool_sampler(make(batch, None), act, batch, chunk)
    if gym:
        samplers["gym-sync"] = _gym_sampler(task, num_envs, policy, chunk, closers)
    return samplers, closers


def _runner_sampler(runner, chunk: int):
    def run(seconds):
        runner.sample(num_timesteps=chunk)  # warm-up
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            runner.sample(num_timesteps=chunk)
            steps += chunk
        return steps / (time.perf_counter() - t0)

    return run


def _pool_sampler(envs, act, batch: int, chunk: int):
    """A bare step() loop (full batch) or recv()/send() loop (async) over ``envs``."""
    if batch == envs.num_envs:
        state = {"obs": envs.reset()[0]}

        def run_full(seconds):
            steps, t0, obs = 0, time.perf_counter(), state["obs"]
            while time.perf_counter() - t0 < seconds:
                for _ in range(chunk // batch):
                    obs = envs.step(act(obs))[0]
                steps += chunk // batch * batch
            state["obs"] = obs
            return steps / (time.perf_counter() - t0)

        return run_full
    envs.async_reset()

    def run_async(seconds):
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(chunk // batch):
                obs, _, _, _, info = envs.recv()
                envs.send(act(obs), info["env_id"])
            steps += chunk // batch * batch
        return steps / (time.perf_counter() - t0)

    return run_async


def _gym_sampler(task: str, num_envs: int, policy, chunk: int, closers: list):
    import gymnasium

    vec = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make(task)] * num_envs)
    vec.action_space.seed(0)
    closers.append(vec.close)
    state = {"obs": vec.reset(seed=0)[0]}

    def run_gym(seconds):
        steps, t0 = 0, time.perf_counter()
        obs = state["obs"]
        while time.perf_counter() - t0 < seconds:
            for _ in range(chunk // num_envs):
                actions = vec.action_space.sample() if policy is None else policy(obs)
                obs, *_ = vec.step(actions)
            steps += chunk // num_envs * num_envs
        state["obs"] = obs
        return steps / (time.perf_counter() - t0)

    return run_gym


def measure(run, seconds: float) -> dict:
    """One sample of a row: env steps/s, this process's CPU use in cores (all its threads) and
    the whole machine's busy fraction over the same wall time (other jobs included)."""
    cpu0, wall0, mach0 = time.process_time(), time.perf_counter(), cpu_jiffies()
    steps_per_s = run(seconds)
    cpu, wall, mach1 = time.process_time() - cpu0, time.perf_counter() - wall0, cpu_jiffies()
    busy = (mach1[0] - mach0[0]) / (mach1[1] - mach0[1]) if mach1[1] > mach0[1] else float("nan")
    return {"steps_per_s": steps_per_s, "process_cores": cpu / wall, "machine_busy": busy}


def summarize(samples: list[dict]) -> dict:
    v = [s["steps_per_s"] for s in samples]
    return {
        "median": statistics.median(v),
        "min": min(v),
        "max": max(v),
        "samples": v,
        "process_cores": statistics.median(s["process_cores"] for s in samples),
        "machine_busy": statistics.median(s["machine_busy"] for s in samples),
    }


class RLlib:
    def __init__(self, python: str, task: str, num_envs: int, chunk: int):
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        self.proc = subprocess.Popen(
            [python, "-c", RLLIB_SOURCE, task, str(num_envs), str(chunk)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        line = self.proc.stdout.readline()
        if not line:
            self.close()
            raise RuntimeError(f"RLlib's env runner did not start under {python}")
        self.version = json.loads(line)["ray"]

    def sample(self, policy: str, seconds: float) -> float:
        self.proc.stdin.write(f"{policy} {seconds}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["steps_per_s"]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="CartPole-v1")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--chunk", type=int, default=1024, help="env steps per sample() call")
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--policies", default="random,mlp")
    parser.add_argument("--rllib-python", default=os.environ.get("RLLIB_PYTHON"))
    parser.add_argument(
        "--overlap",
        default="HalfCheetah-v5,StepCounter-v0?step_sleep_us=1000&policy_ms=4",
        help="tasks (with ?key=value&... env kwargs; policy_ms=X adds X ms of waiting to each "
        "policy call) for the async-overlap rows; '' for none",
    )
    parser.add_argument("--overlap-policies", default="random,mlp", help="policies of the overlap rows")
    parser.add_argument("--out", default="bench/results")
    return parser.parse_args(argv)


def run_rounds(args, label: str, samplers: dict) -> dict:
    """Every sampler once per round, rounds interleaved; the summary of each."""
    samples = {name: [] for name in samplers}
    for _ in range(args.rounds):
        for name, run in samplers.items():
            samples[name].append(measure(run, args.seconds))
            m = samples[name][-1]
            print(
                f"{label} {name:13s} {m['steps_per_s']:10.0f} steps/s  process {m['process_cores']:.2f} cores  "
                f"machine busy {m['machine_busy']:.0%}",
                flush=True,
            )
    return {name: summarize(v) for name, v in samples.items()}


def measure_policies(args, rllib) -> dict:
    """The main rows: per policy, the runner, the bare pool, gymnasium and RLlib."""
    results = {}
    for policy in filter(None, args.policies.split(",")):
        samplers, closers = make_samplers(args.task, args.num_envs, args.chunk, policy)
        if rllib is not None:
            samplers["rllib"] = lambda seconds, policy=policy: rllib.sample(policy, seconds)
        try:
            results[policy] = run_rounds(args, f"{policy:6s}", samplers)
        finally:
            for close in closers:
                close()
        if "rllib" in results[policy]:  # it runs in another process: its CPU is not ours
            results[policy]["rllib"]["process_cores"] = float("nan")
    return results


def measure_overlap(args) -> dict:
    overlap = {}
    for entry in filter(None, args.overlap.split(",")):
        task, _, query = entry.partition("?")
        kwargs = {k: float(v) for k, v in (kv.split("=") for kv in query.split("&") if kv)}
        policy_ms = kwargs.pop("policy_ms", 0.0)
        kwargs = {k: int(v) for k, v in kwargs.items()}
        for policy in filter(None, args.overlap_policies.split(",")):
            samplers, closers = make_samplers(
                task, args.num_envs, args.chunk, policy, kwargs, gym=False, policy_ms=policy_ms
            )
            try:
                overlap[f"{entry} {policy}"] = run_rounds(args, f"overlap {entry} {policy}", samplers)
            finally:
                for close in closers:
                    close()
    return overlap


def _cell(r: dict) -> str:
    return f"{r['median']:,.0f} ({r['min']:,.0f}-{r['max']:,.0f})"


def policies_table(args, results: dict) -> list[str]:
    lines = [
        (
            f"{args.task}, {args.num_envs} envs, {args.chunk} steps per sample() call, "
            f"median of {args.rounds} interleaved rounds of {args.seconds} s (min-max); process = this "
            f"process's CPU use in cores, machine = all {os.cpu_count()} cores' busy share (other jobs included):"
        ),
        "",
        "| policy | row | env steps/s | vs gym-sync | vs rllib | process | machine |",
        "|---|---|---|---|---|---|---|",
    ]
    for policy, rows in results.items():
        for name, r in rows.items():
            vs_gym = r["median"] / rows["gym-sync"]["median"]
            vs_rllib = f"{r['median'] / rows['rllib']['median']:.1f}x" if "rllib" in rows else "n/a"
            lines.append(
                f"| {policy} | {name} | {_cell(r)} | {vs_gym:.1f}x | {vs_rllib} | "
                f"{r['process_cores']:.2f} | {r['machine_busy']:.0%} |"
            )
    for policy, rows in results.items():
        lines.append("")
        lines.append(
            f"{policy}: ours-async / ours-sync = {rows['ours-async']['median'] / rows['ours-sync']['median']:.2f}; "
            f"pool-async / pool-sync = {rows['pool-async']['median'] / rows['pool-sync']['median']:.2f}"
        )
    return lines


def overlap_table(args, overlap: dict) -> list[str]:
    if not overlap:
        return []
    lines = [
        "",
        (
            f"Async overlap, {args.num_envs} envs (async: batch_size {args.num_envs // 2}); default threads "
            f"(full batch: one per core; async: cores - 1, leaving the policy a core); 'pool' = bare "
            "step / recv-policy-send loop without the runner; process cores in brackets:"
        ),
        "",
        (
            f"| task, policy | ours-sync | ours-async | ours-async, {os.cpu_count()} threads | pool-sync | "
            f"pool-async | async / sync | async {os.cpu_count()}t / sync | pool async / sync |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for entry, rows in overlap.items():
        a, b, c = rows["ours-sync"], rows["ours-async"], rows["ours-async-tc"]
        d, e = rows["pool-sync"], rows["pool-async"]
        cc = lambda r: f"{_cell(r)} [{r['process_cores']:.2f}]"
        lines.append(
            f"| {entry.replace('?', ' ')} | {cc(a)} | {cc(b)} | {cc(c)} | {cc(d)} | {cc(e)} | "
            f"{b['median'] / a['median']:.2f} | {c['median'] / a['median']:.2f} | "
            f"{e['median'] / d['median']:.2f} |"
        )
    return lines


def main(argv=None) -> None:
    args = parse_args(argv)
    loadavg_start = os.getloadavg()
    rllib = None
    if args.rllib_python:
        rllib = RLlib(args.rllib_python, args.task, args.num_envs, args.chunk)
    else:
        print("rllib: skipped (no --rllib-python / $RLLIB_PYTHON)")
    try:
        results = measure_policies(args, rllib)
    finally:
        if rllib is not None:
            rllib.close()
    overlap = measure_overlap(args)
    table = "\n".join(policies_table(args, results) + overlap_table(args, overlap))
    results["overlap"] = overlap
    print(table)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "runner.md"), "w") as f:
        f.write(table + "\n")
    meta = {
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "loadavg_end": os.getloadavg(),
        "loadavg_start": loadavg_start,
        "python": platform.python_version(),
        "ray": rllib.version if rllib else None,
        "args": vars(args),
    }
    with open(os.path.join(args.out, "runner.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
