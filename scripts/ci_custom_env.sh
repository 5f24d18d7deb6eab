#!/usr/bin/env bash
# C++ env plugins as users build them: in a fresh venv (no system site-packages), install the
# freshly built envpool wheel (.ci/run passes it repaired by auditwheel, as users get it: the SDK
# headers and CMake package of a wheel install, issue 42), then
# `pip install --no-build-isolation examples/custom_env` (the
# plugin is built against the envpool of that venv), then run the example's tests and
# tests/registry/test_plugins.py (which build the test plugins with CMake against the installed SDK).
# Any failure or skipped test fails the step; `pip check` must pass.
#
# Time budget: ~8 minutes on a 2-core machine (measured 477 s with load average ~8: 296 s of it
# `pip wheel`, a full rebuild, since pip's isolated build env has a new temporary path each time;
# 76 s venv and installs, 19 s the example's build, 86 s tests). `--wheel PATH` skips the build.
# Usage: scripts/ci_custom_env.sh [--wheel PATH] [--keep]
set -euo pipefail
source "$(dirname "$0")/lib/ci_common.sh"
ci_setup ci_custom_env "$@"
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
"$vpy" -c "import envpool, mysim; assert 'mysim.Catch-v0' in envpool.list_all_envs(); print(envpool.make_spec('mysim.Catch-v0').origin)"
info=$("$work/venv/bin/envpool" info mysim.Catch-v0)  # whole, then grep: `| grep -q` may leave the writer a broken pipe
grep -q "origin:  *plugin mysim" <<<"$info"
"$vpy" -m pytest -q -rs -p no:cacheprovider "$work/custom_env/tests" "$repo/tests/registry/test_plugins.py" | tee "$work/pytest.log"
if grep -qiE "[0-9]+ skipped" "$work/pytest.log"; then
  echo "ci_custom_env: tests were skipped (see above); every test must run here" >&2
  exit 1
fi
