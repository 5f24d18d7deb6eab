#!/usr/bin/env bash
# Creates (once) a separate virtual environment with RLlib (ray[rllib], the version of this
# project's `rllib` extra) and the CPU build of torch, for bench/runner/env_runner.py's RLlib rows, which
# run RLlib's SingleAgentEnvRunner in that interpreter. Prints the path of its python.
#   usage: python -m bench.runner.env_runner --rllib-python "$(bench/tools/peers/rllib.sh)"
#   env: PEER_RLLIB_VENV (default ~/.cache/peer-rllib), PEER_RAY_VERSION (2.60.0),
#        PEER_TORCH_VERSION (2.13.0: on these machines a CPU wheel from the local index)
set -euo pipefail
dir=${PEER_RLLIB_VENV:-$HOME/.cache/peer-rllib}
ray_version=${PEER_RAY_VERSION:-2.60.0}
torch_version=${PEER_TORCH_VERSION:-2.13.0}
check() {
  "$dir/bin/python" -c "import ray, torch, sys; from ray.rllib.algorithms.ppo import PPOConfig; sys.exit(ray.__version__ != sys.argv[1])" \
    "$ray_version" 2>/dev/null
}
if [[ -x $dir/bin/python ]] && check; then
  echo "$dir/bin/python"
  exit 0
fi
python3 -m venv "$dir" >&2
"$dir/bin/python" -m pip install -q "torch==$torch_version" >&2 2> >(grep -v '^WARNING: Location' >&2)
"$dir/bin/python" -m pip install -q "ray[rllib]==$ray_version" gymnasium numpy >&2 2> >(grep -v '^WARNING: Location' >&2)
check || { echo "peers/rllib.sh: ray[rllib] $ray_version installed but does not import" >&2; exit 1; }
echo "$dir/bin/python"
