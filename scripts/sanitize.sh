#!/usr/bin/env bash
# Builds the extension and the C++ unit tests (tests/cpp) with sanitizers and runs the unit
# tests (ctest) and tests/stress/stress_pool.py under each:
#   address  ASan + UBSan (leak detection off: the interpreter itself is not instrumented)
#   thread   TSan (the stress run without its every-task hostile-kwargs part)
# Any sanitizer report fails the run. Usage: scripts/sanitize.sh [address|thread ...] [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
modes=()
stress_args=()
for arg in "$@"; do
  case "$arg" in
    --quick) stress_args+=(--quick) ;;
    *) modes+=("$arg") ;;
  esac
done
[[ ${#modes[@]} -gt 0 ]] || modes=(address thread)
pybind11_dir=$(python3 -m pybind11 --cmakedir)
mkdir -p build  # its logs sit beside the build folders
# The test plugins (tests/plugin), built against the checkout's SDK, for the plugin stress case.
# Not instrumented (a user's plugin is not), so one build serves every mode (built per mode until
# 2026-11-27: 8 objects, 26 s of CPU each time).
plugins=build/sanitize-plugins
cmake -S tests/plugin -B "$plugins" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -Denvpool_DIR="$(pwd)/cmake" \
  > "$plugins.log" 2>&1 && cmake --build "$plugins" >> "$plugins.log" 2>&1 || { tail -50 "$plugins.log"; exit 1; }
for mode in "${modes[@]}"; do
  build=build/sanitize-$mode
  pkg=$build/pkg
  # -O0: the instrumented bindings (pybind11 templates) dominate the build, and at -O0 they
  # compile in ~40% of -O1's time (ASan+UBSan module.cc: 72 s -> 30 s). Measured on the quiet
  # 2-core machine (2026-11-27): ASan+UBSan build 9.2 min at -O1 -> 3.4 min, its stress run 67 s
  # (no slower); TSan build 3.3 min -> 2.4 min, its stress run 103 s. Reports keep full stacks.
  # Since then the unity groups of cpp/CMakeLists.txt (the pybind11 files compile as two):
  # CPU per build 522 s -> 350 s (ASan+UBSan), 348 s -> 230 s (TSan), docs/ci.md.
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g" \
    -DENVPOOL_SANITIZE="$mode" -DENVPOOL_BUILD_TESTS=ON -Dpybind11_DIR="$pybind11_dir" > "$build.cmake.log" 2>&1 || { cat "$build.cmake.log"; exit 1; }
  cmake --build "$build" > "$build.build.log" 2>&1 || { tail -50 "$build.build.log"; exit 1; }
  rm -rf "$pkg" && mkdir -p "$pkg"
  cp -r python/envpool "$pkg/"
  cp "$build"/_core*.so "$pkg/envpool/"
  cp "$build"/_step_counter.so "$pkg/envpool/testing/"  # the StepCounter-v0 test plugin
  log=$build/stress.log
  if [[ $mode == address ]]; then
    # libstdc++ too: ASan's __cxa_throw interceptor must find it when the runtime starts, and
    # the interpreter does not link it.
    runtime="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libstdc++.so)"
    export_opts=(ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
  else
    runtime="$(g++ -print-file-name=libtsan.so) $(g++ -print-file-name=libstdc++.so)"
    # scripts/tsan.supp: one glibc false positive (its header says which and why).
    export_opts=(TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(pwd)/scripts/tsan.supp)
  fi
  echo "== $mode: C++ unit tests (ctest)"
  if ! env "${export_opts[@]}" ctest --test-dir "$build" --output-on-failure > "$build/ctest.log" 2>&1 ||
    grep -qE "ERROR: (AddressSanitizer|ThreadSanitizer)|runtime error:|WARNING: ThreadSanitizer" "$build"/tests/cpp/Testing/Temporary/LastTest.log "$build/ctest.log" 2>/dev/null; then
    tail -60 "$build/ctest.log"
    echo "sanitizer run '$mode' (unit tests) FAILED"
    exit 1
  fi
  tail -1 "$build/ctest.log"
  # Every registered task with hostile kwargs runs under ASan+UBSan only (memory and UB are
  # what hostile input finds; an env steps in one thread at a time): --no-extreme-kwargs for TSan.
  mode_args=("${stress_args[@]}")
  [[ $mode == thread ]] && mode_args+=(--no-extreme-kwargs)
  echo "== $mode: running tests/stress/stress_pool.py ${mode_args[*]:-}"
  # Every task includes dm_control's and Procgen's, whose files come from packages the README's
  # test command installs into .test-oracles/ (docs/install.md#running-the-tests).
  pypath=$pkg
  [[ -d .test-oracles ]] && pypath=$pkg:$(pwd)/.test-oracles
  if ! env "${export_opts[@]}" ENVPOOL_STRESS_PLUGINS="$(pwd)/$plugins" LD_PRELOAD="$runtime" PYTHONPATH="$pypath" python3 tests/stress/stress_pool.py "${mode_args[@]}" > "$log" 2>&1; then
    tail -60 "$log"
    echo "sanitizer run '$mode' FAILED"
    exit 1
  fi
  if grep -qE "ERROR: (AddressSanitizer|ThreadSanitizer|LeakSanitizer)|runtime error:|WARNING: ThreadSanitizer" "$log"; then
    grep -nE -A20 "ERROR: |runtime error:|WARNING: ThreadSanitizer" "$log" | head -80
    echo "sanitizer run '$mode' reported problems"
    exit 1
  fi
  tail -1 "$log"
done
echo "sanitizers: clean"
