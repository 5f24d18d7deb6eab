#!/usr/bin/env bash
# Creates (once) a separate virtual environment holding the reference EnvPool release from the
# package index, the peer of the side-by-side benches (bench.core.throughput, async_gain,
# thread_scaling, contention; bench.envs.*). It imports as `envpool` too, so it never shares an
# interpreter with this project. Prints the path of that environment's python.
#   usage: PY=$(bench/tools/peers/envpool.sh) && python -m bench.core.throughput --peer-python "$PY"
#   env: PEER_ENVPOOL_VERSION (1.2.5), PEER_ENVPOOL_VENV (default ~/.cache/peer-envpool for
#        1.2.5, ~/.cache/peer-envpool-<version> for others)
# 1.2.7's Linux wheels are for CPython 3.13 and 3.14 only: its venv is made with the CPython 3.13
# that bench/tools/peers/python313.sh builds (once, ~10 min). 1.2.5's wheels include CPython 3.11.
#   usage: PY127=$(PEER_ENVPOOL_VERSION=1.2.7 bench/tools/peers/envpool.sh)
set -euo pipefail
version=${PEER_ENVPOOL_VERSION:-1.2.5}
if [[ $version == 1.2.5 ]]; then
  dir=${PEER_ENVPOOL_VENV:-$HOME/.cache/peer-envpool}
  base_python=python3
else
  dir=${PEER_ENVPOOL_VENV:-$HOME/.cache/peer-envpool-$version}
  base_python=$("$(dirname "$0")/python313.sh")
fi
check() {
  "$dir/bin/python" -c "import envpool, sys; sys.exit(envpool.__version__ != sys.argv[1])" "$version" 2>/dev/null
}
if [[ -x $dir/bin/python ]] && check; then
  echo "$dir/bin/python"
  exit 0
fi
if [[ $base_python == python3 ]]; then
  python3 -m venv "$dir" >&2
else
  # python313.sh's build has no ensurepip (Debian disables it): bootstrap pip from its wheel,
  # fetched by this machine's pip.
  "$base_python" -m venv --without-pip "$dir" >&2
  wheels=$(mktemp -d)
  python3 -m pip download -q --no-deps pip -d "$wheels" >&2 2> >(grep -v '^WARNING: Location' >&2)
  pip_wheel=$(ls "$wheels"/pip-*.whl)
  "$dir/bin/python" "$pip_wheel/pip" install -q --no-index "$pip_wheel" >&2
  rm -rf "$wheels"
fi
"$dir/bin/python" -m pip install -q --upgrade pip >&2 2> >(grep -v '^WARNING: Location' >&2)
"$dir/bin/python" -m pip install -q "envpool==$version" gymnasium numpy >&2 2> >(grep -v '^WARNING: Location' >&2)
check || { echo "peers/envpool.sh: envpool $version installed but does not import" >&2; exit 1; }
echo "$dir/bin/python"
