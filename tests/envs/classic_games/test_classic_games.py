"""TicTacToe-v3 and ConnectFour-v3 against PettingZoo's classic tictactoe_v3 / connect_four_v3.

The native envs (cpp/envs/classic_games) are turn-based two-agent envs: one pool step is one
move of the agent to move. Every test plays the same moves in PettingZoo's ``env()`` (with its
default wrappers: TerminateIllegalWrapper(illegal_reward=-1), AssertOutOfBoundsWrapper,
OrderEnforcingWrapper) and compares, agent by agent, what ``observe(agent)``, ``rewards``,
``terminations`` and ``truncations`` say after the move with the pool's row.

The pool is reached through ``open_games`` (the raw core pool for now); switching the tests to
the multi-agent front end only takes changing that adapter.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

# PettingZoo's tictactoe_v3 and connect_four_v3 modules re-export these env() functions (importing
# them by those names warns that the registry-less API is deprecated).
tictactoe = pytest.importorskip("pettingzoo.classic.tictactoe.tictactoe")
connect_four = pytest.importorskip("pettingzoo.classic.connect_four.connect_four")

from envpool.errors import EnvError  # noqa: E402
from envpool.frontends.sources import NativeSource, PoolOptions  # noqa: E402

# --------------------------------------------------------------------------------------------
# Adapter: the pool under test.


@dataclass
class Rows:
    """One step of a pool of two-agent envs: per-agent arrays are (num_envs, 2, ...)."""

    observation: np.ndarray  # (N, 2, rows, cols, 2) int8
    action_mask: np.ndarray  # (N, 2, num_actions) int8
    agent_reward: np.ndarray  # (N, 2) float64
    agent_terminated: np.ndarray  # (N, 2) bool
    agent_truncated: np.ndarray  # (N, 2) bool
    active: np.ndarray  # (N, 2) bool
    needs_action: np.ndarray  # (N, 2) bool
    reward: np.ndarray  # (N,) the env's reward
    terminated: np.ndarray  # (N,) the env's flags
    truncated: np.ndarray


class Games:
    """A pool of ``num_envs`` games of ``task_id``, seen as ``Rows``."""

    def __init__(self, task_id: str, num_envs: int) -> None:
        self.task_id = task_id
        self.num_envs = num_envs
        self.pool = NativeSource(task_id, PoolOptions(num_envs=num_envs, seed=0)).open_pool().pool

    @staticmethod
    def _rows(result: tuple[Any, ...]) -> Rows:
        obs, rew, term, trunc, info = result
        return Rows(
            observation=np.array(obs["observation"]),
            action_mask=np.array(obs["action_mask"]),
            agent_reward=np.array(info["agent_reward"]),
            agent_terminated=np.array(info["agent_terminated"]),
            agent_truncated=np.array(info["agent_truncated"]),
            active=np.array(info["active"]),
            needs_action=np.array(info["needs_action"]),
            reward=np.array(rew),
            terminated=np.array(term),
            truncated=np.array(trunc),
        )

    def reset(self) -> Rows:
        self.pool.send_reset(None, None, None, True)
        return self._rows(self.pool.recv(-1.0))

    def step(self, actions: Any) -> Rows:
        """``actions``: (num_envs, 2) ints, one per agent slot (only the mover's is used)."""
        return self._rows(self.pool.step(np.asarray(actions, dtype=np.int64), None, -1.0))

    def get_state(self, env_id: int) -> list[float]:
        return [float(v) for v in self.pool.get_state(env_id)]

    def set_state(self, env_id: int, state: list[float]) -> None:
        self.pool.set_state(env_id, [float(v) for v in state])

    def spec(self) -> dict[str, Any]:
        return self.pool.spec


def open_games(task_id: str, num_envs: int = 1) -> Games:
    return Games(task_id, num_envs)


# --------------------------------------------------------------------------------------------
# The reference.

GAMES = {
    "TicTacToe-v3": (tictactoe, 9, (3, 3)),
    "ConnectFour-v3": (connect_four, 7, (6, 7)),
}


def make_ref(task_id: str) -> Any:
    ref = GAMES[task_id][0].env()
    assert ref.metadata["name"] == {"TicTacToe-v3": "tictactoe_v3", "ConnectFour-v3": "connect_four_v3"}[task_id]
    ref.reset(seed=0)
    return ref


def ref_row(ref: Any) -> dict[str, np.ndarray]:
    """PettingZoo's view of both agents (in possible_agents order) after its last move."""
    names = ref.possible_agents
    obs = [ref.observe(a) for a in names]
    done = [bool(ref.terminations.get(a, False) or ref.truncations.get(a, False)) for a in names]
    return {
        "observation": np.stack([o["observation"] for o in obs]),
        "action_mask": np.stack([o["action_mask"] for o in obs]),
        "agent_reward": np.array([float(ref.rewards.get(a, 0)) for a in names]),
        "agent_terminated": np.array([bool(ref.terminations.get(a, False)) for a in names]),
        "agent_truncated": np.array([bool(ref.truncations.get(a, False)) for a in names]),
        "needs_action": np.array([a == ref.agent_selection and not d for a, d in zip(names, done)]),
    }


def assert_row_matches(rows: Rows, i: int, ref: Any, where: str = "") -> None:
    want = ref_row(ref)
    for key, value in want.items():
        got = getattr(rows, key)[i]
        assert got.dtype == value.dtype or key == "agent_reward", (where, key, got.dtype, value.dtype)
        np.testing.assert_array_equal(got, value, err_msg=f"{where}: {key} of env {i}")
    assert rows.active[i].all(), where
    assert rows.reward[i] == want["agent_reward"].sum(), where
    assert bool(rows.terminated[i]) == bool(want["agent_terminated"].all()), where
    assert not rows.truncated[i], where


def ref_step(ref: Any, action: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns on illegal moves
        ref.step(action)


def finish_ref(ref: Any) -> None:
    """Lets PettingZoo's dead agents step out (action None) and starts its next game."""
    while ref.agents:
        ref.step(None)
    ref.reset()


def mover_slot(ref: Any) -> int:
    return ref.possible_agents.index(ref.agent_selection)


def play(task_id: str, moves: list[int], games: Games | None = None, ref: Any = None) -> tuple[Games, Any, Rows]:
    """Plays ``moves`` (the mover's action each step; the other slot sends 0) in env 0 of a
    one-env pool and in PettingZoo, checking every step; returns both and the last rows."""
    games = games or open_games(task_id, 1)
    ref = ref if ref is not None else make_ref(task_id)
    rows = games.reset()
    assert_row_matches(rows, 0, ref, "reset")
    for k, move in enumerate(moves):
        actions = np.zeros((1, 2), np.int64)
        actions[0, mover_slot(ref)] = move
        rows = games.step(actions)
        ref_step(ref, move)
        assert_row_matches(rows, 0, ref, f"move {k} ({move})")
    return games, ref, rows


# --------------------------------------------------------------------------------------------
# (1) Random games, several envs of one pool, across autoresets.


@pytest.mark.parametrize(
    ("task_id", "num_steps", "min_games"), [("TicTacToe-v3", 600, 60), ("ConnectFour-v3", 700, 20)]
)
def test_random_games_match_pettingzoo(task_id: str, num_steps: int, min_games: int) -> None:
    num_envs = 4
    num_actions = GAMES[task_id][1]
    rng = np.random.default_rng(12345)
    games = open_games(task_id, num_envs)
    refs = [make_ref(task_id) for _ in range(num_envs)]
    rows = games.reset()
    for i, ref in enumerate(refs):
        assert_row_matches(rows, i, ref, "reset")
    returns = np.zeros((num_envs, 2))
    outcomes: dict[tuple[float, float], int] = {}
    finished = 0
    for t in range(num_steps):
        actions = rng.integers(0, num_actions, size=(num_envs, 2))  # the non-mover's is noise
        over = rows.terminated.copy()
        for i, ref in enumerate(refs):
            if not over[i]:
                legal = np.flatnonzero(ref.observe(ref.agent_selection)["action_mask"])
                actions[i, mover_slot(ref)] = rng.choice(legal)
        rows = games.step(actions)
        for i, ref in enumerate(refs):
            if over[i]:
                # Next-step autoreset: the action is ignored, a new game starts with zero rewards.
                finish_ref(ref)
                assert rows.agent_reward[i].tolist() == [0.0, 0.0] and not rows.terminated[i]
                returns[i] = 0
            else:
                ref_step(ref, int(actions[i, mover_slot(ref)]))
            assert_row_matches(rows, i, ref, f"step {t}")
            returns[i] += rows.agent_reward[i]
            if rows.terminated[i]:
                finished += 1
                # Final returns: PettingZoo's cumulative rewards over the whole game.
                cumulative = [float(ref._cumulative_rewards[a]) for a in ref.possible_agents]
                assert returns[i].tolist() == cumulative
                key = tuple(rows.agent_reward[i].tolist())
                outcomes[key] = outcomes.get(key, 0) + 1
    assert finished >= min_games, finished
    assert {(1.0, -1.0), (-1.0, 1.0)} <= set(outcomes), outcomes  # both players won some
    if task_id == "TicTacToe-v3":
        assert (0.0, 0.0) in outcomes, outcomes  # and some were draws


# --------------------------------------------------------------------------------------------
# (2) Wins, draws, full columns.

# (moves, rewards of (slot 0, slot 1) at the end)
SCRIPTED = {
    "TicTacToe-v3": [
        ([0, 3, 1, 4, 2], [1.0, -1.0]),  # player_1: squares 0-1-2
        ([0, 3, 1, 4, 8, 5], [-1.0, 1.0]),  # player_2: squares 3-4-5
        ([0, 2, 4, 3, 1, 6, 5, 7, 8], [1.0, -1.0]),  # player_1: 0-4-8 on the last square (a win, not a draw)
        ([0, 4, 8, 1, 7, 6, 2, 5, 3], [0.0, 0.0]),  # a draw: full board, no line
        ([4, 0, 2, 6, 3, 5, 8, 1, 7], [0.0, 0.0]),  # another draw
        ([0, 1, 4, 2, 8], [1.0, -1.0]),  # a diagonal
    ],
    "ConnectFour-v3": [
        ([0, 1, 0, 1, 0, 1, 0], [1.0, -1.0]),  # player_0: vertical in column 0
        ([0, 1, 0, 1, 0, 1, 2, 1], [-1.0, 1.0]),  # player_1: vertical in column 1
        ([0, 0, 1, 1, 2, 2, 3], [1.0, -1.0]),  # player_0: bottom row
        ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], [1.0, -1.0]),  # player_0: rising diagonal
        ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], [1.0, -1.0]),  # player_0: falling diagonal
        # a draw: 42 moves, found by random play with PettingZoo
        (
            [3, 3, 5, 2, 1, 2, 0, 0, 5, 0, 1, 4, 6, 0, 2, 4, 3, 5, 5, 2, 4]
            + [2, 2, 3, 0, 1, 4, 4, 1, 0, 4, 6, 6, 5, 6, 6, 3, 3, 5, 6, 1, 1],
            [0.0, 0.0],
        ),
    ],
}


def _scripted_cases() -> list[Any]:
    return [pytest.param(t, m, r, id=f"{t}-{k}") for t, cases in SCRIPTED.items() for k, (m, r) in enumerate(cases)]


@pytest.mark.parametrize(("task_id", "moves", "rewards"), _scripted_cases())
def test_scripted_game_end(task_id: str, moves: list[int], rewards: list[float]) -> None:
    games, ref, rows = play(task_id, moves)
    # Independent of PettingZoo: the game ends on the last move, with these rewards.
    assert rows.agent_reward[0].tolist() == rewards
    assert rows.agent_terminated[0].tolist() == [True, True]
    assert rows.agent_truncated[0].tolist() == [False, False]
    assert rows.needs_action[0].tolist() == [False, False]
    assert bool(rows.terminated[0]) and rows.reward[0] == sum(rewards)
    state = games.get_state(0)
    assert state[-1] == 1.0  # over
    assert state[-2] == float(len(moves) % 2)  # PettingZoo's agent_selection moved on
    # The agent PettingZoo selects next sees the legal moves of the final board, the other zeros.
    nxt = len(moves) % 2
    assert rows.action_mask[0, 1 - nxt].sum() == 0
    board = np.array(state[:-2])
    np.testing.assert_array_equal(rows.action_mask[0, nxt], board[: GAMES[task_id][1]] == 0)
    # The next step (any action) starts a new game.
    rows = games.step(np.full((1, 2), 0))
    assert not rows.terminated[0] and rows.agent_reward[0].tolist() == [0.0, 0.0]
    assert rows.observation.sum() == 0 and rows.needs_action[0].tolist() == [True, False]
    assert rows.action_mask[0, 0].all() and not rows.action_mask[0, 1].any()


def test_connect_four_full_column() -> None:
    games, ref, rows = play("ConnectFour-v3", [0, 0, 0, 0, 0, 0])
    assert not rows.terminated[0]
    # Column 0 is full: masked out for player_0 (to move); player_1 sees zeros.
    assert rows.action_mask[0].tolist() == [[0, 1, 1, 1, 1, 1, 1], [0] * 7]
    assert rows.needs_action[0].tolist() == [True, False]
    # Column 0 alternates pieces from the bottom (row 5) up: player_0's plane 0, player_1's plane 1.
    column = rows.observation[0, 0, :, 0, :]  # (rows, planes) seen by player_0
    assert column.tolist() == [[0, 1], [1, 0], [0, 1], [1, 0], [0, 1], [1, 0]]
    np.testing.assert_array_equal(rows.observation[0, 1], rows.observation[0, 0, ..., ::-1])
    # The other columns still take pieces.
    games, ref, rows = play("ConnectFour-v3", [0, 0, 0, 0, 0, 0, 1, 2], games=games, ref=make_ref("ConnectFour-v3"))
    assert games.get_state(0)[:-2][35:] == [1.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0]  # bottom row


# --------------------------------------------------------------------------------------------
# (3) Illegal moves, as PettingZoo's TerminateIllegalWrapper handles them.

ILLEGAL = [
    ("TicTacToe-v3", [4], 4, 1),  # player_2 plays the occupied centre
    ("TicTacToe-v3", [0, 1], 1, 0),  # player_1 plays player_2's square
    ("TicTacToe-v3", [0, 1, 2, 3], 0, 0),  # player_1 plays its own square
    ("ConnectFour-v3", [0, 0, 0, 0, 0, 0], 0, 0),  # player_0 into the full column
    ("ConnectFour-v3", [0, 0, 0, 0, 0, 0, 1], 0, 1),  # player_1 into the full column
]


@pytest.mark.parametrize(("task_id", "moves", "illegal", "mover"), ILLEGAL)
def test_illegal_move(task_id: str, moves: list[int], illegal: int, mover: int) -> None:
    games, ref, rows = play(task_id, moves)
    before = games.get_state(0)
    assert before[-2] == mover and rows.action_mask[0, mover, illegal] == 0
    actions = np.zeros((1, 2), np.int64)
    actions[0, mover] = illegal
    rows = games.step(actions)
    ref_step(ref, illegal)
    assert_row_matches(rows, 0, ref, "illegal move")
    # The mover loses -1, the other gets 0; both terminated and truncated; the board is unchanged.
    want = [0.0, 0.0]
    want[mover] = -1.0
    assert rows.agent_reward[0].tolist() == want and rows.reward[0] == -1.0
    assert rows.agent_terminated[0].all() and rows.agent_truncated[0].all()
    assert rows.terminated[0] and not rows.truncated[0] and not rows.needs_action[0].any()
    # PettingZoo's agent_selection goes to the first agent: slot 0 shows the legal moves.
    assert rows.action_mask[0, 0].tolist() == [int(c == 0) for c in before[: GAMES[task_id][1]]]
    assert not rows.action_mask[0, 1].any()
    assert games.get_state(0) == [*before[:-2], 0.0, 1.0]
    # The next step starts a new game.
    rows = games.step(np.zeros((1, 2), np.int64))
    assert rows.observation.sum() == 0 and not rows.terminated[0] and rows.needs_action[0].tolist() == [True, False]


# --------------------------------------------------------------------------------------------
# (4) The non-mover's action is ignored; out-of-range actions are refused.


@pytest.mark.parametrize("task_id", list(GAMES))
def test_non_mover_action_is_ignored(task_id: str) -> None:
    num_actions = GAMES[task_id][1]
    games = open_games(task_id, num_actions)
    games.reset()
    # Every env plays the same moves; env i sends action i in the other slot.
    for move in [1, 2, 0, 3]:
        state = games.get_state(0)
        mover = int(state[-2])
        actions = np.tile(np.arange(num_actions)[:, None], (1, 2))
        actions[:, mover] = move
        rows = games.step(actions)
        for field in ("observation", "action_mask", "agent_reward", "needs_action", "agent_terminated"):
            got = getattr(rows, field)
            assert (got == got[:1]).all(), field
        assert all(games.get_state(i) == games.get_state(0) for i in range(num_actions))
    assert games.get_state(0)[-2] == 0.0


@pytest.mark.parametrize("task_id", list(GAMES))
def test_out_of_range_action_raises(task_id: str) -> None:
    num_actions = GAMES[task_id][1]
    games = open_games(task_id, 2)
    games.reset()
    games.step([[0, 0], [1, 0]])
    state = [games.get_state(i) for i in range(2)]
    for bad in ([[0, 0], [0, num_actions]], [[-1, 0], [0, 0]], [[0, 0], [num_actions, 0]]):
        # The non-mover's slot (env 1's slot 0 above) must be in range too: whole rows are checked.
        with pytest.raises(ValueError, match=r"env \d") as err:
            games.step(bad)
        assert "outside Discrete" in str(err.value)
    assert [games.get_state(i) for i in range(2)] == state  # nothing moved
    rows = games.step([[0, 2], [0, 3]])  # the pool still works: player in slot 1 moves
    assert rows.needs_action.tolist() == [[True, False], [True, False]]
    assert games.get_state(0)[:-2] != state[0][:-2]


# --------------------------------------------------------------------------------------------
# (5) get_state / set_state.


@pytest.mark.parametrize("task_id", list(GAMES))
def test_state_round_trip_continues_identically(task_id: str) -> None:
    num_actions = GAMES[task_id][1]
    rows_, cols = GAMES[task_id][2]
    games = open_games(task_id, 2)
    games.reset()
    rng = np.random.default_rng(7)
    # Env 0 plays a few moves, env 1 a different opening.
    for _ in range(3):
        state = games.get_state(0)
        legal = [a for a in range(num_actions) if state[a] == 0]
        games.step([[rng.choice(legal)] * 2, [num_actions - 1] * 2])
    state = games.get_state(0)
    assert len(state) == rows_ * cols + 2 and state[-2:] == [1.0, 0.0]
    assert sorted(state[:-2]).count(1.0) == 2 and sorted(state[:-2]).count(2.0) == 1
    games.set_state(1, state)
    assert games.get_state(1) == state
    # Both continue identically, to the end of the game and into the next one.
    ref = make_ref(task_id)
    if task_id == "TicTacToe-v3":
        ref.unwrapped.board.squares = [int(v) for v in state[:-2]]
    else:
        ref.unwrapped.board = [int(v) for v in state[:-2]]
    ref.unwrapped.agent_selection = ref.unwrapped._agent_selector.next()  # player in slot 1 to move
    over = False
    for t in range(rows_ * cols + 2):
        mover = int(games.get_state(0)[-2])
        legal = [a for a in range(num_actions) if games.get_state(0)[a] == 0]
        move = int(rng.choice(legal)) if not over else 0
        rows = games.step([[move, move], [move, move]])
        for field in ("observation", "action_mask", "agent_reward", "agent_terminated", "needs_action", "terminated"):
            got = getattr(rows, field)
            np.testing.assert_array_equal(got[0], got[1], err_msg=f"{field} at {t}")
        assert games.get_state(0) == games.get_state(1)
        if over:
            break
        assert mover == mover_slot(ref)
        ref_step(ref, move)
        assert_row_matches(rows, 0, ref, f"after set_state, move {t}")
        over = bool(rows.terminated[0])
    assert over


@pytest.mark.parametrize("task_id", list(GAMES))
def test_set_state_checks_its_input(task_id: str) -> None:
    cells = int(np.prod(GAMES[task_id][2]))
    games = open_games(task_id, 1)
    games.reset()
    good = [0.0] * cells + [0.0, 0.0]
    for bad in (good[:-1], [3.0, *good[1:]], [*good[:-2], 2.0, 0.0], [*good[:-1], 0.5], [-1.0, *good[1:]]):
        with pytest.raises(ValueError):
            games.set_state(0, bad)
    # An empty board with player in slot 1 to move: its action is used and its piece (2) lands.
    games.set_state(0, [*good[:-2], 1.0, 0.0])
    assert games.get_state(0) == [*good[:-2], 1.0, 0.0]
    rows = games.step([[1, 2]])
    state = games.get_state(0)
    assert state[-2:] == [0.0, 0.0] and state[:-2].count(2.0) == 1 and state[:-2].count(1.0) == 0
    assert state[2 if task_id == "TicTacToe-v3" else cells - 7 + 2] == 2.0
    assert rows.needs_action[0].tolist() == [True, False]
    # A game set up as over cannot take a move: the pool cuts it short, then starts a new game.
    games.set_state(0, [*good[:-1], 1.0])
    with pytest.raises(EnvError, match="the game is over"):
        rows = games.step(np.zeros((1, 2), np.int64))
    rows = games.step(np.zeros((1, 2), np.int64))
    assert rows.needs_action[0].tolist() == [True, False] and rows.observation.sum() == 0


# --------------------------------------------------------------------------------------------
# (6) The spec.


@pytest.mark.parametrize("task_id", list(GAMES))
def test_spec(task_id: str) -> None:
    ref = make_ref(task_id)
    num_actions, (rows_, cols) = GAMES[task_id][1], GAMES[task_id][2]
    spec = open_games(task_id).spec()
    agents = spec["agents"]
    assert agents["names"] == list(ref.possible_agents)
    assert agents["turn_based"] is True
    assert [g["num_slots"] for g in agents["groups"]] == [2]
    assert not spec["obs_is_tuple"]
    ref_space = ref.observation_space(ref.possible_agents[0])
    obs = {s["name"]: s for s in spec["obs"]}
    assert set(obs) == set(ref_space.spaces)
    for name, box in ref_space.spaces.items():
        assert obs[name]["dtype"] == str(box.dtype), name
        assert obs[name]["shape"] == (2, *box.shape), name
        assert obs[name]["low"] == [0.0] and obs[name]["high"] == [1.0], name
    assert tuple(obs["observation"]["shape"]) == (2, rows_, cols, 2)
    (action,) = spec["action"]
    assert action["name"] == "action" and action["dtype"] == "int64" and action["discrete"]
    assert action["shape"] == (2,)
    assert ref.action_space(ref.possible_agents[0]).n == num_actions
    assert action["low"] == [0.0] and action["high"] == [float(num_actions - 1)]
    assert [i["name"] for i in spec["info"]][:5] == [
        "agent_reward",
        "agent_terminated",
        "agent_truncated",
        "active",
        "needs_action",
    ]
    assert NativeSource(task_id).open_pool().max_episode_steps is None  # no time limit
