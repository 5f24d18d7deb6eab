"""SAC with hindsight experience replay (Stable-Baselines3's HerReplayBuffer) on a
goal-conditioned gymnasium-robotics task, the envpool pool served to SB3 by ``envpool.sb3``.

    pip install torch==2.13.0 "stable-baselines3>=2.3" matplotlib   # a CPU-only torch: docs/install.md
    pip install --no-deps gymnasium-robotics==1.4.2                  # the tasks' model files
    OMP_NUM_THREADS=1 python examples/her_sac.py --env FetchReach-v4 --total-steps 10000 \\
        --plot docs/her_fetchreach.png

The task's reward is sparse (-1 until the gripper is within 5 cm of the goal, 0 there), so
plain SAC rarely sees a success; HER stores each transition a few more times with goals the
episode did reach later (``goal_selection_strategy="future"``) and recomputes their rewards by
calling the pool's ``compute_reward(achieved_goal, desired_goal, info)`` through
``VecEnv.env_method`` (one vectorised call per sampled batch, gymnasium-robotics' formula in
C++). Hyperparameters are rl-baselines3-zoo's for FetchReach (gamma 0.95, lr 1e-3, batch 256,
two 64-unit layers, one critic, observations normalised by VecNormalize), without its
TimeFeatureWrapper.

Every ``eval_every`` env steps the deterministic policy plays ``eval_episodes`` fresh episodes
on a second pool; an episode succeeds when its last step's ``info["is_success"]`` is 1.
``train(...)`` returns the summary (the curve of evaluation success rates, the final rate, wall
time); ``main()`` prints progress and can plot the curve.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

import numpy as np

import envpool

try:
    import torch
    from stable_baselines3 import SAC, HerReplayBuffer
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecNormalize

    from envpool.sb3 import make_vec_env
except ModuleNotFoundError as exc:
    message = (
        f"examples/her_sac.py needs {exc.name}: pip install torch==2.13.0 'stable-baselines3>=2.3' "
        "(CPU-only torch: docs/install.md#pytorch-cpu-only)"
    )
    if __name__ == "__main__":
        sys.exit(message)
    raise ModuleNotFoundError(message, name=exc.name) from exc


@dataclasses.dataclass
class Config:
    env: str = "FetchReach-v4"
    num_envs: int = 2
    total_steps: int = 10_000  # env steps, over all envs
    learning_starts: int = 1000  # uniformly random actions first
    batch_size: int = 256
    hidden: int = 64
    lr: float = 1e-3
    gamma: float = 0.95
    n_sampled_goal: int = 4  # relabelled copies per real transition (HER's k)
    normalize: bool = True  # running mean/std of the observations (VecNormalize), as the zoo
    eval_every: int = 1000  # env steps between evaluations
    eval_episodes: int = 20
    seed: int = 0


class _EvalCallback(BaseCallback):
    """Evaluates every ``cfg.eval_every`` env steps (SB3 counts ``num_timesteps`` over all envs)."""

    def __init__(self, cfg: Config, evaluate, curve: list, log):
        super().__init__()
        self.cfg, self.evaluate, self.curve, self.log = cfg, evaluate, curve, log
        self.next_eval = cfg.eval_every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.cfg.eval_every
            rate = self.evaluate(self.model)
            self.curve.append((self.num_timesteps, rate))
            if self.log is not None:
                self.log.append((self.num_timesteps, rate))
        return True


def evaluate(model, pool, episodes: int) -> float:
    """Success rate of the deterministic policy over ``episodes`` fresh episodes of ``pool`` (a
    same-step pool of ``episodes`` envs: each plays one episode to its end), its observations
    normalised with the training env's statistics where it has them."""
    normalizer = model.get_vec_normalize_env()
    obs, _ = pool.reset()
    done = np.zeros(episodes, bool)
    success = np.zeros(episodes, bool)
    while not done.all():
        action, _ = model.predict(normalizer.normalize_obs(obs) if normalizer else obs, deterministic=True)
        obs, _, terminated, truncated, info = pool.step(action)
        ended = (terminated | truncated) & ~done
        if ended.any():
            final = info["final_info"]["is_success"]
            success[ended] = final[ended] > 0
            done |= ended
    return float(success.mean())


def train(cfg: Config, log: list | None = None) -> dict:
    """Trains SAC + HER on ``cfg.env``; returns the evaluation curve [(env steps, success
    rate)], the final success rate, the env steps taken and the wall time."""
    venv = make_vec_env(cfg.env, num_envs=cfg.num_envs, seed=cfg.seed)
    if cfg.normalize:
        # HER relabels the raw observations the buffer keeps (SB3 stores them unnormalised beside
        # a VecNormalize and normalises each sampled batch)
        venv = VecNormalize(venv, norm_obs=True, norm_reward=False, gamma=cfg.gamma)
    eval_pool = envpool.make(cfg.env, num_envs=cfg.eval_episodes, seed=cfg.seed + 10_000, autoreset_mode="same_step")
    curve: list = []
    start = time.perf_counter()
    try:
        model = SAC(
            "MultiInputPolicy",
            venv,
            replay_buffer_class=HerReplayBuffer,
            replay_buffer_kwargs=dict(n_sampled_goal=cfg.n_sampled_goal, goal_selection_strategy="future"),
            learning_starts=cfg.learning_starts,
            batch_size=cfg.batch_size,
            learning_rate=cfg.lr,
            gamma=cfg.gamma,
            gradient_steps=cfg.num_envs,  # one update per transition, as with one env
            policy_kwargs=dict(net_arch=[cfg.hidden, cfg.hidden], n_critics=1),
            seed=cfg.seed,
            device="cpu",
        )
        callback = _EvalCallback(cfg, lambda m: evaluate(m, eval_pool, cfg.eval_episodes), curve, log)
        model.learn(total_timesteps=cfg.total_steps, callback=callback)
        at_end = curve and curve[-1][0] >= cfg.total_steps  # the last evaluation was at the end
        final = curve[-1][1] if at_end else evaluate(model, eval_pool, cfg.eval_episodes)
    finally:
        venv.close()
        eval_pool.close()
    return {
        "env_steps": int(model.num_timesteps),
        "curve": curve,
        "eval_success_rate": final,
        "wall_s": time.perf_counter() - start,
        "model": model,
    }


def plot(curve, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps, rates = zip(*curve)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, rates, marker="o", markersize=3)
    ax.set_xlabel("env steps")
    ax.set_ylabel("evaluation success rate")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for field in dataclasses.fields(Config):
        flag = "--" + field.name.replace("_", "-")
        if isinstance(field.default, bool):  # --normalize / --no-normalize
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=field.default)
        else:
            parser.add_argument(flag, type=type(field.default), default=field.default)
    parser.add_argument("--plot", default=None, help="write the success-rate curve PNG here")
    args = parser.parse_args(argv)
    plot_path = vars(args).pop("plot")
    cfg = Config(**vars(args))
    torch.set_num_threads(1)
    log: list = []
    result = train(cfg, log=log)
    for steps, rate in result["curve"]:
        print(f"{steps:>8d} env steps  success rate {rate:.2f}")
    print(
        f"{cfg.env}: {result['env_steps']} env steps in {result['wall_s']:.0f} s, "
        f"final evaluation success rate {result['eval_success_rate']:.2f} ({cfg.eval_episodes} episodes)"
    )
    if plot_path and result["curve"]:
        plot(result["curve"], plot_path, f"SAC + HER (SB3) on envpool {cfg.env} ({cfg.num_envs} envs)")
        print(f"wrote {plot_path}")


if __name__ == "__main__":
    main()
