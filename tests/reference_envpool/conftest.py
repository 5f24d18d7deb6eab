"""The reference EnvPool's own tests (sail-sg/envpool, Apache-2.0: LICENSE here) for the task
families this envpool has; README.md here lists the source commit, every adaptation and every
skipped test with its reason. They need absl-py (scripts/ci_compat.sh installs it); without it
they are not collected."""

import importlib.util
import pathlib
import sys

collect_ignore_glob = [] if importlib.util.find_spec("absl") else ["*_test.py"]

# The vendored files import `_reference_api` (the reference's import paths) from here.
sys.path.insert(0, str(pathlib.Path(__file__).parent))
