"""``envpool.sb3``, the documented import path of :mod:`envpool.integrations.sb3` (the same module
object: importing either gives the other)."""

import sys

from envpool.integrations import sb3 as _module

sys.modules[__name__] = _module
