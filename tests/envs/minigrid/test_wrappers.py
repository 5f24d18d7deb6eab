"""The obs_wrappers option of the native MiniGrid envs against minigrid 3.2.0's observation
wrappers (minigrid.wrappers) around the same env: the spaces (shape, dtype, bounds) and the
observations step for step along random-action episodes (same_step autoreset, final
observations included), for each wrapper alone and in the usual stacks (an image wrapper, then
ImgObsWrapper or FlatObsWrapper); obs_tile_size is the RGB wrappers' tile_size, and the env's
highlight kwarg reaches RGBImgObsWrapper as in minigrid. Bad wrapper lists are refused."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

import envpool

from .test_minigrid import actions_for, mission_text, ours_kwargs, reference

minigrid_wrappers = pytest.importorskip("minigrid.wrappers")

TILED = {"RGBImgObsWrapper", "RGBImgPartialObsWrapper", "OneHotPartialObsWrapper"}  # take tile_size

CASES = [
    ("MiniGrid-DoorKey-8x8-v0", ["RGBImgObsWrapper"], {}),
    ("MiniGrid-DoorKey-8x8-v0", ["RGBImgPartialObsWrapper"], {}),
    ("MiniGrid-LavaGapS7-v0", ["RGBImgPartialObsWrapper", "ImgObsWrapper"], {}),
    ("MiniGrid-KeyCorridorS3R3-v0", ["RGBImgObsWrapper", "ImgObsWrapper"], {"obs_tile_size": 5}),
    ("MiniGrid-Playground-v0", ["RGBImgObsWrapper"], {"highlight": False, "obs_tile_size": 3}),
    ("MiniGrid-RedBlueDoors-6x6-v0", ["RGBImgPartialObsWrapper"], {"see_through_walls": True, "obs_tile_size": 11}),
    ("MiniGrid-Playground-v0", ["FullyObsWrapper"], {}),
    ("MiniGrid-Fetch-8x8-N3-v0", ["FullyObsWrapper", "ImgObsWrapper"], {}),
    ("MiniGrid-MultiRoom-N4-S5-v1", ["OneHotPartialObsWrapper"], {}),
    ("MiniGrid-PutNear-8x8-N3-v0", ["OneHotPartialObsWrapper", "FlatObsWrapper"], {}),
    ("MiniGrid-LockedRoom-v0", ["FlatObsWrapper"], {}),  # a mission with a comma
    ("MiniGrid-MemoryS13-v0", ["FullyObsWrapper", "FlatObsWrapper"], {}),
    ("MiniGrid-Dynamic-Obstacles-6x6-v0", ["ImgObsWrapper"], {}),
    ("MiniGrid-BlockedUnlockPickup-v0", ["RGBImgPartialObsWrapper", "FlatObsWrapper"], {"agent_view_size": 5}),
    ("MiniGrid-Empty-8x8-v0", [], {}),
]


def wrapped_reference(task, wrappers, kwargs):
    """minigrid's env with its wrappers, innermost first (obs_tile_size: their tile_size)."""
    env_kwargs = {k: v for k, v in kwargs.items() if k != "obs_tile_size"}
    env = reference(task, **env_kwargs)
    for name in wrappers:
        cls = getattr(minigrid_wrappers, name)
        env = cls(env, tile_size=kwargs.get("obs_tile_size", 8)) if name in TILED else cls(env)
    return env


def assert_same(ours, theirs, what):
    if isinstance(theirs, dict):
        np.testing.assert_array_equal(ours["image"], theirs["image"], err_msg=f"{what}: image")
        assert ours["direction"] == theirs["direction"], f"{what}: direction"
        assert mission_text(ours["mission"]) == theirs["mission"], f"{what}: mission"
    else:
        assert ours.dtype == theirs.dtype == np.uint8, what
        np.testing.assert_array_equal(ours, theirs, err_msg=what)


def row(obs, i):
    return {k: v[i] for k, v in obs.items()} if isinstance(obs, dict) else obs[i]


@pytest.mark.parametrize(("task", "wrappers", "kwargs"), CASES)
def test_wrappers_equal_minigrids(task, wrappers, kwargs):
    num_envs, seed = 2, 21
    envs = envpool.make(
        task, num_envs=num_envs, seed=seed, autoreset_mode="same_step", obs_wrappers=wrappers, **ours_kwargs(kwargs)
    )
    refs = [wrapped_reference(task, wrappers, kwargs) for _ in range(num_envs)]
    space, ref_space = envs.single_observation_space, refs[0].observation_space
    if isinstance(ref_space, spaces.Dict):
        assert list(space.keys()) == list(ref_space.keys())
        assert space["image"] == ref_space["image"] and space["direction"] == ref_space["direction"]
    else:
        assert space == ref_space
    obs, _ = envs.reset()
    for i, ref in enumerate(refs):
        assert_same(row(obs, i), ref.reset(seed=seed + i)[0], f"{task} {wrappers} reset {i}")
    for t, action in enumerate(actions_for(num_envs, 60, 2, int(envs.single_action_space.n))):
        obs, reward, terminated, truncated, info = envs.step(action)
        for i, ref in enumerate(refs):
            what = f"{task} {wrappers} step {t} env {i}"
            ref_obs, ref_reward, ref_term, ref_trunc, _ = ref.step(int(action[i]))
            assert (reward[i], terminated[i], truncated[i]) == (ref_reward, ref_term, ref_trunc), what
            if ref_term or ref_trunc:
                assert_same(info["final_obs"][i], ref_obs, what + " (final_obs)")
                ref_obs = ref.reset()[0]
            assert_same(row(obs, i), ref_obs, what)
    envs.close()


def test_default_is_the_plain_observation():
    a = envpool.make("MiniGrid-DoorKey-5x5-v0", num_envs=1, seed=1)
    b = envpool.make("MiniGrid-DoorKey-5x5-v0", num_envs=1, seed=1, obs_wrappers=[], obs_tile_size=8)
    assert a.single_observation_space == b.single_observation_space
    oa, ob = a.reset()[0], b.reset()[0]
    for key in oa:
        np.testing.assert_array_equal(oa[key], ob[key])
    a.close()
    b.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"obs_wrappers": ["RGBImgWrapper"]}, "obs_wrappers: unknown wrapper 'RGBImgWrapper'"),
        ({"obs_wrappers": ["ImgObsWrapper", "FlatObsWrapper"]}, "obs_wrappers: 'ImgObsWrapper' must be the last"),
        ({"obs_wrappers": ["ImgObsWrapper", "RGBImgObsWrapper"]}, "obs_wrappers: 'ImgObsWrapper' must be the last"),
        ({"obs_wrappers": ["FullyObsWrapper", "OneHotPartialObsWrapper"]}, "obs_wrappers: one image wrapper"),
        ({"obs_wrappers": ["RGBImgObsWrapper"], "obs_tile_size": 0}, "obs_tile_size"),
        ({"obs_tile_size": 300}, "obs_tile_size"),
    ],
)
def test_bad_wrappers_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        envpool.make("MiniGrid-DoorKey-5x5-v0", num_envs=1, **kwargs)
