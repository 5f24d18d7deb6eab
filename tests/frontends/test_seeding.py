"""Same seed, same trajectories as gymnasium (docs/seeding.md).

For every native task with a gymnasium twin, a pool ``envpool.make(task, num_envs=N, seed=s)``
and gymnasium's own ``SyncVectorEnv`` of N ``gym.make(task)`` envs reset with the same seed must
give identical observations, rewards, terminations and truncations, step for step, with the
same (seeded, random) actions: through many autoresets, in each autoreset mode SyncVectorEnv
has, across an unseeded ``reset()`` (which continues every env's stream) and a reseeding
``reset(seed=...)``. Identical means bit for bit: float64 and float32 observations and float64
rewards are compared exactly. Episodes are cut short (``max_episode_steps``, the same on both
sides) where a task would rarely end by itself, so that every env goes through several resets.

``info`` is not compared: its layout belongs to the front ends (tests/frontends/test_front_ends.py).
"""

from __future__ import annotations

import functools
import math
import zlib

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import envpool

N = 4
SEED = 20240
RESEED = 7_000_001
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]
MUJOCO_TASKS = [
    "Reacher-v5",
    "Pusher-v5",
    "InvertedPendulum-v5",
    "InvertedDoublePendulum-v5",
    "HalfCheetah-v5",
    "Hopper-v5",
    "Swimmer-v5",
    "Walker2d-v5",
    "Ant-v5",
    "Humanoid-v5",
    "HumanoidStandup-v5",
]
TWO_STARTS = ["SFFHF", "FHFFS", "FFGHF"]  # FrozenLake: the first state is drawn among two S tiles


def _numpy_norm_adds_rounded_products() -> bool:
    """Whether np.linalg.norm of a 3-vector here is sqrt(x0*x0 + x1*x1 + x2*x2), each product
    rounded, as envpool computes it (cpp/envs/mujoco/gym/mujoco_env.h, Norm): true of numpy's own
    OpenBLAS wheels on x86-64; a BLAS that fuses the multiply-adds differs in the last bit."""
    rng = np.random.default_rng(0)
    vectors = rng.uniform(-1.0, 1.0, size=(500, 3))
    return all(np.linalg.norm(v) == math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) for v in vectors)


# Rewards with a np.linalg.norm term: bit-exact where numpy's BLAS adds rounded products (checked
# above), else within a few units in the last place.
NORM_REWARD_ULP = 0 if _numpy_norm_adds_rounded_products() else 4
NORM_REWARD_TASKS = {"Reacher-v5", "Pusher-v5"}

# (task, our kwargs, gymnasium kwargs or None for the same, max_episode_steps or None for the
# task's own, steps)
CASES = [
    ("CartPole-v1", {}, None, None, 300),
    ("CartPole-v0", {}, None, None, 200),
    ("Pendulum-v1", {}, None, 40, 200),
    ("MountainCar-v0", {}, None, 40, 200),
    ("MountainCarContinuous-v0", {}, None, 40, 200),
    ("Acrobot-v1", {}, None, 40, 200),
    ("FrozenLake-v1", {}, None, None, 300),
    ("FrozenLake-v1", {"is_slippery": False}, None, 20, 200),
    ("FrozenLake-v1", {"desc": TWO_STARTS}, None, 20, 200),
    ("FrozenLake-v1", {"success_rate": 0.5}, None, None, 200),
    ("FrozenLake8x8-v1", {}, None, 40, 200),
    ("CliffWalking-v1", {}, None, 30, 200),
    ("CliffWalkingSlippery-v1", {}, None, 30, 200),
    ("Taxi-v4", {}, None, 30, 200),
    ("Taxi-v4", {"is_rainy": True, "fickle_passenger": True, "fickle_probability": 0.9}, None, 30, 200),
    ("Blackjack-v1", {}, None, None, 300),
    ("Blackjack-v1", {"natural": True, "sab": False}, None, None, 300),
] + [(task, {}, None, 25, 100) for task in MUJOCO_TASKS]


def _case_id(case):
    task, kwargs, _, _, _ = case
    return task + "".join(f"-{k}={v}" for k, v in kwargs.items())


def _ref_env(task, gym_kwargs, limit):
    if task not in gym.registry:
        pytest.skip(f"gymnasium {gym.__version__} has no {task} to compare with")
    extra = {} if limit is None else {"max_episode_steps": limit}
    try:
        return gym.make(task, disable_env_checker=True, **extra, **gym_kwargs)
    except (ImportError, gym.error.DependencyNotInstalled) as exc:  # MuJoCo without its extras
        pytest.skip(f"gymnasium cannot make {task} here: {exc}")
    except TypeError as exc:  # e.g. FrozenLake's success_rate arrived in gymnasium 1.2
        if "unexpected keyword argument" not in str(exc):
            raise
        pytest.skip(f"gymnasium {gym.__version__}'s {task} has no such kwarg to compare with: {exc}")


def _pair(task, kwargs, gym_kwargs, limit, mode, seed=SEED, per_env_gym_kwargs=None):
    """(our pool, gymnasium's SyncVectorEnv), not yet reset."""
    if task not in envpool.list_all_envs():
        pytest.skip(f"envpool was built without {task}")
    gym_kwargs = dict(kwargs if gym_kwargs is None else gym_kwargs)
    per_env = per_env_gym_kwargs or [{}] * N
    ref = SyncVectorEnv(
        [functools.partial(_ref_env, task, {**gym_kwargs, **per_env[i]}, limit) for i in range(N)], autoreset_mode=mode
    )
    ours = envpool.make(task, num_envs=N, seed=seed, max_episode_steps=limit, autoreset_mode=mode, **kwargs)
    return ours, ref


def _assert_same(what, ours, ref, context):
    """Bit-identical arrays (tuples of arrays element by element)."""
    if isinstance(ref, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(ref), f"{what} ({context}): {ours!r} vs {ref!r}"
        for k, (a, b) in enumerate(zip(ours, ref)):
            _assert_same(f"{what}[{k}]", a, b, context)
        return
    ours, ref = np.asarray(ours), np.asarray(ref)
    assert ours.dtype == ref.dtype and ours.shape == ref.shape, (
        f"{what} ({context}): ours {ours.dtype}{ours.shape}, gymnasium {ref.dtype}{ref.shape}"
    )
    if not np.array_equal(ours, ref):
        bad = np.argwhere(ours != ref)
        raise AssertionError(f"{what} ({context}) differs at {bad[:5].tolist()}:\nours {ours!r}\ngymnasium {ref!r}")


def _actions(rng, space):
    if isinstance(space, gym.spaces.Discrete):
        return rng.integers(space.start, space.start + space.n, size=N).astype(np.int64)
    low, high = space.low.astype(np.float64), space.high.astype(np.float64)
    return rng.uniform(low, high, size=(N, *space.shape)).astype(space.dtype)


def _assert_rewards(ours, ref, ulp, context):
    if ulp:
        np.testing.assert_array_max_ulp(ours, np.asarray(ref, dtype=np.float64), maxulp=ulp)
    else:
        _assert_same("reward", ours, np.asarray(ref, dtype=np.float64), context)


def _compare_run(ours, ref, mode, steps, action_seed, reward_ulp=0):
    """Step both with the same actions; an unseeded reset() a third of the way and a reseeding
    reset(seed=RESEED) at two thirds. Returns the number of episode ends per env."""
    rng = np.random.default_rng(action_seed)
    ends = np.zeros(N, dtype=int)
    for t in range(steps):
        if t == steps // 3:
            _assert_same("obs after reset()", ours.reset()[0], ref.reset()[0], f"step {t}")
        if t == 2 * steps // 3:
            _assert_same("obs after reset(seed)", ours.reset(seed=RESEED)[0], ref.reset(seed=RESEED)[0], f"step {t}")
        actions = _actions(rng, ref.single_action_space)
        obs, rew, term, trunc, _ = ours.step(actions)
        ref_obs, ref_rew, ref_term, ref_trunc, _ = ref.step(actions)
        context = f"step {t}, actions {actions.tolist()}"
        _assert_same("obs", obs, ref_obs, context)
        _assert_rewards(rew, ref_rew, reward_ulp, context)
        _assert_same("terminated", term, ref_term, context)
        _assert_same("truncated", trunc, ref_trunc, context)
        done = term | trunc
        ends += done
        if mode == AutoresetMode.DISABLED and done.any():
            # Every other masked reset reseeds the envs it resets (env i with seed + i).
            seed = RESEED + t if ends.sum() % 2 else None
            obs, _ = ours.reset(seed=seed, options={"reset_mask": done})
            ref_obs, _ = ref.reset(seed=seed, options={"reset_mask": done})
            _assert_same("obs after reset(reset_mask)", obs, ref_obs, f"{context}, seed {seed}")
    return ends


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_seeded_trajectories_match_sync_vector_env(case, mode):
    task, kwargs, gym_kwargs, limit, steps = case
    ours, ref = _pair(task, kwargs, gym_kwargs, limit, mode)
    try:
        _assert_same("reset obs", ours.reset(seed=SEED)[0], ref.reset(seed=SEED)[0], "reset(seed)")
        ulp = NORM_REWARD_ULP if task in NORM_REWARD_TASKS else 0
        ends = _compare_run(ours, ref, mode, steps, zlib.crc32(_case_id(case).encode()), ulp)
    finally:
        ours.close()
        ref.close()
    # The comparison means something only if streams went through autoresets.
    assert (ends >= 2).all(), f"too few episode ends per env to exercise autoresets: {ends.tolist()}"


def test_random_frozen_lake_map_is_generate_random_map_of_the_env_seed():
    """map_name="" (no desc): env i's stream is that of gymnasium's env on the map
    generate_random_map(size=8, seed=s + i) (tests/envs/toy_text/test_toy_text.py reads the maps back)."""
    from gymnasium.envs.toy_text.frozen_lake import generate_random_map

    maps = [{"desc": generate_random_map(size=8, seed=SEED + i), "map_name": None} for i in range(N)]
    ours, ref = _pair("FrozenLake-v1", {"map_name": ""}, {}, 40, AutoresetMode.NEXT_STEP, per_env_gym_kwargs=maps)
    try:
        _assert_same("reset obs", ours.reset()[0], ref.reset(seed=SEED)[0], "make(seed) then reset()")
        ends = _compare_run(ours, ref, AutoresetMode.NEXT_STEP, 200, 5)
    finally:
        ours.close()
        ref.close()
    assert (ends >= 2).all(), ends.tolist()


@pytest.mark.parametrize("task", ["CartPole-v1", "Taxi-v4", "Blackjack-v1", "HalfCheetah-v5"])
def test_make_seed_is_the_seed_of_the_first_reset(task):
    """make(seed=s) then reset() draws what gymnasium's reset(seed=s) draws; reset(seed=list)
    seeds env i with list[i]; large seeds (numpy takes any non-negative int) up to 2**64 - 1."""
    for seed, reset_seed in [(SEED, None), (0, None), (2**64 - N, None), (1, [5, 2**64 - 1, 0, 2**40 + 3])]:
        ours, ref = _pair(task, {}, None, None, AutoresetMode.NEXT_STEP, seed=seed)
        try:
            _assert_same(
                "reset obs",
                ours.reset(seed=reset_seed)[0],
                ref.reset(seed=seed if reset_seed is None else reset_seed)[0],
                f"seed {seed} / {reset_seed}",
            )
            _compare_run(ours, ref, AutoresetMode.NEXT_STEP, 30, seed)
        finally:
            ours.close()
            ref.close()


def test_seeds_beyond_64_bits_are_refused():
    with pytest.raises(ValueError, match=r"env 2's seed 18446744073709551616 does not fit in 64 bits"):
        envpool.make("CartPole-v1", num_envs=3, seed=2**64 - 2)
    env = envpool.make("CartPole-v1", num_envs=2, seed=0)
    try:
        with pytest.raises(ValueError, match=r"does not fit in 64 bits"):
            env.reset(seed=2**64 - 1)
        with pytest.raises(ValueError, match=r"seed\[1\]=18446744073709551616 does not fit in 64 bits"):
            env.reset(seed=[0, 2**64])
        # The same for a reset of some envs by id (it raised pybind11's "Unable to cast" before).
        with pytest.raises(ValueError, match=r"env 1's seed 18446744073709551616 does not fit in 64 bits"):
            env.reset(np.array([1]), seed=2**64 - 1)
        with pytest.raises(ValueError, match=r"seed\[0\]=18446744073709551616 does not fit in 64 bits"):
            env.reset(np.array([1]), seed=[2**64])
        with pytest.raises(TypeError, match=r"seed\[0\] must be an int, got NoneType None"):
            env.reset(np.array([1]), seed=[None])
        env.reset(seed=[2**64 - 1, 2**64 - 2])  # the pool stays usable
        env.step(np.zeros(2, dtype=np.int64))
    finally:
        env.close()


@pytest.mark.parametrize("num_threads,batch_size", [(1, N), (2, N), (2, 2)])
def test_threads_and_batches_do_not_change_the_streams(num_threads, batch_size):
    """Env i's stream depends on its seed only: async batches through two threads draw what
    gymnasium's env i draws (each env stepped with its own action sequence)."""
    ours = envpool.make("CartPole-v1", num_envs=N, batch_size=batch_size, num_threads=num_threads, seed=SEED)
    refs = [gym.make("CartPole-v1", disable_env_checker=True) for _ in range(N)]
    try:
        expected = [[refs[i].reset(seed=SEED + i)[0]] for i in range(N)]
        rngs = [np.random.default_rng(i) for i in range(N)]
        actions = [rngs[i].integers(2, size=120) for i in range(N)]
        for i in range(N):  # gymnasium's env i alone, with next-step autoreset by hand
            done = False
            for a in actions[i]:
                if done:
                    obs, _ = refs[i].reset()
                    done = False
                else:
                    obs, _, term, trunc, _ = refs[i].step(int(a))
                    done = term or trunc
                expected[i].append(obs)
        got = [[] for _ in range(N)]
        ours.async_reset()
        counts = np.zeros(N, dtype=int)
        while min(len(g) for g in got) < len(expected[0]):
            obs, _, _, _, info = ours.recv()
            ids = info["env_id"]
            for row, i in enumerate(ids):
                got[i].append(obs[row])
            act = np.array([actions[i][min(counts[i], len(actions[i]) - 1)] for i in ids], dtype=np.int64)
            counts[ids] += 1
            ours.send(act, ids)
        for i in range(N):
            _assert_same(f"env {i} observations", np.stack(got[i][: len(expected[i])]), np.stack(expected[i]), "")
    finally:
        ours.close()
        for r in refs:
            r.close()


# -- what a seed may be (issue 35 item 11) --------------------------------------------------------
#
# gymnasium's conventions, with nothing converted silently: an int (NumPy integers too) >= 0 and
# < 2**64, None, or a sequence (list, tuple, range, 1-D integer array) of one per env. Refused:
# floats (1.5 was "'float' object is not iterable"), bools, and str/bytes/dict/set, which
# iterate to characters, byte values (b"12" was seeds 49 and 50), keys ({1: 0, 2: 0} was seeds 1
# and 2) or no order at all.
BAD_SEEDS = [
    (1.5, TypeError, r"seed must be an int .*got float 1\.5"),
    (np.float64(1.0), TypeError, r"seed must be an int .*got float64"),
    (b"12", TypeError, r"seed must be an int .*got bytes b'12'"),
    ("12", TypeError, r"seed must be an int .*got str '12'"),
    ({1: 0, 2: 0}, TypeError, r"seed must be an int .*got dict \{1: 0, 2: 0\}"),
    ({1, 2}, TypeError, r"seed must be an int .*got set"),
    (True, TypeError, r"seed must be an int .*got bool True"),
    (np.array(3), TypeError, r"seed must be an int .*got a 0-D int64 array"),
    (np.array([[1, 2]]), TypeError, r"got a 2-D int64 array"),
    (np.array([1.0, 2.0]), TypeError, r"got a 1-D float64 array"),
    ([1.5, 2], TypeError, r"seed\[0\] must be an int or None, got float 1\.5"),
    ([0, b"1"], TypeError, r"seed\[1\] must be an int or None, got bytes b'1'"),
    ([0, True], TypeError, r"seed\[1\] must be an int or None, got bool True"),
    (-1, ValueError, r"seed must be >= 0, got -1"),
    ([0, -1], ValueError, r"seed\[1\] must be >= 0, got -1"),
    ([0, 1, 2], ValueError, r"reset\(\) got 3 seeds for 2 envs"),
]


def _vector_pools():
    return {
        "native": lambda: envpool.make("CartPole-v1", num_envs=2, seed=3),
        "gym": lambda: envpool.make_gym("CartPole-v1", num_envs=2, seed=3),
        "agent-rows": lambda: envpool.make("SimpleSpread-v3", num_envs=2, seed=3),
        "pettingzoo": lambda: envpool.make("SimpleSpread-v3", num_envs=2, seed=3, env_type="pettingzoo"),
        "python": lambda: envpool.make_python("CartPole-v1", num_envs=2, seed=3, num_workers=1),
    }


def _first_obs(result):
    obs = result[0]
    return obs if not isinstance(obs, tuple) else obs[0]["agent_0"]  # ParallelEnvs: (obs, infos) per env


@pytest.mark.parametrize("kind", sorted(_vector_pools()))
def test_a_seed_of_the_wrong_type_is_refused_naming_it(kind):
    envs = _vector_pools()[kind]()
    try:
        envs.reset()
        before = tuple(envs.np_random_seed) if hasattr(envs, "np_random_seed") else None
        for seed, error, match in BAD_SEEDS:
            with pytest.raises(error, match=match):
                envs.reset(seed=seed)
        if before is not None:
            assert tuple(envs.np_random_seed) == before  # a refused reset changes nothing
        # NumPy integers and any integer sequence are seeds, as ints and lists are.
        reference = np.asarray(_first_obs(envs.reset(seed=5)))
        for same in (np.int64(5), np.uint32(5)):
            np.testing.assert_array_equal(np.asarray(_first_obs(envs.reset(seed=same))), reference)
        reference = np.asarray(_first_obs(envs.reset(seed=[7, 9])))
        for same in ((7, 9), np.array([7, 9], np.uint64), [np.int64(7), 9], range(7, 11, 2)):
            np.testing.assert_array_equal(np.asarray(_first_obs(envs.reset(seed=same))), reference)
    finally:
        envs.close()


def test_seeds_of_a_reset_by_env_id_are_checked_the_same_way():
    envs = envpool.make("CartPole-v1", num_envs=3, batch_size=3, seed=0)
    try:
        envs.reset()
        with pytest.raises(TypeError, match=r"seed must be an int .*one per env id.*got bytes b'1'"):
            envs.reset(np.array([0]), seed=b"1")
        with pytest.raises(TypeError, match=r"seed\[0\] must be an int, got float 2\.5"):
            envs.reset(np.array([0, 1]), seed=[2.5, 1])
        with pytest.raises(TypeError, match=r"seed must be an int .*got float 2\.5"):
            envs.reset(options={"reset_mask": np.array([True, False, False])}, seed=2.5)
        assert envs.np_random_seed == (0, 1, 2)
    finally:
        envs.close()


def test_one_env_seeds_are_an_int_or_none():
    """The single env (gymnasium.make), a PettingZoo view and EnvRunner take one seed."""
    env = gym.make("envpool/CartPole-v1")
    try:
        for seed, error, match in [
            (1.5, TypeError, r"seed must be an int or None, got float 1\.5"),
            (b"12", TypeError, r"seed must be an int or None, got bytes b'12'"),
            ([1], TypeError, r"seed must be an int or None, got list \[1\]"),
            (True, TypeError, r"seed must be an int or None, got bool True"),
            (-1, ValueError, r"seed must be >= 0, got -1"),
            (2**64, ValueError, r"seed=18446744073709551616 does not fit in 64 bits"),
        ]:
            with pytest.raises(error, match=match):  # gymnasium's own error.Error before
                env.reset(seed=seed)
        np.testing.assert_array_equal(env.reset(seed=np.int64(4))[0], env.reset(seed=4)[0])
    finally:
        env.close()
    view = envpool.make("SimpleSpread-v3", num_envs=1, env_type="pettingzoo")
    try:
        with pytest.raises(TypeError, match=r"seed must be an int, got float 1\.5"):
            view.reset(seed=1.5)
        view.reset(seed=np.int64(1))
    finally:
        view.close()
    envs = envpool.make("CartPole-v1", num_envs=2)
    try:
        for seed in (1.5, b"1", {1: 0}, True):
            with pytest.raises(TypeError, match="seed must be an int or None"):
                envpool.EnvRunner(envs, seed=seed)  # "can't concat int to bytes" and the like before
        envpool.EnvRunner(envs, seed=np.int64(1)).sample(num_timesteps=4)
    finally:
        envs.close()
