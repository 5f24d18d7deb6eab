#!/usr/bin/env bash
# Lint and format checks (the `lint` step of .ci/run, a few seconds): ruff's lint rules and
# formatter over the Python (pyproject.toml [tool.ruff]) and clang-format over the C++
# (.clang-format). `scripts/lint.sh --fix` rewrites the files instead of checking them.
# `scripts/lint.sh --install` first installs the `lint` extra's pinned tools (pyproject.toml)
# into the running python3's environment; without it they must be on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --install ]]; then
  shift
  python3 -m pip install -q $(python3 -c "import tomllib; print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['lint']))")
fi
cpp=$(git ls-files '*.h' '*.cc' '*.cpp')
if [[ ${1:-} == --fix ]]; then
  ruff check --fix .
  ruff format .
  clang-format -i $cpp
  exit 0
fi
ruff check .
ruff format --check .
clang-format --dry-run --Werror $cpp
echo "lint: ruff and clang-format clean ($(echo "$cpp" | wc -l) C++ files)"
