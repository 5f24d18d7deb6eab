"""The ``envpool`` command line: list tasks, describe one, or run one with random actions.

envpool list
envpool info Pendulum-v1
envpool run CartPole-v1 --num-envs 256 --batch-size 128 --threads 2 --steps 2000000
envpool run Pendulum-v1 --record pendulum.gif --record-steps 200
envpool --cmake-dir        (the C++ env SDK's CMake package, for -Denvpool_DIR=...)
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector.utils import batch_space

import envpool


def _parse_kwarg(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw  # a bare word is a string
    return key, value


def cmd_list(args: argparse.Namespace) -> int:
    from envpool.tasks import registered_tasks

    # One line per task (its aliases beside its id, not as tasks of their own), the first column
    # as wide as its widest entry.
    tasks = [task for task_id, task in registered_tasks().items() if task_id == task["id"]]
    names = [task["id"] + (f" (alias {', '.join(task['aliases'])})" if task["aliases"] else "") for task in tasks]
    width = max([28, *map(len, names)])
    print(f"{'task':<{width}} {'max steps':>9}  kwargs")
    for name, task in zip(names, tasks):
        kwargs = ", ".join(f"{k}={v!r}" for k, v in task["defaults"].items())
        origin = "" if task["origin"] == "built-in" else f"  [{task['origin']}]"
        print(f"{name:<{width}} {task['max_episode_steps'] or '-':>9}  {kwargs}{origin}")
    return 0


def _episode_limit(spec: Any) -> str:
    """Where episodes end at the latest: the pool's max_episode_steps or the env's own limit
    (MiniGrid's max_steps, Procgen's timeout), whichever comes first."""
    pool, own = spec.max_episode_steps, getattr(spec, "env_step_limit", 0)
    if own == -1:
        pool_note = f"; the pool's max_episode_steps: {pool}" if pool else ""
        return f"set by the env each episode (from its instruction){pool_note}"
    if own > 0 and (pool is None or own < pool):
        pool_note = f"; the pool's max_episode_steps: {pool}" if pool else "; the pool sets none"
        return f"{own} (the env's own limit{pool_note})"
    if own > 0:
        return f"{pool} (the pool's max_episode_steps; the env's own limit: {own})"
    return str(pool)


def _config_line(spec: Any, key: str, value: Any) -> str:
    """``max_steps = 0`` says what 0 stands for: the env's default, computed per task."""
    line = f"  {key} = {value!r}"
    own = getattr(spec, "env_step_limit", 0)
    if key == "max_steps" and value == 0 and own:
        line += " (the env's default: " + ("set each episode from its instruction)" if own == -1 else f"{own})")
    return line


def cmd_info(args: argparse.Namespace) -> int:
    from envpool.tasks import registered_tasks

    spec = envpool.make_spec(args.task, **dict(args.env_kwarg))
    task = registered_tasks()[spec.task_id]
    alias_of = f" (an alias of {task['id']})" if spec.task_id != task["id"] else ""
    print(f"task:                {spec.task_id}{alias_of}")
    if task["aliases"]:
        print(f"aliases:             {', '.join(task['aliases'])}")
    print(f"origin:              {spec.origin}")
    print(f"observation space:   {spec.observation_space}")
    print(f"action space:        {spec.action_space}")
    print(f"max episode steps:   {_episode_limit(spec)}")
    print(f"reward threshold:    {spec.reward_threshold}")
    print(f"info keys:           {', '.join(spec.info_keys)}")
    if spec.agents is not None:  # multi-agent: the spaces above are one env's, all slots stacked
        for group in spec.agents.groups:
            names = ", ".join(spec.agents.names[k] for k in group.slots)
            space = spec.agents.observation_space(group.slots[0])
            print(f"agents ({group.name}):{' ' * max(1, 11 - len(group.name))}{names}: observation {space}")
        print(f"agent action space:  {spec.agents.action_space(0)}{' (turn-based)' if spec.agents.turn_based else ''}")
    print("config (kwargs and values):")
    for key, value in spec.config.items():
        print(_config_line(spec, key, value))
    return 0


class Progress:
    """A one-line progress bar on stderr (plain periodic lines when stderr is not a terminal)."""

    def __init__(self, total: int, enabled: bool = True):
        self.total = total
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.start = time.perf_counter()
        self.last_draw = 0.0
        self.last_quarter = 0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if self.tty:
            if now - self.last_draw < 0.1 and done < self.total:
                return
            self.last_draw = now
            frac = min(done / self.total, 1.0)
            bar = "#" * int(frac * 30)
            rate = done / max(now - self.start, 1e-9)
            sys.stderr.write(f"\r[{bar:<30}] {frac:6.1%} {done:>12,} steps {rate:>14,.0f} steps/s")
            if done >= self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()
        else:
            quarter = int(4 * min(done / self.total, 1.0))
            if quarter > self.last_quarter:
                self.last_quarter = quarter
                print(f"  {25 * quarter}% ({done:,} steps)", file=sys.stderr, flush=True)


def _has_video_backend() -> bool:
    import importlib.util

    return any(importlib.util.find_spec(name) is not None for name in ("imageio_ffmpeg", "av"))


class Recorder:
    """Collects env 0's frames during ``run --record`` and writes them with imageio (GIF through
    Pillow, MP4 and other video formats through imageio-ffmpeg). Time spent rendering is kept
    apart so the reported throughput excludes it."""

    def __init__(self, path: str, max_steps: int, fps: float):
        try:
            import imageio.v3  # noqa: F401  (fail before the run, not after it)
        except ImportError as exc:
            raise RuntimeError(
                "--record needs imageio (GIF) and imageio-ffmpeg (MP4): pip install 'envpool-ng[record]'"
            ) from exc
        if not path.lower().endswith(".gif") and not _has_video_backend():
            raise RuntimeError(
                f"--record {path}: video formats need imageio-ffmpeg (pip install 'envpool-ng[record]'); "
                "or record a .gif"
            )
        self.path = path
        self.max_frames = max_steps + 1  # the first observation, then one frame per step
        self.fps = fps
        self.frames: list[np.ndarray] = []
        self.seconds = 0.0

    @property
    def done(self) -> bool:
        return len(self.frames) >= self.max_frames

    def capture(self, envs, ids) -> None:
        """Render env 0 if it is among ``ids`` (the envs just received, not yet sent)."""
        if self.done or 0 not in ids:
            return
        start = time.perf_counter()
        self.frames.append(envs.render([0])[0])
        self.seconds += time.perf_counter() - start

    def write(self) -> None:
        import imageio.v3 as iio

        if not self.frames:
            raise RuntimeError("no frames were recorded")
        frames = np.stack(self.frames)
        if self.path.lower().endswith(".gif"):
            kwargs: dict[str, Any] = {"duration": 1000.0 / self.fps, "loop": 0}
        else:
            kwargs = {"fps": self.fps, "macro_block_size": 2}
        try:
            iio.imwrite(self.path, frames, **kwargs)
        except Exception as exc:  # imageio reports a missing backend in many ways
            raise RuntimeError(
                f"could not write {self.path}: {exc} (GIF needs pillow; MP4 and other video formats "
                "need imageio-ffmpeg: pip install 'envpool-ng[record]')"
            ) from exc
        print(f"recorded {len(self.frames)} frames of env 0 to {self.path}")


_DEFAULT_STEPS = 100_000


def cmd_run(args: argparse.Namespace) -> int:
    recorder = Recorder(args.record, args.record_steps, args.record_fps) if args.record else None
    envs = envpool.make(
        args.task,
        num_envs=args.num_envs,
        batch_size=args.batch_size,
        num_threads=args.threads,
        seed=args.seed,
        render_mode="rgb_array" if recorder else None,
        **dict(args.env_kwarg),
    )
    batch = envs.batch_size
    m = getattr(envs, "agents_per_env", 1)  # multi-agent tasks: one row per agent
    # Random actions drawn up front and cycled, so sampling does not dominate the timing.
    space = batch_space(envs.single_action_space, batch * m)
    space.seed(args.seed)
    actions = [space.sample() for _ in range(64)]
    returns = np.zeros(envs.num_envs)
    finished: list[float] = []
    # --record without --steps runs until env 0's recording is complete, not --steps' default
    # on top of it: about record_steps steps of every env (env 0 comes once per full batch).
    until_recorded = recorder is not None and args.steps is None
    steps = args.steps if args.steps is not None else (_DEFAULT_STEPS if recorder is None else None)
    progress = Progress(steps or args.record_steps * envs.num_envs, enabled=not args.quiet)
    async_mode = batch < envs.num_envs

    all_ids = np.arange(envs.num_envs)
    start = time.perf_counter()
    if async_mode:
        envs.async_reset()
    else:
        envs.reset()
        if recorder:
            recorder.capture(envs, [0])
    done_steps = 0
    i = 0
    while not recorder.done if until_recorded else done_steps < steps:
        if async_mode:
            obs, reward, terminated, truncated, info = envs.recv()
            if recorder:
                recorder.capture(envs, info["env_id"])
            envs.send(actions[i % 64], info["env_id"])
        else:
            obs, reward, terminated, truncated, info = envs.step(actions[i % 64])
            if recorder:
                recorder.capture(envs, [0])
        ids = info["env_id"] if async_mode or m > 1 else all_ids  # a full batch's rows are envs 0..n-1
        if m > 1:  # an env's return is its agents' summed; it ends when all are done
            ids, reward, terminated, truncated = ids[::m], reward.reshape(-1, m).sum(1), info["all_done"][::m], False
        returns[ids] += reward
        ended = terminated | truncated
        if ended.any():
            ended_ids = ids[ended]
            finished.extend(returns[ended_ids].tolist())
            returns[ended_ids] = 0.0
        done_steps += batch
        i += 1
        progress.update(done_steps)
    elapsed = time.perf_counter() - start
    if until_recorded:  # the estimate's total was a guess: close the bar at the steps run
        progress.total = done_steps
        progress.update(done_steps)
    envs.close()
    if recorder:
        elapsed = max(elapsed - recorder.seconds, 1e-9)  # throughput without the rendering

    print(
        f"{args.task}: {done_steps:,} steps in {elapsed:.2f} s = {done_steps / elapsed:,.0f} steps/s "
        f"(num_envs={envs.num_envs}, batch_size={batch}, threads={envs.num_threads})"
    )
    if finished:
        r = np.asarray(finished)
        print(
            f"episodes: {len(r)}  return mean {r.mean():.2f}  std {r.std():.2f}  min {r.min():.2f}  max {r.max():.2f}"
        )
    else:
        print("episodes: none finished (run more steps)")
    if recorder:
        recorder.write()
    return 0


class _PrintAndExit(argparse.Action):
    """``--cmake-dir`` / ``--include-dir``: print a folder of the C++ env SDK and exit (as --version)."""

    def __init__(self, option_strings, dest, what, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.what = what

    def __call__(self, parser, namespace, values, option_string=None):
        from envpool import plugins

        try:
            print(getattr(plugins, self.what)())
        except FileNotFoundError as exc:
            parser.exit(2, f"envpool: error: {exc}\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="envpool", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--version", action="version", version=f"envpool {envpool.__version__} (distribution {envpool._DISTRIBUTION})"
    )
    parser.add_argument(
        "--cmake-dir",
        action=_PrintAndExit,
        what="cmake_dir",
        help="print the folder of envpool's CMake package (for -Denvpool_DIR=...) and exit",
    )
    parser.add_argument(
        "--include-dir",
        action=_PrintAndExit,
        what="include_dir",
        help="print the folder of the C++ env SDK headers and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="list all tasks").set_defaults(func=cmd_list)

    info = sub.add_parser("info", help="spaces, config and defaults of a task")
    info.add_argument("task", help="a task id (see `envpool list`)")
    _add_env_kwarg(info)
    info.set_defaults(func=cmd_info)
    _add_run(sub)
    return parser


def _add_env_kwarg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--env-kwarg",
        "-k",
        type=_parse_kwarg,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="env keyword argument, e.g. -k g=9.81 (repeatable)",
    )


def _add_run(sub: Any) -> None:
    run = sub.add_parser("run", help="step a task with random actions and report throughput")
    run.add_argument("task", help="a task id (see `envpool list`)")
    run.add_argument("--num-envs", type=int, default=8, help="envs in the pool (default: %(default)s)")
    run.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="envs per batch; fewer than --num-envs runs the asynchronous send/recv loop "
        "(default: --num-envs, a full batch)",
    )
    run.add_argument(
        "--threads",
        type=int,
        default=None,
        help="threads stepping envs (default: as envpool.make, the CPU count capped at the batch "
        "size, one fewer when asynchronous)",
    )
    run.add_argument(
        "--steps",
        type=int,
        default=None,
        help=f"total env steps (default: {_DEFAULT_STEPS:,}; with --record, until the recording is complete)",
    )
    run.add_argument("--seed", type=int, default=0, help="env i is seeded with SEED + i (default: %(default)s)")
    _add_env_kwarg(run)
    run.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    run.add_argument(
        "--record",
        metavar="PATH",
        default=None,
        help="save env 0's frames as a GIF or video (.gif, .mp4, ...; needs envpool-ng[record])",
    )
    run.add_argument(
        "--record-steps", type=int, default=200, metavar="N", help="record env 0's first N steps (default: %(default)s)"
    )
    run.add_argument(
        "--record-fps",
        type=float,
        default=30.0,
        metavar="FPS",
        help="frames per second of the recording (default: %(default)s)",
    )
    run.set_defaults(func=cmd_run)


def main(argv: Sequence[str] | None = None) -> int:
    from envpool._distribution import check_from_cli

    problem = check_from_cli(envpool)  # PyPI's `envpool` may have replaced our __init__.py
    if problem is not None:
        print(f"envpool: error: {problem}", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "steps", 1) is not None and getattr(args, "steps", 1) <= 0:
        parser.error("--steps must be positive")
    if getattr(args, "record", None) is not None and (args.record_steps <= 0 or args.record_fps <= 0):
        parser.error("--record-steps and --record-fps must be positive")
    try:
        return args.func(args)
    except BrokenPipeError:
        # The reader left early (`envpool list | head`): no traceback, as other commands. Python
        # flushes stdout again at exit, so point it at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (ValueError, TypeError, RuntimeError) as exc:
        print(f"envpool: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
