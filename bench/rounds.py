"""How the benches interleave what they compare, so that a noisy machine's drift hits every side
alike and none always runs first or last, and the tables they print:

- :func:`paired_report`: two sides of each config (two builds, full batch against async, the C++
  loop against the pool), A B then B A, and the ratio of their medians;
- :func:`rotated_report`: many peers under each column (a task, a size), their order rotated
  from round to round, a table of medians and one of chosen ratios;
- :class:`Cell` and :func:`run_cells`: one peer at one task and size, sampled by children that
  time a call count fixed in the first round (the MiniGrid and multi-agent benches).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.harness import (
    REPO_ROOT,
    command_line,
    fmt_rate,
    int_list,
    load_span,
    loadavg_text,
    md_table,
    rate_cell,
    run_child,
    spread,
    write_outputs,
)


@dataclass(kw_only=True)
class Samples:
    """One peer's samples in one configuration (one per round), the 1-minute load average after
    each, and why there are none: a peer that lacks the task (skipped) or failed (errors)."""

    samples: list[float] = field(default_factory=list)
    loadavg: list[float] = field(default_factory=list)
    skipped: str | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def median(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None

    def add(self, result: dict[str, Any], key: str = "steps_per_s") -> bool:
        """Records one child's result (run_child's dict): its rate under ``key``, its skip or its
        error, and the load average after it. True when it was a sample."""
        self.loadavg.append(os.getloadavg()[0])
        if "skipped" in result:
            self.skipped = result["skipped"]
        elif "error" in result:
            self.errors.append(result["error"])
        else:
            self.samples.append(result[key])
            return True
        return False

    def as_json(self) -> dict[str, Any]:
        """Every field, and the median."""
        return {**dataclasses.asdict(self), "median": self.median}


# -- two sides, A B / B A ---------------------------------------------------------------------


def paired_rounds(
    rounds: int,
    keys: Sequence[Hashable],
    sides: tuple[str, str],
    measure: Callable[[Any, str], float],
    label: Callable[[Any], str],
) -> tuple[dict, list]:
    """Two sides of each key measured side by side: per round and key, ``measure(key, side)`` for
    both sides, A then B in odd rounds and B then A in even ones. Prints a progress line per key
    and round (to stderr). Returns ``{key: {side: [one value per round]}}`` and the load averages
    (one at the start of each round, one at the end)."""
    a_side, b_side = sides
    samples = {k: {a_side: [], b_side: []} for k in keys}
    loads = []
    for r in range(rounds):
        loads.append(os.getloadavg())
        for k in keys:
            for side in sides if r % 2 == 0 else sides[::-1]:
                samples[k][side].append(measure(k, side))
            a, b = samples[k][a_side][-1], samples[k][b_side][-1]
            print(
                f"round {r + 1}/{rounds} {label(k)} {a_side} {fmt_rate(a):>9s} {b_side} {fmt_rate(b):>9s} "
                f"{b_side}/{a_side} {b / a:.3f}",
                file=sys.stderr,
                flush=True,
            )
    loads.append(os.getloadavg())
    return samples, loads


def paired_ratios(a: Sequence[float], b: Sequence[float]) -> tuple[float, list[float]]:
    """The ratio of medians b / a, and each round's b / a."""
    return statistics.median(b) / statistics.median(a), [y / x for x, y in zip(a, b)]


@dataclass
class PairedTable:
    """What :func:`paired_report` prints: the file stem, the line before the table, the heads of
    the key's columns and of the two sides, how a key's cells and a ratio read, and what else the
    JSON keeps (``meta``)."""

    stem: str
    title: str
    key_heads: list[str]
    side_heads: list[str]
    key_cells: Callable[[Any], list[Any]]
    ratio_text: Callable[[float], str] = lambda r: f"{r:.3f}"
    meta: dict[str, Any] = field(default_factory=dict)
    count_slow: bool = True  # a column of the rounds whose ratio is below 0.95 (for A/B of builds)


def paired_report(opts: argparse.Namespace, keys: list, sides: tuple[str, str], measure, table: PairedTable) -> str:
    """Runs :func:`paired_rounds` for ``opts.rounds`` rounds and prints and writes (``opts.out``)
    a table of each key: both sides' medians (spread), the ratio of medians B / A, each round's
    range and (``table.count_slow``) how many rounds were below 0.95."""
    started = time.time()
    samples, loads = paired_rounds(opts.rounds, keys, sides, measure, lambda k: " ".join(map(str, table.key_cells(k))))
    rows, cells = [], []
    for k in keys:
        a, b = samples[k][sides[0]], samples[k][sides[1]]
        ratio, per_round = paired_ratios(a, b)
        rows.append(dict(key=table.key_cells(k), **{sides[0]: a, sides[1]: b}, ratio=ratio, per_round=per_round))
        low, high = table.ratio_text(min(per_round)), table.ratio_text(max(per_round))
        slow = [f"{sum(p < 0.95 for p in per_round)}/{len(per_round)}"] if table.count_slow else []
        cells.append(
            [*table.key_cells(k), rate_cell(a), rate_cell(b), table.ratio_text(ratio), f"{low}..{high}", *slow]
        )
    head = [*table.key_heads, *table.side_heads, f"{sides[1]} / {sides[0]}", "per round"]
    head += ["rounds < 0.95"] if table.count_slow else []
    text = "\n".join(
        [
            f"{table.title}, {opts.rounds} rounds x {opts.seconds} s (warm-up {opts.warmup} s), "
            f"{os.cpu_count()} cores, load {load_span(loads)}; env steps/s, medians (spread):",
            "",
            *md_table(head, cells, "l" * len(table.key_heads) + "r" * (len(head) - len(table.key_heads))),
        ]
    )
    print(text)
    meta = dict(table.meta, started=started, finished=time.time(), loads=loads, command=command_line())
    write_outputs(opts.out, table.stem, text + "\n", dict(meta=meta, rows=rows))
    return text


# -- many peers, rotated -----------------------------------------------------------------------


def rotated_rounds(
    rounds: int, columns: list[str], peers: list[str], sample: Callable[[str, str], float | None], step: int = 1
) -> tuple[dict, list[str]]:
    """Every peer under every column once per round, a column's peers in an order rotated by
    ``step`` each round. ``sample(column, peer)`` is env steps/s, or None where the peer does not
    run there or failed (it says which). Returns ``{column: {peer: [samples]}}`` and the load
    averages at the start and after each round."""
    samples = {c: {p: [] for p in peers} for c in columns}
    loads = [loadavg_text()]
    for r in range(rounds):
        for c in columns:
            shift = (r * step) % len(peers)
            for p in peers[shift:] + peers[:shift]:
                value = sample(c, p)
                if value is not None:
                    samples[c][p].append(value)
            print(f"round {r + 1}/{rounds} {c} (load {loadavg_text()})", flush=True)
        loads.append(loadavg_text())
    return samples, loads


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def peer_table(columns: list[str], peers: list[str], samples: dict, ratios: list[tuple]) -> list[str]:
    """Peers (rows) by columns: medians with their spread; then the ratios of medians, one row per
    ``(label, peer x, peer y[, factor])`` (x / y / factor) whose two peers ran."""

    def cell(xs: list[float]) -> str:
        return f"{statistics.median(xs):,.0f}" + (f" ({spread(xs)})" if len(xs) > 1 else "") if xs else "—"

    lines = md_table(["peer", *columns], ([p, *(cell(samples[c][p]) for c in columns)] for p in peers))
    ratio_rows = []
    for label, x, y, *factor in ratios:
        if x in peers and y in peers:
            pairs = [(_median(samples[c][x]), _median(samples[c][y])) for c in columns]
            div = factor[0] if factor else 1
            ratio_rows.append([label, *(f"{a / b / div:.2f}" if a and b else "—" for a, b in pairs)])
    return [*lines, "", *md_table(["ratio of medians", *columns], ratio_rows)] if ratio_rows else lines


def rotated_report(
    opts: argparse.Namespace,
    stem: str,
    title: str,
    columns: list[str],
    peers: list[str],
    sample: Callable[[str, str], float | None],
    ratios: list[tuple],
    step: int = 1,
    note: Callable[[], str] = lambda: "",
) -> dict:
    """Runs :func:`rotated_rounds` for ``opts.rounds`` rounds, then prints and writes (``opts.out``:
    ``<stem>.md`` and ``.json``) the settings, the machine, the loads and :func:`peer_table`.
    Returns the samples, ``{column: {peer: [samples]}}``."""
    started = time.time()
    samples, loads = rotated_rounds(opts.rounds, columns, peers, sample, step)
    text = (
        f"# {title}\n\n{time.strftime('%Y-%m-%d %H:%M')}, {platform.node()}, {os.cpu_count()} CPUs, median of "
        f"{opts.rounds} interleaved round(s) of {opts.seconds:g} s (+{opts.warmup:g} s warm-up) per peer{note()}; "
        f"load average at the start and after each round: {' | '.join(loads)}; "
        f"{(time.time() - started) / 60:.1f} min.\n\n" + "\n".join(peer_table(columns, peers, samples, ratios)) + "\n"
    )
    print("\n" + text)
    write_outputs(opts.out, stem, text, dict(command=command_line(), loads=loads, samples=samples))
    return samples


# -- cells with a fixed call count ---------------------------------------------------------------


@dataclass
class Cell(Samples):
    """The samples of one peer at one task and size (``skipped``: why it did not run)."""

    peer: str
    task: str
    num_envs: int
    details: list[dict[str, Any]] = field(default_factory=list)
    calls: int | None = None  # fixed after the first sample


def sample_cell(c: Cell, python: str, source: str, payload: dict, env: dict, opts: argparse.Namespace) -> None:
    """One sample of ``c`` by a child running ``source``: the first sets the call count (a probe
    sized to ``opts.seconds``), the later ones time as many calls."""
    payload = dict(
        payload,
        num_envs=c.num_envs,
        calls=c.calls,
        seed=opts.seed,
        action_batches=opts.action_batches,
        warmup=opts.warmup,
        seconds=opts.seconds,
    )
    res = run_child(python, source, payload, env, opts.tmpdir, opts.timeout + 4 * opts.seconds)
    if not c.add(res):
        print(f"  {c.peer:14s} n={c.num_envs:<4d} {res.get('skipped') or 'error: ' + res['error']}", flush=True)
        return
    c.calls = c.calls or res["calls"]
    c.details.append(res)
    print(
        f"  {c.peer:14s} n={c.num_envs:<4d} {fmt_rate(res['steps_per_s']):>8s} env steps/s "
        f"({res['env_steps']} in {res['elapsed']:.2f} s; load {c.loadavg[-1]:.2f})",
        flush=True,
    )


def run_cells(cells: list[Cell], rounds: int, sample: Callable[[Cell], None]) -> None:
    """Rounds of A B C ... then ... C B A: each peer once per round; a peer that failed twice is
    given up, and one with no sample is marked skipped with its last error."""
    for r in range(rounds):
        print(f" round {r + 1}/{rounds}", flush=True)
        for c in cells if r % 2 == 0 else cells[::-1]:
            if c.skipped is None and len(c.errors) < 2:
                sample(c)
    for c in cells:
        if not c.samples and c.skipped is None:
            c.skipped = c.errors[-1] if c.errors else "no sample"


def best(cells: dict[str, Cell], peers: Sequence[str]) -> tuple[str, float] | None:
    """The peer of ``peers`` with the highest median, and that median."""
    found = [(p, cells[p].median) for p in peers if p in cells and cells[p].median]
    return max(found, key=lambda x: x[1]) if found else None


def cell_text(c: Cell | None, scale: float = 1.0) -> str:
    """A cell's median rate with its spread; "not run" (skipped), "error" or "-"."""
    if c is None:
        return "-"
    if c.median is None:
        return "not run" if c.skipped else "error"
    s = f" ({spread(c.samples)})" if len(c.samples) > 1 else ""
    return f"{fmt_rate(c.median * scale)}{s}"


def ratio_text(ours: float | None, other: tuple[str, float] | None) -> str:
    """ours / the other's median, "15x" from 10 on, else "2.35x"."""
    if not (ours and other):
        return "-"
    r = ours / other[1]
    return f"{r:.0f}x" if r >= 10 else f"{r:.2f}x"


def cell_notes(cells: list[Cell]) -> list[str]:
    """What did not run or failed, and how long the timed parts of the samples took."""
    out = []
    for c in cells:
        if c.skipped:
            out.append(f"- {c.peer}, {c.task}, {c.num_envs} envs: not run: {c.skipped}")
        elif c.errors:
            out.append(f"- {c.peer}, {c.task}, {c.num_envs} envs: {len(c.errors)} failed sample(s): {c.errors[-1]}")
    times = [d["elapsed"] for c in cells for d in c.details]
    if times:
        out.append(f"- timed part of a sample: {min(times):.2f}..{max(times):.2f} s")
    return out


def cell_args(description: str, peers: Sequence[str], groups: dict[str, Sequence[str]]) -> argparse.ArgumentParser:
    """The parser the cell benches share: --only (peers or groups of them), --sizes, --rounds,
    --seconds, --warmup, --threads, --puffer-workers, --puffer-python, --action-batches, --seed,
    --timeout, --out and --quick (whose defaults each bench sets)."""

    def peer_list(text: str) -> list[str]:
        names = [x.strip() for x in text.split(",") if x.strip()]
        unknown = [x for x in names if x not in peers and x not in groups]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown peers {unknown}; choose from {[*peers, *groups]}")
        return [p for p in peers if p in names or any(p in groups[g] for g in names if g in groups)]

    p = argparse.ArgumentParser(description=description, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--only", default=",".join(peers), type=peer_list, help="peers or groups: " + ", ".join(groups))
    p.add_argument("--sizes", default="8,64", type=int_list, help="num_envs values")
    p.add_argument("--rounds", default=3, type=int)
    p.add_argument("--seconds", default=1.0, type=float, help="timed part of a sample in round 1 (sets the call count)")
    p.add_argument("--warmup", default=0.3, type=float)
    p.add_argument("--threads", default=2, type=int, help="envpool num_threads")
    p.add_argument("--puffer-workers", default=2, type=int, help="PufferLib Multiprocessing num_workers")
    p.add_argument(
        "--puffer-python",
        default=os.environ.get("PUFFER_PYTHON"),
        help="python of the venv bench/tools/peers/pufferlib.sh makes",
    )
    p.add_argument("--action-batches", default=16, type=int, help="pre-generated action batches, cycled")
    p.add_argument("--seed", default=0, type=int)
    p.add_argument("--timeout", default=240.0, type=float, help="seconds a child may take beyond 4x --seconds")
    p.add_argument("--out", default=str(REPO_ROOT / "bench" / "results"))
    p.add_argument("--quick", action="store_true", help="smoke run: 1 round of 0.3 s samples")
    return p
