#!/usr/bin/env python3
"""What does plugin discovery add to ``import envpool``? A/B of two environments in one run.

envpool loads the plugins of installed packages (entry-point group ``envpool.envs``) at
``import envpool`` (python/envpool/plugins.py). This measures the wall time of ``import envpool``
inside a fresh interpreter (interpreter start-up excluded), alternating A B / B A per round, in

* A: a venv with envpool only (the scan of entry points finds nothing), and
* B: a venv with envpool and a plugin package (e.g. examples/custom_env), which the import loads;

and, in A, the cost of the scan alone (``plugins.load_installed_plugins()`` called again) and of
``envpool.load_plugin(<B's first plugin file>)`` (dlopen, ABI check, registration, gymnasium ids)::

    python bench/plugin_import_time.py --without venv-a/bin/python --with venv-b/bin/python --rounds 15

Prints a markdown table of medians and spreads (min..max as % of the median).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess

IMPORT = "import time; t = time.perf_counter(); import envpool; print(time.perf_counter() - t)"
SCAN = (
    "import time, envpool; from envpool import plugins; t = time.perf_counter(); "
    "plugins.load_installed_plugins(); print(time.perf_counter() - t)"
)


LOAD = (
    "import sys, time, envpool; t = time.perf_counter(); envpool.load_plugin(sys.argv[1]); "
    "print(time.perf_counter() - t)"
)


def sample(python: str, code: str, *args: str) -> float:
    return float(
        subprocess.run(
            [python, "-c", code, *args], capture_output=True, text=True, check=True, timeout=120
        ).stdout.strip()
    )


def row(label: str, xs: list[float]) -> str:
    m = statistics.median(xs)
    return f"| {label} | {1e3 * m:.1f} ms | {100 * (min(xs) / m - 1):+.0f}..{100 * (max(xs) / m - 1):+.0f}% |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--without", required=True, help="python of a venv with envpool and no plugin package")
    ap.add_argument("--with", dest="with_", required=True, help="python of a venv with envpool and a plugin package")
    ap.add_argument("--rounds", type=int, default=15)
    opts = ap.parse_args()
    names, path = subprocess.run(
        [
            opts.with_,
            "-c",
            "import envpool.plugins as p; l = p.loaded_plugins(); print([x['name'] for x in l]); print(l[0]['path'])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")[:2]
    a, b, scan, load = [], [], [], []
    for r in range(opts.rounds):
        for side in ("a", "b") if r % 2 == 0 else ("b", "a"):
            (a if side == "a" else b).append(sample(opts.without if side == "a" else opts.with_, IMPORT))
        scan.append(sample(opts.without, SCAN))
        load.append(sample(opts.without, LOAD, path))
    print("| measurement | median | spread |\n|---|---:|---:|")
    print(row("`import envpool`, no plugin installed", a))
    print(row(f"`import envpool`, plugins {names} installed (loaded)", b))
    print(row("entry-point scan alone (no plugin installed)", scan))
    print(row(f"`envpool.load_plugin` of {path.rsplit('/', 1)[-1]}", load))
    print(f"\n{opts.rounds} rounds; B - A = {1e3 * (statistics.median(b) - statistics.median(a)):.1f} ms")


if __name__ == "__main__":
    main()
