"""The docs site and the facts the docs state (issue 36 item 9): every page is in the site's nav,
the SDK ABI version and the build's step count are the real ones, and the site builds strictly
where its tools are installed (CI's `docs` step, scripts/ci_docs.sh, always builds it)."""

from __future__ import annotations

import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MKDOCS_YML = ROOT / "mkdocs.yml"


def _nav_pages() -> list[str]:
    """The .md files the nav of mkdocs.yml lists (its entries are `- page.md` or `- Title: page.md`)."""
    nav = MKDOCS_YML.read_text().split("\nnav:\n", 1)[1]
    return re.findall(r"^\s+- (?:[^:\n]+: )?([\w/.-]+\.md)\s*$", nav, re.M)


def test_every_docs_page_is_in_the_sites_nav_once():
    pages = _nav_pages()
    assert len(pages) == len(set(pages)), f"listed twice: {sorted(p for p in pages if pages.count(p) > 1)}"
    on_disk = {p.name for p in (ROOT / "docs").glob("*.md")}
    # README.md and bench/'s pages (scripts/mkdocs_hooks.py's GENERATED)
    generated = {"index.md", "benchmarks.md", "benchmarks/history.md"}
    generated |= {f"benchmarks/{d}.md" for d in ("core", "envs", "runner", "external", "tools")}
    assert set(pages) == on_disk | generated, (
        f"missing from the nav: {sorted(on_disk | generated - set(pages))}; "
        f"not a page: {sorted(set(pages) - on_disk - generated)}"
    )


def test_docs_state_the_real_sdk_abi_version():
    abi = re.search(r"#define ENVPOOL_ABI_VERSION (\d+)", (ROOT / "cpp/core/version.h").read_text()).group(1)
    sdk = (ROOT / "docs/cpp_sdk.md").read_text()
    stated = re.findall(r"SDK ABI (\d+)", sdk)
    stated += re.findall(r"`ENVPOOL_ABI_VERSION` from `core/version.h`, now (\d+)", sdk)
    assert stated and set(stated) == {abi}, f"docs/cpp_sdk.md says ABI {sorted(set(stated))}, cpp/core/version.h {abi}"


def _build_dirs() -> list[pathlib.Path]:
    return sorted(
        p.parent for p in (ROOT / "build").glob("cp3*-*/build.ninja")
    )  # pip's build folders (build/<wheel tag>), not build/cpp-tests


@pytest.mark.skipif(not _build_dirs() or shutil.which("ninja") is None, reason="no pip build tree here")
def test_docs_state_the_builds_real_step_count():
    """The step counts README.md and docs/install.md show (`[3/27] ...`) are those of the build
    `pip install .` made here (Ninja's commands for the default targets)."""
    out = subprocess.run(["ninja", "-C", str(_build_dirs()[-1]), "-t", "commands"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    steps = len(out.stdout.splitlines())
    for page in ("README.md", "docs/install.md"):
        stated = {int(n) for n in re.findall(r"\[\d+/(\d+)\]", (ROOT / page).read_text())}
        assert stated == {steps}, f"{page} shows [k/{sorted(stated)}] steps, the build has {steps}"


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="the docs extra is not installed")
def test_the_site_builds_strictly(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    assert (tmp_path / "site/reference/index.html").read_text().count("doc-heading") > 20  # the API reference


def test_doctests_become_code_blocks():
    pytest.importorskip("griffe")
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from griffe_doctests import fence_doctests
    finally:
        sys.path.pop(0)
    text = 'Steps.\n\n>>> envs.recv()[4]["env_id"]\narray([0])\n\nMore.'
    assert fence_doctests(text) == 'Steps.\n\n\n```pycon\n>>> envs.recv()[4]["env_id"]\narray([0])\n```\n\nMore.'
