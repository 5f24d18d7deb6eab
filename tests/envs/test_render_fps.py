"""The frame rate of every task that renders: what its C++ spec declares (EnvSpec::render_fps,
``make_spec(task).render_fps``, the front ends' ``metadata["render_fps"]``) against what the
reference env declares itself: gymnasium's ``metadata["render_fps"]`` (MuJoCo's computed when
the env is made, from the model's timestep and ``frame_skip``), minigrid's (through its gymnasium
registrations), Procgen's own vector env's ``"video.frames_per_second"``, the ``metadata`` of
mpe2's and PettingZoo's env classes and of ale-py's (the Atari plugin's games); dm_control's
``control.Environment`` declares none. A task that renders and whose reference this file does
not know fails, so that a new family that renders says where its rate comes from."""

from __future__ import annotations

import gymnasium
import pytest

import envpool
from envpool.tasks import make_spec, registered_tasks

try:
    import minigrid  # noqa: F401  (registers the MiniGrid and BabyAI ids with gymnasium)
except ImportError:
    pass


def _rendering_tasks() -> list[str]:
    """Every task that renders, once (an alias has its task's spec: tests/registry/test_aliases.py)."""
    tasks = []
    for task_id, record in registered_tasks().items():
        if task_id != record["id"]:
            continue
        try:
            spec = make_spec(task_id)
        except Exception:  # a family whose outside library is missing: its own tests say so
            continue
        if spec.render_shape is not None:
            tasks.append(task_id)
    return tasks


RENDERING = _rendering_tasks()


# The reference EnvPool's tasks that gymnasium no longer registers: their references' own
# metadata. gym 0.20's PendulumEnv declares "video.frames_per_second": 30 (Pendulum-v0); bsuite's
# Catch and gym 0.19's NChainEnv draw no frames and declare no rate (ours are our own pictures).
OLD_REFERENCE_FPS = {"Pendulum-v0": 30, "Catch-v0": None, "NChain-v0": None}

# The multi-agent tasks' references: mpe2's and PettingZoo's env classes (their metadata).
PETTINGZOO_REFERENCES = {
    "SimpleSpread-v3": ("mpe2.simple_spread_v3", "raw_env"),
    "SimpleTag-v3": ("mpe2.simple_tag_v3", "raw_env"),
    "SimpleAdversary-v3": ("mpe2.simple_adversary_v3", "raw_env"),
    "TicTacToe-v3": ("pettingzoo.classic.tictactoe_v3", "raw_env"),
    "ConnectFour-v3": ("pettingzoo.classic.connect_four_v3", "raw_env"),
}


# gymnasium's ids of tasks envpool has that an older gymnasium (>= 1.1, the oldest supported)
# lacks, and the release that added each (as tests/envs/toy_text/oracle.py says).
GYMNASIUM_ADDED = {"Taxi-v4": "1.3", "CliffWalking-v1": "1.2", "CliffWalkingSlippery-v1": "1.2"}


def _reference_fps(task_id: str, **kwargs) -> int | None:
    if task_id in OLD_REFERENCE_FPS:
        return OLD_REFERENCE_FPS[task_id]
    if task_id in PETTINGZOO_REFERENCES:
        module, name = PETTINGZOO_REFERENCES[task_id]
        return getattr(pytest.importorskip(module), name).metadata.get("render_fps")
    task = registered_tasks()[task_id]
    if task["origin"].startswith("plugin atari "):  # the Atari plugin's games: ale-py's AtariEnv
        return pytest.importorskip("ale_py.env").AtariEnv.metadata.get("render_fps")
    defaults = task["defaults"]
    if {"env_name", "distribution_mode"} <= defaults.keys():  # Procgen's games
        from .procgen.oracle import procgen_env_module

        return procgen_env_module().ToBaselinesVecEnv.metadata["video.frames_per_second"]
    if {"task_name", "control_timestep"} <= defaults.keys():  # dm_control's suite
        return None
    spec = gymnasium.envs.registry.get(task_id)
    if spec is None and task_id in GYMNASIUM_ADDED:
        added = GYMNASIUM_ADDED[task_id]
        pytest.skip(f"gymnasium {gymnasium.__version__} has no {task_id} (gymnasium {added} added it)")
    if spec is None:
        if task_id.startswith(("MiniGrid-", "BabyAI-")):
            pytest.skip("the MiniGrid frame rates are compared with minigrid's: pip install minigrid")
        pytest.fail(f"{task_id} renders, but this test knows no reference for its frame rate: add one")
    if "mujoco" in str(spec.entry_point):  # MujocoEnv sets its render_fps when made, from its dt
        try:
            from gymnasium.envs.mujoco import mujoco_env  # noqa: F401
        except ImportError as exc:
            pytest.skip(f"gymnasium's MuJoCo envs cannot be imported here: {exc}")
        from .mujoco import gym_oracle  # the v3 / v2 ids' oracle is a v4 class; Pusher-v4's guard

        env = gym_oracle.make(task_id, **kwargs)
        fps = env.unwrapped.metadata.get("render_fps")
        env.close()
        return fps
    try:
        creator = gymnasium.envs.registration.load_env_creator(spec.entry_point)
    except (ImportError, gymnasium.error.DependencyNotInstalled) as exc:
        pytest.skip(f"gymnasium's {task_id} cannot be imported here: {exc}")
    return creator.metadata.get("render_fps")


def test_the_rendering_families_are_all_here():
    assert {"CartPole-v1", "Taxi-v4", "MiniGrid-Empty-5x5-v0", "BigfishEasy-v0"} <= set(RENDERING)


@pytest.mark.parametrize("task_id", RENDERING)
def test_render_fps_is_the_references(task_id):
    assert make_spec(task_id).render_fps == _reference_fps(task_id)


@pytest.mark.parametrize("kwargs", [{"frame_skip": 2}, {"frame_skip": 5}])
def test_mujoco_render_fps_follows_frame_skip(kwargs):
    if "Hopper-v5" not in RENDERING:
        pytest.skip("the MuJoCo tasks need MuJoCo (pip install 'envpool-ng[mujoco]')")
    ours = make_spec("Hopper-v5", **kwargs).render_fps
    assert ours == _reference_fps("Hopper-v5", **kwargs) == round(1 / (0.002 * kwargs["frame_skip"]))


@pytest.mark.parametrize("task_id", ["MountainCar-v0", "FrozenLake-v1"])
def test_the_front_ends_report_it(task_id):
    fps = make_spec(task_id).render_fps
    single = gymnasium.make(f"envpool/{task_id}", render_mode="rgb_array")
    pool = envpool.make(task_id, num_envs=2, render_mode="rgb_array")
    assert single.unwrapped.metadata["render_fps"] == pool.metadata["render_fps"] == fps is not None
    single.close()
    pool.close()


def test_a_task_that_does_not_render_declares_no_rate():
    import envpool.testing

    envpool.testing.load_step_counter()  # the test plugin's env draws no frames
    assert make_spec("StepCounter-v0").render_shape is None
    assert make_spec("StepCounter-v0").render_fps is None
    pool = envpool.make("StepCounter-v0", num_envs=1)
    assert "render_fps" not in pool.metadata
    pool.close()
