"""Stable-Baselines3's ``VecEnv`` API over an envpool pool, so SB3's algorithms (PPO, SAC, ...)
train on any pool: ``envpool.make`` tasks and ``envpool.make_python`` envs alike.

Importing this module imports SB3 (``import envpool`` does not): ``pip install
stable-baselines3``, after a CPU-only torch where one is wanted (docs/install.md, "PyTorch,
CPU-only": a torch SB3 pulls in is the CUDA build).

>>> import envpool
>>> from envpool.sb3 import VecEnvAdapter
>>> from stable_baselines3 import PPO
>>> venv = VecEnvAdapter(envpool.make("CartPole-v1", num_envs=4, seed=0, autoreset_mode="same_step"))
>>> model = PPO("MlpPolicy", venv, n_steps=32, batch_size=64, seed=0).learn(128)
>>> venv.close()

SB3's convention is gymnasium's same-step autoreset: an env that ends is reset within the
step, its last observation goes to ``infos[i]["terminal_observation"]`` and
``infos[i]["TimeLimit.truncated"]`` says it was cut by a time limit. Pools made with
``autoreset_mode="same_step"`` map onto it directly; with ``"disabled"`` the adapter resets the
ended envs itself. A next-step pool is refused (its reset rows would reach SB3 as transitions).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "envpool.sb3 needs stable-baselines3: pip install stable-baselines3 (for CPU training install a "
        "CPU-only torch first, PyTorch's 'Get Started' command; docs/install.md#pytorch-cpu-only: the torch "
        "SB3 pulls in is the CUDA build)"
    ) from exc

__all__ = ["VecEnvAdapter", "make_vec_env"]


def make_vec_env(task_id: Any, num_envs: int = 1, **kwargs: Any) -> VecEnvAdapter:
    """``envpool.make(task_id, num_envs=..., autoreset_mode="same_step", **kwargs)`` wrapped
    for SB3. ``task_id`` may also be a callable or gymnasium id for ``envpool.make_python``
    when ``python=True`` is passed."""
    import envpool

    kwargs.setdefault("autoreset_mode", "same_step")
    if kwargs.pop("python", False):
        return VecEnvAdapter(envpool.make_python(task_id, num_envs=num_envs, **kwargs))
    return VecEnvAdapter(envpool.make(task_id, num_envs=num_envs, **kwargs))


def _row_dict(info: dict, i: int) -> dict:
    """Env ``i``'s entries of a batched gymnasium info dict (``_key`` masks say which rows hold
    ``key``)."""
    out = {}
    for key, value in info.items():
        if key.startswith("_") or key in ("final_obs", "final_info"):
            continue
        mask = info.get("_" + key)
        if mask is not None and not mask[i]:
            continue
        out[key] = _row_dict(value, i) if isinstance(value, dict) else value[i]
    return out


def _rows(tree: Any, index: Any) -> Any:
    if isinstance(tree, dict):
        return {k: _rows(v, index) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(_rows(v, index) for v in tree)
    return tree[index]


def _replace(tree: Any, new: Any, mask: np.ndarray) -> Any:
    if isinstance(tree, dict):
        return {k: _replace(tree[k], new[k], mask) for k in tree}
    if isinstance(tree, tuple):
        return tuple(_replace(t, n, mask) for t, n in zip(tree, new))
    return np.where(mask.reshape((-1,) + (1,) * (np.ndim(tree) - 1)), new, tree)


# The goal-conditioned tasks' methods (envpool.frontends.goals) env_method reaches on native envs.
_GOAL_METHODS = ("compute_reward", "compute_terminated", "compute_truncated")


class VecEnvAdapter(VecEnv):
    """An SB3 ``VecEnv`` over a full-batch envpool pool (gymnasium front end) in same-step or
    disabled autoreset mode. ``step_async`` keeps the actions, ``step_wait`` steps the pool with
    them (C++ threads or worker processes; the calling thread takes a share of quick envs).

    ``get_attr`` / ``set_attr`` / ``env_method`` reach the env objects of ``make_python``
    pools; native envs have none, except ``render_mode`` and a goal-conditioned task's
    ``compute_reward`` / ``compute_terminated`` / ``compute_truncated`` (what SB3's
    ``HerReplayBuffer`` calls), with the kwargs of each env in ``indices``. ``env_is_wrapped`` compares wrapper
    class names along each Python env's wrapper chain (``str(env)``); native envs are never
    wrapped. Closing the adapter closes the pool.
    """

    def __init__(self, envs: Any):
        for name in ("num_envs", "batch_size", "single_observation_space", "single_action_space", "autoreset_mode"):
            if not hasattr(envs, name):
                raise TypeError(
                    f"VecEnvAdapter needs an envpool pool with the gymnasium front end; "
                    f"{type(envs).__name__} has no {name!r}"
                )
        if envs.batch_size != envs.num_envs:
            raise ValueError(
                f"SB3 steps every env at once: make the pool with batch_size == num_envs "
                f"(got batch_size={envs.batch_size}, num_envs={envs.num_envs})"
            )
        if envs.autoreset_mode == AutoresetMode.NEXT_STEP:
            raise ValueError(
                "SB3 expects same-step autoreset: make the pool with autoreset_mode='same_step' "
                "(or 'disabled'; the adapter then resets ended envs itself)"
            )
        self.envs = envs
        self._actions: Any = None
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)

    # -- stepping --------------------------------------------------------------------------

    def reset(self):
        self._actions = None  # a step_async() without its step_wait() is dropped
        seeds = self._seeds
        if all(s is None for s in seeds):
            seed = None
        elif all(s is not None for s in seeds):
            seed = [int(s) for s in seeds]
        else:
            raise ValueError(f"reset(): seeds must be given for every env or none, got {seeds}")
        if any(self._options):
            raise ValueError(f"envpool pools take no reset options (got {self._options})")
        obs, info = self.envs.reset(seed=seed)
        self.reset_infos = [_row_dict(info, i) for i in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        self._actions = None
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        # Kept for step_wait: SB3 calls the two back to back (VecEnv.step, its wrappers), so
        # sending here would overlap nothing, and the pool's step() lets the calling thread step
        # quick envs itself instead of handing them to a worker thread and waiting (with one
        # env, that hand-off was most of a step: bench/history.md, "SB3 adapter").
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        return self._sb3_result(self.envs.step(actions))

    def _sb3_result(self, result):
        """A pool result as SB3's (obs, rewards, dones, infos), the ended envs reset."""
        obs, rewards, terminated, truncated, info = result
        dones = terminated | truncated
        infos = [_row_dict(info, i) for i in range(self.num_envs)]
        if dones.any():
            ended = np.flatnonzero(dones)
            if self.envs.autoreset_mode == AutoresetMode.SAME_STEP:
                last = info["final_obs"]
                final_info = info.get("final_info", {})
                for i in ended:
                    # as DummyVecEnv: infos hold the ended episode's last info, reset_infos
                    # the new episode's first
                    self.reset_infos[i] = infos[i]
                    infos[i] = _row_dict(final_info, i) if final_info else {}
            else:  # disabled: the row is the last observation; reset those envs now
                last = obs
                new_obs, new_info = self.envs.reset(options={"reset_mask": dones})
                for i in ended:
                    self.reset_infos[i] = _row_dict(new_info, i)
            for i in ended:
                infos[i]["terminal_observation"] = _rows(last, i)
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if self.envs.autoreset_mode != AutoresetMode.SAME_STEP:
                obs = _replace(obs, new_obs, dones)
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.envs.close()

    # -- env objects ---------------------------------------------------------------------------

    def _indices(self, indices: None | int | Iterable[int]) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            indices = [int(indices)]
        out = [int(i) for i in indices]
        for i in out:
            if not 0 <= i < self.num_envs:
                raise IndexError(f"env index {i} out of range for {self.num_envs} envs")
        return out

    def _is_python(self) -> bool:
        return bool(getattr(self.envs, "_python_envs", False))  # the front end's own answer

    @staticmethod
    def _python_call(fn, *args, **kwargs):
        """A worker's AttributeError reaches the caller as a RuntimeError carrying its text;
        SB3 (``has_attr``) tells a missing attribute by AttributeError, so restore the type."""
        try:
            return fn(*args, **kwargs)
        except RuntimeError as exc:
            if "\nAttributeError: " in str(exc):
                raise AttributeError(str(exc)) from exc
            raise

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        idx = self._indices(indices)
        if self._is_python():
            values = self._python_call(self.envs.get_attr, attr_name)
        elif attr_name == "render_mode":
            values = [self.envs.render_mode] * self.num_envs
        else:
            raise AttributeError(f"native envpool envs have no Python attribute {attr_name!r}")
        return [values[i] for i in idx]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        idx = self._indices(indices)
        if not self._is_python():
            raise AttributeError(f"native envpool envs have no Python attribute {attr_name!r} to set")
        if len(idx) < self.num_envs:
            values = list(self._python_call(self.envs.get_attr, attr_name))
        else:
            values = [None] * self.num_envs
        for i in idx:
            values[i] = value
        self.envs.set_attr(attr_name, values)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        idx = self._indices(indices)
        if not self._is_python():
            if method_name in _GOAL_METHODS:  # HerReplayBuffer's env_method("compute_reward", ..., indices=[0])
                method = getattr(self.envs, method_name)
                return [method(*method_args, env_id=i, **method_kwargs) for i in idx]
            raise AttributeError(f"native envpool envs have no Python method {method_name!r}")
        if sorted(idx) != list(range(self.num_envs)):
            raise ValueError(
                "env_method() calls the method on every env of an envpool pool; indices must be "
                f"None or all envs (got {idx})"
            )
        results = self._python_call(self.envs.call, method_name, *method_args, **method_kwargs)
        return [results[i] for i in idx]

    def env_is_wrapped(self, wrapper_class: type, indices=None) -> list[bool]:
        idx = self._indices(indices)
        if not self._is_python():
            return [False] * len(idx)
        chains = self.envs.call("__str__")
        name = wrapper_class.__name__
        return [f"<{name}<" in chains[i] for i in idx]

    def get_images(self):
        if self.envs.render_mode != "rgb_array":
            return [None] * self.num_envs
        return list(self.envs.render())
