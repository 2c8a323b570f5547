#!/usr/bin/env python3
"""Benchmark: cold build of the Stratstone set and the unchanged (cached) rebuild.

Runs the real command line (``python -m stratstone_cad build``) in a fresh temporary
output folder, as a user would, several times, and prints the median wall-clock
times with the machine they ran on. Targets (issue 2): cold at most 15 s with
--jobs 2, warm at most 1 s.

    python scripts/bench_build.py [--runs 5] [--jobs 2]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import loadavg, machine_line


def timed(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "stratstone_cad", *args], check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    load_before = loadavg()
    cold, warm, serial = [], [], []
    for _ in range(a.runs):
        with tempfile.TemporaryDirectory() as d:
            cold.append(timed(["build", "stratstone", "--out", d, "--jobs", str(a.jobs), "--quiet"]))
            warm.append(timed(["build", "stratstone", "--out", d, "--jobs", str(a.jobs), "--quiet"]))
        with tempfile.TemporaryDirectory() as d:
            serial.append(timed(["build", "stratstone", "--out", d, "--jobs", "1", "--quiet"]))
    med = statistics.median
    print(f"machine: {machine_line()}")
    print(f"runs: {a.runs} (median, min-max)")
    print(f"cold build, --jobs {a.jobs}: {med(cold):.2f} s ({min(cold):.2f}-{max(cold):.2f})  target <= 15 s")
    print(f"cold build, --jobs 1: {med(serial):.2f} s ({min(serial):.2f}-{max(serial):.2f})"
          f"  speed-up {med(serial) / med(cold):.2f}x")
    print(f"unchanged rebuild: {med(warm):.3f} s ({min(warm):.3f}-{max(warm):.3f})  target <= 1 s")
    print(f"1-minute load average before / after: {load_before} / {loadavg()}")


if __name__ == "__main__":
    main()
