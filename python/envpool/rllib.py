"""``envpool.rllib``, the documented import path of :mod:`envpool.integrations.rllib` (the same module
object: importing either gives the other)."""

import sys

from envpool.integrations import rllib as _module

sys.modules[__name__] = _module
