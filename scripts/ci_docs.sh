#!/usr/bin/env bash
# CI step `docs`: builds the docs site (mkdocs.yml: README.md, docs/*.md, bench's pages and an
# API reference from the docstrings) with warnings as errors: a broken link or anchor, a page
# missing from the nav, a docstring that cannot be rendered all fail it. The tools are the pinned
# `docs` extra of pyproject.toml, installed alone into a fresh venv (mkdocstrings reads
# python/envpool's sources, so no envpool build is needed). Measured 2026-11-27 on the shared
# 2-core machine under load (load average ~11): 2 min 32 s, of which the venv and pip 2 min 13 s
# and the build 18 s (the build alone: 5-9 s at load ~10 with the tools installed).
#
#   scripts/ci_docs.sh                         fresh venv, build into site/
#   scripts/ci_docs.sh --venv DIR              reuse (or create) the venv DIR
#   scripts/ci_docs.sh --print-requirements    the `docs` extra's requirements, one a line
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t reqs < <(python3 -c '
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["docs"]))')
venv=""
case ${1:-} in
  --print-requirements) printf '%s\n' "${reqs[@]}"; exit 0 ;;
  --venv) venv=$2 ;;
  "") ;;
  *) echo "usage: $0 [--venv DIR | --print-requirements]" >&2; exit 2 ;;
esac
if [[ -z $venv ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  venv=$tmp/venv
fi
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${reqs[@]}"
# NO_MKDOCS_2_WARNING: Material's notice about its successor, printed on every build.
NO_MKDOCS_2_WARNING=1 "$venv/bin/mkdocs" build --strict --site-dir site
echo "docs site built in site/ (mkdocs serve to browse)"
