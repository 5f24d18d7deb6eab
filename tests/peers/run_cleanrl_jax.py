"""Runs one of CleanRL's flax scripts unchanged (``python run_cleanrl_jax.py SCRIPT [ARGS...]``)
with the flax that runs on envpool's jax (>= 0.10.2).

Why: CleanRL's ``ppo_atari_envpool_xla_jax.py`` (written for flax 0.6.8) keeps its parameters in
a ``flax.struct.dataclass`` (``AgentParams``) and hands that to ``TrainState``. Since flax 0.7.5,
``TrainState.create`` and ``apply_gradients`` ask ``"overwrite_with_gradient" in params`` (a
collection only dict-like params can hold), which a struct dataclass cannot answer: a
``TypeError`` before any env is stepped. Every flax that imports with jax >= 0.10.2 asks it, and
no flax old enough not to ask imports with that jax. So here struct dataclasses that define no
``__contains__`` get one saying they hold no such key, which is what flax 0.7.4 and earlier
assumed of them; nothing else changes, and the script file runs as CleanRL ships it.
"""

from __future__ import annotations

import functools
import runpy
import sys

import flax.struct

_struct_dataclass = flax.struct.dataclass


def _holds_no_collections(self, key) -> bool:
    return False


@functools.wraps(_struct_dataclass)
def _dataclass(clz=None, **kwargs):
    if clz is None:  # @flax.struct.dataclass(frozen=...) form
        return lambda c: _dataclass(c, **kwargs)
    made = _struct_dataclass(clz, **kwargs)
    if not hasattr(made, "__contains__"):
        made.__contains__ = _holds_no_collections
    return made


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} SCRIPT [ARGS...]")
    flax.struct.dataclass = _dataclass
    script = sys.argv[1]
    sys.argv = sys.argv[1:]  # the script's own argv: its path, then its arguments
    runpy.run_path(script, run_name="__main__")
