"""The layout every env family follows (docs/architecture.md, "A new family"; issues 37 and 54):
each folder of cpp/envs/ is one family, which
  * keeps all its code, sub-folders included, in its own namespace envpool::<family>;
  * registers itself with one call, envpool_add_family(<family> ...) in its CMakeLists.txt
    (cpp/envs/CMakeLists.txt generates RegisterBuiltinTasks() from those calls), and defines its
    task list as <family>::Tasks() in its registration.cc;
  * keeps its drawing code in its render/ folder: no other file includes the rasterizer
    (cpp/render/canvas.h) or GL headers, or draws on a Canvas;
  * has its tests in tests/envs/<family>/, a package holding test_<family>.py;
  * has a row in docs/tasks.md's task table and in the README's.
Read from the sources, so that a new family that skips a step fails here rather than in review;
each rule is also shown to fail on a copy with a violation planted in it."""

from __future__ import annotations

import pathlib
import re
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENVS = ROOT / "cpp" / "envs"
TESTS = pathlib.Path(__file__).resolve().parent  # tests/envs/
FAMILIES = sorted(p.name for p in ENVS.iterdir() if p.is_dir())
# A namespace opened at the start of a line: clang-format puts nested ones there too.
OPENING = re.compile(r"^namespace\s+([\w:]+)\s*\{", re.M)
# What only drawing code includes: the generic rasterizer and GL / EGL / GLFW headers.
DRAWING_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](render/canvas\.h|GL/|GLES\d*/|EGL/|KHR/|glad/|GLFW/)', re.M)
CANVAS = re.compile(r"\bCanvas\b")
# How the task tables name each family (their first column), case aside: any one of these words
# in a row's first cell is that family's row. A family shares a row with another where the table
# groups them (the multi-agent row holds MPE and the board games; MuJoCo's folder holds
# gymnasium's MuJoCo tasks and dm_control's suite, and needs a row naming either).
FAMILY_ROWS = {
    "box2d": ("Box2D",),
    "classic_control": ("classic control",),
    "classic_games": ("board game", "PettingZoo classic", "multi-agent"),
    "minigrid": ("MiniGrid",),
    "mpe": ("MPE", "particle", "multi-agent"),
    "mujoco": ("MuJoCo", "dm_control"),
    "procgen": ("Procgen",),
    "toy_text": ("toy text",),
}


def _sources(family_dir: pathlib.Path):
    return sorted(p for p in family_dir.rglob("*") if p.suffix in (".h", ".cc"))


def namespace_violations(family_dir: pathlib.Path) -> list[str]:
    """Every source of the family, in every sub-folder, opens envpool::<family> (or a namespace
    inside it) first and no other envpool namespace."""
    own = f"envpool::{family_dir.name}"
    found = []
    for source in _sources(family_dir):
        opened = OPENING.findall(source.read_text())
        if not opened:
            found.append(f"{source}: no namespace opened (its code would be global)")
        elif opened[0] != own and not opened[0].startswith(own + "::"):
            found.append(f"{source}: opens namespace {opened[0]} first, not {own}")
        for name in opened:
            if name.split("::")[0] == "envpool" and name != own and not name.startswith(own + "::"):
                found.append(f"{source}: namespace {name} is not under {own}")
    return found


def registration_violations(family_dir: pathlib.Path) -> list[str]:
    """The family's CMakeLists.txt registers it with one envpool_add_family(<family> ...) call,
    whose sources include its registration.cc, which defines <family>::Tasks()."""
    family = family_dir.name
    cmake = family_dir / "CMakeLists.txt"
    if not cmake.is_file():
        return [f"cpp/envs/{family}/CMakeLists.txt is missing: it registers the family (envpool_add_family)"]
    text = re.sub(r"#.*", "", cmake.read_text())  # calls in comments do not count
    calls = re.findall(r"\benvpool_add_family\s*\(\s*([\w-]+)([^)]*)\)", text)
    if len(calls) != 1:
        return [f"cpp/envs/{family}/CMakeLists.txt makes {len(calls)} envpool_add_family calls, not one"]
    name, arguments = calls[0]
    found = []
    if name != family:
        found.append(f"cpp/envs/{family}/CMakeLists.txt registers envpool_add_family({name} ...), not ({family} ...)")
    if not re.search(r"\bSOURCES\b[^)]*\bregistration\.cc\b", arguments):
        found.append(f"cpp/envs/{family}/CMakeLists.txt: envpool_add_family's SOURCES do not list registration.cc")
    registration = family_dir / "registration.cc"
    if not registration.is_file() or not re.search(r"std::vector<TaskSpec>\s+Tasks\(\)\s*\{", registration.read_text()):
        found.append(f"cpp/envs/{family}/registration.cc does not define {family}::Tasks()")
    return found


def drawing_violations(family_dir: pathlib.Path) -> list[str]:
    """Drawing code lives in <family>/render/: nothing else includes the rasterizer or a GL
    header, or draws on a Canvas (an env's Render() calls its render/ header)."""
    found = []
    for source in _sources(family_dir):
        if "render" in source.relative_to(family_dir).parts[:-1]:
            continue
        text = source.read_text()
        if match := DRAWING_INCLUDE.search(text):
            found.append(f"{source}: includes {match.group(1)} outside {family_dir.name}/render/")
        if CANVAS.search(re.sub(r"//.*", "", text)):
            found.append(f"{source}: draws on a Canvas outside {family_dir.name}/render/")
    return found


def missing_rows(markdown: str, families, where: str) -> list[str]:
    """The families without a row in ``markdown``'s task table (the table whose first header
    cell is "family"), each named with the words a row would need."""
    rows = None
    for block in re.split(r"\n\s*\n", markdown):
        lines = [line for line in block.splitlines() if line.startswith("|")]
        if lines and lines[0].strip("| ").split("|")[0].strip().lower() == "family":
            rows = [line.strip("|").split("|")[0].lower() for line in lines[2:]]
            break
    if rows is None:
        return [f"{where} has no task table (a table whose first column is 'family')"]
    found = []
    for family in families:
        if family not in FAMILY_ROWS:
            found.append(f"{family}: add it to FAMILY_ROWS in tests/envs/test_family_layout.py (the tables' words)")
            continue
        words = FAMILY_ROWS[family]
        if not any(word.lower() in row for row in rows for word in words):
            named = " or ".join(words)
            found.append(f"{where}'s task table has no row for the family {family} (a first cell naming {named})")
    return found


def test_there_are_families():
    expected = {"classic_control", "toy_text", "classic_games", "mpe", "mujoco", "minigrid", "box2d", "procgen"}
    assert expected <= set(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
def test_family_code_is_in_its_own_namespace(family):
    assert namespace_violations(ENVS / family) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_family_registers_itself_and_its_tasks(family):
    assert registration_violations(ENVS / family) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_family_draws_in_its_render_folder(family):
    assert drawing_violations(ENVS / family) == []


def test_no_hand_list_of_families():
    """RegisterBuiltinTasks() is generated (cpp/envs/CMakeLists.txt); the header only declares it."""
    assert not (ENVS / "builtin_tasks.cc").exists()
    assert not re.search(r"std::vector<TaskSpec>\s+Tasks\(\)", (ENVS / "builtin_tasks.h").read_text())
    assert "envpool_add_family" in (ENVS / "CMakeLists.txt").read_text()


@pytest.mark.parametrize("family", FAMILIES)
def test_family_has_its_test_folder(family):
    folder = TESTS / family
    assert (folder / "__init__.py").is_file(), (
        f"tests/envs/{family}/__init__.py is missing: each family's tests are a package of their own"
    )
    assert (folder / f"test_{family}.py").is_file(), f"tests/envs/{family}/test_{family}.py is missing"


@pytest.mark.parametrize("page", ["docs/tasks.md", "README.md"])
def test_every_family_has_a_row_in_the_task_tables(page):
    assert missing_rows((ROOT / page).read_text(), FAMILIES, page) == []


# Each rule fails on a copy of a family with a violation planted in it.


@pytest.fixture
def family_copy(tmp_path):
    copy = tmp_path / "classic_control"
    shutil.copytree(ENVS / "classic_control", copy)
    assert namespace_violations(copy) == registration_violations(copy) == drawing_violations(copy) == []
    return copy


def test_the_namespace_rule_reaches_sub_folders(family_copy):
    (family_copy / "render" / "extra.h").write_text("#pragma once\nnamespace envpool::toy_text {\n}\n")
    (family_copy / "deep" / "er").mkdir(parents=True)
    (family_copy / "deep" / "er" / "global.cc").write_text("int x;\n")
    found = namespace_violations(family_copy)
    assert any("render/extra.h: opens namespace envpool::toy_text first" in f for f in found), found
    assert any("deep/er/global.cc: no namespace opened" in f for f in found), found


def test_the_registration_rule_fails(family_copy):
    cmake = family_copy / "CMakeLists.txt"
    text = cmake.read_text()
    cmake.write_text(text.replace("envpool_add_family(classic_control", "envpool_add_family(classic"))
    assert "registers envpool_add_family(classic ...)" in " ".join(registration_violations(family_copy))
    cmake.write_text(text.replace("envpool_add_family(", "# envpool_add_family("))
    assert "makes 0 envpool_add_family calls" in " ".join(registration_violations(family_copy))
    cmake.write_text(text.replace("registration.cc", "other.cc"))
    assert "do not list registration.cc" in " ".join(registration_violations(family_copy))
    cmake.unlink()
    assert "CMakeLists.txt is missing" in " ".join(registration_violations(family_copy))


def test_the_drawing_rule_fails(family_copy):
    header = family_copy / "cartpole.h"
    text = header.read_text()
    header.write_text(text.replace('#include "core/env.h"', '#include "core/env.h"\n#include "render/canvas.h"'))
    assert "cartpole.h: includes render/canvas.h outside" in " ".join(drawing_violations(family_copy))
    header.write_text(text.replace("#pragma once", "#pragma once\n#include <GL/gl.h>"))
    assert "includes GL/ outside" in " ".join(drawing_violations(family_copy))
    render = "void Render(uint8_t* rgb) const override {"
    header.write_text(text.replace(render, render + " render::Canvas c(rgb, 1, 1);"))
    assert "cartpole.h: draws on a Canvas outside" in " ".join(drawing_violations(family_copy))


def test_the_row_rule_names_the_missing_family():
    table = "| family | tasks |\n|---|---|\n| classic control | CartPole-v1 |\n| Box2D (built in) | LunarLander-v3 |\n"
    assert missing_rows(table, ["classic_control", "box2d"], "X.md") == []
    assert missing_rows(table, ["classic_control", "procgen"], "X.md") == [
        "X.md's task table has no row for the family procgen (a first cell naming Procgen)"
    ]
    assert "add it to FAMILY_ROWS" in missing_rows(table, ["new_family"], "X.md")[0]
    assert "has no task table" in missing_rows("no table here", ["box2d"], "X.md")[0]
