"""The native BabyAI levels (cpp/envs/minigrid/babyai_*.h) against minigrid 3.2.0: all 96 ids
and their kwargs, the spaces (the mission 512 bytes wide), the same seed giving the same initial
observation and mission ("go to the red ball", "pick up a grey object", "open the door on your
left, then put a box next to the red key" ...), random-action episodes equal step for step in
all autoreset modes (rewards and failures from the instruction's verifier, max_steps from the
instruction or the level), scripted episodes that reach the target with minigrid's reward,
kwargs and refusals. Episodes that minigrid's BabyAI bot solves: test_babyai_bot.py.

minigrid prints "Sampling rejected: ..." when a level is generated again; so may the reference
envs here.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envpool

from .test_minigrid import (
    _path_to_face,
    actions_for,
    assert_obs_equal,
    check_initial_observations,
    ours_kwargs,
    reference,
    run_episodes,
)

# Every BabyAI id minigrid 3.2.0 registers (test_minigrid skips this package unless it is 3.2.0).
BABYAI_IDS = sorted(t for t in gym.registry if t.startswith("BabyAI-"))
MISSION_BYTES = 512  # the reference EnvPool's width for BabyAI ids


def test_native_babyai_ids_are_minigrids():
    ours = sorted(t for t in envpool.list_all_envs() if t.startswith("BabyAI-"))
    assert len(BABYAI_IDS) == 96
    assert ours == BABYAI_IDS
    for task in ours:
        assert task in gym.registry, task
        assert envpool.make_spec(task).max_episode_steps in (None, 0)  # the level truncates itself


def test_the_envs_own_step_limit_is_minigrids_max_steps():
    """``make_spec(...).env_step_limit``: a level's fixed max_steps as minigrid's, or -1 where
    minigrid sets it anew each episode from the instruction (``fixed_max_steps`` False)."""
    per_episode = 0
    for task in BABYAI_IDS:
        ref = reference(task)
        ref.reset(seed=0)
        expected = ref.max_steps if ref.fixed_max_steps else -1
        per_episode += expected == -1
        assert envpool.make_spec(task).env_step_limit == expected, task
    assert 0 < per_episode < len(BABYAI_IDS)
    assert envpool.make_spec("BabyAI-GoToLocal-v0", max_steps=30).env_step_limit == 30


def test_spaces():
    envs = envpool.make("BabyAI-GoToLocal-v0", num_envs=2)
    ref = reference("BabyAI-GoToLocal-v0")
    space = envs.single_observation_space
    assert space["image"] == ref.observation_space["image"]
    assert space["direction"] == ref.observation_space["direction"]
    assert space["mission"] == gym.spaces.Box(0, 255, (MISSION_BYTES,), np.uint8)
    assert envs.single_action_space == ref.action_space
    envs.close()


@pytest.mark.parametrize("task", BABYAI_IDS)
def test_initial_observation_and_mission(task):
    check_initial_observations(task)


@pytest.mark.parametrize("task", BABYAI_IDS)
def test_random_episodes(task):
    # GoTo levels end when the agent faces the target (or at max_steps: 64 in one room of 8).
    run_episodes(task, "next_step", steps=150)


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize(
    "task",
    [
        "BabyAI-GoToLocalS6N4-v0",
        "BabyAI-OpenDoorsOrderN4Debug-v0",  # Before / After of strict Opens: failures end episodes
        "BabyAI-PickupDistDebug-v0",
        "BabyAI-PutNextS5N2Carrying-v0",  # the object handed over after each reset
    ],
)
def test_autoreset_modes(task, mode):
    steps = 450 if "Carrying" in task else 150  # its episodes mostly end at max_steps (200)
    assert run_episodes(task, mode, steps=steps) > 3


@pytest.mark.parametrize(
    "task",
    [
        "BabyAI-GoToRedBallGrey-v0",
        "BabyAI-GoToObj-v0",
        "BabyAI-GoToLocal-v0",
        "BabyAI-GoToRedBlueBall-v0",
        "BabyAI-GoToOpen-v0",  # through the open doors of a 3 x 3 maze
        "BabyAI-GoToDoor-v0",
        "BabyAI-GoToObjDoor-v0",
    ],
)
def test_scripted_episodes_reach_the_target(task):
    for seed in (30, 31, 32):
        envs = envpool.make(task, num_envs=1, seed=seed)
        ref = reference(task)
        obs, _ = envs.reset()
        assert_obs_equal(obs, 0, ref.reset(seed=seed)[0], f"{task} seed {seed} reset")
        target = min(tuple(int(v) for v in pos) for pos in ref.instrs.desc.obj_poss)
        for action in _path_to_face(ref, target):
            obs, reward, terminated, truncated, _ = envs.step(np.array([action]))
            ref_obs, ref_reward, ref_term, ref_trunc, _ = ref.step(action)
            assert (reward[0], terminated[0], truncated[0]) == (ref_reward, ref_term, ref_trunc), (task, seed)
            assert_obs_equal(obs, 0, ref_obs, f"{task} seed {seed} action {action}")
            if ref_term:
                break
        assert ref_term and ref_reward > 0, f"{task} seed {seed}: the script did not reach the target"
        envs.close()


KWARG_CASES = [
    ("BabyAI-GoToLocal-v0", {"room_size": 9, "num_dists": 12}),
    ("BabyAI-GoToLocalS5N2-v0", {"max_steps": 20, "agent_view_size": 5}),
    ("BabyAI-GoToRedBall-v0", {"num_dists": 2, "room_size": 6}),
    ("BabyAI-GoToRedBallGrey-v0", {"num_dists": 0}),
    ("BabyAI-GoToObj-v0", {"room_size": 5, "agent_view_size": 9}),
    ("BabyAI-GoTo-v0", {"num_rows": 2, "num_cols": 3, "num_dists": 5, "room_size": 6}),
    ("BabyAI-GoToOpen-v0", {"num_dists": 4, "max_steps": 100}),
    ("BabyAI-GoToRedBlueBall-v0", {"num_dists": 3}),
    ("BabyAI-OpenDoor-v0", {"select_by": "loc", "debug": True}),
    ("BabyAI-OpenTwoDoors-v0", {"first_color": "yellow", "strict": True, "max_steps": 60}),
    ("BabyAI-OpenDoorsOrderN2-v0", {"num_doors": 3, "debug": True}),
    ("BabyAI-PickupDist-v0", {"debug": True, "agent_view_size": 3}),
    ("BabyAI-PutNextLocal-v0", {"room_size": 6, "num_objs": 5}),
    ("BabyAI-PutNextS5N2-v0", {"objs_per_room": 3, "start_carrying": True}),
    ("BabyAI-UnlockLocal-v0", {"distractors": True}),
    ("BabyAI-KeyCorridor-v0", {"num_rows": 2, "room_size": 4, "obj_type": "key"}),
    ("BabyAI-FindObjS5-v0", {"room_size": 6}),
    ("BabyAI-MoveTwoAcrossS5N2-v0", {"room_size": 6, "objs_per_room": 4}),
    ("BabyAI-Synth-v0", {"locked_room_prob": 1.0, "num_dists": 6, "room_size": 6}),
    ("BabyAI-BossLevel-v0", {"num_rows": 2, "num_cols": 2, "num_dists": 5, "locked_room_prob": 0.0}),
    ("BabyAI-GoToSeq-v0", {"num_rows": 1, "num_cols": 2, "num_dists": 6}),
]


@pytest.mark.parametrize(("task", "kwargs"), KWARG_CASES)
def test_kwargs_as_minigrid_takes_them(task, kwargs):
    run_episodes(task, "next_step", steps=80, num_envs=2, seed=3, ours=ours_kwargs(kwargs), theirs=kwargs)


BAD_KWARGS = [
    ("BabyAI-GoToLocal-v0", {"num_dists": 0}, "num_dists"),
    ("BabyAI-GoToLocal-v0", {"room_size": 5, "num_dists": 7}, "num_dists"),  # 9 free cells
    ("BabyAI-GoToRedBall-v0", {"room_size": 3}, "room_size"),
    ("BabyAI-GoToObj-v0", {"max_steps": -1}, "max_steps"),
    ("BabyAI-GoToRedBallNoDists-v0", {"room_size": 6}, "room_size"),  # minigrid fixes it
    ("BabyAI-GoTo-v0", {"num_rows": 9}, "num_rows"),
    ("BabyAI-GoTo-v0", {"num_dists": 0}, "num_dists"),
    ("BabyAI-GoToDoor-v0", {"room_size": 8}, "room_size"),
    ("BabyAI-OpenDoor-v0", {"select_by": "size"}, "select_by"),
    ("BabyAI-OpenTwoDoors-v0", {"first_color": "pink"}, "first_color"),
    ("BabyAI-OpenDoorsOrderN2-v0", {"num_doors": 5}, "num_doors"),
    ("BabyAI-PutNextS4N1-v0", {"objs_per_room": 10}, "objs_per_room"),
    ("BabyAI-PutNextLocal-v0", {"num_objs": 19}, "num_objs"),
    ("BabyAI-KeyCorridor-v0", {"obj_type": "door"}, "obj_type"),
    ("BabyAI-Synth-v0", {"locked_room_prob": 1.5}, "locked_room_prob"),
    ("BabyAI-Synth-v0", {"num_rows": 1, "num_cols": 1, "locked_room_prob": 0.5}, "locked room"),
    ("BabyAI-MiniBossLevel-v0", {"room_size": 8}, "room_size"),  # minigrid fixes it
    ("BabyAI-Open-v0", {"num_rows": 2}, "num_rows"),  # not a kwarg of ours
]


@pytest.mark.parametrize(("task", "kwargs", "key"), BAD_KWARGS)
def test_bad_kwargs_refused(task, kwargs, key):
    with pytest.raises((ValueError, TypeError), match=key):
        envpool.make(task, num_envs=2, **kwargs)


def test_render_and_a_wrapper_equal_minigrids():
    # The MiniGrid options reach BabyAI's levels too: frames and RGBImgPartialObsWrapper.
    from minigrid.wrappers import RGBImgPartialObsWrapper

    task = "BabyAI-GoToLocalS8N7-v0"
    envs = envpool.make(task, num_envs=1, seed=9, render_mode="rgb_array", obs_wrappers=["RGBImgPartialObsWrapper"])
    ref = RGBImgPartialObsWrapper(reference(task, render_mode="rgb_array"))
    obs, _ = envs.reset()
    ref_obs, _ = ref.reset(seed=9)
    for t, action in enumerate(actions_for(1, 40, 2)[:, 0]):
        np.testing.assert_array_equal(obs["image"][0], ref_obs["image"], err_msg=f"step {t}")
        np.testing.assert_array_equal(envs.render()[0], ref.unwrapped.render(), err_msg=f"step {t}")
        obs, _, terminated, truncated, _ = envs.step(np.array([action]))
        ref_obs, _, ref_term, ref_trunc, _ = ref.step(int(action))
        assert (terminated[0], truncated[0]) == (ref_term, ref_trunc)
        if ref_term or ref_trunc:
            break
    envs.close()
