"""A pool against gymnasium's ``SyncVectorEnv`` of an oracle's envs, from the same seeds, over
whole episodes: for tasks whose oracle is not a registered gymnasium env (the reference EnvPool's
Pendulum-v0, Catch-v0, NChain-v0: an old gym's formula or bsuite's env behind a gymnasium.Env
adapter in the family's tests). tests/frontends/test_seeding.py does the same for the tasks
gymnasium registers.

Both sides reset with ``seed``, then step with the same random actions; a third of the way an
unseeded ``reset()``, at two thirds a reseeding ``reset(seed=reseed)``; observations, rewards,
terminations, truncations and the task's info keys (those the oracle's envs give; the pool's own
env_id / elapsed_step aside, and with them none other; gymnasium's all-True masks of keys every
env gave aside too) must be identical, bit for bit, at every
step, in every autoreset mode (disabled: the ended envs are reset through ``reset_mask``).
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import envpool

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]
POOL_INFO = {"env_id", "elapsed_step", "players", "_env_id", "_elapsed_step", "_players"}  # every pool's, with masks


def _same(what: str, ours, ref, context: str) -> None:
    if isinstance(ref, dict):  # info: the oracle's keys, gymnasium's "_key" masks included
        # gymnasium's mask "_key" of a key every env gave (all True) says nothing a pool's info
        # array does not: the pool's info arrays have no masks.
        keys = {k for k in ref if not (k.startswith("_") and k[1:] in ref and k not in ours and np.all(ref[k]))}
        assert set(ours) - POOL_INFO == keys, f"info keys ({context}): ours {sorted(ours)}, oracle {sorted(keys)}"
        for key in keys:
            _same(f"info[{key!r}]", ours[key], ref[key], context)
        return
    ours, ref = np.asarray(ours), np.asarray(ref)
    if ref.dtype == object:  # same_step's final_obs: one entry per env, None where none ended
        assert ours.dtype == object and ours.shape == ref.shape, f"{what} ({context}): {ours!r} vs {ref!r}"
        for i, (a, b) in enumerate(zip(ours, ref)):
            assert (a is None) == (b is None), f"{what}[{i}] ({context}): {a!r} vs {b!r}"
            if b is not None:
                _same(f"{what}[{i}]", a, b, context)
        return
    assert ours.dtype == ref.dtype and ours.shape == ref.shape, (
        f"{what} ({context}): ours {ours.dtype}{ours.shape}, oracle {ref.dtype}{ref.shape}"
    )
    if not np.array_equal(ours, ref):
        bad = np.argwhere(ours != ref)
        raise AssertionError(f"{what} ({context}) differs at {bad[:5].tolist()}:\nours {ours!r}\noracle {ref!r}")


def compare_seeded_runs(task_id, make_oracle, mode, steps, num_envs=4, seed=7, reseed=1234, action_seed=0, **kwargs):
    """Runs ``task_id`` (with ``kwargs``) and ``SyncVectorEnv([make_oracle] * num_envs)`` side by
    side as the module says; returns the number of episode ends per env."""
    ours = envpool.make(task_id, num_envs=num_envs, seed=seed, autoreset_mode=mode, **kwargs)
    ref = SyncVectorEnv([make_oracle] * num_envs, autoreset_mode=mode)
    rng = np.random.default_rng(action_seed)
    ends = np.zeros(num_envs, dtype=int)
    try:
        ours_obs, ours_info = ours.reset(seed=seed)
        ref_obs, ref_info = ref.reset(seed=seed)
        _same("obs", ours_obs, ref_obs, "reset(seed)")
        _same("info", ours_info, ref_info, "reset(seed)")
        space = ref.action_space
        for t in range(steps):
            if t in (steps // 3, 2 * steps // 3):
                s = None if t == steps // 3 else reseed
                what = f"reset(seed={s}) at step {t}"
                ours_obs, ours_info = ours.reset(seed=s)
                ref_obs, ref_info = ref.reset(seed=s)
                _same("obs", ours_obs, ref_obs, what)
                _same("info", ours_info, ref_info, what)
            space.seed(int(rng.integers(2**31)))
            actions = space.sample()
            got = ours.step(actions)
            want = ref.step(actions)
            context = f"step {t}, actions {np.asarray(actions).tolist()}"
            for name, a, b in zip(("obs", "reward", "terminated", "truncated", "info"), got, want):
                _same(name, a, np.asarray(b, dtype=np.float64) if name == "reward" else b, context)
            done = np.asarray(got[2]) | np.asarray(got[3])
            ends += done
            if mode == AutoresetMode.DISABLED and done.any():
                s = reseed + t if ends.sum() % 2 else None  # every other masked reset reseeds
                ours_obs, _ = ours.reset(seed=s, options={"reset_mask": done})
                ref_obs, _ = ref.reset(seed=s, options={"reset_mask": done})
                _same("obs after reset(reset_mask)", ours_obs, ref_obs, f"{context}, seed {s}")
    finally:
        ours.close()
        ref.close()
    return ends
