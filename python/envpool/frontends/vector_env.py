"""The gymnasium front end: a real :class:`gymnasium.vector.VectorEnv` over the C++ pool."""

from __future__ import annotations

from typing import Any

import gymnasium
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envpool.frontends.pool import PoolFrontEnd
from envpool.frontends.seeding import is_int
from envpool.frontends.sources import PoolSource
from envpool.frontends.vector_calls import SplitCalls


class EnvPoolVectorEnv(SplitCalls, PoolFrontEnd, gymnasium.vector.VectorEnv):
    """``num_envs`` copies of a native env, stepped by a C++ thread pool.

    Full batch (``batch_size == num_envs``, the default) behaves like gymnasium's
    ``SyncVectorEnv`` in the chosen autoreset mode (``autoreset_mode``: next-step by default,
    same-step or disabled), its ``info`` included. With ``batch_size < num_envs`` use the
    asynchronous loop: ``async_reset()``, then ``recv()`` the first ``batch_size`` envs to
    finish and ``send(actions, info["env_id"])`` them back (``batch_action_space``, of
    ``batch_size`` rows, is what such a batch's actions are sampled from; ``action_space`` has
    ``num_envs``). ``recv()``'s info (and that of any
    batch whose rows are not all envs in order) also holds ``env_id`` and ``elapsed_step``.

    Differences from the reference EnvPool: ``observation_space`` / ``action_space`` are
    batched, as in gymnasium; a single env's spaces are ``single_observation_space`` /
    ``single_action_space`` (``env_type="gym"`` gives the reference's shape).

    >>> import envpool, numpy as np
    >>> envs = envpool.make("CartPole-v1", num_envs=3, seed=0)
    >>> obs, info = envs.reset()
    >>> obs, rew, term, trunc, info = envs.step(np.array([0, 1, 0]))
    >>> rew, info["env_id"]
    (array([1., 1., 1.]), array([0, 1, 2], dtype=int32))
    >>> envs.send(np.array([0, 1, 0])); envs.recv()[4]["elapsed_step"]
    array([2, 2, 2], dtype=int32)
    >>> envs.close()

    Returned arrays belong to the caller: later steps never overwrite them.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    is_vector_env = True  # read by older vector-aware wrappers (as the reference EnvPool has it)
    # Whether full-batch results carry env_id and elapsed_step (gymnasium's SyncVectorEnv: no).
    _full_batch_ids = False
    _batch_ids: bool  # step() and *_wait() results carry env_id and elapsed_step (see __init__)
    _direct_step: bool  # step() calls the pool itself (see __init__)
    _direct_recv: bool  # recv() calls the pool itself (see __init__)

    def __init__(self, source: PoolSource):
        """``source``: where the pool comes from (envpool.frontends.sources: ``envpool.make``
        builds a ``NativeSource`` of a task and its options)."""
        opened = self._open_pool(source)
        if opened.metadata is not None:  # a Python env's own (copied: its class's stays as it is)
            self.metadata = {**opened.metadata, "autoreset_mode": self.autoreset_mode}
        else:
            self.metadata = {
                **type(self).metadata,
                "autoreset_mode": self.autoreset_mode,
                "render_modes": ["rgb_array"] if self.task_spec.render_shape or self.render_mode == "rgb_array" else [],
            }
            if self.task_spec.render_fps is not None:  # as SyncVectorEnv copies its env's
                self.metadata["render_fps"] = self.task_spec.render_fps
        self.single_observation_space = self.task_spec.observation_space
        self.single_action_space = self.task_spec.action_space
        self.observation_space = opened.observation_space or batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        # One recv() batch's actions (batch_size rows; action_space has num_envs): what the async
        # loop samples, envs.send(envs.batch_action_space.sample(), info["env_id"]).
        self.batch_action_space = batch_space(self.single_action_space, self.batch_size)
        # Whether step() and *_wait() results carry env_id and elapsed_step. Async batches: yes.
        # Full batches of Python envs (make_python, standing in for AsyncVectorEnv): no, their
        # info is SyncVectorEnv's exactly. Full batches of native envs (standing in for the
        # reference EnvPool, whose info always names its rows; Tianshou's EnvPoolFactory reads
        # them): yes, beside SyncVectorEnv's keys.
        self._batch_ids = self._full_batch_ids or self.batch_size < self.num_envs or not self._python_envs
        # step() may call the pool itself where _step would do just that (no subclass reshapes it).
        self._direct_step = self._batch_ids and type(self)._step is PoolFrontEnd._step
        self._direct_recv = type(self)._recv is PoolFrontEnd._recv  # the same for recv()

    def reset(self, env_id=None, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
        """Start new episodes in all envs (or in envs ``env_id``) and return ``(obs, info)``.

        ``seed=int`` seeds env ``i`` with ``seed + i``; a list gives one seed per env (``None``:
        that env keeps its random stream); ``None`` continues each env's random stream. With
        ``batch_size < num_envs`` this returns the first ``batch_size`` envs to finish
        resetting (as the reference EnvPool).

        ``options={"reset_mask": mask}`` (a bool array of ``num_envs``) resets only the masked
        envs; in full-batch mode this needs ``autoreset_mode=DISABLED``, and the other envs'
        rows repeat their last observation, as gymnasium's ``SyncVectorEnv`` does. Other
        options go to each reset env's ``reset`` (Python envs; native envs take none).

        ``env_id`` (an array of env ids, as the reference EnvPool and Tianshou pass it) resets
        only those envs: the result has their rows, in that order (full batch), and its info
        names them (``env_id``, ``elapsed_step``).
        """
        if env_id is None:
            self.reset_async(seed=seed, options=options)
            return self.reset_wait()
        self._start_call("reset")
        self._begin_reset(seed, options, env_id)
        obs, _, _, _, info = self._recv(None, True)
        return obs, info

    def _begin_reset(self, seed, options, env_id=None) -> None:
        self._send_reset(seed, options, env_id)  # checks seed first: a refused reset changes nothing
        if is_int(seed):
            super().reset(seed=int(seed))  # gymnasium's own np_random, for wrappers that use it

    def step(self, actions, env_id=None, timeout: float | None = None):
        """Step envs (all of them, or ``env_id``) and return the next batch of results:
        ``(obs, reward, terminated, truncated, info)``. In full-batch mode a subset ``env_id``
        (with one action row per id) steps only those envs and returns their rows, in that order.

        With ``timeout`` (seconds), raises ``envpool.errors.PoolTimeoutError`` (a
        ``TimeoutError``) if the batch is not complete by then; the envs keep stepping and
        ``recv()`` returns the batch later.
        """
        if self._pending is not None:
            self._start_call("step")  # raises, as gymnasium's AsyncVectorEnv does
        if self._direct_step and env_id is None and timeout is None:
            return self._pool.step(actions, None, -1.0)  # the common call, one Python frame (~3% at 64 envs)
        return self._step(actions, env_id, timeout, self._batch_ids or env_id is not None)

    def recv(self, timeout: float | None = None):
        """The first ``batch_size`` envs to finish: ``(obs, reward, terminated, truncated,
        info)``, with ``info["env_id"]`` naming each row's env (and ``info["elapsed_step"]``
        its episode's steps so far).

        With ``timeout`` (seconds), raises ``envpool.errors.PoolTimeoutError`` (a
        ``TimeoutError``) if no batch is complete by then; nothing is lost: the next
        ``recv()`` returns it. Raises ``RuntimeError`` at once when too few envs are in flight
        to ever fill a batch.
        """
        if self._direct_recv and timeout is None:
            return self._pool.recv(-1.0)  # the async loop's call, one Python frame
        return self._recv(timeout, True)

    def _collect(self, timeout: float | None):
        """The batch a ``*_async`` call started, as its ``*_wait`` returns it."""
        return self._recv(timeout, self._batch_ids)

    # -- Python envs (envpool.make_python): their own methods and attributes -------------------

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Calls ``name(*args, **kwargs)`` on every env (or reads it, if not callable) and
        returns the results in env order, as gymnasium's ``AsyncVectorEnv.call``: the attribute
        of the outermost wrapper that has it (``get_wrapper_attr``). Python envs only; every env
        must be idle."""
        return self._python_pool("call").env_calls.call(name, *args, **kwargs)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Attribute ``name`` of every env (``get_wrapper_attr``), in env order (Python envs only)."""
        return self._python_pool("get_attr").env_calls.get_attr(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Sets attribute ``name`` of every env (``set_wrapper_attr``: where a wrapper or the env
        has it): ``values`` is a list or tuple of one value per env, or one value for all."""
        self._python_pool("set_attr").env_calls.set_attr(name, values)

    def _python_pool(self, what: str):
        self._assert_open()
        if not self._python_envs:
            raise AttributeError(
                f"{what}() reaches into Python envs (envpool.make_python); native envs have no Python "
                "attributes: use get_state()/set_state() or the task's spec"
            )
        return self._pool

    def close_extras(self, **kwargs: Any) -> None:
        """Closes the pool (``timeout`` and ``terminate``, gymnasium's ``AsyncVectorEnv``'s
        arguments, change nothing: the workers are asked to stop, then killed)."""
        # No pool when __init__ raised before building it; gymnasium < 1.3 still closes such a
        # half-built env from VectorEnv.__del__, which must not raise over make()'s own error.
        if getattr(self, "_pool", None) is not None:
            self._warn_if_pending()
        self._close_pool()

    def __del__(self) -> None:
        # As gymnasium's AsyncVectorEnv (and its VectorEnv before 1.3): dropped unclosed, it closes.
        if not getattr(self, "closed", True) and getattr(self, "_pool", None) is not None:
            self.close()

    def __enter__(self) -> EnvPoolVectorEnv:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
