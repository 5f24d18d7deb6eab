"""mkdocs hooks (mkdocs.yml): the site shows the same Markdown files as GitHub does.

README.md becomes the home page (index.md) and bench/'s pages the benchmarks pages
(benchmarks.md and benchmarks/*.md); every page's relative links, written for the repository's
layout (``docs/x.md``, ``../docs/x.md``, ``bench/README.md``, ``../history.md``), are pointed at
the site's pages. Nothing is copied into docs/, so there is one source per page.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# site page -> the repository file it shows
GENERATED = {
    "index.md": ROOT / "README.md",
    "benchmarks.md": ROOT / "bench" / "README.md",
    **{f"benchmarks/{d}.md": ROOT / "bench" / d / "README.md" for d in ("core", "envs", "runner", "external", "tools")},
    "benchmarks/history.md": ROOT / "bench" / "history.md",
}
_SITE_PAGE = {path: uri for uri, path in GENERATED.items()}  # repository file -> site page
_LINK = re.compile(r"(\]\()([^)\s]+)")


def on_files(files: Files, config) -> Files:
    for uri, path in GENERATED.items():
        if files.get_file_from_path(uri) is not None:
            raise ValueError(f"docs/{uri} exists, but the site makes {uri} from {path.relative_to(ROOT)}")
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def site_target(page_uri: str, target: str) -> str:
    """A relative link of the page the site shows as ``page_uri``, as the site needs it: the
    repository file it leads to, found from the page's own file, as that file's site page,
    relative to ``page_uri``. Links to files the site does not show stay as they are."""
    path, sep, anchor = target.partition("#")
    if not path or re.match(r"[a-z]+:", path):
        return target
    source = GENERATED.get(page_uri, DOCS / page_uri)
    dest = (source.parent / path).resolve()
    if dest in _SITE_PAGE:
        uri = _SITE_PAGE[dest]
    elif dest.is_relative_to(DOCS):
        uri = dest.relative_to(DOCS).as_posix()
    else:
        return target
    return posixpath.relpath(uri, posixpath.dirname(page_uri) or ".") + sep + anchor


def on_page_markdown(markdown: str, page, config, files) -> str:
    return _LINK.sub(lambda m: m.group(1) + site_target(page.file.src_uri, m.group(2)), markdown)
