"""The reference EnvPool's own tests (sail-sg/envpool, Apache-2.0: LICENSE here) for the task
families this envpool has; README.md here lists the source commit, every adaptation and every
skipped test with its reason.

They take about a minute of CPU (long seeded rollouts), so the main suite leaves them out:
scripts/ci_compat.sh runs them with ENVPOOL_REFERENCE_TESTS=1 (set it to run them anywhere; they
need absl-py, which dm-env brings)."""

import os
import pathlib
import sys

collect_ignore_glob = [] if os.environ.get("ENVPOOL_REFERENCE_TESTS") == "1" else ["*_test.py"]

# The vendored files import `_reference_api` (the reference's import paths) from here.
sys.path.insert(0, str(pathlib.Path(__file__).parent))
