"""The server's bookkeeping: clients, their open episodes, the ids of ended ones, and per slot
what ``recv()`` adds to the trainer's info (see :mod:`envpool.external.server`)."""

from __future__ import annotations

import collections
import itertools
import time
from typing import Any

import numpy as np

from envpool.external.transport import Conn
from envpool.external.wire import brief

# Ended episode ids remembered (over all clients), so that a late call names the episode as
# ended, not unknown, and its id is not started again.
ENDED_MEMORY = 65536


class Refused(Exception):
    """A request refused with an error ``code`` of the protocol (docs/external_protocol.md)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class Client:
    """A client: every connection that said hello with its id. Its episode ids are its own."""

    __slots__ = ("id", "number", "last_seen", "episodes", "conns")

    def __init__(self, client_id: str, number: int):
        self.id = client_id
        self.number = number  # the trainer's info["client_number"]
        self.last_seen = time.monotonic()
        self.episodes: dict[str, EpisodeRecord] = {}  # open ones, by the client's episode id
        self.conns: set[Conn] = set()


class EpisodeRecord:
    """One client episode in a slot (env id) of the pool."""

    __slots__ = ("id", "client", "slot", "training", "reward", "info", "last_obs", "state", "reply_to", "queue", "open")

    def __init__(self, episode_id: str, client: Client, slot: int, training: bool):
        self.id = episode_id
        self.client = client
        self.slot = slot
        self.training = training
        self.reward = 0.0  # logged since the last row
        self.info: dict | None = None
        self.last_obs: bytes | None = None
        self.state = "new"  # new (no row yet) | trainer (row unanswered) | client (answered)
        self.reply_to: tuple[bytes, Any] | None = None  # a get_action waiting for the trainer
        self.queue: collections.deque = collections.deque()
        self.open = True  # until end_episode (or its client left)


class Sessions:
    """Clients by id and their episodes; written by the server thread only. The per-slot arrays
    are read by the trainer's ``recv()`` (:meth:`annotate`): a slot's entries are written before
    its row is completed and stay until the trainer answers it (the slot cannot change hands)."""

    def __init__(self, num_slots: int):
        self.clients: dict[str, Client] = {}
        self._numbers = itertools.count()
        self._ended: collections.OrderedDict[tuple[str, str], None] = collections.OrderedDict()  # (client, episode)
        self.by_slot: list[EpisodeRecord | None] = [None] * num_slots
        self._eid = np.full(num_slots, None, dtype=object)
        self._client = np.zeros(num_slots, dtype=np.int64)
        self._training = np.zeros(num_slots, dtype=bool)
        self._info = np.full(num_slots, None, dtype=object)

    def client(self, client_id: str) -> Client:
        """The client of this id, made at its first hello."""
        client = self.clients.get(client_id)
        if client is None:
            client = self.clients[client_id] = Client(client_id, next(self._numbers))
        return client

    def forget_if_idle(self, client: Client) -> None:
        """A client left with no connection and no episode is forgotten at once."""
        if not client.conns and not client.episodes and self.clients.get(client.id) is client:
            del self.clients[client.id]

    def remove(self, client: Client) -> None:
        if self.clients.get(client.id) is client:
            del self.clients[client.id]

    def silent_since(self, limit: float) -> list[Client]:
        return [c for c in self.clients.values() if c.last_seen < limit]

    def check_new_id(self, client: Client, eid: Any) -> str:
        if not isinstance(eid, str) or not eid or len(eid) > 256:
            raise Refused("bad_request", f"episode_id must be a non-empty str of at most 256 chars, got {brief(eid)}")
        if eid in client.episodes or (client.id, eid) in self._ended:
            raise Refused("duplicate_episode", f"episode {brief(eid)} already exists")
        return eid

    def open(self, client: Client, eid: str, slot: int, training: bool) -> EpisodeRecord:
        ep = EpisodeRecord(eid, client, slot, training)
        client.episodes[eid] = ep
        self.by_slot[slot] = ep
        return ep

    def episode(self, client: Client, eid: Any) -> EpisodeRecord:
        """The client's own episode ``eid``: other clients' episodes are neither reachable nor
        told apart from ids that never existed."""
        if not isinstance(eid, str):
            raise Refused("bad_request", f"episode_id must be a str, got {brief(eid)}")
        ep = client.episodes.get(eid)
        if ep is None:
            if (client.id, eid) in self._ended:
                raise Refused("episode_ended", f"episode {brief(eid)} has ended")
            raise Refused("unknown_episode", f"no episode {brief(eid)} (start_episode first)")
        return ep

    def close_episode(self, ep: EpisodeRecord) -> None:
        """The episode is over for its client (its last row may still wait for the trainer)."""
        client = ep.client
        del client.episodes[ep.id]
        ep.open = False
        self._ended[(client.id, ep.id)] = None
        if len(self._ended) > ENDED_MEMORY:
            self._ended.popitem(last=False)

    def publish(self, ep: EpisodeRecord) -> None:
        """What the trainer's info shows for the episode's next row."""
        s = ep.slot
        self._eid[s] = ep.id
        self._client[s] = ep.client.number
        self._training[s] = ep.training
        self._info[s] = ep.info

    def annotate(self, info: dict) -> None:
        """Adds ``episode_id``, ``client_number``, ``training_enabled`` and ``client_info`` to a
        batch's info (the trainer's thread)."""
        ids = info["env_id"]
        info["episode_id"] = self._eid[ids]
        info["client_number"] = self._client[ids]
        info["training_enabled"] = self._training[ids]
        info["client_info"] = self._info[ids]

    def stats(self) -> dict[str, int]:
        clients = list(self.clients.values())
        return {"clients": len(clients), "episodes": sum(len(c.episodes) for c in clients)}
