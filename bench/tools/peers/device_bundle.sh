#!/usr/bin/env bash
# Builds what bench/core/thread_scaling.py needs on a lent device machine (x86-64, Python 3.12, numpy,
# no network, 64 MiB carried) into .device/ of this checkout (ignored through .git/info/exclude):
#   python/envpool/_core.cpython-312-*.so   this checkout's extension, built here for 3.12
#   .device/raw312/                         the C++ loops (envpool_classic_raw, envpool_mujoco_raw)
#   .device/site312/                        gymnasium, farama-notifications, mujoco (its libmujoco)
#   .device/peer312/ and .device/peerpy     the reference EnvPool 1.2.5 cut to classic_control and
#                                           mujoco/gym (its wheel is 53 MB; its entry.py then
#                                           registers those two families only), run by peerpy
# Then, with the device tool (carry: .device and the _core .so above):
#   PYTHONPATH=$PWD/python:$PWD/.device/site312 python -m bench.core.thread_scaling --peer-python $PWD/.device/peerpy \
#     --raw-dir $PWD/.device/raw312 --out $OUT
# Needs here: a python3.12 (PYTHON312, default: the one on PATH), cmake, pip that can download,
# and pybind11 + mujoco-core headers in the running python3 (the dev venv).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
py312=${PYTHON312:-$(command -v python3.12)}
dev=$(command -v python3)
out=$repo/.device
grep -qx "/.device/" "$repo/.git/info/exclude" 2>/dev/null || echo "/.device/" >> "$repo/.git/info/exclude"
rm -rf "$out" && mkdir -p "$out"/{wheels,site312,peer312,raw312}

pybind11_dir=$("$dev" -m pybind11 --cmakedir)
mujoco_include=$("$dev" -c "import mujoco, os; print(os.path.join(os.path.dirname(mujoco.__file__), 'include'))")
cmake -S "$repo" -B "$repo/build/py312" -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$py312" \
  -Dpybind11_DIR="$pybind11_dir" -DMUJOCO_INCLUDE_DIR="$mujoco_include" \
  -DENVPOOL_CLASSIC_BENCH=ON -DENVPOOL_MUJOCO_BENCH=ON > "$out/cmake.log"
cmake --build "$repo/build/py312" -j "$(nproc)" > "$out/build.log"
cp "$repo"/build/py312/_core.cpython-312-*.so "$repo/python/envpool/"
cp "$repo"/build/py312/envpool_*raw*.so "$out/raw312/"

platforms=()
for p in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_24_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64; do
  platforms+=(--platform "$p")
done
"$dev" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp "${platforms[@]}" \
  -d "$out/wheels" gymnasium==1.4.0 farama-notifications==0.0.6 mujoco-core==4.0.1 envpool==1.2.5 \
  envpool-assets==0.3.0 optree==0.20.0 dm-env==1.6 dm-tree==0.1.10

cd "$out/site312"
for w in gymnasium farama_notifications; do unzip -q "$out"/wheels/"$w"-*.whl; done
mkdir mujoco  # envpool finds libmujoco through the package's folder (find_spec; no import)
unzip -q -j "$out"/wheels/mujoco_core-*.whl 'mujoco/__init__.py' 'mujoco/libmujoco.so*' -d mujoco

cd "$out/peer312"
for w in optree dm_env dm_tree; do unzip -q "$out"/wheels/"$w"-*.whl; done
unzip -q "$out"/wheels/envpool-1.2.5-*.whl 'envpool/*.py' 'envpool/py.typed' 'envpool.libs/*' \
  envpool/classic_control/classic_control_envpool.so envpool/mujoco/mujoco_gym_envpool.so
unzip -q "$out"/wheels/envpool_assets-*.whl 'envpool_assets/__init__.py' 'envpool_assets/mujoco/assets_gym/*'
cat > envpool/entry.py <<'EOF'
"""Cut for envpool-ng's bench/core/thread_scaling.py on the device machine: only the two env
families whose extensions are carried there register (the release's entry.py imports all)."""

import envpool.classic_control.registration  # noqa: F401
import envpool.mujoco.gym.registration  # noqa: F401
EOF
cat > "$out/peerpy" <<'EOF'
#!/bin/sh
D=$(cd "$(dirname "$0")" && pwd)
PYTHONPATH="$D/peer312:$D/site312" exec "${PY312:-python3}" "$@"
EOF
chmod +x "$out/peerpy"
rm -rf "$out/wheels"
du -sh "$out" "$repo"/python/envpool/_core.cpython-312-*.so
