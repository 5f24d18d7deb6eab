"""The core pool of an external server: slots (env ids) that hold client episodes, with the
methods the front ends call (``send``, ``recv``, ``step``, ``close``, ...).

The C++ core (cpp/core/external_executor.h) does the protocol checks, action validation and
batching; :class:`~envpool.external.server.ExternalServer` completes the slots' rows from the
clients' requests and sends them the actions the trainer ``send()``s.
"""

from __future__ import annotations

from typing import Any

from envpool import _core
from envpool.external import wire as _wire
from envpool.external.server import ExternalServer
from envpool.frontends.sources import CorePoolAdapter
from envpool.lifecycle import Lifecycle


class ExternalPool(CorePoolAdapter):
    """Made by :class:`~envpool.external.serve.ExternalSource` when a front end opens it:
    ``send``/``recv``/``step`` as every :class:`CorePoolAdapter`'s, each batch's info completed
    with what the server knows of its episodes (ids, clients, logged actions)."""

    def __init__(self, source: Any):
        zmq, msgpack = _wire.import_zmq_msgpack()
        self.source = source
        action_spec = source.action_spec
        spec = {
            "obs": [source.obs_spec],
            "action": [action_spec],
            "info": [
                {**action_spec, "name": "logged_action"},
                dict(name="_logged_action", dtype="bool", shape=[], low=[], high=[], discrete=False),
            ],
            "obs_is_tuple": False,
        }
        self.core = _core.ExternalPool(source.name, spec, source.options, source.wait_ms)
        self._state = Lifecycle.OPEN
        self.after_close: list = []  # callables run once close() stopped the server (ExternalEnv)
        try:
            self.server = ExternalServer(self.core, source, zmq, msgpack)
        except BaseException:
            self.core.close()
            raise
        self.address = self.server.address
        self._annotate = self.server.sessions.annotate

    def _finish(self, result: tuple, with_ids: bool) -> tuple:
        self._annotate(result[4])
        return result

    def send_reset(self, env_id, seeds, keep, wait_follows):
        raise RuntimeError("external episodes are started by clients (start_episode), not by reset(); use recv()")

    def render(self, env_id=None):
        raise ValueError("external episodes do not render here")

    def _no_state(self) -> Exception:
        return ValueError("external episodes do not expose their state")

    @property
    def closed(self) -> bool:
        return self._state is not Lifecycle.OPEN

    def close(self) -> None:
        """Tells the clients (their waiting calls fail with code ``closed``), stops the server
        thread and closes the core. Never hangs."""
        if self._state is not Lifecycle.OPEN:
            return
        self._state = Lifecycle.CLOSING
        self.server.stop()
        self.core.close()
        for fn in self.after_close:
            fn()
        self._state = Lifecycle.CLOSED
