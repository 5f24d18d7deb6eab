"""render_mode="rgb_array" on TicTacToe-v3 and ConnectFour-v3 against PettingZoo 1.27.0's own
frames, pixel for pixel: its pictures (read from the installed pettingzoo package) scaled with
pygame.transform.scale and blitted at its positions (cpp/envs/classic_games/render/). Random
games are played move by move on both sides and every frame compared, at the default sizes and
at other screen_height / screen_scaling values; boards written with set_state too.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ..frames import assert_same_frame

tictactoe = pytest.importorskip("pettingzoo.classic.tictactoe.tictactoe")
connect_four = pytest.importorskip("pettingzoo.classic.connect_four.connect_four")
pytest.importorskip("pygame", reason="PettingZoo draws with pygame (the oracle)")

import envpool  # noqa: E402
from envpool.frontends.sources import NativeSource  # noqa: E402

# (task, PettingZoo's module, number of actions, the kwarg that sizes the frame, its default)
GAMES = {
    "TicTacToe-v3": (tictactoe, 9, "screen_height", 1000),
    "ConnectFour-v3": (connect_four, 7, "screen_scaling", 9),
}
CASES = [
    ("TicTacToe-v3", {}),
    ("TicTacToe-v3", {"screen_height": 601}),
    ("TicTacToe-v3", {"screen_height": 37}),
    ("ConnectFour-v3", {}),
    ("ConnectFour-v3", {"screen_scaling": 4}),
]


class Game:
    """One env of a raw core pool, rendering."""

    def __init__(self, task_id: str, **kwargs) -> None:
        self.pool = NativeSource(task_id, num_envs=1, seed=0, render_mode="rgb_array", **kwargs).open_pool().pool

    def reset(self) -> None:
        self.pool.send_reset(None, None, None, True)
        self.pool.recv(-1.0)

    def move(self, slot: int, action: int) -> bool:
        actions = np.zeros((1, 2), np.int64)
        actions[0, slot] = action
        _, _, terminated, _, _ = self.pool.step(actions, None, -1.0)
        return bool(terminated[0])

    def frame(self) -> np.ndarray:
        frames = self.pool.render(None)
        assert frames.ndim == 4 and frames.shape[0] == 1 and frames.dtype == np.uint8
        return frames[0]


def make_ref(task_id: str, **kwargs):
    return GAMES[task_id][0].env(render_mode="rgb_array", **kwargs)


def frame_shape(task_id: str, kwargs: dict) -> tuple[int, int, int]:
    _, _, key, default = GAMES[task_id]
    size = kwargs.get(key, default)
    if task_id == "TicTacToe-v3":
        return (size, size, 3)
    return (int(86 / 99 * (99 * size)), 99 * size, 3)


@pytest.mark.parametrize(("task_id", "kwargs"), CASES, ids=[f"{t}-{k}" for t, k in CASES])
def test_frames_equal_pettingzoo(task_id: str, kwargs: dict) -> None:
    _, num_actions, _, _ = GAMES[task_id]
    ours = Game(task_id, **kwargs)
    ref = make_ref(task_id, **kwargs)
    assert envpool.make_spec(task_id, **kwargs).render_shape == frame_shape(task_id, kwargs)
    rng = np.random.default_rng(7)
    frames = 0
    for game in range(3):
        ours.reset()
        ref.reset(seed=game)
        assert_same_frame(ours.frame(), ref.render(), f"game {game} start (ours, PettingZoo's)")
        over = False
        while not over:
            slot = ref.possible_agents.index(ref.agent_selection)
            legal = np.flatnonzero(ref.observe(ref.agent_selection)["action_mask"])
            action = int(rng.choice(legal))
            over = ours.move(slot, action)
            ref.step(action)
            assert_same_frame(ours.frame(), ref.render(), f"game {game} after move {action} (ours, PettingZoo's)")
            frames += 1
    assert frames >= 15


@pytest.mark.parametrize("task_id", list(GAMES))
def test_written_boards(task_id: str) -> None:
    """Random boards written into both (PettingZoo's freshly reset: its surface keeps what marks
    drew where its pictures are transparent, and a written board may take marks off)."""
    ours = Game(task_id)
    ours.reset()
    ref = make_ref(task_id)
    rng = np.random.default_rng(3)
    cells = 9 if task_id == "TicTacToe-v3" else 42
    for trial in range(4):
        board = rng.integers(0, 3, cells)
        ours.pool.set_state(0, [float(v) for v in board] + [0.0, 0.0])
        ref.reset(seed=trial)
        if task_id == "TicTacToe-v3":
            ref.unwrapped.board.squares = [int(v) for v in board]
        else:
            ref.unwrapped.board = [int(v) for v in board]
        assert_same_frame(ours.frame(), ref.render(), f"board {board.tolist()}")


def test_render_needs_render_mode_and_good_kwargs() -> None:
    plain = Game.__new__(Game)
    plain.pool = NativeSource("TicTacToe-v3", num_envs=1, seed=0).open_pool().pool
    plain.pool.send_reset(None, None, None, True)
    plain.pool.recv(-1.0)
    with pytest.raises(RuntimeError, match="render_mode='rgb_array'"):
        plain.pool.render(None)
    with pytest.raises(ValueError, match="screen_height must be in"):
        envpool.make("TicTacToe-v3", screen_height=0)
    with pytest.raises(ValueError, match="screen_scaling must be in"):
        envpool.make("ConnectFour-v3", screen_scaling=100)


def test_without_pettingzoo_make_names_what_to_install() -> None:
    """The pictures come from the installed pettingzoo package: without it, make(render_mode=
    "rgb_array") says what to install (and the games still play without rendering)."""
    script = """
import sys
sys.modules["pettingzoo"] = None  # importlib.util.find_spec("pettingzoo") is None: not installed
import envpool
try:
    envpool.make("ConnectFour-v3", render_mode="rgb_array")
except Exception as exc:
    print(type(exc).__name__, exc)
envs = envpool.make("ConnectFour-v3", num_envs=1)
envs.reset()
envs.close()
print("plays")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "pip install pettingzoo" in done.stdout, done.stdout
    assert done.stdout.strip().endswith("plays")


def test_pettingzoo_view_and_cli(tmp_path) -> None:
    """env_type="pettingzoo": a view's render() is the frame; `envpool run ... --record` works."""
    envs = envpool.make("ConnectFour-v3", env_type="pettingzoo", num_envs=1, render_mode="rgb_array")
    ref = make_ref("ConnectFour-v3")
    try:
        _, infos = envs.reset(seed=0)
        ref.reset(seed=0)
        for column in (3, 3, 4):
            mover = next(agent for agent in envs.agents if infos[agent]["needs_action"])
            *_, infos = envs.step({mover: column})
            ref.step(column)
            assert_same_frame(envs.render(), ref.render(), f"after column {column}")
    finally:
        envs.close()
    iio = pytest.importorskip("imageio.v3")
    from envpool import cli

    out = tmp_path / "c4.gif"
    assert (
        cli.main(["run", "ConnectFour-v3", "--num-envs", "1", "-q", "--record", str(out), "--record-steps", "3"]) == 0
    )
    assert iio.imread(out).shape[1:3] == (774, 891)
