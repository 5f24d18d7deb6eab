"""render_mode="rgb_array" on the MPE tasks against mpe2 1.1.1's own frames, pixel for pixel.

mpe2 draws with pygame(-ce): a 700 x 700 white surface, each entity a filled circle of its
colour x 200 and a one-pixel black ring (pygame.draw.circle), zoomed to the entities' positions
(with dynamic_rescaling, radii scaled by the zoom at reset against the current one); text only for
agents that speak, which none of these scenarios has. Our frames (cpp/envs/mpe/render/) must be
the same bytes from the same states: after a reset from the same seed, over steps with the same
actions, and from states written into both sides (far apart: a wide zoom; piled up: a close one).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mpe2")
pytest.importorskip("pygame", reason="mpe2 draws with pygame (the oracle)")

from ..frames import assert_same_frame  # noqa: E402
from .test_mpe import OurEnvs, make_ref, random_actions, random_state, ref_actions, write_ref_state  # noqa: E402

# Defaults, other sizes, and dynamic_rescaling=False (radii not scaled by the zoom).
CONFIGS = [
    ("SimpleSpread-v3", {}),
    ("SimpleSpread-v3", {"N": 5, "dynamic_rescaling": False}),
    ("SimpleTag-v3", {}),
    ("SimpleTag-v3", {"num_good": 2, "num_adversaries": 2, "num_obstacles": 1}),
    ("SimpleAdversary-v3", {}),
    ("SimpleAdversary-v3", {"N": 4, "dynamic_rescaling": False}),
]
IDS = [f"{task}-{'-'.join(f'{k}{v}' for k, v in kw.items()) or 'default'}" for task, kw in CONFIGS]


def render_pair(task_id: str, kwargs: dict, seed: int):
    ours = OurEnvs(task_id, 1, seed, render_mode="rgb_array", **kwargs)
    ref = make_ref(task_id, render_mode="rgb_array", **kwargs)
    return ours, ref


def our_frame(ours: OurEnvs) -> np.ndarray:
    frames = ours.pool.render(None)
    assert frames.shape == (1, 700, 700, 3) and frames.dtype == np.uint8
    return frames[0]


def check_same(ours: OurEnvs, ref, where: str, inked: bool = True) -> None:
    got = our_frame(ours)
    assert_same_frame(got, ref.render(), f"{where} (ours, mpe2's)")
    if inked:  # a real drawing: the white background and ink of other colours
        codes = (got[..., 0].astype(np.int32) << 16) | (got[..., 1].astype(np.int32) << 8) | got[..., 2]
        assert len(np.unique(codes)) >= 3, where


def write_goal_colour(ref, state: np.ndarray) -> None:
    """mpe2's simple_adversary colours the goal green where reset_world picks it; a goal written
    afterwards (write_ref_state) keeps the old colours. Our goal is green wherever it was set, so
    the reference is recoloured as its reset_world would have for that goal."""
    env = ref.unwrapped
    if env.metadata["name"] != "simple_adversary_v3":
        return
    for k, landmark in enumerate(env.world.landmarks):
        landmark.color = np.array([0.15, 0.65, 0.15] if k == int(state[-1]) else [0.15, 0.15, 0.15])


@pytest.mark.parametrize(("task_id", "kwargs"), CONFIGS, ids=IDS)
def test_frames_equal_mpe2(task_id: str, kwargs: dict) -> None:
    seed = 21
    ours, ref = render_pair(task_id, kwargs, seed)
    ours.reset()
    ref.reset(seed=seed)
    names = ref.possible_agents
    check_same(ours, ref, "reset")
    rng = np.random.default_rng(5)
    for t in range(6):
        actions = random_actions(rng, 1, len(names), False)
        ours.step(actions)
        ref.step(ref_actions(ref, actions[0], False))
        check_same(ours, ref, f"step {t}")
    # Written states: positions spread over [-1.3, 1.3] with entities piled on others, then
    # squeezed or spread out (the zoom at reset against a closer or a wider one: radii from
    # past the frame's corners down to 1 pixel and none).
    for trial, scale in enumerate((1.0, 0.1, 0.02, 12.0, 40.0)):
        state = random_state(rng, ref, 3)
        state[1 : -1 if task_id == "SimpleAdversary-v3" else None] *= scale
        write_ref_state(ref, state)
        write_goal_colour(ref, state)
        ours.set_state(0, state)
        check_same(ours, ref, f"written state {trial}", inked=False)  # a disc may cover the frame
        actions = random_actions(rng, 1, len(names), False)
        ours.step(actions)
        ref.step(ref_actions(ref, actions[0], False))
        check_same(ours, ref, f"written state {trial}, a step on", inked=False)


def test_frame_follows_the_state() -> None:
    """Moving one agent changes the frame (a frame is drawn from the env's own state)."""
    ours = OurEnvs("SimpleSpread-v3", 1, 3, render_mode="rgb_array")
    ours.reset()
    first = our_frame(ours).copy()
    state = ours.get_state(0)
    state[1] = -state[1]  # agent 0 mirrored across the y axis
    ours.set_state(0, state)
    assert not np.array_equal(our_frame(ours), first)


def test_a_world_mpe2_cannot_draw_is_refused() -> None:
    """Every entity at the origin (a zero zoom range) or a position that is not finite: mpe2's
    draw() fails its assertion; ours says what is wrong."""
    ours = OurEnvs("SimpleSpread-v3", 1, 3, render_mode="rgb_array")
    ours.reset()
    state = ours.get_state(0)
    for bad in (0.0, np.nan, np.inf):
        written = state.copy()
        written[1:] = 0.0
        written[1] = bad
        ours.set_state(0, written)
        with pytest.raises(ValueError, match="out of bounds"):
            ours.pool.render(None)


def test_frames_through_make_and_the_spec() -> None:
    import envpool

    assert envpool.make_spec("SimpleTag-v3").render_shape == (700, 700, 3)
    envs = envpool.make("SimpleAdversary-v3", num_envs=2, seed=0, render_mode="rgb_array")
    try:
        envs.reset()
        frames = envs.render()
        assert len(frames) == 2 and frames[0].shape == (700, 700, 3)
        assert not np.array_equal(frames[0], frames[1])
    finally:
        envs.close()


def test_pettingzoo_view_renders_as_mpe2() -> None:
    """env_type="pettingzoo": a view's render() is its env's frame, as mpe2's env.render()."""
    import envpool

    envs = envpool.make("SimpleTag-v3", env_type="pettingzoo", num_envs=2, seed=4, render_mode="rgb_array")
    ref = make_ref("SimpleTag-v3", render_mode="rgb_array")
    try:
        view = envs[1]
        assert view.render_mode == "rgb_array" and view.metadata["render_modes"] == ["rgb_array"]
        view.reset(seed=9)
        ref.reset(seed=9)
        np.testing.assert_array_equal(view.render(), ref.render())
        for _ in range(3):
            actions = {name: 2 for name in ref.possible_agents}
            view.step(actions)
            ref.step(actions)
            np.testing.assert_array_equal(view.render(), ref.render())
    finally:
        envs.close()
    quiet = envpool.make("SimpleTag-v3", env_type="pettingzoo", num_envs=1)  # one env: the view itself
    try:
        quiet.reset(seed=0)
        assert quiet.render() is None  # no render_mode: None, as a PettingZoo env without one
    finally:
        quiet.close()
