"""The distribution is `envpool-ng`; PyPI's unrelated `envpool` (the reference EnvPool) imports
as `envpool` too. When both are installed into one site-packages they share the envpool/ folder
(envpool/__init__.py and envpool/registration.py are in both wheels): `import envpool` and the
`envpool` command must say so, and how to repair it.

Each test lays out a site-packages folder as pip leaves it (our package with its dist-info and
RECORD, and a stand-in for PyPI's envpool 1.2.5: its dist-info, RECORD and files), in the
install order under test, and imports from it in a child process: offline, a second or two each.
"""

from __future__ import annotations

import base64
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import tomllib

import pytest

import envpool

REPO = pathlib.Path(__file__).resolve().parents[2]
OURS = pathlib.Path(envpool.__file__).resolve().parent
FIX = "pip uninstall -y envpool envpool-ng"

# The files PyPI's envpool 1.2.5 ships at these paths (stand-ins: only their paths and hashes
# matter to the check). __init__.py, registration.py and py.typed (one byte there, empty in ours)
# are the ones ours has too (tests/install/test_wheel_install.py checks with the real wheels).
PYPI_FILES = {
    "envpool/__init__.py": 'from envpool.registration import make\n__version__ = "1.2.5"\n',
    "envpool/registration.py": "def make(task_id, **kwargs):\n    return task_id\n",
    "envpool/py.typed": "\n",
    "envpool/entry.py": "",
    "envpool/python/__init__.py": "",
}


def _record_line(site: pathlib.Path, rel: str) -> str:
    data = (site / rel).read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{rel},sha256={digest},{len(data)}"


def _write_dist_info(site: pathlib.Path, name: str, version: str, files: list[str]) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "INSTALLER").write_text("pip\n")
    record = [_record_line(site, rel) for rel in files]
    record.append(f"{info.name}/METADATA,,")
    (info / "RECORD").write_text("\n".join(record) + "\n")


def _install_ours(site: pathlib.Path) -> None:
    shutil.copytree(OURS, site / "envpool", ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
    files = sorted(
        f"envpool/{p.relative_to(OURS)}" for p in OURS.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    _write_dist_info(site, "envpool-ng", version, files)


def _install_pypi(site: pathlib.Path, files: dict[str, str] = PYPI_FILES) -> None:
    for rel, text in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    _write_dist_info(site, "envpool", "1.2.5", list(PYPI_FILES))


def _without_envpool(entry: pathlib.Path, shadows: pathlib.Path) -> pathlib.Path:
    """`entry` if it holds no envpool package, else a folder of links to everything in it but
    envpool's: where this suite runs against an installed envpool-ng (CI), that copy must not
    answer the child's `import envpool` (a regular package found later on sys.path wins over the
    namespace package one test lays out)."""
    if not (entry / "envpool").exists():
        return entry
    shadow = shadows / f"{len(list(shadows.iterdir()))}"
    shadow.mkdir()
    for item in entry.iterdir():
        if item.name == "envpool" or item.name.startswith(("envpool-", "envpool_ng-")):
            continue
        (shadow / item.name).symlink_to(item)
    return shadow


def _python(site_paths: list[pathlib.Path], *args: str) -> subprocess.CompletedProcess:
    # -S and the parent's sys.path (site's .pth files already applied) with every other envpool
    # hidden: the child sees the laid-out folders first and nothing of ours behind them.
    shadows = site_paths[0].parent / "shadows"
    shadows.mkdir(exist_ok=True)
    rest = [
        _without_envpool(pathlib.Path(p), shadows)
        for p in sys.path
        if p and pathlib.Path(p).is_dir() and pathlib.Path(p) not in site_paths
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, [*site_paths, *rest]))}
    return subprocess.run(
        [sys.executable, "-S", *args], capture_output=True, text=True, env=env, cwd=site_paths[0], timeout=120
    )


@pytest.fixture
def site(tmp_path) -> pathlib.Path:
    folder = tmp_path / "site-packages"
    folder.mkdir()
    return folder


def test_pyproject_names_the_distribution_envpool_ng():
    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["name"] == "envpool-ng"
    assert envpool._DISTRIBUTION == "envpool-ng"


def test_alone_no_warning(site):
    _install_ours(site)
    proc = _python([site], "-W", "error::RuntimeWarning", "-c", "import envpool; print(envpool.__file__)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(site / "envpool" / "__init__.py")


def test_ours_installed_last_works_and_warns(site):
    """PyPI's envpool first, then envpool-ng: our files won; theirs (entry.py, python/) linger."""
    _install_pypi(site)
    _install_ours(site)
    proc = _python(
        [site], "-c", "import envpool; e = envpool.make('CartPole-v1', num_envs=2); print(e.reset()[0].shape)"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(2, 4)"
    err = proc.stderr
    assert "RuntimeWarning" in err and "envpool-ng 0.1.0" in err and "envpool 1.2.5" in err, err
    assert "envpool-ng was installed last and works for now" in err
    assert FIX in err and "pip install envpool-ng" in err


def test_pypi_installed_last_cli_explains(site):
    """envpool-ng first, then PyPI's envpool: `import envpool` is PyPI's code (nothing of ours runs),
    but the `envpool` command (our cli.py, which PyPI's wheel lacks) reports it."""
    _install_ours(site)
    _install_pypi(site)
    proc = _python([site], "-c", "import envpool; print(envpool.__version__)")
    assert proc.stdout.strip() == "1.2.5"  # PyPI's __init__.py
    proc = _python([site], "-m", "envpool", "list")
    assert proc.returncode == 2
    err = proc.stderr
    assert "did not load envpool-ng's package" in err, err
    assert "overwritten by envpool: envpool/__init__.py, envpool/registration.py, envpool/py.typed" in err, err
    assert FIX in err and "pip install envpool-ng" in err


def test_registration_overwritten_import_raises(site):
    """Our __init__.py but PyPI's registration.py: a clear ImportError, not a missing name."""
    _install_ours(site)
    _install_pypi(site)
    shutil.copy(OURS / "__init__.py", site / "envpool" / "__init__.py")
    proc = _python([site], "-c", "import envpool")
    assert proc.returncode == 1
    text = proc.stderr
    assert "ImportError: envpool cannot be imported: two distributions are installed" in text, text
    assert "cannot import name" not in text  # raised before importing PyPI's registration.py
    assert "overwritten by envpool: envpool/registration.py" in text and FIX in text


def test_pypi_uninstalled_after_it_deleted_our_files(site):
    """Ours, then PyPI's, then `pip uninstall envpool`: it deletes __init__.py and
    registration.py (in its RECORD), leaving ours a namespace package; the command says so."""
    _install_ours(site)
    _install_pypi(site)
    for rel in PYPI_FILES:
        (site / rel).unlink()
    shutil.rmtree(site / "envpool-1.2.5.dist-info")
    proc = _python([site], "-m", "envpool", "list")
    assert proc.returncode == 2
    assert "namespace package" in proc.stderr and "pip install --force-reinstall --no-deps envpool-ng" in proc.stderr


def test_pypi_envpool_in_another_folder_is_not_a_clash(site, tmp_path):
    """A checkout on PYTHONPATH in front of a site-packages holding PyPI's envpool shares no
    files with it: no warning."""
    other = tmp_path / "other-site-packages"
    other.mkdir()
    _install_pypi(other)
    _install_ours(site)
    proc = _python([site, other], "-W", "error::RuntimeWarning", "-c", "import envpool; print(envpool._DISTRIBUTION)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "envpool-ng"
