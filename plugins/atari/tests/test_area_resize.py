"""The frame resize equals OpenCV's cv2.resize(..., interpolation=cv2.INTER_AREA) bit for bit.

OpenCV (opencv-python-headless) is a test-only dependency: the plugin reimplements the resize
(src/area_resize.h) and is called here through its C entry point envpool_atari_area_resize.
"""

import ctypes

import cv2
import envpool_atari
import numpy as np
import pytest

_lib = ctypes.CDLL(envpool_atari.PLUGIN_PATH)
_lib.envpool_atari_area_resize.restype = ctypes.c_int
_lib.envpool_atari_area_resize.argtypes = [
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_int,
]


def plugin_resize(src: np.ndarray, height: int, width: int, lanes: list | None = None) -> np.ndarray:
    src = np.ascontiguousarray(src)
    channels = 1 if src.ndim == 2 else src.shape[2]
    dst = np.zeros((height, width) + src.shape[2:], dtype=np.uint8)
    rc = _lib.envpool_atari_area_resize(
        src.ctypes.data, src.shape[0], src.shape[1], channels, dst.ctypes.data, height, width
    )
    assert rc in (0, 1), f"the plugin refused {src.shape} -> {(height, width)}"
    if lanes is not None:
        lanes.append(rc == 1)
    return dst


def cv2_resize(src: np.ndarray, height: int, width: int) -> np.ndarray:
    return cv2.resize(src, (width, height), interpolation=cv2.INTER_AREA)


SIZES = [(84, 84), (64, 64), (96, 72), (105, 84), (84, 160), (210, 84), (100, 101), (7, 13), (1, 1), (209, 159)]


@pytest.mark.parametrize("height, width", SIZES)
@pytest.mark.parametrize("channels", [1, 3])
def test_random_frames_equal_cv2(height, width, channels):
    rng = np.random.default_rng(height * 1000 + width + channels)
    for trial in range(6):
        shape = (210, 160) if channels == 1 else (210, 160, 3)
        if trial == 0:
            src = np.full(shape, 255, dtype=np.uint8)  # saturation
        elif trial == 1:
            src = (np.indices(shape[:2]).sum(axis=0) % 2 * 255).astype(np.uint8)  # checkerboard: ties
            if channels == 3:
                src = np.repeat(src[..., None], 3, axis=2)
        else:
            src = rng.integers(0, 256, size=shape, dtype=np.uint8)
        np.testing.assert_array_equal(plugin_resize(src, height, width), cv2_resize(src, height, width))


def test_atari_like_frames_equal_cv2():
    # Few colours in large flat areas with sharp edges, as Atari screens have.
    rng = np.random.default_rng(0)
    palette = rng.integers(0, 256, size=8, dtype=np.uint8)
    for _ in range(20):
        blocks = rng.integers(0, 8, size=(21, 16))
        src = palette[np.kron(blocks, np.ones((10, 10), dtype=np.int64))].astype(np.uint8)
        np.testing.assert_array_equal(plugin_resize(src, 84, 84), cv2_resize(src, 84, 84))


def test_integer_factors_and_enlarging_are_refused():
    src = np.zeros((210, 160), dtype=np.uint8)
    dst = np.zeros((105, 80), dtype=np.uint8)
    # OpenCV averages integer factors on another path; the plugin refuses rather than differ.
    assert _lib.envpool_atari_area_resize(src.ctypes.data, 210, 160, 1, dst.ctypes.data, 105, 80) == -1
    big = np.zeros((300, 200), dtype=np.uint8)
    assert _lib.envpool_atari_area_resize(src.ctypes.data, 210, 160, 1, big.ctypes.data, 300, 200) == -1


def test_the_atari_resize_runs_in_lanes():
    """210x160 gray -> 84x84 (the default) takes the lane path (four destination pixels a
    quarter row apart side by side; area_resize.h), and the sizes above that can take it do, so
    the comparisons with cv2 above cover both paths."""
    frame = np.zeros((210, 160), dtype=np.uint8)
    used = {}
    for height, width in SIZES:
        lanes = []
        plugin_resize(frame, height, width, lanes)
        used[(height, width)] = lanes[0]
        rgb = []
        plugin_resize(np.zeros((210, 160, 3), dtype=np.uint8), height, width, rgb)
        assert rgb == [False]  # RGB rows: the plain path
    assert used[(84, 84)]
    assert not used[(100, 101)] and not used[(209, 159)]  # no common factor of 4
    assert sum(used.values()) >= 4, used
