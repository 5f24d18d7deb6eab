"""from_pixels against dm_control's pixels.Wrapper, pixel for pixel (both draw with MuJoCo's own
renderer of the same libmujoco in an EGL context).

From the same seed (so the same initial state and, for tasks that move targets or recolour
geoms in their model, the same model), after a reset and after steps, our ``pixels``
observation equals ``physics.render(height, width, camera_id)`` exactly; with
``pixels_only=False`` the state entries come first, as the wrapper's.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

import envpool

from .oracle import load_suite, skip_unless_egl_frames

skip_unless_egl_frames()


@pytest.fixture(scope="module", autouse=True)
def _frames_here():
    """Skips unless both sides can draw: dm_control (with PyOpenGL, its EGL backend's binding)
    and an EGL context of ours."""
    load_suite()
    pytest.importorskip("OpenGL", reason="dm_control renders through PyOpenGL (the oracle's side)")
    try:
        envpool.make("PendulumSwingup-v1", num_envs=1, from_pixels=True, height=8, width=8).close()
    except RuntimeError as exc:
        pytest.skip(f"no EGL frames here: {exc}")


# (domain, task, our id, camera_id, height, width): a fixed camera, the free camera with a target
# moved in the env's own model (reacher), a tracking camera. Software GL is slow (~50 ms a frame
# on a loaded 2-core machine, on both sides), so: one env, a reset and 3 steps each.
CASES = [
    ("cheetah", "run", "CheetahRun-v1", 0, 84, 84),
    ("reacher", "hard", "ReacherHard-v1", -1, 64, 48),
    ("quadruped", "walk", "QuadrupedWalk-v1", 2, 84, 84),
]


@pytest.mark.parametrize(
    ("domain", "task", "task_id", "camera_id", "height", "width"), CASES, ids=[c[2] for c in CASES]
)  # noqa: E501
def test_pixels_equal_dm_control(domain, task, task_id, camera_id, height, width):
    suite = load_suite()
    seed = 11
    ref = suite.load(domain, task, task_kwargs={"random": seed})
    env = envpool.make(
        task_id, env_type="dm", num_envs=1, seed=seed, from_pixels=True, height=height, width=width, camera_id=camera_id
    )
    # pixels_only: the frame is the whole observation, {"pixels": frame} as the wrapper's
    assert env.observation_spec()["pixels"].shape == (height, width, 3)
    render = lambda: ref.physics.render(height, width, camera_id=camera_id)  # noqa: E731
    ts = env.reset()
    ref.reset()
    np.testing.assert_array_equal(ts.observation.obs["pixels"][0], render())
    assert ts.observation.obs["pixels"][0].std() > 0  # a real frame, not a cleared buffer
    rng = np.random.default_rng(0)
    spec = ref.action_spec()
    for k in range(3):
        action = rng.uniform(spec.minimum, spec.maximum)
        ts = env.step(action[None])
        ref.step(action)
        np.testing.assert_array_equal(ts.observation.obs["pixels"][0], render(), err_msg=f"step {k}")
    env.close()


# dm_control's options that shape the observation: (from_pixels, pixels_only, flat_observation).
PIXEL_OPTIONS = [(True, True, False), (True, False, False), (True, True, True), (True, False, True)]


@pytest.mark.parametrize(("from_pixels", "pixels_only", "flat"), PIXEL_OPTIONS)
def test_dm_front_end_has_dm_controls_structure(from_pixels, pixels_only, flat):
    """env_type="dm" gives the observation and its spec dm_control's structure for each option
    (issue 55 item 5: DrQ-style code indexes ``time_step.observation["pixels"]``): the same
    OrderedDict keys in the same order, the same specs (``specs.Array`` named by key), the same
    values, against ``pixels.Wrapper`` over ``suite.load(..., flat_observation=...)``."""
    from dm_control.suite.wrappers import pixels

    suite = load_suite()
    ref = suite.load(
        "walker", "walk", task_kwargs={"random": 6}, environment_kwargs={"flat_observation": flat}
    )  # walker: entries not in alphabetical order, one of them a scalar (height)
    ref = pixels.Wrapper(ref, pixels_only=pixels_only, render_kwargs={"height": 84, "width": 84, "camera_id": 0})
    env = envpool.make_dm(
        "WalkerWalk-v1", num_envs=1, seed=6, from_pixels=from_pixels, pixels_only=pixels_only, flat_observation=flat,
        camera_id=0,
    )  # fmt: skip
    try:
        assert env.observation_spec() == ref.observation_spec()
        assert type(env.observation_spec()) is type(ref.observation_spec())
        for ts, ref_ts in ((env.reset(), ref.reset()), (env.step(np.full((1, 6), 0.3)), ref.step(np.full(6, 0.3)))):
            obs = ts.observation.obs
            assert type(obs) is collections.OrderedDict and list(obs) == list(ref_ts.observation)
            for key, value in ref_ts.observation.items():
                np.testing.assert_array_equal(obs[key][0], value, err_msg=key)
                assert ts.observation[key] is obs[key]  # as dm_control's code indexes it
        with pytest.raises(KeyError, match="the observation's entries are"):
            ts.observation["state"]
    finally:
        env.close()


def test_pixels_beside_the_state_and_bad_kwargs():
    suite = load_suite()
    ref = suite.load("pendulum", "swingup", task_kwargs={"random": 3})
    env = envpool.make("PendulumSwingup-v1", env_type="dm", num_envs=1, seed=3, from_pixels=True, pixels_only=False)
    obs = env.reset().observation.obs
    ref_obs = ref.reset().observation
    assert list(obs) == [*ref_obs, "pixels"]  # the wrapper appends "pixels" to the state entries
    for key, value in ref_obs.items():
        np.testing.assert_array_equal(obs[key][0], value)
    np.testing.assert_array_equal(obs["pixels"][0], ref.physics.render(84, 84, camera_id=-1))
    env.close()
    with pytest.raises(ValueError, match="camera_id"):
        envpool.make("PendulumSwingup-v1", num_envs=1, from_pixels=True, camera_id=7)
    with pytest.raises(ValueError, match="offscreen buffer"):
        envpool.make("PendulumSwingup-v1", num_envs=1, from_pixels=True, height=5000, width=84)


def test_pixels_frame_stack():
    """frame_stack=2 with pixels: (H, W, 6), each pixel's channels of the previous frame, then
    of the newest (both the first frame after a reset)."""
    suite = load_suite()
    ref = suite.load("pendulum", "swingup", task_kwargs={"random": 4})
    env = envpool.make("PendulumSwingup-v1", env_type="dm", num_envs=1, seed=4, from_pixels=True, frame_stack=2)
    assert env.observation_spec()["pixels"].shape == (84, 84, 6)
    frames = [env.reset().observation.obs["pixels"][0]]
    ref.reset()
    previous = ref.physics.render(84, 84, camera_id=-1)
    np.testing.assert_array_equal(frames[0], np.concatenate([previous, previous], axis=-1))
    for _ in range(2):
        obs = env.step(np.array([[0.5]])).observation.obs["pixels"][0]
        ref.step(np.array([0.5]))
        newest = ref.physics.render(84, 84, camera_id=-1)
        np.testing.assert_array_equal(obs, np.concatenate([previous, newest], axis=-1))
        previous = newest
    env.close()
