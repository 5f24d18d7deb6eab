"""The Box2D tasks against gymnasium 1.4's own implementations, bit for bit.

Both sides run Box2D 2.3 (ours built from the box2d 2.3.2 sdist, whose C++ sources are those of
the box2d 2.3.10 wheel that gymnasium imports), and Box2D's state (contacts, warm starts, the
broad phase's proxies) cannot be set from outside; so the comparison is over whole trajectories:
a pool and gymnasium's ``SyncVectorEnv`` of the same size, reset with the same seed, stepped with
the same actions. At every step the observations (float32 bits), rewards (float64 bits),
``terminated`` and ``truncated`` must be equal. Episodes end and restart on both sides (next-step
autoreset), so each run covers many resets, i.e. many terrains, initial forces and wind phases
drawn from the envs' numpy Generators. Policies: uniform random actions (some continuous ones
outside the box, which both sides clip), and gymnasium's own scripted lander
(``lunar_lander.heuristic``), which lands, so that leg contacts, the landed-and-asleep +100 and
the time limit are reached too; the runs count those ends to show they were compared.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from support.optional import skip_for_import

import envpool

try:
    import gymnasium as gym
    from gymnasium.envs.box2d import bipedal_walker, lunar_lander
except ImportError as exc:  # pragma: no cover - depends on the environment
    skip_for_import("the Box2D tests need gymnasium's oracle: pip install box2d==2.3.10", "gymnasium.envs.box2d", exc)

if "LunarLander-v3" not in envpool.list_all_envs():  # pragma: no cover
    pytest.skip(
        "envpool was built without the Box2D tasks (cmake/box2d.cmake could not get the box2d sdist)",
        allow_module_level=True,
    )

NUM_ENVS = 6


def _reference(task, kwargs, num_envs, max_episode_steps=None):
    """gymnasium's vector env as its users build it: env i seeded with seed + i at reset."""
    make = functools.partial(gym.make, task, max_episode_steps=max_episode_steps, **kwargs)
    return gym.vector.SyncVectorEnv([make for _ in range(num_envs)])


def _bits(x, dtype):
    x = np.ascontiguousarray(x, dtype=dtype)
    return x.view(np.uint32 if x.itemsize == 4 else np.uint64)


class _Continuous:
    """What ``lunar_lander.heuristic`` reads from its env argument."""

    def __init__(self, continuous):
        self.unwrapped = self
        self.continuous = continuous


def _random_policy(space, rng):
    def act(obs):
        if isinstance(space, gym.spaces.Discrete):
            return rng.integers(space.n, size=len(obs)).astype(np.int64)
        low, high = space.low * 1.3, space.high * 1.3  # a quarter outside the box: clipped
        return rng.uniform(low, high, size=(len(obs), *space.shape)).astype(np.float32)

    return act


def _heuristic_policy(continuous, rng):
    shim = _Continuous(continuous)

    def act(obs):
        actions = [lunar_lander.heuristic(shim, o) for o in obs]
        if continuous:
            a = np.asarray(actions, dtype=np.float32)
            return a + rng.normal(0, 0.05, size=a.shape).astype(np.float32)  # not exactly scripted
        noisy = rng.random(len(obs)) < 0.05
        return np.where(noisy, rng.integers(4, size=len(obs)), np.asarray(actions)).astype(np.int64)

    return act


def _walker_policy(rng, noise):
    """gymnasium's scripted walker (one per env, new each episode), its actions perturbed by
    ``noise``: it walks, stumbles and sometimes falls."""
    walkers = []

    def act(obs, done):
        if not walkers:
            walkers.extend(bipedal_walker.BipedalWalkerHeuristics() for _ in obs)
        for i in np.flatnonzero(done):
            walkers[i] = bipedal_walker.BipedalWalkerHeuristics()
        a = np.asarray([w.step_heuristic(o) for w, o in zip(walkers, obs)], dtype=np.float32)
        return np.clip(a + rng.normal(0, noise, size=a.shape), -1.2, 1.2).astype(np.float32)

    return act


def _compare(task, kwargs, policy, steps, seed, max_episode_steps=None, num_envs=NUM_ENVS):
    """Steps both sides ``steps`` times; returns the rewards of the terminal steps and the
    number of truncations. ``policy(space)`` gives ``act(obs)`` or ``act(obs, done)`` (done:
    which envs' episodes ended at the previous step)."""
    ours = envpool.make(task, num_envs=num_envs, seed=seed, max_episode_steps=max_episode_steps, **kwargs)
    ref = _reference(task, kwargs, num_envs, max_episode_steps)
    obs, _ = ours.reset()
    ref_obs, _ = ref.reset(seed=seed)
    assert np.array_equal(_bits(obs, np.float32), _bits(ref_obs, np.float32)), f"reset: {obs} vs {ref_obs}"
    assert ours.single_observation_space == ref.single_observation_space
    act = policy(ref.single_action_space)
    takes_done = act.__code__.co_argcount == 2
    done = np.zeros(num_envs, dtype=bool)
    ends, truncations = [], 0
    for t in range(steps):
        actions = act(obs, done) if takes_done else act(obs)
        obs, rew, term, trunc, _ = ours.step(actions)
        ref_obs, ref_rew, ref_term, ref_trunc, _ = ref.step(actions)
        checks = [
            ("obs", _bits(obs, np.float32), _bits(ref_obs, np.float32)),
            ("reward", _bits(rew, np.float64), _bits(ref_rew, np.float64)),
            ("terminated", np.asarray(term), np.asarray(ref_term)),
            ("truncated", np.asarray(trunc), np.asarray(ref_trunc)),
        ]
        for name, a, b in checks:
            if not np.array_equal(a, b):
                raise AssertionError(
                    f"{task} {kwargs} step {t}: {name} differs\nenvpool {obs!r} {rew!r} {term} {trunc}\n"
                    f"gymnasium {ref_obs!r} {ref_rew!r} {ref_term} {ref_trunc}\nactions {actions!r}"
                )
        ends.extend(rew[term].tolist())
        truncations += int(trunc.sum())
        done = term | trunc
    ours.close()
    ref.close()
    return ends, truncations


def _case_id(kwargs):
    return ",".join(f"{k}={v}" for k, v in kwargs.items()) or "default"


LANDER_CASES = [
    {},
    {"continuous": True},
    {"enable_wind": True},
    {"continuous": True, "enable_wind": True, "wind_power": 19.5, "turbulence_power": 1.9, "gravity": -11.5},
    {"gravity": -3.0, "enable_wind": True, "wind_power": 5.0, "turbulence_power": 0.0},
]


@pytest.mark.parametrize("kwargs", LANDER_CASES, ids=_case_id)
def test_lunar_lander_random_actions_match_gymnasium(kwargs):
    rng = np.random.default_rng(1)
    ends, _ = _compare("LunarLander-v3", kwargs, lambda space: _random_policy(space, rng), 400, seed=11)
    assert -100 in ends, "no crash was compared"


@pytest.mark.parametrize("kwargs", LANDER_CASES, ids=_case_id)
def test_lunar_lander_scripted_landings_match_gymnasium(kwargs):
    rng = np.random.default_rng(2)
    continuous = kwargs.get("continuous", False)
    # A short time limit, so that the runs also end episodes by truncation.
    ends, truncations = _compare(
        "LunarLander-v3",
        kwargs,
        lambda space: _heuristic_policy(continuous, rng),
        700,
        seed=3,
        max_episode_steps=230,
    )
    assert 100 in ends or -100 in ends, "no episode ended"
    if kwargs.get("gravity", -10.0) == -10.0 and not kwargs.get("enable_wind"):
        assert 100 in ends, "no landing (asleep on the pad) was compared"
    assert truncations > 0, "no truncation was compared"


def test_lunar_lander_continuous_id_matches_gymnasium():
    rng = np.random.default_rng(4)
    ends, _ = _compare("LunarLanderContinuous-v3", {}, lambda space: _random_policy(space, rng), 200, seed=5)
    assert ends


WALKER_CASES = [("BipedalWalker-v3", {}), ("BipedalWalkerHardcore-v3", {}), ("BipedalWalker-v3", {"hardcore": True})]


@pytest.mark.parametrize(("task", "kwargs"), WALKER_CASES[:2])
def test_bipedal_walker_random_actions_match_gymnasium(task, kwargs):
    # Random torques make the walker fall within a few dozen steps: many episodes, so many
    # terrains, and each env's world goes through many destroy / create cycles (see
    # bipedal_walker.h: the world and its freed proxies carry over from episode to episode).
    rng = np.random.default_rng(6)
    ends, _ = _compare(task, kwargs, lambda space: _random_policy(space, rng), 250, seed=7)
    assert ends.count(-100) >= NUM_ENVS, "too few falls were compared"


@pytest.mark.slow
def test_bipedal_walker_reaches_the_end_as_gymnasium():
    """gymnasium's scripted walker over whole episodes: env 0 (seed 6) walks the whole course,
    which ends the episode with its last step's reward; the others fall on the way."""
    rng = np.random.default_rng(2)
    ends, _ = _compare("BipedalWalker-v3", {}, lambda space: _walker_policy(rng, 0.0), 1600, seed=6, num_envs=2)
    assert -100 in ends and any(e != -100 for e in ends), ends


def test_bipedal_walker_hardcore_scripted_matches_gymnasium():
    """The scripted walker on hardcore terrain (stumps, stairs, pits) with a short time limit:
    falls and truncations."""
    rng = np.random.default_rng(3)
    ends, truncations = _compare(
        "BipedalWalkerHardcore-v3",
        {},
        lambda space: _walker_policy(rng, 0.0),
        700,
        seed=3,
        max_episode_steps=300,
        num_envs=4,
    )
    assert -100 in ends and truncations > 0, (ends, truncations)


@pytest.mark.parametrize(
    ("task", "kwargs"),
    [("LunarLander-v3", {}), ("LunarLander-v3", {"continuous": True}), ("LunarLanderContinuous-v3", {})] + WALKER_CASES,
)
def test_spaces_and_limits_match_gymnasium(task, kwargs):
    ours = envpool.make(task, num_envs=1, seed=0, **kwargs)
    ref = gym.make(task, **kwargs)
    assert ours.single_observation_space == ref.observation_space
    assert ours.single_observation_space.dtype == ref.observation_space.dtype
    assert ours.single_action_space == ref.action_space
    ours_task = {t["id"]: t for t in envpool._core.tasks()}[task]
    assert ours_task["max_episode_steps"] == gym.spec(task).max_episode_steps
    assert ours_task["reward_threshold"] == gym.spec(task).reward_threshold
    ours.close()
    ref.close()


@pytest.mark.parametrize(
    ("task", "kwargs", "named"),
    [
        ("LunarLander-v3", {"gravity": -12.0}, "gravity"),
        ("LunarLander-v3", {"gravity": 0.5}, "gravity"),
        ("LunarLander-v3", {"hardcore": True}, "hardcore"),
        ("LunarLander-v3", {"continuous": "yes"}, "continuous"),
        ("BipedalWalker-v3", {"continuous": True}, "continuous"),
        ("BipedalWalker-v3", {"hardcore": 1.5}, "hardcore"),
    ],
)
def test_bad_kwargs_are_value_errors_naming_them(task, kwargs, named):
    with pytest.raises(ValueError, match=named):
        envpool.make(task, num_envs=1, **kwargs)
    # gymnasium refuses the same gravity (an AssertionError there).
    if named == "gravity":
        with pytest.raises(AssertionError):
            gym.make(task, **kwargs)


@pytest.mark.parametrize("task", ["LunarLanderContinuous-v3", "BipedalWalkerHardcore-v3"])
def test_threads_and_async_batches_give_the_same_trajectories(task):
    """Each env owns its Box2D world, so neither the thread count nor which rows come back
    together changes an env's trajectory: one thread, two threads and async half batches agree."""
    rng = np.random.default_rng(8)
    n, steps = 4, 120
    actions = rng.uniform(-1, 1, size=(steps, n, 4 if "Walker" in task else 2)).astype(np.float32)

    def run(num_threads, batch_size):
        env = envpool.make(task, num_envs=n, batch_size=batch_size, num_threads=num_threads, seed=9)
        env.async_reset()
        seen = {i: [] for i in range(n)}
        taken = dict.fromkeys(range(n), 0)
        while min(taken.values()) < steps:
            obs, rew, term, trunc, info = env.recv()
            ids = [int(i) for i in info["env_id"]]
            for row, i in enumerate(ids):
                seen[i].append((obs[row].tobytes(), float(rew[row]), bool(term[row]), bool(trunc[row])))
            env.send(np.stack([actions[min(taken[i], steps - 1), i] for i in ids]), np.asarray(ids))
            for i in ids:
                taken[i] += 1
        env.close()
        return {i: seen[i][:steps] for i in seen}

    one = run(1, n)
    assert run(2, n) == one
    assert run(2, n // 2) == one


@pytest.mark.parametrize("task", ["LunarLander-v3", "BipedalWalker-v3"])
def test_same_step_autoreset_matches_gymnasium(task):
    """autoreset_mode=SAME_STEP on both sides: an ending step returns the next episode's first
    observation, its last one in info["final_obs"]; both equal gymnasium's, bit for bit."""
    mode = gym.vector.AutoresetMode.SAME_STEP
    ours = envpool.make(task, num_envs=NUM_ENVS, seed=4, autoreset_mode=mode, max_episode_steps=60)
    make = functools.partial(gym.make, task, max_episode_steps=60)
    ref = gym.vector.SyncVectorEnv([make for _ in range(NUM_ENVS)], autoreset_mode=mode)
    ours.reset()
    ref.reset(seed=4)
    act = _random_policy(ref.single_action_space, np.random.default_rng(5))
    ended = 0
    for t in range(200):
        actions = act(np.zeros(NUM_ENVS))
        obs, rew, term, trunc, info = ours.step(actions)
        ref_obs, ref_rew, ref_term, ref_trunc, ref_info = ref.step(actions)
        assert np.array_equal(_bits(obs, np.float32), _bits(ref_obs, np.float32)), f"step {t}"
        assert np.array_equal(_bits(rew, np.float64), _bits(ref_rew, np.float64)), f"step {t}"
        assert np.array_equal(term, ref_term) and np.array_equal(trunc, ref_trunc), f"step {t}"
        for i in np.flatnonzero(term | trunc):
            final, ref_final = info["final_obs"][i], ref_info["final_obs"][i]
            assert np.array_equal(_bits(final, np.float32), _bits(ref_final, np.float32)), f"step {t} env {i}"
            ended += 1
    assert ended >= NUM_ENVS
    ours.close()
    ref.close()
