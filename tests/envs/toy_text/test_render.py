"""render_mode="rgb_array" on the toy-text tasks (FrozenLake, CliffWalking, Taxi, Blackjack):
frames drawn in C++ against gymnasium's pygame renderers.

Our scenes draw their own sprites in gymnasium's layout and colours; random states are set both
in envpool (``set_state``) and in gymnasium's env (``.s``, the Blackjack hands) and the two
frames are compared in per-task views with per-task thresholds (TOY_THRESHOLD, see below).
The classic-control frames: tests/envs/classic_control/test_render.py.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envpool

from ..frames import pair

pytest.importorskip("pygame", reason="gymnasium's renderers (the oracle) need pygame")

# -- toy text ------------------------------------------------------------------------------------
#
# Our toy-text scenes follow gymnasium's layout and colours but draw their own sprites (walker,
# flag, taxi, passenger, house, cards, suits, font: see cpp/envs/toy_text/render/), so a frame and
# gymnasium's for the same state differ by a fixed amount of sprite detail. Comparing at 10 x 10
# blocks leaves that detail about as large as the change a different state makes, so each task
# is compared in a view where the state shows and the drawing detail averages out:
#
#   FrozenLake      blocks of one cell (64 x 64; cw x ch on custom maps): the walker is one
#                   cell's worth of ink wherever its shape differs.
#   CliffWalking    blocks of one cell, leaving out the ten cliff cells (3, 1..10): static
#                   scenery whose cracks and notches we draw differently (about 1.3 per cell),
#                   and where the player never stands (stepping there sends it back to start).
#   Taxi            blocks of one yard cell (88 x 56) over the yard (the house above it is
#                   static scenery we draw our own way).
#   Blackjack       16 x 16 blocks over rows 64..319 (the two cards, PLAYER and the sum),
#                   leaving out the DEALER and USABLE ACE text lines: their letters are our own
#                   font's, which differ from gymnasium's more than a different state does.
#
# TOY_THRESHOLD is 1.5 x the largest same-state value over 200 random states (rounded up); the
# negative case (walker one cell / taxi one row over; Blackjack: another dealer card and a
# player's sum 10 away) must exceed it. Measured (gymnasium 1.4, 200 states per task):
#
#   task               same state (max)   threshold   different state (min)
#   FrozenLake-v1      0.611              0.95        2.09   (walker on another tile)
#   FrozenLake8x8-v1   0.284              0.45        0.66   (walker on another tile)
#   CliffWalking-v1    0.114              0.18        0.32   (walker one cell over)
#   Taxi-v4            0.814              1.25        1.76   (taxi one row over)
#   Blackjack-v1       0.538              0.85        1.46   (another card, sum 10 away)
#
# The custom 10 x 10 FrozenLake map (51-pixel cells, blocks of one cell) is held to
# FrozenLake-v1's threshold for the same state (measured 0.42-0.46); it has no negative case:
# one walker among 100 cells moves the view by only 0.62-0.79, too close for a clear margin.

TOY_THRESHOLD = {
    "FrozenLake-v1": 0.95,
    "FrozenLake8x8-v1": 0.45,
    "CliffWalking-v1": 0.18,
    "Taxi-v4": 1.25,
    "Blackjack-v1": 0.85,
}
TOY_NUM_STATES = 20
CLIFF = [37 + i for i in range(10)]  # cells (3, 1..10)


def block_means(frame: np.ndarray, bh: int, bw: int) -> np.ndarray:
    """``frame`` averaged over bh x bw pixel blocks (rows x cols x 3, partial blocks dropped)."""
    h, w = frame.shape[0] // bh * bh, frame.shape[1] // bw * bw
    return frame[:h, :w].astype(np.float64).reshape(h // bh, bh, w // bw, bw, 3).mean(axis=(1, 3))


def toy_mad(task: str, a: np.ndarray, b: np.ndarray, cell: tuple[int, int] = (64, 64)) -> float:
    """Mean absolute difference of two toy-text frames in the task's view (see above)."""
    assert a.shape == b.shape, (a.shape, b.shape)
    if task.startswith("FrozenLake"):
        cw, ch = cell
        return float(np.abs(block_means(a, ch, cw) - block_means(b, ch, cw)).mean())
    if task.startswith("CliffWalking"):
        diff = np.abs(block_means(a, 64, 64) - block_means(b, 64, 64)).reshape(48, 3)
        return float(np.delete(diff, CLIFF, axis=0).mean())
    if task == "Taxi-v4":
        yard = (slice(128, 128 + 5 * 56), slice(48, 48 + 5 * 88))
        return float(np.abs(block_means(a[yard], 56, 88) - block_means(b[yard], 56, 88)).mean())
    rows = slice(64, 320)
    return float(np.abs(block_means(a[rows], 16, 16) - block_means(b[rows], 16, 16)).mean())


DECK = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]


def _set_cell(ours, ref, state):
    ours.set_state(0, state)
    if ref is not None:
        ref.unwrapped.s = int(state[0])


def _frozen_lake_states(rng, tiles):
    """A cell the walker is drawn on (not a hole) and another such cell."""
    free = [i for i, t in enumerate(tiles) if t != "H"]
    s, other = rng.choice(free, size=2, replace=False)
    return [int(s)], [int(other)]


def _cliff_states(rng, _tiles):
    """A cell the player can stand on (not the cliff) and its neighbour in the same row."""
    s = int(rng.choice([i for i in range(48) if i not in CLIFF]))
    other = s + 1 if s % 12 < 11 and s + 1 not in CLIFF else s - 1
    return [s], [other]


def _set_taxi(ours, ref, state, action):
    # The taxi faces its last move action: take the same step on both sides.
    ours.set_state(0, state)
    ours.step(np.array([action]))
    if ref is not None:
        ref.unwrapped.s = int(state[0])
        ref.step(action)


def _blackjack_hands(rng):
    dealer = [int(c) for c in rng.choice(DECK, size=2)]
    while True:
        player = [int(c) for c in rng.choice(DECK, size=int(rng.integers(2, 4)))]
        if sum(player) <= 29:
            return dealer, player


def _blackjack_other(dealer, player):
    """A clearly different table: another showing card and an ace-free hand 10 points away."""
    shown = sum(player) + (10 if 1 in player and sum(player) + 10 <= 21 else 0)
    target = shown + 10 if shown <= 19 else shown - 10
    other = []
    while target > 12:
        other.append(10)
        target -= 10
    other += [target // 2, target - target // 2]
    return [dealer[0] % 10 + 1, dealer[1]], other


def _set_blackjack(ours, ref, dealer, player):
    ours.set_state(0, [len(dealer), *dealer, *player])
    if ref is not None:
        env = ref.unwrapped
        env.dealer, env.player = list(dealer), list(player)
        # gymnasium draws the showing card's suit (and J / Q / K for a ten) at reset; envpool
        # derives them from the hands (see cpp/envs/toy_text/blackjack.h): use the same here.
        hidden, p0, p1 = dealer[1], player[0], player[1]
        env.dealer_top_card_suit = "CDHS"[(hidden + p0 + p1) % 4]
        shown = dealer[0]
        env.dealer_top_card_value_str = "A" if shown == 1 else "JQK"[(hidden + p0) % 3] if shown == 10 else str(shown)


TOY_TEXT = ["FrozenLake-v1", "FrozenLake8x8-v1", "CliffWalking-v1", "Taxi-v4", "Blackjack-v1"]

# The toy-text frames are drawn as gymnasium 1.4 draws them; 1.4 replaced the toy-text art
# (new sprites, 64-pixel FrozenLake cells, other window sizes), so older releases are no oracle.
_GYM_VERSION = tuple(int(p) for p in gym.__version__.split(".")[:2])
needs_gym_1_4_art = pytest.mark.skipif(
    _GYM_VERSION < (1, 4),
    reason=f"toy-text frames follow gymnasium 1.4's art; gymnasium {gym.__version__} draws the old art",
)


def toy_text_distances(task: str, num_states: int, seed: int | None = None) -> tuple[float, float]:
    """(largest same-state distance, smallest different-state distance) over random states."""
    rng = np.random.default_rng(100 + TOY_TEXT.index(task) if seed is None else seed)
    ours, ref = pair(task)
    h, w, _ = ours.task_spec.render_shape
    tiles = "".join(row.decode() for row in ref.unwrapped.desc.flatten()) if task.startswith("FrozenLake") else ""
    worst, closest_wrong = 0.0, np.inf
    try:
        for _ in range(num_states):
            if task == "Blackjack-v1":
                dealer, player = _blackjack_hands(rng)
                _set_blackjack(ours, ref, dealer, player)
                expected = ref.render()
                frame = np.stack(ours.render())
                _set_blackjack(ours, None, *_blackjack_other(dealer, player))
            elif task == "Taxi-v4":
                _set_taxi(ours, ref, [int(rng.integers(500)), 0], int(rng.integers(6)))
                expected = ref.render()
                frame = np.stack(ours.render())
                s = int(ours.get_state(0)[0])
                ours.set_state(0, [s + 100 if s < 400 else s - 100, 0])  # the taxi one row down / up
            else:
                sampler = _cliff_states if task.startswith("Cliff") else _frozen_lake_states
                state, moved = sampler(rng, tiles)
                _set_cell(ours, ref, state)
                expected = ref.render()
                frame = np.stack(ours.render())
                ours.set_state(0, moved)
            assert expected.shape == (h, w, 3)
            assert frame.shape == (1, h, w, 3) and frame.dtype == np.uint8
            worst = max(worst, toy_mad(task, frame[0], expected))
            closest_wrong = min(closest_wrong, toy_mad(task, ours.render()[0], expected))
    finally:
        ours.close()
        ref.close()
    return worst, closest_wrong


@needs_gym_1_4_art
@pytest.mark.parametrize("task", TOY_TEXT)
def test_toy_text_frames_match_gymnasium(task):
    worst, closest_wrong = toy_text_distances(task, TOY_NUM_STATES)
    limit = TOY_THRESHOLD[task]
    assert worst < limit, f"{task}: frame differs from gymnasium's by {worst:.4f} > {limit}"
    assert closest_wrong > limit, f"{task}: a different state's frame passes ({closest_wrong:.4f})"


@needs_gym_1_4_art
def test_frozen_lake_custom_map_frames():
    """Maps whose cells are not 64 pixels: gymnasium scales tiles and sprites; so do we."""
    desc = [
        "SFFFFFFFFH",
        "FFHFFFFFFF",
        "FFFFHFFFFF",
        "FHFFFFFHFF",
        "FFFFFFFFFF",
        "FFFHFFFFFF",
        "FFFFFFHFFF",
        "HFFFFFFFFF",
        "FFFFFHFFFF",
        "FFFFFFFFFG",
    ]
    ours = envpool.make("FrozenLake-v1", num_envs=1, desc=desc, render_mode="rgb_array")
    ref = gym.make("FrozenLake-v1", desc=desc, render_mode="rgb_array")
    limit = TOY_THRESHOLD["FrozenLake-v1"]
    try:
        ours.reset()
        ref.reset(seed=0)
        assert ours.task_spec.render_shape == (512, 512, 3)
        for s in (0, 23, 57, 99):
            _set_cell(ours, ref, [s])
            expected = ref.render()
            assert toy_mad("FrozenLake-v1", ours.render()[0], expected, cell=(51, 51)) < limit
    finally:
        ours.close()
        ref.close()


def test_taxi_faces_last_move():
    ours = envpool.make("Taxi-v4", num_envs=1, seed=1, render_mode="rgb_array")
    try:
        ours.reset()
        state = [2 * 100 + 2 * 20 + 0 * 4 + 1, 0]  # taxi in the middle, passenger at R
        frames = []
        for action in (0, 1, 2, 3):
            ours.set_state(0, state)
            ours.step(np.array([action]))
            ours.set_state(0, state)  # same place, heading `action`
            frames.append(ours.render()[0])
        for i in range(4):
            for j in range(i):
                assert not np.array_equal(frames[i], frames[j])
    finally:
        ours.close()


if __name__ == "__main__":  # measure the toy-text thresholds: cd tests && python3 -m envs.toy_text.test_render [N]
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    for name in TOY_TEXT:
        same, wrong = toy_text_distances(name, n)
        print(f"{name:18s} same state max {same:.3f}   different state min {wrong:.3f}")
