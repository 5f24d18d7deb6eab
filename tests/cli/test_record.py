"""`envpool run TASK --record out.gif`: the frames of env 0 written with imageio, and the errors
without imageio or for a task that does not render."""

from __future__ import annotations

import pytest
from support.render_tasks import renders

import envpool


def test_cli_record_gif(tmp_path, capsys):
    iio = pytest.importorskip("imageio.v3")
    from envpool import cli

    out = tmp_path / "cartpole.gif"
    rc = cli.main(
        ["run", "CartPole-v1", "--num-envs", "2", "--steps", "40", "-q", "--record", str(out), "--record-steps", "10"]
    )
    assert rc == 0
    assert "recorded 11 frames of env 0" in capsys.readouterr().out
    frames = iio.imread(out)
    assert frames.ndim == 4 and frames.shape[1:3] == (400, 600)


def test_cli_record_without_imageio(tmp_path, monkeypatch, capsys):
    import sys

    from envpool import cli

    monkeypatch.setitem(sys.modules, "imageio", None)  # makes `import imageio...` fail
    monkeypatch.setitem(sys.modules, "imageio.v3", None)
    rc = cli.main(["run", "CartPole-v1", "--steps", "10", "-q", "--record", str(tmp_path / "x.gif")])
    assert rc == 2
    assert "pip install 'envpool-ng[record]'" in capsys.readouterr().err


def test_cli_record_task_without_rendering(tmp_path, capsys):
    from envpool import cli

    silent = [t for t in envpool.list_all_envs() if renders(t) is False]
    if not silent:
        pytest.skip("every task renders")
    pytest.importorskip("imageio.v3")
    rc = cli.main(["run", silent[0], "--steps", "10", "-q", "--record", str(tmp_path / "x.gif")])
    assert rc == 2
    assert "does not render" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("task", "kwargs", "shape"),
    [
        ("CheetahRun-v1", [], (240, 320)),  # dm_control's physics.render() size
        ("CheetahRun-v1", ["-k", "from_pixels=True"], (84, 84)),  # the observation's frame
        ("SimpleSpread-v3", [], (700, 700)),  # mpe2's
    ],
)
def test_cli_records_the_families_that_render(tmp_path, capsys, task, kwargs, shape):
    """`envpool run CheetahRun-v1 --record x.gif` (issue 55): dm_control's and MPE's tasks record."""
    iio = pytest.importorskip("imageio.v3")
    if renders(task) is None:
        pytest.skip(f"{task}'s package is not installed here")
    from envpool import cli

    out = tmp_path / "x.gif"
    rc = cli.main(["run", task, "--num-envs", "1", "-q", *kwargs, "--record", str(out), "--record-steps", "3"])
    assert rc == 0, capsys.readouterr().err
    assert "recorded 4 frames of env 0" in capsys.readouterr().out
    frames = iio.imread(out)
    # Pillow merges identical consecutive GIF frames (MPE's first step moves nothing: its
    # velocities start at zero), so a GIF may hold fewer than were recorded.
    assert 2 <= frames.shape[0] <= 4 and frames.shape[1:3] == shape
    assert frames.std() > 0
