"""The life of an object that owns threads, processes or sockets (a pool, a client, a runner
group): one explicit state instead of ad-hoc flags, as gymnasium's vector envs keep theirs."""

from __future__ import annotations

import enum


class Lifecycle(enum.Enum):
    OPEN = "open"  # usable
    CLOSING = "closing"  # close has begun (or new calls are refused): calls fail, running ones end
    CLOSED = "closed"  # everything it owned is released; close() again does nothing
