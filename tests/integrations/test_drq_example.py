"""examples/drq_sac.py (DrQ: SAC from pixels on a dm_control task) runs end to end: a few seeded
steps with tiny networks, through an episode end, checking what its replay buffer keeps.

Needs torch, dm-control's model files and a GL backend: skipped without any of them (torch is
not in the main test environment; scripts/ci_train.sh runs this file in its venv, which has
it). About 3 s here (reset and frames of software GL; plus ~4 s of torch's one-time import of
its compiler stack at the first optimizer, in the setup).
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import envpool

pytestmark = pytest.mark.integration

torch = pytest.importorskip("torch", reason="examples/drq_sac.py needs torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def drq():
    if "CheetahRun-v1" not in envpool.list_all_envs():  # pragma: no cover
        pytest.skip("envpool was built without the MuJoCo headers")
    try:
        envpool.make("CheetahRun-v1", num_envs=1, from_pixels=True, height=8, width=8).close()
    except (RuntimeError, ValueError, FileNotFoundError) as exc:  # no dm-control or no GL
        pytest.skip(f"no dm_control frames here: {exc}")
    spec = importlib.util.spec_from_file_location("envpool_example_drq", ROOT / "examples" / "drq_sac.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up
    spec.loader.exec_module(module)
    # torch imports its compiler stack at the first optimizer it makes (~4 s here, once per
    # process; the PPO test pays it too): paid in the setup, not in the test's timing.
    torch.optim.Adam([torch.zeros(1, requires_grad=True)])
    return module


def test_drq_runs_through_an_episode_end(drq):
    torch.set_num_threads(1)
    # time_limit 0.1 s at frame_skip 2 (timestep 0.01): 5 agent steps per episode; 2 envs x 6 steps.
    cfg = drq.Config(
        num_envs=2, total_steps=12, seed_steps=6, size=48, batch_size=4, hidden_dim=16, feature_dim=8,
        updates_per_step=1.0, time_limit=0.1, seed=3,
    )  # fmt: skip
    torch.manual_seed(cfg.seed)
    result = drq.train(cfg)
    assert result["env_steps"] == 12
    assert result["updates"] == 8  # after the seed steps: 4 pool steps x 2 envs x 1.0
    assert [step for step, _ in result["episode_returns"]] == [10, 10]  # both envs' 5th step
    replay = result["replay"]
    assert replay.size == 12 and replay.obs.shape == (12, 9, 48, 48)
    # Each stored next frame continues its observation's stack: the next stack's older frames
    # are this one's newer ones, within episodes and at the episode's last step (final_obs),
    # and the step after an episode end starts from the reset observation (all 3 frames equal).
    obs, _, _, next_obs, not_done = (t.numpy() for t in replay.sample(64, np.random.default_rng(0)))
    assert np.array_equal(next_obs[:, :6], obs[:, 3:])
    assert (not_done == 1).all()  # truncations only: they bootstrap
    first_after_reset = replay.obs[10]  # env 0's 6th step: the first of its second episode
    assert np.array_equal(first_after_reset[:3], first_after_reset[3:6])
    assert np.array_equal(first_after_reset[3:6], first_after_reset[6:])
    # The frames are drawn (not blank) and the trained actor acts.
    assert replay.obs[:12].std() > 0
    with torch.no_grad():
        h = torch.zeros(1, cfg.feature_dim)
        action = result["actor"].sample(h)[0]
    assert action.shape == (1, 6) and torch.isfinite(action).all()
