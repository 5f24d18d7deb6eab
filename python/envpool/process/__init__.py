"""Python envs in worker processes: :func:`make_python` (docs/python_envs.md, docs/process_pools.md).

- ``pool``: :func:`make_python`, its arguments and the :class:`ProcessPool` the front ends drive;
- ``supervisor``: starts, watches, replaces and ends the worker processes;
- ``worker``: one worker's loop (steps its envs, stages results in shared memory);
- ``results``: a batch's rows as gymnasium returns them (variable-size info values).
"""

from envpool.process.pool import make_python

__all__ = ["make_python"]
