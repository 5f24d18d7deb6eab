"""CarRacing-v3 against gymnasium 1.4's CarRacing (pygame-ce 2.5.8 draws its frames).

Ours and gymnasium's env are reset with the same seed (same track, same colours with
domain_randomize) and stepped with the same actions; rewards must be equal in float64 bits,
terminated/truncated and lap_finished equal, and the 96 x 96 observations (and the 600 x 400
render() frames) equal pixel for pixel, the reward counter included (pygame's font through
SDL_ttf: our glyph table, cpp/envs/box2d/render/car_racing_font.h, is checked against pygame here).
A gymnasium step draws a 1000 x 800 frame (about 25 ms), so the episode prefixes are short.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import envpool

gym = pytest.importorskip("gymnasium")
pytest.importorskip("pygame", reason="gymnasium's CarRacing (the oracle) needs pygame")
pytest.importorskip("Box2D", reason="gymnasium's Box2D envs (the oracle) need box2d==2.3.10")
car_racing = pytest.importorskip("gymnasium.envs.box2d.car_racing")
if "CarRacing-v3" not in envpool.list_all_envs():  # pragma: no cover
    pytest.skip("envpool was built without CarRacing", allow_module_level=True)


# gymnasium 1.1 printed the counter as "%04i" % reward (truncated), 1.4 as f"{reward:04.0f}"
# (rounded; ours). With an older oracle the counter's box (x < 120, 720 <= y < 780 of the
# 1000 x 800 window) is left out of the frame comparison.
ROUNDED_COUNTER = "04.0f" in inspect.getsource(car_racing.CarRacing._render)


def _compare_frames(frame, expected):
    assert frame.shape == expected.shape and frame.dtype == expected.dtype == np.uint8
    if not ROUNDED_COUNTER:
        h, w = frame.shape[:2]
        frame, expected = frame.copy(), expected.copy()
        for image in (frame, expected):
            image[720 * h // 800 : -(-780 * h // 800), : -(-120 * w // 1000)] = 0
    differ = np.argwhere(np.any(frame != expected, axis=-1))
    assert len(differ) == 0, f"{len(differ)} pixels differ, rows/columns {differ.min(0)}..{differ.max(0)}"


def _run(kwargs, actions, seed, render_every=0, unframed=range(0)):
    """Steps both sides; `unframed` steps skip gymnasium's frame (its _render has no side
    effects: the trajectory is the same) and are not compared, to reach far states cheaply."""
    ours = envpool.make("CarRacing-v3", env_type="gymnasium", num_envs=1, seed=seed, render_mode="rgb_array", **kwargs)
    ref = gym.make("CarRacing-v3", render_mode="rgb_array", **kwargs)
    obs, _ = ours.reset()
    expected, _ = ref.reset(seed=seed)
    _compare_frames(obs[0], expected)
    ended = None
    draw = ref.unwrapped._render
    for t, action in enumerate(actions):
        ref.unwrapped._render = (lambda mode: None) if t in unframed else draw
        obs, rew, term, trunc, info = ours.step(np.asarray(action)[None])
        expected, ref_rew, ref_term, ref_trunc, ref_info = ref.step(action)
        assert np.float64(rew[0]).tobytes() == np.float64(ref_rew).tobytes(), (t, rew[0], ref_rew)
        assert (bool(term[0]), bool(trunc[0])) == (ref_term, ref_trunc), t
        assert bool(info["lap_finished"][0]) == ref_info.get("lap_finished", False), t
        if t not in unframed:
            _compare_frames(obs[0], expected)
        if render_every and t % render_every == 0:
            _compare_frames(ours.render()[0], ref.render())
        if ref_term or ref_trunc:
            ended = (t, ref_rew, ref_info)
            break
    ours.close()
    ref.close()
    return ended


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
    assert _run(kwargs, actions, seed=11, render_every=13) is None  # the prefix is mid-episode


def test_car_racing_lap_completion():
    # With lap_complete_percent=0, the start tile (index 0, under the car at reset) completes
    # the lap as soon as it is counted: the first step terminates with lap_finished.
    ended = _run({"lap_complete_percent": 0.0}, [np.zeros(3, np.float32)] * 3, seed=3)
    assert ended is not None and ended[0] == 0 and ended[2]["lap_finished"] is True


def test_car_racing_leaves_the_playfield():
    # Steering right off the start and driving on at half gas crosses x = 2000 / 6 on step 137
    # (seed 3): -100 and the end of the episode, lap_finished False. The frames in between are
    # not drawn on gymnasium's side (only the first and last 10 steps are compared).
    actions = [np.array([0.5 if t < 25 else 0.0, 0.5, 0.0], np.float32) for t in range(160)]
    ended = _run({}, actions, seed=3, unframed=range(10, 128))
    assert ended is not None and ended[0] == 137 and ended[1] == -100 and ended[2]["lap_finished"] is False


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


def test_reward_font_table_is_pygames():
    """The glyphs, advances and kerning in car_racing_font.h are what pygame-ce renders and
    what its font's kern table says (regenerating the header gives the same text), and the
    layout rule of _car_racing_font.py rebuilds pygame's own rendering of reward strings."""
    from pathlib import Path

    import pygame

    from . import _car_racing_font as font

    header = Path(__file__).resolve().parents[3] / "cpp" / "envs" / "box2d" / "render" / "car_racing_font.h"
    if not header.exists():  # pragma: no cover - an installed test tree without the sources
        pytest.skip("needs the source tree")
    strip = lambda text: "".join(text.split())  # noqa: E731 - clang-format may rewrap
    assert strip(font.header()) == strip(header.read_text())
    advances, bitmaps, kerning = font.glyph_table()
    ttf = pygame.font.Font(pygame.font.get_default_font(), font.SIZE)
    for value in (-137.3, -0.04, 0.5, 7.0, 118.45, 406.0, 999.2):
        text = f"{value:04.0f}"
        expected = pygame.surfarray.array3d(ttf.render(text, True, (255, 255, 255), (0, 0, 0)))[..., 0].T
        x26, placed = 0, []
        for i, ch in enumerate(text):
            if i:
                x26 += 64 * advances[text[i - 1]] + kerning[(text[i - 1], ch)]
            placed.append((x26 >> 6, bitmaps[ch]))
        width = (x26 + 64 * advances[text[-1]]) >> 6
        built = np.zeros((bitmaps["0"].shape[0], width + 32), np.uint8)
        for x, bitmap in placed:
            region = built[:, x : x + bitmap.shape[1]]
            np.maximum(region, bitmap, out=region)
        np.testing.assert_array_equal(built[:, :width], expected, err_msg=text)
