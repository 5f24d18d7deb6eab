"""render_mode="rgb_array" on BipedalWalker: frames drawn in C++ (cpp/render/canvas.h) against
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
# the differences being the anti-aliased edges (about 900 of 240,000 pixels); another seed's
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
