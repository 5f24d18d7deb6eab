"""Training visibly works: a short, seeded PPO run (examples/ppo.py, PyTorch CPU) on CartPole-v1
sampled by envpool.EnvRunner must clear a learning threshold. Needs torch: skipped without it;
scripts/ci_train.sh installs it and runs this.

A test of learning, not of speed: a fixed budget of 100k env steps (about a minute on 2 cores).
On this machine seeds 1, 2 and 3 gave evaluation returns 493, 360 and 417 (random play: ~22),
so the threshold of 200 leaves room for other CPUs' floating-point differences.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

pytestmark = pytest.mark.integration

torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_ppo():
    spec = importlib.util.spec_from_file_location("envpool_example_ppo", ROOT / "examples" / "ppo.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up
    spec.loader.exec_module(module)
    return module


def test_ppo_learns_cartpole_within_a_fixed_budget():
    ppo = load_ppo()
    torch.set_num_threads(1)
    log = []
    result = ppo.train(ppo.Config(env="CartPole-v1", total_steps=100_000, seed=1), log=log)
    assert result["env_steps"] == 100_000 // 1024 * 1024
    first = log[0][1]["episode_return_mean"]
    assert first < 50  # it starts from (near) random play
    # the deterministic policy, on fresh episodes after training
    assert result["eval_return"] >= 200, result
    assert result["final_train_return"] >= 2 * first
