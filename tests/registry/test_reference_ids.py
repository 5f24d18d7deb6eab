"""The reference EnvPool 1.2.7's ids, family by family: which of them envpool makes and which it
lacks (issue 56). A user of the reference switches by changing the import, so every id of a family
we have must make its task here.

reference_ids_1_2_7.txt lists the reference's 1,754 ids (aliases included) by its module name,
made by scripts/reference_ids.py from the 1.2.7 wheel (see there). The ids envpool makes are read
from the registry at run time (``list_all_envs()``, aliases included); the Atari plugin's, where
the plugin is not installed, from the list of ids it registers (python/envpool/plugin_families.py,
held against the plugin by test_known_tasks.py). ``pytest -s`` prints the table;
docs/compat.md shows it and is checked against it here.
"""

from __future__ import annotations

import pathlib

import pytest

import envpool
from envpool.plugin_families import ATARI

HERE = pathlib.Path(__file__).resolve().parent
REFERENCE_IDS = HERE / "reference_ids_1_2_7.txt"
COMPAT = HERE.parents[1] / "docs" / "compat.md"
TABLE_START, TABLE_END = "<!-- reference ids: start -->", "<!-- reference ids: end -->"

# The reference's module names, as the table names the families (docs/compat.md).
FAMILY_NAMES = {
    "classic_control": "classic control",
    "toy_text": "toy text",
    "box2d": "Box2D",
    "mujoco/gym": "gym MuJoCo",
    "mujoco/dmc": "dm_control suite",
    "minigrid": "MiniGrid + BabyAI",
    "procgen": "Procgen",
    "atari": "Atari (the envpool-ng-atari plugin)",
    "mujoco/myosuite": "MyoSuite",
    "mujoco/robotics": "Gymnasium-Robotics",
    "highway": "Highway",
    "mujoco/playground": "MuJoCo Playground",
    "jumanji": "Jumanji",
    "mujoco/metaworld": "MetaWorld",
    "mujoco/locomotion": "dm_control locomotion",
    "mujoco/mjlab": "mjlab",
    "vizdoom": "ViZDoom",
    "pgx": "PGX",
    "gfootball": "GFootball",
    "craftax": "Craftax",
    "marlgrid": "MARLGrid",
}
# The families whose every reference id envpool makes (issue 56's list). A family that lands
# whole joins it (test_the_complete_families_are_listed says when).
COMPLETE_FAMILIES = (
    "classic_control",
    "toy_text",
    "box2d",
    "mujoco/gym",
    "mujoco/dmc",
    "mujoco/robotics",
    "minigrid",
    "procgen",
    "atari",
)
# Ids of a complete family still missing, by family (none: every family in COMPLETE makes all of
# the reference's ids).
EXPECTED_MISSING: dict[str, set[str]] = {}


def reference_ids() -> dict[str, list[str]]:
    """The reference's ids by family (its module name), in the file's order."""
    families: dict[str, list[str]] = {}
    for line in REFERENCE_IDS.read_text().splitlines():
        if line and not line.startswith("#"):
            family, task_id = line.split("\t")
            families.setdefault(family, []).append(task_id)
    return families


def ids_we_make() -> set[str]:
    ours = set(envpool.list_all_envs())
    if not ours & ATARI.task_ids:  # the plugin is not installed here: the ids it registers
        ours |= ATARI.task_ids
    return ours


def table() -> dict[str, tuple[list[str], list[str]]]:
    """Family -> (the reference's ids we make, those we lack)."""
    ours = ids_we_make()
    return {
        family: ([t for t in ids if t in ours], [t for t in ids if t not in ours])
        for family, ids in reference_ids().items()
    }


def markdown_table() -> str:
    rows = ["| family | reference ids | envpool makes | missing |", "|---|---:|---:|---:|"]
    rows_by_family = table()
    for family, name in FAMILY_NAMES.items():  # the complete families first, then by size
        made, lacked = rows_by_family[family]
        rows.append(f"| {name} | {len(made) + len(lacked)} | {len(made)} | {len(lacked)} |")
    made = sum(len(m) for m, _ in rows_by_family.values())
    lacked = sum(len(missing) for _, missing in rows_by_family.values())
    rows.append(f"| **total** | **{made + lacked:,}** | **{made:,}** | **{lacked:,}** |")
    return "\n".join(rows)


def test_the_reference_list_is_whole():
    """The file holds the 1.2.7 wheel's 1,754 ids, each once, every family named here."""
    families = reference_ids()
    ids = [t for family in families.values() for t in family]
    assert len(ids) == len(set(ids)) == 1754
    assert set(families) == set(FAMILY_NAMES)
    assert {"Catch-v0", "NChain-v0", "Pendulum-v0", "phys2d/CartPole-v1", "TicTacToe3d-v5"} <= set(ids)


def test_print_the_table():
    """What we make and lack, per family (``pytest -s`` shows it)."""
    for family, (made, lacked) in table().items():
        shown = (": " + ", ".join(lacked[:8]) + (", ..." if len(lacked) > 8 else "")) if lacked else ""
        print(f"{FAMILY_NAMES[family]:<38} {len(made):>4} made, {len(lacked):>4} missing{shown}")
    assert table()


def _built(family: str, made: list[str]) -> bool:
    """Whether this build has the family at all (Box2D and MuJoCo are compiled where their
    libraries are; the Atari plugin's list stands in for the plugin)."""
    return bool(made) or family not in ("box2d", "mujoco/gym", "mujoco/dmc")


@pytest.mark.parametrize("family", COMPLETE_FAMILIES)
def test_every_id_of_a_complete_family_makes_its_task(family):
    made, lacked = table()[family]
    if not _built(family, made):
        pytest.skip(f"envpool was built without the {FAMILY_NAMES[family]} tasks here")
    assert set(lacked) == EXPECTED_MISSING.get(family, set()), (
        f"{FAMILY_NAMES[family]}: lacking {sorted(set(lacked) - EXPECTED_MISSING.get(family, set()))}; "
        f"made though listed as missing: {sorted(EXPECTED_MISSING.get(family, set()) - set(lacked))} "
        "(empty EXPECTED_MISSING's entry once its ids land)"
    )


def test_the_complete_families_are_listed():
    """A family whose every reference id is made here belongs in COMPLETE_FAMILIES, so that a
    later change that loses one of its ids fails the test above."""
    complete = {family for family, (made, lacked) in table().items() if made and not lacked}
    assert complete <= set(COMPLETE_FAMILIES), f"add {sorted(complete - set(COMPLETE_FAMILIES))} to COMPLETE_FAMILIES"


def test_docs_show_the_table():
    """docs/compat.md's table is this one (paste the expected table between its markers)."""
    for family in ("box2d", "mujoco/gym", "mujoco/dmc"):
        if not _built(family, table()[family][0]):
            pytest.skip(f"envpool was built without the {FAMILY_NAMES[family]} tasks here: the counts differ")
    text = COMPAT.read_text()
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    assert text[start:end].strip() == markdown_table(), f"docs/compat.md's table should read:\n{markdown_table()}"
