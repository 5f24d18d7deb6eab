"""One env as a :class:`gymnasium.Env`: what ``gymnasium.make("envpool/<task>")`` returns.

``envpool/<task>`` is registered with both of gymnasium's entry points: ``gymnasium.make_vec``
builds a whole pool (:func:`envpool.make`), ``gymnasium.make`` builds :class:`EnvPoolEnv`, a
pool of one env stepped in the calling thread, behind gymnasium's usual wrappers
(``PassiveEnvChecker``, ``OrderEnforcing``, ``TimeLimit`` with the task's limit or
``max_episode_steps=``). So code written for a single gymnasium env (TorchRL's ``GymEnv``,
``gymnasium.make_vec(..., vectorization_mode="sync")``, tutorials) runs the native env.

As gymnasium's envs: ``reset(seed=s)`` seeds the env (what ``envpool.make(task, seed=s)`` gives
env 0), ``reset()`` continues its random stream, and the first ``reset()`` without a seed
draws a fresh one; the time limit is the ``TimeLimit`` wrapper's (the env itself has none);
``render_mode="rgb_array"`` renders one frame, ``"human"`` gets gymnasium's
``HumanRendering`` wrapper. Unlike gymnasium's envs, stepping after ``terminated`` or
``truncated`` without a ``reset()`` raises (gymnasium leaves it undefined).

Text observations (MiniGrid's and BabyAI's ``mission``) are strings here, in a gymnasium
``Text`` space, as the family's own single env gives them; a pool gives them as fixed-width
UTF-8 bytes (docs/tasks.md#minigrid), which have an array form.
"""

from __future__ import annotations

import secrets
import string
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from envpool.frontends.goals import GoalMethods
from envpool.frontends.seeding import check_optional_seed
from envpool.frontends.sources import NativeSource, PoolOptions
from envpool.frontends.vector_env import EnvPoolVectorEnv
from envpool.tasks import make_spec

# make() arguments that shape a pool: meaningless for one env.
_POOL_ARGUMENTS = ("num_envs", "batch_size", "num_threads", "autoreset_mode", "env_type")

# Text observations (the arrays a task's spec marks "text", cpp/core/spec.h ArraySpec::Text):
# zero-padded UTF-8 bytes in a pool, a str in a Text space of at most that many characters here.
# The charset is ASCII's printable characters without the control whitespace: every mission
# minigrid writes.
_TEXT_CHARSET = frozenset(string.ascii_letters + string.digits + string.punctuation + " ")


class EnvPoolEnv(GoalMethods, gymnasium.Env):
    """One env of a native task (built-in or plugin), as a ``gymnasium.Env``.

    Made by ``gymnasium.make("envpool/<task>", **env_kwargs)`` or directly as
    ``EnvPoolEnv(task_id, render_mode=None, **env_kwargs)``; ``env_kwargs`` are the task's own
    (``g=9.81`` for Pendulum-v1), as for :func:`envpool.make`.

    >>> import gymnasium, envpool
    >>> env = gymnasium.make("envpool/CartPole-v1")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, env.spec.max_episode_steps
    ((4,), 500)
    >>> env.close()
    """

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"]}

    def __init__(self, task_id: str, render_mode: str | None = None, **env_kwargs: Any):
        wrong = [key for key in _POOL_ARGUMENTS if key in env_kwargs]
        if wrong:
            raise TypeError(
                f"gymnasium.make('envpool/{task_id}') makes one env and takes no {wrong}; for a pool use "
                f"envpool.make({task_id!r}, num_envs=...) or gymnasium.make_vec('envpool/{task_id}', num_envs=...)"
            )
        seed = env_kwargs.pop("seed", None)
        options = PoolOptions(
            num_envs=1,
            num_threads=1,  # the calling thread steps it: no hand-off to a worker
            seed=secrets.randbelow(2**31) if seed is None else seed,  # gymnasium: unseeded is random
            max_episode_steps=0,  # gymnasium.make's TimeLimit wrapper ends episodes
            autoreset_mode="disabled",
        )
        # What envpool.make(task_id, ...) builds.
        self._envs = EnvPoolVectorEnv(NativeSource(task_id, options, render_mode=render_mode, **env_kwargs))
        task = self._envs.task_spec
        self.task_id = task_id
        self.observation_space = _text_view(task)
        self.action_space = task.action_space
        self.render_mode = render_mode
        self.metadata = _metadata(task)
        self._episode_over = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode: ``(obs, info)``. ``seed`` seeds the env; ``None`` continues its stream."""
        if options:
            raise ValueError(f"reset() of envpool/{self.task_id} takes no options, got {sorted(options)}")
        seed = check_optional_seed("seed", seed)  # before anything changes
        super().reset(seed=seed)  # gymnasium's np_random, for wrappers that use it
        obs, info = self._envs.reset(seed=seed)
        self._episode_over = False
        return self._obs(obs), self._info(info)

    def step(self, action):
        """``(obs, reward, terminated, truncated, info)`` of one step."""
        if self._episode_over:
            raise RuntimeError(
                f"envpool/{self.task_id}: the episode is over (terminated or truncated); call reset() before step()"
            )
        obs, reward, terminated, truncated, info = self._envs.step(self._batch_action(action))
        self._episode_over = bool(terminated[0] or truncated[0])
        return self._obs(obs), float(reward[0]), bool(terminated[0]), bool(truncated[0]), self._info(info)

    def render(self):
        """The current frame, ``(H, W, 3)`` uint8, with ``render_mode="rgb_array"``; else ``None``."""
        if self.render_mode is None:
            return None
        return self._envs.render()[0]

    def close(self) -> None:
        envs = getattr(self, "_envs", None)  # absent when __init__ raised
        if envs is not None:
            envs.close()

    def get_state(self) -> np.ndarray:
        """The env's full internal state (see ``EnvPoolVectorEnv.get_state``)."""
        return self._envs.get_state(0)

    def set_state(self, state) -> None:
        """Put the env in ``state``; its next step starts from there."""
        self._envs.set_state(0, state)

    def _goal_pool(self):
        return self._envs._pool  # compute_reward & co. (GoalMethods) with this env's kwargs

    def _batch_action(self, action):
        space = self.action_space
        if isinstance(space, spaces.Dict):
            return {key: self._batch_one(space[key], action[key], key) for key in space}
        return self._batch_one(space, action, "action")

    @staticmethod
    def _batch_one(space: spaces.Space, value, name: str) -> np.ndarray:
        array = np.asarray(value)
        if space.shape is not None and array.shape != space.shape:
            raise ValueError(f"{name} must have shape {space.shape} ({space}), got {array.shape}")
        return array[np.newaxis]

    def _obs(self, batch):
        return _unbatch(self.observation_space, batch)

    @staticmethod
    def _info(batch: dict[str, Any]) -> dict[str, Any]:
        # The pool's bookkeeping (env_id, elapsed_step) and vector masks are not a single env's.
        return {
            key: value[0]
            for key, value in batch.items()
            if key not in ("env_id", "elapsed_step") and not key.startswith("_")
        }


def _text_view(task) -> spaces.Space:
    """The task's observation space with its text arrays (if any) as ``Text`` spaces."""
    space = task.observation_space
    texts = {a["name"] for a in (task.arrays or {}).get("obs", ()) if a.get("text")}
    if not texts or not isinstance(space, spaces.Dict):
        return space
    return spaces.Dict(
        {k: spaces.Text(int(v.shape[0]), charset=_TEXT_CHARSET) if k in texts else v for k, v in space.items()}
    )


def _unbatch(space: spaces.Space, batch):
    """Row 0 of a one-env batch, shaped as a single gymnasium env returns it."""
    if isinstance(space, spaces.Text):  # zero-padded UTF-8 bytes
        return bytes(batch[0]).rstrip(b"\0").decode()
    if isinstance(space, spaces.Tuple):
        return tuple(_unbatch(sub, part) for sub, part in zip(space.spaces, batch))
    if isinstance(space, spaces.Dict):
        return {key: _unbatch(space[key], batch[key]) for key in space}
    if isinstance(space, spaces.Discrete):
        return int(batch[0])  # gymnasium's discrete-observation envs return a Python int
    return batch[0]


def _metadata(task) -> dict[str, Any]:
    """gymnasium's env ``metadata`` of a task: ``"rgb_array"`` where it renders, and the frame rate
    its C++ spec declares (the reference env's ``render_fps``) where it has one."""
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"] if task.render_shape else []}
    if task.render_fps is not None:
        metadata["render_fps"] = task.render_fps
    return metadata


class SingleEnvEntryPoint:
    """gymnasium's ``entry_point`` of ``envpool/<task>``: ``creator(**kwargs) -> EnvPoolEnv``.

    ``metadata`` answers before the env exists, as gymnasium.make asks (a task that renders
    lists ``"rgb_array"``, so ``render_mode="human"`` gets gymnasium's HumanRendering wrapper).
    """

    def __init__(self, task_id: str):
        self.task_id = task_id

    @property
    def metadata(self) -> dict[str, Any]:
        return _metadata(make_spec(self.task_id))

    def __call__(self, **kwargs: Any) -> EnvPoolEnv:
        return EnvPoolEnv(self.task_id, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SingleEnvEntryPoint) and other.task_id == self.task_id

    def __hash__(self) -> int:
        return hash(self.task_id)

    def __repr__(self) -> str:
        return f"SingleEnvEntryPoint({self.task_id!r})"
