"""The gym MuJoCo v4 ids and the v3 / v2 ids (v4 configurations) from the same seed as their
oracles (gym_oracle.py), through every front end.

test_mujoco.py compares every step from identical states, with kwargs, and the reset
distributions. Here: whole seeded runs, bit for bit, as tests/frontends/test_seeding.py runs the
v5 ids, with the info of every step as well: a pool made with seed s and gymnasium's
SyncVectorEnv of the oracle reset with seed s draw the same initial states (envpool's generator
is numpy's, drawn in the same order) and, from the same actions, give the same observations,
rewards, terminations, truncations and info entries through their autoresets. Every id runs
briefly (a time limit of 20 steps); a sample runs whole episodes at its registered time limit.
Then the front ends (gym, dm_env, gymnasium.make's single env), the kwargs against the oracle
classes' and the registry entries.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
from support.optional import skip_for_import

import envpool

try:
    import gymnasium as gym
    import mujoco  # noqa: F401  (the oracle's bindings; mujoco-core provides them)
    from gymnasium.envs.mujoco.mujoco_env import MujocoEnv  # noqa: F401  (needs glfw, imageio)
    from gymnasium.vector import AutoresetMode, SyncVectorEnv
except ImportError as exc:  # pragma: no cover - depends on the environment
    skip_for_import(
        "MuJoCo tests need mujoco-core, glfw and imageio (pip install envpool-ng[test])",
        "gymnasium, mujoco, gymnasium.envs.mujoco.mujoco_env",
        exc,
    )

from . import gym_oracle  # noqa: E402 - needs gymnasium

if "HalfCheetah-v4" not in envpool.list_all_envs():  # pragma: no cover
    pytest.skip(
        "envpool was built without the MuJoCo headers (mujoco-core missing at build time)", allow_module_level=True
    )

N = 2
SEED = 4242
V3_V2 = sorted(gym_oracle.V3_V2)
TASKS = gym_oracle.V4 + V3_V2
# Whole episodes at the registered time limit (two per env; one for the 1000-step limits): tasks
# that end by falling (Hopper, Walker2d, Humanoid, the pendulums), by truncation only
# (HalfCheetah, Pusher, Reacher: 1000 / 100 / 50 steps) and Ant with its contact forces, which
# may do either.
WHOLE = ["HalfCheetah-v4", "Hopper-v4", "Walker2d-v3", "Humanoid-v4", "Ant-v3", "Pusher-v4", "Reacher-v2",
         "InvertedPendulum-v4", "InvertedDoublePendulum-v2"]  # fmt: skip


def _oracle_vector(task, max_episode_steps):
    def one():
        return gym_oracle.make(task, max_episode_steps=max_episode_steps, disable_env_checker=True)

    return SyncVectorEnv([one for _ in range(N)], autoreset_mode=AutoresetMode.NEXT_STEP)


def _numpy_norm_adds_rounded_products() -> bool:
    """Whether np.linalg.norm of a 3-vector here is sqrt(x0*x0 + x1*x1 + x2*x2), each product
    rounded, as envpool computes it (cpp/envs/mujoco/gym/mujoco_env.h, Norm): true of numpy's own
    OpenBLAS wheels on x86-64; a BLAS that fuses the multiply-adds differs in the last bit."""
    vectors = np.random.default_rng(0).uniform(-1.0, 1.0, size=(500, 3))
    return all(np.linalg.norm(v) == math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) for v in vectors)


# Values with a np.linalg.norm term: bit-exact where numpy's BLAS adds rounded products, else
# within a few units in the last place (as tests/frontends/test_seeding.py allows).
NORM_ULP = 0 if _numpy_norm_adds_rounded_products() else 4
NORM_REWARDS = {"Reacher", "Pusher"}
NORM_INFOS = {"reward_dist", "distance_from_origin"}


def _same(what, ours, ref, context, ulp=0):
    ours, ref = np.asarray(ours), np.asarray(ref)
    assert ours.shape == ref.shape, f"{what} ({context}): shape {ours.shape} vs {ref.shape}"
    if ulp:
        try:
            np.testing.assert_array_max_ulp(ours, ref.astype(ours.dtype), maxulp=ulp)
        except AssertionError as exc:
            raise AssertionError(f"{what} ({context}): {exc}") from None
    elif not np.array_equal(ours, ref):
        bad = np.argwhere(ours != ref)[:5].tolist()
        raise AssertionError(f"{what} ({context}) differs at {bad}:\nours {ours!r}\ngymnasium {ref!r}")


def _run(task, max_episode_steps, steps, until=None):
    """Both from SEED, stepped `steps` times with the same actions, or until every env has ended
    `until` episodes; returns episode ends per env."""
    ours = envpool.make(task, num_envs=N, seed=SEED, max_episode_steps=max_episode_steps)
    ref = _oracle_vector(task, max_episode_steps)
    rng = np.random.default_rng(len(task))
    ends = np.zeros(N, dtype=int)
    try:
        _same("reset obs", ours.reset()[0], ref.reset(seed=SEED)[0], task)
        space = ref.single_action_space
        for t in range(steps):
            actions = rng.uniform(space.low, space.high, size=(N, *space.shape)).astype(np.float32)
            obs, rew, term, trunc, info = ours.step(actions)
            r_obs, r_rew, r_term, r_trunc, r_info = ref.step(actions)
            context = f"{task} step {t}"
            _same("obs", obs, r_obs, context)
            _same("reward", rew, r_rew, context, NORM_ULP if task.split("-")[0] in NORM_REWARDS else 0)
            _same("terminated", term, r_term, context)
            _same("truncated", trunc, r_trunc, context)
            for key, value in r_info.items():  # where gymnasium's env reported the key
                if not key.startswith("_"):
                    mask = r_info[f"_{key}"]
                    ulp = NORM_ULP if key in NORM_INFOS else 0
                    _same(f"info[{key!r}]", np.asarray(info[key])[mask], np.asarray(value)[mask], context, ulp)
            ends += term | trunc
            if until is not None and (ends >= until).all():
                break
    finally:
        ours.close()
        ref.close()
    return ends


@pytest.mark.parametrize("task", TASKS)
def test_seeded_runs_match_the_oracle(task):
    ends = _run(task, 20, 45)
    assert (ends >= 2).all(), ends.tolist()


@pytest.mark.parametrize("task", WHOLE)
def test_seeded_whole_episodes_match_the_oracle(task):
    limit = gym_oracle.limits(task)[0]
    episodes = 1 if limit == 1000 else 2  # the 1000-step ones: one each (a few seconds otherwise)
    ends = _run(task, limit, episodes * limit + 1, until=episodes)
    assert (ends >= episodes).all(), ends.tolist()


@pytest.mark.parametrize("task", TASKS)
def test_front_ends_make_and_step(task, without_the_gym_package):
    """gymnasium's VectorEnv (above), env_type="gym", env_type="dm" and gymnasium.make's single
    env: the oracle's first observations from the same seed, then a step of the same actions."""
    oracle = _oracle_vector(task, None)
    want, _ = oracle.reset(seed=SEED)
    shape = oracle.single_action_space.shape
    actions = np.random.default_rng(1).uniform(-0.4, 0.4, size=(N, *shape)).astype(np.float32)
    want_next = oracle.step(actions)[0]
    oracle.close()

    gym_style = envpool.make(task, env_type="gym", num_envs=N, seed=SEED)
    _same("gym reset obs", gym_style.reset()[0], want, task)
    _same("gym step obs", gym_style.step(actions)[0], want_next, task)
    assert gym_style.observation_space.shape == want.shape[1:]
    gym_style.close()

    dm = envpool.make(task, env_type="dm", num_envs=N, seed=SEED)
    _same("dm reset obs", dm.reset().observation.obs, want, task)
    _same("dm step obs", dm.step(actions).observation.obs, want_next, task)
    assert dm.observation_spec().shape == want.shape[1:]
    dm.close()

    with warnings.catch_warnings():  # "envpool/Ant-v4 is out of date" (gymnasium's, as for its own v4)
        warnings.simplefilter("ignore", DeprecationWarning)
        single = gym.make(f"envpool/{task}")
    for i in range(N):
        _same("single env reset obs", single.reset(seed=SEED + i)[0], want[i], f"{task} env {i}")
        _same("single env step obs", single.step(actions[i])[0], want_next[i], f"{task} env {i}")
    assert (single.spec.max_episode_steps, single.spec.reward_threshold) == gym_oracle.limits(task)
    single.close()


# The kwargs every gym MuJoCo task takes beside its class's own: xml_file and frame_skip (which
# gymnasium's v4 classes fix but for Ant's xml_file, and the reference EnvPool's v4 tasks take,
# as v5 does), the reference's frame_stack, MujocoEnv's render kwargs (which the v4 classes
# pass on to it) and the pool's max_episode_steps (gymnasium.make's).
COMMON = {"xml_file", "frame_skip", "frame_stack", "render_mode", "width", "height", "camera_id", "camera_name",
          "default_camera_config", "max_geom", "visual_options", "max_episode_steps"}  # fmt: skip


def _as_config(value):
    return [float(x) for x in value] if isinstance(value, tuple) else value


@pytest.mark.parametrize("task", TASKS)
def test_kwargs_are_the_oracle_classes(task):
    """Each id's kwargs: its oracle class's, with that class's defaults (for a v3 / v2 id, the
    reference's v3 kwargs over them), plus COMMON."""
    gym_id, v3_kwargs = gym_oracle.oracle_id(task)
    module, name = gym.spec(gym_id).entry_point.split(":")
    init = getattr(__import__(module, fromlist=[name]), name).__init__
    params = {
        key: p.default
        for key, p in inspect.signature(init).parameters.items()
        if key != "self" and p.kind is p.POSITIONAL_OR_KEYWORD
    }
    params.update(v3_kwargs)
    config = envpool.make_spec(task).config
    ours, theirs = set(config), set(params)
    assert theirs <= ours and ours - theirs <= COMMON, f"{task}: ours {sorted(ours)}, gymnasium's {sorted(theirs)}"
    for key, default in params.items():
        assert config[key] == _as_config(default), f"{task}: {key} = {config[key]!r}, gymnasium's {default!r}"


def test_registry_entries():
    """22 ids beside v5's, each with its oracle's (v4: gymnasium's registration; v3 / v2: gym
    0.26's) time limit and reward threshold, as make_spec and gymnasium's registry show them."""
    assert len(TASKS) == 22 and set(TASKS) <= set(envpool.list_all_envs())
    for task in TASKS:
        limit, threshold = gym_oracle.limits(task)
        spec = envpool.make_spec(task)
        assert (spec.max_episode_steps, spec.reward_threshold) == (limit, threshold), task
        registered = gym.spec(f"envpool/{task}")
        assert (registered.max_episode_steps, registered.reward_threshold) == (limit, threshold), task
    assert envpool.make_spec("Ant-v3").observation_space.shape == (111,)
    assert envpool.make_spec("Ant-v4").observation_space.shape == (27,)
    assert envpool.make_spec("Humanoid-v3").observation_space.shape == (376,)


def test_pusher_v4_still_needs_the_oracle_shim():
    """gymnasium's own Pusher-v4 refuses MuJoCo >= 3, which is why gym_oracle bypasses its guard
    (docs/compat.md); where it stops refusing, the shim and that paragraph can go."""
    with pytest.raises(ImportError, match="only supported on `mujoco<3`"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "Pusher-v4 is out of date"
        gym.make("Pusher-v4")
    env = gym_oracle.make("Pusher-v4")
    assert env.observation_space.shape == (23,)
    env.close()


def test_frame_stack_and_bad_kwargs():
    """The reference's frame_stack works on v4 ids as on v5; a v5-only kwarg is refused by name."""
    env = envpool.make("Hopper-v4", num_envs=1, seed=0, frame_stack=3)
    obs, _ = env.reset()
    assert obs.shape == (1, 3, 11) and (obs[0, 0] == obs[0, 2]).all()
    env.close()
    with pytest.raises(ValueError, match="include_cfrc_ext_in_observation"):
        envpool.make("Ant-v4", num_envs=1, include_cfrc_ext_in_observation=False)
    with pytest.raises(ValueError, match="reset_noise_scale"):
        envpool.make("InvertedPendulum-v4", num_envs=1, reset_noise_scale=0.1)
