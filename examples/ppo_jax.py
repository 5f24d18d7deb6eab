"""PPO (JAX + optax, CPU) on CartPole-v1, the whole rollout inside jit through envs.xla().

    pip install ".[jax-train]"
    python examples/ppo_jax.py --total-steps 500000 --plot docs/ppo_jax_cartpole.png

One jitted function runs an iteration: ``lax.scan`` over ``--num-steps`` env steps (policy
sample, then ``step(handle, action)`` into the C++ pool), GAE, and ``--epochs`` x
``--minibatches`` Adam updates. Python only loops over iterations and prints. The pool uses
same-step autoreset, so the observation after an episode end is already the next episode's,
and a truncated episode's value is bootstrapped from ``info["final_obs"]``. The categorical
policy and the value function are 2x64 tanh MLPs (as CleanRL's ppo.py).

``train(...)`` is importable (scripts/ci_jax.sh runs a short learning check through it).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from typing import Any

import numpy as np

import envpool

EXTRA = "pip install 'envpool-ng[jax-train]' (\".[jax-train]\" in a checkout)"
try:
    import jax
    import jax.numpy as jnp
    import optax
except ModuleNotFoundError as exc:
    if __name__ == "__main__":
        sys.exit(f"examples/ppo_jax.py needs {exc.name}: {EXTRA}")
    raise


@dataclasses.dataclass
class Config:
    env: str = "CartPole-v1"
    num_envs: int = 8
    num_steps: int = 128  # per env, per iteration
    total_steps: int = 300_000
    lr: float = 2.5e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    minibatches: int = 4
    epochs: int = 4
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    seed: int = 1
    eval_envs: int = 8


def _dense(key, n_in: int, n_out: int, scale: float) -> dict[str, Any]:
    return {"w": jax.nn.initializers.orthogonal(scale)(key, (n_in, n_out)), "b": jnp.zeros(n_out)}


def init_params(key, obs_dim: int, n_actions: int) -> dict[str, Any]:
    k = jax.random.split(key, 6)
    root2 = float(np.sqrt(2))
    return {
        "actor": [_dense(k[0], obs_dim, 64, root2), _dense(k[1], 64, 64, root2), _dense(k[2], 64, n_actions, 0.01)],
        "critic": [_dense(k[3], obs_dim, 64, root2), _dense(k[4], 64, 64, root2), _dense(k[5], 64, 1, 1.0)],
    }


def _mlp(layers, x):
    for layer in layers[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def logits_and_value(params, obs):
    return _mlp(params["actor"], obs), _mlp(params["critic"], obs)[..., 0]


def make_iteration(cfg: Config, step, n_actions: int, optimizer):
    """The jitted PPO iteration: (params, opt_state, handle, obs, episode stats, key) -> the
    same, updated. Episode stats per env, as CleanRL's xla scripts keep them: the running
    return, and the return of the env's last finished episode (what the log reports)."""
    n, t_len = cfg.num_envs, cfg.num_steps

    def rollout_step(carry, _):
        params, handle, obs, ep_ret, last_ret, key = carry
        key, sub = jax.random.split(key)
        logits, value = logits_and_value(params, obs)
        action = jax.random.categorical(sub, logits)
        logp = jax.nn.log_softmax(logits)[jnp.arange(n), action]
        handle, (next_obs, reward, term, trunc, info) = step(handle, action)
        reward = reward.astype(jnp.float32)
        # Truncated episodes are bootstrapped from their last observation (same-step autoreset:
        # next_obs is already the next episode's first).
        _, final_value = logits_and_value(params, info["final_obs"])
        reward_bootstrapped = reward + cfg.gamma * jnp.where(trunc, final_value, 0.0)
        done = term | trunc
        ep_ret = ep_ret + reward
        last_ret = jnp.where(done, ep_ret, last_ret)
        out = (obs, action, logp, value, reward_bootstrapped, done)
        return (params, handle, next_obs, jnp.where(done, 0.0, ep_ret), last_ret, key), out

    def gae(values, rewards, dones, last_value):
        def back(adv_next, xs):
            value, reward, done, next_value = xs
            delta = reward + cfg.gamma * next_value * (1 - done) - value
            adv = delta + cfg.gamma * cfg.gae_lambda * (1 - done) * adv_next
            return adv, adv

        next_values = jnp.concatenate([values[1:], last_value[None]], axis=0)
        _, adv = jax.lax.scan(
            back, jnp.zeros(n), (values, rewards, dones.astype(jnp.float32), next_values), reverse=True
        )
        return adv, adv + values

    def loss_fn(params, obs, action, old_logp, adv, ret):
        logits, value = logits_and_value(params, obs)
        logp_all = jax.nn.log_softmax(logits)
        logp = logp_all[jnp.arange(action.shape[0]), action]
        ratio = jnp.exp(logp - old_logp)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        pg = jnp.maximum(-adv * ratio, -adv * jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip)).mean()
        entropy = -(jnp.exp(logp_all) * logp_all).sum(-1).mean()
        v_loss = 0.5 * ((value - ret) ** 2).mean()
        return pg - cfg.ent_coef * entropy + cfg.vf_coef * v_loss

    @jax.jit
    def iteration(params, opt_state, handle, obs, ep_ret, last_ret, key):
        (params, handle, obs, ep_ret, last_ret, key), traj = jax.lax.scan(
            rollout_step, (params, handle, obs, ep_ret, last_ret, key), None, length=t_len
        )
        b_obs, b_action, b_logp, b_value, b_reward, b_done = traj
        _, last_value = logits_and_value(params, obs)
        adv, ret = gae(b_value, b_reward, b_done, last_value)
        flat = [x.reshape((n * t_len,) + x.shape[2:]) for x in (b_obs, b_action, b_logp, adv, ret)]
        size = n * t_len // cfg.minibatches

        def epoch(carry, _):
            params, opt_state, key = carry
            key, sub = jax.random.split(key)
            order = jax.random.permutation(sub, n * t_len).reshape(cfg.minibatches, size)

            def minibatch(carry, idx):
                params, opt_state = carry
                grads = jax.grad(loss_fn)(params, *(x[idx] for x in flat))
                updates, opt_state = optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), None

            (params, opt_state), _ = jax.lax.scan(minibatch, (params, opt_state), order)
            return (params, opt_state, key), None

        (params, opt_state, key), _ = jax.lax.scan(epoch, (params, opt_state, key), None, length=cfg.epochs)
        return params, opt_state, handle, obs, ep_ret, last_ret, key

    return iteration


def evaluate(cfg: Config, params, seed: int) -> float:
    """Mean return of one greedy episode in each of ``cfg.eval_envs`` fresh envs (the rollout
    runs until every env finished its first episode, inside jit too)."""
    envs = envpool.make(cfg.env, num_envs=cfg.eval_envs, seed=seed, autoreset_mode="same_step")
    handle, _, _, step = envs.xla()
    obs, _ = envs.reset()
    limit = envs.max_episode_steps or 1000

    def body(carry, _):
        handle, obs, total, running = carry
        logits, _ = logits_and_value(params, obs)
        handle, (obs, reward, term, trunc, _) = step(handle, jnp.argmax(logits, -1))
        total = total + jnp.where(running, reward, 0.0)
        return (handle, obs, total, running & ~(term | trunc)), None

    start = (handle, jnp.asarray(obs), jnp.zeros(cfg.eval_envs), jnp.ones(cfg.eval_envs, bool))
    (_, _, total, _), _ = jax.jit(lambda c: jax.lax.scan(body, c, None, length=limit))(start)
    envs.close()  # waits for the dispatched rollout (jax runs it asynchronously)
    return float(np.mean(np.asarray(total)))


def train(cfg: Config, log=print) -> dict[str, Any]:
    """Trains and returns {"steps": [...], "returns": [...], "eval_return", "seconds"}."""
    envs = envpool.make(cfg.env, num_envs=cfg.num_envs, seed=cfg.seed, autoreset_mode="same_step")
    n_actions = int(envs.single_action_space.n)
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    iterations = max(1, cfg.total_steps // (cfg.num_envs * cfg.num_steps))
    updates = iterations * cfg.epochs * cfg.minibatches
    schedule = optax.linear_schedule(cfg.lr, 0.0, updates)
    optimizer = optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(schedule, eps=1e-5))
    key = jax.random.PRNGKey(cfg.seed)
    key, init_key = jax.random.split(key)
    params = init_params(init_key, obs_dim, n_actions)
    opt_state = optimizer.init(params)
    handle, _, _, step = envs.xla()
    iteration = make_iteration(cfg, step, n_actions, optimizer)
    obs, _ = envs.reset()
    obs = jnp.asarray(obs)
    ep_ret, last_ret = jnp.zeros(cfg.num_envs), jnp.zeros(cfg.num_envs)
    history: dict[str, Any] = {"steps": [], "returns": []}
    start = time.perf_counter()
    for i in range(iterations):
        params, opt_state, handle, obs, ep_ret, last_ret, key = iteration(
            params, opt_state, handle, obs, ep_ret, last_ret, key
        )
        steps = (i + 1) * cfg.num_envs * cfg.num_steps
        history["steps"].append(steps)
        history["returns"].append(float(last_ret.mean()))
        if (i + 1) % max(1, iterations // 20) == 0 or i + 1 == iterations:
            sps = steps / (time.perf_counter() - start)
            log(
                f"steps={steps:>8}  mean over envs of the last episode's return={history['returns'][-1]:7.1f}  "
                f"{sps:,.0f} steps/s"
            )
    history["seconds"] = time.perf_counter() - start
    envs.close()
    history["eval_return"] = evaluate(cfg, params, seed=cfg.seed + 10_000)
    log(
        f"evaluation (greedy, {cfg.eval_envs} episodes): {history['eval_return']:.1f}; "
        f"{history['seconds']:.0f} s of training"
    )
    return history


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for field in dataclasses.fields(Config):
        parser.add_argument("--" + field.name.replace("_", "-"), type=type(field.default), default=field.default)
    parser.add_argument("--plot", default=None, help="write the learning curve PNG here (needs matplotlib)")
    args = parser.parse_args(argv)
    cfg = Config(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Config)})
    history = train(cfg)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(history["steps"], history["returns"])
        ax.set_xlabel("env steps")
        ax.set_ylabel("return of each env's last episode, mean")
        ax.set_title(f"PPO (JAX, rollout in lax.scan via envs.xla()) on {cfg.env}")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"learning curve: {args.plot}")


if __name__ == "__main__":
    main()
