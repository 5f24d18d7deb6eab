"""Ids that are not tasks here but that users will try (issue 36 item 3): a plugin family's task
whose package is missing says which package and how to install it; gymnasium's Atari ids point
to envpool's. And gymnasium ids that never link unrelated tasks as versions of one env (item 5:
toy-text Blackjack-v1 and the Atari plugin's Blackjack-v5)."""

from __future__ import annotations

import contextlib
import importlib
import subprocess
import sys
import textwrap
import warnings

import gymnasium
import pytest

import envpool
from envpool import registration
from envpool.plugin_families import ATARI, ATARI_GAMES, unknown_task_hint
from envpool.tasks import registered_tasks

ATARI_INSTALLED = "Pong-v5" in envpool.list_all_envs()


# -- item 3 ----------------------------------------------------------------------------------------


def test_missing_plugin_task_names_its_package():
    """Without the Atari plugin (its entry point hidden), make("Pong-v5") says what to install."""
    code = textwrap.dedent("""
        import importlib.metadata as md
        real = md.entry_points
        md.entry_points = lambda **kw: [] if kw.get("group") == "envpool.envs" else real(**kw)
        import envpool
        assert "Pong-v5" not in envpool.list_all_envs()
        for call in (lambda: envpool.make("Pong-v5"), lambda: envpool.make_spec("Breakout-v5")):
            try:
                call()
            except ValueError as exc:
                print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd="/")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("unknown task id 'Pong-v5': it is an Atari task of the plugin package envpool-ng-atari")
    assert "pip install --no-build-isolation ./plugins/atari" in lines[0] and "did you mean" not in lines[0]
    assert lines[1].startswith("unknown task id 'Breakout-v5': it is an Atari task")


@pytest.mark.parametrize(
    ("task_id", "call"),
    [
        ("ALE/Pong-v5", "envpool.make('Pong-v5', repeat_action_probability=0.25)"),
        ("PongNoFrameskip-v4", "envpool.make('Pong-v5', frame_skip=1)"),
        ("PongDeterministic-v4", "envpool.make('Pong-v5')"),
        ("Pong-v4", "envpool.make('Pong-v5')"),
        ("SpaceInvadersDeterministic-v4", "envpool.make('SpaceInvaders-v5', frame_skip=3)"),
        ("BreakoutNoFrameskip-v0", "envpool.make('Breakout-v5', repeat_action_probability=0.25, frame_skip=1)"),
    ],
)
def test_gymnasium_atari_ids_point_to_envpools(task_id, call):
    with pytest.raises(ValueError) as exc:
        envpool.make(task_id)
    text = str(exc.value)
    assert text.startswith(f"unknown task id {task_id!r}: that is gymnasium's (ale-py's) id")
    assert call in text
    assert ("envpool-ng-atari, which is not installed" in text) != ATARI_INSTALLED


def test_hint_details():
    known = {"Blackjack-v1"}
    text = unknown_task_hint("Pong-v4", known)
    assert "random 2 to 4 frames" in text and "pip install --no-build-isolation ./plugins/atari" in text
    assert "RAM observations" in unknown_task_hint("ALE/Pong-ram-v5", known)
    assert "not to be confused with 'Blackjack-v1'" in unknown_task_hint("Blackjack-v4", known)
    for other in ("Pongg-v5", "CartPole-v9", "ALE/NotAGame-v5", "Pong", 3):
        assert unknown_task_hint(other, known) is None
    with pytest.raises(ValueError, match="did you mean"):
        envpool.make("Pongg-v5")  # a typo still gets the close matches


@pytest.mark.skipif(not ATARI_INSTALLED, reason="the Atari plugin (envpool-ng-atari) is not installed")
def test_static_atari_list_matches_the_plugin():
    plugin = {t for t, task in registered_tasks().items() if task["origin"].startswith("plugin atari")}
    assert plugin == set(ATARI.task_ids)
    assert len(ATARI_GAMES) == len(set(ATARI_GAMES)) == 104


# -- item 5 ----------------------------------------------------------------------------------------


def _deprecations(env_id: str) -> list[str]:
    """gymnasium's "out of date" warnings for making ``env_id`` (from its spec lookup, the
    first thing gymnasium.make does)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gymnasium.envs.registration._find_spec(env_id)
    return [str(w.message) for w in caught if "out of date" in str(w.message)]


def test_no_envpool_id_is_out_of_date_next_to_another_task():
    """An envpool id warns "out of date" exactly where gymnasium's own id of that task does
    (CartPole-v0 next to -v1) or, for an id gymnasium no longer registers (the reference EnvPool's
    Pendulum-v0, Taxi-v3, LunarLander-v2), where envpool has a newer version of the same task
    (same origin and kwargs), never because of an unrelated task of the same name."""
    # The families' own ids register when their package is imported (minigrid's MiniGrid-*,
    # gymnasium-robotics' AntMaze_*-v3/v4/v5, whose versions take different kwargs): without that,
    # which branch below a task takes would depend on the tests run before this one.
    for oracle in ("minigrid", "gymnasium_robotics"):
        with contextlib.suppress(ImportError):
            importlib.import_module(oracle)
    ids = registration.gymnasium_ids()
    assert ids  # every task has one
    tasks = registered_tasks()
    parsed = {task_id: gymnasium.envs.registration.parse_env_id(env_id) for task_id, env_id in ids.items()}
    for task_id, env_id in ids.items():
        got = _deprecations(env_id)
        namespace, name, version = parsed[task_id]
        newer = [t for t, (ns, n, v) in parsed.items() if (ns, n) == (namespace, name) and (v or 0) > (version or 0)]
        # gymnasium's own id warns as ours does where this gymnasium has every newer version we
        # have (gymnasium 1.1 has CliffWalking-v0 but not -v1, which 1.2 added).
        if task_id in gymnasium.registry and all(t in gymnasium.registry for t in newer):
            assert bool(got) == bool(_deprecations(task_id)), (env_id, got)
            continue
        assert bool(got) == bool(newer), (env_id, got, newer)
        for other in newer:
            assert tasks[other]["origin"] == tasks[task_id]["origin"], (task_id, other)
            assert tasks[other]["defaults"].keys() == tasks[task_id]["defaults"].keys(), (task_id, other)


@pytest.mark.skipif(not ATARI_INSTALLED, reason="the Atari plugin (envpool-ng-atari) is not installed")
def test_atari_blackjack_has_the_plugins_namespace():
    assert registration.gymnasium_ids()["Blackjack-v5"] == "envpool-atari/Blackjack-v5"
    envs = envpool.make("Blackjack-v5", env_type="gym")
    try:
        assert envs.spec.id == "envpool-atari/Blackjack-v5"
    finally:
        envs.close()
    assert "envpool/Blackjack-v5" not in gymnasium.registry and "envpool-atari/Blackjack-v5" in gymnasium.registry


def test_blackjack_v1_makes_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make("envpool/Blackjack-v1")
        env.reset(seed=0)
        env.close()


def test_a_plugin_task_of_a_builtin_name_gets_its_own_namespace(monkeypatch):
    """A fake plugin offering Blackjack-v5 (whether or not the Atari plugin is installed)."""
    registry = gymnasium.envs.registration.registry
    saved = dict(registry)
    tasks = {
        **registered_tasks(),
        "Blackjack-v5": {**registered_tasks()["Blackjack-v1"], "origin": "plugin fakeatari (/x/fake.so)"},
    }
    monkeypatch.setattr(registration, "registered_tasks", lambda: tasks)
    try:
        for key in [k for k in registry if k.endswith("/Blackjack-v5")]:
            del registry[key]
        registration.register_envs()
        assert "envpool/Blackjack-v5" not in registry
        assert "envpool-fakeatari/Blackjack-v5" in registry
        assert _deprecations("envpool/Blackjack-v1") == []
        assert registration.gymnasium_ids(tasks)["Blackjack-v1"] == "envpool/Blackjack-v1"
    finally:
        registry.clear()
        registry.update(saved)


def test_versions_of_one_origin_stay_one_series():
    fake = {
        "Foo-v0": {"origin": "built-in"},
        "Foo-v1": {"origin": "built-in"},
        "Foo-v2": {"origin": "plugin a b (/p.so)"},
        "Bar-v3": {"origin": "plugin a b (/p.so)"},
    }
    assert registration.gymnasium_ids(fake) == {
        "Foo-v0": "envpool/Foo-v0",
        "Foo-v1": "envpool/Foo-v1",
        "Foo-v2": "envpool-a_b/Foo-v2",
        "Bar-v3": "envpool/Bar-v3",
    }
