"""The six MiniGrid-WFC-*-v0 ids (cpp/envs/minigrid/wfc*.h) against minigrid 3.2.0 given the same
pattern images: same seed, same initial observation and mission, and episodes of random actions
equal step for step.

minigrid's wheel lacks the PNGs its WFC presets read (minigrid/envs/wfc/patterns/), so upstream
cannot reset these ids as installed. wfc_patterns/ here holds the six from the upstream
repository (Apache-2.0, its LICENSE beside them); the test-side shim points minigrid's preset
configs at them (WFCConfig.pattern_path, a mutable dataclass field: the one place minigrid
reads the path). Ours carries the same pixels compiled in (cpp/envs/minigrid/wfc_patterns.h).

minigrid's generation is slow (about 1 to 9 s a reset at the default size 25, 1 to 10 ms here),
so the cases use sizes 8 to 13 and one reset at size 25.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import envpool

minigrid = pytest.importorskip("minigrid")
if minigrid.__version__ != "3.2.0":
    pytest.skip(f"the native MiniGrid envs follow minigrid 3.2.0, not {minigrid.__version__}", allow_module_level=True)
pytest.importorskip("networkx", reason="minigrid's WFC envs need networkx (minigrid[wfc])")
pytest.importorskip("imageio", reason="minigrid's WFC envs need imageio (minigrid[wfc])")

from minigrid.envs.wfc.config import WFC_PRESETS  # noqa: E402

PATTERNS = Path(__file__).parent / "wfc_patterns"
WFC_IDS = [f"MiniGrid-WFC-{name}-v0" for name in WFC_PRESETS]
# Per id: (size, seeds, steps). Small layouts, as minigrid is slow (Angular, Hogs3, Fabric: 3x3
# patterns). The maze seeds give layouts whose largest open region is under half the open cells
# (found with minigrid when this test was written): the start and goal then come from a CPython
# set's order (cpp/envs/minigrid/wfc_graph.h).
CASES = {
    "MiniGrid-WFC-MazeSimple-v0": (13, [3], 40),
    "MiniGrid-WFC-DungeonMazeScaled-v0": (13, [5], 40),
    "MiniGrid-WFC-RoomsFabric-v0": (9, [0], 40),
    "MiniGrid-WFC-ObstaclesBlackdots-v0": (11, [0, 1], 40),
    "MiniGrid-WFC-ObstaclesAngular-v0": (8, [0], 40),
    "MiniGrid-WFC-ObstaclesHogs3-v0": (8, [0], 40),
}

# The ids whose episodes are followed through autoresets (minigrid rebuilds the pattern catalog
# on every reset: about 1 s for the 3x3-pattern presets, which stop at their first end).
FOLLOW_RESETS = {f"MiniGrid-WFC-{name}-v0" for name in ("MazeSimple", "DungeonMazeScaled", "ObstaclesBlackdots")}


@pytest.fixture(scope="module", autouse=True)
def upstream_patterns():
    """minigrid's presets read the shipped copies of its pattern images while this module runs."""
    saved = {name: config.pattern_path for name, config in WFC_PRESETS.items()}
    for config in WFC_PRESETS.values():
        config.pattern_path = PATTERNS / Path(config.pattern_path).name
    yield
    for name, path in saved.items():
        WFC_PRESETS[name].pattern_path = path


def reference(task, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return gym.make(task, **kwargs).unwrapped


def assert_obs_equal(ours, i, ref_obs, what):
    np.testing.assert_array_equal(ours["image"][i], ref_obs["image"], err_msg=f"{what}: image")
    assert ours["direction"][i] == ref_obs["direction"], f"{what}: direction"
    assert bytes(ours["mission"][i]).rstrip(b"\0").decode() == ref_obs["mission"], f"{what}: mission"


def test_the_six_ids_are_minigrids():
    ours = sorted(t for t in envpool.list_all_envs() if t.startswith("MiniGrid-WFC-"))
    assert ours == sorted(WFC_IDS)
    for task in ours:
        assert task in gym.registry
        assert envpool.make_spec(task).config["wfc_config"] == gym.spec(task).kwargs["wfc_config"]


@pytest.mark.parametrize("task", WFC_IDS)
def test_random_episodes(task):
    """The grids (the full encoding, walls, goal and agent) and episodes of random actions
    (forward-heavy, so that some reach the goal) equal minigrid's, env i seeded seed + i."""
    size, seeds, steps = CASES[task]
    envs = envpool.make(task, num_envs=len(seeds), seed=seeds[0], size=size)
    refs = [reference(task, size=size) for _ in seeds]
    obs, _ = envs.reset()
    for i, ref in enumerate(refs):
        assert_obs_equal(obs, i, ref.reset(seed=seeds[0] + i)[0], f"{task} reset {i}")
    actions = np.random.default_rng(0).choice(3, size=(steps, len(seeds)), p=[0.2, 0.2, 0.6])
    ended_before = np.zeros(len(seeds), bool)
    done = np.zeros(len(seeds), bool)
    for t, action in enumerate(actions):
        obs, reward, terminated, truncated, _ = envs.step(action)
        for i, ref in enumerate(refs):
            what = f"{task} step {t} env {i}"
            if ended_before[i]:  # next_step autoreset: this row is the next episode's reset
                if task in FOLLOW_RESETS:
                    assert_obs_equal(obs, i, ref.reset()[0], what + " (autoreset)")
                    continue
                done[i] = True
            if done[i]:
                continue
            ref_obs, ref_reward, ref_term, ref_trunc, _ = ref.step(int(action[i]))
            assert (reward[i], terminated[i], truncated[i]) == (ref_reward, ref_term, ref_trunc), what
            assert_obs_equal(obs, i, ref_obs, what)
        ended_before = terminated | truncated
    envs.close()


def test_default_size_grid():
    """At the default size 25 (seed 0: again a largest region under half the open cells) the
    whole grid, rendered with small tiles, and the first observation equal minigrid's."""
    task = "MiniGrid-WFC-MazeSimple-v0"
    envs = envpool.make(task, num_envs=1, seed=0, render_mode="rgb_array", tile_size=4)
    obs, _ = envs.reset()
    ref = reference(task, render_mode="rgb_array", tile_size=4)
    assert_obs_equal(obs, 0, ref.reset(seed=0)[0], task)
    np.testing.assert_array_equal(envs.render()[0], ref.render())
    envs.close()


def test_kwargs():
    # ensure_connected=False keeps every open cell; max_steps truncates; see_through_walls and
    # agent_view_size reach MiniGridEnv as minigrid passes them on; a preset without shipped
    # images is refused with a message naming the presets.
    task = "MiniGrid-WFC-ObstaclesBlackdots-v0"
    kwargs = {"size": 10, "ensure_connected": False, "max_steps": 5, "see_through_walls": True, "agent_view_size": 5}
    envs = envpool.make(task, num_envs=1, seed=3, **kwargs)
    ref = reference(task, **kwargs)
    obs, _ = envs.reset()
    assert_obs_equal(obs, 0, ref.reset(seed=3)[0], "reset")
    for t in range(5):
        obs, reward, terminated, truncated, _ = envs.step(np.array([t % 3]))
        ref_obs, ref_reward, ref_term, ref_trunc, _ = ref.step(t % 3)
        assert (reward[0], terminated[0], truncated[0]) == (ref_reward, ref_term, ref_trunc), t
        assert_obs_equal(obs, 0, ref_obs, f"step {t}")
    assert truncated[0]
    envs.close()
    with pytest.raises(ValueError, match="wfc_config must be one of"):
        envpool.make(task, num_envs=1, wfc_config="MazeKnot")
    with pytest.raises(ValueError, match="size"):
        envpool.make(task, num_envs=1, size=2)
