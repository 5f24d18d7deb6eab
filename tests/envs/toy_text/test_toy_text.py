"""The native toy-text envs (FrozenLake, CliffWalking, Taxi, Blackjack) against gymnasium 1.4:
registry and spaces; deterministic transitions compared exhaustively (every state and action,
set in both implementations, ours through ``set_state``, gymnasium's through ``env.unwrapped.s``,
one step, then observation, reward, terminated, info and next state must be equal); time
limits; random FrozenLake maps, per-env kwargs and bad input. Stochastic transitions:
test_stochastic.py; Blackjack: test_blackjack.py.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import envpool

from .oracle import CUSTOM_DESC, Z_BOUND, gym_make, gym_spec, ours_kwargs, reference_env

TOY_TEXT = [
    "FrozenLake-v1",
    "FrozenLake8x8-v1",
    "CliffWalking-v1",
    "CliffWalkingSlippery-v1",
    "Taxi-v4",
    "Blackjack-v1",
]
SCHEDULE = [5.0, -2.0, -0.25]  # reward_schedule: goal, hole, frozen


# -- registry and spaces ------------------------------------------------------------------------


@pytest.mark.parametrize("task", TOY_TEXT)
def test_registry_matches_gymnasium(task):
    spec = envpool.make_spec(task)
    ref = gym_spec(task)
    assert spec.max_episode_steps == ref.max_episode_steps
    assert spec.reward_threshold == ref.reward_threshold


SPACE_CASES = [
    ("FrozenLake-v1", {}),
    ("FrozenLake8x8-v1", {}),
    ("FrozenLake-v1", {"map_name": "8x8"}),
    ("FrozenLake-v1", {"desc": CUSTOM_DESC}),
    ("FrozenLake-v1", {"desc": None, "map_name": None}),  # a random 8x8 map
    ("CliffWalking-v1", {}),
    ("CliffWalkingSlippery-v1", {}),
    ("Taxi-v4", {}),
    ("Taxi-v4", {"is_rainy": True, "fickle_passenger": True}),
    ("Blackjack-v1", {}),
    ("Blackjack-v1", {"natural": True, "sab": False}),
]


def _assert_space_equal(ours, ref, what):
    assert type(ours) is type(ref), f"{what}: {ours!r} vs {ref!r}"
    if isinstance(ref, gym.spaces.Tuple):
        assert len(ours) == len(ref), what
        for o, r in zip(ours, ref):
            _assert_space_equal(o, r, what)
    else:
        assert (int(ours.n), int(ours.start)) == (int(ref.n), int(ref.start)), f"{what}: {ours!r} vs {ref!r}"


@pytest.mark.parametrize(("task", "kwargs"), SPACE_CASES)
def test_spaces_match_gymnasium(task, kwargs):
    ref = gym_make(task, **kwargs)
    env = envpool.make(task, num_envs=2, seed=0, **ours_kwargs(kwargs))
    _assert_space_equal(env.single_observation_space, ref.observation_space, f"{task} observation space")
    _assert_space_equal(env.single_action_space, ref.action_space, f"{task} action space")
    obs, _ = env.reset()
    assert env.observation_space.contains(obs)
    env.close()
    ref.close()


# -- deterministic transitions, exhaustively ----------------------------------------------------

DETERMINISTIC_CASES = [
    ("FrozenLake-v1", {"is_slippery": False}),
    ("FrozenLake8x8-v1", {"is_slippery": False}),
    ("FrozenLake-v1", {"is_slippery": False, "desc": CUSTOM_DESC, "reward_schedule": tuple(SCHEDULE)}),
    ("CliffWalking-v1", {}),
    ("Taxi-v4", {}),
    ("Taxi-v4", {"fickle_passenger": True}),  # fickle_step 0: deterministic
]


def _ref_state(ref):
    return [int(ref.s), int(ref.fickle_step)] if hasattr(ref, "fickle_step") else [int(ref.s)]


@pytest.mark.parametrize(("task", "kwargs"), DETERMINISTIC_CASES)
def test_every_deterministic_transition_matches_gymnasium(task, kwargs):
    ref = reference_env(task, **kwargs)
    n_states, n_actions = ref.observation_space.n, ref.action_space.n
    env = envpool.make(task, num_envs=n_states, seed=0, max_episode_steps=0, **ours_kwargs(kwargs))
    env.reset()
    extra = [0] if task.startswith("Taxi") else []
    for a in range(n_actions):
        for s in range(n_states):
            env.set_state(s, [s, *extra])
        obs, rew, term, trunc, info = env.step(np.full(n_states, a, dtype=np.int64))
        for s in range(n_states):
            ref.s = s
            if extra:
                ref.fickle_step = False
            o, r, t, _, i = ref.step(a)
            got = (int(obs[s]), float(rew[s]), bool(term[s]), float(info["prob"][s]), list(env.get_state(s)))
            want = (int(o), float(r), bool(t), float(i["prob"]), _ref_state(ref))
            assert got == want, f"{task} {kwargs} s={s} a={a}: envpool {got} vs gymnasium {want}"
            if "action_mask" in i:
                assert info["action_mask"][s].tolist() == i["action_mask"].tolist(), f"{task} s={s} a={a}"
            assert not trunc[s]
    env.close()


def _steady_action(task):
    """An action that never ends an episode from the start (needs is_slippery=False for FrozenLake):
    FrozenLake: left at the top-left corner; Taxi: pickup (never terminates)."""
    return 0 if task.startswith("FrozenLake") else 4


@pytest.mark.parametrize("task", ["FrozenLake-v1", "FrozenLake8x8-v1", "Taxi-v4"])
def test_time_limit_truncates_like_gymnasium(task):
    kwargs = {"is_slippery": False} if task.startswith("FrozenLake") else {}
    ref = gym_make(task, **kwargs)
    ref.reset(seed=0)
    env = envpool.make(task, num_envs=1, seed=0, **kwargs)
    env.reset()
    a = _steady_action(task)
    for t in range(1, gym.spec(task).max_episode_steps + 1):
        _, _, ref_term, ref_trunc, _ = ref.step(a)
        env.send(np.array([a]))  # the async API: its info counts the episode's steps
        _, _, term, trunc, info = env.recv()
        assert (bool(term[0]), bool(trunc[0])) == (bool(ref_term), bool(ref_trunc)), f"{task} step {t}"
        assert info["elapsed_step"][0] == t
    assert trunc[0]
    env.send(np.array([a]))  # next-step autoreset
    _, rew, term, trunc, info = env.recv()
    assert (rew[0], term[0], trunc[0], info["elapsed_step"][0]) == (0.0, False, False, 0)
    env.close()


# -- random FrozenLake maps, per-env kwargs, bad input ------------------------------------------


def _probe_maps(env):
    """The tiles of every env's 8x8 map, read through set_state and non-slippery steps: a tile
    is G or H exactly when stepping left from it stays there and ends the episode."""
    tiles = [[] for _ in range(env.num_envs)]
    for s in range(64):
        for i in range(env.num_envs):
            env.set_state(i, [s])
        obs, _, term, _, _ = env.step(np.zeros(env.num_envs, dtype=np.int64))
        for i in range(env.num_envs):
            tiles[i].append("G" if s == 63 else "H" if (obs[i] == s and term[i]) else "F")
    return ["".join(t) for t in tiles]


def _reachable(tiles):
    seen, todo = {0}, [0]
    while todo:
        s = todo.pop()
        r, c = divmod(s, 8)
        for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= rr < 8 and 0 <= cc < 8 and tiles[rr * 8 + cc] != "H" and rr * 8 + cc not in seen:
                seen.add(rr * 8 + cc)
                todo.append(rr * 8 + cc)
    return 63 in seen


def test_random_frozen_lake_maps():
    """map_name="" with no desc (gymnasium's map_name=None, desc=None): a valid random 8x8 map
    per env, gymnasium's generate_random_map(size=8, seed=s) for the env's seed s at its first
    reset, kept afterwards."""
    from gymnasium.envs.toy_text.frozen_lake import generate_random_map

    def maps(seed, first_reset_seed=None, reseed=None):
        env = envpool.make("FrozenLake-v1", num_envs=4, seed=seed, map_name="", is_slippery=False, max_episode_steps=0)
        env.reset(seed=first_reset_seed)
        if reseed is not None:
            env.reset(seed=reseed)
        out = _probe_maps(env)
        env.close()
        return out

    def gymnasium_maps(seed):  # S reads as F in _probe_maps
        return ["".join(generate_random_map(size=8, seed=seed + i)).replace("S", "F") for i in range(4)]

    first = maps(0)
    assert first == gymnasium_maps(0)
    assert first == maps(0) == maps(0, reseed=123)  # deterministic per seed, kept on reseeding
    assert maps(0, first_reset_seed=9) == gymnasium_maps(9)  # the seed of the first reset
    assert first != maps(1) and len(set(first)) == 4
    holes = []
    for m in first + maps(1) + maps(2):
        assert m[0] == "F" and m[63] == "G" and _reachable(m)  # S reads as F (left from S stays, no end)
        holes.append(m.count("H"))
    # gymnasium's generator gives the same hole count distribution (mean within 5 SE).

    ref_holes = [sum(row.count("H") for row in generate_random_map(seed=k)) for k in range(400)]
    se = math.sqrt(np.var(ref_holes) / len(ref_holes) + np.var(ref_holes) / len(holes))
    assert abs(np.mean(holes) - np.mean(ref_holes)) <= Z_BOUND * se


def test_per_env_kwargs():
    hole_at_1 = ["SHFF", "FHFH", "FFFH", "HFFG"]
    env = envpool.make(
        "FrozenLake-v1",
        num_envs=3,
        seed=0,
        is_slippery=False,
        desc=[hole_at_1, ["SFFF", "FHFH", "FFFH", "HFFG"], hole_at_1],
        reward_schedule=[[1, 0, 0], [1, 0, 0], [1, -7, 0]],
    )
    env.reset()
    _, rew, term, _, _ = env.step(np.full(3, 2))  # right from the start
    assert term.tolist() == [True, False, True] and rew.tolist() == [0.0, 0.0, -7.0]
    env.close()

    env = envpool.make("CliffWalking-v1", num_envs=2, seed=0, is_slippery=[False, True])
    env.reset()
    _, _, _, _, info = env.step(np.zeros(2, dtype=np.int64))
    assert info["prob"].tolist() == [1.0, 1 / 3]
    env.close()

    env = envpool.make("Blackjack-v1", num_envs=2, seed=0, natural=True, sab=[True, False])
    env.reset()
    for i in range(2):
        env.set_state(i, [2, 10, 8, 1, 10])  # player natural beats 18
    _, rew, _, _, _ = env.step(np.zeros(2, dtype=np.int64))
    assert rew.tolist() == [1.0, 1.5]
    env.close()


@pytest.mark.parametrize(
    "task, kwargs, match",
    [
        ("FrozenLake-v1", {"map_name": "5x5"}, "map_name must be '4x4' or '8x8'.*'5x5'"),
        ("FrozenLake-v1", {"desc": ["SFF", "FG"]}, "equal length"),
        ("FrozenLake-v1", {"desc": ["SFX", "FFG"]}, "only hold the letters S, F, H, G.*'X'"),
        ("FrozenLake-v1", {"desc": ["FFF", "FFG"]}, "no start tile"),
        ("FrozenLake-v1", {"success_rate": 1.5}, "success_rate must be in"),
        ("FrozenLake-v1", {"reward_schedule": [1, 0]}, "reward_schedule must have 3 values"),
        ("FrozenLake-v1", {"is_slippery": "yes"}, "'is_slippery' must be bool"),
        ("CliffWalking-v1", {"slippery": True}, "unexpected keyword argument 'slippery'.*is_slippery"),
        ("Taxi-v4", {"rainy_probability": -0.1}, "rainy_probability must be in"),
        ("Taxi-v4", {"fickle_probability": 2}, "fickle_probability must be in"),
        ("Blackjack-v1", {"natural": 1.5}, "'natural' must be bool"),
    ],
)
def test_bad_kwargs(task, kwargs, match):
    with pytest.raises(ValueError, match=match):
        envpool.make(task, num_envs=2, **kwargs)
    with pytest.raises(ValueError, match=match):
        envpool.make_spec(task, **kwargs)


@pytest.mark.parametrize(
    "task, state, match",
    [
        ("FrozenLake-v1", [16], r"integer in \[0, 16\)"),
        ("FrozenLake-v1", [1.5], "integer"),
        ("CliffWalking-v1", [48], r"integer in \[0, 48\)"),
        ("Taxi-v4", [3], "must have 2 values"),
        ("Taxi-v4", [500, 0], r"\[0, 500\)"),
        ("Taxi-v4", [5, 2], "fickle_step"),
        ("Blackjack-v1", [2, 10, 11, 5, 5], "card value"),
        ("Blackjack-v1", [0, 5, 5], "dealer needs 1 to 32 cards"),
        ("Blackjack-v1", [2, 10, 7], "player needs 1 to 32 cards"),
        ("Blackjack-v1", [2, 10, 7, 10, 10, 10, 5], "at most 31"),
    ],
)
def test_bad_states(task, state, match):
    env = envpool.make(task, num_envs=1, seed=0)
    env.reset()
    before = env.get_state(0)
    with pytest.raises(ValueError, match=match):
        env.set_state(0, state)
    assert env.get_state(0).tolist() == before.tolist()
    env.step(np.zeros(1, dtype=np.int64))  # still usable
    env.close()
