#!/usr/bin/env bash
# External episodes (envpool.serve / PolicyClient / ExternalEnv) run for real: the tests with
# pyzmq and msgpack present (a skip fails the step), the one-command demo, and a short load test.
# Budget: about 1-2 minutes on a 2-core machine (its load test's numbers: bench/external/README.md).
# Expects envpool installed with the `test` extra (the main CI step does it).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
start=$(date +%s)
$PY -c "import zmq, msgpack" # the extra is installed, so nothing below may skip
# -rs lists skips; a skipped external test means the tests did not really run.
out=$($PY -m pytest -q -rs tests/external 2>&1) || { echo "$out"; exit 1; }
echo "$out" | tail -3
if echo "$out" | grep -q "SKIPPED"; then echo "external tests were skipped"; exit 1; fi
# The demo: a server and 2 client processes driving CartPole episodes.
timeout 300 $PY examples/external_cartpole.py --clients 2 --episodes 1
# The load test, short: it must run to the end and print its table.
table=$(timeout 300 $PY -m bench.external.loopback --seconds 1 --repeat 1)
echo "$table"
echo "$table" | grep -q "^pipelined"
echo "ci_external.sh: $(( $(date +%s) - start )) s"
