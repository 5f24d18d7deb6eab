"""Which distribution the ``envpool/`` folder belongs to.

This project is distributed as ``envpool-ng`` but imports as ``envpool``, the import name of
PyPI's unrelated ``envpool`` (the reference EnvPool, sail-sg/envpool). pip installs two
distributions with one top-level package into the same ``site-packages/envpool/`` folder without
a word: the one installed last overwrites the files both ship (``__init__.py`` and
``registration.py``), and uninstalling either deletes those files from under the other. Nothing
else can tell the user, so ``import envpool`` (:func:`check_on_import`) and the ``envpool``
command (:func:`check_from_cli`) do:

* both installed, our files intact (``envpool-ng`` installed last): a ``RuntimeWarning``;
  everything works until either one is uninstalled or upgraded;
* some of our files overwritten by the other's, or deleted with it: an ``ImportError``.

Both say what happened and the pip commands that repair it. When the other project was
installed last, ``import envpool`` runs *its* ``__init__.py`` and none of our code; only the
``envpool`` command (whose modules the other project does not ship) can report that.

Cost at ``import envpool``: one look for an ``envpool-*.dist-info`` in the folder holding our
package (importlib.metadata caches the folder listing); files are hashed only when one is found.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import importlib.metadata
import pathlib

DISTRIBUTION = "envpool-ng"
OTHER_DISTRIBUTION = "envpool"
_PACKAGE = "envpool"


@dataclasses.dataclass(frozen=True)
class Clash:
    """``envpool-ng`` and PyPI's ``envpool`` both installed into ``folder``."""

    folder: pathlib.Path  # the site-packages folder that holds envpool/
    other_version: str
    ours_version: str | None  # None: no envpool-ng metadata in folder
    overwritten: tuple[str, ...]  # our files that now hold the other project's content
    missing: tuple[str, ...]  # our files that are gone (deleted by uninstalling the other one)

    @property
    def broken(self) -> bool:
        return bool(self.overwritten or self.missing)

    def explain(self) -> str:
        ours = f"{DISTRIBUTION} {self.ours_version}" if self.ours_version else DISTRIBUTION
        lines = [
            f"two distributions are installed into the same package folder {self.folder / _PACKAGE}: "
            f"{ours} (this project; it imports as `envpool`) and {OTHER_DISTRIBUTION} {self.other_version} "
            "(PyPI's unrelated reference EnvPool, which imports as `envpool` too). Both write envpool/, "
            "so whichever was installed last overwrote the other's files, and uninstalling or upgrading "
            "either one deletes files of the other."
        ]
        if self.overwritten:
            lines.append(f"Files of {DISTRIBUTION} overwritten by {OTHER_DISTRIBUTION}: {', '.join(self.overwritten)}.")
        if self.missing:
            lines.append(f"Files of {DISTRIBUTION} missing (deleted with the other one?): {', '.join(self.missing)}.")
        if not self.broken:
            lines.append(f"{DISTRIBUTION} was installed last and works for now.")
        lines.append(fix_commands())
        return "\n".join(lines)


def fix_commands() -> str:
    return (
        "Keep one of them per environment (a separate virtual environment for the other), uninstalling "
        "both first (uninstalling one deletes files the other needs, and pip does not reinstall a "
        "distribution it sees installed):\n"
        f"    pip uninstall -y {OTHER_DISTRIBUTION} {DISTRIBUTION}\n"
        f"    pip install {DISTRIBUTION}      (or `pip install .` in a checkout of {DISTRIBUTION})"
    )


def _package_dir() -> pathlib.Path:
    return pathlib.Path(__file__).resolve().parent


def _file_hash(path: pathlib.Path, algorithm: str) -> str:
    digest = hashlib.new(algorithm, path.read_bytes()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _recorded_files(dist: importlib.metadata.Distribution) -> dict[str, importlib.metadata.PackagePath]:
    """The distribution's RECORD entries inside envpool/ (``"envpool/__init__.py": entry``)."""
    return {str(f.as_posix()): f for f in dist.files or () if f.parts[:1] == (_PACKAGE,)}


def _holds_recorded_content(dist: importlib.metadata.Distribution, entry: importlib.metadata.PackagePath) -> bool:
    if entry.hash is None:
        return False
    path = pathlib.Path(dist.locate_file(entry))
    return path.is_file() and _file_hash(path, entry.hash.mode) == entry.hash.value


def find_clash(package_dir: pathlib.Path | None = None) -> Clash | None:
    """The clash in the folder holding ``package_dir`` (our envpool/), or ``None``.

    Only a distribution named ``envpool`` whose metadata lies in that same folder counts: one in
    another folder of ``sys.path`` (say, a checkout on ``PYTHONPATH`` in front of a site-packages
    holding PyPI's envpool) shares no files with ours.
    """
    package_dir = package_dir or _package_dir()
    folder = package_dir.parent
    others = list(importlib.metadata.distributions(name=OTHER_DISTRIBUTION, path=[str(folder)]))
    if not others:
        return None
    other = others[0]
    ours = next(iter(importlib.metadata.distributions(name=DISTRIBUTION, path=[str(folder)])), None)
    # Which of our files the other one shipped too, and whether they now hold its content, by
    # both RECORDs. Without ours (envpool/ not installed by pip) only the sharing is known.
    theirs = _recorded_files(other)
    mine = _recorded_files(ours) if ours is not None else {}
    overwritten = tuple(name for name in theirs if name in mine and _holds_recorded_content(other, theirs[name]))
    missing = tuple(
        name
        for name, entry in mine.items()
        if name.endswith(".py") and not pathlib.Path(ours.locate_file(entry)).is_file()
    )
    return Clash(
        folder=folder,
        other_version=other.version,
        ours_version=ours.version if ours is not None else None,
        overwritten=overwritten,
        missing=missing,
    )


def check_on_import() -> None:
    """Called first thing by our ``envpool/__init__.py``: raise if the package is damaged, warn
    if it is intact but shares its folder with PyPI's envpool."""
    clash = find_clash()
    if clash is None:
        return
    if clash.broken:
        raise ImportError(f"envpool cannot be imported: {clash.explain()}")
    import warnings

    warnings.warn(f"envpool: {clash.explain()}", RuntimeWarning, stacklevel=3)


def check_from_cli(module) -> str | None:
    """What is wrong with the ``envpool`` package the ``envpool`` command imported, or ``None``.

    The command's own modules are ours, but ``module`` (the imported ``envpool``) may be the
    other project's ``__init__.py`` (installed after ours) or a bare namespace package (our
    ``__init__.py`` deleted when the other one was uninstalled).
    """
    if getattr(module, "_DISTRIBUTION", None) == DISTRIBUTION:
        return None  # our __init__ ran, and with it check_on_import
    clash = find_clash()
    where = getattr(module, "__file__", None) or "no envpool/__init__.py (a namespace package)"
    what = f"`import envpool` did not load {DISTRIBUTION}'s package ({where})"
    if clash is not None:
        return f"{what}: {clash.explain()}"
    return (
        f"{what}: its __init__.py is missing or not its own. Reinstall it:\n"
        f"    pip install --force-reinstall --no-deps {DISTRIBUTION}      "
        "(or `pip install --force-reinstall --no-deps .` "
        "in a checkout)"
    )
