"""A process pool's batches as gymnasium's vector envs return them (see ``envpool.process.pool``).

The core returns the fixed-size observation leaves as arrays; what a worker staged beside them
in shared memory - each env's info dict and its observation's variable-size values, pickled -
is read here, once per row that has any, and batched the way gymnasium's ``SyncVectorEnv``
batches it: info keys with ``_key`` masks, ``final_obs`` as an object array of the finished
envs' last observations (``None`` elsewhere), ``final_info`` as a batched info dict.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envpool import payloads
from envpool.leaves import SpaceLeaves


def batch_infos(infos: list[dict], n: int) -> dict:
    """Per-row info dicts batched as gymnasium's vector envs batch them: each key an array of
    ``n`` rows (numbers and arrays typed, anything else an object array) with a ``_key`` mask."""
    out: dict = {}
    for row, info in enumerate(infos):
        if info:
            _add_info(out, info, row, n)
    return out


def _add_info(out: dict, info: dict, row: int, n: int) -> None:
    for key, value in info.items():
        if isinstance(value, dict):
            sub = out.setdefault(key, {})
            _add_info(sub, value, row, n)
        else:
            if key not in out:
                if type(value) in (int, float, bool) or isinstance(value, np.number):
                    out[key] = np.zeros(n, dtype=type(value))
                elif isinstance(value, np.ndarray):
                    out[key] = np.zeros((n, *value.shape), dtype=value.dtype)
                else:
                    out[key] = np.full(n, fill_value=None, dtype=object)
            out[key][row] = value
        mask = out.setdefault(f"_{key}", np.zeros(n, dtype=np.bool_))
        mask[row] = True


def as_named(arrays: Any, names: list[str]) -> dict[str, np.ndarray]:
    """The core's obs arrays by field name (it returns one field as the array itself, several
    as a dict by name, or as a tuple in order)."""
    if isinstance(arrays, dict):
        return arrays
    if isinstance(arrays, tuple):
        return dict(zip(names, arrays))
    return {names[0]: arrays} if names else {}


class ResultAssembler:
    """Turns a process pool's raw batches into gymnasium's form (see the module docstring)."""

    def __init__(self, obs: SpaceLeaves, layout: dict, buf: np.ndarray, num_envs: int):
        self.obs = obs
        self.layout = layout
        self.buf = buf
        fields = layout["env_fields"]
        stride = layout["env_stride"]
        i32 = buf[layout["envs"] :].view(np.int32)
        # Per env: lengths of its staged payloads (-1: that half of the op did not happen).
        self.step_len = i32[fields["info_step_len"] // 4 :: stride // 4][:num_envs]
        self.reset_len = i32[fields["info_reset_len"] // 4 :: stride // 4][:num_envs]
        # Variable-size observation values each env showed last (a row that repeats its last
        # observation, or failed, shows them again).
        self.last_objects: list[list | None] = [None] * num_envs

    def staged(self, env_id: int, reset: bool) -> tuple[dict, list | None]:
        """(info, variable-size obs values) env ``env_id``'s worker staged for its reset or step."""
        e = self.layout["envs"] + env_id * self.layout["env_stride"]
        start = e + (self.layout["info_reset"] if reset else self.layout["info_step"])
        length = int((self.reset_len if reset else self.step_len)[env_id])
        if length <= 0:
            return {}, None
        payload = payloads.unpack(self.buf[start : start + length].tobytes())
        return payload if self.obs.objects else (payload, None)

    def finish(self, result: tuple, with_ids: bool) -> tuple:
        """``result`` as the core returned it (``with_ids``: its info has env_id and
        elapsed_step, else its rows are envs 0..n-1) in gymnasium's form."""
        obs, reward, terminated, truncated, info = result
        n = len(reward)
        ids = info["env_id"] if with_ids else np.arange(n)
        step_len, reset_len = self.step_len[ids], self.reset_len[ids]
        # A row's obs and info are its reset's when it reset (a reset, or a same-step
        # autoreset), else its step's.
        from_reset = reset_len >= 0
        per_row: list[dict] = [{}] * n
        objects: list[list | None] | None = [None] * n if self.obs.objects else None
        for r in np.flatnonzero(np.where(from_reset, reset_len, step_len) > 0).tolist():
            per_row[r], row_objects = self.staged(int(ids[r]), reset=bool(from_reset[r]))
            if objects is not None:
                objects[r] = row_objects
        if objects is not None:
            for r, env_id in enumerate(ids.tolist()):
                if objects[r] is None:
                    objects[r] = self.last_objects[env_id]
                self.last_objects[env_id] = objects[r]
        shaped = batch_infos(per_row, n)
        if with_ids:
            shaped["env_id"], shaped["elapsed_step"] = info["env_id"], info["elapsed_step"]
        if "final_obs" in info:
            shaped.update(self._final(info, ids, step_len))
        return self.obs.batch(as_named(obs, self.obs.names), objects), reward, terminated, truncated, shaped

    def _final(self, info: dict, ids: np.ndarray, step_len: np.ndarray) -> dict:
        """Same-step autoreset: the finished episodes' last observations and infos (the step
        half of each finished env's staged payloads; the core's mask leaves out envs that
        failed, which have none)."""
        mask = info["_final_obs"]
        dense = as_named(info["final_obs"], self.obs.names)
        ended = {r: self.staged(int(ids[r]), reset=False) for r in np.flatnonzero(mask & (step_len > 0)).tolist()}
        final_obs = np.full(len(mask), None, dtype=object)
        for r in np.flatnonzero(mask).tolist():
            final_obs[r] = self.obs.row(dense, ended.get(r, ({}, None))[1], r)
        final_info = dict(info["final_info"])
        per_row = [ended[r][0] if r in ended else {} for r in range(len(ids))]
        for key, value in batch_infos(per_row, len(ids)).items():
            final_info.setdefault(key, value)
        return {
            "final_obs": final_obs,
            "_final_obs": mask,
            "final_info": final_info,
            "_final_info": info["_final_info"],
        }
