"""Which tasks render: shared by the front ends' render tests and the CLI's --record tests."""

from __future__ import annotations

import envpool


def renders(task):
    """Whether `task` renders; None where its run-time library is missing here (make_spec says
    what to install: dm_control's suite without dm-control, in CI's extras step)."""
    try:
        return envpool.make_spec(task).render_shape is not None
    except RuntimeError as err:
        if "pip install" in str(err):
            return None
        raise
