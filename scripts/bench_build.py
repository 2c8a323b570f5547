#!/usr/bin/env python3
"""Benchmark: cold build of every game's default assets, with 1 and 2 jobs, and the
unchanged (cached) rebuild.

Runs the real command line (``python -m stratstone_cad build``) into a fresh temporary
output folder, as a user would, several times, and prints the medians with the machine
they ran on. The ``--jobs 1`` and ``--jobs 2`` builds alternate, so both see the same
machine load and their ratio is measured side by side. Targets (issue 7): cold build at
most 20 s, unchanged rebuild at most 0.3 s, ``--jobs 2`` at least 1.8x faster than
``--jobs 1``.

    python scripts/bench_build.py [--runs 5] [--games stratstone ...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile

from benchlib import loadavg, machine_line, timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--games", nargs="*", default=[], help="games to build (default: all)")
    a = ap.parse_args()
    load_before = loadavg()
    two, one, warm = [], [], []
    for _ in range(a.runs):
        with tempfile.TemporaryDirectory() as d:
            two.append(timed(["build", *a.games, "--out", d, "--jobs", "2", "--quiet"]))
            for _ in range(3):
                warm.append(timed(["build", *a.games, "--out", d, "--jobs", "2", "--quiet"]))
        with tempfile.TemporaryDirectory() as d:
            one.append(timed(["build", *a.games, "--out", d, "--jobs", "1", "--quiet"]))
    med = statistics.median
    ratios = [s / p for s, p in zip(one, two, strict=True)]
    print(f"machine: {machine_line()}")
    print(f"games: {' '.join(a.games) or 'all'}; runs: {a.runs} (median, min-max)")
    print(f"cold build, --jobs 2: {med(two):.2f} s ({min(two):.2f}-{max(two):.2f})  target <= 20 s")
    print(f"cold build, --jobs 1: {med(one):.2f} s ({min(one):.2f}-{max(one):.2f})")
    print(f"speed-up of --jobs 2: {med(one) / med(two):.2f}x of the medians; per pair "
          f"{', '.join(f'{r:.2f}' for r in ratios)}  target >= 1.8x")
    print(f"unchanged rebuild: {med(warm):.3f} s ({min(warm):.3f}-{max(warm):.3f}, {len(warm)} runs)  target <= 0.3 s")
    print(f"1-minute load average before / after: {load_before} / {loadavg()}")


if __name__ == "__main__":
    main()
