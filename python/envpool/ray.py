"""``envpool.ray``, the documented import path of :mod:`envpool.integrations.ray` (the same module
object: importing either gives the other)."""

import sys

from envpool.integrations import ray as _module

sys.modules[__name__] = _module
