"""dm_control's suite tasks against dm_control itself (dm-control 1.0.50, same libmujoco).

One test per task, a whole short run in both implementations, compared to the last bit:
  * seeds: our env 0 of a pool made with ``seed=s`` is dm_control's task with ``random=s``:
    the first observations of two episodes (initial randomization, drawn from numpy's legacy
    RandomState in both), then 20 steps of random actions from there;
  * states: dm_control's physics is pushed to a new state, which is copied into ours
    (``set_state`` with dm_control's ``physics.get_state()`` plus MuJoCo's solver warm start
    and time); from there 30 steps: observations, rewards, discounts and step types equal.
"""

from __future__ import annotations

import subprocess
import sys
import zlib

import numpy as np
import pytest

import envpool

from .oracle import load_suite

# (domain, task) as dm_control names them; our id is the reference EnvPool's.
CASES = [
    ("acrobot", "swingup"),
    ("acrobot", "swingup_sparse"),
    ("ball_in_cup", "catch"),
    ("cartpole", "balance"),
    ("cartpole", "balance_sparse"),
    ("cartpole", "swingup"),
    ("cartpole", "swingup_sparse"),
    ("cartpole", "two_poles"),
    ("cartpole", "three_poles"),
    ("cheetah", "run"),
    ("finger", "spin"),
    ("finger", "turn_easy"),
    ("finger", "turn_hard"),
    ("hopper", "stand"),
    ("hopper", "hop"),
    ("pendulum", "swingup"),
    ("point_mass", "easy"),
    ("point_mass", "hard"),
    ("reacher", "easy"),
    ("reacher", "hard"),
    ("walker", "stand"),
    ("walker", "walk"),
    ("walker", "run"),
    ("fish", "upright"),
    ("fish", "swim"),
    ("humanoid", "stand"),
    ("humanoid", "walk"),
    ("humanoid", "run"),
    ("humanoid", "run_pure_state"),
    ("lqr", "lqr_2_1"),
    ("lqr", "lqr_6_2"),
    ("manipulator", "bring_ball"),
    ("manipulator", "bring_peg"),
    ("manipulator", "insert_ball"),
    ("manipulator", "insert_peg"),
    ("stacker", "stack_2"),
    ("stacker", "stack_4"),
    ("swimmer", "swimmer6"),
    ("swimmer", "swimmer15"),
    ("quadruped", "walk"),
    ("quadruped", "run"),
    ("quadruped", "fetch"),
    ("quadruped", "escape"),
    ("humanoid_CMU", "stand"),
    ("humanoid_CMU", "walk"),
    ("humanoid_CMU", "run"),
    ("dog", "stand"),
    ("dog", "walk"),
    ("dog", "trot"),
    ("dog", "run"),
    ("dog", "fetch"),
]


def task_id(domain: str, task: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in f"{domain}_{task}".split("_")) + "-v1"


if task_id("cheetah", "run") not in envpool.list_all_envs():  # pragma: no cover
    pytest.skip("envpool was built without the MuJoCo headers", allow_module_level=True)


# Entries dm_control computes with numpy's SIMD loops rather than the C library: quadruped
# escape's rangefinder is np.tanh of an array, which numpy vectorizes with its own polynomial on
# x86-64 (1 ulp from libm's tanh, which ours calls). Every other entry is compared bit for bit.
ULPS = {"rangefinder": 2}


def _check_obs(ours: dict, ref: dict, where: str) -> None:
    assert type(ours) is type(ref) and list(ours) == list(ref), where  # OrderedDict, dm_control's order
    for key, value in ref.items():
        if key in ULPS:
            np.testing.assert_array_max_ulp(ours[key][0], value, maxulp=ULPS[key])
        else:
            np.testing.assert_array_equal(ours[key][0], value, err_msg=f"{where}: {key}")


def _check_step(ts, ref_ts, where: str) -> None:
    _check_obs(ts.observation.obs, ref_ts.observation, where)
    assert ts.reward[0] == ref_ts.reward, where
    assert ts.discount[0] == ref_ts.discount, where
    assert int(ts.step_type[0]) == int(ref_ts.step_type), where


@pytest.mark.parametrize(("domain", "task"), CASES, ids=[task_id(*c) for c in CASES])
def test_matches_dm_control(domain, task):
    suite = load_suite()
    seed = zlib.crc32(f"{domain}/{task}".encode())
    ref = suite.load(domain, task, task_kwargs={"random": seed})
    env = envpool.make(task_id(domain, task), env_type="dm", num_envs=1, seed=seed)
    # dm_control's observation spec: an OrderedDict of specs.Array named by key, in its order
    assert env.observation_spec() == ref.observation_spec()
    assert type(env.observation_spec()) is type(ref.observation_spec())
    spec = ref.action_spec()
    rng = np.random.default_rng(seed)
    physics = ref.physics

    # Mostly inside the box, a few outside it (MuJoCo clamps limited controls); [-1, 1] where
    # the controls are unlimited (lqr: dm_control's bounds are then +-mjMAXVAL).
    np.testing.assert_array_equal(env.action_spec().minimum, spec.minimum)
    np.testing.assert_array_equal(env.action_spec().maximum, spec.maximum)
    unlimited = spec.maximum >= 1e10
    low = np.where(unlimited, -1.0, spec.minimum * 1.2)
    high = np.where(unlimited, 1.0, spec.maximum * 1.2)

    def actions(n):
        return rng.uniform(low, high, size=(n, *spec.shape))

    for episode in range(2):
        _check_obs(env.reset().observation.obs, ref.reset().observation, f"reset {episode}")
        for k, action in enumerate(actions(20 if episode == 0 else 5)):
            _check_step(env.step(action[None]), ref.step(action), f"episode {episode} step {k}")

    # A state our env has not been in: dm_control's, moved, copied into ours.
    state = physics.get_state()
    noise = np.random.default_rng(seed + 1).normal(0.0, 0.05, size=state.shape)
    physics.set_state(state + noise)
    physics.forward()
    env.set_state(0, physics.get_state())  # dm_control's own layout (qpos, qvel, act) is accepted
    nq, nv, na = physics.model.nq, physics.model.nv, physics.model.na
    np.testing.assert_array_equal(env.get_state(0)[: nq + nv + na], physics.get_state())
    full = np.concatenate([physics.get_state(), physics.data.qacc_warmstart, [physics.data.time]])
    env.set_state(0, full)
    np.testing.assert_array_equal(env.get_state(0), full)
    for k, action in enumerate(actions(30)):
        _check_step(env.step(action[None]), ref.step(action), f"after set_state, step {k}")
    env.close()


def test_time_limit_and_kwargs_as_dm_control():
    """time_limit, control_timestep and flat_observation as dm_control's task and environment
    kwargs: the same step at which the episode ends (LAST, discount 1), the same flat vector."""
    suite = load_suite()
    kwargs = {"time_limit": 0.3, "control_timestep": 0.05}
    ref = suite.load(
        "cheetah",
        "run",
        task_kwargs={"random": 5, "time_limit": 0.3},
        environment_kwargs={"control_timestep": 0.05, "flat_observation": True},
    )
    env = envpool.make("CheetahRun-v1", env_type="dm", num_envs=1, seed=5, flat_observation=True, **kwargs)
    assert env.observation_spec() == ref.observation_spec()  # OrderedDict(observations=Array(...)), dm_control's
    ts, ref_ts = env.reset(), ref.reset()
    assert list(ts.observation.obs) == ["observations"]
    np.testing.assert_array_equal(ts.observation.obs["observations"][0], ref_ts.observation["observations"])
    rng = np.random.default_rng(0)
    while not ref_ts.last():
        action = rng.uniform(-1, 1, size=6)
        ts, ref_ts = env.step(action[None]), ref.step(action)
        np.testing.assert_array_equal(ts.observation.obs["observations"][0], ref_ts.observation["observations"])
        ours = (ts.reward[0], ts.discount[0], int(ts.step_type[0]))
        assert ours == (ref_ts.reward, ref_ts.discount, int(ref_ts.step_type))
    assert int(ts.step_type[0]) == 2 and int(ts.observation.elapsed_step[0]) == 6  # 0.3 s / 0.05 s
    env.close()


def test_bad_kwargs_raise():
    load_suite()  # our tasks read dm_control's XML files: skipped without it, as the rest
    with pytest.raises(ValueError, match="Both n_sub_steps and control_timestep"):
        envpool.make("CheetahRun-v1", num_envs=1, n_sub_steps=2, control_timestep=0.02)
    with pytest.raises(ValueError, match="integer multiple"):
        envpool.make("CheetahRun-v1", num_envs=1, control_timestep=0.015)
    with pytest.raises(ValueError, match="has no task 'fly'"):
        envpool.make("CheetahRun-v1", num_envs=1, task_name="fly")


def test_missing_dm_control_names_the_extra():
    """Without dm-control (hidden from importlib in a child process), making a suite task says
    which extra to install; the other MuJoCo tasks are unaffected."""
    pytest.importorskip("mujoco", reason="the MuJoCo tasks need mujoco-core")
    pytest.importorskip("gymnasium.envs.mujoco", reason="HalfCheetah-v5 reads gymnasium's model files")
    code = """
import importlib.abc, sys
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "dm_control":
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, Hide())
import envpool
try:
    envpool.make("CheetahRun-v1", num_envs=1)
except RuntimeError as exc:
    print("ERROR", exc)
envpool.make("HalfCheetah-v5", num_envs=1).close()
print("gym ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ERROR" in out.stdout and "envpool-ng[dmc]" in out.stdout, out.stdout
    assert "gym ok" in out.stdout


@pytest.mark.parametrize("flat", [False, True])
def test_frame_stack(flat):
    """frame_stack=k (the reference EnvPool's): each entry holds its last k values, oldest first,
    all k the first observation after a reset; equal to the unstacked stream of the same seed."""
    load_suite()
    kwargs = {"flat_observation": flat, "time_limit": 0.1}  # 4 steps per episode (walker: 0.025 s a step)
    plain = envpool.make("WalkerWalk-v1", env_type="dm", num_envs=1, seed=2, **kwargs)
    stacked = envpool.make("WalkerWalk-v1", env_type="dm", num_envs=1, seed=2, frame_stack=3, **kwargs)
    keys = list(plain.observation_spec())  # flat: ["observations"]
    history = []
    rng = np.random.default_rng(0)
    ts, st = plain.reset(), stacked.reset()
    for k in range(10):  # across an episode's end (LAST, then a reset on the next step)
        obs = ts.observation.obs
        frame = {key: obs[key][0] for key in keys}
        history = [frame] * 3 if int(ts.step_type[0]) == 0 else [*history[1:], frame]
        got = {key: st.observation.obs[key][0] for key in keys}
        for key in frame:
            np.testing.assert_array_equal(got[key], np.stack([h[key] for h in history]), err_msg=f"{k} {key}")
        action = rng.uniform(-1, 1, size=(1, 6))
        ts, st = plain.step(action), stacked.step(action)
    plain.close()
    stacked.close()


def _stream(env, steps, async_batches=False):
    """Each env's observations over `steps` steps of the actions a function of (env, step)
    gives, stepped in full batches or in an async loop of half batches: {env: [obs, ...]}."""
    n = env.num_envs
    counts = np.zeros(n, dtype=int)
    seen = {i: [] for i in range(n)}

    def action(i):
        return np.sin(np.arange(6) + 0.7 * counts[i] + 1.3 * i)

    if not async_batches:
        env.reset()
        for _ in range(steps):
            obs, _, _, _, info = env.step(np.stack([action(i) for i in range(n)]))
            for row, i in enumerate(info["env_id"]):
                seen[int(i)].append(np.concatenate([obs["position"][row], obs["velocity"][row]]))
                counts[i] += 1
        return seen
    env.async_reset()
    while min(counts) < steps:
        obs, _, _, _, info = env.recv()
        ids = info["env_id"]
        for row, i in enumerate(ids):
            if info["elapsed_step"][row] > 0 and counts[i] < steps:  # not the reset's first obs
                seen[int(i)].append(np.concatenate([obs["position"][row], obs["velocity"][row]]))
                counts[i] += 1
        env.send(np.stack([action(int(i)) for i in ids]), ids)
    return seen


def test_autoreset_modes_and_async_loop():
    """The gymnasium front end over a suite task: dm_control's time limit is a truncation;
    same_step's final_obs is next_step's last observation and its reset observation next_step's
    step after; autoreset disabled refuses the ended env; an async loop of half batches gives
    every env the observations a full batch gives it."""
    load_suite()
    kwargs = {"num_envs": 4, "seed": 3, "time_limit": 0.3, "control_timestep": 0.05}
    nxt = envpool.make("CheetahRun-v1", **kwargs)
    same = envpool.make("CheetahRun-v1", autoreset_mode="same_step", **kwargs)
    off = envpool.make("CheetahRun-v1", autoreset_mode="disabled", **kwargs)
    actions = np.full((4, 6), 0.3)
    for env in (nxt, same, off):
        env.reset()
    for t in range(6):
        n_obs, _, n_term, n_trunc, _ = nxt.step(actions)
        s_obs, _, s_term, s_trunc, s_info = same.step(actions)
        _, _, o_term, o_trunc, _ = off.step(actions)
        ended = t == 5
        assert not n_term.any() and not s_term.any() and not o_term.any()
        assert n_trunc.all() == ended and s_trunc.all() == ended and o_trunc.all() == ended
    for key in ("position", "velocity"):
        np.testing.assert_array_equal(np.stack([f[key] for f in s_info["final_obs"]]), n_obs[key])
    n_obs, _, _, n_trunc, n_info = nxt.step(actions)  # next_step: the reset's observation
    assert not n_trunc.any() and (n_info["elapsed_step"] == 0).all()
    for key in ("position", "velocity"):
        np.testing.assert_array_equal(s_obs[key], n_obs[key])
    with pytest.raises(RuntimeError, match="episode is over"):
        off.step(actions)
    for env in (nxt, same, off):
        env.close()
    full = envpool.make("CheetahRun-v1", num_envs=4, seed=3)
    half = envpool.make("CheetahRun-v1", num_envs=4, batch_size=2, seed=3)
    ref, got = _stream(full, 8), _stream(half, 8, async_batches=True)
    for i in range(4):
        np.testing.assert_array_equal(np.stack(got[i]), np.stack(ref[i]))
    full.close()
    half.close()
