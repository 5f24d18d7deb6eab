"""What the tests share: envs for process pools (``py_envs``), twin vector envs for parity
checks (``twin_envs``), child processes (``subprocs``) and an external-episode trainer
(``external``). ``tests/`` is on ``sys.path`` under pytest (its rootdir conftest), so tests and
the snippets they run in child processes (after ``sys.path.insert(0, TESTS_DIR)``) import them
as ``support.<module>``."""

import os

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
