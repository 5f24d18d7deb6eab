#!/usr/bin/env bash
# Creates (once) a separate virtual environment holding PufferLib 3.0 from the package index, as a
# peer for bench/envs/python_envs.py. PufferLib 3.0.0 pins numpy<2 and gymnasium<=0.29.1, so it never
# shares an interpreter with this project. Prints the path of that environment's python.
#   usage: PY=$(bench/tools/peers/pufferlib.sh) && "$PY" -c 'import pufferlib.vector'
#
# PufferLib 3.0.0 is published as an sdist only, and its setup.py downloads raylib/box2d archives
# from GitHub at build time (even to compute metadata), so a plain `pip install pufferlib==3.0.*`
# fails on a machine that reaches only the package index (URLError: Name or service not known).
# Fallback used then: fetch the same sdist with pip (--no-clean keeps the unpacked tree), patch one
# line of setup.py (`c_extension_paths` is undefined when NO_OCEAN=1) and build it with
# NO_OCEAN=1 NO_TRAIN=1: no C "ocean" envs and no torch training extension, which the benchmark
# does not use (it needs only the pure-Python pufferlib.vector and pufferlib.emulation). gymnasium
# is then upgraded past PufferLib's pin to the version our benchmark uses (default 1.4.0), so both
# sides step the very same environment code; pip reports that conflict and it is expected.
# pettingzoo 1.27.0 and mpe2 1.1.1 (which brings pygame-ce and scipy) are installed too, for
# bench/envs/multiagent.py (simple_spread_v3 through pufferlib.emulation.PettingZooPufferEnv), and
# minigrid 3.2.0 for bench/envs/minigrid.py (PufferLib's binding, pufferlib.environments.minigrid; its
# extra pins minigrid 2.3.1, the benchmark steps the minigrid our envs follow); a venv made before
# they were added gets them on the next run without being rebuilt.
#   env: PEER_PUFFERLIB_VENV (default ~/.cache/peer-pufferlib), PEER_PUFFERLIB_GYMNASIUM (1.4.0),
#        PEER_PUFFERLIB_SKIP_PLAIN=1 skips the plain attempt (it downloads torch just to fail).
set -euo pipefail
dir=${PEER_PUFFERLIB_VENV:-$HOME/.cache/peer-pufferlib}
gym_version=${PEER_PUFFERLIB_GYMNASIUM:-1.4.0}
check() {  # from $dir: importing pufferlib symlinks `resources` into the working directory
  (cd "$dir" && "$dir/bin/python" - "$gym_version") <<'PY' 2>/dev/null
import sys, warnings
warnings.filterwarnings("ignore")
import gymnasium, pufferlib, pufferlib.vector, pufferlib.emulation  # noqa: F401
sys.exit(not (str(pufferlib.__version__).startswith("3.0") and gymnasium.__version__ == sys.argv[1]))
PY
}
pip=("$dir/bin/python" -m pip)
extras=("gymnasium[box2d,mujoco]==$gym_version" psutil pettingzoo==1.27.0 mpe2==1.1.1 minigrid==3.2.0)
if [[ -x $dir/bin/python ]] && check; then
  if ! "$dir/bin/python" -c 'import pettingzoo, mpe2, minigrid' 2>/dev/null; then
    "${pip[@]}" install -q "${extras[@]}" >&2 2> >(grep -v '^WARNING: Location' >&2) || true
  fi
  echo "$dir/bin/python"
  exit 0
fi
python3 -m venv "$dir" >&2
"${pip[@]}" install -q --upgrade pip >&2
if [[ ${PEER_PUFFERLIB_SKIP_PLAIN:-0} != 1 ]] \
    && "${pip[@]}" install "pufferlib==3.0.*" gymnasium >"$dir/install-plain.log" 2>&1; then
  echo "pufferlib.sh: plain install of pufferlib==3.0.* succeeded" >&2
else
  if [[ ${PEER_PUFFERLIB_SKIP_PLAIN:-0} != 1 ]]; then
    echo "pufferlib.sh: plain 'pip install pufferlib==3.0.* gymnasium' failed; last lines:" >&2
    grep -v '^WARNING: Location' "$dir/install-plain.log" | tail -n 6 >&2
    echo "pufferlib.sh: falling back to a NO_OCEAN=1 NO_TRAIN=1 build of the same sdist" >&2
  fi
  # Build requirements of the sdist (pyproject: setuptools wheel Cython numpy torch; setup.py
  # imports torch.utils.cpp_extension at top level even with NO_TRAIN=1).
  "${pip[@]}" install -q setuptools wheel Cython "numpy<2" torch >&2
  rm -rf "$dir/tmp" "$dir/src" && mkdir -p "$dir/tmp"
  # Expected to fail while preparing metadata (the download); --no-clean keeps the unpacked sdist.
  TMPDIR="$dir/tmp" "${pip[@]}" install --no-clean --no-build-isolation --no-deps \
    "pufferlib==3.0.0" >"$dir/install-unpack.log" 2>&1 || true
  src=$(ls -d "$dir"/tmp/pip-install-*/pufferlib_* 2>/dev/null | head -n 1)
  if [[ -z $src || ! -f $src/setup.py ]]; then
    echo "pufferlib.sh: could not unpack the pufferlib 3.0.0 sdist; see $dir/install-unpack.log" >&2
    exit 1
  fi
  cp -r "$src" "$dir/src" && rm -rf "$dir/tmp"
  sed -i 's/^c_extensions = \[\]$/c_extensions = []\nc_extension_paths = []  # patched by pufferlib.sh/' \
    "$dir/src/setup.py"
  NO_OCEAN=1 NO_TRAIN=1 "${pip[@]}" install --no-build-isolation "$dir/src" >"$dir/install-build.log" 2>&1 || {
    echo "pufferlib.sh: NO_OCEAN build failed; last lines:" >&2
    grep -v '^WARNING: Location' "$dir/install-build.log" | tail -n 6 >&2
    exit 1
  }
fi
# psutil: pufferlib.vector imports it but only the training extras require it. pettingzoo, mpe2:
# bench/envs/multiagent.py. minigrid: bench/envs/minigrid.py.
"${pip[@]}" install -q "${extras[@]}" >&2 2> >(grep -v '^WARNING: Location' >&2) || true
check || { echo "pufferlib.sh: pufferlib installed but does not import" >&2; exit 1; }
echo "$dir/bin/python"
