"""render_mode="rgb_array" on the dm_control suite: render() is dm_control's
``physics.render(height, width, camera_id)`` pixel for pixel (both sides draw with MuJoCo's own
renderer of the same libmujoco in an EGL context), with physics.render's default 240 x 320 and
the free camera, the from_pixels frame's size with from_pixels=True, or render_height /
render_width. Software GL costs ~20 ms a frame on each side: a few frames per case.
"""

from __future__ import annotations

import numpy as np
import pytest

import envpool

from ...frames import assert_same_frame
from .oracle import load_suite, skip_unless_egl_frames
from .test_suite import CASES, task_id

skip_unless_egl_frames()


@pytest.fixture(scope="module", autouse=True)
def _frames_here():
    """Skips unless both sides can draw (as test_pixels.py)."""
    load_suite()
    pytest.importorskip("OpenGL", reason="dm_control renders through PyOpenGL (the oracle's side)")
    try:
        envpool.make("PendulumSwingup-v1", num_envs=1, from_pixels=True, height=8, width=8).close()
    except RuntimeError as exc:
        pytest.skip(f"no EGL frames here: {exc}")


def run_pair(domain, task, task_id, seed, steps, render, **kwargs):
    """Our env and dm_control's from the same seed, the frame compared after the reset and after
    each of `steps` steps with the same random actions; render(ref) is dm_control's frame."""
    suite = load_suite()
    ref = suite.load(domain, task, task_kwargs={"random": seed})
    env = envpool.make(task_id, num_envs=1, seed=seed, render_mode="rgb_array", **kwargs)
    try:
        env.reset()
        ref.reset()
        (frame,) = env.render()
        assert_same_frame(frame, render(ref), f"{task_id} reset")
        assert frame.std() > 0  # a real frame, not a cleared buffer
        rng = np.random.default_rng(seed)
        spec = ref.action_spec()
        for k in range(steps):
            action = rng.uniform(spec.minimum, spec.maximum)
            env.step(action[None])
            ref.step(action)
            assert_same_frame(env.render()[0], render(ref), f"{task_id} step {k}")
        return env.render()[0]
    finally:
        env.close()


def test_default_frame_is_physics_render():
    """Without from_pixels: physics.render()'s own defaults, 240 x 320, the free camera."""
    assert envpool.make_spec("CheetahRun-v1").render_shape == (240, 320, 3)
    run_pair("cheetah", "run", "CheetahRun-v1", 7, 3, lambda ref: ref.physics.render())


# One task of each domain (the first dm_control lists), one small frame after a reset.
DOMAINS = [(d, t) for i, (d, t) in enumerate(CASES) if d not in {c[0] for c in CASES[:i]}]


@pytest.mark.parametrize(("domain", "task"), DOMAINS, ids=[d for d, _ in DOMAINS])
def test_every_domain_renders_as_dm_control(domain, task):
    run_pair(
        domain,
        task,
        task_id(domain, task),
        1,
        0,
        lambda ref: ref.physics.render(48, 64),
        render_height=48,
        render_width=64,
    )


def test_render_size_and_camera():
    """render_height / render_width and camera_id (here a tracking camera of walker)."""
    run_pair(
        "walker",
        "walk",
        "WalkerWalk-v1",
        3,
        2,
        lambda ref: ref.physics.render(120, 200, camera_id=0),
        render_height=120,
        render_width=200,
        camera_id=0,
    )


def test_from_pixels_frame_is_the_observation():
    """from_pixels=True: render() is the frame the observation holds (its size and camera)."""
    suite = load_suite()
    ref = suite.load("reacher", "hard", task_kwargs={"random": 5})
    env = envpool.make(
        "ReacherHard-v1", num_envs=1, seed=5, render_mode="rgb_array", from_pixels=True, height=64, width=48
    )
    try:
        obs, _ = env.reset()
        ref.reset()
        assert env.task_spec.render_shape == (64, 48, 3)
        (frame,) = env.render()
        np.testing.assert_array_equal(frame, obs[0])
        assert_same_frame(frame, ref.physics.render(64, 48, camera_id=-1), "reset")
        obs, *_ = env.step(np.full((1, 2), 0.5))
        ref.step(np.full(2, 0.5))
        np.testing.assert_array_equal(env.render()[0], obs[0])
        assert_same_frame(env.render()[0], ref.physics.render(64, 48, camera_id=-1), "step")
    finally:
        env.close()


def test_quadruped_escape_frames_follow_the_terrain():
    """Escape redraws its terrain (a height field) every episode; frames upload it again, as
    dm_control's initialize_episode does: the observation's frames and render()'s equal
    dm_control's in the first episode and in the next, on a new terrain."""
    suite = load_suite()
    ref = suite.load("quadruped", "escape", task_kwargs={"random": 2})
    env = envpool.make(
        "QuadrupedEscape-v1",
        num_envs=1,
        seed=2,
        render_mode="rgb_array",
        from_pixels=True,
        height=64,
        width=64,
        camera_id=2,
    )
    try:
        frames = []
        for episode in range(2):
            obs, _ = env.reset()
            ref.reset()
            want = ref.physics.render(64, 64, camera_id=2)
            assert_same_frame(obs[0], want, f"episode {episode}: the observation")
            assert_same_frame(env.render()[0], want, f"episode {episode}: render()")
            frames.append(want)
        assert not np.array_equal(frames[0], frames[1])
    finally:
        env.close()


def test_bad_render_kwargs():
    with pytest.raises(ValueError, match="render_height x render_width 5000 x 320 is larger than"):
        envpool.make("PendulumSwingup-v1", render_mode="rgb_array", render_height=5000)
    with pytest.raises(ValueError, match="render_width must be in"):
        envpool.make("PendulumSwingup-v1", render_width=-1)
    with pytest.raises(ValueError, match="camera_id"):
        envpool.make("PendulumSwingup-v1", render_mode="rgb_array", camera_id=9)
    env = envpool.make("PendulumSwingup-v1", num_envs=1)
    try:
        env.reset()
        with pytest.raises(RuntimeError, match="render_mode"):
            env.render()
    finally:
        env.close()
