"""The gymnasium front end: a real :class:`gymnasium.vector.VectorEnv` over the C++ pool."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envpool.pool import PoolFrontEnd


class EnvPoolVectorEnv(PoolFrontEnd, gymnasium.vector.VectorEnv):
    """``num_envs`` copies of a native env, stepped by a C++ thread pool.

    Full batch (``batch_size == num_envs``, the default) behaves like gymnasium's
    ``SyncVectorEnv`` in the chosen autoreset mode (``autoreset_mode``: next-step by default,
    same-step or disabled). With ``batch_size < num_envs`` use the asynchronous loop:
    ``async_reset()``, then ``recv()`` the first ``batch_size`` envs to finish and
    ``send(actions, info["env_id"])`` them back.

    Differences from the reference EnvPool: ``observation_space`` / ``action_space`` are
    batched, as in gymnasium; a single env's spaces are ``single_observation_space`` /
    ``single_action_space`` (``env_type="gym"`` gives the reference's shape).

    >>> import envpool, numpy as np
    >>> envs = envpool.make("CartPole-v1", num_envs=3, seed=0)
    >>> obs, info = envs.reset()
    >>> obs, rew, term, trunc, info = envs.step(np.array([0, 1, 0]))
    >>> rew, info["elapsed_step"]
    (array([1., 1., 1.]), array([1, 1, 1], dtype=int32))
    >>> envs.close()

    Returned arrays belong to the caller: later steps never overwrite them.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, task_id: str, **kwargs: Any):
        self._open_pool(task_id, **kwargs)
        self.metadata = {
            **type(self).metadata,
            "autoreset_mode": self.autoreset_mode,
            "render_modes": ["rgb_array"] if self.task_spec.render_shape or self.render_mode == "rgb_array" else [],
        }
        self.single_observation_space = self.task_spec.observation_space
        self.single_action_space = self.task_spec.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        """Start new episodes in all envs and return ``(obs, info)``.

        ``seed=int`` seeds env ``i`` with ``seed + i``; a list gives one seed per env;
        ``None`` continues each env's random stream. With ``batch_size < num_envs`` this
        returns the first ``batch_size`` envs to finish resetting (as the reference EnvPool).

        ``options={"reset_mask": mask}`` (a bool array of ``num_envs``) resets only the masked
        envs; in full-batch mode this needs ``autoreset_mode=DISABLED``, and the other envs'
        rows repeat their last observation, as gymnasium's ``SyncVectorEnv`` does.
        """
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            super().reset(seed=int(seed))  # gymnasium's own np_random, for wrappers that use it
        self._send_reset(seed, options)
        obs, _, _, _, info = self._pool.recv()
        return obs, info

    def step(self, actions, env_id=None, timeout: float | None = None):
        """Step envs (all of them, or ``env_id``) and return the next batch of results:
        ``(obs, reward, terminated, truncated, info)``.

        With ``timeout`` (seconds), raises ``TimeoutError`` if the batch is not complete by
        then; the envs keep stepping and ``recv()`` returns the batch later.
        """
        return self._step(actions, env_id, timeout)

    def recv(self, timeout: float | None = None):
        """The first ``batch_size`` envs to finish: ``(obs, reward, terminated, truncated,
        info)``, with ``info["env_id"]`` naming each row's env.

        With ``timeout`` (seconds), raises ``TimeoutError`` if no batch is complete by then;
        nothing is lost: the next ``recv()`` returns it. Raises ``RuntimeError`` at once when
        too few envs are in flight to ever fill a batch.
        """
        return self._recv(timeout)

    # -- Python envs (envpool.make_python): their own methods and attributes -------------------

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Calls ``name(*args, **kwargs)`` on every env (or reads it, if not callable) and
        returns the results in env order, as gymnasium's ``AsyncVectorEnv.call``. Python envs only;
        every env must be idle."""
        return self._python_pool("call").call(name, *args, **kwargs)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Attribute ``name`` of every env, in env order (Python envs only)."""
        return self._python_pool("get_attr").get_attr(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Sets attribute ``name`` of every env: ``values`` is one value per env, or one for all."""
        self._python_pool("set_attr").set_attr(name, values)

    def _python_pool(self, what: str):
        if not hasattr(self._pool, "get_attr"):
            raise AttributeError(
                f"{what}() reaches into Python envs (envpool.make_python); native envs have no Python "
                "attributes: use get_state()/set_state() or the task's spec"
            )
        return self._pool

    def close_extras(self, **kwargs: Any) -> None:
        # No pool when __init__ raised before building it; gymnasium < 1.3 still closes such a
        # half-built env from VectorEnv.__del__, which must not raise over make()'s own error.
        self._close_pool()

    def __enter__(self) -> EnvPoolVectorEnv:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class EnvPoolGymEnv(EnvPoolVectorEnv):
    """``env_type="gym"``: the reference EnvPool's front-end shape, for scripts written for it.

    The same pool and results as :class:`EnvPoolVectorEnv`, but ``observation_space`` and
    ``action_space`` are a single env's (CleanRL's EnvPool scripts read
    ``envs.action_space.n`` and set ``envs.single_action_space = envs.action_space``).
    """

    def __init__(self, task_id: str, **kwargs: Any):
        super().__init__(task_id, **kwargs)
        self.observation_space = self.single_observation_space
        self.action_space = self.single_action_space
