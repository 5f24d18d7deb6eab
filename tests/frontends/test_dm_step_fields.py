"""The dm front end's step_type and discount from C++ (``_core.dm_step_fields``) equal the numpy
expressions they replace, values and dtypes, and fall back to them for inputs a pool does not give."""

from __future__ import annotations

import numpy as np
import pytest

from envpool import _core

dm_env = pytest.importorskip("dm_env")  # the dm front end's extra


def numpy_fields(elapsed, terminated, truncated, env_discount=None):
    step_type = np.where(
        elapsed == 0,
        int(dm_env.StepType.FIRST),
        np.where(terminated | truncated, int(dm_env.StepType.LAST), int(dm_env.StepType.MID)),
    ).astype(np.int32)
    discount = np.where(terminated, 0.0, 1.0)
    if env_discount is not None:
        discount = np.minimum(discount, env_discount)
    return step_type, discount


@pytest.mark.parametrize("elapsed_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("env_dtype", [None, np.float32, np.float64])
def test_equal_to_numpy(elapsed_dtype, env_dtype):
    rng = np.random.default_rng(0)
    n = 257
    elapsed = rng.integers(0, 3, n).astype(elapsed_dtype)
    terminated, truncated = rng.random(n) < 0.3, rng.random(n) < 0.3
    env = None
    if env_dtype is not None:  # signed zeros and NaN, where numpy.minimum picks its own way
        env = rng.choice(np.array([0.0, -0.0, 0.5, 1.0, 2.0, np.nan]), n).astype(env_dtype)
    got = _core.dm_step_fields(elapsed, terminated, truncated, env)
    want = numpy_fields(elapsed, terminated, truncated, env)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
        assert np.array_equal(np.signbit(g), np.signbit(w))


def test_other_inputs_fall_back():
    b = np.zeros(4, bool)
    assert _core.dm_step_fields(np.zeros(4, np.int16), b, b) is None  # elapsed not int32/int64
    assert _core.dm_step_fields(np.zeros(4, np.int32), b.astype(np.int8), b) is None  # not bool
    assert _core.dm_step_fields(np.zeros(4, np.int32), np.zeros(3, bool), b) is None  # lengths differ
    assert _core.dm_step_fields(np.zeros((2, 2), np.int32), b, b) is None  # not 1-D
    assert _core.dm_step_fields(np.zeros(8, np.int32)[::2], b, b) is None  # not contiguous
    assert _core.dm_step_fields(np.zeros(4, np.int32), b, b, np.zeros(3)) is None  # discount's length


def test_front_end_uses_both_paths():
    """A dm pool's TimeStep (C++ path) equals the expressions' (the path jit takes)."""
    import envpool

    env = envpool.make("CartPole-v1", env_type="dm", num_envs=4, seed=0)
    try:
        env.reset()
        for k in range(40):
            result = env._step(np.full(4, k % 2), None)
            fast, slow = env._time_step(result), env._time_step(result, xp=_NumpyAsOther)
            for f, s in zip(fast, slow):
                if isinstance(f, np.ndarray):
                    assert f.dtype == s.dtype
                    np.testing.assert_array_equal(f, s)
    finally:
        env.close()


class _NumpyAsOther:
    """numpy under another name: _time_step takes the expressions' path for any xp but numpy."""

    where, minimum, int32 = staticmethod(np.where), staticmethod(np.minimum), np.int32
