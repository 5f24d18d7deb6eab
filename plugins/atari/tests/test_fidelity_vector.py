"""Ours vs ale-py's AtariVectorEnv: same ROM, seed and settings -> the same trajectories.

Observations, rewards, terminations, truncations and the info fields (lives, frame_number,
episode_frame_number) are compared step for step with random actions, through episode ends
(game over, life loss with terminal_on_life_loss, the frame limit) and autoresets, in both
autoreset modes, full batch and async, with sticky actions.
"""

import numpy as np
import pytest
from atari_oracles import ours, random_actions, vector_oracle

INFO_KEYS = ("lives", "frame_number", "episode_frame_number")


def assert_same_row(a, b, where):
    np.testing.assert_array_equal(a, b, err_msg=where)


def run_full_batch(game, num_envs, steps, seed, autoreset_mode="next_step", **kw):
    """Steps ours and (a) side by side; returns how many episode ends were compared."""
    mine = ours(game, num_envs, seed, autoreset_mode=autoreset_mode, **kw)
    ref = vector_oracle(game, num_envs, autoreset_mode=autoreset_mode, **kw)
    ends = 0
    try:
        assert mine.single_action_space == ref.single_action_space
        assert mine.single_observation_space == ref.single_observation_space
        obs, info = mine.reset()
        r_obs, r_info = ref.reset(seed=seed)
        np.testing.assert_array_equal(obs, r_obs, err_msg="reset obs")
        for key in INFO_KEYS:
            np.testing.assert_array_equal(info[key], r_info[key], err_msg=f"reset {key}")
        actions = random_actions(mine.single_action_space.n, num_envs, steps, seed)
        for t in range(steps):
            out = mine.step(actions[t])
            r_out = ref.step(actions[t])
            for name, a, b in zip(("obs", "reward", "terminated", "truncated"), out[:4], r_out[:4]):
                np.testing.assert_array_equal(a, b, err_msg=f"step {t}: {name}")
            for key in INFO_KEYS:
                np.testing.assert_array_equal(out[4][key], r_out[4][key], err_msg=f"step {t}: info {key}")
            done = out[2] | out[3]
            if autoreset_mode == "same_step" and done.any():
                for i in np.flatnonzero(done):
                    np.testing.assert_array_equal(
                        out[4]["final_obs"][i], r_out[4]["final_obs"][i], err_msg=f"step {t}: final_obs of env {i}"
                    )
            ends += int(done.sum())
    finally:
        mine.close()
        ref.close()
    return ends


@pytest.mark.parametrize("game", ["Pong", "Breakout", "SpaceInvaders"])
@pytest.mark.parametrize("autoreset_mode", ["next_step", "same_step"])
def test_full_batch_equals_atari_vector_env(game, autoreset_mode):
    # A short frame limit and terminal_on_life_loss (AtariVectorEnv's episodic_life) make
    # episodes end often: truncations in every game, terminations at life losses.
    ends = run_full_batch(
        game,
        4,
        300,
        seed=3,
        autoreset_mode=autoreset_mode,
        max_num_frames_per_episode=600,
        terminal_on_life_loss=game != "Pong",
    )
    assert ends >= 4


@pytest.mark.parametrize("game", ["Pong", "Breakout", "SpaceInvaders"])
def test_default_options_equal_atari_vector_env(game):
    # Our defaults (the reference EnvPool's names) with AtariVectorEnv's reward_clipping off.
    run_full_batch(game, 2, 150, seed=11)


def test_game_over_and_sticky_actions_equal_atari_vector_env():
    # Breakout's 5 lives end in a game over within a few hundred random steps; sticky actions
    # draw from the ALE's own RNG, seeded as AtariVectorEnv seeds it.
    ends = run_full_batch("Breakout", 3, 700, seed=5, repeat_action_probability=0.25)
    assert ends >= 3


def test_rgb_no_maxpool_and_other_sizes_equal_atari_vector_env():
    run_full_batch(
        "SpaceInvaders",
        2,
        120,
        seed=2,
        gray_scale=False,
        img_height=96,
        img_width=72,
        stack_num=3,
        frame_skip=3,
        maxpool=False,
        noop_max=7,
        use_fire_reset=False,
        reward_clip=True,
        max_num_frames_per_episode=300,
    )


def test_async_equals_atari_vector_env_per_env():
    """batch_size < num_envs: batches differ in composition, each env's trajectory is the same."""
    game, num_envs, batch, seed, rounds = "Breakout", 6, 3, 9, 160
    kw = dict(max_num_frames_per_episode=400, terminal_on_life_loss=True)
    mine = ours(game, num_envs, seed, batch_size=batch, **kw)
    ref = vector_oracle(game, num_envs, batch_size=batch, **kw)
    actions = random_actions(mine.single_action_space.n, num_envs, rounds + 1, seed)

    def first_batch(name):
        if name == "ours":
            mine.async_reset()
            return mine.recv()
        obs, info = ref.reset(seed=seed)  # AtariVectorEnv's reset returns its first batch
        return obs, np.zeros(batch), np.zeros(batch, bool), np.zeros(batch, bool), info

    traj = {}
    try:
        for name, env in (("ours", mine), ("ref", ref)):
            traj[name] = [[] for _ in range(num_envs)]
            count = [0] * num_envs
            obs, reward, terminated, truncated, info = first_batch(name)
            for _ in range(rounds):
                ids = info["env_id"]
                for row, i in enumerate(ids):
                    traj[name][i].append((obs[row], reward[row], terminated[row], truncated[row], info["lives"][row]))
                batch_actions = np.array([actions[count[i], i] for i in ids])
                if name == "ours":
                    env.send(batch_actions, ids)
                else:
                    env.send(batch_actions)  # AtariVectorEnv sends to the envs of its last batch
                for i in ids:
                    count[i] += 1
                obs, reward, terminated, truncated, info = env.recv()
    finally:
        mine.close()
        ref.close()
    ends = 0
    for i in range(num_envs):
        n = min(len(traj["ours"][i]), len(traj["ref"][i]))
        assert n >= 20
        for k in range(n):
            for a, b in zip(traj["ours"][i][k], traj["ref"][i][k]):
                np.testing.assert_array_equal(a, b, err_msg=f"env {i}, its step {k}")
            ends += bool(traj["ours"][i][k][2] or traj["ours"][i][k][3])
    assert ends >= 3
