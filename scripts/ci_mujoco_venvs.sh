#!/usr/bin/env bash
# The MuJoCo tasks installed the way users install them, next to gymnasium's MuJoCo envs.
#
# In two fresh venvs, each order of
#   pip install "envpool-ng[mujoco]"   (this checkout)
#   pip install "gymnasium[mujoco]"    (pulls the `mujoco` package, which pins its own mujoco-core)
# then: `pip check`, make / reset / step every gym MuJoCo task (v5, v4, v3 / v2), and
# tests/envs/mujoco/test_mujoco.py (our envs against gymnasium's own v5 and v4 envs, on whichever
# libmujoco pip left installed). Any failure,
# a skipped test or a missing task fails the step.
#
# The envpool wheel is built once (`pip wheel`): its build runs in pip's isolated build env,
# whose MuJoCo headers come from the build requirements in pyproject.toml and never from the
# target venv, so building it in each venv would give the same wheel. The venvs reuse pip's
# cache. Usage: scripts/ci_mujoco_venvs.sh [--wheel PATH] [--keep]
set -euo pipefail
source "$(dirname "$0")/lib/ci_common.sh"
ci_setup ci_mujoco_venvs "$@"
echo "wheel: $wheel ($((SECONDS - t0)) s)"

# Makes every MuJoCo task, resets it and steps it with random actions (some outside the box).
SMOKE=$(cat <<'EOF'
import importlib.metadata as md
import numpy as np
import envpool
import mujoco
from gymnasium.envs.mujoco.mujoco_env import MujocoEnv  # noqa: F401  (the tests' oracle must import)
print("mujoco-core", md.version("mujoco-core"), "| mujoco", md.version("mujoco"),
      "| libmujoco", mujoco.mj_versionString(), "| gymnasium", md.version("gymnasium"))
oldest = {"HalfCheetah": "v3", "Hopper": "v3", "Walker2d": "v3", "Ant": "v3", "Humanoid": "v3", "Swimmer": "v3",
          "HumanoidStandup": "v2", "Reacher": "v2", "Pusher": "v2", "InvertedPendulum": "v2",
          "InvertedDoublePendulum": "v2"}
expected = {f"{name}-{v}" for name, old in oldest.items() for v in ("v5", "v4", old)}
tasks = [t for t in envpool.list_all_envs() if t in expected]
assert expected <= set(tasks), f"MuJoCo tasks missing from the wheel: {sorted(expected - set(tasks))}"
rng = np.random.default_rng(0)
for task in tasks:
    envs = envpool.make(task, num_envs=4, num_threads=2, seed=1)
    obs, _ = envs.reset()
    assert np.isfinite(obs).all(), task
    space = envs.single_action_space
    for _ in range(50):
        act = rng.uniform(1.2 * space.low, 1.2 * space.high, size=(4, *space.shape)).astype(np.float32)
        obs, rew, term, trunc, info = envs.step(act)
        assert np.isfinite(obs).all() and np.isfinite(rew).all(), task
    envs.close()
print(f"made and stepped {len(tasks)} MuJoCo tasks")
EOF
)

check() {  # venv: runs every check, returns non-zero if any failed
  local py=$1/bin/python rc=0
  "$py" -m pip check || { echo "FAIL: pip check" >&2; rc=1; }
  "$py" -c "$SMOKE" || { echo "FAIL: make / step" >&2; rc=1; }
  "$py" -m pip install -q pytest
  local log=$1/pytest.log
  "$py" -m pytest -q -p no:cacheprovider tests/envs/mujoco/test_mujoco.py >"$log" 2>&1 || true
  tail -3 "$log"
  # A module-level skip (mujoco or gymnasium's MujocoEnv not importable) exits 0: not a pass.
  if ! tail -1 "$log" | grep -Eq '^[0-9]+ passed' || tail -1 "$log" | grep -Eq 'failed|skipped|error'; then
    echo "FAIL: tests/envs/mujoco/test_mujoco.py did not pass in full" >&2
    rc=1
  fi
  return $rc
}

failed=()
for order in envpool-first gymnasium-first; do
  t=$SECONDS
  venv=$work/$order
  echo "== $order"
  "$PY" -m venv "$venv"
  pip=("$venv/bin/python" -m pip install -q)
  if [[ $order == envpool-first ]]; then
    "${pip[@]}" "$wheel[mujoco]"
    "${pip[@]}" "gymnasium[mujoco]"
  else
    "${pip[@]}" "gymnasium[mujoco]"
    "${pip[@]}" "$wheel[mujoco]"
  fi
  if check "$venv"; then
    echo "$order: ok ($((SECONDS - t)) s)"
  else
    echo "$order: FAILED ($((SECONDS - t)) s)"
    failed+=("$order")
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "ci_mujoco_venvs: FAILED: ${failed[*]} ($((SECONDS - t0)) s)" >&2
  exit 1
fi
echo "ci_mujoco_venvs: both orders ok ($((SECONDS - t0)) s)"
