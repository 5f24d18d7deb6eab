"""The Procgen tasks against Procgen's own env (``ProcgenGym3Env`` of the installed
procgen-mirror wheel, see ``oracle.py``).

Both sides run the same compiled games, so from the same options and seed they must agree bit
for bit: every frame, reward, episode end and level seed, step for step. Env ``i`` of a pool made
with ``seed`` is Procgen's env with ``num=1`` and ``rand_seed = seed + i``. Procgen resets a game
inside the step that ends it; the pool's rows follow the autoreset mode around that (same-step
rows are one Procgen step each, which is how the fidelity tests compare).

What needs no Procgen (the ids, the kwargs refused before the library is opened, the error
without the library) runs everywhere; the rest skips without procgen-mirror.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import envpool

from .oracle import INSTALL, Oracle

HAS_PROCGEN = importlib.util.find_spec("procgen") is not None
needs_procgen = pytest.mark.skipif(not HAS_PROCGEN, reason=f"{INSTALL}; import procgen failed: not found")

# The reference EnvPool's Procgen ids (envpool/procgen/registration.py): each game in each mode
# Procgen supports for it.
MODES = {
    "bigfish": ["easy", "hard"],
    "bossfight": ["easy", "hard"],
    "caveflyer": ["easy", "hard", "memory", "exploration"],
    "chaser": ["easy", "hard", "extreme"],
    "climber": ["easy", "hard", "exploration"],
    "coinrun": ["easy", "hard", "exploration"],
    "dodgeball": ["easy", "hard", "extreme", "memory"],
    "fruitbot": ["easy", "hard"],
    "heist": ["easy", "hard", "memory", "exploration"],
    "jumper": ["easy", "hard", "memory", "exploration"],
    "leaper": ["easy", "hard", "extreme", "exploration"],
    "maze": ["easy", "hard", "memory", "exploration"],
    "miner": ["easy", "hard", "memory"],
    "ninja": ["easy", "hard", "exploration"],
    "plunder": ["easy", "hard"],
    "starpilot": ["easy", "hard", "extreme"],
}
OPTIONS = (
    "num_levels",
    "start_level",
    "use_sequential_levels",
    "center_agent",
    "use_backgrounds",
    "restrict_themes",
    "use_monochrome_assets",
    "paint_vel_info",
    "use_generated_assets",
    "distribution_mode",
)


def task_id(game: str, mode: str) -> str:
    return f"{game.capitalize()}{mode.capitalize()}-v0"


def oracle_kwargs(game: str, mode: str, kwargs: dict) -> dict:
    """ProcgenGym3Env's kwargs for a task's: exploration mode takes no level range."""
    out = {k: v for k, v in kwargs.items() if k in OPTIONS}
    out["distribution_mode"] = mode
    if mode == "exploration":
        out.pop("num_levels", None)
        out.pop("start_level", None)
    return out


def compare_rollout(game, mode, *, num_envs=2, seed=7, steps=200, min_episodes=1, max_steps=1200, **kwargs):
    """Steps a same-step pool and one oracle per env with the same random actions, comparing
    every row; goes on past ``steps`` until ``min_episodes`` episodes ended (at most
    ``max_steps``). Returns the number of episode ends and of levels finished within an episode
    (use_sequential_levels)."""
    env = envpool.make(task_id(game, mode), num_envs=num_envs, seed=seed, autoreset_mode="same_step", **kwargs)
    oracles = [Oracle(game, seed + i, **oracle_kwargs(game, mode, kwargs)) for i in range(num_envs)]
    rng = np.random.default_rng(seed)
    obs, info = env.reset()
    ends = carried_on = 0
    try:
        for i, oracle in enumerate(oracles):
            o_obs, _, _, o_info = oracle.observe()
            assert np.array_equal(obs[i], o_obs), f"{game} {mode}: first frame of env {i}"
            assert info["level_seed"][i] == o_info["level_seed"]
        t = 0
        while t < steps or (ends < min_episodes and t < max_steps):
            actions = rng.integers(15, size=num_envs)
            obs, reward, terminated, truncated, info = env.step(actions)
            for i, oracle in enumerate(oracles):
                o_obs, o_reward, o_first, o_info = oracle.step(int(actions[i]))
                where = f"{game} {mode} {kwargs}: env {i}, step {t}"
                assert np.array_equal(obs[i], o_obs), f"{where}: frame"
                assert reward[i] == o_reward, f"{where}: reward {reward[i]} != {o_reward}"
                assert bool(terminated[i] or truncated[i]) == o_first, f"{where}: episode end"
                assert not (terminated[i] and truncated[i]), where
                for key in ("level_seed", "prev_level_seed", "prev_level_complete"):
                    assert info[key][i] == o_info[key], f"{where}: {key}"
                if o_first:
                    # the finished level: completed -> terminated; else truncated iff it ran to the limit
                    assert not (o_info["prev_level_complete"] and truncated[i]), where
                    # same-step: the row holds the next episode's first frame; final_obs the same
                    # frame (Procgen never draws the ending one)
                    assert np.array_equal(info["final_obs"][i], o_obs), where
                ends += int(o_first)
                carried_on += int(o_info["prev_level_complete"] and not o_first)
            t += 1
    finally:
        env.close()
        for oracle in oracles:
            oracle.close()
    return ends, carried_on


def test_ids_are_the_reference_envpools():
    expected = {task_id(game, mode) for game, modes in MODES.items() for mode in modes}
    ours = {t for t in envpool.list_all_envs() if any(t == task_id(g, m) for g, ms in MODES.items() for m in ms)}
    assert ours == expected
    assert len(expected) == 50
    spec = envpool.make_spec("JumperMemory-v0")
    assert spec.config["env_name"] == "jumper" and spec.config["distribution_mode"] == "memory"
    assert spec.max_episode_steps is None  # each game ends its levels itself (truncated)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"distribution_mode": "memory"}, "distribution_mode 'memory' is not one of bigfish's modes"),
        ({"distribution_mode": "medium"}, "distribution_mode 'medium'"),
        ({"num_levels": -1}, "num_levels"),
        ({"start_level": -5}, "start_level"),
        ({"start_level": 2**31}, "start_level"),
        ({"num_levels": 10, "start_level": 2**31 - 5}, "start_level \\+ num_levels"),
        ({"env_name": "pong"}, "env_name 'pong' is not a Procgen game"),
    ],
)
def test_bad_options_are_refused_before_procgen_sees_them(kwargs, match):
    """Procgen exit()s the process on these; here they are a ValueError at make, and the process
    (and the next make) go on."""
    with pytest.raises(ValueError, match=match):
        envpool.make("BigfishEasy-v0", num_envs=1, **kwargs)
    with pytest.raises(ValueError, match="exploration"):
        envpool.make("CoinrunExploration-v0", num_envs=1, num_levels=5)
    envpool.make("CartPole-v1", num_envs=1).close()


def test_missing_library_is_reported_at_make():
    """Without Procgen's library, a Procgen task says what to install when made (not at import)
    and the other tasks work."""
    code = (
        "import envpool\n"
        "envpool.make('CartPole-v1', num_envs=1).close()\n"
        "spec = envpool.make_spec('CoinrunEasy-v0')\n"
        "try:\n"
        "    envpool.make('CoinrunEasy-v0', num_envs=1)\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    env = dict(os.environ, ENVPOOL_PROCGEN_DIR="/nonexistent/procgen")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "pip install envpool-ng[procgen]" in out.stdout, out.stdout
    assert "procgen-mirror" in out.stdout and "/nonexistent/procgen" in out.stdout, out.stdout


@needs_procgen
@pytest.mark.parametrize("game", sorted(MODES))
def test_episodes_match_procgen(game):
    """Every mode of every game: frames, rewards, episode ends and level seeds of two envs, step
    for step, over at least one whole episode (random actions)."""
    total = 0
    for mode in MODES[game]:
        ends, _ = compare_rollout(game, mode, steps=150, min_episodes=0)
        total += ends
    if total == 0:  # long levels (heist, coinrun): go on until one ends
        total, _ = compare_rollout(game, MODES[game][0], steps=0, min_episodes=1, max_steps=1100)
    assert total >= 1


@needs_procgen
@pytest.mark.parametrize(
    ("game", "mode", "kwargs"),
    [
        (
            "coinrun",
            "hard",
            {
                "num_levels": 3,
                "start_level": 1000,
                "center_agent": False,
                "use_backgrounds": False,
                "restrict_themes": True,
                "use_monochrome_assets": True,
                "paint_vel_info": True,
            },
        ),
        ("starpilot", "easy", {"use_generated_assets": True, "num_levels": 1, "start_level": 42}),
        ("maze", "easy", {"use_sequential_levels": True, "num_levels": 3}),
    ],
)
def test_options_match_procgen(game, mode, kwargs):
    """Non-default options; use_sequential_levels: a finished level is no episode end (small
    mazes, which random moves finish)."""
    sequential = kwargs.get("use_sequential_levels", False)
    ends, carried_on = compare_rollout(game, mode, steps=150, min_episodes=0 if sequential else 1, **kwargs)
    assert carried_on >= 1 if sequential else ends >= 1


@needs_procgen
def test_step_limit_is_truncation():
    """Maze's levels end after 500 steps: standing still, every env is truncated there (Procgen:
    done), not terminated, and the next level starts."""
    env = envpool.make("MazeEasy-v0", num_envs=2, seed=3)
    oracle = Oracle("maze", 3, distribution_mode="easy")
    env.reset()
    noop = np.full(2, 4)  # procgen's combo 4: no button
    for t in range(1, 501):
        _, _, terminated, truncated, info = env.step(noop)
        *_, o_first, o_info = oracle.step(4)
        assert not terminated.any()
        assert truncated.all() == (t == 500) == o_first, t
    assert info["level_seed"][0] == o_info["level_seed"] != info["prev_level_seed"][0]
    oracle.close()
    env.close()
    # What `envpool info` shows as the effective limit; none per episode with sequential levels.
    assert envpool.make_spec("MazeEasy-v0").env_step_limit == 500
    assert envpool.make_spec("MazeEasy-v0", use_sequential_levels=True).env_step_limit == 0


@needs_procgen
def test_seeding_and_forced_reset():
    """reset(seed=s) is Procgen's env made with rand_seed=s (s + i for env i); a reset in the
    middle of an episode is Procgen's forced reset (action -1); seeds wrap modulo 2**32 as
    Procgen's int32 rand_seed does."""
    env = envpool.make("ChaserHard-v0", num_envs=2, seed=0, autoreset_mode="disabled")
    obs, _ = env.reset(seed=1000)
    oracles = [Oracle("chaser", 1000 + i, distribution_mode="hard") for i in range(2)]
    rng = np.random.default_rng(0)
    for round_ in range(3):
        for i, oracle in enumerate(oracles):
            assert np.array_equal(obs[i], oracle.observe()[0]), (round_, i)
        for _ in range(5):
            actions = rng.integers(15, size=2)
            obs, _, terminated, truncated, _ = env.step(actions)
            for i, oracle in enumerate(oracles):
                assert np.array_equal(obs[i], oracle.step(int(actions[i]))[0])
            assert not (terminated | truncated).any()
        obs, info = env.reset()  # mid-episode: Procgen's forced reset
        for i, oracle in enumerate(oracles):
            o_obs, o_reward, o_first, o_info = oracle.step(-1)
            assert o_first and np.array_equal(obs[i], o_obs)
            assert info["level_seed"][i] == o_info["level_seed"]
    env.close()
    for oracle in oracles:
        oracle.close()
    wrapped = envpool.make("ChaserHard-v0", num_envs=1, seed=2**32 + 5)
    plain = envpool.make("ChaserHard-v0", num_envs=1, seed=5)
    assert np.array_equal(wrapped.reset()[0], plain.reset()[0])
    wrapped.close()
    plain.close()


def _episode_ends(oracle_seed, n_steps, rng_seed):
    """Procgen's own trajectory of Bossfight (short levels): actions, frames, rewards, dones."""
    oracle = Oracle("bossfight", oracle_seed, distribution_mode="easy")
    rng = np.random.default_rng(rng_seed)
    actions = rng.integers(15, size=n_steps)
    frames = [oracle.observe()[0]]
    rewards, dones = [], []
    for a in actions:
        o_obs, o_reward, o_first, _ = oracle.step(int(a))
        frames.append(o_obs)
        rewards.append(o_reward)
        dones.append(o_first)
    oracle.close()
    assert sum(dones) >= 2
    return actions, frames, rewards, dones


@needs_procgen
def test_autoreset_modes():
    """Around an episode end: next_step repeats the next episode's first frame in a reset row
    (reward 0, no flags, action ignored), same_step holds it in the ending row, disabled needs a
    reset, which starts that episode without stepping the game."""
    actions, frames, rewards, dones = _episode_ends(11, 300, 1)
    for mode in ("next_step", "same_step", "disabled"):
        env = envpool.make("BossfightEasy-v0", num_envs=1, seed=11, autoreset_mode=mode)
        obs, _ = env.reset()
        assert np.array_equal(obs[0], frames[0])
        for t, a in enumerate(actions):
            obs, reward, terminated, truncated, _ = env.step(np.array([a]))
            assert np.array_equal(obs[0], frames[t + 1]) and reward[0] == rewards[t], (mode, t)
            assert bool(terminated[0] or truncated[0]) == dones[t], (mode, t)
            if dones[t] and mode == "next_step":
                obs, reward, terminated, truncated, info = env.step(np.array([0]))
                assert np.array_equal(obs[0], frames[t + 1]) and reward[0] == 0 and info["elapsed_step"][0] == 0
                assert not (terminated[0] or truncated[0])
            if dones[t] and mode == "disabled":
                obs, _ = env.reset()
                assert np.array_equal(obs[0], frames[t + 1])
        env.close()


@needs_procgen
def test_async_send_recv():
    """batch_size < num_envs: each env's rows, in whatever order they come, follow Procgen's env
    of its seed."""
    num_envs, batch = 4, 2
    env = envpool.make("FruitbotEasy-v0", num_envs=num_envs, batch_size=batch, seed=20, autoreset_mode="same_step")
    oracles = [Oracle("fruitbot", 20 + i, distribution_mode="easy") for i in range(num_envs)]
    rng = np.random.default_rng(5)
    env.async_reset()
    steps = np.zeros(num_envs, int)
    while steps.min() < 100:
        obs, reward, terminated, truncated, info = env.recv()
        ids = info["env_id"]
        for row, i in enumerate(ids):
            if steps[i] > 0:
                o_obs, o_reward, o_first, _ = oracles[i].last
                assert np.array_equal(obs[row], o_obs) and reward[row] == o_reward, (i, steps[i])
                assert bool(terminated[row] or truncated[row]) == o_first
            else:
                assert np.array_equal(obs[row], oracles[i].observe()[0])
        actions = rng.integers(15, size=len(ids))
        for i, a in zip(ids, actions):
            oracles[i].last = oracles[i].step(int(a))
            steps[i] += 1
        env.send(actions, ids)
    env.close()
    for oracle in oracles:
        oracle.close()


@needs_procgen
def test_state_round_trip():
    """get_state holds Procgen's own serialized game (equal to its env's get_state at the same
    step); set_state rewinds exactly; altered states and states of other options are refused."""
    env = envpool.make("MinerHard-v0", num_envs=1, seed=4, autoreset_mode="same_step")
    oracle = Oracle("miner", 4, distribution_mode="hard")
    env.reset()
    rng = np.random.default_rng(2)
    for a in rng.integers(15, size=30):
        env.step(np.array([a]))
        oracle.step(int(a))
    state = env.get_state(0)
    payload = bytes(state[24:].astype(np.uint8))
    assert payload.endswith(oracle.state())  # the framing, then Procgen's bytes
    actions = rng.integers(15, size=40)
    first = [env.step(np.array([a]))[0][0].copy() for a in actions]
    env.set_state(0, state)
    again = [env.step(np.array([a]))[0][0].copy() for a in actions]
    assert all(np.array_equal(x, y) for x, y in zip(first, again))
    tampered = state.copy()
    tampered[-10] = (tampered[-10] + 1) % 256
    with pytest.raises(ValueError, match="checksum mismatch"):
        env.set_state(0, tampered)
    other = envpool.make("MinerEasy-v0", num_envs=1, seed=4)
    other.reset()
    with pytest.raises(ValueError, match="other options"):
        other.set_state(0, state)
    with pytest.raises(ValueError, match="Procgen state"):
        other.set_state(0, [1.0, 2.0])
    other.close()
    generated = envpool.make("MinerHard-v0", num_envs=1, use_generated_assets=True)
    generated.reset()
    with pytest.raises(ValueError, match="use_generated_assets"):
        generated.get_state(0)  # Procgen would exit the process
    generated.step(np.array([1]))
    generated.close()
    oracle.close()
    env.close()


@needs_procgen
def test_channel_first_and_render():
    """channel_first gives the reference EnvPool's (3, 64, 64) layout of the same frames; frames
    of render_mode="rgb_array" are Procgen's 512 x 512 info["rgb"]."""
    hwc = envpool.make("LeaperHard-v0", num_envs=1, seed=9, render_mode="rgb_array")
    chw = envpool.make("LeaperHard-v0", num_envs=1, seed=9, channel_first=True)
    assert chw.single_observation_space.shape == (3, 64, 64)
    assert hwc.single_observation_space.shape == (64, 64, 3)
    oracle = Oracle("leaper", 9, render=True, distribution_mode="hard")
    a, b = hwc.reset()[0], chw.reset()[0]
    assert np.array_equal(a[0].transpose(2, 0, 1), b[0])
    for action in (7, 7, 5, 5, 1):
        hwc.step(np.array([action]))
        oracle.step(action)
    frame = hwc.render()[0]
    assert frame.shape == (512, 512, 3)
    assert np.array_equal(frame, oracle.observe()[3]["rgb"])
    oracle.close()
    hwc.close()
    chw.close()
