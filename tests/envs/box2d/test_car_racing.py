"""CarRacing-v3 against gymnasium 1.4's CarRacing (pygame-ce 2.5.8 draws its frames).

Ours and gymnasium's env are reset with the same seed (same track, same colours with
domain_randomize) and stepped with the same actions; rewards must be equal in float64 bits,
terminated/truncated and lap_finished equal, and the 96 x 96 observations (and the 600 x 400
render() frames) equal pixel for pixel everywhere except the reward counter: gymnasium prints
the reward with pygame's font (freesansbold.ttf through SDL_ttf), which we do not draw yet. Its
box is named here (TEXT_BOX, in window coordinates) and the differing pixels inside it are
counted and printed; outside it none may differ. A gymnasium step draws a 1000 x 800 frame
(about 25 ms), so the episode prefixes are short.
"""

from __future__ import annotations

import numpy as np
import pytest

import envpool

gym = pytest.importorskip("gymnasium")
pytest.importorskip("pygame", reason="gymnasium's CarRacing (the oracle) needs pygame")
pytest.importorskip("Box2D", reason="gymnasium's Box2D envs (the oracle) need box2d==2.3.10")
if "CarRacing-v3" not in envpool.list_all_envs():  # pragma: no cover
    pytest.skip("envpool was built without CarRacing", allow_module_level=True)

# gymnasium blits the reward text centred at (60, 750) of the 1000 x 800 window (at most
# 99 x 46 pixels): this box holds it with a margin.
TEXT_BOX = (0, 720, 120, 780)  # x0, y0, x1, y1


def _outside_text(shape):
    h, w = shape[:2]
    x0, y0, x1, y1 = TEXT_BOX
    mask = np.ones((h, w), bool)
    rows = slice(int(y0 * h / 800), int(np.ceil(y1 * h / 800)) + 1)
    mask[rows, int(x0 * w / 1000) : int(np.ceil(x1 * w / 1000)) + 1] = False
    return mask


def _compare_frames(frame, expected):
    assert frame.shape == expected.shape and frame.dtype == expected.dtype == np.uint8
    differ = np.any(frame != expected, axis=-1)
    outside = _outside_text(frame.shape)
    assert not np.any(differ & outside), f"{int(np.count_nonzero(differ & outside))} pixels differ outside the text"
    return int(np.count_nonzero(differ))


def _run(kwargs, actions, seed, render_every=0):
    ours = envpool.make("CarRacing-v3", env_type="gymnasium", num_envs=1, seed=seed, render_mode="rgb_array", **kwargs)
    ref = gym.make("CarRacing-v3", render_mode="rgb_array", **kwargs)
    obs, _ = ours.reset()
    expected, _ = ref.reset(seed=seed)
    text_pixels = [_compare_frames(obs[0], expected)]
    ended = None
    for t, action in enumerate(actions):
        obs, rew, term, trunc, info = ours.step(np.asarray(action)[None])
        expected, ref_rew, ref_term, ref_trunc, ref_info = ref.step(action)
        assert np.float64(rew[0]).tobytes() == np.float64(ref_rew).tobytes(), (t, rew[0], ref_rew)
        assert (bool(term[0]), bool(trunc[0])) == (ref_term, ref_trunc), t
        assert bool(info["lap_finished"][0]) == ref_info.get("lap_finished", False), t
        text_pixels.append(_compare_frames(obs[0], expected))
        if render_every and t % render_every == 0:
            text_pixels.append(_compare_frames(ours.render()[0], ref.render()))
        if ref_term or ref_trunc:
            ended = (t, ref_rew, ref_info)
            break
    ours.close()
    ref.close()
    return text_pixels, ended


def _continuous_actions(rng, n):
    a = rng.uniform([-1, 0, 0], [1, 1, 0.3], size=(n, 3)).astype(np.float32)
    a[:15, 1] = 1.0  # get moving: wheels spin, tiles are visited, the car skids
    a[-5:, 2] = 1.0  # hard braking blocks the wheels
    return list(a)


@pytest.mark.parametrize(
    "kwargs",
    [{"continuous": True}, {"continuous": False}, {"continuous": True, "domain_randomize": True}],
    ids=["continuous", "discrete", "domain_randomize"],
)
def test_car_racing_matches_gymnasium(kwargs):
    rng = np.random.default_rng(7)
    if kwargs["continuous"]:
        actions = _continuous_actions(rng, 40)
    else:
        actions = [np.int64(3)] * 12 + [np.int64(a) for a in rng.integers(5, size=28)]
    text_pixels, ended = _run(kwargs, actions, seed=11, render_every=13)
    assert ended is None  # the prefix is mid-episode
    print(f"{kwargs}: differing pixels, all in the reward text: max {max(text_pixels)} per frame")


def test_car_racing_lap_completion():
    # With lap_complete_percent=0, the start tile (index 0, under the car at reset) completes
    # the lap as soon as it is counted: the first step terminates with lap_finished.
    text_pixels, ended = _run({"lap_complete_percent": 0.0}, [np.zeros(3, np.float32)] * 3, seed=3)
    assert ended is not None and ended[0] == 0 and ended[2]["lap_finished"] is True


def test_car_racing_spaces():
    env = envpool.make("CarRacing-v3", env_type="gymnasium", num_envs=2, continuous=False)
    ref = gym.make("CarRacing-v3", continuous=False)
    assert env.single_action_space.n == ref.action_space.n == 5
    assert env.single_observation_space.shape == ref.observation_space.shape == (96, 96, 3)
    env.close()
    cont = envpool.make("CarRacing-v3", env_type="gymnasium", num_envs=1)
    ref = gym.make("CarRacing-v3")
    np.testing.assert_array_equal(cont.single_action_space.low, ref.action_space.low)
    np.testing.assert_array_equal(cont.single_action_space.high, ref.action_space.high)
    cont.close()
