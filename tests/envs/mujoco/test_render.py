"""MuJoCo frames (render_mode="rgb_array") against gymnasium's MujocoRenderer, pixel for pixel.

Both sides draw with MuJoCo's own renderer (the same libmujoco) in an EGL context (MUJOCO_GL=egl,
set here before gymnasium's renderer imports mujoco.egl, which needs PyOpenGL: the oracle's
dependency, not ours). From identical physics states (ours copied into gymnasium's env), after a
reset and after a few steps, the frames must be equal, including where gymnasium's free camera
looks: it is set up at the first render() from the state then.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

os.environ.setdefault("MUJOCO_GL", "egl")  # before gymnasium's renderer imports mujoco.egl

import gymnasium
import numpy as np
import pytest
from support.optional import skip_for_import

import envpool

from . import gym_oracle

try:
    import mujoco
    import OpenGL  # noqa: F401  (mujoco.egl, gymnasium's side of the comparison)
    from gymnasium.envs.mujoco.mujoco_env import MujocoEnv  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    skip_for_import(
        "MuJoCo render tests need mujoco-core, glfw, imageio, pyopengl",
        "gymnasium, mujoco, OpenGL, gymnasium.envs.mujoco.mujoco_env",
        exc,
    )

if "HalfCheetah-v5" not in envpool.list_all_envs():  # pragma: no cover
    pytest.skip("envpool was built without the MuJoCo headers", allow_module_level=True)

if os.environ["MUJOCO_GL"] != "egl":  # pragma: no cover
    pytest.skip(f"these tests compare EGL frames; MUJOCO_GL={os.environ['MUJOCO_GL']}", allow_module_level=True)


def _egl_error() -> str | None:
    """Why no EGL context can be made here (None: it can)."""
    try:
        env = envpool.make("InvertedPendulum-v5", num_envs=1, render_mode="rgb_array", width=8, height=8)
    except RuntimeError as exc:
        return str(exc)
    env.close()
    return None


_NO_EGL = _egl_error()
needs_egl = pytest.mark.skipif(_NO_EGL is not None, reason=f"no EGL on this machine: {_NO_EGL}")

TASKS = [
    "Ant-v5",
    "HalfCheetah-v5",
    "Hopper-v5",
    "Humanoid-v5",
    "HumanoidStandup-v5",
    "InvertedDoublePendulum-v5",
    "InvertedPendulum-v5",
    "Pusher-v5",
    "Reacher-v5",
    "Swimmer-v5",
    "Walker2d-v5",
    # v4 / v2 tasks whose model or camera differs from v5's: InvertedDoublePendulum-v4's
    # DEFAULT_CAMERA_CONFIG (v5 has none), Walker2d-v4's walker2d.xml, Pusher-v2's pusher.xml
    # (its oracle: Pusher-v4's class, gym_oracle.py); the others draw v5's model from v5's camera.
    "InvertedDoublePendulum-v4",
    "Walker2d-v4",
    "Pusher-v2",
]
SMALL = {"width": 64, "height": 64}  # small frames: the comparison is per pixel, size only costs time
# Per task: its render kwargs (the same on both sides) and how many of our envs (one per worker
# thread) draw the state. Most take the defaults at a small size; the first frame of a GL context
# costs about a second on a CPU (Mesa compiles MuJoCo's shaders), so the other kwargs ride on
# tasks rather than adding contexts of their own.
CASES = {task: (SMALL, 1) for task in TASKS}
CASES["HalfCheetah-v5"] = ({}, 2)  # gymnasium's default 480 x 480; two envs on two threads at once
CASES["Walker2d-v5"] = ({"camera_name": "track", "width": 80, "height": 48}, 1)  # fixed camera by name
CASES["Hopper-v5"] = (
    {"camera_id": 0, "visual_options": {mujoco.mjtVisFlag.mjVIS_COM: True}, "width": 48, "height": 40},
    1,
)
CASES["InvertedPendulum-v5"] = (
    {
        "default_camera_config": {
            "distance": 2.5,
            "azimuth": 120.0,
            "elevation": -10.0,
            "lookat": np.array([0.2, 0, 0.5]),
        },
        **SMALL,
    },
    1,
)


def _set_ref_state(ref, s):
    """gymnasium's env in our full state (qpos, qvel, act, qacc_warmstart, time)."""
    m, d = ref.model, ref.data
    nq, nv, na = m.nq, m.nv, m.na
    ref.set_state(s[:nq], s[nq : nq + nv])
    d.act[:] = s[nq + nv : nq + nv + na]
    d.qacc_warmstart[:] = s[nq + nv + na : nq + 2 * nv + na]
    d.time = s[-1]


def _compare(task, kwargs, steps=2, num_envs=1):
    """Our envs (num_envs: one per worker thread) in the state of our env 0 and gymnasium's env
    in it too: frames equal after the reset and after each of `steps` steps of the same actions."""
    env = envpool.make(task, num_envs=num_envs, num_threads=num_envs, seed=3, render_mode="rgb_array", **kwargs)
    ref = gym_oracle.make_class(task, render_mode="rgb_array", **kwargs)
    try:
        env.reset()
        ref.reset(seed=0)
        state = env.get_state(0)
        for i in range(1, num_envs):
            env.set_state(i, state)
        _set_ref_state(ref, state)
        rng = np.random.default_rng(0)
        for step in range(steps + 1):
            if step:
                a = rng.uniform(ref.action_space.low, ref.action_space.high).astype(np.float32)
                env.step(np.stack([a] * num_envs))
                ref.step(a)
            frames = env.render()
            want = ref.render()
            for i, frame in enumerate(frames):
                assert frame.shape == want.shape and frame.dtype == np.uint8
                diff = np.count_nonzero((frame != want).any(-1))
                assert diff == 0, f"{task} env {i} after {step} steps: {diff} of {want.shape[0] * want.shape[1]} differ"
    finally:
        env.close()
        ref.close()


@needs_egl
@pytest.mark.skipif(
    tuple(int(x) for x in gymnasium.__version__.split(".")[:2]) < (1, 4),
    reason="our render defaults are gymnasium 1.4's; under 1.1.1 five tasks' frames differ (CI's extras step)",
)
@pytest.mark.parametrize("task", TASKS)
def test_frames_match_gymnasium(task):
    kwargs, num_envs = CASES[task]
    _compare(task, kwargs, num_envs=num_envs)


def test_camera_defaults_are_gymnasiums():
    """Each gym MuJoCo id's default_camera_config is the one its oracle's renderer holds: a v5
    constructor's default, a v4 module's DEFAULT_CAMERA_CONFIG where its class passes one (None:
    empty; InvertedDoublePendulum-v5's module has one that its constructor does not use)."""
    from envpool.tasks import _dict_kwarg

    names = {task.rsplit("-", 1)[0] for task in TASKS}  # every version of these: v5, v4, v3 / v2
    for task in [t for t in envpool.list_all_envs() if t.rsplit("-", 1)[0] in names]:
        ref = gym_oracle.make_class(task)
        want = _dict_kwarg(ref.mujoco_renderer.default_cam_config or {})
        ref.close()
        assert list(envpool.make_spec(task).config["default_camera_config"]) == want, task


def test_render_needs_render_mode_and_kwargs_are_checked():
    env = envpool.make("InvertedPendulum-v5", num_envs=2)
    env.reset()
    with pytest.raises(RuntimeError, match="render_mode"):
        env.render()
    env.close()
    bad = [
        ({"camera_name": "nope"}, "no such camera"),
        ({"camera_name": "track", "camera_id": 0}, "cannot be specified at the same time"),
        ({"camera_id": 5}, "camera_id"),
        ({"width": 0}, "width"),
        ({"default_camera_config": {"zoom": 2.0}}, "no attribute 'zoom'"),
        ({"default_camera_config": {"lookat": [1.0, 2.0]}}, "3 numbers"),
        ({"visual_options": {99: True}}, "mjtVisFlag"),
    ]
    for kwargs, match in bad:
        with pytest.raises(ValueError, match=match):
            envpool.make("HalfCheetah-v5", num_envs=1, **kwargs)


def test_no_gl_is_a_clear_error_at_make():
    """A machine without EGL (here: the library pointed at a missing file) or OSMesa gets an
    error naming the Debian packages at make(render_mode="rgb_array"); a plain make works."""
    code = (
        "import envpool\n"
        "envpool.make('HalfCheetah-v5', num_envs=1).close()\n"
        "try:\n"
        "    envpool.make('HalfCheetah-v5', num_envs=1, render_mode='rgb_array')\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    cases = [
        ({"ENVPOOL_EGL_LIB": "/nonexistent/libEGL.so.1", "MUJOCO_GL": "egl"}, "apt install libegl1 libgl1-mesa-dri")
    ]
    cases.append(
        ({"ENVPOOL_OSMESA_LIB": "/nonexistent/libOSMesa.so.8", "MUJOCO_GL": "osmesa"}, "apt install libosmesa6")
    )
    for extra, want in cases:
        env = dict(os.environ, **extra)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("RuntimeError") and want in out.stdout, (extra, out.stdout)


_SCREENS_CODE = """
import os, sys
import numpy as np
import envpool
env = envpool.make("HalfCheetah-v5", num_envs=4, num_threads=2, seed=7, render_mode="rgb_array", **{size})
env.reset()
frames = [env.render()]
for k in range(3):
    env.step(np.full((4, 6), 0.3 * (k - 1), np.float32))
    frames.append(env.render())
names = [open(f"/proc/self/task/{{t}}/comm").read().strip() for t in os.listdir("/proc/self/task")]
env.close()
np.save(sys.argv[1], np.stack(frames))
print(names.count("llvmpipe-0"))
"""


@needs_egl
def test_frames_are_the_same_on_either_screen(tmp_path):
    """On Mesa's software renderer each drawing thread's context is made on one of two EGL
    displays (two rasterizers, so two frames are drawn at once); ENVPOOL_EGL_SCREENS=1 keeps one.
    Four envs on two threads draw the same frames either way, and with the default a pool's two
    threads do use both (llvmpipe's first rasterizer thread, once per display)."""
    out = {}
    for screens in ("1", "2"):
        path = tmp_path / f"frames{screens}.npy"
        run = subprocess.run(
            [sys.executable, "-c", _SCREENS_CODE.format(size=SMALL), str(path)],
            env=dict(os.environ, ENVPOOL_EGL_SCREENS=screens),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr
        out[screens] = (np.load(path), int(run.stdout.split()[-1]))
    (one, rasterizers_one), (two, rasterizers_two) = out["1"], out["2"]
    assert one.shape == (4, 4, 64, 64, 3) and one.std() > 0
    np.testing.assert_array_equal(two, one)
    if rasterizers_one:  # llvmpipe
        assert (rasterizers_one, rasterizers_two) == (1, 2)


@needs_egl
def test_bad_screen_count_is_a_clear_error():
    code = (
        "import envpool\n"
        "try:\n"
        "    envpool.make('HalfCheetah-v5', num_envs=1, render_mode='rgb_array')\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    env = dict(os.environ, ENVPOOL_EGL_SCREENS="3", MUJOCO_GL="egl")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("RuntimeError") and "ENVPOOL_EGL_SCREENS=3" in out.stdout, out.stdout


_RENDERER_CODE = """
import json, warnings
import envpool
from envpool import _core
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    before = _core.gl_renderer()
    envpool.make("CartPole-v1", num_envs=1).close()
    no_frames = _core.gl_renderer()
    envpool.make("HalfCheetah-v5", num_envs=2, render_mode="rgb_array").close()
    envpool.make("Hopper-v5", num_envs=1, render_mode="rgb_array").close()
said = [dict(category=w.category.__name__, message=str(w.message), file=w.filename, line=w.lineno) for w in caught]
print(json.dumps(dict(before=before, no_frames=no_frames, after=_core.gl_renderer(), said=said)))
"""


@needs_egl
def test_a_software_renderer_is_named_once_with_how_to_use_a_gpu():
    """Frames drawn by Mesa's llvmpipe run at tens of frames per second: the first pool with
    frames says so once per process (naming the renderer, and how to draw on a GPU's EGL), at
    the user's make; a GPU's renderer says nothing (issue 55 item 9). Nothing loads GL before
    a pool with frames."""
    out = subprocess.run([sys.executable, "-c", _RENDERER_CODE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["before"] is None and seen["no_frames"] is None
    renderer = seen["after"]
    assert renderer["backend"] == "egl" and renderer["renderer"], renderer
    said = [w for w in seen["said"] if w["category"] == "SoftwareRendererWarning"]
    if not renderer["software"]:  # a GPU's EGL (not checked here: the CI machine draws with llvmpipe)
        assert said == [], said
        return
    assert len(said) == 1, seen["said"]  # two pools with frames, one notice
    assert renderer["renderer"] in said[0]["message"] and "software renderer" in said[0]["message"]
    assert "install its driver's EGL" in said[0]["message"] and "MuJoCo frames" in said[0]["message"]
    assert (said[0]["file"], said[0]["line"]) == ("<string>", 10)  # the user's make, not envpool's code


_FORK_CODE = """
import os, sys
import numpy as np
import envpool
frames = dict(render_mode="rgb_array", width=16, height=16)
env = envpool.make("HalfCheetah-v5", num_envs=2, num_threads=2, seed=0, **frames)
env.reset()
env.render()
env.close()
pid = os.fork()
if pid == 0:
    try:
        envpool.make("HalfCheetah-v5", num_envs=2, **frames)
        print("child: drew")
    except RuntimeError as exc:
        print("child:", exc)
    plain = envpool.make("HalfCheetah-v5", num_envs=2, seed=0)
    plain.reset()
    plain.step(np.zeros((2, 6), np.float32))
    plain.close()
    print("child: stepped", flush=True)
    sys.exit(3)
_, status = os.waitpid(pid, 0)
print("parent: child status", os.waitstatus_to_exitcode(status))
env = envpool.make("HalfCheetah-v5", num_envs=2, num_threads=2, seed=0, **frames)
env.reset()
print("parent: drew", np.stack(env.render()).shape)
env.close()
"""


@needs_egl
def test_a_fork_after_frames_is_told_and_exits_cleanly():
    """A process forked after its parent drew frames cannot draw (the GL library's threads stay
    in the parent): make() with frames says so instead of hanging; the child's pools without
    frames work, and it exits with its own status, not a crash in the GL library's exit handlers;
    the parent goes on drawing."""
    out = subprocess.run([sys.executable, "-c", _FORK_CODE], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("child: MuJoCo rendering: this process is a fork of process"), lines
    assert "'spawn'" in lines[0]
    assert lines[1:] == ["child: stepped", "parent: child status 3", "parent: drew (2, 16, 16, 3)"], lines
