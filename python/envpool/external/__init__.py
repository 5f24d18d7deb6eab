"""External episodes: environments that run their own loop and ask for actions.

The trainer side, :func:`serve`, is a pool like ``envpool.make``'s: the C++ core's protocol
checks, action validation and batching, with an external executor
(cpp/core/external_executor.h) whose slots (env ids) hold client episodes. A server thread
receives the clients' requests (ZeroMQ + msgpack, docs/external_protocol.md; the socket and
its bounds are :mod:`envpool.external.transport`'s), completes each episode's rows in the core, and
answers ``get_action`` with the action the trainer ``send()``s. :class:`ExternalEnv` runs the
same calls in-process (over a Unix socket in a private directory) for RLlib-style ``run()``
loops.

Modules: ``serve`` (:func:`serve`, the trainer's vector env), ``pool`` (the core pool the front
end drives), ``server`` (the server thread), ``sessions`` (clients and episodes), ``wire`` /
``transport`` / ``zmtp`` (the protocol, the socket, the frames), ``client``
(:class:`PolicyClient`), ``env`` (:class:`ExternalEnv`), ``options`` (serve()'s arguments).
"""

from envpool.external.client import PolicyClient
from envpool.external.env import ExternalEnv
from envpool.external.serve import ExternalVectorEnv, serve
from envpool.external.wire import ExternalError

__all__ = ["ExternalEnv", "ExternalError", "ExternalVectorEnv", "PolicyClient", "serve"]
