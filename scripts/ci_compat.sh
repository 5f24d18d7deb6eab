#!/usr/bin/env bash
# Users of the reference EnvPool, on this envpool: in a fresh venv with the wheel, torch (CPU),
# Tianshou, TorchRL, tyro, tensorboard and absl-py,
#   tests/reference_envpool/  the reference EnvPool's own tests for the families we have (classic
#                             control, toy text, MuJoCo gym, gymnasium-robotics, make), vendored
#                             with imports/ids adapted; exactly the 29 skips its README lists are
#                             allowed;
#   tests/peers/              CleanRL's ppo.py and ppo_continuous_action.py (short runs, the env
#                             construction line replaced; the latter on Hopper-v5 and
#                             BipedalWalker-v3), Tianshou 2.0's Collector (n_step,
#                             n_episode, random) on its EnvPoolFactory and on env_type="gym",
#                             TorchRL's GymWrapper rollouts (same-step and disabled autoreset)
#                             and its GymEnv("envpool/CartPole-v1", num_envs=2); no skip allowed.
# SB3's PPO/SAC run in scripts/ci_train.sh (tests/integrations/test_sb3.py).
# Time, on the 2-core dev machine shared with other builds (not idle): one full run at load
# average 14-18 took 1025 s to build the wheel and install, 333 s for the reference tests and
# 223 s for the peers; separately at load 14 the two took 178 s and 91 s wall, 78 s and 38 s of
# CPU (user+sys). The tests are single-threaded, so on an idle machine they should take about
# their CPU time: ~2 minutes (not measured idle: no idle machine here).
# Usage: scripts/ci_compat.sh [--wheel PATH] [--keep]   (PYTHON=... picks the base interpreter)
set -euo pipefail
source "$(dirname "$0")/lib/ci_common.sh"
ci_setup ci_compat "$@"
repo=$PWD

"$PY" -m venv "$work/venv"
VPY=$work/venv/bin/python
# torch first: its CPU build from local disk (an unpinned torch would pull the CUDA build).
"$VPY" -m pip install -q torch==2.13.0
"$VPY" -m pip install -q "$wheel[test]" tianshou==2.0.1 torchrl==0.14.1 "tyro>=0.9" tensorboard absl-py
echo "ci_compat: venv ready in $((SECONDS - t0)) s"

export OMP_NUM_THREADS=1 ENVPOOL_REFERENCE_TESTS=1
t1=$SECONDS
log=$work/reference.log
# From outside the checkout, so `import envpool` is the wheel.
(cd "$work" && "$VPY" -m pytest -q -rs -p no:cacheprovider "$repo/tests/reference_envpool") | tee "$log"
if ! grep -Eq "^[0-9]+ passed, 29 skipped" "$log" || grep -Eq "failed|error" "$log"; then
  echo "ci_compat: the vendored reference tests must pass with exactly the 29 skips of tests/reference_envpool/README.md" >&2
  exit 1
fi
echo "ci_compat: reference tests in $((SECONDS - t1)) s"

t1=$SECONDS
log=$work/peers.log
(cd "$work" && "$VPY" -m pytest -q -rs -p no:cacheprovider "$repo/tests/peers") | tee "$log"
if grep -q "^SKIPPED" "$log" || grep -Eq "failed|error" "$log"; then
  echo "ci_compat: peer tests were skipped (see above)" >&2
  exit 1
fi
echo "ci_compat: peer tests in $((SECONDS - t1)) s"
