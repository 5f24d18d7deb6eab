#!/usr/bin/env bash
# Builds this repository at a given commit into a package folder for bench/tools/ab_throughput.py
# (`envpool/` with its `_core*.so` and the StepCounter test plugin where that commit has one),
# once per commit, and prints the folder.
#   usage: OLD=$(bench/tools/peers/build_commit.sh 93d8db1) && NEW=$(bench/tools/peers/build_commit.sh HEAD)
#          python -m bench.tools.ab_throughput --old "$OLD" --new "$NEW"
#   env: AB_BUILD_ROOT (default ~/.cache/envpool-ab): <root>/<full commit hash>/{src,build,pkg}
# Needs cmake, ninja, pybind11 (and mujoco-core for the MuJoCo rows) in the running python.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
commit=$(git -C "$repo" rev-parse --verify "${1:?give a commit}^{commit}")
root=${AB_BUILD_ROOT:-$HOME/.cache/envpool-ab}/$commit
if [[ -f $root/pkg/.complete ]]; then
  echo "$root/pkg"
  exit 0
fi
rm -rf "$root" && mkdir -p "$root/src"
git -C "$repo" archive "$commit" | tar -x -C "$root/src"
cmake -S "$root/src" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" > "$root/cmake.log" 2>&1 || { cat "$root/cmake.log" >&2; exit 1; }
cmake --build "$root/build" > "$root/build.log" 2>&1 || { tail -30 "$root/build.log" >&2; exit 1; }
mkdir -p "$root/pkg"
cp -r "$root/src/python/envpool" "$root/pkg/"
cp "$root"/build/_core*.so "$root/pkg/envpool/"
if [[ -f $root/build/_step_counter.so ]]; then cp "$root/build/_step_counter.so" "$root/pkg/envpool/testing/"; fi
touch "$root/pkg/.complete"
echo "$root/pkg"
