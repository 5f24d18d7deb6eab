"""envpool: many RL environments stepped in parallel by a C++ thread pool.

>>> import envpool
>>> envs = envpool.make("CartPole-v1", num_envs=4, seed=0)
>>> obs, info = envs.reset()
>>> obs.shape
(4, 4)
>>> obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
>>> sorted(info)  # CartPole has no info keys of its own; the rows' envs and episode steps
['elapsed_step', 'env_id']
>>> envs.close()

The distribution is ``envpool-ng`` (``pip install envpool-ng``); PyPI's ``envpool`` is another
project with the same import name (see envpool._distribution).
"""

# First: PyPI's unrelated `envpool` writes into this same folder; say so before importing
# modules it may have overwritten (envpool._distribution).
from envpool._distribution import DISTRIBUTION as _DISTRIBUTION  # noqa: F401 - the marker _distribution looks for
from envpool._distribution import check_on_import as _check_on_import

_check_on_import()

from envpool.errors import EnvError
from envpool.external import ExternalEnv, serve
from envpool.external.client import PolicyClient
from envpool.external.wire import ExternalError
from envpool.frontends.gym_env import EnvPoolGymEnv
from envpool.frontends.sources import NativeSource, PoolOptions
from envpool.frontends.vector_env import EnvPoolVectorEnv
from envpool.plugins import load_installed_plugins, load_plugin
from envpool.process.pool import make_python
from envpool.protocol import DMEnvPool, EnvPool, EnvSpec, GymnasiumEnvPool
from envpool.registration import make, make_dm, make_gym, make_gymnasium, register_envs
from envpool.runner import EnvRunner, Episode, RunnerCallbacks, TimeMajorBatch, episodes_to_batch
from envpool.tasks import list_all_envs, make_spec

__version__ = "0.1.0"

__all__ = [
    # the reference EnvPool's typing interface, in its order (envpool.protocol)
    "EnvSpec",
    "EnvPool",
    "DMEnvPool",
    "GymnasiumEnvPool",
    "EnvError",
    "EnvPoolGymEnv",
    "EnvPoolVectorEnv",
    "NativeSource",
    "PoolOptions",
    "EnvRunner",
    "Episode",
    "RunnerCallbacks",
    "TimeMajorBatch",
    "ExternalEnv",
    "ExternalError",
    "PolicyClient",
    "__version__",
    "episodes_to_batch",
    "list_all_envs",
    "load_plugin",
    "make",
    "make_dm",
    "make_gym",
    "make_gymnasium",
    "make_python",
    "make_spec",
    "register_envs",
    "serve",
]

register_envs()
load_installed_plugins()  # C++ env plugins of installed packages (envpool.plugins)
