"""Tasks: what the registry offers (``list_all_envs``, ``make_spec``) and env kwargs packing.

Every task comes from the C++ registry (cpp/core/registry.h; built-in tasks in
cpp/envs/<family>/registration.cc), so a new env needs no Python change: it appears here, in the CLI
and as ``envpool/<task>`` in gymnasium. This module imports no front end.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any

import numpy as np
from gymnasium import spaces

from envpool import _core
from envpool.agents import AgentLayout
from envpool.errors import UnexpectedKwargError
from envpool.plugin_families import unknown_task_hint
from envpool.protocol import ArraySpec, Config, EnvSpec, action_array_spec, state_array_spec
from envpool.result_names import check_spec_names
from envpool.spaces import specs_to_space


@functools.cache
def registered_tasks() -> dict[str, dict[str, Any]]:
    """Every task's record in the core's registry (``id``, ``aliases``, ``defaults``,
    ``max_episode_steps``, ``reward_threshold``, ``origin``), by every id that makes it: its own
    id, then its aliases (the reference EnvPool's other spellings, ``Taxi-v3`` for ``Taxi-v4``),
    which map to the same record, so ``record["id"]`` is the task's own id. Read once, until
    :func:`refresh_tasks`. The caller must not change it: it is the cached one.

    >>> registered_tasks()["Taxi-v3"] is registered_tasks()["Taxi-v4"]
    True
    """
    tasks: dict[str, dict[str, Any]] = {}
    for task in _core.tasks():
        for name in (task["id"], *task["aliases"]):
            tasks[name] = task
    return tasks


# The families whose tasks draw render_mode="rgb_array" frames: every built-in family
# (tests/frontends/test_render.py checks that each built-in task renders) and the Atari plugin.
RENDERING_FAMILIES = (
    "classic control",
    "toy text",
    "Box2D",
    "MuJoCo (gymnasium's tasks and dm_control's suite)",
    "MPE",
    "classic board games (TicTacToe, ConnectFour)",
    "MiniGrid / BabyAI",
    "Procgen",
    "Atari (the envpool-atari plugin)",
)


def no_rendering_message(task_id: str) -> str:
    """What ``make(task_id, render_mode="rgb_array")`` says for a task that draws no frames."""
    return f"{task_id} does not render; the tasks of these families do: {', '.join(RENDERING_FAMILIES)}"


def refresh_tasks() -> None:
    """Read the registry again on the next call (a plugin added tasks to it)."""
    registered_tasks.cache_clear()
    is_multi_agent.cache_clear()  # it said False for the plugin's ids while they were unknown


def list_all_envs() -> list[str]:
    """Every id a task can be made by, e.g. ``['CartPole-v0', 'phys2d/CartPole-v0', 'CartPole-v1',
    ...]``: each task's id followed by its aliases (``envpool list`` shows the aliases beside
    their task's id)."""
    return list(registered_tasks())


@functools.cache
def is_multi_agent(task_id: str) -> bool:
    """Whether ``task_id`` has agents (its spec with default kwargs says; kwargs change how
    many, never whether). Unknown ids: False (make then refuses them, naming close matches)."""
    return task_id in registered_tasks() and "agents" in _core.env_spec(task_id, {})


def gymnasium_ids(tasks: dict[str, dict[str, Any]] | None = None) -> dict[str, str]:
    """Each id's gymnasium id (aliases too): ``envpool/<id>``; an id with a namespace of its
    own, ``<ns>/<name>`` (the reference EnvPool's ``phys2d/CartPole-v1``): ``envpool-<ns>/<name>``,
    since a gymnasium id holds one '/'; and an id whose name (without its version) an earlier id of
    another origin already has: ``envpool-<plugin>/<id>``.

    gymnasium treats ``envpool/Blackjack-v1`` and ``envpool/Blackjack-v5`` as two versions of one
    env and warns, making v1, that it "is out of date ... upgrade to v5"; but the toy-text
    Blackjack-v1 (built in) and the Atari plugin's Blackjack-v5 are different games. Versions
    of one origin's tasks stay in one series (``envpool/CartPole-v0`` is out of date next to
    ``-v1`` exactly as gymnasium's own ``CartPole-v0`` is). Tasks are taken in registration
    order (built-in first, plugins as loaded), so an id never changes once given.

    >>> gymnasium_ids()["CartPole-v1"], gymnasium_ids()["phys2d/CartPole-v1"]
    ('envpool/CartPole-v1', 'envpool-phys2d/CartPole-v1')
    >>> fake = {"Blackjack-v1": {"origin": "built-in"}, "Blackjack-v5": {"origin": "plugin atari (/x.so)"}}
    >>> gymnasium_ids(fake)
    {'Blackjack-v1': 'envpool/Blackjack-v1', 'Blackjack-v5': 'envpool-atari/Blackjack-v5'}
    """
    from gymnasium.envs.registration import parse_env_id

    first_origin: dict[tuple[str | None, str], str] = {}
    ids: dict[str, str] = {}
    for task_id, task in (registered_tasks() if tasks is None else tasks).items():
        origin = task["origin"]
        prefix, _, name = task_id.rpartition("/")
        env_id = f"envpool-{prefix.replace('/', '-')}/{name}" if prefix else f"envpool/{task_id}"
        if first_origin.setdefault(parse_env_id(env_id)[:2], origin) != origin:
            env_id = f"{_origin_namespace(origin)}/{task_id}"  # plugin ids hold no '/'
        ids[task_id] = env_id
    return ids


def _origin_namespace(origin: str) -> str:
    """``"plugin atari (/path/_atari.so)"`` -> ``"envpool-atari"`` (a gymnasium namespace)."""
    name = origin.removeprefix("plugin ").split(" (", 1)[0]
    return "envpool-" + (re.sub(r"[^\w.-]", "_", name) or "plugin")


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple, np.ndarray))


def _dict_kwarg(value: dict) -> list[str]:
    """A dict kwarg (MuJoCo's default_camera_config, visual_options) as the core holds it:
    ``"key=value"`` strings, integers (and enum keys) as integers, floats as ``repr`` writes them
    (read back exactly), a sequence's numbers separated by spaces."""

    def number(x: Any) -> str:
        if isinstance(x, (bool, int, np.bool_, np.integer)):
            return str(int(x))
        return repr(float(x))

    out = []
    for key, v in value.items():
        try:
            text = " ".join(number(x) for x in np.ravel(v)) if _is_sequence(v) else number(v)
        except (TypeError, ValueError):
            raise TypeError(f"dict kwargs hold numbers or sequences of numbers: [{key!r}] is {v!r}") from None
        out.append(f"{key if isinstance(key, str) else int(key)}={text}")
    return out


def _maze_row(row: Any, i: int) -> str:
    cells = []
    for j, cell in enumerate(row):
        if isinstance(cell, (int, np.integer)) and not isinstance(cell, (bool, np.bool_)) and cell in (0, 1):
            cells.append(str(int(cell)))
        elif isinstance(cell, str) and cell in ("g", "r", "c"):
            cells.append(cell)
        else:
            raise ValueError(
                f"maze_map[{i}][{j}] is {cell!r}: cells are 1 (wall), 0 (free), 'g' (goal), 'r' (reset) or 'c' (either)"
            )
    return "".join(cells)


def maze_map_rows(value: Any) -> Any:
    """gymnasium-robotics' ``maze_map`` (rows of ``1``, ``0``, ``"g"``, ``"r"``, ``"c"``), or one
    such map per env, as the core holds it: a string per row, a character per cell. Rows already
    written as strings pass; the core checks the map's shape and cells."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not _is_sequence(value) or not value or all(isinstance(row, str) for row in value):
        return value

    def is_cell(x: Any) -> bool:
        return not _is_sequence(x) and not (isinstance(x, str) and len(x) > 1)

    if all(_is_sequence(row) and all(is_cell(x) for x in row) for row in value):
        return [_maze_row(row, i) for i, row in enumerate(value)]
    return [maze_map_rows(m) for m in value]  # one map per env


def pack_env_kwargs(task_id: str, kwargs: dict[str, Any], num_envs: int) -> dict[str, list[Any]]:
    """Env kwargs -> ``{key: [value]}`` (one value for all envs) or ``{key: [v0, v1, ...]}``.

    A kwarg whose default is a scalar may be given as a sequence of ``num_envs`` values, one
    per env. For list-valued kwargs (e.g. a map description) a per-env value is a sequence of
    such lists. The core checks names, types and lengths.
    """
    task = _task(task_id)
    packed: dict[str, list[Any]] = {}
    for key, value in kwargs.items():
        default = task["defaults"].get(key)
        if value is None:
            # gymnasium's None for "not given" (a map description, a map name): the empty value.
            if isinstance(default, (str, list)):
                value = type(default)()
            else:
                raise ValueError(f"keyword argument {key!r} cannot be None (its default is {default!r})")
        if isinstance(value, dict) or (
            _is_sequence(value) and len(value) > 0 and all(isinstance(v, dict) for v in value)
        ):
            value = _dict_kwarg(value) if isinstance(value, dict) else [_dict_kwarg(v) for v in value]
        if key == "maze_map":
            value = maze_map_rows(value)
        if isinstance(default, list):
            per_env = _is_sequence(value) and len(value) > 0 and all(_is_sequence(v) for v in value)
        else:
            per_env = _is_sequence(value)
        if isinstance(value, np.ndarray):
            value = value.tolist()
        packed[key] = list(value) if per_env else [value]
    return packed


def _task(task_id: str) -> dict[str, Any]:
    if not isinstance(task_id, str):
        raise TypeError(f"task_id must be a str, got {type(task_id).__name__}")
    tasks = registered_tasks()
    if task_id not in tasks:
        hint = unknown_task_hint(task_id, tasks)  # a plugin's task, or gymnasium's Atari id
        if hint is not None:
            raise ValueError(hint)
        _core.env_spec(task_id, {})  # raises ValueError with close matches
    return tasks[task_id]


@dataclasses.dataclass(frozen=True)
class TaskSpec(EnvSpec):
    """What ``make_spec`` returns: a task's spaces and full config, without starting threads.

    ``config``: the env kwargs and ``max_episode_steps`` (None: no limit), readable by key and,
    as the reference EnvPool's, by attribute (``spec.config.max_episode_steps``).
    ``state_array_spec`` / ``action_array_spec``: the reference's per-array specs
    (envpool.protocol)."""

    task_id: str
    observation_space: spaces.Space
    action_space: spaces.Space
    config: Config
    max_episode_steps: int | None
    reward_threshold: float | None
    info_keys: tuple[str, ...]
    render_shape: tuple[int, int, int] | None  # (height, width, 3) of rgb_array frames; None: no rendering
    origin: str = "built-in"  # where the task came from: "built-in" or "plugin <name> (<path>)"
    # The frame rate the reference env declares for its frames (gymnasium's metadata["render_fps"]),
    # from the env's C++ spec; None: the task does not render or declares none.
    render_fps: int | None = None
    # Multi-agent tasks: their agents and per-agent spaces (observation_space / action_space are
    # then one env's, every agent slot stacked); None for single-agent tasks.
    agents: AgentLayout | None = None
    # Native tasks: the arrays as the core lists them (obs, info, action); None for Python envs.
    arrays: dict[str, Any] | None = dataclasses.field(default=None, repr=False, compare=False)
    # The env's own episode limit, the step at which it truncates by itself whatever
    # max_episode_steps says (MiniGrid's max_steps, Procgen's timeout): 0 none, -1 set anew each
    # episode (BabyAI levels, from the instruction). `envpool info` shows the effective limit.
    env_step_limit: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.config, Config):
            object.__setattr__(self, "config", Config(self.config))

    @property
    def state_array_spec(self) -> dict[str, ArraySpec]:
        """The reference's per-array specs of an env's row (envpool.protocol.state_array_spec)."""
        return state_array_spec(self.arrays, self.observation_space, self.info_keys)

    @property
    def action_array_spec(self) -> dict[str, ArraySpec]:
        return action_array_spec(self.arrays, self.action_space)


def make_spec(task_id: str, **kwargs: Any) -> EnvSpec:
    """Spaces and config of one env of ``task_id`` with env kwargs applied: a :class:`TaskSpec`
    (annotated as ``envpool.EnvSpec``, the exported class, as the reference EnvPool's).

    >>> spec = make_spec("Pendulum-v1", g=9.81)
    >>> spec.action_space
    Box(-2.0, 2.0, (1,), float32)
    >>> spec.config["g"], spec.config.g, spec.config.max_episode_steps
    (9.81, 9.81, 200)
    """
    task = _task(task_id)
    max_episode_steps = kwargs.pop("max_episode_steps", None)
    try:
        raw = _core.env_spec(task_id, pack_env_kwargs(task_id, kwargs, 1))
    except ValueError as exc:
        if str(exc).startswith("unknown keyword argument"):
            raise UnexpectedKwargError(str(exc).replace("unknown", "unexpected", 1)) from None
        raise
    check_spec_names(task_id, raw)
    steps = task["max_episode_steps"] if max_episode_steps is None else max_episode_steps
    return TaskSpec(
        task_id=task_id,
        observation_space=specs_to_space(raw["obs"], raw["obs_is_tuple"]),
        action_space=specs_to_space(raw["action"]),
        config=Config(raw["config"], max_episode_steps=steps or None),
        max_episode_steps=steps or None,
        reward_threshold=task["reward_threshold"],
        info_keys=("env_id", "elapsed_step", *(i["name"] for i in raw["info"])),
        render_shape=tuple(raw["render_shape"]) if raw["render_shape"][0] > 0 else None,
        origin=task["origin"],
        render_fps=raw["render_fps"] if raw["render_shape"][0] > 0 and raw["render_fps"] > 0 else None,
        agents=AgentLayout(raw) if "agents" in raw else None,
        arrays={key: raw[key] for key in ("obs", "info", "action", "obs_is_tuple")},
        env_step_limit=raw.get("env_step_limit", 0),
    )
