"""mysim: an example envpool plugin (the Catch game in src/catch.cc).

Installing this package is enough: envpool finds the plugin through the ``envpool.envs`` entry
point at ``import envpool``:

>>> import envpool
>>> envs = envpool.make("mysim.Catch-v0", num_envs=4, seed=0)
>>> envs.reset()[0].shape
(4, 10, 5)
>>> envs.close()

This module must not import envpool at import time: envpool imports it while it is itself
being imported.
"""

import os

# The C++ plugin, built by CMakeLists.txt into this package (envpool_add_plugin names it _mysim.so).
PLUGIN_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_mysim.so")
