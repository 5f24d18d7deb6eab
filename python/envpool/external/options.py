"""serve()'s arguments, checked (envpool.external.serve documents them)."""

from __future__ import annotations

from envpool.external import wire as _wire
from envpool.frontends.seeding import check_int
from envpool.frontends.sources import PoolOptions


def _endpoint(address: str) -> str:
    if address.startswith("inproc://"):
        raise ValueError(
            f"inproc:// endpoints are not supported (got {address!r}): the server reads raw "
            "connections; use ipc:///some/path for clients on the same host"
        )
    return _wire.endpoint(address)


def _pool_options(max_episodes, batch_size) -> PoolOptions:
    """The pool's options (its slots are the envs; nothing to seed), checked by the core as every
    pool's are, its messages naming serve()'s argument."""
    try:
        return PoolOptions(num_envs=max_episodes, batch_size=batch_size, seed=None)
    except (TypeError, ValueError) as exc:
        raise type(exc)(str(exc).replace("num_envs", "max_episodes")) from None


class ExternalOptions:
    """serve()'s arguments, checked."""

    def __init__(
        self,
        observation_space,
        action_space,
        *,
        address,
        batch_size,
        max_episodes,
        wait_ms,
        token,
        client_timeout,
        max_frame_bytes,
        max_message_bytes=None,
        max_send_queue=None,
        max_episodes_per_client=None,
        name="external",
    ):
        _wire.import_zmq_msgpack()
        self.obs_spec = _wire.single_leaf(observation_space, "obs")
        self.action_spec = _wire.single_leaf(action_space, "action")
        self.observation_space, self.action_space = observation_space, action_space
        self.options = _pool_options(max_episodes, batch_size)
        self.max_episodes, self.batch_size = self.options.num_envs, self.options.batch_size
        if isinstance(wait_ms, bool) or not isinstance(wait_ms, (int, float)) or not wait_ms >= 0:
            raise ValueError(f"wait_ms must be a number >= 0, got {wait_ms!r}")
        self.wait_ms = float(wait_ms)
        if token is not None and (not isinstance(token, str) or not token):
            raise ValueError("token must be a non-empty str or None")
        self.token = token
        if isinstance(client_timeout, bool) or not isinstance(client_timeout, (int, float)) or not client_timeout > 0:
            raise ValueError(f"client_timeout must be a positive number of seconds, got {client_timeout!r}")
        self.client_timeout = float(client_timeout)
        self._check_sizes(max_frame_bytes, max_message_bytes)
        if max_episodes_per_client is None:
            self.max_episodes_per_client = self.max_episodes
        else:
            self.max_episodes_per_client = check_int("max_episodes_per_client", max_episodes_per_client, 1)
            if self.max_episodes_per_client > self.max_episodes:
                raise ValueError(
                    f"max_episodes_per_client ({self.max_episodes_per_client}) must not exceed "
                    f"max_episodes ({self.max_episodes})"
                )
        if max_send_queue is None:
            self.max_send_queue = max(1000, 4 * self.max_episodes_per_client)
        else:
            self.max_send_queue = check_int("max_send_queue", max_send_queue, 1)
        self.endpoint = _endpoint(address)
        self.name = name

    def _check_sizes(self, max_frame_bytes, max_message_bytes) -> None:
        obs, act = _wire.row_bytes(self.obs_spec), _wire.row_bytes(self.action_spec)
        if max_frame_bytes is None:
            self.max_frame_bytes = 65536 + 4 * (obs + act)
        else:
            self.max_frame_bytes = check_int("max_frame_bytes", max_frame_bytes, 1024)
            if self.max_frame_bytes < max(obs, act):
                raise ValueError(
                    f"max_frame_bytes ({self.max_frame_bytes}) is smaller than one observation "
                    f"({obs} bytes) or action ({act} bytes): no request could carry it"
                )
        if max_message_bytes is None:
            self.max_message_bytes = self.max_frame_bytes + obs + act
        else:
            self.max_message_bytes = check_int("max_message_bytes", max_message_bytes, 1024)
            if self.max_message_bytes < obs + act + 1024:
                raise ValueError(
                    f"max_message_bytes ({self.max_message_bytes}) must hold an observation, an action "
                    f"and a 1 KiB header ({obs + act + 1024} bytes)"
                )
