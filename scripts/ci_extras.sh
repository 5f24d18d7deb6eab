#!/usr/bin/env bash
# The README's test command, once, in a fresh venv that differs from the tests step's in the two
# ways users' installs do:
# - an extra beside [test]: `[ray]` (Ray core, for envpool.ray.RunnerGroup) without `[rllib]`.
#   Ray then installs `ray.rllib`, whose import fails ("Can't import ray.tune as some
#   dependencies are missing"), which made `pytest -q` error at collection (issue 36 item 1);
# - the oldest gymnasium of our supported range (gymnasium>=1.1): GYM_VERSION, default 1.1.1;
# - gym 0.23.1 beside it, as docs/atari.md has CleanRL users install it: env_type="gym" then
#   follows that gym's API, and the suite must pass with it as without it (issue 55 item 3: six
#   tests assumed it absent; tests/frontends/test_legacy_gym.py runs here too).
#   Ray core does not pin gymnasium, so one venv checks both (they were two whole-suite steps,
#   300 s + 362 s of CI). Tests whose gymnasium oracle a release lacks skip with the reason
#   (Taxi-v4 is in gymnasium only from 1.3); the ray step runs RLlib on 1.2.2, its pin.
# The oracles whose pins conflict with ours (procgen-mirror, gym3, dm-control) are the tests
# step's .test-oracles/ in the checkout, which tests/conftest.py puts on the path here too (this
# step does not reinstall them: the train step, in the other lane, reads them at the same time).
# From the wheel:
#   pip install "<wheel>[test,ray]" gymnasium==1.1.1 gym==0.23.1
#   pytest -q -rs                from the repository root, as the README runs it: the whole suite;
#                                nothing may fail or error, tests/integrations/test_rllib.py must
#                                skip for ray[rllib], tests/integrations/test_ray.py,
#                                tests/integrations/test_ray_cluster.py and (gym installed)
#                                tests/frontends/test_legacy_gym.py must run
# EXTRAS_FULL=0 runs only `pytest --collect-only` (every test module imports: a partial install
# fails here first) and those three modules, for a quick local check. scripts/ci_gym_matrix.sh
# runs the suite on other gymnasium releases locally. tests/install/test_optional_deps.py checks
# the other partial installs at collection (packages present but broken). Time: install 91 s with
# pip's cache warm (375 s cold with another venv installing beside it), the whole suite ~5 min on
# the quiet 2-core machine.
# Usage: [EXTRAS_FULL=0] [GYM_VERSION=X] scripts/ci_extras.sh [--wheel PATH] [--keep]
set -euo pipefail
source "$(dirname "$0")/lib/ci_common.sh"
ci_setup ci_extras "$@"
echo "wheel: $wheel ($((SECONDS - t0)) s)"

"$PY" -m venv "$work/venv"
py=$work/venv/bin/python
gym_version=${GYM_VERSION:-1.1.1}
"$py" -m pip install -q "$wheel[test,ray]" "gymnasium==$gym_version" "gym==0.23.1"
"$py" -m pip check
"$py" -c "import ray, gymnasium, gym; print('ray', ray.__version__, '| gymnasium', gymnasium.__version__, '| gym', gym.__version__); assert gymnasium.__version__ == '$gym_version'"
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
if ! grep -Eq '^SKIPPED .*test_rllib\.py.*ray\[rllib\]' "$log" || grep -Eq '^SKIPPED .*test_ray(_cluster)?\.py|^SKIPPED .*test_legacy_gym\.py.*import gym failed' "$log"; then
  grep -E '^SKIPPED' "$log" | head -40
  echo "ci_extras: FAILED: expected tests/integrations/test_rllib.py skipped for ray[rllib], tests/integrations/test_ray.py, tests/integrations/test_ray_cluster.py and tests/frontends/test_legacy_gym.py run" >&2
  exit 1
fi
echo "ci_extras: ok ($((SECONDS - t0)) s)"
