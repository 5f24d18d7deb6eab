"""What the toy-text tests share: gymnasium's env of a task as the oracle (the test skips where
this gymnasium release lacks the task or the kwarg), our spelling of gymnasium's kwargs, a custom
FrozenLake map, and the statistical bounds of the stochastic comparisons: an outcome count within
Z_BOUND binomial standard errors of its expectation, a chi-square below chi2_critical(df), the
upper 1e-6 quantile (see test_stochastic.py)."""

from __future__ import annotations

import math

import gymnasium as gym
import pytest

CUSTOM_DESC = ["SFFHF", "FHFFS", "FFGHF"]  # not square, two start tiles, goal inside the map
Z_BOUND = 5.0  # standard errors
CHI2_P = 1e-6
Z_CHI2 = 4.753424  # the standard normal's upper 1e-6 quantile


def chi2_critical(df: int) -> float:
    """Upper 1e-6 quantile of chi-square(df) by Wilson-Hilferty: within 0.2% of the exact value
    for df >= 80, and a little above it for small df (true tail 2.7e-7 at df = 2), i.e. conservative."""
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + Z_CHI2 * math.sqrt(h)) ** 3


def ours_kwargs(kwargs):
    """Our spelling of gymnasium kwargs: None has a typed stand-in (desc: the default, an empty
    list; map_name: "")."""
    out = dict(kwargs)
    if "desc" in out and out["desc"] is None:
        del out["desc"]
    if "map_name" in out and out["map_name"] is None:
        out["map_name"] = ""
    if "reward_schedule" in out:
        out["reward_schedule"] = list(out["reward_schedule"])
    return out


def gym_spec(task):
    """gymnasium's spec of ``task``; skips the test when this gymnasium release lacks the task,
    so there is no oracle (Taxi-v4 arrived in gymnasium 1.3, CliffWalking-v1 and
    CliffWalkingSlippery-v1 in 1.2; envpool's own tasks still run there)."""
    if task not in gym.registry:
        pytest.skip(f"gymnasium {gym.__version__} has no {task} to compare with (a later release added it)")
    return gym.spec(task)


def gym_make(task, **kwargs):
    gym_spec(task)
    try:
        return gym.make(task, **kwargs)
    except TypeError as exc:
        if "unexpected keyword argument" not in str(exc):
            raise
        # FrozenLake's success_rate and reward_schedule arrived in gymnasium 1.2.
        pytest.skip(f"gymnasium {gym.__version__}'s {task} has no such kwarg to compare with: {exc}")


# gymnasium < 1.2 gives FrozenLake's slippery moves info["prob"] 1/3 as 0.3333333333333333;
# from 1.2 on (success_rate) it is 1 - 2/3 = 0.33333333333333337, as envpool reports it. On
# older releases the transitions are still compared, without the prob float.
GYM_VERSION = tuple(int(p) for p in gym.__version__.split(".")[:2])


def reference_env(task, **kwargs):
    env = gym_make(task, **kwargs).unwrapped
    env.reset(seed=0)
    return env
