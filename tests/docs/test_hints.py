"""What users read when they get something wrong or look something up: CLI help, the unknown-task
hint, the PPO example without its extra, the documented dm_env TimeStep layout and the rule
docs/api.md states for gymnasium's NormalizeObservation."""

from __future__ import annotations

import doctest
import pathlib
import subprocess
import sys

import gymnasium
import pytest

import envpool
from envpool import cli

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_run_help_shows_the_defaults(capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for expected in (
        "envs in the pool (default: 8)",
        "total env steps (default: 100,000; with --record, until the recording is complete)",
        "seeded with SEED + i (default: 0)",
        "(default: --num-envs, a full batch)",
        "(default: as envpool.make,",
        "first N steps (default: 200)",
        "(default: 30.0)",
    ):
        assert expected in text, expected


@pytest.mark.parametrize("task, close", [("CartPol-v1", "did you mean 'CartPole-v1'"), ("NoSuchThing-v9", "")])
def test_unknown_task_points_at_envpool_list(capsys, task, close):
    assert cli.main(["info", task]) == 2
    err = capsys.readouterr().err
    assert close in err and "(`envpool list` or envpool.list_all_envs() shows every task)" in err, err


def test_ppo_example_without_torch_says_what_to_install():
    """Run as a script with torch unimportable (whether or not it is installed here)."""
    code = (
        "import runpy, sys\n"
        "sys.modules['torch'] = None  # import torch now fails as if it were not installed\n"
        f"sys.argv = [{str(ROOT / 'examples' / 'ppo.py')!r}]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr, proc.stderr
    assert (
        "examples/ppo.py needs torch, from the `train` extra: pip install 'envpool-ng[train]'" in proc.stderr
        and "after a CPU-only torch (docs/install.md#pytorch-cpu-only" in proc.stderr
    ), proc.stderr


def test_dm_env_doc_examples_run():
    """docs/dm_env.md documents TimeStep.observation (State(obs, env_id, elapsed_step, ...));
    its example is executed here, so the documented layout stays true."""
    pytest.importorskip("dm_env")
    result = doctest.testfile(str(ROOT / "docs" / "dm_env.md"), module_relative=False)
    assert result.attempted >= 5 and result.failed == 0


def test_normalize_observation_needs_next_step_autoreset():
    """docs/api.md says so where it lists the vector wrappers (gymnasium registration)."""
    wrapper = gymnasium.wrappers.vector.NormalizeObservation
    with envpool.make("CartPole-v1", num_envs=2, autoreset_mode="same_step") as envs:
        # gymnasium >= 1.2 raises a ValueError naming NEXT_STEP; 1.1 asserts the mode.
        with pytest.raises((ValueError, AssertionError)) as refused:
            wrapper(envs)
        assert refused.type is AssertionError or "NEXT_STEP" in str(refused.value)
    with envpool.make("CartPole-v1", num_envs=2) as envs:
        wrapped = wrapper(envs)
        wrapped.reset(seed=0)
        wrapped.step(envs.action_space.sample())
