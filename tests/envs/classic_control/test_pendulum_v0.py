"""Pendulum-v0 (the reference EnvPool's ``version=0`` pendulum) against gym 0.20's Pendulum-v0
(oracle.py): whole seeded episodes in every autoreset mode, bit for bit; the ``version`` kwarg;
every front end. test_classic_control.py also steps it against the oracle from drawn states
(speed clipping, wrapped angles, out-of-box torques)."""

from __future__ import annotations

import pytest
from support.front_end_runs import assert_front_ends_agree, assert_same_runs, run
from support.seeded_oracle import MODES, compare_seeded_runs

import envpool

from .oracle import make_pendulum_v0

pytestmark = pytest.mark.filterwarnings("ignore:.*Pendulum-v0 is out of date.*:DeprecationWarning")


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("kwargs", [{}, {"g": 9.81}], ids=["default", "g=9.81"])
def test_seeded_episodes_match_gym_0_20(mode, kwargs):
    """From the same seeds, gymnasium's SyncVectorEnv of gym 0.20's Pendulum-v0 (under its
    200-step TimeLimit) and the pool give the same observations, rewards, terminations,
    truncations and info over 3 whole episodes per env."""
    ends = compare_seeded_runs("Pendulum-v0", lambda: make_pendulum_v0(**kwargs), mode, 700, **kwargs)
    assert (ends >= 3).all(), ends.tolist()


def test_v1_with_version_0_is_v0():
    """Pendulum-v0 is Pendulum-v1's env with version=0 (the reference's kwarg); version=1 is v1."""
    assert envpool.make_spec("Pendulum-v0").config["version"] == 0
    assert envpool.make_spec("Pendulum-v1").config["version"] == 1
    assert_same_runs(run("Pendulum-v1", "gymnasium", 60, version=0), run("Pendulum-v0", "gymnasium", 60), "v1(0)")
    assert_same_runs(run("Pendulum-v0", "gymnasium", 60, version=1), run("Pendulum-v1", "gymnasium", 60), "v0(1)")
    with pytest.raises(AssertionError):  # the two orders do differ (a check that this test can fail)
        assert_same_runs(run("Pendulum-v0", "gymnasium", 60), run("Pendulum-v1", "gymnasium", 60), "v0 vs v1")


@pytest.mark.parametrize("version", [-1, 2])
def test_a_bad_version_is_refused(version):
    with pytest.raises(ValueError, match=rf"Pendulum: version must be 0 \(Pendulum-v0's step\) or 1, got {version}"):
        envpool.make("Pendulum-v0", version=version)


@pytest.mark.usefixtures("without_the_gym_package")  # env_type="gym": the reference's API, gym or not
@pytest.mark.parametrize("task_id", ["Pendulum-v0", "phys2d/Pendulum-v0"])
def test_steps_through_every_front_end(task_id):
    assert_front_ends_agree(task_id, 220)  # past the 200-step time limit
