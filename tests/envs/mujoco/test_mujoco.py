"""The gym MuJoCo tasks (v5, v4 and the v3 / v2 ids) against gymnasium's own implementations
(gym_oracle.py: the v3 / v2 ids' oracle is gymnasium's v4 class with the reference's v3 kwargs;
Pusher-v4's is gymnasium's with its MuJoCo < 3 guard bypassed).

Both sides run the same libmujoco (the one in the installed ``mujoco`` package) on the same
model file, so from the same physics state and action they must agree to the last bits:

  * fidelity: states come from random rollouts of our envs, perturbed now and then (which
    makes the walkers fall: unhealthy terminations are compared too) or sent back to a reset
    state; each compared step starts from one such state, set in both implementations
    (``set_state(qpos, qvel)`` plus MuJoCo's solver warm start, which is part of the state),
    then both take the same random action (some outside the action box) and must give the same
    observation, reward, terminated flag, info entries and next qpos / qvel;
  * reset: the first observation and reset info, and the distribution of the initial states
    (each coordinate's empirical distribution over 2000 resets against gymnasium's, with a
    two-sample Kolmogorov-Smirnov test, and the exact noise bounds);
  * spaces equal gymnasium's, for default and non-default kwargs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zlib

import numpy as np
import pytest
from support.optional import skip_for_import

import envpool

from . import gym_oracle

try:
    import gymnasium as gym
    import mujoco  # noqa: F401  (the oracle's bindings; mujoco-core provides them)
    from gymnasium.envs.mujoco.mujoco_env import MujocoEnv  # noqa: F401  (needs glfw, imageio)
except ImportError as exc:  # pragma: no cover - depends on the environment
    skip_for_import(
        "MuJoCo tests need mujoco-core, glfw and imageio (pip install envpool-ng[test])",
        "gymnasium, mujoco, gymnasium.envs.mujoco.mujoco_env",
        exc,
    )

if "HalfCheetah-v5" not in envpool.list_all_envs():  # pragma: no cover
    pytest.skip(
        "envpool was built without the MuJoCo headers (mujoco-core missing at build time)", allow_module_level=True
    )

# Observed: bit-exact (both sides run the same libmujoco; ENVPOOL_MUJOCO_RTOL=0 checks bits and
# passes with numpy's own OpenBLAS wheels on x86-64); the default tolerance leaves room for a
# BLAS that sums the np.linalg.norm terms (Reacher, Pusher rewards; Ant, Humanoid, Swimmer
# info) with fused multiply-adds.
RTOL = float(os.environ.get("ENVPOOL_MUJOCO_RTOL", "1e-9"))
ATOL = RTOL * 1e-3
NUM_ENVS = 8
ROUNDS = 40  # x NUM_ENVS compared transitions per case
NUM_RESETS = 2000

# (task, kwargs, can terminate)
CASES = [
    ("HalfCheetah-v5", {}, False),
    (
        "HalfCheetah-v5",
        {
            "exclude_current_positions_from_observation": False,
            "frame_skip": 3,
            "ctrl_cost_weight": 0.3,
            "forward_reward_weight": 0.7,
        },
        False,
    ),
    ("Hopper-v5", {}, True),
    (
        "Hopper-v5",
        {
            "exclude_current_positions_from_observation": False,
            "healthy_z_range": (0.8, 1.5),
            "healthy_angle_range": (-0.3, 0.3),
            "healthy_state_range": (-50.0, 50.0),
        },
        True,
    ),
    ("Walker2d-v5", {}, True),
    ("Walker2d-v5", {"xml_file": "walker2d.xml", "terminate_when_unhealthy": False}, False),
    ("Ant-v5", {}, True),
    (
        "Ant-v5",
        {
            "include_cfrc_ext_in_observation": False,
            "exclude_current_positions_from_observation": False,
            "main_body": "torso",
            "contact_force_range": (-0.5, 2.0),
        },
        True,
    ),
    ("Humanoid-v5", {}, True),
    (
        "Humanoid-v5",
        {
            "include_cinert_in_observation": False,
            "include_cvel_in_observation": False,
            "include_qfrc_actuator_in_observation": False,
            "include_cfrc_ext_in_observation": False,
            "exclude_current_positions_from_observation": False,
            "healthy_z_range": (0.9, 1.8),
        },
        True,
    ),
    ("HumanoidStandup-v5", {}, False),
    ("HumanoidStandup-v5", {"include_cfrc_ext_in_observation": False, "impact_cost_range": (-1.0, 1.0)}, False),
    ("Swimmer-v5", {}, False),
    ("Swimmer-v5", {"exclude_current_positions_from_observation": False, "reset_noise_scale": 0.3}, False),
    ("Reacher-v5", {}, False),
    ("Reacher-v5", {"reward_dist_weight": 2.0, "reward_control_weight": 0.5}, False),
    ("Pusher-v5", {}, False),
    ("Pusher-v5", {"xml_file": "pusher.xml", "reward_near_weight": 1.0}, False),
    ("InvertedPendulum-v5", {}, True),
    ("InvertedPendulum-v5", {"reset_noise_scale": 0.1}, True),
    ("InvertedDoublePendulum-v5", {}, True),
    ("InvertedDoublePendulum-v5", {"healthy_reward": 5.0, "frame_skip": 2}, True),
    # gymnasium's v4 classes: each id's defaults, and other kwargs where the class takes any.
    ("HalfCheetah-v4", {}, False),
    (
        "HalfCheetah-v4",
        {"exclude_current_positions_from_observation": False, "ctrl_cost_weight": 0.3, "forward_reward_weight": 0.7},
        False,
    ),
    ("Hopper-v4", {}, True),
    (
        "Hopper-v4",
        {"terminate_when_unhealthy": False, "healthy_state_range": (-50.0, 50.0), "healthy_reward": 2.0},
        False,
    ),
    ("Walker2d-v4", {}, True),
    ("Walker2d-v4", {"exclude_current_positions_from_observation": False, "healthy_angle_range": (-0.5, 0.5)}, True),
    ("Ant-v4", {}, True),
    (
        "Ant-v4",
        {
            "use_contact_forces": True,
            "contact_force_range": (-0.5, 2.0),
            "exclude_current_positions_from_observation": False,
        },
        True,
    ),
    ("Humanoid-v4", {}, True),
    ("Humanoid-v4", {"terminate_when_unhealthy": False, "exclude_current_positions_from_observation": False}, False),
    ("HumanoidStandup-v4", {}, False),
    ("Swimmer-v4", {}, False),
    ("Swimmer-v4", {"exclude_current_positions_from_observation": False, "reset_noise_scale": 0.3}, False),
    ("Reacher-v4", {}, False),
    ("Pusher-v4", {}, False),
    ("InvertedPendulum-v4", {}, True),
    ("InvertedDoublePendulum-v4", {}, True),
    # The v3 / v2 ids: the v4 classes with the reference's v3 defaults.
    ("Ant-v3", {}, True),
    ("Ant-v3", {"use_contact_forces": False, "terminate_when_unhealthy": False}, False),
    ("HalfCheetah-v3", {}, False),
    ("Hopper-v3", {}, True),
    ("Humanoid-v3", {}, True),
    ("Swimmer-v3", {}, False),
    ("Walker2d-v3", {}, True),
    ("HumanoidStandup-v2", {}, False),
    ("InvertedDoublePendulum-v2", {}, True),
    ("InvertedPendulum-v2", {}, True),
    ("Pusher-v2", {}, False),
    ("Reacher-v2", {}, False),
]
CASES = [c for c in CASES if c[0] in envpool.list_all_envs()]
CASE_IDS = [task + "".join(f"-{k}={v}" for k, v in kw.items()) for task, kw, _ in CASES]
TASKS = sorted({task for task, *_ in CASES}, key=[c[0] for c in CASES].index)

# Perturbation scales (qpos, qvel) that push each task (every version) across its termination
# thresholds.
NOISE = {
    "Hopper": (0.15, 1.0),
    "Walker2d": (0.3, 1.0),
    "Ant": (0.2, 1.0),
    "Humanoid": (0.2, 1.0),
    "InvertedPendulum": (0.15, 0.5),
    "InvertedDoublePendulum": (0.3, 0.5),
}


def _name(task):
    """The task's name without its version: Hopper-v4 -> Hopper."""
    return task.rsplit("-", 1)[0]


def _seed(*parts) -> int:
    return zlib.crc32(repr(parts).encode())


def _ref(task, kwargs):
    return gym_oracle.make_class(task, **kwargs)


def _set_ref_state(ref, full_state):
    """Put gymnasium's env in our full state (qpos, qvel, act, qacc_warmstart, time)."""
    m, d = ref.model, ref.data
    nq, nv, na = m.nq, m.nv, m.na
    ref.set_state(full_state[:nq], full_state[nq : nq + nv])
    d.act[:] = full_state[nq + nv : nq + nv + na]
    d.qacc_warmstart[:] = full_state[nq + nv + na : nq + 2 * nv + na]
    d.time = full_state[-1]


def _actions(rng, space, n):
    low, high = space.low.astype(np.float64), space.high.astype(np.float64)
    a = rng.uniform(low, high, size=(n, *space.shape))
    wide = rng.random(a.shape) < 0.1  # gymnasium passes these to MuJoCo, which clamps ctrl
    a[wide] = rng.uniform(1.5 * np.broadcast_to(low, a.shape)[wide], 1.5 * np.broadcast_to(high, a.shape)[wide])
    return a.astype(np.float32)


def _close(what, ours, ref, context):
    ours = np.asarray(ours, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    np.testing.assert_allclose(ours, ref, rtol=RTOL, atol=ATOL, err_msg=f"{what} ({context})")


@pytest.mark.parametrize(("task", "kwargs", "can_terminate"), CASES, ids=CASE_IDS)
def test_steps_match_gymnasium(task, kwargs, can_terminate):
    rng = np.random.default_rng(_seed(task, kwargs))
    env = envpool.make(task, num_envs=NUM_ENVS, seed=1, **kwargs)
    ref = _ref(task, kwargs)
    ref.reset(seed=0)
    nq, nv = ref.model.nq, ref.model.nv
    env.reset()
    starts = [env.get_state(i)[: nq + nv].copy() for i in range(NUM_ENVS)]
    pos_noise, vel_noise = NOISE.get(_name(task), (0.1, 1.0))
    n_term = 0
    for k in range(ROUNDS):
        before = []
        for i in range(NUM_ENVS):
            s = env.get_state(i)
            qpos, qvel = s[:nq].copy(), s[nq : nq + nv].copy()
            u = rng.random()
            if u < 0.1 or not np.isfinite(s).all() or np.abs(s[: nq + nv]).max() > 1e3:
                qpos, qvel = starts[i][:nq].copy(), starts[i][nq:].copy()
            elif u < 0.4:
                qpos += rng.normal(0.0, pos_noise, nq)
                qvel += rng.normal(0.0, vel_noise, nv)
            env.set_state(i, np.concatenate([qpos, qvel]))
            before.append(env.get_state(i))
        actions = _actions(rng, env.single_action_space, NUM_ENVS)
        obs, rew, term, trunc, info = env.step(actions)
        assert obs.dtype == np.float64 and rew.dtype == np.float64
        for row, i in enumerate(range(NUM_ENVS)):  # a full batch: row i is env i
            context = f"{task} {kwargs} round {k} env {i}"
            _set_ref_state(ref, before[i])
            r_obs, r_rew, r_term, _, r_info = ref.step(actions[i])
            _close("obs", obs[row], r_obs, context)
            _close("reward", rew[row], r_rew, context)
            assert bool(term[row]) == bool(r_term), f"terminated differs ({context})"
            for key, value in r_info.items():
                assert key in info, f"info lacks {key!r}"
                _close(f"info[{key!r}]", info[key][row], value, context)
            after = env.get_state(i)
            _close("qpos", after[:nq], ref.data.qpos, context)
            _close("qvel", after[nq : nq + nv], ref.data.qvel, context)
            n_term += int(r_term)
    env.close()
    total = ROUNDS * NUM_ENVS
    if can_terminate:
        assert 0.02 * total <= n_term <= 0.98 * total, f"{n_term} terminal transitions of {total}"
    else:
        assert n_term == 0


def _reset_states(env, nq, nv, rounds):
    out = []
    for r in range(rounds):
        env.reset(seed=1000 * r)
        out += [env.get_state(i)[: nq + nv] for i in range(env.num_envs)]
    return np.array(out)


def _ks_statistic(a, b):
    """Two-sample Kolmogorov-Smirnov statistic."""
    a, b = np.sort(a), np.sort(b)
    grid = np.concatenate([a, b])
    return np.abs(
        np.searchsorted(a, grid, side="right") / len(a) - np.searchsorted(b, grid, side="right") / len(b)
    ).max()


@pytest.mark.parametrize(("task", "kwargs"), [(t, kw) for t, kw, _ in CASES], ids=CASE_IDS)
def test_reset_matches_gymnasium(task, kwargs):
    ref = _ref(task, kwargs)
    ref.reset(seed=0)
    nq, nv = ref.model.nq, ref.model.nv
    env = envpool.make(task, num_envs=100, seed=7, **kwargs)

    # First observation and reset info: gymnasium's, computed from the same state.
    obs, info = env.reset(seed=3)
    for i in range(env.num_envs):
        s = env.get_state(i)
        ref.reset()
        ref.set_state(s[:nq], s[nq : nq + nv])
        _close("reset obs", obs[i], ref._get_obs(), f"{task} env {i}")
        for key, value in ref._get_reset_info().items():
            _close(f"reset info[{key!r}]", info[key][i], value, f"{task} env {i}")

    # Initial-state distribution, coordinate by coordinate.
    ours = _reset_states(env, nq, nv, NUM_RESETS // env.num_envs)
    env.close()
    theirs = []
    for _ in range(NUM_RESETS):
        ref.reset()
        theirs.append(np.concatenate([ref.data.qpos, ref.data.qvel]))
    theirs = np.array(theirs)
    # Noise bounds: the reference's extremes are within a hair of the true bounds.
    span = theirs.max(axis=0) - theirs.min(axis=0)
    const = span == 0
    np.testing.assert_array_equal(ours[:, const], theirs[:, const], err_msg=f"{task}: constant coordinates")
    uniform_like = ~const
    crit = np.sqrt(-np.log(1e-6 / 2) / 2) * np.sqrt(2 / NUM_RESETS)  # KS at alpha = 1e-6
    for j in np.flatnonzero(uniform_like):
        d = _ks_statistic(ours[:, j], theirs[:, j])
        assert d < crit, f"{task}: initial coordinate {j} distributed differently (KS {d:.3f} >= {crit:.3f})"
        assert abs(ours[:, j].mean() - theirs[:, j].mean()) < 6 * theirs[:, j].std() / np.sqrt(NUM_RESETS / 2) + 1e-12
        assert 0.85 < ours[:, j].std() / theirs[:, j].std() < 1.15, f"{task}: coordinate {j} std"
    # Uniform noise never leaves its box (gymnasium's min/max are within span/NUM_RESETS of it).
    lo, hi = theirs.min(axis=0), theirs.max(axis=0)
    slack = 0.01 * span
    inside = (ours >= lo - slack) & (ours <= hi + slack)
    normal_cols = _normal_columns(task, nq, nv)
    inside[:, normal_cols] = True
    assert inside.all(), f"{task}: initial states outside gymnasium's noise range"


def _normal_columns(task, nq, nv):
    """State coordinates (qpos then qvel) whose reset noise is Gaussian."""
    if _name(task) in ("HalfCheetah", "Ant", "InvertedDoublePendulum"):
        return np.arange(nq, nq + nv)
    return np.array([], dtype=int)


def _assert_box_equal(ours, ref, what):
    assert isinstance(ours, gym.spaces.Box), what
    assert ours.dtype == ref.dtype and ours.shape == ref.shape, f"{what}: {ours!r} vs {ref!r}"
    np.testing.assert_array_equal(ours.low, ref.low, err_msg=f"{what} low")
    np.testing.assert_array_equal(ours.high, ref.high, err_msg=f"{what} high")


@pytest.mark.parametrize(("task", "kwargs"), [(t, kw) for t, kw, _ in CASES], ids=CASE_IDS)
def test_spaces_match_gymnasium(task, kwargs):
    env = envpool.make(task, num_envs=2, seed=0, **kwargs)
    ref = gym_oracle.make(task, **kwargs)
    _assert_box_equal(env.single_observation_space, ref.observation_space, f"{task} observation")
    _assert_box_equal(env.single_action_space, ref.action_space, f"{task} action")
    assert envpool.make_spec(task, **kwargs) is not None
    env.close()
    ours = {t["id"]: t for t in __import__("envpool")._core.tasks()}[task]
    assert (ours["max_episode_steps"], ours["reward_threshold"]) == gym_oracle.limits(task)


def test_models_are_shared_and_threads_agree():
    """Several pools and thread counts give the same trajectories (one read-only model each)."""
    task = TASKS[-1] if "Hopper-v5" not in TASKS else "Hopper-v5"
    results = []
    for threads in (1, 2):
        env = envpool.make(task, num_envs=6, num_threads=threads, seed=5)
        obs, _ = env.reset()
        rng = np.random.default_rng(0)
        traj = [obs]
        for _ in range(50):
            obs, rew, term, trunc, _ = env.step(_actions(rng, env.single_action_space, 6))
            traj += [obs, rew, term, trunc]
        results.append(traj)
        env.close()
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_bad_state_and_kwargs():
    env = envpool.make("HalfCheetah-v5", num_envs=1)
    env.reset()
    with pytest.raises(ValueError, match="nq \\+ nv"):
        env.set_state(0, [0.0, 1.0])
    full = env.get_state(0)
    env.set_state(0, full)  # the full state is accepted as well
    np.testing.assert_array_equal(env.get_state(0), full)
    env.close()
    with pytest.raises(ValueError, match="does not exist"):
        envpool.make("HalfCheetah-v5", num_envs=1, xml_file="no_such_model.xml")


def test_missing_library_is_reported():
    """Without libmujoco a MuJoCo task says what to install (the other tasks still work)."""
    code = (
        "import envpool\n"
        "envpool.make('CartPole-v1', num_envs=1).close()\n"
        "try:\n"
        "    envpool.make('HalfCheetah-v5', num_envs=1)\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    env = dict(os.environ, ENVPOOL_MUJOCO_LIB="/nonexistent/libmujoco.so")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "pip install envpool-ng[mujoco]" in out.stdout, out.stdout


def test_settotalmass_deprecation_is_not_printed_other_warnings_are():
    """gymnasium's half_cheetah.xml sets <compiler settotalmass>, which MuJoCo 4 calls deprecated
    at every compile; users cannot act on it, so neither make nor `envpool info` prints it.
    MuJoCo's other warnings still reach stderr (here: an unstable state)."""
    code = (
        "import envpool, numpy as np\n"
        "envs = envpool.make('HalfCheetah-v5', num_envs=1)\n"
        "envs.reset()\n"
        "envs.set_state(0, np.full(envs.get_state(0).shape, 1e300))\n"
        "envs.step(np.zeros((1, 6), np.float32))\n"
    )
    made = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    assert "settotalmass" not in made.stderr + made.stdout
    assert "MuJoCo warning: Nan, Inf or huge value" in made.stderr
    info = subprocess.run(
        [sys.executable, "-m", "envpool", "info", "HalfCheetah-v5"], capture_output=True, text=True, timeout=60
    )
    assert info.returncode == 0, info.stderr
    assert "settotalmass" not in info.stderr + info.stdout


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler to build stand-in libraries")
def test_library_version_range(tmp_path):
    """The loader accepts exactly the MuJoCo releases whose ABI matches the headers (4.0.0-4.0.1).

    Stand-in libraries that only export mj_version: an accepted version gets past the version
    check (and then misses mj_loadXML); others are refused with the version spelled out."""
    libs = {}
    for version in (3017000, 4000000, 4000001, 4000002, 4001000):
        src = tmp_path / f"v{version}.c"
        src.write_text(f"int mj_version(void) {{ return {version}; }}\n")
        libs[version] = tmp_path / f"libmujoco.so.{version}"
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(libs[version]), str(src)], check=True)
    code = (
        "import json, os, sys, envpool\n"
        "out = {}\n"
        "for v, path in json.loads(sys.argv[1]).items():\n"
        "    os.environ['ENVPOOL_MUJOCO_LIB'] = path\n"
        "    try:\n"
        "        envpool.make('HalfCheetah-v5', num_envs=1)\n"
        "        out[v] = 'made'\n"
        "    except RuntimeError as e:\n"
        "        out[v] = str(e)\n"
        "print(json.dumps(out))\n"
    )
    arg = json.dumps({str(v): str(p) for v, p in libs.items()})
    run = subprocess.run([sys.executable, "-c", code, arg], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    errors = json.loads(run.stdout.splitlines()[-1])
    for version in (4000000, 4000001):
        assert "has no symbol mj_loadXML" in errors[str(version)], errors[str(version)]
    for version, name in ((3017000, "3.17.0"), (4000002, "4.0.2"), (4001000, "4.1.0")):
        msg = errors[str(version)]
        assert f"is MuJoCo {name};" in msg and "MuJoCo 4.0.0 to 4.0.1" in msg, msg
        assert 'pip install "mujoco-core>=4.0.0,<=4.0.1"' in msg, msg
