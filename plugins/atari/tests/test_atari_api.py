"""The Atari tasks as users meet them: registration, front ends, rendering, state, seeds, errors."""

import json
import os
import pathlib
import subprocess
import sys

import ale_py
import gymnasium
import numpy as np
import pytest
from atari_oracles import ours, random_actions

import envpool
from envpool.plugins import loaded_plugins


def test_every_v5_game_of_ale_py_is_a_task_of_the_plugin():
    gymnasium.register_envs(ale_py)
    theirs = {
        env_id.split("/")[1] for env_id in gymnasium.registry if env_id.startswith("ALE/") and env_id.endswith("-v5")
    }
    (plugin,) = [p for p in loaded_plugins() if p["name"] == "atari"]
    assert set(plugin["task_ids"]) == theirs and len(theirs) == 104
    assert set(plugin["task_ids"]) <= set(envpool.list_all_envs())
    assert envpool.make_spec("SpaceInvaders-v5").origin.startswith("plugin atari")


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm", "single"])
def test_the_reference_spelling_of_a_game_is_an_alias(env_type):
    """The reference EnvPool names tic_tac_toe_3d TicTacToe3d-v5 (each word of the ROM name
    capitalized); ale-py's and ours is TicTacToe3D-v5. The reference's id is an alias of ours, the
    plugin's only one: the same task, the same frames from the same seed, through every front end."""
    from envpool.tasks import gymnasium_ids, registered_tasks

    aliases = {
        a: t["id"] for a, t in registered_tasks().items() if t["origin"].startswith("plugin atari ") and a != t["id"]
    }
    assert aliases == {"TicTacToe3d-v5": "TicTacToe3D-v5"}
    assert gymnasium_ids()["TicTacToe3d-v5"] == "envpool/TicTacToe3d-v5"
    if env_type == "dm":
        pytest.importorskip("dm_env")
    runs = []
    for task_id in ("TicTacToe3d-v5", "TicTacToe3D-v5"):
        actions = random_actions(envpool.make_spec(task_id).action_space.n, 2, 60, seed=1)
        if env_type == "single":
            env = gymnasium.make(gymnasium_ids()[task_id])
            obs = [env.reset(seed=5)[0]] + [env.step(a[0])[0] for a in actions]
        else:
            env = envpool.make(task_id, env_type=env_type, num_envs=2, seed=5)
            first = env.reset()
            obs = [first.observation.obs if env_type == "dm" else first[0]]
            for a in actions:
                out = env.step(a)
                obs.append(out.observation.obs if env_type == "dm" else out[0])
        env.close()
        runs.append(np.stack(obs))
    assert np.array_equal(*runs)


def test_cli_lists_atari_ids_with_their_origin():
    out = subprocess.run([sys.executable, "-m", "envpool", "list"], capture_output=True, text=True, check=True).stdout
    lines = [line for line in out.splitlines() if "Pong-v5" in line or "SpaceInvaders-v5" in line]
    assert len(lines) == 2 and all("plugin atari" in line for line in lines), out[-2000:]


def test_spec_and_defaults():
    spec = envpool.make_spec("Breakout-v5")
    assert spec.observation_space.shape == (4, 84, 84) and spec.observation_space.dtype == np.uint8
    assert spec.action_space.n == 4
    assert spec.max_episode_steps == 27000
    assert envpool.make_spec("Breakout-v5", full_action_space=True).action_space.n == 18
    assert envpool.make_spec("Pong-v5", gray_scale=False, stack_num=2).observation_space.shape == (2, 84, 84, 3)


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_front_ends_step(env_type):
    envs = envpool.make("Pong-v5", env_type=env_type, num_envs=3, seed=1)
    try:
        if env_type == "dm":
            ts = envs.reset()
            assert ts.observation.obs.shape == (3, 4, 84, 84)
            ts = envs.step(np.zeros(3, dtype=np.int64))
            assert ts.observation.obs.dtype == np.uint8
            assert ts.observation.lives.tolist() == [0, 0, 0]  # Pong has no lives
        else:
            obs, info = envs.reset()
            assert obs.shape == (3, 4, 84, 84)
            obs, reward, terminated, truncated, info = envs.step(np.zeros(3, dtype=np.int64))
            for key in ("lives", "reward", "terminated", "frame_number", "episode_frame_number"):
                assert info[key].shape == (3,), key
            assert info["terminated"].dtype == np.int32
    finally:
        envs.close()


def test_info_reward_is_unclipped_and_terminated_is_the_game_over():
    envs = ours("SpaceInvaders", 2, 0, reward_clip=True, episodic_life=True)
    try:
        envs.reset()
        saw_big_reward = saw_life_end = False
        for actions in random_actions(6, 2, 1500, 0):
            obs, reward, terminated, truncated, info = envs.step(actions)
            assert np.all(np.abs(reward) <= 1)
            np.testing.assert_array_equal(reward, np.sign(info["reward"]))
            saw_big_reward |= bool(np.any(info["reward"] > 1))
            # episodic_life ends episodes at each life loss; info["terminated"] is the game over.
            life_end = terminated & (info["terminated"] == 0)
            saw_life_end |= bool(life_end.any())
            assert np.all(info["lives"][life_end] > 0)
        assert saw_big_reward and saw_life_end
    finally:
        envs.close()


def test_episodic_life_continues_the_game_after_a_life_loss():
    envs = ours("Breakout", 1, 3, episodic_life=True, autoreset_mode="same_step")
    try:
        envs.reset()
        for actions in random_actions(4, 1, 2000, 3):
            obs, reward, terminated, truncated, info = envs.step(actions)
            if terminated[0] and info["terminated"][0] == 0:
                lives_before = info["lives"][0]
                # same_step: info holds the new episode's reset info, in the same game
                break
        else:
            pytest.fail("no life loss in 2000 steps")
        obs, *_, info = envs.step(np.zeros(1, dtype=np.int64))
        assert info["lives"][0] == lives_before and info["episode_frame_number"][0] > 100
    finally:
        envs.close()


def test_async_send_recv():
    envs = ours("SpaceInvaders", 6, 0, batch_size=2)
    try:
        envs.async_reset()
        seen = set()
        # Batches hold the envs that finish first, and an env's first reset (loading the ROM:
        # 65 ms here, a step 0.2 ms) lasts about 300 steps of the others: an env was seen absent
        # from the first 76 batches, then served as often as the rest. So every env must come
        # back, but not within a fixed count: at most 2,000 batches, about a second.
        for _ in range(2000):
            obs, reward, terminated, truncated, info = envs.recv()
            assert obs.shape == (2, 4, 84, 84)
            seen.update(info["env_id"].tolist())
            envs.send(np.ones(2, dtype=np.int64), info["env_id"])
            if seen == set(range(6)):
                break
        assert seen == set(range(6))
    finally:
        envs.close()


def test_render_is_the_raw_rgb_screen():
    gymnasium.register_envs(ale_py)
    envs = ours("Breakout", 2, 5, render_mode="rgb_array", noop_max=0, use_fire_reset=False)
    ref = gymnasium.make("ALE/Breakout-v5", frameskip=1, repeat_action_probability=0.0)
    try:
        envs.reset()
        ref.reset(seed=0)
        frames = envs.render()  # one frame per env in a tuple, as gymnasium's vector envs
        assert isinstance(frames, tuple) and len(frames) == 2
        frames = np.stack(frames)
        assert frames.shape == (2, 210, 160, 3) and frames.dtype == np.uint8
        # The screen right after reset_game does not depend on the seed without no-ops.
        np.testing.assert_array_equal(frames[0], ref.unwrapped.ale.getScreenRGB())
        np.testing.assert_array_equal(frames[1], frames[0])
        assert envs.metadata["render_fps"] == ref.unwrapped.metadata["render_fps"] == 30  # ale-py's
    finally:
        envs.close()
        ref.close()


@pytest.mark.parametrize("sticky", [0.0, 0.25])
def test_get_state_set_state_replays_exactly(sticky):
    envs = ours("Breakout", 2, 1, repeat_action_probability=sticky, autoreset_mode="same_step")
    try:
        envs.reset()
        actions = random_actions(4, 2, 160, 2)
        actions[:, 1] = actions[:, 0]
        for a in actions[:40]:
            envs.step(a)
        state = envs.get_state(0)
        assert state.dtype == np.float64 and state.ndim == 1
        first = [envs.step(a) for a in actions[40:]]
        envs.set_state(0, state)
        envs.set_state(1, state)  # env 1 takes env 0's whole state, the ALE's RNG included
        again = [envs.step(a) for a in actions[40:]]
        for t, (x, y) in enumerate(zip(first, again)):
            for env in (0, 1):
                np.testing.assert_array_equal(x[0][0], y[0][env], err_msg=f"env {env}, step {t} after set_state")
                assert (x[1][0], x[2][0], x[3][0]) == (y[1][env], y[2][env], y[3][env])
                for key in ("lives", "frame_number", "episode_frame_number"):
                    assert x[4][key][0] == y[4][key][env], key
    finally:
        envs.close()


def test_bad_state_is_refused_and_the_pool_goes_on():
    envs = ours("Pong", 1, 0)
    try:
        envs.reset()
        state = envs.get_state(0)
        bad = state.copy()
        bad[-1] = (bad[-1] + 1) % 256
        for wrong, match in ((bad, "checksum"), (state[:10], "too short"), (state + 0.5, "whole numbers")):
            with pytest.raises(ValueError, match=match):
                envs.set_state(0, wrong)
        other = ours("Pong", 1, 0, gray_scale=False)
        try:
            other.reset()
            with pytest.raises(ValueError, match="another configuration"):
                envs.set_state(0, other.get_state(0))
        finally:
            other.close()
        envs.step(np.zeros(1, dtype=np.int64))
    finally:
        envs.close()


def test_same_seed_same_trajectory_with_sticky_actions_and_other_seed_differs():
    def trajectory(seed):
        envs = ours("Pong", 2, seed, repeat_action_probability=0.25)
        try:
            out = [envs.reset()[0]]
            out += [envs.step(a)[0] for a in random_actions(6, 2, 200, 0)]
            return np.stack(out)
        finally:
            envs.close()

    a, b, c = trajectory(10), trajectory(10), trajectory(11)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(stack_num=0), "stack_num"),
        (dict(frame_skip=0), "frame_skip"),
        (dict(noop_max=-1), "noop_max"),
        (dict(img_height=300), "img_height"),
        (dict(img_height=105, img_width=80), "integer factors"),
        (dict(repeat_action_probability=1.5), "repeat_action_probability"),
        (dict(mode=99), "mode=99"),
        (dict(difficulty=42), "difficulty=42"),
        (dict(episodic_life=True, terminal_on_life_loss=True), "exclude each other"),
        (dict(frame_stack_padding="edge"), "frame_stack_padding"),
        (dict(use_inter_area_resize=False), "use_inter_area_resize"),
        (dict(stack_nun=4), "stack_nun"),
    ],
)
def test_bad_kwargs_are_a_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        envpool.make("Pong-v5", num_envs=1, **kwargs)


def test_bad_action_is_refused_and_the_pool_goes_on():
    envs = ours("Pong", 2, 0)
    try:
        envs.reset()
        with pytest.raises(ValueError):
            envs.step(np.array([0, 6]))
        envs.step(np.array([0, 5]))
    finally:
        envs.close()


def test_modes_and_difficulties_change_the_game():
    spec = envpool.make_spec("SpaceInvaders-v5", mode=1, difficulty=1)
    assert spec.config["mode"] == 1
    envs = ours("SpaceInvaders", 1, 0, mode=1)
    try:
        envs.reset()
        envs.step(np.zeros(1, dtype=np.int64))
    finally:
        envs.close()


def run_python(code, **env):
    full_env = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full_env)


def test_missing_rom_is_a_clear_error(tmp_path):
    proc = run_python("import envpool; envpool.make('Pong-v5', num_envs=1)", ALE_ROMS_DIR=str(tmp_path))
    assert proc.returncode != 0
    assert (
        "Atari ROM 'pong' not found" in proc.stderr and str(tmp_path) in proc.stderr and "ALE_ROMS_DIR" in proc.stderr
    )


def test_ale_roms_dir_is_used(tmp_path):
    roms = pathlib.Path(ale_py.__file__).parent / "roms"
    (tmp_path / "pong.bin").write_bytes((roms / "pong.bin").read_bytes())
    (tmp_path / "breakout.bin").write_bytes((roms / "pong.bin").read_bytes())  # a wrong ROM
    code = (
        "import envpool, json\n"
        "e = envpool.make('Pong-v5', num_envs=1); print(json.dumps(e.reset()[0].shape)); e.close()\n"
        "try:\n    envpool.make('Breakout-v5', num_envs=1)\nexcept Exception as x:\n    print(type(x).__name__, x)\n"
    )
    proc = run_python(code, ALE_ROMS_DIR=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert json.loads(lines[0]) == [1, 4, 84, 84]
    # The check names the game the file is (issue 35 item 6: it used to say only "not supported").
    assert "breakout.bin (ROM folder from ALE_ROMS_DIR) is the ROM of another game" in lines[1]
    assert "is that of 'pong' (Pong-v5)" in lines[1]


def test_zero_discount_on_life_loss_in_the_dm_front_end():
    def run(flag):
        envs = envpool.make("Breakout-v5", env_type="dm", num_envs=2, seed=3, zero_discount_on_life_loss=flag)
        try:
            envs.reset()
            rows = []
            for actions in random_actions(4, 2, 400, 3):
                ts = envs.step(actions)
                rows.append((ts.step_type.copy(), ts.discount.copy(), ts.observation.lives.copy()))
            return rows
        finally:
            envs.close()

    with_option, without = run(True), run(False)
    lost_mid = 0
    for (st0, d0, l0), (st1, d1, l1), prev in zip(with_option[1:], without[1:], without):
        np.testing.assert_array_equal(l0, l1)  # the option changes no dynamics
        mid_loss = (st0 == 1) & (l0 < prev[2]) & (st1 == 1)
        lost_mid += int(mid_loss.sum())
        np.testing.assert_array_equal(d0[mid_loss], 0.0)  # a life lost mid-episode: discount 0
        np.testing.assert_array_equal(d1[mid_loss], 1.0)  # without the option: 1
    assert lost_mid >= 2


def test_package_pins_the_envpool_it_was_built_for():
    from importlib.metadata import requires

    pins = [r for r in requires("envpool-ng-atari") if r.replace(" ", "").startswith("envpool-ng==")]
    assert pins == [f"envpool-ng=={envpool.__version__}"], requires("envpool-ng-atari")
    assert "ale-py==0.12.1" in [r.replace(" ", "") for r in requires("envpool-ng-atari")]


@pytest.mark.parametrize("task", ["", "no_such_game", "Pong"])
def test_an_unknown_task_kwarg_is_a_value_error_at_make(task):
    """The ROM name `task` is checked with the other options (a ValueError naming it), not left
    to the ROM lookup's RuntimeError about a missing file; the next make works."""
    with pytest.raises(ValueError, match=f"task must be the ROM name of a game this plugin knows.*got '{task}'"):
        envpool.make("Pong-v5", num_envs=1, task=task)
    envs = envpool.make("Pong-v5", num_envs=1, task="breakout")
    assert envs.single_action_space.n == 4  # Breakout's minimal action set
    envs.close()
