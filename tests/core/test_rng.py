"""The per-env generator (cpp/core/rng.h, exposed as envpool._core.Rng) against numpy itself.

Rng(seed) must be numpy's Generator(PCG64(seed)) (= np.random.default_rng(seed), gymnasium's
np_random(seed)) bit for bit: the state numpy's SeedSequence and PCG64 derive from the seed, the
raw 64- and 32-bit outputs (32-bit draws halve a 64-bit one and keep the other half for the
next), doubles, uniform(low, high), integers(n) (Lemire's method on 32 or 64 bits), and the
ziggurat standard normal, including its rare wedge and tail paths.
"""

from __future__ import annotations

import numpy as np
import pytest

from envpool import _core

SEEDS = [0, 1, 2, 3, 42, 12345, 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 1, 2**48 + 7, 2**63, 2**64 - 2, 2**64 - 1]
SEEDS += [int(s) for s in np.random.default_rng(2024).integers(0, 2**64, size=20, dtype=np.uint64)]


def _numpy(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def _state(g: np.random.Generator) -> dict:
    return dict(g.bit_generator.state)


@pytest.mark.parametrize("seed", SEEDS)
def test_seeding_gives_numpys_pcg64_state(seed):
    ours, ref = _core.Rng(seed), _numpy(seed)
    assert ours.state == _state(ref)
    assert ours.last_seed == seed
    np.testing.assert_array_equal(ours.random_raw(1000), ref.bit_generator.random_raw(1000))
    assert ours.state == _state(ref)


def test_default_rng_and_gymnasium_np_random_are_the_same_generator():
    from gymnasium.utils import seeding

    for seed in (0, 7, 2**40 + 1):
        gym_rng, _ = seeding.np_random(seed)
        assert _core.Rng(seed).state == _state(gym_rng) == _state(np.random.default_rng(seed))


@pytest.mark.parametrize("seed", [0, 5, 2**64 - 1])
def test_doubles_and_uniform(seed):
    ours, ref = _core.Rng(seed), _numpy(seed)
    np.testing.assert_array_equal(ours.random(5000), ref.random(5000))
    for low, high in [(-0.05, 0.05), (-np.pi, np.pi), (-0.3, 0.0), (-0.6, -0.4), (2.5, 1e6), (-1e-300, 3.0)]:
        np.testing.assert_array_equal(ours.uniform(low, high, 2000), ref.uniform(low, high, 2000))
    assert ours.state == _state(ref)


def test_uniform_with_array_bounds_draws_elementwise():
    """gymnasium's Pendulum draws uniform(low=[-pi, -1], high=[pi, 1]): one call per element."""
    ours, ref = _core.Rng(11), _numpy(11)
    for _ in range(100):
        expected = ref.uniform(low=np.array([-np.pi, -1.0]), high=np.array([np.pi, 1.0]))
        got = [ours.uniform(-np.pi, np.pi, 1)[0], ours.uniform(-1.0, 1.0, 1)[0]]
        np.testing.assert_array_equal(got, expected)


def test_32_bit_draws_keep_their_other_half_across_64_bit_draws():
    ours, ref = _core.Rng(9), _numpy(9)
    bitgen = ref.bit_generator.ctypes
    next32 = lambda: bitgen.next_uint32(bitgen.state)  # noqa: E731
    next64 = lambda: bitgen.next_uint64(bitgen.state)  # noqa: E731
    pattern = np.random.default_rng(0).integers(0, 2, size=400)
    for use_32 in pattern:
        if use_32:
            assert int(ours.next_uint32(1)[0]) == next32()
        else:
            assert int(ours.random_raw(1)[0]) == next64()
        assert ours.state == _state(ref)
    ours.seed(9)  # reseeding drops a buffered half, as numpy's reseeding does
    assert ours.state == _state(_numpy(9))


BOUNDS = [
    2,
    3,
    4,
    5,
    7,
    13,
    300,
    1000,
    2**31,
    2**31 + 1,
    2**32 - 1,
    2**32,
    2**32 + 1,
    2**33 + 5,
    2**40 + 3,
    2**63,
    2**63 + 5,
    3 * 2**62 + 1,
    2**64 - 1,
]


@pytest.mark.parametrize("n", BOUNDS)
def test_integers(n):
    ours, ref = _core.Rng(n), _numpy(n)
    np.testing.assert_array_equal(ours.integers(n, 3000), ref.integers(n, size=3000, dtype=np.uint64))
    # one value per call (what choice() of a list draws), interleaved with doubles
    for _ in range(200):
        assert int(ours.integers(n, 1)[0]) == int(ref.integers(n, dtype=np.uint64))
        assert ours.random(1)[0] == ref.random()
    assert ours.state == _state(ref)


def test_integers_of_one_draws_nothing_and_choice_is_integers():
    ours, ref = _core.Rng(4), _numpy(4)
    before = ours.state
    assert ours.integers(1, 10).tolist() == [0] * 10
    assert ours.state == before
    deck = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]  # gymnasium's Blackjack: choice(deck)
    for _ in range(500):
        assert deck[int(ours.integers(13, 1)[0])] == int(ref.choice(deck))
        assert "CDHS"[int(ours.integers(4, 1)[0])] == ref.choice(["C", "D", "H", "S"])


@pytest.mark.parametrize("seed", [0, 1, 123456789, 2**64 - 1])
def test_standard_normal_is_numpys_ziggurat(seed):
    ours, ref = _core.Rng(seed), _numpy(seed)
    n = 400_000
    got, expected = ours.standard_normal(n), ref.standard_normal(n)
    np.testing.assert_array_equal(got, expected)
    assert ours.state == _state(ref)
    # The rare paths were taken: values beyond the ziggurat's base strip come only from its tail
    # sampler (about 1 in 4000 draws).
    assert (np.abs(got) > 3.6541528853610088).sum() >= 20
    np.testing.assert_array_equal(ours.normal(0.5, 0.01, 1000), ref.normal(0.5, 0.01, 1000))


def test_mixed_calls_stay_in_step():
    """An env's calls interleave distributions; the stream must stay numpy's throughout."""
    ours, ref = _core.Rng(77), _numpy(77)
    plan = np.random.default_rng(1).integers(0, 5, size=3000)
    for kind in plan:
        if kind == 0:
            assert ours.random(1)[0] == ref.random()
        elif kind == 1:
            assert ours.standard_normal(1)[0] == ref.standard_normal()
        elif kind == 2:
            assert int(ours.integers(3, 1)[0]) == int(ref.integers(3))
        elif kind == 3:
            assert ours.uniform(-0.1, 0.1, 1)[0] == ref.uniform(-0.1, 0.1)
        else:
            assert int(ours.integers(2**40, 1)[0]) == int(ref.integers(2**40))
    assert ours.state == _state(ref)


def test_bad_arguments():
    rng = _core.Rng(0)
    with pytest.raises(ValueError, match="n must be >= 0"):
        rng.random(-1)
    with pytest.raises(ValueError, match="high must be >= 1"):
        rng.integers(0, 3)
    with pytest.raises(TypeError):
        _core.Rng(-1)
    with pytest.raises(TypeError):
        _core.Rng(2**64)
