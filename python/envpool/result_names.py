"""The names in a pool's results: no env array may take the place of another in a result mapping.

Results are mappings by name (``info``, a Dict observation, dict actions, same-step
``final_info``, each front end's own additions), so two arrays of one name would leave one of
them unseen with no error. Two checks refuse such names before anything runs:

- :func:`check_spec_names` (``make_spec``): the task's own arrays, as every front end gets them;
- :func:`check_front_end` (a front end's ``__init__``): the keys that front end adds itself.

An info array may share a name with a result field outside the info mapping: Atari's info
``reward`` (unclipped) and ``terminated`` (game over) are not the pool's ``reward`` and
``terminated``, and each front end keeps both (tests/xla/test_families.py checks it inside jit).
"""

from __future__ import annotations

import keyword
from collections.abc import Iterable
from typing import Any

# What the pool's info holds besides the env's arrays (cpp/bindings/results.cc), and what
# same-step autoreset adds (gymnasium's SyncVectorEnv keys).
POOL_INFO = ("env_id", "elapsed_step")
SAME_STEP_INFO = ("final_obs", "_final_obs", "final_info", "_final_info")


def _first_repeat(names: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def check_spec_names(task_id: str, raw: dict) -> None:
    """ValueError unless ``raw`` (``_core.env_spec``'s dict) names its arrays so that none hides
    another: names unique among the obs, the action and the info arrays; no info array named as
    a key the pool's info holds itself; and none named as the mask gymnasium's ``final_info``
    gives another key (``_x`` beside ``x``)."""
    for kind in ("obs", "action", "info"):
        twice = _first_repeat(a["name"] for a in raw[kind])
        if twice is not None:
            raise ValueError(
                f"{task_id}'s spec has two {kind} arrays named {twice!r}: results are mappings by name, so one "
                "would hide the other; the task must name them apart"
            )
    info = [a["name"] for a in raw["info"]]
    for name in info:
        if name in POOL_INFO or name in SAME_STEP_INFO:
            raise ValueError(
                f"{task_id}'s info array {name!r} has the name of a key the pool's info holds itself "
                f"({', '.join(POOL_INFO + SAME_STEP_INFO)}): the task must rename it"
            )
        if name.startswith("_") and name[1:] in (*POOL_INFO, *info):
            raise ValueError(
                f"{task_id}'s info array {name!r} has the name of the mask that same-step autoreset's "
                f"final_info gives {name[1:]!r}: the task must rename it"
            )


def check_front_end_names(task_id: str, info_keys: Iterable[str], added: Iterable[str], front_end: str) -> None:
    """ValueError if an info key of the task (``TaskSpec.info_keys``) is one that front end
    ``front_end`` adds to its info itself (``added``), which would replace the task's array."""
    added = tuple(added)
    for name in info_keys:
        if name in added and name not in POOL_INFO:
            raise ValueError(
                f"{task_id}'s info array {name!r} has the name of a key {front_end} adds to info itself "
                f"({', '.join(added)}): use another env_type, or the task must rename it"
            )


def check_field_names(task_id: str, names: Iterable[str], front_end: str) -> None:
    """ValueError unless ``names`` (info keys a front end makes namedtuple fields of, as the dm
    front end's ``State``) can be such fields: identifiers, not keywords, no leading ``_``."""
    for name in names:
        if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
            raise ValueError(
                f"{task_id}'s info array {name!r} cannot be a field of {front_end}'s observation namedtuple "
                "(fields are identifiers without a leading '_'): use another env_type"
            )


def check_front_end(envs: Any, added: Iterable[str], *, fields: bool = False) -> None:
    """For a front end's ``__init__`` once its pool is open: the checks above of ``envs``' task
    against the keys it adds (``added``) and, with ``fields``, its namedtuple fields; on a
    ValueError ``envs`` is closed first (its pool's threads ended)."""
    spec = envs.task_spec
    try:
        check_front_end_names(spec.task_id, spec.info_keys, added, type(envs).__name__)
        if fields:
            check_field_names(spec.task_id, spec.info_keys, type(envs).__name__)
    except ValueError:
        envs.close()
        raise
