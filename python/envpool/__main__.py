"""``python -m envpool`` runs the command line (see envpool.cli)."""

import sys

from envpool.cli import main

sys.exit(main())
