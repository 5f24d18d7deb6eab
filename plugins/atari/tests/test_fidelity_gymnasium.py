"""Ours vs gymnasium's AtariPreprocessing + FrameStackObservation over ale-py (frameskip=1).

(b) runs in gymnasium's SyncVectorEnv in the same autoreset mode. Its ALEs are seeded with our
seeds (seed + i); its reset no-op counts are the ones ours drew (ScriptedNoops: the draw itself
follows AtariVectorEnv and is tested against it), and it has no fire-on-reset, so ours runs with
use_fire_reset=False. Everything else is compared step for step: observations, rewards,
terminated, truncated, lives and the console RAM (our info["ram"] against each of its ALEs'
getRAM()), through game overs, life losses (terminal_on_life_loss) and autoresets, with sticky
actions.
"""

import numpy as np
import pytest
from atari_oracles import gymnasium_oracle, ours, random_actions


def assert_same_ram(info, ref, where):
    """info["ram"] (ours, the 128 bytes after the step) equals each (b) ALE's getRAM() now."""
    assert info["ram"].dtype == np.uint8 and info["ram"].shape == (ref.num_envs, 128)
    for i, env in enumerate(ref.envs):
        np.testing.assert_array_equal(info["ram"][i], env.unwrapped.ale.getRAM(), err_msg=f"{where}: ram of env {i}")


def run(game, num_envs, steps, seed, autoreset_mode="next_step", frame_stack_padding="zero", **kw):
    mine = ours(
        game,
        num_envs,
        seed,
        autoreset_mode=autoreset_mode,
        use_fire_reset=False,
        frame_stack_padding=frame_stack_padding,
        **kw,
    )
    ref, noops = gymnasium_oracle(
        game, [seed + i for i in range(num_envs)], autoreset_mode, frame_stack_padding=frame_stack_padding, **kw
    )
    ends = 0
    try:
        obs, info = mine.reset()
        for i in range(num_envs):
            noops[i].push(info["episode_frame_number"][i])
        r_obs, r_info = ref.reset()
        np.testing.assert_array_equal(obs, r_obs, err_msg="reset obs")
        np.testing.assert_array_equal(info["lives"], r_info["lives"], err_msg="reset lives")
        assert_same_ram(info, ref, "reset")
        actions = random_actions(mine.single_action_space.n, num_envs, steps, seed)
        done = np.zeros(num_envs, bool)
        for t in range(steps):
            obs, reward, terminated, truncated, info = mine.step(actions[t])
            # The envs (b) resets in this step: next step mode, those whose episode ended last
            # step; same step mode, those ending now (their new episode's no-ops are ours').
            now_done = terminated | truncated
            resetting = done if autoreset_mode == "next_step" else now_done
            for i in np.flatnonzero(resetting):
                noops[i].push(info["episode_frame_number"][i])
            r_obs, r_reward, r_terminated, r_truncated, r_info = ref.step(actions[t])
            np.testing.assert_array_equal(obs, r_obs, err_msg=f"step {t}: obs")
            np.testing.assert_array_equal(reward, r_reward, err_msg=f"step {t}: reward")
            np.testing.assert_array_equal(terminated, r_terminated, err_msg=f"step {t}: terminated")
            np.testing.assert_array_equal(truncated, r_truncated, err_msg=f"step {t}: truncated")
            live = ~resetting if autoreset_mode == "next_step" else np.ones(num_envs, bool)
            np.testing.assert_array_equal(info["lives"][live], r_info["lives"][live], err_msg=f"step {t}: lives")
            assert_same_ram(info, ref, f"step {t}")
            if autoreset_mode == "same_step":
                for i in np.flatnonzero(now_done):
                    np.testing.assert_array_equal(
                        info["final_obs"][i], r_info["final_obs"][i], err_msg=f"step {t}: final_obs of env {i}"
                    )
            ends += int(now_done.sum())
            done = now_done
    finally:
        mine.close()
        ref.close()
    return ends


@pytest.mark.parametrize("game", ["Pong", "Breakout", "SpaceInvaders"])
@pytest.mark.parametrize("autoreset_mode", ["next_step", "same_step"])
def test_equals_atari_preprocessing(game, autoreset_mode):
    ends = run(
        game,
        3,
        250,
        seed=7,
        autoreset_mode=autoreset_mode,
        terminal_on_life_loss=game != "Pong",
        repeat_action_probability=0.25,
    )
    if game != "Pong":
        assert ends >= 3


def test_game_over_equals_atari_preprocessing():
    # Breakout without terminal_on_life_loss: episodes end at the game over.
    assert run("Breakout", 2, 900, seed=1) >= 2


def test_frame_limit_and_reset_padding_equal_atari_preprocessing():
    # (b)'s frame limit counts the reset no-ops (the ALE's max_num_frames_per_episode), ours and
    # AtariVectorEnv's do not: equal without no-ops. FrameStackObservation's default padding
    # repeats the first frame: frame_stack_padding="reset".
    ends = run("Pong", 2, 200, seed=4, noop_max=0, max_num_frames_per_episode=320, frame_stack_padding="reset")
    assert ends >= 4


def test_rgb_and_sizes_equal_atari_preprocessing():
    run("SpaceInvaders", 2, 100, seed=8, gray_scale=False, img_height=100, img_width=90, stack_num=2, frame_skip=3)
