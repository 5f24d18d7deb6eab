# Sourced by the scripts/ci_*.sh steps that test envpool in fresh venvs from a wheel.
#
#   ci_setup NAME "$@"
#
# parses the step's options, [--wheel PATH] [--keep], goes to the repository root and sets:
#   repo   the repository root          PY     the base interpreter (PYTHON=..., else python3)
#   work   a fresh scratch folder, removed at exit unless --keep (then its path is printed)
#   wheel  the envpool wheel: --wheel's, else one built into $work/wheels from the checkout
#   t0     $SECONDS at the start (the step prints "NAME: N s in all" when it ends)
# .ci/run builds the wheel once and passes it to every step with --wheel.

ci_setup() {
  ci_name=$1
  shift
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  repo=$(pwd)
  PY=${PYTHON:-python3}
  wheel=""
  local keep=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --wheel) wheel=$2; shift 2 ;;
      --keep) keep=1; shift ;;
      *) echo "usage: scripts/$ci_name.sh [--wheel PATH] [--keep]" >&2; exit 2 ;;
    esac
  done
  t0=$SECONDS
  work=$(mktemp -d "${TMPDIR:-/tmp}/envpool-$ci_name.XXXXXX")
  if [[ $keep == 1 ]]; then
    echo "keeping $work"
  else
    trap ci_cleanup EXIT
  fi
  if [[ -z $wheel ]]; then
    echo "== building the envpool wheel"
    "$PY" -m pip wheel -q --no-deps -w "$work/wheels" . >"$work/wheel.log" 2>&1 || { tail -40 "$work/wheel.log"; exit 1; }
    wheel=$(ls "$work"/wheels/envpool_ng-*.whl)
  fi
  wheel=$(realpath "$wheel")
}

ci_cleanup() {
  rm -rf "$work"
  echo "$ci_name: $((SECONDS - t0)) s in all"
}
