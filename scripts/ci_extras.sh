#!/usr/bin/env bash
# The README's test command with an extra users install beside [test]: `[ray]` (Ray core, for
# envpool.ray.RunnerGroup) without `[rllib]`. Ray then installs `ray.rllib`, whose import fails
# ("Can't import ray.tune as some dependencies are missing"), which made `pytest -q` error at
# collection (issue 36 item 1). In a fresh venv from the wheel:
#   pip install "<wheel>[test,ray]"
#   pytest -q --collect-only     from the repository root, as the README runs pytest: every test
#                                module of the suite imports (a partial install fails here first)
#   pytest -q -rs tests/integrations/test_rllib.py tests/integrations/test_ray.py tests/integrations/test_ray_cluster.py
#                                the modules whose outcome depends on Ray being installed:
#                                tests/integrations/test_rllib.py must skip (ray.rllib unimportable), tests/integrations/test_ray.py
#                                and tests/integrations/test_ray_cluster.py run for real (the newest gymnasium, where
#                                the ray step has RLlib's pin, 1.2.2)
# By default the whole suite runs (the README's command as is: issue 36 asks for it with [ray]
# only); EXTRAS_FULL=0 runs the collection and the three modules instead, for a quick local check.
# tests/install/test_optional_deps.py checks the other partial installs at collection (packages present
# but broken). Time, measured on the shared 2-core machine at load average ~12 (2026-11-27):
# 144 s in all (install 91 s with pip's cache warm, 375 s cold with another venv installing
# beside it; collection 5 s; the three modules 46 s). EXTRAS_FULL=1: the whole suite took 886 s
# there (1273 passed, 15 skipped).
# Usage: [EXTRAS_FULL=0] scripts/ci_extras.sh [--wheel PATH] [--keep]
set -euo pipefail
source "$(dirname "$0")/lib/ci_common.sh"
ci_setup ci_extras "$@"
echo "wheel: $wheel ($((SECONDS - t0)) s)"

"$PY" -m venv "$work/venv"
py=$work/venv/bin/python
"$py" -m pip install -q "$wheel[test,ray]"
"$py" -m pip check
"$py" -c "import ray, gymnasium; print('ray', ray.__version__, '| gymnasium', gymnasium.__version__)"
if "$py" -c "import ray.rllib" 2>/dev/null; then
  echo "ci_extras: ray.rllib imports with [ray] alone: this step no longer checks a partial install" >&2
  exit 1
fi
echo "installed ($((SECONDS - t0)) s)"

log=$work/pytest.log
rc=0
t=$SECONDS
if [[ ${EXTRAS_FULL:-1} == 1 ]]; then
  "$py" -m pytest -q -p no:cacheprovider -rs >"$log" 2>&1 || rc=$?
else
  # The README's pytest collects the whole suite: that must succeed with no error.
  "$py" -m pytest -q -p no:cacheprovider --collect-only >"$work/collect.log" 2>&1 || rc=$?
  tail -1 "$work/collect.log"
  if [[ $rc != 0 ]] || tail -1 "$work/collect.log" | grep -Eq 'error'; then
    grep -E '^(ERROR|E )' "$work/collect.log" | head -40 || true
    echo "ci_extras: FAILED: collecting the suite with [ray] (rc=$rc)" >&2
    exit 1
  fi
  "$py" -m pytest -q -p no:cacheprovider -rs tests/integrations/test_rllib.py tests/integrations/test_ray.py tests/integrations/test_ray_cluster.py >"$log" 2>&1 || rc=$?
fi
grep -E '^(FAILED|ERROR)|^E ' "$log" | head -60 || true
tail -1 "$log"
echo "pytest: $((SECONDS - t)) s"
if [[ $rc != 0 ]] || tail -1 "$log" | grep -Eq 'failed|error'; then
  echo "ci_extras: FAILED: the README's test command with [ray] (rc=$rc)" >&2
  exit 1
fi
if ! grep -Eq '^SKIPPED .*test_rllib\.py.*ray\[rllib\]' "$log" || grep -Eq '^SKIPPED .*test_ray(_cluster)?\.py' "$log"; then
  grep -E '^SKIPPED' "$log" | head -40
  echo "ci_extras: FAILED: expected tests/integrations/test_rllib.py skipped for ray[rllib], tests/integrations/test_ray.py and tests/integrations/test_ray_cluster.py run" >&2
  exit 1
fi
echo "ci_extras: ok ($((SECONDS - t0)) s)"
