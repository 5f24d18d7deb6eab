"""The server thread of an external pool: it reads the clients' requests off the socket
(:mod:`envpool.external.transport`), keeps their episodes (:mod:`envpool.external.sessions`),
completes each episode's rows in the core and sends the clients the trainer's answers."""

from __future__ import annotations

import hmac
import math
import os
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from envpool.external import wire as _wire
from envpool.external.sessions import Client, EpisodeRecord, Refused, Sessions
from envpool.external.transport import Conn, StreamTransport
from envpool.external.wire import brief

# Requests of one episode queued while its last row waits for the trainer.
MAX_QUEUED = 16
# Requests the server thread reads before it answers the trainer's sends again (measured on
# the pipelined bench row: 1024 beats 64 and 16, whose extra polls cost more than they save).
BURST = 1024


class Replies:
    """What the server sends back: one msgpack header (echoing the request id) and frames."""

    def __init__(self, pack: Callable[[Any], bytes], send: Callable[..., None]):
        self.pack, self._send = pack, send

    def reply(self, to: tuple[bytes, Any], header: dict, *frames: bytes) -> None:
        self._send(to[0], self.pack({"rid": to[1], **header}), *frames)

    def error(self, to: tuple[bytes, Any], code: str, message: str) -> None:
        if len(message) > 300:  # ours are shorter; whatever quotes input stays bounded
            message = message[:297] + "..."
        self.reply(to, {"ok": False, "code": code, "error": message})


class EpisodeRows:
    """Turns an episode's requests into its rows in the core: an observation (with the client's
    own action, for log_action) completes the episode's slot row, end_episode its last one;
    rewards and infos of log_returns add up until the next row."""

    def __init__(self, core: Any, sessions: Sessions, rows: _wire.RowBytes, out: Replies, max_frame_bytes: int):
        self._core, self._sessions, self._rows, self._out = core, sessions, rows, out
        self._max_frame_bytes = max_frame_bytes

    def apply(self, ep: EpisodeRecord, item: tuple) -> None:
        op, to, obs, action, reward, info, truncated = item
        if op == "log_returns":
            self._add_returns(ep, reward, info)
            self._out.reply(to, {"ok": True})
            return
        if op == "end_episode":
            self.end(ep, obs, truncated)
            if to is not None:
                self._out.reply(to, {"ok": True})
            return
        self.complete(ep, obs, action, False, False)
        if op == "get_action":
            ep.reply_to = to
        else:
            self._out.reply(to, {"ok": True})

    def _add_returns(self, ep: EpisodeRecord, reward: float, info: dict | None) -> None:
        """Adds a log_returns to the episode's next row, or refuses it whole: the sum must stay
        finite, and the merged info must pack into ``max_frame_bytes`` (as if sent at once)."""
        total = ep.reward + reward
        if not math.isfinite(total):
            raise Refused(
                "bad_request",
                f"the rewards logged since the episode's last row would add up to {total} "
                "(the sum must stay finite); nothing was added",
            )
        if info:
            merged = {**ep.info, **info} if ep.info else info
            size = len(self._out.pack(merged))
            if size > self._max_frame_bytes:
                raise Refused(
                    "too_large",
                    f"the info logged since the episode's last row would pack into {size} "
                    f"bytes, over max_frame_bytes={self._max_frame_bytes}; nothing was added",
                )
            ep.info = merged
        ep.reward = total

    def complete(self, ep: EpisodeRecord, obs: bytes, action: bytes | None, terminated: bool, truncated: bool) -> None:
        self._sessions.publish(ep)
        logged = action is not None
        self._core.ext_complete(
            ep.slot,
            [obs],
            [action if logged else self._rows.no_action, self._rows.logged[logged]],
            ep.reward,
            terminated,
            truncated,
        )
        ep.reward, ep.info, ep.last_obs, ep.state = 0.0, None, obs, "trainer"

    def end(self, ep: EpisodeRecord, obs: bytes | None, truncated: bool) -> None:
        """Ends an episode whose last row is answered (or that has none): a terminal row, or -
        with no row yet - just its slot back."""
        self._sessions.close_episode(ep)
        if ep.state == "new":
            self._sessions.by_slot[ep.slot] = None
            self._core.ext_release(ep.slot)
            return
        self.complete(ep, obs if obs is not None else ep.last_obs, None, not truncated, truncated)


class ExternalServer:
    """Serves ``source`` (serve()'s checked arguments) into ``core`` (the external-slot pool)
    from a thread of its own, started by the constructor; :meth:`stop` ends it."""

    def __init__(self, core: Any, source: Any, zmq: Any, msgpack: Any):
        self.core, self.source = core, source
        self.sessions = Sessions(source.max_episodes)
        self.stopping = False
        self._zmq = zmq
        self._unpack = msgpack.unpackb
        pack = msgpack.Packer(use_bin_type=True).pack
        self._stop_fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        try:
            self.transport = StreamTransport(
                zmq,
                source.endpoint,
                max_frame_bytes=source.max_frame_bytes,
                max_message_bytes=source.max_message_bytes,
                max_send_queue=source.max_send_queue,
                on_close=self._detach,
            )
        except BaseException:
            os.close(self._stop_fd)
            raise
        try:
            endpoint = self.transport.endpoint
            self.address = endpoint[len("tcp://") :] if endpoint.startswith("tcp://") else endpoint
            core.send_reset(None, None, None, False)  # every slot starts free ...
            core.ext_take_answers()  # ... as soon as this thread has taken the answers
        except BaseException:
            self.transport.sock.close(0)
            os.close(self._stop_fd)
            raise
        self._out = Replies(pack, self.transport.send)
        rows = _wire.RowBytes(pack, source.action_spec)
        self._answer_bytes = (rows.action_bytes, rows.answer_head, rows.answer_tail)
        self._rows = EpisodeRows(core, self.sessions, rows, self._out, source.max_frame_bytes)
        self._thread = threading.Thread(target=self._serve, name="envpool-external-server", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Tells the clients (their waiting calls fail with code ``closed``) and joins the thread."""
        self.stopping = True
        os.eventfd_write(self._stop_fd, 1)
        self._thread.join()
        os.close(self._stop_fd)

    def stats(self) -> dict[str, int]:
        conns = list(self.transport.conns.values())
        return {
            "connections": len(conns),
            "authenticated": sum(c.client is not None for c in conns),
            **self.sessions.stats(),
            "dropped_replies": self.transport.dropped_replies,
        }

    # -- the loop ------------------------------------------------------------------------------

    def _serve(self) -> None:
        zmq, transport = self._zmq, self.transport
        poller = zmq.Poller()
        poller.register(transport.sock, zmq.POLLIN)
        event_fd = self.core.ext_event_fd
        poller.register(event_fd, zmq.POLLIN)
        poller.register(self._stop_fd, zmq.POLLIN)
        check_every = min(0.25, self.source.client_timeout / 4)
        next_check = time.monotonic() + check_every
        try:
            while True:
                ready = dict(poller.poll(int(check_every * 1000) + 1))
                if self._stop_fd in ready:
                    break
                if event_fd in ready:
                    self._answer()
                if transport.sock in ready:  # then answer the trainer's sends, then read more
                    transport.read(self._handle, self._too_large, BURST)
                now = time.monotonic()
                if now >= next_check:
                    next_check = now + check_every
                    for client in self.sessions.silent_since(now - self.source.client_timeout):
                        self._drop_client(client)
                    transport.expire(now, self.source.client_timeout)
        finally:
            self._shutdown()

    def _shutdown(self) -> None:
        notice = {"ok": False, "code": "closed", "error": "the server closed"}
        for client in self.sessions.clients.values():
            for ep in client.episodes.values():
                if ep.reply_to is not None:
                    self._out.reply(ep.reply_to, notice)
                for item in ep.queue:
                    if item[1] is not None:
                        self._out.reply(item[1], notice)
        self.transport.shutdown(self._out.pack({"rid": None, **notice}))

    # -- requests ------------------------------------------------------------------------------

    def _handle(self, conn: Conn, frames: list[bytes]) -> None:
        to: tuple[bytes, Any] = (conn.id, None)
        try:
            header = self._unpack(frames[0], raw=False)
        except Exception as err:  # msgpack raises several types for malformed data
            self._out.error(to, "bad_request", f"the header frame is not msgpack: {type(err).__name__}")
            return
        if type(header) is not dict:
            self._out.error(to, "bad_request", "the header frame must be a msgpack map")
            return
        rid = header.get("rid")
        if not _wire.valid_rid(rid):  # replies echo it: its size is bounded
            self._out.error(
                to, "bad_request", f"rid must be nil, an integer or a str/bin of at most {_wire.MAX_RID_LEN} items"
            )
            return
        to = (conn.id, rid)
        op = header.get("op")
        if type(op) is not str:  # an array or map would not even hash
            self._out.error(to, "bad_request", f"op must be a str (the request's name), got {brief(op)}")
            return
        client = conn.client
        try:
            if op == "hello":
                self._hello(conn, to, header)
                return
            if client is None:
                # Nothing but hello is read before a connection authenticated: no episode,
                # space or id leaks to it.
                self._out.error(to, "unauthenticated", "send hello (with the server's token) first")
                return
            client.last_seen = time.monotonic()
            version = header.get("v")
            if op == "get_action" and len(frames) == 2 and type(version) is int and version == _wire.VERSION:
                # The hot path (a get_action for an episode whose last row was answered), with
                # the same checks and errors as the general path below.
                eid = header.get("episode_id")
                ep = client.episodes.get(eid) if type(eid) is str else None
                if ep is not None and ep.state != "trainer" and not ep.queue:
                    _wire.check_array("obs", header.get("obs"), frames[1], self.source.obs_spec)
                    self._rows.complete(ep, frames[1], None, False, False)
                    ep.reply_to = to
                    return
            if op == "ping":
                return
            if op == "bye":
                self._drop_client(client)
                return
            _wire.check_version(version)
            if op == "start_episode":
                self._start(client, to, header)
                return
            if op not in _wire.ARRAY_FRAMES:
                raise Refused("bad_request", f"unknown op {brief(op)}")
            ep = self.sessions.episode(client, header.get("episode_id"))
            item = (op, to) + _wire.parse_request(op, header, frames[1:], self.source.obs_spec, self.source.action_spec)
            if ep.state == "trainer" or ep.queue:
                if op == "log_returns" and not ep.queue:
                    self._rows.apply(ep, item)  # belongs to the next row either way
                    return
                if len(ep.queue) >= MAX_QUEUED:
                    raise Refused("busy", f"episode {brief(ep.id)} has {MAX_QUEUED} calls waiting for the trainer")
                ep.queue.append(item)
                return
            self._rows.apply(ep, item)
        except Refused as err:
            self._out.error(to, err.code, err.message)
        except ValueError as err:
            self._out.error(to, "bad_request", str(err))
        except Exception as err:  # a bug of ours: the caller hears of it, the server goes on
            self._out.error(to, "internal", f"{type(err).__name__}: {brief(str(err))}")

    def _too_large(self, conn: Conn, item) -> None:
        """A message over the size bounds, dropped as it arrived: its sender hears why (with its
        request id when its header frame was within bounds)."""
        rid = None
        if item.header is not None:
            try:
                header = self._unpack(item.header, raw=False)
            except Exception:
                header = None
            if type(header) is dict and _wire.valid_rid(header.get("rid")):
                rid = header.get("rid")
        self._out.error((conn.id, rid), "too_large", item.reason)

    def _hello(self, conn: Conn, to, header: dict) -> None:
        source = self.source
        token = header.get("token")
        if token is not None and type(token) is not str:
            self._detach(conn)  # as after a wrong token
            self._out.error(to, "bad_request", f"token must be a str or nil, got {brief(token)}")
            return
        if source.token is not None and not (
            isinstance(token, str) and hmac.compare_digest(token.encode(), source.token.encode())
        ):
            self._detach(conn)
            self._out.error(to, "auth", "wrong token")
            return
        try:
            _wire.check_version(header.get("v", _wire.VERSION))
        except ValueError as err:
            self._out.error(to, "bad_request", str(err))
            return
        client_id = header.get("client")
        if not isinstance(client_id, str) or not client_id or len(client_id) > 256:
            self._out.error(to, "bad_request", "hello needs a 'client' id (a str of 1 to 256 characters)")
            return
        if conn.client is not self.sessions.clients.get(client_id):
            self._detach(conn)
        client = self.sessions.client(client_id)
        conn.client = client
        client.conns.add(conn)
        client.last_seen = time.monotonic()
        self._out.reply(
            to,
            {
                "ok": True,
                "v": _wire.VERSION,
                "obs": _wire.describe(source.obs_spec),
                "action": _wire.describe(source.action_spec),
                "max_frame_bytes": source.max_frame_bytes,
                "max_message_bytes": source.max_message_bytes,
                "client_timeout": source.client_timeout,
            },
        )

    def _detach(self, conn: Conn) -> None:
        """The connection no longer speaks for its client (it left, or said another hello)."""
        client, conn.client = conn.client, None
        conn.since = time.monotonic()  # it has client_timeout to authenticate again
        if client is None:
            return
        client.conns.discard(conn)
        self.sessions.forget_if_idle(client)

    def _start(self, client: Client, to, header: dict) -> None:
        eid = header.get("episode_id")
        eid = self.sessions.check_new_id(client, uuid.uuid4().hex if eid is None else eid)
        training = header.get("training_enabled", True)
        if not isinstance(training, bool):
            raise Refused("bad_request", "training_enabled must be a bool")
        limit = self.source.max_episodes_per_client
        if len(client.episodes) >= limit:
            raise Refused(
                "too_many_episodes", f"this client holds max_episodes_per_client={limit} open episodes (end one first)"
            )
        slot = self.core.ext_acquire()
        if slot < 0:
            raise Refused(
                "too_many_episodes",
                f"all max_episodes={self.source.max_episodes} slots hold episodes "
                "(or wait for the trainer to answer their last row)",
            )
        self.sessions.open(client, eid, slot, training)
        self._out.reply(to, {"ok": True, "episode_id": eid})

    # -- answers ------------------------------------------------------------------------------

    def _answer(self) -> None:
        slots, stepped, (actions,) = self.core.ext_take_answers()
        if self.stopping:
            return
        # One bytes object for every row's action, sliced per reply (no numpy scalar per row).
        rows = actions.tobytes()
        rb, head, tail = self._answer_bytes
        pack, send = self._out.pack, self.transport.send
        by_slot = self.sessions.by_slot
        stepped = stepped.tolist()
        for i, s in enumerate(slots.tolist()):
            ep = by_slot[s]
            if not stepped[i]:
                by_slot[s] = None  # the episode's last row was answered: the slot is free
                continue
            if ep is None:
                continue
            if ep.reply_to is not None:
                conn, rid = ep.reply_to
                send(conn, head + pack(rid) + tail, rows[i * rb : (i + 1) * rb])
                ep.reply_to = None
            ep.state = "client"
            while ep.queue and ep.state != "trainer" and ep.open:
                item = ep.queue.popleft()
                try:
                    self._rows.apply(ep, item)
                except Refused as err:  # a queued log_returns over its bounds
                    if item[1] is not None:
                        self._out.error(item[1], err.code, err.message)

    def _drop_client(self, client: Client) -> None:
        """A client left (bye) or went silent: its episodes end as truncated."""
        self.sessions.remove(client)
        for conn in list(client.conns):
            self._detach(conn)
        for ep in list(client.episodes.values()):
            ep.reply_to = None  # nobody waits any more
            ep.queue.clear()
            if ep.state == "trainer":
                ep.queue.append(("end_episode", None, None, None, 0.0, None, True))
            else:
                self._rows.end(ep, None, True)
