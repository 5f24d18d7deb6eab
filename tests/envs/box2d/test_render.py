"""render_mode="rgb_array" on BipedalWalker and LunarLander: frames drawn in C++ (cpp/render/canvas.h) against
gymnasium's pygame renderer.

Both sides are reset with the same seed and stepped with the same actions (their trajectories
are bit for bit the same: test_box2d.py), and rendered at the same steps (render() also
advances the lidar line both draw). The frames are compared coarsely, as the classic-control
frames are (tests/envs/classic_control/test_render.py): same shape, then the mean absolute
difference of 10 x 10 block means (0..255 scale) must stay below THRESHOLD; a frame of another
scene (another seed: other clouds and terrain) must exceed it, so that the comparison can fail.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envpool

from ..classic_control.test_render import block_mad
from ..frames import pair

pytest.importorskip("pygame", reason="gymnasium's renderers (the oracle) need pygame")
pytest.importorskip("Box2D", reason="gymnasium's Box2D envs (the oracle) need box2d==2.3.10")
if "BipedalWalker-v3" not in envpool.list_all_envs():  # pragma: no cover
    pytest.skip("envpool was built without the Box2D tasks", allow_module_level=True)

# Mean |block mean difference|, 10 x 10 blocks, 0..255 scale. Measured (2026-11-27, pygame-ce
# 2.5.8): the same state at most 0.024 (BipedalWalker-v3) and 0.022 (hardcore) over 60 steps,
# the differences being the anti-aliased edges (about 900 of 240,000 pixels); LunarLander 0.0009
# over heuristic episodes (at most about 270 pixels, nearly all off by 1 in the lander's
# anti-aliased outline); another seed's
# scene 7.0 and 16.6. Four times the largest same-state value.
THRESHOLD = 0.1


@pytest.mark.parametrize("task", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_walker_frames_match_gymnasium(task):
    ours, ref = pair(task)
    rng = np.random.default_rng(0)
    same = []
    for _ in range(60):
        action = rng.uniform(-0.5, 0.5, size=4).astype(np.float32)
        ours.step(action[None])
        _, _, term, trunc, _ = ref.step(action)
        assert not (term or trunc), "the comparison needs one episode"
        frame, expected = ours.render()[0], ref.render()
        assert frame.shape == expected.shape == (400, 600, 3)
        same.append(block_mad(frame, expected))
    # Another seed's scene (its clouds, its terrain past the start pad) must look different.
    other = gym.make(task, render_mode="rgb_array")
    other.reset(seed=1)
    other.step(np.zeros(4, np.float32))
    different = block_mad(ours.render()[0], other.render())
    print(f"{task}: same state max {max(same):.3f} mean {np.mean(same):.3f}; another seed {different:.3f}")
    assert max(same) < THRESHOLD
    assert different > THRESHOLD
    for env in (ours, ref, other):
        env.close()


def _differing_pixels(frame, expected):
    return int(np.count_nonzero(np.any(frame != expected, axis=-1)))


# pygame-ce's filled circle of radius 2 (a flame particle): rows dy, columns dx0..dx1.
_PARTICLE_ROWS = {-2: (-1, 0), -1: (-2, 1), 0: (-2, 1), 1: (-1, 0)}


def _particle_pixels(frame, expected, particles):
    """(compared, differing) over the pixels of gymnasium's particles that nothing drawn later
    (the lander's anti-aliased edges, another particle) touches in its frame: those must match
    exactly, which the coarse block measure could not see (a particle is 12 pixels)."""
    compared = differing = 0
    for p in particles:
        cx, cy = int(p.position[0] * 30), int(p.position[1] * 30)
        ys, xs = [], []
        for dy, (dx0, dx1) in _PARTICLE_ROWS.items():
            for x in range(cx + dx0, cx + dx1 + 1):
                y = 399 - (cy + dy)  # gymnasium flips the surface
                if 0 <= y < 400 and 0 <= x < 600:
                    ys.append(y)
                    xs.append(x)
        if ys and np.all(expected[ys, xs] == np.array(p.color1, np.uint8)):
            compared += len(ys)
            differing += int(np.count_nonzero(np.any(frame[ys, xs] != expected[ys, xs], axis=-1)))
    return compared, differing


@pytest.mark.parametrize("task", ["LunarLander-v3", "LunarLanderContinuous-v3"])
def test_lander_frames_and_trajectory_match_gymnasium(task):
    """A whole heuristic-pilot episode (both engines fire, flame particles fly and land) with
    render_mode set on both sides: the trajectories equal gymnasium's with render_mode (whose
    particles share the lander's world), and the frames, particles included, match. Frames are
    rendered at irregular steps (two of every three) because particles age only when rendered
    and ours are replayed at render time."""
    from gymnasium.envs.box2d.lunar_lander import heuristic

    ours, ref = pair(task)
    obs, _ = ref.reset(seed=0)  # the same state again, for its observation
    same, differing, steps, particles, particle_pixels = [], [], 0, 0, np.zeros(2, int)
    while True:
        action = heuristic(ref.unwrapped, obs)
        if "Continuous" in task:
            action = np.asarray(action, np.float32)
        ours_obs, ours_rew, ours_term, ours_trunc, _ = ours.step(np.asarray(action)[None])
        obs, rew, term, trunc, _ = ref.step(action)
        steps += 1
        np.testing.assert_array_equal(ours_obs[0], obs)
        assert (ours_rew[0], ours_term[0], ours_trunc[0]) == (rew, term, trunc)
        if term or trunc:
            break
        if steps % 3 != 1:
            frame, expected = ours.render()[0], ref.render()
            assert frame.shape == expected.shape == (400, 600, 3)
            same.append(block_mad(frame, expected))
            differing.append(_differing_pixels(frame, expected))
            particles = max(particles, len(ref.unwrapped.particles))
            particle_pixels += _particle_pixels(frame, expected, ref.unwrapped.particles)
    assert steps > 100 and particles > 3, "the episode must fly with the engines firing"
    other = gym.make(task, render_mode="rgb_array")
    other.reset(seed=1)
    different = block_mad(ref.render(), other.render())
    print(
        f"{task}: {steps} steps, same state max {max(same):.4f}, differing pixels max {max(differing)} "
        f"total {sum(differing)}; particle pixels {particle_pixels[0]}, differing {particle_pixels[1]}; "
        f"another seed {different:.3f}"
    )
    assert particle_pixels[0] > 1000 and particle_pixels[1] == 0
    assert max(same) < THRESHOLD
    assert max(differing) < 1000  # measured at most about 270 (anti-aliasing off by one level)
    assert different > THRESHOLD
    for env in (ours, ref, other):
        env.close()
