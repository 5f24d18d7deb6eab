"""The package's import layers (docs/architecture.md, "The Python package"): no cycles, no private
name crossing modules, each group importing only its own and lower layers."""

from __future__ import annotations

import envpool


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
            problems.append(f"{name} is in no layer: add it to LAYERS in tests/package/test_layers.py")
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
