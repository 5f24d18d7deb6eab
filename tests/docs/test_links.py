"""Every relative link in the README, docs/*.md and bench's pages leads somewhere: the file
exists and, for `page.md#anchor`, the page has a heading with that anchor (GitHub's slugs)."""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH_PAGES = sorted(p for p in (ROOT / "bench").rglob("*.md") if "results" not in p.relative_to(ROOT / "bench").parts)
PAGES = [ROOT / "README.md", *BENCH_PAGES, *sorted((ROOT / "docs").glob("*.md"))]  # bench/results: run outputs
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def _prose(text: str) -> str:
    """The page without fenced code blocks and code spans (links there are not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: pathlib.Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        match = re.match(r"#{1,6}\s+(.*)", line)
        if match:
            slug = _slug(match.group(1))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _links(page: pathlib.Path) -> list[str]:
    return [
        target for target in LINK.findall(_prose(page.read_text())) if not re.match(r"[a-z]+:", target)
    ]  # http:, https:, mailto:


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    assert page.exists(), page
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_every_docs_page_is_listed_in_the_readme():
    listed = {(ROOT / target.partition("#")[0]).resolve() for target in _links(ROOT / "README.md")}
    missing = [p.name for p in PAGES if p.parent.name == "docs" and p.resolve() not in listed]
    assert not missing, f"README.md's Documentation list lacks {missing}"


def test_the_checker_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[ok](page.md#title) [bad](nowhere.md) [anchor](page.md#nope)\n`[code](ignored.md)`\n")
    assert _links(page) == ["page.md#title", "nowhere.md", "page.md#nope"]
    assert _anchors(page) == {"title"}
