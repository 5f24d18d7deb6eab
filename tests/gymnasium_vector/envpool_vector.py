"""``gymnasium.vector`` as the vendored tests import it, with ``AsyncVectorEnv`` replaced by a thin
shim over ``envpool.make_python``: the one import line changed in each vendored test file reads
``from envpool_vector import ...`` instead of ``from gymnasium.vector import ...``."""

from __future__ import annotations

from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv  # noqa: F401 - re-exported

import envpool


def AsyncVectorEnv(  # noqa: N802 - stands in for gymnasium's class
    env_fns,
    shared_memory=True,
    copy=True,
    context=None,
    daemon=True,
    worker=None,
    observation_mode="same",
    autoreset_mode=AutoresetMode.NEXT_STEP,
    max_concurrency=None,
):
    """``gymnasium.vector.AsyncVectorEnv``'s signature, answered by ``envpool.make_python``.

    ``shared_memory``, ``copy`` and ``daemon`` change nothing: envpool's fixed-size values always
    travel through shared memory (variable-size ones pickled), results are always the caller's
    own arrays, and workers are always daemonic. ``max_concurrency`` bounds the worker processes (by default
    one per core, each stepping a block of envs).
    """
    if worker is not None:
        raise ValueError("envpool runs its own worker loop: a custom `worker` function is not supported")
    env_fns = list(env_fns)
    return envpool.make_python(
        env_fns,
        num_envs=len(env_fns),
        num_workers=None if max_concurrency is None else min(len(env_fns), max_concurrency),
        seed=None,  # as gymnasium: the env callables seed their envs, reset() does not
        context=context,
        observation_mode=observation_mode,
        autoreset_mode=autoreset_mode,
    )
