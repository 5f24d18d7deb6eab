"""Aliases: the reference EnvPool's other spellings of a task (``Taxi-v3`` for ``Taxi-v4``,
``phys2d/CartPole-v1``, ``LunarLander-v2``; cpp/core/registry.h). Each alias makes its task: the
same spec and, from the same seed and actions, the same trajectories through every front end;
``list_all_envs()`` offers it, ``envpool list`` shows it beside its task's id (not as a task of
its own) and ``envpool info`` says whose alias it is."""

from __future__ import annotations

import gymnasium
import pytest
from support.front_end_runs import FRONT_ENDS, assert_front_ends_agree, assert_same_runs, run

import envpool
from envpool import cli
from envpool.tasks import gymnasium_ids, registered_tasks

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date.*:DeprecationWarning")

# The reference EnvPool 1.2.7's spellings of built-in tasks (its registration files; docs/compat.md).
REFERENCE_ALIASES = {
    "phys2d/CartPole-v0": "CartPole-v0",
    "phys2d/CartPole-v1": "CartPole-v1",
    "phys2d/Pendulum-v0": "Pendulum-v0",
    "Taxi-v3": "Taxi-v4",
    "CliffWalking-v0": "CliffWalking-v1",
    "tabular/CliffWalking-v0": "CliffWalking-v1",
    "tabular/Blackjack-v0": "Blackjack-v1",
    "LunarLander-v2": "LunarLander-v3",
    "LunarLanderContinuous-v2": "LunarLanderContinuous-v3",
    "CarRacing-v2": "CarRacing-v3",
}
HAS_BOX2D = "LunarLander-v3" in envpool.list_all_envs()
ALIASES = sorted((alias, task["id"]) for alias, task in registered_tasks().items() if alias != task["id"])
# Steps per run: enough for episodes to end (CartPole's, Blackjack's, Catch's, LunarLander's crash
# in 60-100 steps of random actions) and so for autoresets; CarRacing draws a frame per step.
STEPS = {"CarRacing-v3": 30, "LunarLander-v3": 120, "LunarLanderContinuous-v3": 120}


def test_the_reference_spellings_are_aliases_of_their_tasks():
    expected = {a: t for a, t in REFERENCE_ALIASES.items() if HAS_BOX2D or not t.startswith(("Lunar", "CarRacing"))}
    assert {alias: registered_tasks()[alias]["id"] for alias in expected} == expected
    for alias, task_id in expected.items():
        assert alias in registered_tasks()[task_id]["aliases"]


def test_every_alias_is_listed_after_its_task():
    ids = envpool.list_all_envs()
    assert len(ids) == len(set(ids))
    for alias, task_id in ALIASES:
        record = registered_tasks()[task_id]
        start = ids.index(task_id)
        assert ids[start + 1 : start + 1 + len(record["aliases"])] == record["aliases"], alias


@pytest.mark.parametrize(("alias", "task_id"), ALIASES, ids=[a for a, _ in ALIASES])
def test_an_alias_has_its_tasks_spec(alias, task_id):
    ours, theirs = envpool.make_spec(alias), envpool.make_spec(task_id)
    assert ours.task_id == alias and theirs.task_id == task_id
    for field in ("observation_space", "action_space", "config", "max_episode_steps", "reward_threshold"):
        assert getattr(ours, field) == getattr(theirs, field), field
    for field in ("info_keys", "render_shape", "render_fps", "origin", "env_step_limit"):
        assert getattr(ours, field) == getattr(theirs, field), field
    single = gymnasium.spec(gymnasium_ids()[alias])
    assert single.max_episode_steps == gymnasium.spec(gymnasium_ids()[task_id]).max_episode_steps
    assert single.reward_threshold == gymnasium.spec(gymnasium_ids()[task_id]).reward_threshold


@pytest.mark.parametrize("front_end", FRONT_ENDS)
@pytest.mark.parametrize(("alias", "task_id"), ALIASES, ids=[a for a, _ in ALIASES])
def test_an_alias_runs_as_its_task(alias, task_id, front_end):
    if front_end == "dm":
        pytest.importorskip("dm_env")
    steps = STEPS.get(task_id, 80)
    assert_same_runs(
        run(alias, front_end, steps, seed=3), run(task_id, front_end, steps, seed=3), f"{alias} {front_end}"
    )


@pytest.mark.usefixtures("without_the_gym_package")  # env_type="gym": the reference's API, gym or not
@pytest.mark.parametrize(("alias", "task_id"), ALIASES, ids=[a for a, _ in ALIASES])
def test_an_alias_steps_through_every_front_end(alias, task_id):
    pytest.importorskip("dm_env")
    assert_front_ends_agree(alias, STEPS.get(task_id, 80))


def test_list_shows_an_alias_beside_its_task(capsys):
    assert cli.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for alias, task_id in ALIASES:
        task_lines = [line for line in lines if line.split(" ", 1)[0] == task_id]
        assert len(task_lines) == 1, task_id
        assert f"(alias {', '.join(registered_tasks()[task_id]['aliases'])})" in task_lines[0]
        assert not any(line.split(" ", 1)[0] == alias for line in lines), f"{alias} has a line of its own"


def test_info_names_the_task_of_an_alias(capsys):
    assert cli.main(["info", "Taxi-v3"]) == 0
    out = capsys.readouterr().out
    assert "task:                Taxi-v3 (an alias of Taxi-v4)" in out
    assert "aliases:             Taxi-v3" in out
    assert cli.main(["info", "CliffWalking-v1"]) == 0
    assert "aliases:             CliffWalking-v0, tabular/CliffWalking-v0" in capsys.readouterr().out


def test_an_alias_with_a_namespace_is_a_gymnasium_id():
    """gymnasium ids hold one '/': phys2d/CartPole-v1 is envpool-phys2d/CartPole-v1 there."""
    assert gymnasium_ids()["phys2d/CartPole-v1"] == "envpool-phys2d/CartPole-v1"
    assert gymnasium_ids()["Taxi-v3"] == "envpool/Taxi-v3"
    env = gymnasium.make("envpool-phys2d/CartPole-v1")
    assert env.spec.max_episode_steps == 500
    env.close()
    vec = gymnasium.make_vec("envpool-tabular/Blackjack-v0", num_envs=2, vectorization_mode="vector_entry_point")
    assert vec.num_envs == 2
    vec.close()


def test_an_unknown_id_names_close_aliases():
    with pytest.raises(
        ValueError,
        match=r"unknown task id 'phys2d/CartPole-v2'; did you mean 'phys2d/CartPole-v0', 'phys2d/CartPole-v1'",
    ):
        envpool.make("phys2d/CartPole-v2")
