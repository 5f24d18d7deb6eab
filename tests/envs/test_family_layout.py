"""The layout every env family follows (docs/architecture.md, "A new family"; issue 37 item 5):
each folder of cpp/envs/ keeps its code in its own namespace envpool::<family>, defines its task
list as <family>::Tasks() in its registration.cc, and builtin_tasks.cc registers that list; its
tests are in tests/envs/<family>/, a package holding test_<family>.py. Read from the sources, so
that a new family that skips a step fails here rather than in review."""

from __future__ import annotations

import pathlib
import re

import pytest

ENVS = pathlib.Path(__file__).resolve().parents[2] / "cpp" / "envs"
TESTS = pathlib.Path(__file__).resolve().parent  # tests/envs/
FAMILIES = sorted(p.name for p in ENVS.iterdir() if p.is_dir())
# A namespace opened at the start of a line: clang-format puts nested ones there too.
OPENING = re.compile(r"^namespace\s+([\w:]+)\s*\{", re.M)


def test_there_are_families():
    assert {"classic_control", "toy_text", "classic_games", "mpe", "mujoco", "minigrid"} <= set(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
def test_family_code_is_in_its_own_namespace(family):
    own = f"envpool::{family}"
    for source in sorted((ENVS / family).glob("*.[hc]*")):
        opened = OPENING.findall(source.read_text())
        assert opened, f"{source}: no namespace opened (its code would be global)"
        assert opened[0] == own or opened[0].startswith(own + "::"), (
            f"{source}: opens namespace {opened[0]} first, not {own}"
        )
        for name in opened:
            if name.split("::")[0] == "envpool":
                assert name == own or name.startswith(own + "::"), f"{source}: namespace {name} is not under {own}"


@pytest.mark.parametrize("family", FAMILIES)
def test_family_registers_its_tasks(family):
    registration = (ENVS / family / "registration.cc").read_text()
    assert re.search(r"std::vector<TaskSpec>\s+Tasks\(\)\s*\{", registration), (
        f"cpp/envs/{family}/registration.cc does not define {family}::Tasks()"
    )
    header = (ENVS / "builtin_tasks.h").read_text()
    assert re.search(rf"namespace envpool::{family}\s*\{{\s*std::vector<TaskSpec>\s+Tasks\(\);", header), (
        f"cpp/envs/builtin_tasks.h does not declare envpool::{family}::Tasks()"
    )
    assert f"{family}::Tasks()" in (ENVS / "builtin_tasks.cc").read_text(), (
        f"cpp/envs/builtin_tasks.cc does not register {family}::Tasks()"
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_family_has_its_test_folder(family):
    folder = TESTS / family
    assert (folder / "__init__.py").is_file(), (
        f"tests/envs/{family}/__init__.py is missing: each family's tests are a package of their own"
    )
    assert (folder / f"test_{family}.py").is_file(), f"tests/envs/{family}/test_{family}.py is missing"
