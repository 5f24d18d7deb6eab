"""Helpers shared by the external-episode tests."""

from __future__ import annotations

import threading

import numpy as np


def answer_in_background(server, policy=lambda info: np.zeros(len(info["env_id"]), np.int64), stop=None):
    """Runs a trainer loop in a thread until `stop` is set; returns (thread, rows, stop)."""
    stop = stop or threading.Event()
    rows = []

    def loop():
        while not stop.is_set():
            try:
                result = server.recv(timeout=0.05)
            except TimeoutError:
                continue
            actions = policy(result[4])
            rows.append((result, actions))
            server.send(actions, result[4]["env_id"])

    t = threading.Thread(target=loop, daemon=True)
    t.start()
    return t, rows, stop
