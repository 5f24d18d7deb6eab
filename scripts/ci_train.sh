#!/usr/bin/env bash
# Training and Stable-Baselines3 checks, in their own venv (torch and SB3 stay out of the main
# test environment: `pip install ".[test]"` must stay light).
#
# A venv that sees the envpool that .ci/run installed (and its numpy and gymnasium) behind its own
# packages: a .pth file naming the site-packages of $PY's environment (.ci/run's tests venv;
# --system-site-packages would show the base interpreter's instead when $PY is a venv's). Into
# it go torch==2.13.0 first (the CPU build from local disk; an unpinned torch
# would pull the multi-GB CUDA build) and then the requirements of the `train` and `sb3` extras,
# read from pyproject.toml (not `pip install ".[train]"`, which would rebuild the extension).
# The script fails if that changed the numpy or gymnasium the main tests ran with. Then:
#   tests/integrations/test_train.py  seeded PPO (examples/ppo.py) on CartPole-v1 must reach an
#                                     evaluation return >= 200 within 100k env steps, and on
#                                     MiniGrid-DoorKey-5x5-v0 a success rate > 0.9 within 120k
#                                     (tests of learning, not speed); one update of the CNN
#                                     path on Procgen frames (procgen-mirror from the
#                                     checkout's .test-oracles/, as the tests step installs it)
#   tests/integrations/test_sb3.py    SB3's PPO/SAC through envpool.sb3, DummyVecEnv equivalence,
#                                     VecCheckNan
#   tests/runner/                     the runner tests again, here with torch importable
#   tests/integrations/test_drq_example.py  examples/drq_sac.py (SAC from pixels, DrQ's
#                                     augmentation) through an episode end: dm-control's model
#                                     files from .test-oracles/, EGL from the machine (~3 s)
#   tests/integrations/test_her_example.py  examples/her_sac.py (SB3's SAC + HerReplayBuffer)
#                                     must lift FetchReach-v4's evaluation success rate to >= 0.5
#                                     within 4,000 env steps (~30 s), its relabelled rewards
#                                     the task's; gymnasium-robotics' model files from .test-oracles/
# A skipped test fails the step. Measured on the 2-core dev machine while other jobs loaded it
# (load average 8-9): 203 s and 286 s wall in two runs (venv + torch + SB3 79-116 s, tests
# 65-110 s, removing the venv the rest); budget 10 minutes.
# Usage: scripts/ci_train.sh [--keep]   (PYTHON=... picks the base interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
t0=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/envpool-train.XXXXXX")
if [[ ${1:-} == --keep ]]; then echo "keeping $work"; else trap 'rm -rf "$work"' EXIT; fi

"$PY" -m venv "$work/venv"
VPY=$work/venv/bin/python
"$PY" -c 'import sysconfig; print("\n".join(sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})))' \
  >"$("$VPY" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/main_environment.pth"
before=$("$VPY" -c "import numpy, gymnasium; print(numpy.__version__, gymnasium.__version__)")
"$VPY" -m pip install -q torch==2.13.0
mapfile -t reqs < <("$VPY" - <<'PY'
import tomllib
extras = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]
print("\n".join(extras["train"] + extras["sb3"]))
PY
)
"$VPY" -m pip install -q "${reqs[@]}"
after=$("$VPY" -c "import numpy, gymnasium; print(numpy.__version__, gymnasium.__version__)")
if [[ $before != "$after" ]]; then
  echo "ci_train: installing torch/SB3 changed numpy/gymnasium: $before -> $after" >&2
  exit 1
fi
echo "ci_train: venv ready in $((SECONDS - t0)) s (numpy gymnasium: $after)"

# From outside the checkout, so the installed envpool is the one tested.
repo=$PWD
log=$work/pytest.log
(cd "$work" && "$VPY" -m pytest -q -rs -p no:cacheprovider \
  "$repo/tests/integrations/test_train.py" "$repo/tests/integrations/test_sb3.py" "$repo/tests/runner" \
  "$repo/tests/integrations/test_drq_example.py" "$repo/tests/integrations/test_her_example.py") | tee "$log"
if grep -q "skipped" "$log"; then
  echo "ci_train: tests were skipped (see above)" >&2
  exit 1
fi
echo "ci_train: $((SECONDS - t0)) s in all"
