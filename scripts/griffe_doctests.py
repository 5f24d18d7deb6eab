"""A griffe extension for the docs site (mkdocs.yml): docstrings written for ``help()`` and
doctest, shown as Markdown. Doctest examples (``>>>`` lines and their output, as
``python -m doctest`` reads them) become Python console code blocks (Markdown would otherwise
read ``recv()[4]["env_id"]`` as a link reference), and Sphinx roles (``:class:`X` ``) code."""

from __future__ import annotations

import re
from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    out: list[str] = []
    fence: str | None = None  # the open block's indent
    for line in text.split("\n"):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(">>>"):
            fence = line[: len(line) - len(stripped)]
            out += ["", f"{fence}```pycon"]
        elif fence is not None and not stripped:  # a blank line ends an example, as in doctest
            out.append(f"{fence}```")
            fence = None
        out.append(line)
    if fence is not None:
        out.append(f"{fence}```")
    return "\n".join(out)


_ROLE = re.compile(r":(?:class|func|meth|attr|mod|obj|exc|data):`~?([^`]+)`")


class DoctestFences(griffe.Extension):
    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(r"``\1``", fence_doctests(obj.docstring.value))
