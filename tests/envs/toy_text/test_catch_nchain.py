"""Catch-v0 (bsuite's Catch) and NChain-v0 (gym 0.19's NChain), the reference EnvPool's two
toy-text tasks that gymnasium does not have, against their oracles (old_oracles.py): whole seeded
episodes in every autoreset mode, bit for bit; Catch's dm front end against bsuite's own
TimeSteps; every transition from set states; NChain's slips by their distribution; spaces, time
limits, kwargs, frames and every front end."""

from __future__ import annotations

import numpy as np
import pytest
from support.front_end_runs import assert_front_ends_agree
from support.seeded_oracle import MODES, compare_seeded_runs

import envpool

from .old_oracles import BsuiteCatch, NChainV0, make_nchain_v0
from .oracle import Z_BOUND

catch_module = pytest.importorskip("bsuite.environments.catch", reason="Catch-v0's oracle is bsuite's Catch")


# -- Catch ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize(("kwargs", "size"), [({}, (10, 5)), ({"height": 6, "width": 9}, (6, 9))], ids=["10x5", "6x9"])
def test_catch_seeded_episodes_match_bsuite(mode, kwargs, size):
    """Env i of a pool seeded with s is bsuite's Catch(seed=s + i): the same ball columns episode
    after episode, and the same observations, rewards and terminations (no time limit)."""
    ends = compare_seeded_runs("Catch-v0", lambda: BsuiteCatch(*size), mode, 300, **kwargs)
    assert (ends >= 20).all(), ends.tolist()


def test_catch_dm_front_end_is_bsuites_timesteps():
    """env_type="dm" against bsuite's own dm_env TimeSteps: step types, rewards and discounts
    (0 at the end, as bsuite's termination), observations; 40 episodes, random actions."""
    pytest.importorskip("dm_env")
    ours = envpool.make("Catch-v0", env_type="dm", num_envs=1, seed=11)
    ref = catch_module.Catch(seed=11)
    rng = np.random.default_rng(0)
    try:
        ts, want = ours.reset(), ref.reset()
        for t in range(40 * 10):
            assert int(ts.step_type[0]) == int(want.step_type), t
            np.testing.assert_array_equal(ts.observation.obs[0], want.observation)
            if not want.first():
                assert ts.reward[0] == want.reward and ts.discount[0] == want.discount, t
            action = int(rng.integers(3))
            ts, want = ours.step(np.array([action])), ref.step(action)
    finally:
        ours.close()


def test_catch_every_transition_from_set_states():
    """Every (ball column, ball row, paddle column, action) of the 10 x 5 board, set in both
    (bsuite's _ball_x, _ball_y, _paddle_x): the same observation, reward, termination and state."""
    envs = envpool.make("Catch-v0", num_envs=1, seed=0)
    envs.reset()
    ref = BsuiteCatch()
    ref.reset(seed=0)
    for ball_x in range(5):
        for ball_y in range(9):
            for paddle_x in range(5):
                for action in range(3):
                    envs.set_state(0, [ball_x, ball_y, paddle_x])
                    ref.reset()
                    ref.catch._ball_x, ref.catch._ball_y, ref.catch._paddle_x = ball_x, ball_y, paddle_x
                    obs, rew, term, _, _ = envs.step(np.array([action]))
                    want_obs, want_rew, want_term, _, _ = ref.step(action)
                    context = (ball_x, ball_y, paddle_x, action)
                    np.testing.assert_array_equal(obs[0], want_obs, err_msg=str(context))
                    assert (rew[0], term[0]) == (want_rew, want_term), context
                    if not want_term:
                        c = ref.catch
                        assert envs.get_state(0).tolist() == [c._ball_x, c._ball_y, c._paddle_x], context
    envs.close()


def test_catch_spaces_and_limits_are_bsuites():
    spec = envpool.make_spec("Catch-v0")
    ref = catch_module.Catch()
    obs_spec, action_spec = ref.observation_spec(), ref.action_spec()
    assert spec.observation_space.shape == obs_spec.shape and spec.observation_space.dtype == obs_spec.dtype
    assert (
        spec.observation_space.low.min() == obs_spec.minimum and spec.observation_space.high.max() == obs_spec.maximum
    )
    assert spec.action_space.n == action_spec.num_values == 3
    assert spec.max_episode_steps is None  # bsuite's episodes end by themselves, after height - 1 steps
    assert dict(spec.config) == {"height": 10, "width": 5, "max_episode_steps": None}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"height": 1}, r"Catch: height must be in \[2, 256\] and width in \[1, 256\], got height=1 width=5"),
        ({"width": 0}, r"got height=10 width=0"),
        ({"hieght": 4}, r"unexpected keyword argument 'hieght'.*height"),
    ],
)
def test_catch_bad_kwargs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        envpool.make("Catch-v0", **kwargs)


@pytest.mark.parametrize(
    "state", [[5, 0, 0], [0, 9, 0], [0, 0, -1], [0.5, 0, 0], [0, 0]], ids=["ball_x", "ball_y", "paddle", "int", "size"]
)
def test_catch_bad_states(state):
    envs = envpool.make("Catch-v0", num_envs=1)
    envs.reset()
    with pytest.raises(ValueError, match=r"state"):
        envs.set_state(0, state)
    envs.close()


# -- NChain --------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("kwargs", [{}, {"n": 8, "slip": 0.5, "small": 1.5, "large": 20.0}], ids=["default", "n=8"])
def test_nchain_seeded_episodes_match_gym_0_19(mode, kwargs):
    """gym 0.19's NChain under its 1000-step TimeLimit, from the same seeds: the same states,
    rewards and truncations over 3 whole episodes per env (the run's resets come right after
    each truncation)."""
    ends = compare_seeded_runs("NChain-v0", lambda: make_nchain_v0(**kwargs), mode, 3000, **kwargs)
    assert (ends == 3).all(), ends.tolist()


@pytest.mark.parametrize("slip", [0.2, 0.5, 0.9])
def test_nchain_slips_with_probability_slip(slip):
    """The distribution of the stochastic transition, whatever the generator: from the middle
    state, action 0 moves forward unless the agent slips; the share of slips over 20,000 steps
    is within Z_BOUND binomial standard errors of ``slip``."""
    n, envs_n, rounds = 5, 100, 200
    envs = envpool.make("NChain-v0", num_envs=envs_n, seed=3, slip=slip)
    envs.reset()
    slips = 0
    for _ in range(rounds):
        for i in range(envs_n):
            envs.set_state(i, [2])
        obs, rew, _, _, _ = envs.step(np.zeros(envs_n, dtype=np.int64))
        assert set(obs.tolist()) <= {0, 3} and np.array_equal(rew, np.where(obs == 0, 2.0, 0.0))
        slips += int((obs == 0).sum())
    envs.close()
    total = envs_n * rounds
    assert abs(slips - slip * total) <= Z_BOUND * np.sqrt(total * slip * (1 - slip)), (slips, total, n)


def test_nchain_every_transition_from_set_states():
    """Each state and action, with and without a slip (slip 0 and 1): gym 0.19's formula."""
    for slip in (0.0, 1.0):
        envs = envpool.make("NChain-v0", num_envs=1, slip=slip)
        envs.reset()
        ref = NChainV0(slip=slip)
        ref.reset(seed=0)
        for state in range(5):
            for action in range(2):
                envs.set_state(0, [state])
                ref.state = state
                obs, rew, term, _, _ = envs.step(np.array([action]))
                assert (int(obs[0]), rew[0], bool(term[0])) == ref.step(action)[:3], (slip, state, action)
        envs.close()


def test_nchain_spaces_and_limits():
    spec = envpool.make_spec("NChain-v0")
    ref = NChainV0()
    assert spec.observation_space == ref.observation_space and spec.action_space == ref.action_space
    assert spec.max_episode_steps == 1000  # gym 0.19's registration
    assert dict(spec.config) == {"n": 5, "slip": 0.2, "small": 2.0, "large": 10.0, "max_episode_steps": 1000}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n": 0}, r"NChain: n must be in \[1, 64\], got 0"),
        ({"slip": 1.5}, r"NChain: slip must be in \[0, 1\], got 1.5"),
    ],
)
def test_nchain_bad_kwargs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        envpool.make("NChain-v0", **kwargs)


# -- both ----------------------------------------------------------------------------------------


def test_frames_show_the_state():
    """bsuite and gym 0.19 draw no frames, so ours are our own plain pictures
    (cpp/envs/toy_text/render/): the state read back from them is the env's."""
    cell = 16
    envs = envpool.make("Catch-v0", num_envs=1, render_mode="rgb_array")
    envs.reset()
    for ball_x, ball_y, paddle_x in [(0, 0, 2), (4, 8, 4), (3, 5, 0)]:
        envs.set_state(0, [ball_x, ball_y, paddle_x])
        frame = envs.render()[0]
        assert frame.shape == (160, 80, 3)
        ball = np.argwhere(np.all(frame == [250, 214, 70], axis=-1)) // cell
        paddle = np.argwhere(np.all(frame == [90, 200, 240], axis=-1)) // cell
        assert {tuple(c) for c in ball} == {(ball_y, ball_x)} and {tuple(c) for c in paddle} == {(9, paddle_x)}
    envs.close()
    envs = envpool.make("NChain-v0", num_envs=1, render_mode="rgb_array", n=7)
    envs.reset()
    for state in (0, 3, 6):
        envs.set_state(0, [state])
        frame = envs.render()[0]
        assert frame.shape == (48, 7 * 48, 3)
        lit = np.argwhere(np.all(frame == [232, 120, 60], axis=-1))
        assert set((lit[:, 1] // 48).tolist()) == {state}
    envs.close()


@pytest.mark.usefixtures("without_the_gym_package")  # env_type="gym": the reference's API, gym or not
@pytest.mark.parametrize("task_id", ["Catch-v0", "NChain-v0"])
def test_steps_through_every_front_end(task_id):
    assert_front_ends_agree(task_id, 1010 if task_id == "NChain-v0" else 60)  # past NChain's time limit
