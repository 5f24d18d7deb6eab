#!/usr/bin/env bash
# Builds (once) CPython 3.13 from Debian's source package and prints the path of its python.
# Why: the reference EnvPool 1.2.7 ships Linux wheels for CPython 3.13 and 3.14 only, and these
# machines run Debian 12 (bookworm), whose Python is 3.11. Debian 13 (trixie) carries python3.13;
# its source package (upstream tarball + Debian's patches) builds on bookworm with bookworm's
# -dev packages. Bench tooling only: never part of .ci/run.
#   usage: PY313=$(bench/tools/peers/python313.sh)   (~10 min on 2 cores the first time, then instant)
#   env: PEER_PYTHON313_PREFIX (default ~/.cache/peer-python3.13), PEER_PYTHON313_SRC (where the
#        source package is unpacked; default ~/.cache/peer-python3.13-src)
set -euo pipefail
prefix=${PEER_PYTHON313_PREFIX:-$HOME/.cache/peer-python3.13}
src=${PEER_PYTHON313_SRC:-$HOME/.cache/peer-python3.13-src}
python=$prefix/bin/python3.13
works() { "$python" -c "import ssl, sqlite3, ctypes, lzma, bz2, zlib, venv" 2>/dev/null; }
if [[ -x $python ]] && works; then
  echo "$python"
  exit 0
fi

# deb-src for trixie only (no binary lines): apt-get source fetches the source package, nothing
# from trixie is installed. The mirror is the one this machine's own Debian entry names (the
# repository names no host): the URIs and Signed-By of the first deb822 entry whose suites
# include the release itself (not -security or -updates), or of the first one-line `deb` entry.
list=/etc/apt/sources.list.d/peer-python313-src.sources
if [[ ! -f $list ]]; then
  read -r uri keyring < <(
    { cat /etc/apt/sources.list.d/*.sources 2>/dev/null; echo; } | awk '
      /^$/ { if (u && s ~ /(^| )[a-z]+( |$)/) { print u, (k ? k : "-"); found = 1; exit } u = s = k = ""; next }
      /^URIs:/ { u = $2 } /^Suites:/ { $1 = ""; s = $0 } /^Signed-By:/ { k = $2 }
      END { if (!found && u && s ~ /(^| )[a-z]+( |$)/) print u, (k ? k : "-") }'
  ) || true
  if [[ -z ${uri:-} ]]; then
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
      /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -1)
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  fi
  [[ -n ${uri:-} ]] || { echo "peers/python313.sh: no Debian mirror found in /etc/apt/sources.list*" >&2; exit 1; }
  [[ ${keyring:--} != - ]] || keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: %s\n' "$uri" "$keyring" >"$list"
fi
apt-get update -qq >&2
# The build needs these -dev packages for the stdlib modules a venv with pip and numpy uses
# (ssl, ctypes/ffi, lzma, bz2, sqlite3, readline, zlib, uuid, gdbm); bookworm's versions work.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev build-essential libssl-dev \
  zlib1g-dev libffi-dev libbz2-dev liblzma-dev libsqlite3-dev libreadline-dev uuid-dev \
  libgdbm-dev libncurses-dev tk-dev >&2

mkdir -p "$src"
cd "$src"
if ! compgen -G "python3.13-3.13*/configure" >/dev/null; then
  # --download-only + dpkg-source -x: unpack and apply Debian's quilt patches without needing
  # trixie's build-dependency versions.
  apt-get source -qq --download-only python3.13 >&2
  dpkg-source -x --no-check python3.13_*.dsc >&2
fi
tree=$(compgen -G "python3.13-3.13*/configure" | head -1)
cd "$(dirname "$tree")"
# No --enable-optimizations: PGO triples the build time. The batched rows time the wheel's C++;
# the 1-env rows also time the interpreter's call path, where a PGO build is faster:
# bench/README.md says so beside those rows.
# Debian's patches disable ensurepip (pip comes from apt there): no pip in this build; venvs made
# from it bootstrap pip from its wheel (bench/tools/peers/envpool.sh).
./configure -q --prefix="$prefix" --with-ensurepip=no >&2
make -s -j"$(nproc)" >&2
make -s altinstall >&2
works || { echo "peers/python313.sh: $python built but lacks stdlib modules" >&2; exit 1; }
echo "$python"
