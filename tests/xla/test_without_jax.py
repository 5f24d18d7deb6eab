"""envs.xla() where jax is missing: an ImportError saying what to install, the pool unharmed.

Runs in a child process with jax hidden, so it checks the same thing with and without jax
installed (tests/xla/test_xla.py needs jax and is skipped without it).
"""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import sys
sys.modules["jax"] = None  # import jax now raises ImportError, as where it is not installed
import envpool
envs = envpool.make("CartPole-v1", num_envs=2)
try:
    envs.xla()
except ImportError as e:
    print("ImportError:", e)
print("still usable:", envs.reset()[0].shape)
envs.close()
"""


def test_xla_without_jax_says_what_to_install():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ImportError: envs.xla() needs jax: pip install 'envpool-ng[jax]'" in out.stdout, out.stdout
    assert "still usable: (2, 4)" in out.stdout
