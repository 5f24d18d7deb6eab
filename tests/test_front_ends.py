"""The gym-style and dm_env front ends, and the docstring examples of every module."""

from __future__ import annotations

import doctest
import importlib

import gymnasium
import numpy as np
import pytest

dm_env = pytest.importorskip("dm_env", reason="the dm_env front end needs dm-env (pip install 'envpool-ng[dm]')")
from dm_env import specs  # noqa: E402

import envpool  # noqa: E402


def test_cleanrl_style_script_runs_unchanged():
    """The shape of CleanRL's EnvPool scripts: single-env spaces on the env object."""
    envs = envpool.make("CartPole-v1", env_type="gym", num_envs=8, seed=1)
    envs.num_envs = 8
    envs.single_action_space = envs.action_space
    envs.single_observation_space = envs.observation_space
    assert isinstance(envs.action_space, gymnasium.spaces.Discrete), "only discrete action space is supported"
    obs, info = envs.reset()
    assert obs.shape == (8,) + envs.single_observation_space.shape
    episodic_return = np.zeros(8)
    finished = []
    for _ in range(200):
        action = np.random.randint(0, envs.action_space.n, size=envs.num_envs)
        obs, reward, terminated, truncated, info = envs.step(action)
        episodic_return += reward
        done = terminated | truncated
        finished.extend(episodic_return[done].tolist())
        episodic_return[done] = 0
        assert set(info) >= {"env_id", "elapsed_step"}
    assert finished and min(finished) >= 1
    envs.close()


def test_gym_front_end_async_loop():
    envs = envpool.make_gym("Acrobot-v1", num_envs=4, batch_size=2, num_threads=2)
    assert envs.action_space == gymnasium.spaces.Discrete(3)
    envs.async_reset()
    for _ in range(20):
        obs, rew, term, trunc, info = envs.recv()
        assert obs.shape == (2, 6)
        envs.send(np.zeros(2, dtype=np.int64), info["env_id"])
    envs.close()


def test_dm_env_time_steps_and_specs():
    env = envpool.make("CartPole-v1", env_type="dm", num_envs=3, seed=0, max_episode_steps=2)
    assert isinstance(env, dm_env.Environment)
    assert env.action_spec() == specs.DiscreteArray(num_values=2, dtype=np.int64, name="action")
    obs_spec = env.observation_spec()
    assert isinstance(obs_spec, specs.BoundedArray) and obs_spec.shape == (4,) and obs_spec.dtype == np.float32
    ts = env.reset()
    assert isinstance(ts, dm_env.TimeStep)
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.FIRST] * 3)
    obs_spec.validate(ts.observation.obs[0])
    np.testing.assert_array_equal(ts.observation.env_id, [0, 1, 2])
    ts = env.step(np.array([0, 1, 0]))
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.MID] * 3)
    np.testing.assert_array_equal(ts.discount, [1.0] * 3)
    ts = env.step(np.array([0, 1, 0]))  # the time limit: LAST, discount 1 (truncation)
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.LAST] * 3)
    np.testing.assert_array_equal(ts.discount, [1.0] * 3)
    ts = env.step(np.array([0, 1, 0]))  # next-step autoreset: FIRST
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.FIRST] * 3)
    np.testing.assert_array_equal(ts.reward, [0.0] * 3)
    env.close()


def test_dm_env_termination_has_zero_discount():
    env = envpool.make("StepCounter-v0", env_type="dm", num_envs=2, terminate_at=[1, 3])
    env.reset()
    ts = env.step(np.array([0, 0]))
    np.testing.assert_array_equal(ts.step_type, [dm_env.StepType.LAST, dm_env.StepType.MID])
    np.testing.assert_array_equal(ts.discount, [0.0, 1.0])
    assert ts.observation.total_steps.tolist() == [1, 1]
    env.close()


def test_dm_env_async():
    env = envpool.make_dm("Pendulum-v1", num_envs=4, batch_size=2, num_threads=2)
    assert isinstance(env.action_spec(), specs.BoundedArray)
    env.async_reset()
    for _ in range(10):
        ts = env.recv()
        env.send(np.zeros((2, 1), dtype=np.float32), ts.observation.env_id)
    env.close()


def test_dm_env_rejects_other_autoreset_modes():
    with pytest.raises(ValueError, match="not supported"):
        envpool.make("CartPole-v1", env_type="dm", autoreset_mode="same_step")


def test_dm_env_tuple_observation_spec():
    """Blackjack's Tuple(Discrete(32), Discrete(11), Discrete(2)) becomes a tuple of specs that
    each env's row of the TimeStep observation validates against."""
    env = envpool.make("Blackjack-v1", env_type="dm", num_envs=3, seed=0)
    obs_spec = env.observation_spec()
    assert isinstance(obs_spec, tuple) and len(obs_spec) == 3
    assert [s.num_values for s in obs_spec] == [32, 11, 2]
    assert all(isinstance(s, specs.DiscreteArray) for s in obs_spec)
    ts = env.reset()
    assert isinstance(ts.observation.obs, tuple) and len(ts.observation.obs) == len(obs_spec)
    for _ in range(5):
        for spec, column in zip(obs_spec, ts.observation.obs):
            assert column.shape == (3,)
            for value in column:
                spec.validate(value)
        ts = env.step(np.ones(3, dtype=np.int64))
    env.close()


def test_dm_spec_keeps_discrete_start():
    from envpool.frontends.dm import _space_to_spec

    assert _space_to_spec(gymnasium.spaces.Discrete(4), "a") == specs.DiscreteArray(4, dtype=np.int64, name="a")
    spec = _space_to_spec(gymnasium.spaces.Discrete(3, start=-1), "a")
    assert isinstance(spec, specs.BoundedArray)
    assert spec.shape == () and spec.dtype == np.int64 and spec.name == "a"
    assert (spec.minimum, spec.maximum) == (-1, 1)
    for value in (-1, 0, 1):
        spec.validate(np.int64(value))
    with pytest.raises(ValueError):
        spec.validate(np.int64(2))
    nested = _space_to_spec(gymnasium.spaces.Tuple([gymnasium.spaces.Discrete(2, start=5)]), "obs")
    assert (nested[0].minimum, nested[0].maximum) == (5, 6)


@pytest.mark.parametrize(
    "module",
    ["envpool", "envpool.tasks", "envpool.registration", "envpool.frontends.vector_env", "envpool.frontends.dm"],
)
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def _module_graph():
    """envpool's modules (packages as ``<package>.__init__``) and the envpool modules each one
    imports, counting imports inside functions too, by dotted name."""
    import ast
    import pathlib

    root = pathlib.Path(envpool.__file__).parent
    modules = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        modules[".".join(parts)] = path
    packages = {name[: -len(".__init__")] for name in modules if name.endswith(".__init__")}

    def resolve(name):
        return name if name in modules else name + ".__init__" if name in packages else None

    graph = {}
    for name, path in modules.items():
        deps = set()
        tree = ast.parse(path.read_text())
        typing_only = {  # `if TYPE_CHECKING:` imports never run
            id(sub)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
            for sub in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "envpool":
                for alias in node.names:  # `from pkg import module` names a module, else the package
                    deps.add(resolve(f"{node.module}.{alias.name}") or resolve(node.module))
            elif isinstance(node, ast.Import):
                deps |= {resolve(a.name) for a in node.names if a.name.startswith("envpool.")}
        graph[name] = {d for d in deps if d and d != name}
    return graph


def test_python_modules_import_each_other_without_cycles():
    """envpool's modules form a DAG: tasks <- front ends <- registration <- process/external/
    runner <- integrations <- envpool/__init__."""
    graph = {
        name: {d for d in deps if not d.endswith("__init__")}
        for name, deps in _module_graph().items()
        if not name.endswith("__init__")
    }
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for dep in graph.get(node, ()):
            assert state.get(dep) != "open", f"import cycle: {' -> '.join([*stack, node, dep])}"
            if dep not in state:
                visit(dep, [*stack, node])
        state[node] = "done"

    for node in graph:
        if node not in state:
            visit(node, [])
    # the walk saw real edges
    assert "envpool.frontends.pool" in graph["envpool.frontends.vector_env"]
    assert "envpool.tasks" in graph["envpool.frontends.pool"]


def test_subsystems_depend_only_on_lower_layers():
    """The subpackages are layers: front ends know nothing of where envs run (process, external),
    those know nothing of the runner, and nothing below knows the integrations."""
    layers = ["frontends", "multiagent", "process", "external", "runner", "integrations"]
    below = {
        "frontends": [],
        "multiagent": ["frontends"],
        "process": ["frontends", "multiagent"],
        "external": ["frontends", "process"],
        "runner": ["frontends", "process", "external"],
        "integrations": layers[:-1],
    }
    crossings = set()
    for name, deps in _module_graph().items():
        parts = name.split(".")
        if len(parts) < 3 or parts[1] not in below:
            continue
        for dep in deps:
            dep_layer = dep.split(".")[1]
            if dep_layer in layers and dep_layer != parts[1]:
                assert dep_layer in below[parts[1]], f"{name} imports {dep}: {parts[1]} must not depend on {dep_layer}"
                crossings.add((parts[1], dep_layer))
    assert {
        ("process", "frontends"),
        ("multiagent", "frontends"),
        ("process", "multiagent"),
        ("external", "frontends"),
        ("integrations", "runner"),
    } <= crossings


def test_no_python_module_is_over_500_lines():
    """The package stays walkable: a module that grows past 500 lines is split by what it holds."""
    import pathlib

    root = pathlib.Path(envpool.__file__).parent
    sizes = {str(p.relative_to(root)): len(p.read_text().splitlines()) for p in root.rglob("*.py")}
    assert len(sizes) > 40  # the walk saw the subpackages
    assert {name: n for name, n in sizes.items() if n > 500} == {}


def _class_members(cls) -> set[str]:
    """What a class holds: methods, class-level names and annotations, and every ``self.x`` it
    assigns anywhere in its body."""
    import ast

    names = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    for node in ast.walk(cls):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
                        names.add(sub.attr)
    return names


def test_no_class_has_over_25_members():
    """A class holds one concept: one that passes ~25 members (methods and attributes) is split.
    PoolFrontEnd may hold 28: nine of them are the public attributes the reference EnvPool's
    pools have (task_id, num_envs, batch_size, num_threads, ...) and its front ends share."""
    import ast
    import pathlib

    allowed = {"PoolFrontEnd": 28}
    root = pathlib.Path(envpool.__file__).parent
    counts = {}
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                counts[f"{path.relative_to(root)}:{node.name}"] = len(_class_members(node))
    assert len(counts) > 60 and max(counts.values()) > 20  # the walk saw the classes, and counts members
    over = {name: n for name, n in counts.items() if n > allowed.get(name.split(":")[1], 25)}
    assert over == {}


def test_no_function_is_over_80_lines():
    """Functions stay readable in one screen; the bindings' definition table (C++) is the one
    exception the reshape allowed. Covers all our Python: the package, benches, examples, scripts,
    plugins and tests (not the other projects' suites vendored under tests/)."""
    import ast
    import pathlib

    repo = pathlib.Path(__file__).resolve().parent.parent
    vendored = ("tests/gymnasium_vector", "tests/reference_envpool", "tests/peers/cleanrl")  # others' suites
    long = {}
    for folder in ("python/envpool", "bench", "examples", "scripts", "plugins", "tests"):
        for path in (repo / folder).rglob("*.py"):
            if str(path.relative_to(repo)).startswith(vendored):
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > 80:
                        long[f"{path.relative_to(repo)}:{node.name}"] = lines
    assert long == {}
