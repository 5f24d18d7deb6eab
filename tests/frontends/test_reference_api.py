"""The reference EnvPool's API beyond make/step (issue 36 item 8): attribute-readable configs,
the typing interface (envpool.EnvSpec, EnvPool, DMEnvPool, GymnasiumEnvPool), envs.spec with
state_array_spec, seed(), thread_affinity_offset (worker threads pinned as the reference pins
them) and the MuJoCo frame_stack kwarg; and item 10's partial-batch send message."""

from __future__ import annotations

import importlib.util
import inspect
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
from typing import get_args, get_type_hints

import gymnasium
import numpy as np
import pytest

import envpool
from envpool.protocol import ArraySpec, Config

HAS_MUJOCO = "HalfCheetah-v5" in envpool.list_all_envs()
needs_mujoco = pytest.mark.skipif(not HAS_MUJOCO, reason="MuJoCo tasks not built")


# -- config: attribute and mapping access ------------------------------------------------------


def test_make_spec_config_reads_by_attribute_and_key():
    spec = envpool.make_spec("Pendulum-v1", g=9.81)
    assert spec.config.g == spec.config["g"] == 9.81
    assert spec.config.max_episode_steps == spec.config["max_episode_steps"] == 200
    assert envpool.make_spec("CartPole-v1", max_episode_steps=7).config.max_episode_steps == 7
    with pytest.raises(AttributeError, match="config has no key 'gg'.*g, max_episode_steps"):
        _ = spec.config.gg
    assert "g" in dir(spec.config)


def test_pool_spec_config_holds_kwargs_and_pool_settings():
    envs = envpool.make("Pendulum-v1", num_envs=3, batch_size=2, num_threads=1, seed=5, g=[9.0, 9.5, 10.0])
    try:
        config = envs.spec.config
        assert isinstance(config, Config)
        assert config.g == config["g"] == [9.0, 9.5, 10.0]  # per-env kwargs whole
        assert (config.num_envs, config.batch_size, config.num_threads, config.seed) == (3, 2, 1, 5)
        assert config.max_episode_steps == 200 and config.thread_affinity_offset == -1
        assert envs.config == {"g": [9.0, 9.5, 10.0], "version": 1}  # envs.config stays the env kwargs
    finally:
        envs.close()


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_every_front_end_has_spec(env_type):
    if env_type == "dm":
        pytest.importorskip("dm_env")
    envs = envpool.make("CartPole-v1", env_type=env_type, num_envs=2, max_episode_steps=9)
    try:
        spec = envs.spec
        assert isinstance(spec, envpool.EnvSpec)
        assert spec.config.max_episode_steps == 9 and spec.max_episode_steps == 9
        assert spec.observation_space == envpool.make_spec("CartPole-v1").observation_space  # one env's
        assert spec.reward_threshold == 475.0
        assert spec.id == "envpool/CartPole-v1"  # its gymnasium id
    finally:
        envs.close()


def test_make_vec_pool_spec_reads_gymnasiums_through():
    envs = gymnasium.make_vec("envpool/CartPole-v1", num_envs=2)
    try:
        spec = envs.unwrapped.spec
        assert spec.id == "envpool/CartPole-v1" and spec.kwargs["num_envs"] == 2  # gymnasium's EnvSpec
        assert spec.config.num_envs == 2 and "obs" in spec.state_array_spec
    finally:
        envs.close()


# -- state_array_spec ----------------------------------------------------------------------------


def test_state_array_spec_has_the_references_keys():
    spec = envpool.make_spec("CartPole-v1")
    states = spec.state_array_spec
    for key in ("info:env_id", "info:players.env_id", "elapsed_step", "done", "reward", "discount", "step_type"):
        assert key in states
    assert states["info:env_id"].dtype == np.int32 and states["info:env_id"].shape == []
    obs = states["obs"]
    assert obs.dtype == np.float32 and obs.shape == [4]
    np.testing.assert_allclose(obs.maximum, spec.observation_space.high)
    assert spec.action_array_spec["action"] == ArraySpec(np.int64, [], 0.0, 1.0, True)


@needs_mujoco
def test_state_array_spec_lists_info_arrays():
    states = envpool.make("HalfCheetah-v5", env_type="gym").spec.state_array_spec
    assert states["info:x_position"].dtype == np.float64 and states["info:x_position"].shape == []
    assert states["obs"].shape == [17]


# -- typing interface ----------------------------------------------------------------------------


def test_typing_interface_classes_and_isinstance():
    names = ["EnvSpec", "EnvPool", "DMEnvPool", "GymnasiumEnvPool"]
    positions = [envpool.__all__.index(n) for n in names]
    assert positions == sorted(positions)  # in the reference's order
    assert pathlib.Path(envpool.__file__).with_name("py.typed").is_file()
    assert get_type_hints(envpool.make_gym)["return"] is envpool.GymnasiumEnvPool
    assert get_type_hints(envpool.make_gymnasium)["return"] is envpool.GymnasiumEnvPool
    assert get_type_hints(envpool.make_dm)["return"] is envpool.DMEnvPool
    assert get_type_hints(envpool.make_spec)["return"] is envpool.EnvSpec  # the exported class (a TaskSpec)
    assert isinstance(envpool.make_spec("CartPole-v1"), envpool.EnvSpec)
    for env_type in ("gymnasium", "gym"):
        envs = envpool.make("CartPole-v1", env_type=env_type)
        assert isinstance(envs, envpool.GymnasiumEnvPool) and isinstance(envs, envpool.EnvPool)
        assert not isinstance(envs, envpool.DMEnvPool)
        envs.close()
    assert not isinstance(gymnasium.make_vec("CartPole-v1", vectorization_mode="sync"), envpool.EnvPool)
    assert not isinstance(object(), envpool.GymnasiumEnvPool)


def _envpool_classes(annotation) -> list[type]:
    """The classes of envpool an annotation names (inside unions and generics too)."""
    found = [annotation] if isinstance(annotation, type) and annotation.__module__.startswith("envpool") else []
    return found + [c for arg in get_args(annotation) for c in _envpool_classes(arg)]


def test_annotations_of_the_make_functions_and_pools_name_exported_classes():
    """What a user's type checker and get_type_hints see (issue 55 item 8): every envpool class
    the make functions' returns and the pools' public methods and properties name is one
    ``envpool`` exports, not an internal one (TaskSpec, PoolSpec)."""
    exported = {getattr(envpool, name) for name in envpool.__all__ if isinstance(getattr(envpool, name), type)}
    pools = [envpool.EnvPoolVectorEnv, envpool.EnvPoolGymEnv]
    if importlib.util.find_spec("dm_env") is not None:
        envs = envpool.make_dm("CartPole-v1")
        pools.append(type(envs))  # the class behind envpool.DMEnvPool
        envs.close()
    named = {}
    for name in ("make_spec", "make_dm", "make_gym", "make_gymnasium", "make_python"):
        named[name] = get_type_hints(getattr(envpool, name)).get("return")
    for pool in pools:
        for attr, member in inspect.getmembers(pool):
            function = member.fget if isinstance(member, property) else member
            if attr.startswith("_") or not callable(function) or not function.__module__.startswith("envpool"):
                continue
            named[f"{pool.__name__}.{attr}"] = get_type_hints(function).get("return")
    internal = {where: c for where, hint in named.items() for c in _envpool_classes(hint) if c not in exported}
    assert not internal, internal
    assert named["EnvPoolVectorEnv.spec"] is envpool.EnvSpec


def test_dm_pool_is_a_dm_env_pool():
    pytest.importorskip("dm_env")
    envs = envpool.make_dm("CartPole-v1")
    try:
        assert isinstance(envs, envpool.DMEnvPool) and isinstance(envs, envpool.EnvPool)
        assert not isinstance(envs, envpool.GymnasiumEnvPool)
    finally:
        envs.close()


# -- seed() ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_seed_warns_and_changes_nothing(env_type):
    if env_type == "dm":
        pytest.importorskip("dm_env")
    a = envpool.make("CartPole-v1", env_type=env_type, num_envs=2, seed=3)
    b = envpool.make("CartPole-v1", env_type=env_type, num_envs=2, seed=3)
    try:
        with pytest.warns(UserWarning, match=r"seed\(\) does nothing.*reset\(seed=\.\.\.\)"):
            a.seed(123)
        first = a.reset()
        second = b.reset()
        obs_a = first.observation.obs if env_type == "dm" else first[0]
        obs_b = second.observation.obs if env_type == "dm" else second[0]
        np.testing.assert_array_equal(obs_a, obs_b)
    finally:
        a.close()
        b.close()


# -- thread_affinity_offset ------------------------------------------------------------------------


def _cpus_of(tid: int) -> set[int]:
    text = pathlib.Path(f"/proc/self/task/{tid}/status").read_text()
    line = next(line for line in text.splitlines() if line.startswith("Cpus_allowed_list:"))
    cpus: set[int] = set()
    for part in line.split(":", 1)[1].strip().split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def _new_threads(before: set[int]) -> list[int]:
    return sorted(int(t) for t in os.listdir("/proc/self/task") if int(t) not in before)


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pinning reads /proc (Linux)")


@linux_only
@pytest.mark.parametrize("offset", [0, 1, 1001])
def test_thread_affinity_offset_pins_worker_i_to_cpu_offset_plus_i(offset):
    allowed = sorted(os.sched_getaffinity(0))
    before = {int(t) for t in os.listdir("/proc/self/task")}
    envs = envpool.make("CartPole-v1", num_envs=4, num_threads=3, thread_affinity_offset=offset)
    try:
        pinned = sorted(cpus for tid in _new_threads(before) if len(cpus := _cpus_of(tid)) == 1)
        want = sorted({allowed[(offset + i) % len(allowed)]} for i in range(3))
        assert pinned == want
        assert envs.spec.config.thread_affinity_offset == offset
        envs.reset()
        envs.step(np.zeros(4, dtype=np.int64))
    finally:
        envs.close()
    assert threading.main_thread().is_alive()
    assert os.sched_getaffinity(0) == set(allowed)  # the caller's own threads are not pinned


@linux_only
def test_no_offset_leaves_threads_unpinned():
    allowed = os.sched_getaffinity(0)
    before = {int(t) for t in os.listdir("/proc/self/task")}
    envs = envpool.make("CartPole-v1", num_envs=4, num_threads=2)
    try:
        assert all(_cpus_of(tid) == allowed for tid in _new_threads(before))
    finally:
        envs.close()


@linux_only
def test_offset_within_a_restricted_cpu_set():
    """A process confined to one CPU (as by taskset): offsets past it wrap within the CPUs the
    process may use; every worker lands there and the pool works."""
    cpu = max(os.sched_getaffinity(0))
    code = textwrap.dedent("""
        import os, numpy as np, envpool
        before = set(os.listdir("/proc/self/task"))
        envs = envpool.make("CartPole-v1", num_envs=4, num_threads=3, thread_affinity_offset=2)
        envs.reset()
        envs.step(np.zeros(4, dtype=np.int64))
        new = sorted(set(os.listdir("/proc/self/task")) - before)
        status = [open(f"/proc/self/task/{t}/status").read() for t in new]
        print(len(new), sorted({s.split("Cpus_allowed_list:")[1].split()[0] for s in status}))
        envs.close()
    """)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", f"['{cpu}']"]


@pytest.mark.parametrize(("value", "error"), [(-2, ValueError), (1.5, TypeError), ("0", TypeError)])
def test_bad_thread_affinity_offset_is_refused(value, error):
    with pytest.raises(error, match="thread_affinity_offset"):
        envpool.make("CartPole-v1", thread_affinity_offset=value)


# -- MuJoCo frame_stack ----------------------------------------------------------------------------


def _hand_stack(frames: list[np.ndarray], starts: list[np.ndarray], k: int) -> list[np.ndarray]:
    """The reference's stack, from frame_stack=1 observations: a row whose episode starts
    (elapsed_step 0) fills all k slots with it; any other shifts the newest in last."""
    stacks, current = [], None
    for obs, start in zip(frames, starts):
        if current is None:
            current = np.repeat(obs[:, None], k, axis=1)
        else:
            current = np.concatenate([current[:, 1:], obs[:, None]], axis=1)
            current[start] = np.repeat(obs[start][:, None], k, axis=1)
        stacks.append(current.copy())
    return stacks


@needs_mujoco
@pytest.mark.parametrize("task", ["HalfCheetah-v5", "Hopper-v5"])
def test_frame_stack_matches_a_hand_stack_of_single_frames(task):
    k, n = 3, 3
    one = envpool.make(task, num_envs=n, seed=7, max_episode_steps=6)
    stacked = envpool.make(task, num_envs=n, seed=7, max_episode_steps=6, frame_stack=k)
    try:
        size = one.single_observation_space.shape[0]
        assert stacked.single_observation_space.shape == (k, size)
        assert stacked.observation_space.shape == (n, k, size)
        rng = np.random.default_rng(0)
        obs1, _ = one.reset()
        obs3, _ = stacked.reset()
        frames, starts, got = [obs1], [np.ones(n, bool)], [obs3]
        done = np.zeros(n, bool)
        for _ in range(15):  # episode ends (the 6-step limit; Hopper may fall), next-step autoreset
            action = rng.uniform(-1, 1, (n, *one.single_action_space.shape)).astype(np.float32)
            obs1, _, term, trunc, _ = one.step(action)
            obs3, *_ = stacked.step(action)
            frames.append(obs1), starts.append(done), got.append(obs3)
            done = term | trunc
        assert np.concatenate(starts[1:]).any()  # an autoreset happened
        for want, have in zip(_hand_stack(frames, starts, k), got):
            np.testing.assert_array_equal(have, want)
    finally:
        one.close()
        stacked.close()


@needs_mujoco
def test_frame_stack_one_is_the_default_and_bad_values_are_refused():
    assert envpool.make_spec("Ant-v5", frame_stack=1).observation_space == envpool.make_spec("Ant-v5").observation_space
    assert envpool.make_spec("Ant-v5", frame_stack=2).config.frame_stack == 2
    with pytest.raises(ValueError, match="frame_stack must be >= 1, got 0"):
        envpool.make_spec("Ant-v5", frame_stack=0)
    with pytest.raises(ValueError, match="frame_stack must be >= 1"):
        envpool.make("Ant-v5", frame_stack=-3)


@needs_mujoco
def test_frame_stack_same_step_final_obs_is_stacked():
    envs = envpool.make(
        "HalfCheetah-v5", num_envs=1, seed=0, max_episode_steps=2, frame_stack=2, autoreset_mode="same_step"
    )
    try:
        obs0, _ = envs.reset()
        action = np.zeros((1, 6), np.float32)
        obs1, *_ = envs.step(action)
        obs2, _, _, trunc, info = envs.step(action)
        assert trunc[0]
        final = info["final_obs"][0]
        np.testing.assert_array_equal(final[0], obs1[0, 1])  # the stack of the episode that ended
        np.testing.assert_array_equal(obs2[0, 0], obs2[0, 1])  # the new episode's first frame, twice
    finally:
        envs.close()


# -- item 10: a partial batch sent without env_id -----------------------------------------------


def test_partial_send_without_env_id_says_env_id_is_needed():
    envs = envpool.make("CartPole-v1", num_envs=8, batch_size=4, num_threads=1)
    try:
        envs.async_reset()
        _, _, _, _, info = envs.recv()
        with pytest.raises(ValueError, match=r"\(4,\) but 8 envs need shape \(8,\).*env_id=info\['env_id'\]"):
            envs.send(np.zeros(4, dtype=np.int64))
        envs.send(np.zeros(4, dtype=np.int64), info["env_id"])  # still usable
        assert envs.recv()[0].shape == (4, 4)
    finally:
        envs.close()


def test_make_vec_with_module_prefix_needs_no_import():
    code = (
        "import gymnasium, sys\n"
        "assert 'envpool' not in sys.modules\n"
        "envs = gymnasium.make_vec('envpool:envpool/CartPole-v1', num_envs=2)\n"
        "print(type(envs.unwrapped).__module__, envs.reset(seed=0)[0].shape)\n"
        "envs.close()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd="/")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["envpool.frontends.vector_env", "(2,", "4)"]


@pytest.mark.parametrize("module", ["envpool.protocol", "envpool.plugin_families"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
