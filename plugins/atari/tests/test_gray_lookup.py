"""The fast palette-to-gray lookup (src/gray_lookup.h: 32 pixels at a time with AVX2) against the
plain per-pixel lookup it replaces, on made-up palettes and frames: the same bytes, or a refusal
(then the env uses the ALE's own loop) where a frame holds an index it does not cover. The
fidelity tests check the same through whole episodes against ale-py."""

import ctypes

import envpool_atari
import numpy as np
import pytest

_lib = ctypes.CDLL(envpool_atari.PLUGIN_PATH)
_lib.envpool_atari_gray_lookup.restype = ctypes.c_int
_lib.envpool_atari_gray_lookup.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]


def _avx2() -> bool:
    with open("/proc/cpuinfo") as f:
        return " avx2" in f.read()


def lookup(src: np.ndarray) -> tuple[int, np.ndarray]:
    src = np.ascontiguousarray(src, dtype=np.uint8)
    dst = np.zeros_like(src)
    rc = _lib.envpool_atari_gray_lookup(src.ctypes.data, dst.ctypes.data, src.size)
    return rc, dst


def expected(src: np.ndarray) -> np.ndarray:
    return ((src.astype(np.int64) * 37 + 11) % 256).astype(np.uint8)  # the made-up palette


@pytest.mark.skipif(not _avx2(), reason="the fast path needs AVX2; without it the ALE's loop runs")
@pytest.mark.parametrize("n", [210 * 160, 32, 31, 33, 1000, 1])
def test_even_indices_give_the_palette_values(n):
    rng = np.random.default_rng(n)
    src = rng.integers(0, 128, n).astype(np.uint8) * 2  # every even index, as ALE screens hold
    src[: min(n, 128)] = (np.arange(min(n, 128)) * 2).astype(np.uint8)
    rc, dst = lookup(src)
    assert rc == 1
    np.testing.assert_array_equal(dst, expected(src))


@pytest.mark.parametrize("bad", [1, 255, 77])
@pytest.mark.parametrize("at", [0, 31, 32, 210 * 160 - 1])
def test_an_index_it_does_not_cover_is_refused(bad, at):
    src = np.full(210 * 160, 2, dtype=np.uint8)
    src[at] = bad
    rc, _ = lookup(src)
    assert rc == 0  # the env then converts the frame with the ALE's own loop
