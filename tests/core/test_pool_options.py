"""A pool's options are one bound type (the core's PoolOptions, cpp/core/pool_options.h): defaults
written once there, checked in one place (CheckPoolOptions), completed by the pool that takes them
(Resolve): make() resolves them as it did when Python set the defaults, and a bad one is named once
(issues 37 and 54)."""

from __future__ import annotations

import os

import pytest

import envpool
from envpool import _core


def former_default_threads(num_envs: int, batch_size: int) -> int:
    """make()'s num_threads rule when Python held it: every core for a full batch, one fewer for
    an async pool (the caller runs the policy), never more than a batch's envs nor fewer than 1."""
    cores = os.cpu_count() or 1
    return max(1, min(batch_size, cores if batch_size == num_envs else cores - 1))


@pytest.mark.parametrize(("num_envs", "batch_size"), [(1, None), (4, None), (8, 3), (8, 1), (64, None), (64, 63)])
def test_make_resolves_the_defaults_as_before(num_envs, batch_size):
    envs = envpool.make("CartPole-v1", num_envs=num_envs, batch_size=batch_size)
    try:
        batch = num_envs if batch_size is None else batch_size
        assert envs.batch_size == batch
        assert envs.num_threads == former_default_threads(num_envs, batch)
        assert envs.spec.config.num_threads == envs.num_threads
        assert envs.max_episode_steps == 500  # the task's limit
        assert envs.spec.config.thread_affinity_offset == -1
    finally:
        envs.close()


def test_the_core_pool_takes_one_options_object_and_reports_what_it_resolved():
    pool = _core.Pool("CartPole-v1", {}, _core.PoolOptions())
    try:
        resolved = pool.options
        assert (resolved.num_envs, resolved.batch_size, resolved.num_threads) == (1, 1, 1)
        assert resolved.max_episode_steps == 500 and resolved.thread_affinity_offset == -1  # the task's limit
        assert resolved.env_seeds == [42] and resolved.full_batch
    finally:
        pool.close()
    options = _core.PoolOptions(num_envs=6, batch_size=2, num_threads=2, max_episode_steps=0, seed=7)
    pool = _core.Pool("CartPole-v1", {}, options)
    try:
        resolved = pool.options
        assert (resolved.num_envs, resolved.batch_size, resolved.num_threads, resolved.max_episode_steps) == (
            6,
            2,
            2,
            0,
        )
        assert resolved.env_seeds == [7, 8, 9, 10, 11, 12] and not resolved.full_batch
        assert (pool.num_envs, pool.batch_size, pool.max_episode_steps) == (6, 2, 0)
    finally:
        pool.close()
    with pytest.raises(TypeError):  # no positional list to get out of order
        _core.PoolOptions(4, 2)


def test_pool_options_read_back_as_given_and_a_non_int_is_named():
    options = _core.PoolOptions(num_envs=3, seed=None, autoreset_mode="SameStep")
    assert (options.num_envs, options.batch_size, options.seed, options.autoreset_mode) == (3, None, None, "same_step")
    assert "num_envs=3" in repr(options)
    for name, value in [("num_envs", 2.0), ("batch_size", True), ("seed", "1"), ("spin_us", None)]:
        with pytest.raises(TypeError, match=name):
            _core.PoolOptions(**{name: value})
    with pytest.raises(ValueError, match="does not fit in 64 bits"):
        _core.PoolOptions(seed=2**64)
    with pytest.raises(ValueError, match="env 1's seed 18446744073709551616 does not fit"):
        _core.PoolOptions(num_envs=2, seed=2**64 - 1)


def test_native_pools_are_always_seeded():
    with pytest.raises(ValueError, match="native envs are always seeded"):
        _core.Pool("CartPole-v1", {}, _core.PoolOptions(seed=None))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_envs": 0}, "num_envs must be >= 1, got 0"),
        ({"num_envs": 4, "batch_size": 0}, "batch_size must be >= 1, got 0"),
        ({"num_envs": 4, "batch_size": 5}, "batch_size (5) must not exceed num_envs (4)"),
        ({"num_threads": 0}, "num_threads must be >= 1, got 0"),
        ({"max_episode_steps": -1}, "max_episode_steps must be >= 0, got -1"),
        ({"spin_us": -1.0}, "spin_us must be >= 0"),
        ({"thread_affinity_offset": -2}, "thread_affinity_offset must be -1 (no pinning) or >= 0, got -2"),
    ],
)
def test_a_bad_option_is_named_once_by_the_core(options, message):
    with pytest.raises(ValueError) as caught:
        _core.PoolOptions(**options)
    assert str(caught.value).count(message) == 1  # once: not checked (and reported) again on the way


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_threads": 0}, "num_threads must be >= 1, got 0"),
        ({"max_episode_steps": -1}, "max_episode_steps must be >= 0, got -1"),
        ({"thread_affinity_offset": -2}, "thread_affinity_offset must be -1 (no pinning) or >= 0, got -2"),
        ({"num_envs": 4, "batch_size": 5}, "batch_size (5) must not exceed num_envs (4)"),
    ],
)
def test_make_reports_the_cores_message_and_the_pool_is_not_half_made(options, message):
    with pytest.raises(ValueError) as caught:
        envpool.make("CartPole-v1", **options)
    assert str(caught.value).count(message) == 1
    envs = envpool.make("CartPole-v1", num_envs=2)  # nothing left behind: the next make works
    envs.reset(seed=0)
    envs.close()


@pytest.mark.parametrize("option", ["batch_size", "num_threads", "max_episode_steps", "thread_affinity_offset"])
def test_a_non_int_option_is_a_type_error_naming_it(option):
    with pytest.raises(TypeError, match=f"{option} must be an int"):
        envpool.make("CartPole-v1", **{option: 2.5})
