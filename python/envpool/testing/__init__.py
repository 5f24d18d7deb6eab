"""Test support shipped with envpool: the test plugin with ``StepCounter-v0`` and ``AgentCounter-v0``.

``StepCounter-v0`` is a deterministic env for testing a pool itself (scripted terminations,
truncations, failures and per-step delays; cpp/testing/step_counter.h documents it). It is not a
public task: it is a C++ plugin built with the env SDK and registered only on request.
``AgentCounter-v0`` is its multi-agent sibling, whose agents come and go
(cpp/testing/agent_counter.h).

>>> import envpool, envpool.testing
>>> envpool.testing.load_step_counter()
['StepCounter-v0', 'AgentCounter-v0']
>>> envpool.make("StepCounter-v0", num_envs=2, terminate_at=3).reset()[0].shape
(2, 4)
"""

from __future__ import annotations

import pathlib

from envpool.plugins import load_plugin

__all__ = ["load_step_counter", "step_counter_plugin_path"]


def step_counter_plugin_path() -> str:
    """The path of the built test plugin (``_step_counter.so``) beside this module."""
    here = pathlib.Path(__file__).resolve().parent
    found = sorted(here.glob("_step_counter*.so"))
    if not found:
        raise FileNotFoundError(
            f"envpool's test plugin _step_counter.so is not in {here}: in a source checkout, build it "
            "with the extension and copy it there (docs/install.md)"
        )
    return str(found[0])


def load_step_counter() -> list[str]:
    """Register ``StepCounter-v0`` and ``AgentCounter-v0`` (loading the test plugin once); returns
    the task ids it adds."""
    return load_plugin(step_counter_plugin_path())
