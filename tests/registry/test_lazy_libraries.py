"""Registering tasks loads no task family's library (issue 36 item 2).

``import envpool`` registers every task as gymnasium's ``envpool/<task>``, and
``envpool.rllib.register_envs()`` registers them in RLlib's registry. Neither may load a
family's library (libmujoco for the MuJoCo tasks): where it is missing, registration must still
succeed and only making such a task fails, saying what to install. Each test runs in a fresh
interpreter, since a library loaded once stays loaded. A missing libmujoco is simulated with
``ENVPOOL_MUJOCO_LIB`` pointing at no file (cpp/envs/mujoco/loader.cc looks there first). RLlib
is replaced by a stand-in ``ray.tune.registry`` that records what is registered, so this runs
without Ray; tests/integrations/test_rllib.py repeats the check with the real RLlib.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

import envpool

pytestmark = pytest.mark.skipif(not pathlib.Path("/proc/self/maps").exists(), reason="reads /proc/self/maps")

MUJOCO_TASK = "HalfCheetah-v5"
NO_MUJOCO = {"ENVPOOL_MUJOCO_LIB": "/nonexistent/libmujoco.so.4.0.1"}

# Run in the child: a stand-in for ray.tune.registry, so envpool.rllib.register_envs() runs
# without Ray (register_env is all it calls there).
FAKE_RAY = """
import sys, types
registered = {}
for name in ("ray", "ray.tune", "ray.tune.registry"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["ray.tune.registry"].register_env = lambda name, creator: registered.__setitem__(name, creator)
"""

LOADED = """
def loaded():
    # The shared objects mapped into this process.
    with open("/proc/self/maps") as f:
        return {line.split()[-1] for line in f if ".so" in line.rsplit("/", 1)[-1]}
"""


def run_child(code: str, env: dict[str, str] | None = None) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", FAKE_RAY + LOADED + code],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def needs_mujoco_tasks():
    if MUJOCO_TASK not in envpool.list_all_envs():
        pytest.skip("envpool was built without the MuJoCo headers (no MuJoCo tasks)")


def test_registration_loads_no_library():
    """gymnasium's ids (registered on import, looked up) and RLlib's: no new shared object."""
    needs_mujoco_tasks()
    result = run_child(
        """
import json
import gymnasium
import envpool
before = loaded()
tasks = envpool.list_all_envs()
from envpool.tasks import gymnasium_ids
specs = [gymnasium.registry.get(gymnasium_ids()[task]) for task in tasks]
gymnasium.spec("envpool/HalfCheetah-v5")
import envpool.rllib
ids = envpool.rllib.register_envs()
print(json.dumps({"new": sorted(loaded() - before), "ids": ids, "registered": list(registered),
                  "gymnasium": sum(s is not None for s in specs),
                  "tasks": tasks, "mujoco": [p for p in loaded() if "libmujoco" in p]}))
"""
    )
    assert result["new"] == [] and result["mujoco"] == []
    assert result["ids"] == [f"envpool/{t}" for t in result["tasks"]] == result["registered"]
    assert result["gymnasium"] == len(result["tasks"])  # every id, aliases too, in gymnasium's registry


def test_rllib_register_envs_without_libmujoco():
    """Without libmujoco every task registers; a MuJoCo task fails when made, saying what to
    install; the others are made as usual."""
    needs_mujoco_tasks()
    result = run_child(
        f"""
import json
import envpool, envpool.rllib
ids = envpool.rllib.register_envs()
pool = registered["envpool/CartPole-v1"]({{"num_envs": 2, "seed": 0}})
obs, _ = pool.reset()
pool.close()
try:
    registered["envpool/{MUJOCO_TASK}"]({{"num_envs": 2}})
    error = None
except Exception as exc:
    error = f"{{type(exc).__name__}}: {{exc}}"
try:
    envpool.make("{MUJOCO_TASK}")
    make_error = None
except Exception as exc:
    make_error = f"{{type(exc).__name__}}: {{exc}}"
print(json.dumps({{"ids": len(ids), "tasks": len(envpool.list_all_envs()), "obs": list(obs.shape),
                   "error": error, "make_error": make_error}}))
""",
        env=NO_MUJOCO,
    )
    assert result["ids"] == result["tasks"] and result["obs"] == [2, 4]
    for error in (result["error"], result["make_error"]):
        assert error is not None and error.startswith("RuntimeError") and "envpool-ng[mujoco]" in error, error


def test_gymnasium_ids_without_libmujoco():
    """``import envpool`` registers the MuJoCo ids without libmujoco; making one fails with the
    install hint, the other tasks work."""
    needs_mujoco_tasks()
    result = run_child(
        f"""
import json
import gymnasium
import envpool
spec = gymnasium.spec("envpool/{MUJOCO_TASK}")
envs = gymnasium.make_vec("envpool/CartPole-v1", num_envs=2)
envs.close()
try:
    gymnasium.make_vec("envpool/{MUJOCO_TASK}", num_envs=2)
    error = None
except Exception as exc:
    error = f"{{type(exc).__name__}}: {{exc}}"
print(json.dumps({{"max_episode_steps": spec.max_episode_steps, "error": error}}))
""",
        env=NO_MUJOCO,
    )
    assert result["max_episode_steps"] == 1000
    assert result["error"].startswith("RuntimeError") and "envpool-ng[mujoco]" in result["error"], result["error"]
