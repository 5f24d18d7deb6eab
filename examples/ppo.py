"""PPO (PyTorch, CPU) on any envpool pool, sampled with envpool.EnvRunner.

    pip install ".[train]"     # after a CPU-only torch: docs/install.md#pytorch-cpu-only
    python examples/ppo.py --env CartPole-v1 --total-steps 300000 --plot docs/ppo_cartpole.png
    python examples/ppo.py --env HalfCheetah-v5 --total-steps 600000 --plot docs/ppo_halfcheetah.png
    python examples/ppo.py --batch-size 4                # an async pool (8 envs, batches of 4)
    python examples/ppo.py --python-envs true            # gymnasium's CartPole in worker processes
    python examples/ppo.py --env SimpleSpread-v3 --num-envs 32 --rollout-steps 50 --lr 0.0007 \
        --total-steps 3000000 --plot docs/ppo_simple_spread.png   # multi-agent: one policy, agent rows
    python examples/ppo.py --env MiniGrid-DoorKey-5x5-v0 --total-steps 500000 --plot docs/ppo_doorkey.png
    python examples/ppo.py --env LunarLander-v3 --total-steps 2000000 --plot docs/ppo_lunarlander.png
    python examples/ppo.py --env StarpilotEasy-v0 --total-steps 786432 --plot docs/ppo_starpilot.png  # CNN

The runner returns episodes (chunks of ongoing ones included); ``envpool.episodes_to_batch``
lays them out time-major with the observations to bootstrap truncated and cut episodes from,
which is what GAE needs. With ``--batch-size < --num-envs`` the pool is asynchronous: the
runner computes one batch's actions while the other envs step. Discrete action spaces get a
categorical policy, Box ones a Gaussian with a learned state-independent log-std (actions are
clipped to the box by the env). Observations are normalised with running statistics (as
gymnasium's NormalizeObservation does), which the MuJoCo tasks need. A ``Dict`` observation
(MiniGrid's image, direction and mission bytes) is fed as its leaves flattened and concatenated
in key order. Image observations (a uint8 Box of rank 3: Procgen's 64x64 RGB frames, Atari's
stacked frames) go instead through a small CNN shared by actor and critic, as pixels / 255.
Sparse-reward tasks (MiniGrid) also report the evaluation's success rate: the share
of episodes with a positive return.

``train(...)`` is importable (the CI learning test calls it); ``main()`` adds a tqdm progress
bar and writes the learning curve.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
import time
from typing import Any

import numpy as np

import envpool

# The `train` extra: torch (here), tqdm and matplotlib (in main).
TRAIN_EXTRA = (
    "pip install 'envpool-ng[train]' (\".[train]\" in a checkout), after a CPU-only torch "
    "(docs/install.md#pytorch-cpu-only: the torch [train] pulls in is the CUDA build)"
)


def _missing_extra(name: str) -> str:
    return f"examples/ppo.py needs {name}, from the `train` extra: {TRAIN_EXTRA}"


try:
    import torch
    from torch import nn
except ModuleNotFoundError as exc:
    if __name__ == "__main__":
        sys.exit(_missing_extra(exc.name))
    raise ModuleNotFoundError(_missing_extra(exc.name), name=exc.name) from exc


@dataclasses.dataclass
class Config:
    env: str = "CartPole-v1"
    num_envs: int = 8
    batch_size: int | None = None  # pool batch size; < num_envs: async
    num_threads: int | None = None  # env threads (native) or worker processes (python_envs)
    python_envs: bool = False  # gymnasium's own env via envpool.make_python instead of native
    total_steps: int = 300_000
    rollout_steps: int = 128  # per env, per update
    lr: float = 2.5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    epochs: int = 4
    minibatches: int = 4
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 64
    normalize_obs: bool = False  # the MuJoCo preset turns it on
    normalize_reward: bool = False  # scale rewards by a running std of the discounted return
    seed: int = 1


def flat_dim(space) -> int:
    """The width of ``flatten_obs``'s rows for observations of ``space``."""
    if hasattr(space, "spaces") and isinstance(space.spaces, dict):
        return sum(flat_dim(sub) for sub in space.spaces.values())
    return int(np.prod(space.shape)) if space.shape else 1


def flatten_obs(obs) -> np.ndarray:
    """A batch of observations as one float64 row each; a Dict's leaves in key order (the order
    of the space's keys, which ``flat_dim`` sums)."""
    if isinstance(obs, dict):
        return np.concatenate([flatten_obs(obs[k]) for k in obs], axis=1)
    obs = np.asarray(obs, np.float64)
    return obs.reshape(len(obs), -1)


def take_rows(obs, index):
    """``obs[index]`` for an array or a Dict of arrays."""
    return {k: take_rows(v, index) for k, v in obs.items()} if isinstance(obs, dict) else obs[index]


class RunningMeanStd:
    """Running mean and variance (Chan et al.'s parallel update), as NormalizeObservation."""

    def __init__(self, shape):
        self.mean = np.zeros(shape, np.float64)
        self.var = np.ones(shape, np.float64)
        self.count = 1e-4

    def update(self, x: np.ndarray) -> None:
        x = x.reshape(-1, *self.mean.shape)
        mean, var, n = x.mean(0), x.var(0), len(x)
        delta, total = mean - self.mean, self.count + n
        self.mean = self.mean + delta * n / total
        self.var = (self.var * self.count + var * n + delta**2 * self.count * n / total) / total
        self.count = total


def _layer(i: int, o: int, std: float = np.sqrt(2)) -> nn.Linear:
    layer = nn.Linear(i, o)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.zeros_(layer.bias)
    return layer


class _ActorCritic(nn.Module):
    """The action distribution over the actor's outputs: categorical for a Discrete space, else a
    Gaussian with a learned state-independent log-std."""

    def _action_size(self, action_space) -> int:
        self.discrete = hasattr(action_space, "n")
        return int(action_space.n) if self.discrete else int(np.prod(action_space.shape))

    def _action_dist(self, out: torch.Tensor):
        if self.discrete:
            return torch.distributions.Categorical(logits=out)
        return torch.distributions.Normal(out, self.log_std.exp().expand_as(out))

    def dist_and_value(self, x: torch.Tensor):
        return self.dist(x), self.value(x)

    def log_prob(self, dist, actions: torch.Tensor) -> torch.Tensor:
        lp = dist.log_prob(actions)
        return lp if self.discrete else lp.sum(-1)

    def entropy(self, dist) -> torch.Tensor:
        e = dist.entropy()
        return e if self.discrete else e.sum(-1)


class Agent(_ActorCritic):
    """Separate actor and critic MLPs (tanh), CleanRL's PPO layout."""

    pixels = False  # takes flattened float rows (Policy.normalize)

    def __init__(self, obs_dim: int, action_space, hidden: int):
        super().__init__()
        out = self._action_size(action_space)
        self.critic = nn.Sequential(
            _layer(obs_dim, hidden), nn.Tanh(), _layer(hidden, hidden), nn.Tanh(), _layer(hidden, 1, 1.0)
        )
        self.actor = nn.Sequential(
            _layer(obs_dim, hidden), nn.Tanh(), _layer(hidden, hidden), nn.Tanh(), _layer(hidden, out, 0.01)
        )
        if not self.discrete:
            self.log_std = nn.Parameter(torch.zeros(out))
            self.action_shape = action_space.shape

    def dist(self, x: torch.Tensor):
        return self._action_dist(self.actor(x))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)


def image_layout(space) -> str | None:
    """The layout, "hwc" or "chw", when ``space`` is an image (a uint8 Box of rank 3: Procgen's (64, 64, 3),
    Atari's stacked (4, 84, 84)), which gets the CNN; None otherwise (Dicts included): the MLP."""
    shape = getattr(space, "shape", None)
    if getattr(space, "dtype", None) != np.uint8 or shape is None or len(shape) != 3:
        return None
    return "hwc" if shape[-1] <= 4 else "chw"  # a trailing axis of 1-4 is channels


def _conv(i: int, o: int, k: int, s: int) -> nn.Conv2d:
    conv = nn.Conv2d(i, o, k, s)
    nn.init.orthogonal_(conv.weight, np.sqrt(2))
    nn.init.zeros_(conv.bias)
    return conv


class CnnAgent(_ActorCritic):
    """Image observations: a conv encoder shared by a linear actor and critic. Two conv layers
    (the 2013 DQN's: 16 8x8/4, 32 4x4/2) and one dense layer: a CPU can train it at thousands of
    frames per second on 64x64 frames, where the Nature CNN's three costs ~3x. Pixels are scaled
    by 1/255 in the network, so rollouts keep the uint8 frames (4x less memory than floats) and
    need no running normalisation."""

    pixels = True  # takes the uint8 frames as they come (Policy.normalize)

    def __init__(self, obs_shape, layout: str, action_space, hidden: int):
        super().__init__()
        out = self._action_size(action_space)
        self.channels_last = layout == "hwc"
        chw = (obs_shape[2], obs_shape[0], obs_shape[1]) if self.channels_last else tuple(obs_shape)
        convs = nn.Sequential(_conv(chw[0], 16, 8, 4), nn.ReLU(), _conv(16, 32, 4, 2), nn.ReLU(), nn.Flatten())
        with torch.no_grad():
            width = convs(torch.zeros(1, *chw)).shape[1]
        self.encoder = nn.Sequential(*convs, _layer(width, hidden), nn.ReLU())
        self.actor = _layer(hidden, out, 0.01)
        self.critic = _layer(hidden, 1, 1.0)
        if not self.discrete:
            self.log_std = nn.Parameter(torch.zeros(out))
            self.action_shape = action_space.shape

    def features(self, x: torch.Tensor) -> torch.Tensor:
        x = x.float() / 255.0
        return self.encoder(x.permute(0, 3, 1, 2) if self.channels_last else x)

    def dist(self, x: torch.Tensor):
        return self._action_dist(self.actor(self.features(x)))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.features(x)).squeeze(-1)

    def dist_and_value(self, x: torch.Tensor):
        h = self.features(x)  # one encoder pass for both heads
        return self._action_dist(self.actor(h)), self.critic(h).squeeze(-1)


class Policy:
    """What the runner calls: obs batch -> (actions, {"logp", "value"}); normalises the
    observations with statistics frozen during a rollout (updated between rollouts)."""

    def __init__(self, agent: Agent, obs_rms: RunningMeanStd | None, deterministic: bool = False):
        self.agent, self.obs_rms, self.deterministic = agent, obs_rms, deterministic

    def normalize(self, obs) -> torch.Tensor:
        if self.agent.pixels:  # the uint8 frames; the CNN scales them
            return torch.from_numpy(np.ascontiguousarray(obs))
        obs = flatten_obs(obs)
        if self.obs_rms is not None:
            obs = np.clip((obs - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + 1e-8), -10, 10)
        return torch.as_tensor(obs, dtype=torch.float32)

    @torch.no_grad()
    def __call__(self, obs):
        x = self.normalize(obs)
        if self.deterministic:
            dist = self.agent.dist(x)
            actions = dist.probs.argmax(-1) if self.agent.discrete else dist.mean
            return actions.numpy()
        dist, value = self.agent.dist_and_value(x)
        actions = dist.sample()
        logp = self.agent.log_prob(dist, actions)
        return actions.numpy(), {"logp": logp.numpy(), "value": value.numpy()}


def gae(batch, values_next_boot: np.ndarray, gamma: float, lam: float):
    """Advantages and returns on a TimeMajorBatch. ``values_next_boot`` are the critic's values
    of ``batch.bootstrap_observations``."""
    values = batch.extras["value"]
    T, B = values.shape
    next_values = np.zeros((T, B))
    next_values[:-1] = values[1:]
    next_values[batch.dones] = 0.0  # terminated: 0; truncated or cut: set below
    next_values[batch.bootstrap_t, batch.bootstrap_b] = values_next_boot
    rewards = batch.rewards
    adv = np.zeros((T, B))
    last = np.zeros(B)
    for t in reversed(range(T)):
        delta = rewards[t] + gamma * next_values[t] - values[t]
        # the advantage chain stops where the episode or chunk stopped
        last = delta + gamma * lam * np.where(batch.dones[t], 0.0, last)
        adv[t] = last
    adv[~batch.mask] = 0.0
    return adv, adv + values


def make_envs(cfg: Config):
    if cfg.python_envs:  # gymnasium's own env in worker processes
        return envpool.make_python(
            cfg.env, num_envs=cfg.num_envs, batch_size=cfg.batch_size, num_workers=cfg.num_threads, seed=cfg.seed
        )
    return envpool.make(
        cfg.env, num_envs=cfg.num_envs, batch_size=cfg.batch_size, num_threads=cfg.num_threads, seed=cfg.seed
    )


def scale_rewards(batch, disc_return: np.ndarray, ret_rms: RunningMeanStd, gamma: float) -> None:
    """Scales ``batch.rewards`` by the std of the discounted return (gymnasium's NormalizeReward),
    each env's column in time order; the return restarts where an episode ended."""
    mask, rewards = batch.mask, batch.rewards
    scaled = np.zeros_like(rewards)
    ids = batch.env_ids
    for t in range(rewards.shape[0]):
        valid = mask[t]
        disc_return[ids[valid]] = disc_return[ids[valid]] * gamma + rewards[t][valid]
        ret_rms.update(disc_return[ids[valid]])
        scaled[t] = rewards[t] / np.sqrt(ret_rms.var + 1e-8)
        ended = valid & (batch.terminated[t] | batch.truncated[t])
        disc_return[ids[ended]] = 0.0
    batch.rewards = scaled


def ppo_update(agent: Agent, optimizer, policy: Policy, batch, cfg: Config) -> None:
    """The clipped-objective epochs over one rollout's valid steps, in minibatches."""
    mask = batch.mask
    with torch.no_grad():
        boot_values = agent.value(policy.normalize(batch.bootstrap_observations)).numpy()
    adv, returns = gae(batch, boot_values, cfg.gamma, cfg.gae_lambda)
    # flatten the valid steps
    b_obs = policy.normalize(take_rows(batch.observations, mask))
    b_act = torch.as_tensor(batch.actions[mask])
    b_logp = torch.as_tensor(batch.extras["logp"][mask], dtype=torch.float32)
    b_adv = torch.as_tensor(adv[mask], dtype=torch.float32)
    b_ret = torch.as_tensor(returns[mask], dtype=torch.float32)
    n = len(b_obs)
    mb = max(1, n // cfg.minibatches)
    for _ in range(cfg.epochs):
        perm = torch.randperm(n)
        for start in range(0, n, mb):
            idx = perm[start : start + mb]
            dist, v = agent.dist_and_value(b_obs[idx])
            logp = agent.log_prob(dist, b_act[idx])
            ratio = (logp - b_logp[idx]).exp()
            a = b_adv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            pg = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
            vf = 0.5 * ((v - b_ret[idx]) ** 2).mean()
            loss = pg + cfg.vf_coef * vf - cfg.ent_coef * agent.entropy(dist).mean()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
            optimizer.step()


def train(cfg: Config, progress: Any = None, log: list | None = None) -> dict[str, Any]:
    """Train PPO; returns the agent, the curve ``[(env_steps, mean episode return), ...]`` and
    timings. ``progress`` (a tqdm bar or None) is advanced by env steps."""
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    envs = make_envs(cfg)
    space = envs.single_observation_space
    layout = image_layout(space)
    if layout is not None:  # frames: the CNN, pixels / 255 (no running statistics)
        if cfg.normalize_obs:
            envs.close()
            raise ValueError(f"normalize_obs=True: {cfg.env}'s observations are images {space}, which the CNN scales")
        agent = CnnAgent(space.shape, layout, envs.single_action_space, cfg.hidden)
    else:
        agent = Agent(flat_dim(space), envs.single_action_space, cfg.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.lr, eps=1e-5)
    obs_rms = RunningMeanStd((flat_dim(space),)) if cfg.normalize_obs else None
    ret_rms = RunningMeanStd(()) if cfg.normalize_reward else None
    # Multi-agent tasks (docs/multiagent.md): one row per agent, all sharing the policy.
    rows = getattr(envs, "num_agents", cfg.num_envs)
    disc_return = np.zeros(rows)
    policy = Policy(agent, obs_rms)
    runner = envpool.EnvRunner(envs, policy)
    steps_per_update = cfg.rollout_steps * rows
    num_updates = max(1, cfg.total_steps // steps_per_update)
    curve: list[tuple[int, float]] = []
    t_sample = t_learn = 0.0
    steps = 0
    try:
        for update in range(num_updates):
            if cfg.anneal_lr:
                optimizer.param_groups[0]["lr"] = cfg.lr * (1.0 - update / num_updates)
            t0 = time.perf_counter()
            episodes = runner.sample(num_timesteps=steps_per_update)
            t_sample += time.perf_counter() - t0
            t0 = time.perf_counter()
            steps += steps_per_update
            metrics = runner.get_metrics()
            if metrics["num_episodes"]:
                curve.append((steps, metrics["episode_return_mean"]))
                if log is not None:
                    log.append((steps, metrics))
            batch = envpool.episodes_to_batch(episodes)
            if ret_rms is not None:
                scale_rewards(batch, disc_return, ret_rms, cfg.gamma)
            ppo_update(agent, optimizer, policy, batch, cfg)
            if obs_rms is not None:  # statistics for the next rollout
                obs_rms.update(flatten_obs(take_rows(batch.observations, batch.mask)))
            t_learn += time.perf_counter() - t0
            if progress is not None:
                progress.update(steps_per_update)
                if curve:
                    progress.set_postfix(ret=f"{curve[-1][1]:.1f}", refresh=False)
        # Evaluation: the mean action (Gaussian) / most likely action, fresh episodes.
        # (the same runner: an async pool has envs in flight that only it knows about)
        runner.policy = Policy(agent, obs_rms, deterministic=True)
        runner.get_metrics()  # (starts a new metrics period)
        eval_eps = runner.sample(num_episodes=max(10, cfg.num_envs))
        eval_return = float(np.mean([e.get_return() for e in eval_eps]))
        eval_success = float(np.mean([e.get_return() > 0 for e in eval_eps]))
        if rows != cfg.num_envs:  # multi-agent: the envs' episode returns (all agents), as in training
            eval_return = runner.get_metrics()["episode_return_mean"]
    finally:
        envs.close()
    return {
        "agent": agent,
        "curve": curve,
        "env_steps": steps,
        "sample_time_s": t_sample,
        "learn_time_s": t_learn,
        "eval_return": eval_return,
        "eval_success_rate": eval_success,  # episodes with a positive return (MiniGrid: reached the goal)
        "final_train_return": float(np.mean([r for _, r in curve[-5:]])) if curve else float("nan"),
        "agents_per_env": rows // cfg.num_envs,  # 1, or a multi-agent task's agent rows per env
    }


def plot(curve, path: str, title: str, xlabel: str = "env steps") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps, returns = zip(*curve)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, returns)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("mean episode return (training)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


PRESETS = {
    # MuJoCo: CleanRL's continuous-action PPO settings (2048 steps per update, 10 epochs, lr
    # 3e-4, no entropy bonus, normalised observations and rewards), but 8 minibatches of 256
    # instead of 32 of 64: 4x fewer gradient steps, which is what a 2-core machine can afford.
    # MiniGrid: sparse rewards, raw grid encodings normalised with running statistics; 16 envs.
    "minigrid": dict(num_envs=16, normalize_obs=True, hidden=128, lr=1e-3),
    # LunarLander: rl-baselines3-zoo's PPO settings for it (16 envs, 1024 steps each per update,
    # gamma 0.999 and GAE 0.98 for its long, sparse landing bonus, 4 epochs, entropy 0.01), with
    # minibatches of 256 instead of 64: 4x fewer gradient steps on a 2-core machine.
    "lunarlander": dict(num_envs=16, rollout_steps=1024, gamma=0.999, gae_lambda=0.98, minibatches=64, lr=3e-4),
    # Procgen (64x64 frames, the CNN): the Procgen paper's PPO (64 envs x 256 steps per update,
    # 3 epochs, 8 minibatches, lr 5e-4, gamma 0.999, GAE 0.95, entropy 0.01), with its IMPALA
    # CNN replaced by CnnAgent's two conv layers for a CPU.
    "procgen": dict(
        num_envs=64, rollout_steps=256, lr=5e-4, gamma=0.999, gae_lambda=0.95, epochs=3, minibatches=8, hidden=256
    ),
    "mujoco": dict(
        rollout_steps=256,
        lr=3e-4,
        epochs=10,
        minibatches=8,
        ent_coef=0.0,
        normalize_obs=True,
        normalize_reward=True,
        num_envs=8,
    ),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    fields = {f.name: f for f in dataclasses.fields(Config)}
    for name, field in fields.items():
        flag = "--" + name.replace("_", "-")
        if field.type in ("bool",):
            parser.add_argument(flag, type=lambda s: s.lower() in ("1", "true", "yes"), default=None)
        elif name in ("batch_size", "num_threads"):
            parser.add_argument(flag, type=int, default=None)
        else:
            parser.add_argument(flag, type=type(field.default), default=None)
    parser.add_argument("--plot", default=None, help="write the learning curve PNG here")
    parser.add_argument("--torch-threads", type=int, default=1)
    args = parser.parse_args(argv)
    for name in ("tqdm", "matplotlib") if args.plot else ("tqdm",):
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            sys.exit(_missing_extra(name))
    torch.set_num_threads(args.torch_threads)
    import gymnasium

    env_id = args.env or Config.env
    if env_id in envpool.list_all_envs():  # a native task (multi-agent ones included): its spec
        spec = envpool.make_spec(env_id)
        action_space = spec.agents.action_space(0) if spec.agents is not None else spec.action_space
        procgen = "distribution_mode" in spec.config  # Procgen's games (docs/tasks.md#procgen)
    else:  # gymnasium's own env (--python-envs)
        procgen = False
        probe = gymnasium.make(env_id)
        action_space = probe.action_space
        probe.close()
    continuous = not hasattr(action_space, "n")
    values = dict(PRESETS["mujoco"]) if continuous else {}
    if env_id.startswith(("MiniGrid-", "BabyAI-")):
        values = dict(PRESETS["minigrid"])
    if env_id == "LunarLander-v3":
        values = dict(PRESETS["lunarlander"])
    if procgen:
        values = dict(PRESETS["procgen"])
    values.update({k: v for k, v in vars(args).items() if k in fields and v is not None})
    cfg = Config(**values)
    from tqdm import tqdm

    t0 = time.perf_counter()
    with tqdm(
        total=(cfg.total_steps // (cfg.rollout_steps * cfg.num_envs)) * cfg.rollout_steps * cfg.num_envs, unit="step"
    ) as bar:
        result = train(cfg, progress=bar)
    wall = time.perf_counter() - t0
    print(
        f"{cfg.env}: {result['env_steps']} {'env' if result['agents_per_env'] == 1 else 'agent'} steps in {wall:.0f} s "
        f"(sampling {result['sample_time_s']:.0f} s, learning {result['learn_time_s']:.0f} s); "
        f"mean training return over the last 5 updates {result['final_train_return']:.1f}; "
        f"evaluation return (deterministic policy) {result['eval_return']:.3f}, "
        f"success rate {result['eval_success_rate']:.2f}"
    )
    if args.plot and result["curve"]:
        m = result["agents_per_env"]
        xlabel = "env steps" if m == 1 else f"agent steps ({m} per env step)"
        plot(result["curve"], args.plot, f"PPO on envpool {cfg.env} ({cfg.num_envs} envs)", xlabel)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
