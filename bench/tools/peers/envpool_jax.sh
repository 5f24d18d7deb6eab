#!/usr/bin/env bash
# Creates (once) a separate virtual environment holding the reference EnvPool release and jax, as
# the peer of bench/core/xla.py (the reference's `xla()`). A second venv rather than jax added to the
# main peer venv (bench/tools/peers/envpool.sh), so that venv stays as every other bench
# expects it. The reference imports as `envpool` too, so it never shares an interpreter with this
# project. Prints the path of that environment's python.
#   usage: PY=$(bench/tools/peers/envpool_jax.sh) && "$PY" -c 'import envpool, jax'
#   env: PEER_ENVPOOL_JAX_VENV (default ~/.cache/peer-envpool-jax), PEER_ENVPOOL_VERSION (1.2.5),
#        PEER_JAX_VERSION (0.10.2: the newest jax on the index when this was written)
set -euo pipefail
dir=${PEER_ENVPOOL_JAX_VENV:-$HOME/.cache/peer-envpool-jax}
version=${PEER_ENVPOOL_VERSION:-1.2.5}
jax_version=${PEER_JAX_VERSION:-0.10.2}
check() {
  "$dir/bin/python" - "$version" "$jax_version" <<'PY' 2>/dev/null
import sys
import envpool, jax
sys.exit(not (envpool.__version__ == sys.argv[1] and jax.__version__ == sys.argv[2]))
PY
}
if [[ -x $dir/bin/python ]] && check; then
  echo "$dir/bin/python"
  exit 0
fi
python3 -m venv "$dir" >&2
"$dir/bin/python" -m pip install -q --upgrade pip >&2 2> >(grep -v '^WARNING: Location' >&2)
"$dir/bin/python" -m pip install -q "envpool==$version" gymnasium numpy "jax[cpu]==$jax_version" \
  "jaxlib==$jax_version" >&2 2> >(grep -v '^WARNING: Location' >&2)
check || { echo "envpool_jax.sh: envpool $version and jax $jax_version installed but do not import" >&2; exit 1; }
echo "$dir/bin/python"
