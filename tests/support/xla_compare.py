"""envs.xla() against the Python API: one rollout inside jit, the same pool made again and stepped
in Python, compared leaf for leaf (tests/xla/test_families.py, tests/xla/test_atari.py).
Imports jax: import it only where jax is installed."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector.utils import batch_space
from jax import lax

import envpool


def random_actions(space, steps: int, seed: int) -> np.ndarray:
    """``steps`` batched actions of ``space`` (the front end's batched action space)."""
    space.seed(seed)
    return np.stack([space.sample() for _ in range(steps)])


def jitted_rollout(envs, actions) -> object:
    """``envs``' xla() step over ``actions`` in one jitted lax.scan: the stacked results."""
    handle, _, _, step = envs.xla()
    _, out = jax.jit(lambda h, acts: lax.scan(lambda h, a: step(h, a), h, acts))(handle, jnp.asarray(actions))
    return out


def _plain(value):
    """``value`` with namedtuples as dicts keyed ``Type.field``: each dm front end makes its own
    ``State`` class, so two pools' results differ in type identity but not in structure."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {f"{type(value).__name__}.{k}": _plain(v) for k, v in zip(value._fields, value)}
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def assert_same_result(got, want, where: str) -> int:
    """``got`` (one jitted step's result) equals ``want`` (the Python API's) leaf for leaf, with
    jax's dtype of each Python dtype. Returns the number of leaves compared."""
    got_leaves, got_tree = jax.tree_util.tree_flatten_with_path(_plain(got))
    want_leaves, want_tree = jax.tree_util.tree_flatten_with_path(_plain(want))
    assert got_tree == want_tree, f"{where}: structure {got_tree} inside jit, {want_tree} in Python"
    for (path, g), (_, w) in zip(got_leaves, want_leaves):
        name = f"{where}{jax.tree_util.keystr(path)}"
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == jax.dtypes.canonicalize_dtype(w.dtype), f"{name}: {g.dtype} inside jit, {w.dtype} in Python"
        assert g.shape == w.shape, f"{name}: shape {g.shape} inside jit, {w.shape} in Python"
        np.testing.assert_array_equal(g, w.astype(g.dtype), err_msg=name)
    return len(got_leaves)


def compare_with_python(task: str, num_envs: int, steps: int, seed: int = 7, **kwargs) -> list:
    """Rolls ``task`` out inside jit and in Python; asserts every step equal. Returns the Python
    results (for the caller to check that the rollout saw what it should)."""
    a = envpool.make(task, num_envs=num_envs, seed=seed, **kwargs)
    b = envpool.make(task, num_envs=num_envs, seed=seed, **kwargs)
    try:
        # gymnasium's batched action space (the gym and dm front ends have a single env's).
        space = b.action_space if kwargs.get("env_type", "gymnasium") == "gymnasium" else None
        space = space or batch_space(b.task_spec.action_space, num_envs)
        actions = random_actions(space, steps, seed=seed)
        a.reset()
        b.reset()
        got = jitted_rollout(a, actions)
        wants = []
        for t in range(steps):
            want = b.step(actions[t])
            assert_same_result(jax.tree_util.tree_map(lambda x, t=t: x[t], got), want, f"{task} step {t}: ")
            wants.append(want)
        return wants
    finally:
        a.close()
        b.close()


def ended(wants) -> tuple[int, int]:
    """(terminated rows, truncated rows) over a gymnasium-shaped rollout."""
    return sum(int(np.sum(w[2])) for w in wants), sum(int(np.sum(w[3])) for w in wants)
