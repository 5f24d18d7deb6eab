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


def _module_imports(root=None):
    """envpool's modules (packages as ``<package>.__init__``, the compiled binding as
    ``envpool._core``) -> (the envpool modules it imports, the private names it imports from
    another envpool module), counting imports inside functions too. ``root``: a package folder
    named envpool (the installed one by default)."""
    import ast
    import pathlib

    root = pathlib.Path(envpool.__file__).parent if root is None else pathlib.Path(root)
    modules = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        modules[".".join(parts)] = path
    packages = {name[: -len(".__init__")] for name in modules if name.endswith(".__init__")}
    compiled = {"envpool._core"}

    def resolve(name):
        if name in modules or name in compiled:
            return name
        return name + ".__init__" if name in packages else None

    found = {}
    for name, path in modules.items():
        deps, private = set(), set()
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
                    module = resolve(f"{node.module}.{alias.name}")
                    deps.add(module or resolve(node.module))
                    if module is None and alias.name.startswith("_"):
                        private.add(f"{node.module}.{alias.name}")
            elif isinstance(node, ast.Import):
                deps |= {resolve(a.name) for a in node.names if a.name.split(".")[0] == "envpool"}
        found[name] = ({d for d in deps if d and d != name}, private)
    return found


def _module_graph(root=None):
    """envpool's modules and the envpool modules each one imports (see _module_imports)."""
    return {name: deps for name, (deps, _) in _module_imports(root).items()}


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


# The package's layers, lowest first (docs/architecture.md, "The Python package"). A module may
# import the modules of its own group and those of groups in lower layers; the groups of one
# layer are siblings that do not import each other. Every module of python/envpool is in one
# group (the longest prefix of its name listed here), so a new module must be placed here.
LAYERS = [
    {"core": ["envpool._core"]},  # the C++ binding
    {
        "shared": [  # what every layer above uses; none knows tasks or front ends
            "envpool._distribution",
            "envpool.errors",
            "envpool.lifecycle",
            "envpool.payloads",
            "envpool.leaves",
            "envpool.spaces",
            "envpool.protocol",
            "envpool.plugin_families",
            "envpool.result_names",
        ]
    },
    {"agents": ["envpool.agents"]},  # a multi-agent task's agents (cpp/core/agents.h)
    {"tasks": ["envpool.tasks"]},  # the registry: list_all_envs, make_spec
    {"xla": ["envpool.xla"]},  # a native pool's calls inside jit, for PoolFrontEnd.xla()
    {"frontends": ["envpool.frontends"]},
    {"multiagent": ["envpool.multiagent"]},  # the multi-agent front ends, over frontends' pool
    {"front-end table": ["envpool.frontends.classes"]},  # picks any front end, multi-agent ones too
    {  # where envs run (a Python process, an outside program) and make's entry points
        "process": ["envpool.process"],
        "external": ["envpool.external"],
        "registration": ["envpool.registration"],
    },
    {"runner": ["envpool.runner"]},
    {"package": ["envpool.__init__", "envpool.plugins"]},  # `import envpool`
    {
        "users": [  # what `import envpool` never imports
            "envpool.integrations",
            "envpool.ray",
            "envpool.rllib",
            "envpool.sb3",
            "envpool.cli",
            "envpool.__main__",
            "envpool.testing",
        ]
    },
]


def _layer_of(module):
    """(layer index, group) of ``module``; None if no group holds it."""
    best = None
    for index, groups in enumerate(LAYERS):
        for group, prefixes in groups.items():
            for prefix in prefixes:
                if module == prefix or module.startswith(prefix + "."):
                    if best is None or len(prefix) > best[0]:
                        best = (len(prefix), index, group)
    return None if best is None else best[1:]


def layer_violations(root=None):
    """What breaks the layering in the package at ``root``: modules in no group, imports of a
    group in the same or a higher layer, and private names (``_x``) imported from another
    module (a name others need gets a public one)."""
    problems = []
    for name, (deps, private) in sorted(_module_imports(root).items()):
        problems += [f"{name} imports the private name {p}" for p in sorted(private)]
        mine = _layer_of(name)
        if mine is None:
            problems.append(f"{name} is in no layer: add it to LAYERS in tests/frontends/test_front_ends.py")
            continue
        for dep in sorted(deps):
            theirs = _layer_of(dep)
            if theirs is None or theirs[1] == mine[1] or theirs[0] < mine[0]:
                continue
            problems.append(f"{name} ({mine[1]}) imports {dep} ({theirs[1]}): a group imports only lower layers")
    return problems


def test_every_module_imports_only_lower_layers():
    """The layers hold for every module, the top-level ones included: front ends know nothing of
    where envs run (process, external), the registry nothing of front ends, nothing below knows
    the runner or the integrations, and no private name crosses a module."""
    assert layer_violations() == []
    graph = _module_graph()
    crossings = {(_layer_of(n)[1], _layer_of(d)[1]) for n, deps in graph.items() for d in deps}
    assert {  # the walk saw the edges between layers
        ("tasks", "agents"),
        ("tasks", "core"),
        ("multiagent", "frontends"),
        ("process", "front-end table"),
        ("registration", "front-end table"),
        ("users", "runner"),
        ("users", "package"),
    } <= crossings


def test_the_layer_check_finds_a_planted_violation(tmp_path):
    """The check above fails for each kind of import against the layers, planted in a copy."""
    import pathlib
    import shutil

    copy = tmp_path / "envpool"
    shutil.copytree(pathlib.Path(envpool.__file__).parent, copy, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    assert layer_violations(copy) == []
    plant = {
        "tasks.py": "from envpool.frontends.pool import PoolFrontEnd",  # upward
        "process/results.py": "from envpool.external import wire",  # sideways, between siblings
        "frontends/dm.py": "def later():\n    from envpool.multiagent.rows import AgentRowsVectorEnv",  # lazy
        "cli.py": "from envpool.tasks import _task",  # a private name
    }
    for path, line in plant.items():
        with open(copy / path, "a") as f:
            f.write("\n" + line + "\n")
    (copy / "newmodule.py").write_text("")
    found = layer_violations(copy)
    assert len(found) == 5, found
    assert any(f.startswith("envpool.tasks (tasks) imports envpool.frontends.pool (frontends)") for f in found)
    assert any(
        f.startswith("envpool.process.results (process) imports envpool.external.wire (external)") for f in found
    )
    assert any(f.startswith("envpool.frontends.dm (frontends) imports envpool.multiagent.rows") for f in found)
    assert "envpool.cli imports the private name envpool.tasks._task" in found
    assert any(f.startswith("envpool.newmodule is in no layer") for f in found)


def test_agent_layout_is_still_where_the_reference_named_it():
    """docs/reference.md named envpool.multiagent.layout.AgentLayout before the layout moved
    beside the core's agents (envpool.agents): code importing it from there gets the same objects."""
    from envpool import agents
    from envpool.multiagent import layout

    assert {"AgentLayout", "AGENT_INFO", "truncated_agents"} <= set(layout.__all__)
    for name in layout.__all__:
        assert getattr(layout, name) is getattr(agents, name)
    assert envpool.make_spec("SimpleSpread-v3").agents.__class__ is layout.AgentLayout


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

    repo = pathlib.Path(__file__).resolve().parents[2]
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
