"""render_mode="rgb_array" on the classic-control tasks: frames drawn in C++ against gymnasium's
pygame renderers.

For each task that renders, random states are set both in envpool (``set_state``) and in
gymnasium's env (``env.unwrapped.state``) and the two frames are
compared coarsely: same shape, then both are averaged over 10 x 10 pixel blocks and the mean
absolute difference of the block means (0..255 scale, over all blocks and channels) must stay
below ``THRESHOLD``.

Choosing THRESHOLD (measured over 300 random states per task, gymnasium 1.4 / pygame 2.6):

    task                        same state (max)   visibly different state (min)
    CartPole-v0 / v1            0.001              0.76   (cart moved 0.1 = 12.5 px)
    Pendulum-v1                 0.024              1.13   (rod turned 0.15 rad)
    MountainCar-v0              0.012              0.43   (car moved 0.05 = 17 px)
    MountainCarContinuous-v0    0.012              0.47   (car moved 0.05 = 17 px)
    Acrobot-v1                  0.003              0.51   (second link turned 0.15 rad)

What remains for the same state in classic control is anti-aliasing detail (gfxdraw's
anti-aliased circle, pygame's aaline end points, Pendulum's arrow drawn as a shape instead of a
scaled image). THRESHOLD is twice the largest same-state value, rounded up; each negative case
(a visibly different state compared with gymnasium's frame) must exceed it, so the comparison
can fail. The toy-text frames: tests/envs/toy_text/test_render.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from ..frames import pair

pytest.importorskip("pygame", reason="gymnasium's renderers (the oracle) need pygame")

THRESHOLD = 0.05  # mean |block mean difference|, 10 x 10 blocks, 0..255 scale
BLOCK = 10
NUM_STATES = 20
PI = np.pi


def block_mad(a: np.ndarray, b: np.ndarray, block: int = BLOCK) -> float:
    """Mean absolute difference of two frames averaged over block x block pixel tiles."""
    assert a.shape == b.shape, (a.shape, b.shape)
    h, w = a.shape[0] // block * block, a.shape[1] // block * block

    def tiles(f):
        f = f[:h, :w].astype(np.float64)
        return f.reshape(h // block, block, w // block, block, 3).mean(axis=(1, 3))

    return float(np.abs(tiles(a) - tiles(b)).mean())


# Per task: a random state, and the same state changed by a clearly visible amount.
def _cartpole(rng):
    return np.array([rng.uniform(-2.4, 2.4), rng.uniform(-1, 1), rng.uniform(-0.4, 0.4), rng.uniform(-1, 1)])


def _cartpole_moved(s):
    return s + [0.1 if s[0] < 0 else -0.1, 0, 0, 0]


def _pendulum(rng):
    return np.array([rng.uniform(-PI, PI), rng.uniform(-8, 8)])


def _pendulum_moved(s):
    return s + [0.15, 0]


def _mountain_car(rng):
    return np.array([rng.uniform(-1.2, 0.6), rng.uniform(-0.07, 0.07)])


def _mountain_car_moved(s):
    return s + [0.05 if s[0] < 0 else -0.05, 0]


def _acrobot(rng):
    return np.array([rng.uniform(-PI, PI), rng.uniform(-PI, PI), rng.uniform(-1, 1), rng.uniform(-1, 1)])


def _acrobot_moved(s):
    return s + [0, 0.15, 0, 0]


CASES = {
    "CartPole-v1": (_cartpole, _cartpole_moved),
    "CartPole-v0": (_cartpole, _cartpole_moved),
    "Pendulum-v1": (_pendulum, _pendulum_moved),
    "MountainCar-v0": (_mountain_car, _mountain_car_moved),
    "MountainCarContinuous-v0": (_mountain_car, _mountain_car_moved),
    "Acrobot-v1": (_acrobot, _acrobot_moved),
}


@pytest.mark.parametrize("task", list(CASES))
def test_frames_match_gymnasium(task):
    sample, moved = CASES[task]
    rng = np.random.default_rng(list(CASES).index(task))
    ours, ref = pair(task)
    h, w, _ = ours.task_spec.render_shape
    worst, closest_wrong = 0.0, np.inf
    try:
        for _ in range(NUM_STATES):
            state = sample(rng)
            ref.unwrapped.state = state.copy()
            if task == "Pendulum-v1":
                # The arrow shows the last torque: take one identical step on both sides (the
                # dynamics agree bit for bit, see tests/envs/classic_control/test_classic_control.py).
                u = np.array([rng.uniform(-2, 2)], dtype=np.float32)
                ref.step(u)
            expected = ref.render()
            assert expected.shape == (h, w, 3)

            ours.set_state(0, state)
            if task == "Pendulum-v1":
                ours.step(u[None])
            frame = np.stack(ours.render())
            assert frame.shape == (1, h, w, 3) and frame.dtype == np.uint8
            worst = max(worst, block_mad(frame[0], expected))

            # Negative case: a visibly different state must not pass.
            ours.set_state(0, moved(state))
            if task == "Pendulum-v1":
                ours.step(u[None])
            closest_wrong = min(closest_wrong, block_mad(ours.render()[0], expected))
    finally:
        ours.close()
        ref.close()
    assert worst < THRESHOLD, f"{task}: frame differs from gymnasium's by {worst:.4f} > {THRESHOLD}"
    assert closest_wrong > THRESHOLD, f"{task}: a different state's frame passes ({closest_wrong:.4f})"


def test_pendulum_no_arrow_before_first_step():
    """gymnasium's last_u is None after reset: no torque arrow until the first step."""
    ours, ref = pair("Pendulum-v1")
    try:
        state = np.array([0.7, 0.0])
        ours.set_state(0, state)
        ref.unwrapped.state = state.copy()
        plain = ours.render()[0]
        assert block_mad(plain, ref.render()) < THRESHOLD
        ours.step(np.array([[2.0]], dtype=np.float32))
        ours.set_state(0, state)
        with_arrow = ours.render()[0]
        assert block_mad(with_arrow, plain) > THRESHOLD
        ours.reset()  # a new episode drops the arrow again
        ours.set_state(0, state)
        assert np.array_equal(ours.render()[0], plain)
    finally:
        ours.close()
        ref.close()
