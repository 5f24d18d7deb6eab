#!/usr/bin/env bash
# The C++ unit tests (tests/cpp: a test_<unit>.cc per tested unit of cpp/core), built
# and run by CTest (the `cpp_tests` step of .ci/run, about 30 s; scripts/sanitize.sh runs them
# under ASan+UBSan and TSan). Needs cmake, ninja and pybind11 (the top-level CMakeLists.txt
# configures the extension too, though only the tests are built here).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/cpp-tests
mkdir -p build  # its configure log sits beside the build folder
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DENVPOOL_BUILD_TESTS=ON -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF \
  -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" > "$build.cmake.log" 2>&1 || { cat "$build.cmake.log"; exit 1; }
cmake --build "$build" --target test_thread_pool test_solo_switch test_batch_assembler test_protocol test_episode_rules test_agents test_row_guard \
  test_seed_sequence test_pcg64 test_rng test_legacy_random test_orders test_buffers test_spec test_registry test_pool test_pool_factories \
  test_executor test_external_executor test_process_channel test_process_executor test_exception_text
ctest --test-dir "$build" --output-on-failure
