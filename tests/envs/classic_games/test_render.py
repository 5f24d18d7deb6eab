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
from envpool.frontends.sources import NativeSource, PoolOptions  # noqa: E402

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
        self.pool = NativeSource(task_id, PoolOptions(seed=0), render_mode="rgb_array", **kwargs).open_pool().pool

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
    plain.pool = NativeSource("TicTacToe-v3", PoolOptions(seed=0)).open_pool().pool
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


# --------------------------------------------------------------------------------------------
# The PNG reader (render/png.h) on other encodings of the same pictures: PettingZoo's files are
# re-encoded with each row filter, stored / fixed-Huffman / dynamic-Huffman deflate blocks,
# 8-bit palettes and IDAT split in chunks, into a stand-in pettingzoo package; frames drawn
# from them must equal the frames drawn from the originals.


def _png(width: int, height: int, color_type: int, depth: int, rows: list[bytes], variant: int, **chunks) -> bytes:
    import struct
    import zlib

    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    bpp = max(1, {3: 1, 6: 4}[color_type] * depth // 8)
    raw, prev = b"", bytes(len(rows[0]))
    for y, row in enumerate(rows):
        kind = (y + variant) % 5
        out = bytearray()
        for x, value in enumerate(row):
            a = row[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
            else:
                pred = (0, a, b, (a + b) // 2)[kind]
            out.append((value - pred) & 255)
        raw += bytes([kind]) + bytes(out)
        prev = row
    level, strategy = ((0, zlib.Z_DEFAULT_STRATEGY), (9, zlib.Z_FIXED), (9, zlib.Z_DEFAULT_STRATEGY))[variant % 3]
    packer = zlib.compressobj(level, zlib.DEFLATED, 15, 9, strategy)
    data = packer.compress(raw) + packer.flush()
    idat = b"".join(chunk(b"IDAT", data[k : k + 97]) for k in range(0, len(data), 97))
    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    extra = b"".join(chunk(tag.encode(), body) for tag, body in chunks.items())
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra + idat + chunk(b"IEND", b"")


def _reencode(path, variant: int) -> bytes:
    import pygame

    image = pygame.image.load(str(path))
    width, height = image.get_size()
    if image.get_bitsize() == 8:  # the palette board: indices, its palette, index 0 transparent
        indices = pygame.surfarray.array2d(image).T.astype(np.uint8)
        palette = b"".join(bytes(tuple(c)[:3]) for c in image.get_palette())
        depth = 8 if variant % 2 else 4
        if depth == 4:
            padded = np.pad(indices, ((0, 0), (0, width % 2)))
            rows = [bytes((padded[y, 0::2] << 4) | padded[y, 1::2]) for y in range(height)]
        else:
            rows = [bytes(indices[y]) for y in range(height)]
        return _png(width, height, 3, depth, rows, variant, PLTE=palette, tRNS=b"\x00")
    rgba = np.dstack([pygame.surfarray.array3d(image).transpose(1, 0, 2), pygame.surfarray.array_alpha(image).T])
    return _png(width, height, 6, 8, [bytes(rgba[y].astype(np.uint8).ravel()) for y in range(height)], variant)


def test_png_variants_decode_alike(tmp_path) -> None:
    import pathlib

    import pettingzoo

    source = pathlib.Path(pettingzoo.__file__).parent
    script = """
import sys, numpy as np, envpool
from envpool.frontends.sources import NativeSource, PoolOptions
for task, board in (("TicTacToe-v3", [1, 2, 0, 2, 1, 1, 0, 2, 2]), ("ConnectFour-v3", [0] * 28 + [2, 1] * 7)):
    pool = NativeSource(task, PoolOptions(seed=0), render_mode="rgb_array").open_pool().pool
    pool.send_reset(None, None, None, True)
    pool.recv(-1.0)
    pool.set_state(0, [float(v) for v in board] + [0.0, 0.0])
    sys.stdout.write(pool.render(None)[0].tobytes().hex() + "\\n")
"""

    def frames(pythonpath: str) -> list[str]:
        env = {**__import__("os").environ, "PYTHONPATH": pythonpath}
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.split()

    want = frames(str(source.parent))
    for variant in range(3):
        fake = tmp_path / f"variant{variant}"
        (fake / "pettingzoo").mkdir(parents=True)
        (fake / "pettingzoo" / "__init__.py").write_text("")
        for game in ("tictactoe", "connect_four"):
            folder = fake / "pettingzoo" / "classic" / game / "img"
            folder.mkdir(parents=True)
            for png in (source / "classic" / game / "img").glob("*.png"):
                (folder / png.name).write_bytes(_reencode(png, variant))
        assert frames(str(fake)) == want, f"variant {variant}"
