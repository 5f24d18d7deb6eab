"""Bit-exact fidelity of the native classic-control envs against gymnasium's implementations
(Pendulum-v0: gym 0.20's step on gymnasium's PendulumEnv, oracle.py).

For the same state and action, envpool and gymnasium's ``env.unwrapped`` must give the same
observation (float32, bit for bit), the same float64 reward, the same ``terminated`` and the
same next internal state (float64, bit for bit). States are drawn around the termination
thresholds and the velocity / torque limits so that clipping and terminal transitions are
well covered; continuous actions include out-of-box and boundary values.

Two kinds of comparison:
  * fresh: every compared step starts from a newly drawn state, set in both implementations;
  * rollout: states are set once and both sides keep stepping, so the state gymnasium builds
    itself is used too (MountainCarContinuous stores a float32 array after a step but a float64
    one after reset / set_state, and the arithmetic differs between the two).

Assumption on the pool: ``set_state`` on an env whose episode just ended (terminated or
truncated) makes it a live env in that state again, i.e. it clears the pending next-step
autoreset, so the next ``step`` starts from the given state and uses its action.
"""

from __future__ import annotations

import zlib

import gymnasium as gym
import numpy as np
import pytest

import envpool

from .oracle import make_pendulum_v0

NUM_ENVS = 16
FRESH_ROUNDS = 400  # x NUM_ENVS transitions from fresh states per task
ROLLOUT_STEPS = 300  # x NUM_ENVS transitions in rollouts per task

PI = np.pi


# -- state / action samplers --------------------------------------------------------------------


def _mix(rng: np.random.Generator, *choices: np.ndarray) -> np.ndarray:
    """Element-wise pick among equally likely candidate arrays."""
    pick = rng.integers(len(choices), size=len(choices[0]))
    return np.choose(pick, choices)


def _near(rng: np.random.Generator, n: int, centers, width: float) -> np.ndarray:
    """Values within ``width`` of one of ``centers``; a quarter of them one ulp off a center."""
    c = rng.choice(np.asarray(centers, dtype=np.float64), size=n)
    out = c + rng.uniform(-width, width, size=n)
    ulp = rng.random(n) < 0.25
    out[ulp] = np.nextafter(c[ulp], np.where(rng.random(ulp.sum()) < 0.5, -np.inf, np.inf))
    return out


def _cartpole_states(rng, n):
    x = _mix(rng, rng.uniform(-2.6, 2.6, n), _near(rng, n, [-2.4, 2.4], 0.05))
    theta_thr = 12 * 2 * PI / 360
    theta = _mix(rng, rng.uniform(-0.25, 0.25, n), _near(rng, n, [-theta_thr, theta_thr], 0.01))
    return np.stack([x, rng.uniform(-3, 3, n), theta, rng.uniform(-3, 3, n)], axis=1)


def _pendulum_states(rng, n):
    th = _mix(
        rng, rng.uniform(-3 * PI, 3 * PI, n), _near(rng, n, [-PI, PI, 0.0, 3 * PI], 1e-6), rng.uniform(-PI, PI, n)
    )
    thdot = _mix(rng, rng.uniform(-10, 10, n), _near(rng, n, [-8.0, 8.0], 0.4), rng.uniform(-1, 1, n))
    return np.stack([th, thdot], axis=1)


def _mountain_car_states(goal_position):
    def sample(rng, n):
        pos = _mix(
            rng,
            rng.uniform(-1.25, 0.65, n),
            _near(rng, n, [-1.2, 0.6, goal_position], 0.06),
            _near(rng, n, [-1.2], 1e-3),
        )
        vel = _mix(rng, rng.uniform(-0.08, 0.08, n), _near(rng, n, [-0.07, 0.07, 0.0], 0.004), np.zeros(n))
        return np.stack([pos, vel], axis=1)

    return sample


def _acrobot_states(rng, n):
    # Half of the states near the top, where -cos(t1) - cos(t1 + t2) > 1 ends the episode; the
    # angles go past +-pi so that wrap() is exercised.
    top = rng.random(n) < 0.5
    t1 = np.where(top, rng.choice([-PI, PI], size=n) + rng.uniform(-1.2, 1.2, n), rng.uniform(-4.5, 4.5, n))
    t2 = np.where(top, rng.uniform(-1.5, 1.5, n), rng.uniform(-4.5, 4.5, n))
    d1 = _mix(rng, rng.uniform(-14, 14, n), _near(rng, n, [-4 * PI, 4 * PI], 1.0), rng.uniform(-1, 1, n))
    d2 = _mix(rng, rng.uniform(-31, 31, n), _near(rng, n, [-9 * PI, 9 * PI], 2.0), rng.uniform(-1, 1, n))
    return np.stack([t1, t2, d1, d2], axis=1)


def _discrete_actions(num):
    def sample(rng, n):
        return rng.integers(num, size=n).astype(np.int64)

    return sample


def _box_actions(limit):
    def sample(rng, n):
        special = np.array([-limit, limit, 0.0, -0.0, 1e30, -1e30], dtype=np.float32)
        edge = rng.choice(special[:2], size=n)
        a = _mix(
            rng,
            rng.uniform(-limit, limit, n).astype(np.float32),
            rng.uniform(-1.6 * limit, 1.6 * limit, n).astype(np.float32),
            np.nextafter(edge, np.where(rng.random(n) < 0.5, -np.inf, np.inf).astype(np.float32)),
            rng.choice(special, size=n),
        )
        return a.astype(np.float32).reshape(n, 1)

    return sample


# (task id, kwargs, state sampler, action sampler, can terminate)
CASES = [
    ("CartPole-v0", {}, _cartpole_states, _discrete_actions(2), True),
    ("CartPole-v1", {}, _cartpole_states, _discrete_actions(2), True),
    ("CartPole-v1", {"sutton_barto_reward": True}, _cartpole_states, _discrete_actions(2), True),
    ("Pendulum-v0", {}, _pendulum_states, _box_actions(2.0), False),
    ("Pendulum-v0", {"g": 9.81}, _pendulum_states, _box_actions(2.0), False),
    ("Pendulum-v1", {}, _pendulum_states, _box_actions(2.0), False),
    ("Pendulum-v1", {"g": 9.81}, _pendulum_states, _box_actions(2.0), False),
    ("MountainCar-v0", {}, _mountain_car_states(0.5), _discrete_actions(3), True),
    ("MountainCar-v0", {"goal_velocity": 0.01}, _mountain_car_states(0.5), _discrete_actions(3), True),
    ("MountainCarContinuous-v0", {}, _mountain_car_states(0.45), _box_actions(1.0), True),
    ("MountainCarContinuous-v0", {"goal_velocity": 0.013}, _mountain_car_states(0.45), _box_actions(1.0), True),
    ("Acrobot-v1", {}, _acrobot_states, _discrete_actions(3), True),
]
CASE_IDS = [task + "".join(f"-{k}={v}" for k, v in kw.items()) for task, kw, *_ in CASES]
TASKS = sorted({task for task, *_ in CASES})


# -- helpers ------------------------------------------------------------------------------------


def _seed(*parts) -> int:
    """A seed that is stable across processes (str hashes are not)."""
    return zlib.crc32(repr(parts).encode())


def _make_ref(task, **kwargs):
    """gymnasium's env of ``task``; Pendulum-v0 (which gymnasium no longer has): oracle.py's."""
    return make_pendulum_v0(**kwargs) if task == "Pendulum-v0" else gym.make(task, **kwargs)


def _make_refs(task, kwargs):
    refs = []
    for i in range(NUM_ENVS):
        ref = _make_ref(task, **kwargs).unwrapped
        ref.reset(seed=i)
        refs.append(ref)
    return refs


def _set_state(env, refs, i, state):
    env.set_state(i, state)
    refs[i].state = np.array(state, dtype=np.float64)
    if hasattr(refs[i], "steps_beyond_terminated"):
        # CartPole's hidden counter: our set_state starts it afresh (see cartpole.h).
        refs[i].steps_beyond_terminated = None


def _bits(x, dtype):
    """The raw bits of ``x`` as ``dtype``, so that the comparison is bit for bit (-0.0 != 0.0)."""
    x = np.ascontiguousarray(x, dtype=dtype)
    return x.view(np.uint32 if x.itemsize == 4 else np.uint64)


def _compare_step(env, refs, actions, context):
    """Step both sides with ``actions`` (row i for env i), assert bit-exact agreement and
    return our (terminated, truncated) by env id."""
    obs, rew, term, trunc, info = env.step(actions)
    assert rew.dtype == np.float64
    env_ids = list(range(NUM_ENVS))  # a full batch: row i is env i
    ref_obs, ref_rew, ref_term, ours_state, ref_state = [], [], [], [], []
    for i in env_ids:
        ref = refs[i]
        o, r, t, _, _ = ref.step(actions[i] if actions.ndim == 2 else int(actions[i]))
        ref_obs.append(o)
        ref_rew.append(r)
        ref_term.append(bool(t))
        ours_state.append(env.get_state(i))
        ref_state.append(np.asarray(ref.state, dtype=np.float64))
    checks = [
        ("obs", obs, np.asarray(ref_obs), np.float32),
        ("reward", rew, np.asarray(ref_rew, dtype=np.float64), np.float64),
        ("terminated", np.asarray(term, dtype=bool), np.asarray(ref_term), bool),
        ("next state", np.asarray(ours_state), np.asarray(ref_state), np.float64),
    ]
    for name, ours, ref, dtype in checks:
        same = _bits(ours, dtype) == _bits(ref, dtype) if dtype is not bool else ours == ref
        same = same.reshape(len(env_ids), -1).all(axis=1)
        if not same.all():
            row = int(np.flatnonzero(~same)[0])
            i = env_ids[row]
            raise AssertionError(
                f"{name} differs ({context}, env {i}, action {actions[i]!r}): "
                f"envpool {np.asarray(ours[row]).tolist()!r} vs gymnasium {np.asarray(ref[row]).tolist()!r}"
            )
    order = np.argsort(env_ids)  # flags indexed by env id
    return np.asarray(term)[order], np.asarray(trunc)[order]


# -- tests --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("task", "kwargs", "states", "actions", "can_terminate"), CASES, ids=CASE_IDS)
def test_fresh_states_match_gymnasium(task, kwargs, states, actions, can_terminate):
    rng = np.random.default_rng(_seed(task, kwargs, "fresh"))
    env = envpool.make(task, num_envs=NUM_ENVS, seed=0, **kwargs)
    refs = _make_refs(task, kwargs)
    env.reset()
    n_term = 0
    for k in range(FRESH_ROUNDS):
        # set_state before every compared step: also revives envs whose episode just ended.
        for i, s in enumerate(states(rng, NUM_ENVS)):
            _set_state(env, refs, i, s)
        term, _ = _compare_step(env, refs, actions(rng, NUM_ENVS), f"{task} {kwargs} round {k}")
        n_term += int(term.sum())
    env.close()
    if can_terminate:
        # The samplers aim at the thresholds: make sure terminal transitions were compared.
        assert n_term >= 0.03 * FRESH_ROUNDS * NUM_ENVS, f"only {n_term} terminal transitions"


@pytest.mark.parametrize(("task", "kwargs", "states", "actions", "can_terminate"), CASES, ids=CASE_IDS)
def test_rollouts_match_gymnasium(task, kwargs, states, actions, can_terminate):
    rng = np.random.default_rng(_seed(task, kwargs, "rollout"))
    env = envpool.make(task, num_envs=NUM_ENVS, seed=0, **kwargs)
    refs = _make_refs(task, kwargs)
    env.reset()
    for i, s in enumerate(states(rng, NUM_ENVS)):
        _set_state(env, refs, i, s)
    for k in range(ROLLOUT_STEPS):
        term, trunc = _compare_step(env, refs, actions(rng, NUM_ENVS), f"{task} {kwargs} rollout step {k}")
        # Envs whose episode ended continue from a fresh state on both sides.
        for i in np.flatnonzero(term | trunc):
            _set_state(env, refs, int(i), states(rng, 1)[0])
    env.close()


def _steady_action(task, obs):
    """Actions that keep an episode alive from reset to the time limit."""
    if task.startswith("CartPole"):
        x, x_dot, theta, theta_dot = obs[0]
        return np.array([int(theta + 0.5 * theta_dot + 0.05 * x + 0.1 * x_dot > 0)], dtype=np.int64)
    if task.startswith("Pendulum"):
        return np.zeros((1, 1), dtype=np.float32)
    if task == "MountainCarContinuous-v0":
        return np.zeros((1, 1), dtype=np.float32)
    return np.array([1], dtype=np.int64)  # MountainCar: no push; Acrobot: no torque


@pytest.mark.parametrize("task", TASKS)
def test_time_limit(task):
    max_steps = 200 if task == "Pendulum-v0" else gym.spec(task).max_episode_steps  # gym 0.20: 200 for v0
    env = envpool.make(task, num_envs=1, seed=0)
    obs, _ = env.reset()
    for t in range(1, max_steps + 1):
        env.send(_steady_action(task, obs))  # the async API: its info counts the episode's steps
        obs, rew, term, trunc, info = env.recv()
        assert not term[0], f"{task}: the steady policy terminated at step {t}"
        assert info["elapsed_step"][0] == t
        assert bool(trunc[0]) == (t == max_steps), f"{task}: truncated={trunc[0]} at elapsed_step {t}"
    # Next-step autoreset: this step resets the env and ignores the action.
    env.send(_steady_action(task, obs))
    obs, rew, term, trunc, info = env.recv()
    assert not term[0] and not trunc[0]
    assert rew[0] == 0.0
    assert info["elapsed_step"][0] == 0
    env.close()


def _assert_space_equal(ours, ref, what):
    assert type(ours) is type(ref), f"{what}: {ours!r} vs {ref!r}"
    if isinstance(ref, gym.spaces.Discrete):
        assert (int(ours.n), int(ours.start)) == (int(ref.n), int(ref.start)), f"{what}: {ours!r} vs {ref!r}"
    else:
        assert ours.dtype == ref.dtype, f"{what}: {ours.dtype} vs {ref.dtype}"
        assert ours.shape == ref.shape, f"{what}: {ours.shape} vs {ref.shape}"
        np.testing.assert_array_equal(ours.low, ref.low, err_msg=f"{what} low")
        np.testing.assert_array_equal(ours.high, ref.high, err_msg=f"{what} high")
        assert ours.low.dtype == ref.low.dtype and ours.high.dtype == ref.high.dtype, what


@pytest.mark.parametrize(("task", "kwargs"), [(task, kw) for task, kw, *_ in CASES], ids=CASE_IDS)
def test_spaces_match_gymnasium(task, kwargs):
    env = envpool.make(task, num_envs=2, seed=0, **kwargs)
    ref = _make_ref(task, **kwargs)
    _assert_space_equal(env.single_observation_space, ref.observation_space, f"{task} observation space")
    _assert_space_equal(env.single_action_space, ref.action_space, f"{task} action space")
    env.close()
    ref.close()
