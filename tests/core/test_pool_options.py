"""A native pool's options cross into the core by name, None meaning the default, and are
defaulted and checked in one place (ResolveNativeOptions, cpp/core/pool_factories.cc): make()
resolves them as it did when Python set the defaults, and a bad one is named once (issue 37, 1)."""

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


def test_the_core_pool_takes_its_options_by_name_none_meaning_the_default():
    pool = _core.Pool("CartPole-v1", {}, num_envs=None, batch_size=None, num_threads=None, max_episode_steps=None)
    try:
        assert (pool.num_envs, pool.batch_size, pool.num_threads) == (1, 1, 1)
        assert pool.max_episode_steps == 500 and pool.thread_affinity_offset == -1
    finally:
        pool.close()
    pool = _core.Pool("CartPole-v1", {}, num_envs=6, batch_size=2, num_threads=2, max_episode_steps=0)
    try:
        assert (pool.num_envs, pool.batch_size, pool.num_threads, pool.max_episode_steps) == (6, 2, 2, 0)
    finally:
        pool.close()
    with pytest.raises(TypeError):  # no positional list to get out of order
        _core.Pool("CartPole-v1", {}, 4, 2)


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
        _core.Pool("CartPole-v1", {}, **options)
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
