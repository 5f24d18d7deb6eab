#!/usr/bin/env bash
# C++ env plugins as users build them: in a fresh venv (no system site-packages), install the
# freshly built envpool wheel, then `pip install --no-build-isolation examples/custom_env` (the
# plugin is built against the envpool of that venv), then run the example's tests and
# tests/test_plugins.py (which build the test plugins with CMake against the installed SDK).
# Any failure or skipped test fails the step; `pip check` must pass.
#
# Time budget: ~8 minutes on a 2-core machine (measured 477 s with load average ~8: 296 s of it
# `pip wheel`, a full rebuild, since pip's isolated build env has a new temporary path each time;
# 76 s venv and installs, 19 s the example's build, 86 s tests). `--wheel PATH` skips the build.
# Usage: scripts/ci_custom_env.sh [--wheel PATH] [--keep]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
PY=${PYTHON:-python3}
wheel=""
keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --wheel) wheel=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "usage: $0 [--wheel PATH] [--keep]" >&2; exit 2 ;;
  esac
done
t0=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/envpool-custom-env.XXXXXX")
cleanup() {
  rm -rf "$work"
  echo "ci_custom_env: $((SECONDS - t0)) s in all"
}
[[ $keep == 1 ]] && echo "keeping $work" || trap cleanup EXIT

if [[ -z $wheel ]]; then
  echo "== building the envpool wheel"
  "$PY" -m pip wheel -q --no-deps -w "$work/wheels" . >"$work/wheel.log" 2>&1 || { tail -40 "$work/wheel.log"; exit 1; }
  wheel=$(ls "$work"/wheels/envpool_ng-*.whl)
fi
wheel=$(realpath "$wheel")
echo "wheel: $wheel ($((SECONDS - t0)) s)"

echo "== fresh venv: envpool wheel, build tools, test deps"
"$PY" -m venv "$work/venv"
vpy="$work/venv/bin/python"
"$vpy" -m pip install -q "$wheel" scikit-build-core cmake ninja pytest dm-env
echo "== pip install --no-build-isolation examples/custom_env ($((SECONDS - t0)) s)"
# A copy: the build must not leave files in the checkout.
cp -r examples/custom_env "$work/custom_env"
"$vpy" -m pip install -q --no-build-isolation "$work/custom_env"
"$vpy" -m pip check

echo "== tests ($((SECONDS - t0)) s)"
cd "$work"  # envpool must come from the venv, not from the checkout's python/
"$vpy" -c "import envpool, mysim; assert 'Catch-v0' in envpool.list_all_envs(); print(envpool.make_spec('Catch-v0').origin)"
"$work/venv/bin/envpool" info Catch-v0 | grep -q "origin:  *plugin mysim"
"$vpy" -m pytest -q -rs -p no:cacheprovider "$work/custom_env/tests" "$repo/tests/test_plugins.py" | tee "$work/pytest.log"
if grep -qiE "[0-9]+ skipped" "$work/pytest.log"; then
  echo "ci_custom_env: tests were skipped (see above); every test must run here" >&2
  exit 1
fi
