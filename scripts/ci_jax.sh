#!/usr/bin/env bash
# envs.xla() as users get it: in a fresh venv (no system site-packages), install the envpool
# wheel with the `jax-train` extra (jax, jaxlib, optax, matplotlib) and `mujoco`, then
#   tests/xla/test_xla.py        every test must run (a skip fails the step): jitted rollouts equal
#                            the Python API step for step, async, ordering, errors inside jit;
#                            the XLA handler library is built at first use into an empty cache
#                            (ENVPOOL_XLA_CACHE), from the sources the wheel ships;
#   tests/xla/test_families.py  (no skip either) jitted results against the Python front ends
#                            field for field for every family (classic control, toy text,
#                            MuJoCo, multi-agent rows, the gym and dm front ends): 2-3 minutes
#                            on the shared 2-core machine;
#   examples/ppo_jax.py      a seeded 100k-step PPO run on CartPole-v1 (rollout in lax.scan)
#                            must reach a greedy evaluation return >= 200 (seeds 1, 2, 3 gave
#                            449, 482 and 500 here; a test of learning, not of speed).
# `pip check` must pass.
#
# Measured on the 2-core dev machine with other jobs on it (load average about 5): 164 s in all,
# of which 78 s building the wheel (incremental: pyproject's build-dir kept from an earlier
# build; a full build takes ~5 minutes on 2 cores), 52 s the venv and installs, 7 s the handler
# library, 12 s the tests, 15 s the PPO run. `--wheel PATH` skips building the wheel.
# Usage: scripts/ci_jax.sh [--wheel PATH] [--keep]   (PYTHON=... picks the base interpreter)
set -euo pipefail
source "$(dirname "$0")/lib/ci_common.sh"
ci_setup ci_jax "$@"
echo "wheel: $wheel ($((SECONDS - t0)) s)"

echo "== fresh venv: envpool[jax-train,mujoco], pytest, dm-env"
"$PY" -m venv "$work/venv"
vpy="$work/venv/bin/python"
"$vpy" -m pip install -q "${wheel}[jax-train,mujoco]" pytest dm-env 2> >(grep -v '^WARNING: Location' >&2)
"$vpy" -m pip check
"$vpy" -c "import jax, jaxlib, envpool; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, 'envpool', envpool.__version__)"
export ENVPOOL_XLA_CACHE=$work/xla-cache
echo "venv ready ($((SECONDS - t0)) s)"

echo "== the XLA handler library, built at first use"
t1=$SECONDS
(cd "$work" && "$vpy" -m envpool.xla.build)
echo "built in $((SECONDS - t1)) s"

echo "== tests/xla/test_xla.py, tests/xla/test_families.py ($((SECONDS - t0)) s)"
log=$work/pytest.log
# From outside the checkout, so the installed envpool is the one tested.
(cd "$work" && "$vpy" -m pytest -q -rs -p no:cacheprovider "$repo/tests/xla/test_xla.py" "$repo/tests/xla/test_families.py") |
  tee "$log"
if grep -q "skipped" "$log"; then
  echo "ci_jax: tests were skipped (see above)" >&2
  exit 1
fi

echo "== examples/ppo_jax.py: 100k steps, seed 1 ($((SECONDS - t0)) s)"
(cd "$work" && "$vpy" - "$repo/examples" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import ppo_jax

history = ppo_jax.train(ppo_jax.Config(total_steps=100_000, seed=1))
if not history["eval_return"] >= 200:
    sys.exit(f"ci_jax: PPO did not learn: greedy evaluation return {history['eval_return']:.1f} < 200")
PY
)
