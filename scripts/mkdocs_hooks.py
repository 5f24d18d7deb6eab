"""mkdocs hooks (mkdocs.yml): the site shows the same Markdown files as GitHub does.

README.md becomes the home page (index.md) and bench/README.md the benchmarks page
(benchmarks.md); their links, written for the repository's layout (``docs/x.md``,
``../docs/x.md``, ``bench/README.md``), are pointed at the site's pages, as are the docs pages'
links to ``../bench/README.md``. Nothing is copied into docs/, so there is one source per page.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
# site page -> the repository file it shows
GENERATED = {"index.md": ROOT / "README.md", "benchmarks.md": ROOT / "bench" / "README.md"}
# link prefixes as the repository has them -> as the site has them, per page
_REWRITES = {
    "index.md": [("docs/", ""), ("bench/README.md", "benchmarks.md")],
    "benchmarks.md": [("../docs/", "")],
}
_DOCS_PAGE = [("../bench/README.md", "benchmarks.md")]
_LINK = re.compile(r"(\]\()([^)\s]+)")


def on_files(files: Files, config) -> Files:
    for uri, path in GENERATED.items():
        if files.get_file_from_path(uri) is not None:
            raise ValueError(f"docs/{uri} exists, but the site makes {uri} from {path.relative_to(ROOT)}")
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    rewrites = _REWRITES.get(page.file.src_uri, _DOCS_PAGE)

    def fix(match: re.Match) -> str:
        target = match.group(2)
        for old, new in rewrites:
            if target.startswith(old):
                return match.group(1) + new + target[len(old) :]
        return match.group(0)

    return _LINK.sub(fix, markdown)
