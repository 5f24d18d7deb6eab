"""DrQ (SAC from pixels with random-shift augmentation; PyTorch, CPU) on a dm_control suite task.

    pip install torch && pip install --no-deps dm-control==1.0.50   # a CPU-only torch: docs/install.md
    OMP_NUM_THREADS=1 python examples/drq_sac.py --env CheetahRun-v1 --total-steps 3000

The pool gives what DrQ's wrappers give dm_control: ``from_pixels=True`` 84 x 84 frames,
``frame_stack=3`` (the frames stacked on the channel axis, (84, 84, 9) uint8, oldest first) and
``frame_skip=2``, the action repeat (two physics steps per action; the reward is the step's
reward after them, where DrQ sums the repeated steps' rewards: returns here are on a 0-500
scale for a 1000-physics-step episode, DrQ's on 0-1000). ``num_envs`` envs step as one batch;
``autoreset_mode="same_step"`` hands over each finished episode's last observation in
``info["final_obs"]``, which is the next observation of that env's last transition.

The agent is DrQ's (Kostrikov, Yarats and Fergus, 2020) with one augmented copy per batch (K = M
= 1, as DrQ-v2 does): a 4-layer conv encoder shared by the critic (which trains it) and the
actor (which does not), a LayerNorm + tanh feature, double Q critic, tanh-Gaussian actor and a
learned temperature; every image the losses see is shifted by up to 4 pixels (pad by edge
replication, random crop). The replay buffer keeps uint8 frames: each transition stores its
stacked observation and only the newest frame of the next one, since the next stack is the
current one shifted by a frame.

``train(...)`` returns a summary (env steps, updates, episode returns, wall time); ``main()``
prints progress. Run with ``OMP_NUM_THREADS=1`` on a shared machine.
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
    import torch.nn.functional as F
    from torch import nn
except ModuleNotFoundError as exc:
    message = f"examples/drq_sac.py needs {exc.name}: pip install torch (CPU-only: docs/install.md#pytorch-cpu-only)"
    if __name__ == "__main__":
        sys.exit(message)
    raise ModuleNotFoundError(message, name=exc.name) from exc


@dataclasses.dataclass
class Config:
    env: str = "CheetahRun-v1"
    num_envs: int = 2
    total_steps: int = 3000  # agent steps, over all envs
    seed_steps: int = 1000  # uniformly random actions first, as DrQ
    replay_size: int = 100_000  # transitions (~85 KB each at 84 x 84 x 9)
    frame_skip: int = 2
    time_limit: float = 0.0  # seconds; 0: the task's (CheetahRun: 10 s, 500 agent steps at frame_skip 2)
    frame_stack: int = 3
    size: int = 84
    batch_size: int = 32  # DrQ: 512, DrQ-v2: 256 (a CPU demo's budget here)
    updates_per_step: float = 0.2  # gradient updates per agent step (DrQ: 1.0)
    lr: float = 1e-3
    feature_dim: int = 50
    hidden_dim: int = 1024
    gamma: float = 0.99
    tau: float = 0.01  # critic target update
    encoder_tau: float = 0.05
    actor_every: int = 2  # actor and temperature update every k critic updates
    init_temperature: float = 0.1
    seed: int = 0


class Encoder(nn.Module):
    """DrQ's: four 3x3 convs (32 filters, the first with stride 2), linear, LayerNorm, tanh (the
    pixels scaled to [-0.5, 0.5], as DrQ-v2 does)."""

    def __init__(self, channels: int, size: int, feature_dim: int):
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(channels, 32, 3, stride=2), nn.ReLU(), nn.Conv2d(32, 32, 3), nn.ReLU(),
            nn.Conv2d(32, 32, 3), nn.ReLU(), nn.Conv2d(32, 32, 3), nn.ReLU(), nn.Flatten(),
        )  # fmt: skip
        with torch.no_grad():
            flat = self.convs(torch.zeros(1, channels, size, size)).shape[1]
        self.head = nn.Sequential(nn.Linear(flat, feature_dim), nn.LayerNorm(feature_dim), nn.Tanh())

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.head(self.convs(obs.float() / 255.0 - 0.5))


def mlp(inp: int, out: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(inp, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, out)
    )


class Critic(nn.Module):
    def __init__(self, encoder: Encoder, feature_dim: int, action_dim: int, hidden: int):
        super().__init__()
        self.encoder = encoder
        self.q1 = mlp(feature_dim + action_dim, 1, hidden)
        self.q2 = mlp(feature_dim + action_dim, 1, hidden)

    def forward(self, obs, action):
        """Both Q values and the encoder's features (the actor's input)."""
        h = self.encoder(obs)
        ha = torch.cat([h, action], dim=1)
        return self.q1(ha), self.q2(ha), h


class Actor(nn.Module):
    """Tanh-squashed Gaussian on the critic encoder's (detached) features."""

    def __init__(self, feature_dim: int, action_dim: int, hidden: int):
        super().__init__()
        self.net = mlp(feature_dim, 2 * action_dim, hidden)

    def forward(self, h: torch.Tensor):
        mu, log_std = self.net(h).chunk(2, dim=-1)
        log_std = -10 + 6 * (torch.tanh(log_std) + 1)  # in [-10, 2], as DrQ
        return mu, log_std.exp()

    def sample(self, h: torch.Tensor):
        mu, std = self(h)
        u = mu + std * torch.randn_like(mu)
        a = torch.tanh(u)
        log_prob = (-0.5 * ((u - mu) / std) ** 2 - std.log() - 0.5 * np.log(2 * np.pi)).sum(-1, keepdim=True)
        log_prob -= torch.log(1 - a.pow(2) + 1e-6).sum(-1, keepdim=True)
        return a, log_prob, torch.tanh(mu)


def random_shift(obs: torch.Tensor, pad: int, gen: torch.Generator) -> torch.Tensor:
    """DrQ's augmentation: replicate-pad by `pad`, crop back at a random integer offset per image."""
    n, _, h, w = obs.shape
    padded = F.pad(obs.float(), (pad, pad, pad, pad), mode="replicate")
    offsets = torch.randint(0, 2 * pad + 1, (n, 2), generator=gen).tolist()
    return torch.stack([padded[i, :, dy : dy + h, dx : dx + w] for i, (dy, dx) in enumerate(offsets)])


class Replay:
    """uint8 frames: the stacked observation, and only the newest frame of the next one."""

    def __init__(self, capacity: int, obs_shape: tuple[int, ...], frame_channels: int, action_dim: int):
        self.obs = np.empty((capacity, *obs_shape), dtype=np.uint8)
        self.next_frame = np.empty((capacity, frame_channels, *obs_shape[1:]), dtype=np.uint8)
        self.action = np.empty((capacity, action_dim), dtype=np.float32)
        self.reward = np.empty((capacity, 1), dtype=np.float32)
        self.not_done = np.empty((capacity, 1), dtype=np.float32)
        self.capacity, self.size, self.pos, self.k = capacity, 0, 0, frame_channels

    def add(self, obs, action, reward, next_obs, terminated):
        for i in range(len(obs)):
            self.obs[self.pos], self.next_frame[self.pos] = obs[i], next_obs[i, -self.k :]
            self.action[self.pos], self.reward[self.pos] = action[i], reward[i]
            self.not_done[self.pos] = 1 - terminated[i]  # a truncated episode bootstraps
            self.pos, self.size = (self.pos + 1) % self.capacity, min(self.size + 1, self.capacity)

    def sample(self, n: int, rng: np.random.Generator):
        idx = rng.integers(0, self.size, n)
        obs = self.obs[idx]
        next_obs = np.concatenate([obs[:, self.k :], self.next_frame[idx]], axis=1)
        t = torch.from_numpy
        return t(obs), t(self.action[idx]), t(self.reward[idx]), t(next_obs), t(self.not_done[idx])


def chw(obs: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(obs.transpose(0, 3, 1, 2))  # (N, H, W, 3k) -> (N, 3k, H, W)


class DrQ:
    """The networks, their optimizers and one gradient update (critic every step, actor and
    temperature every ``actor_every`` steps, then the targets' soft update)."""

    def __init__(self, cfg: Config, channels: int, action_dim: int, gen: torch.Generator):
        self.cfg, self.action_dim, self.gen = cfg, action_dim, gen
        self.critic = Critic(Encoder(channels, cfg.size, cfg.feature_dim), cfg.feature_dim, action_dim, cfg.hidden_dim)
        self.critic_target = Critic(
            Encoder(channels, cfg.size, cfg.feature_dim), cfg.feature_dim, action_dim, cfg.hidden_dim
        )
        self.critic_target.load_state_dict(self.critic.state_dict())
        self.actor = Actor(cfg.feature_dim, action_dim, cfg.hidden_dim)
        self.log_alpha = torch.tensor(np.log(cfg.init_temperature), requires_grad=True)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=cfg.lr)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=cfg.lr)
        self.alpha_opt = torch.optim.Adam([self.log_alpha], lr=cfg.lr)

    def act(self, obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self.actor.sample(self.critic.encoder(torch.from_numpy(obs)))[0].numpy()

    def update(self, replay: Replay, step: int, rng: np.random.Generator) -> None:
        cfg, critic, actor = self.cfg, self.critic, self.actor
        obs, action, reward, next_obs, not_done = replay.sample(cfg.batch_size, rng)
        obs, next_obs = random_shift(obs, 4, self.gen), random_shift(next_obs, 4, self.gen)
        alpha = self.log_alpha.exp().detach()
        with torch.no_grad():
            next_action, next_logp, _ = actor.sample(critic.encoder(next_obs))
            tq1, tq2, _ = self.critic_target(next_obs, next_action)
            target = reward + not_done * cfg.gamma * (torch.min(tq1, tq2) - alpha * next_logp)
        q1, q2, h = critic(obs, action)
        self.critic_opt.zero_grad()
        (F.mse_loss(q1, target) + F.mse_loss(q2, target)).backward()
        self.critic_opt.step()
        if step % cfg.actor_every == 0:
            h = h.detach()  # the actor does not train the encoder (features from before the critic step)
            a, logp, _ = actor.sample(h)
            aq1, aq2 = critic.q1(torch.cat([h, a], 1)), critic.q2(torch.cat([h, a], 1))
            self.actor_opt.zero_grad()
            (alpha * logp - torch.min(aq1, aq2)).mean().backward()
            self.actor_opt.step()
            self.alpha_opt.zero_grad()
            (self.log_alpha.exp() * (-logp.detach() + self.action_dim)).mean().backward()  # target entropy -|A|
            self.alpha_opt.step()
        target_nets = self.critic_target
        with torch.no_grad():
            for net, tgt, tau in ((critic.q1, target_nets.q1, cfg.tau), (critic.q2, target_nets.q2, cfg.tau),
                                  (critic.encoder, target_nets.encoder, cfg.encoder_tau)):  # fmt: skip
                for p, tp in zip(net.parameters(), tgt.parameters(), strict=True):
                    tp.lerp_(p, tau)


def train(cfg: Config, log=None) -> dict:
    torch.manual_seed(cfg.seed)
    rng, gen = np.random.default_rng(cfg.seed), torch.Generator().manual_seed(cfg.seed)
    extra = {"time_limit": cfg.time_limit} if cfg.time_limit > 0 else {}
    envs = envpool.make(
        cfg.env, env_type="gymnasium", num_envs=cfg.num_envs, seed=cfg.seed, autoreset_mode="same_step",
        from_pixels=True, height=cfg.size, width=cfg.size, frame_stack=cfg.frame_stack, frame_skip=cfg.frame_skip,
        **extra,
    )  # fmt: skip
    low, high = envs.action_space.low[0], envs.action_space.high[0]
    action_dim, channels = low.shape[0], 3 * cfg.frame_stack
    agent = DrQ(cfg, channels, action_dim, gen)
    replay = Replay(min(cfg.total_steps, cfg.replay_size), (channels, cfg.size, cfg.size), 3, action_dim)
    obs, _ = envs.reset()
    obs = chw(obs)
    returns, running = [], np.zeros(cfg.num_envs)
    steps = updates = 0
    owed = 0.0
    start = time.perf_counter()
    while steps < cfg.total_steps:
        if steps < cfg.seed_steps:
            action = rng.uniform(low, high, (cfg.num_envs, action_dim))
        else:
            action = agent.act(obs)
        next_obs, reward, terminated, truncated, info = envs.step(action)
        next_obs = chw(next_obs)
        stored_next = next_obs.copy()
        done = terminated | truncated
        if done.any():  # the finished envs' next observation is their episode's last one
            for i in np.flatnonzero(done):
                stored_next[i] = np.asarray(info["final_obs"][i]).transpose(2, 0, 1)
        replay.add(obs, action, reward, stored_next, terminated)
        running += reward
        for i in np.flatnonzero(done):
            returns.append((steps + cfg.num_envs, float(running[i])))
            running[i] = 0.0
            if log is not None:
                log.append(returns[-1])
            print(f"agent step {returns[-1][0]}: episode return {returns[-1][1]:.1f}", flush=True)
        obs, steps = next_obs, steps + cfg.num_envs
        if steps % 500 < cfg.num_envs:
            sec = time.perf_counter() - start
            print(f"agent step {steps}: {updates} updates, {sec:.0f} s, {steps / sec:.1f} agent steps/s", flush=True)
        if steps >= cfg.seed_steps:
            owed += cfg.updates_per_step * cfg.num_envs
            while owed >= 1.0:
                agent.update(replay, updates, rng)
                updates, owed = updates + 1, owed - 1.0
    envs.close()
    return {
        "env_steps": steps, "updates": updates, "episode_returns": returns, "seconds": time.perf_counter() - start,
        "replay": replay, "actor": agent.actor,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for field in dataclasses.fields(Config):
        parser.add_argument("--" + field.name.replace("_", "-"), type=type(field.default), default=field.default)
    cfg = Config(**vars(parser.parse_args(argv)))
    torch.set_num_threads(1)
    result = train(cfg)
    sec = result["seconds"]
    print(f"{result['env_steps']} agent steps ({result['env_steps'] * cfg.frame_skip} physics steps), "
          f"{result['updates']} updates in {sec:.0f} s: {result['env_steps'] / sec:.1f} agent steps/s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
