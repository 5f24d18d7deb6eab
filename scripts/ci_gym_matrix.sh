#!/usr/bin/env bash
# The whole test suite on older gymnasium releases of our supported range (gymnasium>=1.1):
# for each version in GYM_VERSIONS (default "1.1.1 1.2.2": the oldest line, and Ray 2.60's pin)
# a fresh venv with `pip install "<wheel>[test]" gymnasium==X`, then `pytest -q` on tests/ from
# outside the checkout (so `import envpool` is the wheel). The newest gymnasium is the main CI
# step's. Tests whose gymnasium oracle a release lacks skip with the reason (e.g. Taxi-v4 is in
# gymnasium only from 1.3); anything failing fails the step.
# The wheel is built once by .ci/run and shared with the other fresh-venv steps (--wheel).
# Time: measured 459 s for the default two with a prebuilt wheel (1.1.1: 299 s, 1.2.2: 150 s,
# each ~1-2 min install + 2-3 min suite) on this 2-core machine while other jobs loaded it; the
# wheel build adds ~3-4 min without --wheel. Usage: scripts/ci_gym_matrix.sh [--wheel PATH] [--keep]
set -euo pipefail
source "$(dirname "$0")/lib/ci_common.sh"
versions=${GYM_VERSIONS:-"1.1.1 1.2.2"}
ci_setup ci_gym_matrix "$@"
tests=$(realpath tests)
echo "wheel: $wheel ($((SECONDS - t0)) s)"

failed=()
for v in $versions; do
  t=$SECONDS
  venv=$work/gym-$v
  echo "== gymnasium $v"
  "$PY" -m venv "$venv"
  "$venv/bin/python" -m pip install -q "$wheel[test]" "gymnasium==$v"
  "$venv/bin/python" -c "import gymnasium; assert gymnasium.__version__ == '$v', gymnasium.__version__"
  log=$venv/pytest.log
  rc=0
  (cd "$venv" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "$tests") >"$log" 2>&1 || rc=$?
  tail -1 "$log"
  if [[ $rc == 0 ]]; then
    echo "gymnasium $v: ok ($((SECONDS - t)) s)"
  else
    grep -E '^(FAILED|ERROR)|^E ' "$log" | head -60
    echo "gymnasium $v: FAILED (rc=$rc, $((SECONDS - t)) s)"
    failed+=("$v")
  fi
  rm -rf "$venv"
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "ci_gym_matrix: FAILED on gymnasium ${failed[*]}" >&2
  exit 1
fi
echo "ci_gym_matrix: ok on gymnasium $versions"
