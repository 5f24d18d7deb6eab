"""The two reference implementations the Atari tasks are checked against, set up like ours.

(a) ale-py's ``AtariVectorEnv`` (ale-py 0.12.1), the C++ vector env of the ALE itself;
(b) gymnasium's ``AtariPreprocessing`` + ``FrameStackObservation`` over ale-py's ``AtariEnv``
    (``frameskip=1``), in gymnasium's ``SyncVectorEnv``.

``ours(game, n, seed, **kw)`` is our pool; ``vector_oracle`` / ``gymnasium_oracle`` make (a) / (b)
with the same settings under their own option names.
"""

from __future__ import annotations

import ale_py
import gymnasium
import numpy as np
from ale_py.vector_env import AtariVectorEnv
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

import envpool

gymnasium.register_envs(ale_py)

# Our option -> AtariVectorEnv's name for it.
VECTOR_NAMES = {
    "frame_skip": "frameskip",
    "stack_num": "stack_num",
    "img_height": "img_height",
    "img_width": "img_width",
    "gray_scale": "grayscale",
    "maxpool": "maxpool",
    "noop_max": "noop_max",
    "use_fire_reset": "use_fire_reset",
    "terminal_on_life_loss": "episodic_life",
    "reward_clip": "reward_clipping",
    "max_num_frames_per_episode": "max_num_frames_per_episode",
    "repeat_action_probability": "repeat_action_probability",
    "full_action_space": "full_action_space",
}
# AtariVectorEnv's defaults that differ from ours, made equal.
VECTOR_DEFAULTS = {"reward_clipping": False}


def rom_id(game: str) -> str:
    """ "SpaceInvaders" -> "space_invaders" (the ROM id)."""
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(game))


def ours(game: str, num_envs: int, seed: int, autoreset_mode="next_step", batch_size=None, **kw):
    return envpool.make(
        f"{game}-v5",
        num_envs=num_envs,
        batch_size=batch_size,
        seed=seed,
        autoreset_mode=autoreset_mode,
        num_threads=2,
        **kw,
    )


def vector_oracle(game: str, num_envs: int, autoreset_mode="next_step", batch_size=0, **kw) -> AtariVectorEnv:
    kwargs = dict(VECTOR_DEFAULTS)
    for key, value in kw.items():
        kwargs[VECTOR_NAMES[key]] = value
    mode = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}[autoreset_mode]
    return AtariVectorEnv(rom_id(game), num_envs, autoreset_mode=mode, batch_size=batch_size, num_threads=2, **kwargs)


class ScriptedNoops:
    """Stands in for the base env's np_random in AtariPreprocessing's no-op draw only.

    AtariPreprocessing draws its reset no-ops from the base env's NumPy generator (1..noop_max);
    ours follow AtariVectorEnv's draw (tested against it). To compare everything else, (b) is told
    the count ours used (its reset's episode_frame_number): ``push`` it before (b) resets.
    """

    def __init__(self):
        self.counts: list[int] = []

    def push(self, count: int) -> None:
        self.counts.append(int(count))

    def integers(self, low, high):
        assert self.counts, "(b) reset without a scripted no-op count"
        count = self.counts.pop(0)
        assert 0 <= count < high
        return count


def gymnasium_oracle(
    game: str,
    ale_seeds,
    autoreset_mode="next_step",
    *,
    frame_skip=4,
    stack_num=4,
    noop_max=30,
    img_height=84,
    img_width=84,
    gray_scale=True,
    terminal_on_life_loss=False,
    repeat_action_probability=0.0,
    full_action_space=False,
    max_num_frames_per_episode=108000,
    frame_stack_padding="zero",
):
    """(b) as a SyncVectorEnv; env i's ALE is seeded with ale_seeds[i] (as ours: seed + i)."""
    noops = [ScriptedNoops() for _ in ale_seeds]

    def make(i):
        def thunk():
            env = gymnasium.make(
                f"ALE/{game}-v5",
                frameskip=1,
                repeat_action_probability=repeat_action_probability,
                full_action_space=full_action_space,
                max_num_frames_per_episode=max_num_frames_per_episode,
            )
            base = env.unwrapped
            # AtariEnv derives the ALE seed from reset(seed) through a SeedSequence; seed the ALE
            # with ours directly, as AtariEnv.seed_game + load_game do.
            base.ale.setInt("random_seed", int(ale_seeds[i]))
            base.load_game()
            base._np_random = noops[i]
            env = AtariPreprocessing(
                env,
                noop_max=noop_max,
                frame_skip=frame_skip,
                screen_size=(img_width, img_height),
                terminal_on_life_loss=terminal_on_life_loss,
                grayscale_obs=gray_scale,
            )
            return FrameStackObservation(env, stack_num, padding_type=frame_stack_padding)

        return thunk

    mode = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}[autoreset_mode]
    return SyncVectorEnv([make(i) for i in range(len(ale_seeds))], autoreset_mode=mode), noops


def random_actions(n_actions: int, num_envs: int, steps: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n_actions, size=(steps, num_envs))
