"""The `envpool` command line: list, info, run (the README's main job), errors."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import envpool
from envpool import cli


def test_list_shows_every_task(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    import envpool

    for task in envpool.list_all_envs():
        assert task in out
    assert "sutton_barto_reward=False" in out


def test_info_shows_spaces_and_config(capsys):
    assert cli.main(["info", "Pendulum-v1", "-k", "g=9.81"]) == 0
    out = capsys.readouterr().out
    assert "Box(-2.0, 2.0, (1,), float32)" in out
    assert "max episode steps:   200" in out
    assert "g = 9.81" in out


def test_info_shows_the_effective_episode_limit(capsys):
    """MiniGrid's envs end episodes themselves (no TimeLimit): info shows that limit, which is
    where a pool's episodes end, and what max_steps = 0 stands for (issue 55 item 7)."""
    assert cli.main(["info", "MiniGrid-DoorKey-8x8-v0"]) == 0
    out = capsys.readouterr().out
    assert "max episode steps:   640 (the env's own limit; the pool sets none)" in out
    assert "  max_steps = 0 (the env's default: 640)" in out
    envs = envpool.make("MiniGrid-DoorKey-8x8-v0", num_envs=1, seed=0)
    envs.reset()
    for step in range(1, 641):  # turning left never ends an episode: only the limit does
        _, _, terminated, truncated, _ = envs.step(np.zeros(1, dtype=np.int64))
        assert not terminated[0] and truncated[0] == (step == 640), step
    envs.close()
    assert cli.main(["info", "MiniGrid-DoorKey-8x8-v0", "-k", "max_steps=50", "-k", "max_episode_steps=30"]) == 0
    assert "max episode steps:   30 (the pool's max_episode_steps; the env's own limit: 50)" in capsys.readouterr().out
    assert cli.main(["info", "BabyAI-GoToLocal-v0"]) == 0
    out = capsys.readouterr().out
    assert "max episode steps:   set by the env each episode (from its instruction)" in out
    assert "max_steps = 0 (the env's default: set each episode from its instruction)" in out


@pytest.mark.parametrize("args", [["--num-envs", "8"], ["--num-envs", "16", "--batch-size", "4", "--threads", "2"]])
def test_run_reports_throughput_and_returns(capsys, args):
    assert cli.main(["run", "CartPole-v1", "--steps", "20000", "-q", *args]) == 0
    out = capsys.readouterr().out
    assert "steps/s" in out
    assert "episodes:" in out and "return mean" in out


@pytest.mark.parametrize("batch", [[], ["--batch-size", "4"]])
def test_run_and_info_of_a_multi_agent_task(capsys, batch):
    """Agent rows: SimpleSpread's episodes (the env's, summed over its agents) last 25 steps."""
    assert cli.main(["run", "SimpleSpread-v3", "--num-envs", "8", "--steps", "2000", "-q", *batch]) == 0
    out = capsys.readouterr().out
    episodes = int(out.split("episodes: ")[1].split()[0])
    assert 2000 // 25 - 8 <= episodes <= 2000 // 25
    assert cli.main(["info", "SimpleAdversary-v3"]) == 0
    out = capsys.readouterr().out
    assert "agents (adversary):  adversary_0: observation Box(-inf, inf, (8,), float32)" in out
    assert "agents (agent):      agent_0, agent_1: observation Box(-inf, inf, (10,), float32)" in out


def test_errors_exit_2_with_a_message(capsys):
    assert cli.main(["run", "CartPol-v1", "--steps", "10"]) == 2
    assert "did you mean 'CartPole-v1'" in capsys.readouterr().err
    assert cli.main(["run", "CartPole-v1", "--num-envs", "0"]) == 2
    assert "num_envs must be >= 1" in capsys.readouterr().err
    assert cli.main(["info", "CartPole-v1", "-k", "gravity=3"]) == 2
    assert "unexpected keyword argument 'gravity'" in capsys.readouterr().err


def test_python_dash_m_and_console_script_entry():
    result = subprocess.run([sys.executable, "-m", "envpool", "info", "CartPole-v1"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "Discrete(2)" in result.stdout


def test_a_reader_that_leaves_early_gets_no_traceback():
    """`envpool list | head -1`, or `| grep -q`: the reader closed the pipe, the command ends
    quietly (exit 1) instead of printing a BrokenPipeError traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "envpool", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the child writes: its first flush meets a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


class _FrameCounter:
    """cli.Recorder without imageio: counts env 0's frames and writes nothing."""

    def __init__(self, path, max_steps, fps):
        self.max_frames = max_steps + 1
        self.frames = 0
        self.seconds = 0.0
        self.written = False

    @property
    def done(self):
        return self.frames >= self.max_frames

    def capture(self, envs, ids):
        if not self.done and 0 in ids:
            self.frames += 1

    def write(self):
        self.written = True


def _steps_run(out: str) -> int:
    return int(out.split(": ", 1)[1].split(" steps in")[0].replace(",", ""))


@pytest.mark.parametrize("batch", [[], ["--batch-size", "2"]])
def test_run_record_stops_when_the_recording_is_complete(capsys, monkeypatch, tmp_path, batch):
    """Issue 36 item 7: `--record` without `--steps` runs until env 0's frames are recorded, not
    the 100,000 default steps after them; `--steps` still sets the length."""
    made: list[_FrameCounter] = []
    monkeypatch.setattr(cli, "Recorder", lambda *a: made.append(_FrameCounter(*a)) or made[-1])
    argv = ["run", "CartPole-v1", "--num-envs", "4", "-q", "--record", str(tmp_path / "x.gif"), "--record-steps", "20"]
    assert cli.main(argv + batch) == 0
    steps = _steps_run(capsys.readouterr().out)
    assert made[-1].written and made[-1].frames == 21  # the first observation and 20 steps
    if not batch:
        assert steps == 20 * 4  # 20 full batches of 4 envs
    else:
        assert 20 * 2 <= steps <= 200  # env 0 is in about one batch of 2 in 2
    assert cli.main(argv + batch + ["--steps", "1000"]) == 0
    assert _steps_run(capsys.readouterr().out) == 1000 and made[-1].frames == 21


def test_run_record_gif_stops_after_recording(capsys, tmp_path):
    pytest.importorskip("imageio")
    pytest.importorskip("PIL")
    path = tmp_path / "cartpole.gif"
    argv = ["run", "CartPole-v1", "--num-envs", "2", "-q", "--record", str(path), "--record-steps", "10"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert _steps_run(out) == 10 * 2 and "recorded 11 frames of env 0" in out
    assert path.stat().st_size > 0
