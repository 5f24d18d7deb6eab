"""The docstring examples of the package's main modules run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    ["envpool", "envpool.tasks", "envpool.registration", "envpool.frontends.vector_env", "envpool.frontends.dm"],
)
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
