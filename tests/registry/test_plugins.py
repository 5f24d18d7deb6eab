"""C++ env plugins (envpool.plugins, cpp/core/plugin.h, cpp/core/plugin_loader.cc): the SDK a
plugin builds against, loading, the ABI check, refusals, and plugin envs behaving as built-in ones.

The test plugins in tests/plugin/ are built with CMake against the SDK that `python -m envpool
--cmake-dir` names (the installed wheel's, or this checkout's), so the tests need cmake and a
C++ compiler; without them the build-dependent tests skip (scripts/ci_custom_env.sh runs them
for real).
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import gymnasium
import numpy as np
import pytest

import envpool
from envpool import _core, cli, plugins
from envpool.frontends.installed_gym import FIVE_VALUE_GYM, gym_version

pytestmark = pytest.mark.slow

REPO = pathlib.Path(__file__).resolve().parents[2]
PLUGIN_SRC = REPO / "tests" / "plugin"


def _sdk_build_tools() -> str | None:
    """Why plugins cannot be built here, or None."""
    if shutil.which("cmake") is None:
        return "cmake is not installed (pip install cmake ninja)"
    if shutil.which(os.environ.get("CXX", "c++")) is None:
        return "no C++ compiler (c++) on PATH"
    return None


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, str]:
    """Builds tests/plugin once; {target name: path of its .so}."""
    reason = _sdk_build_tools()
    if reason:
        pytest.skip(reason)
    build = tmp_path_factory.mktemp("plugin-build")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = [
        "cmake",
        "-S",
        str(PLUGIN_SRC),
        "-B",
        str(build),
        *generator,
        "-DCMAKE_BUILD_TYPE=Debug",
        f"-Denvpool_DIR={plugins.cmake_dir()}",
    ]
    for cmd in (configure, ["cmake", "--build", str(build), "-j2"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return {p.stem: str(p) for p in build.glob("*.so")}


@pytest.fixture(scope="module")
def probe(built) -> str:
    envpool.load_plugin(built["probe"])
    return built["probe"]


# -- the SDK itself ---------------------------------------------------------------------------------


def test_versions_agree():
    """version.h (C++, the CMake package, plugins), the package metadata and envpool.__version__."""
    assert _core.version == envpool.__version__
    pyproject = REPO / "pyproject.toml"
    if pyproject.is_file():
        import tomllib

        assert tomllib.loads(pyproject.read_text())["project"]["version"] == _core.version
    assert isinstance(_core.abi_version, int) and _core.abi_version >= 1


def _quoted_includes(path: pathlib.Path) -> list[str]:
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', path.read_text(), flags=re.M)


def test_sdk_headers_include_only_each_other():
    """The installed headers must build on their own: nothing from cpp/envs/ or the pool."""
    cmake = (REPO / "CMakeLists.txt").read_text()
    listed = re.search(r"set\(ENVPOOL_SDK_HEADERS\s+([^)]*)\)", cmake).group(1).split()
    names = {h.removeprefix("cpp/") for h in listed}
    assert {"core/env.h", "core/spec.h", "core/rng.h", "core/registry.h", "core/plugin.h", "core/version.h"} <= names
    for header in listed:
        for inc in _quoted_includes(REPO / header):
            assert inc in names, f"{header} includes {inc}, which is not an SDK header"
    installed = pathlib.Path(plugins.include_dir())
    if installed.name == "include":  # an installed wheel: exactly these files, the same bytes
        files = {str(p.relative_to(installed)) for p in installed.rglob("*.h")}
        assert files == names
        for name in names:
            assert (installed / name).read_bytes() == (REPO / "cpp" / name).read_bytes()


def test_cli_prints_sdk_dirs():
    for flag, marker in (("--cmake-dir", "envpoolConfig.cmake"), ("--include-dir", "core/plugin.h")):
        proc = subprocess.run([sys.executable, "-m", "envpool", flag], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        folder = pathlib.Path(proc.stdout.strip())
        assert (folder / marker).is_file()


# -- loading ------------------------------------------------------------------------------------------


def test_plugin_tasks_are_registered_like_built_in_ones(built, probe, capsys):
    assert envpool.load_plugin(probe) == ["PluginProbe-v0", "probe.Probe3-v0"]  # again: same answer
    assert {"PluginProbe-v0", "probe.Probe3-v0"} <= set(envpool.list_all_envs())
    [record] = [p for p in plugins.loaded_plugins() if p["name"] == "probe"]
    assert record["path"] == os.path.realpath(probe)

    spec = envpool.make_spec("probe.Probe3-v0")
    assert spec.origin == f"plugin probe ({os.path.realpath(probe)})"
    assert spec.max_episode_steps == 10 and spec.reward_threshold == 1.5
    assert spec.config == {"fail_in": "", "fail_at": 1, "terminate_at": 3, "max_episode_steps": 10}  # the id's override
    assert spec.observation_space == gymnasium.spaces.Box(0.0, 1e9, (2,), np.float32)
    assert envpool.make_spec("CartPole-v1").origin == "built-in"

    assert cli.main(["info", "PluginProbe-v0"]) == 0
    assert f"origin:              plugin probe ({os.path.realpath(probe)})" in capsys.readouterr().out
    assert cli.main(["list"]) == 0
    line = next(text for text in capsys.readouterr().out.splitlines() if text.startswith("PluginProbe-v0 "))
    assert "fail_in=''" in line and "[plugin probe (" in line


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_plugin_env_through_every_front_end(probe, env_type):
    if env_type == "dm":
        pytest.importorskip("dm_env")
    envs = envpool.make("PluginProbe-v0", env_type=env_type, num_envs=3, seed=7)
    try:
        if env_type == "dm":
            ts = envs.reset()
            obs = ts.observation.obs
            ts = envs.step(np.array([1, 0, 1]))
            np.testing.assert_array_equal(ts.reward, [1.0, 0.0, 1.0])
        elif env_type == "gym" and (gym_version() or FIVE_VALUE_GYM) < FIVE_VALUE_GYM:
            # gym 0.21-0.25 installed (0.23.1 for CleanRL's scripts): env_type="gym" follows its
            # API, reset -> obs and a four-value step (envpool.frontends.installed_gym)
            obs = envs.reset()
            obs2, reward, done, info = envs.step(np.array([1, 0, 1]))
            np.testing.assert_array_equal(reward, [1.0, 0.0, 1.0])
            np.testing.assert_array_equal(obs2[:, 0], [1, 1, 1])
        else:
            obs, _ = envs.reset()
            obs2, reward, terminated, truncated, info = envs.step(np.array([1, 0, 1]))
            np.testing.assert_array_equal(reward, [1.0, 0.0, 1.0])
            np.testing.assert_array_equal(obs2[:, 0], [1, 1, 1])
        # env i is seeded with seed + i: draws differ between envs and repeat for the same seed
        assert len(set(obs[:, 1].tolist())) == 3
    finally:
        envs.close()
    again = envpool.make("PluginProbe-v0", num_envs=3, seed=7)
    try:
        np.testing.assert_array_equal(again.reset()[0], obs)
    finally:
        again.close()


def test_env_seed_hook_gets_each_seed_the_pool_gives(probe):
    """Env::Seed sees seed + i at make and the seeds of reset(seed=...), before that reset."""
    envs = envpool.make("PluginProbe-v0", num_envs=3, seed=7, autoreset_mode="same_step")
    try:
        assert envs.reset()[1]["seed"].tolist() == [7, 8, 9]
        assert envs.reset(seed=100)[1]["seed"].tolist() == [100, 101, 102]
        assert envs.reset(seed=[5, 6, 7])[1]["seed"].tolist() == [5, 6, 7]
        # reset() without a seed and autoresets continue each env's streams: no new seed
        assert envs.reset()[1]["seed"].tolist() == [5, 6, 7]
        for _ in range(4):
            *_, info = envs.step(np.array([0, 1, 0]))
        assert info["seed"].tolist() == [5, 6, 7]
    finally:
        envs.close()


def test_plugin_task_as_gymnasium_id(probe):
    envs = gymnasium.make_vec("envpool/probe.Probe3-v0", num_envs=2, vectorization_mode="vector_entry_point")
    try:
        envs.reset(seed=0)
        for step in range(1, 4):
            _, _, terminated, _, _ = envs.step(np.array([0, 1]))
            assert terminated.all() == (step == 3)  # terminate_at=3 for this id
    finally:
        envs.close()


# -- plugin envs that throw behave as built-in envs -----------------------------------------------


def test_constructor_failure_is_raised_by_make(probe):
    with pytest.raises(RuntimeError, match="Probe failed on purpose in its constructor"):
        envpool.make("PluginProbe-v0", num_envs=2, fail_in="ctor")
    with pytest.raises(ValueError, match="fail_at must be >= 1"):  # std::invalid_argument, as built-ins
        envpool.make("PluginProbe-v0", num_envs=2, fail_at=0)
    envs = envpool.make("PluginProbe-v0", num_envs=2)  # the task is still usable
    envs.reset()
    envs.close()


def test_step_failure_is_an_env_error_and_the_env_restarts(probe):
    envs = envpool.make("PluginProbe-v0", num_envs=3, terminate_at=100, fail_in=["", "step", ""], fail_at=2)
    try:
        envs.reset()
        envs.step(np.zeros(3, np.int64))  # env 1's first step call is fine
        with pytest.raises(
            envpool.EnvError, match="env 1: std::runtime_error: Probe failed on purpose in step 2"
        ) as exc:
            envs.step(np.zeros(3, np.int64))
        obs, _, _, truncated, _ = exc.value.result
        np.testing.assert_array_equal(truncated, [False, True, False])
        np.testing.assert_array_equal(obs[[0, 2], 0], [2, 2])
        obs, _, _, _, _ = envs.step(np.zeros(3, np.int64))  # next-step autoreset: env 1 restarts
        np.testing.assert_array_equal(obs[:, 0], [3, 0, 3])
        obs, _, _, _, _ = envs.step(np.zeros(3, np.int64))
        np.testing.assert_array_equal(obs[:, 0], [4, 1, 4])
    finally:
        envs.close()


def test_reset_failure_is_an_env_error(probe):
    envs = envpool.make("PluginProbe-v0", num_envs=2, fail_in=["reset", ""], fail_at=1)  # env 0: every reset
    try:
        with pytest.raises(envpool.EnvError, match="env 0: std::runtime_error: Probe failed on purpose in reset 1"):
            envs.reset()
        # env 0 restarts on its next step, fails again; env 1 steps on regardless
        with pytest.raises(
            envpool.EnvError, match="env 0: std::runtime_error: Probe failed on purpose in reset 2"
        ) as exc:
            envs.step(np.zeros(2, np.int64))
        obs, _, _, truncated, _ = exc.value.result
        assert obs[1, 0] == 1 and truncated.tolist() == [True, False]
    finally:
        envs.close()


# -- refused plugins ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target, message",
    [
        (
            "fake_version",
            r"(?s)was built for envpool 0\.0\.9.*envpool version: plugin 0\.0\.9, this envpool " + envpool.__version__,
        ),
        ("fake_abi_version", rf"ENVPOOL_ABI_VERSION: plugin 9999, this envpool {_core.abi_version}\b"),
        ("fake_cxx11_abi", r"_GLIBCXX_USE_CXX11_ABI: plugin 0, this envpool 1"),
    ],
)
def test_plugin_for_another_envpool_or_abi_is_refused(built, target, message):
    with pytest.raises(ImportError, match=message) as exc:
        envpool.load_plugin(built[target])
    text = str(exc.value)
    assert os.path.realpath(built[target]) in text
    assert f"Rebuild the plugin against envpool {envpool.__version__}" in text and "--cmake-dir" in text
    assert built[target] not in [p["path"] for p in plugins.loaded_plugins()]


def test_plugin_offering_a_taken_id_registers_nothing(built):
    before = envpool.list_all_envs()
    with pytest.raises(ImportError, match=r"'CartPole-v1' is already registered \(by built-in\); none of its tasks"):
        envpool.load_plugin(built["probe_taken_id"])
    assert envpool.list_all_envs() == before  # PluginProbeTaken-v0 was not added either
    assert envpool.make_spec("CartPole-v1").origin == "built-in"


@pytest.mark.parametrize("target, task_id", [("probe_bad_id", "mysim/Probe-v0"), ("probe_colon_id", "mysim:Probe-v0")])
def test_plugin_with_an_invalid_id_is_refused(built, target, task_id):
    """Ids must work as gymnasium ids envpool/<id>: no second '/', no ':' (gymnasium.make imports "a:")."""
    with pytest.raises(ImportError, match=f"task id '{task_id}' is not allowed.*gymnasium id"):
        envpool.load_plugin(built[target])
    assert task_id not in envpool.list_all_envs()


def test_plugin_whose_registration_throws_is_refused(built):
    with pytest.raises(
        ImportError, match="failed while registering its tasks: std::runtime_error: probe registration failed"
    ):
        envpool.load_plugin(built["probe_throws"])
    assert "PluginProbeThrows-v0" not in envpool.list_all_envs()


def test_files_that_are_not_plugins(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        envpool.load_plugin(tmp_path / "missing.so")
    with pytest.raises(TypeError, match="str or os.PathLike"):
        envpool.load_plugin(3)
    text = tmp_path / "text.so"
    text.write_text("not a library")
    with pytest.raises(ImportError, match="cannot load envpool plugin"):
        envpool.load_plugin(text)
    with pytest.raises(ImportError, match="is not a file"):
        envpool.load_plugin(tmp_path)
    with pytest.raises(ImportError, match="is not an envpool plugin"):
        envpool.load_plugin(_core.__file__)  # a shared library without the entry points
    envs = envpool.make("CartPole-v1", num_envs=1)  # all of that left envpool usable
    envs.reset()
    envs.close()


# -- entry points --------------------------------------------------------------------------------


def _fake_distribution(site: pathlib.Path, name: str, value: str, module_code: str) -> None:
    """An installed package `name` with an `envpool.envs` entry point, as pip would leave it."""
    (site / f"{name}.py").write_text(module_code)
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[envpool.envs]\n{name} = {value}\n")


def test_installed_plugins_load_at_import(built, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    _fake_distribution(site, "probepkg", "probepkg:PLUGIN_PATH", f"PLUGIN_PATH = {built['probe']!r}\n")
    _fake_distribution(
        site, "stalepkg", "stalepkg:plugin_paths", f"def plugin_paths():\n    return [{built['fake_version']!r}]\n"
    )
    code = textwrap.dedent("""
        import gymnasium, numpy as np, envpool
        print("origin", envpool.make_spec("PluginProbe-v0").origin)
        envs = gymnasium.make_vec("envpool/PluginProbe-v0", num_envs=2, vectorization_mode="vector_entry_point")
        envs.reset(seed=1)
        print("reward", envs.step(np.array([1, 1]))[1].tolist())
        envs.close()
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(pathlib.Path(envpool.__file__).parents[1])]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert f"origin plugin probe ({os.path.realpath(built['probe'])})" in proc.stdout
    assert "reward [1.0, 1.0]" in proc.stdout
    # the stale plugin is reported, and did not stop the import
    assert (
        "RuntimeWarning: envpool: plugin entry point 'stalepkg' = 'stalepkg:plugin_paths' (from stalepkg 1.0)"
        in proc.stderr
    )
    assert "envpool version: plugin 0.0.9" in proc.stderr


def test_docstring_examples():
    import doctest

    result = doctest.testmod(plugins, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_step_counter_is_a_test_plugin_not_a_public_task():
    """StepCounter-v0 is registered only by envpool.testing.load_step_counter(), as a plugin."""
    code = textwrap.dedent(
        """
        import envpool, envpool.testing
        assert "StepCounter-v0" not in envpool.list_all_envs()
        assert envpool.testing.load_step_counter() == ["StepCounter-v0", "AgentCounter-v0"]
        assert envpool.testing.load_step_counter() == ["StepCounter-v0", "AgentCounter-v0"]  # again: the same
        assert "StepCounter-v0" in envpool.list_all_envs()
        print(envpool.make_spec("StepCounter-v0").origin)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("plugin envpool-testing"), out.stdout


def test_a_multi_agent_plugin_task_asked_about_before_loading_gets_its_agent_rows():
    """make() picks the agents-as-rows front end for a plugin's multi-agent task even when the id
    was looked up (and was unknown, so not multi-agent) before the plugin loaded."""
    code = textwrap.dedent(
        """
        import envpool, envpool.testing
        from envpool.tasks import is_multi_agent
        assert not is_multi_agent("AgentCounter-v0")  # not registered yet
        envpool.testing.load_step_counter()
        assert is_multi_agent("AgentCounter-v0")
        envs = envpool.make("AgentCounter-v0", num_envs=2)
        print(type(envs).__name__, envs.num_agents)
        envs.close()
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["AgentRowsVectorEnv", "6"], out.stdout
