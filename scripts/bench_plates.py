#!/usr/bin/env python3
"""Benchmark: writing the print plates of every game, and PrusaSlicer slicing each plate.

1. Plate writing: a build of every game's parts (no plates) is made once; then, in a
   fresh copy of it each run, the real command line ``build --plates --no-slice``
   (every part cached, every plate written) is timed against ``build`` alone on the same
   copy (every part cached, nothing written): the difference is what the plates cost
   beyond the STL build. The two alternate, so both see the same machine load. Target
   (issue 8): every plate of every game written in at most 2 s beyond the STL build.
2. Slicing: each plate sliced by PrusaSlicer's command line as the report slices it
   (``stratstone_cad.printing.slicing.slice_plate``), ``--slice-runs`` times; the median per plate.

    python scripts/bench_plates.py [--runs 5] [--slice-runs 1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import loadavg, machine_line, timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--slice-runs", type=int, default=1)
    a = ap.parse_args()
    load_before = loadavg()
    with tempfile.TemporaryDirectory(prefix="bench-plates-") as tmp:
        parts = Path(tmp) / "parts"
        subprocess.run([sys.executable, "-m", "stratstone_cad", "build", "--quiet", "--out", str(parts)], check=True,
                       capture_output=True)
        with_plates, without = [], []
        for i in range(a.runs):
            for which, out in ((with_plates, ["--plates", "--no-slice"]), (without, [])):
                copy = Path(tmp) / f"run{i}{len(out)}"
                shutil.copytree(parts, copy)
                which.append(timed(["build", "--quiet", "--out", str(copy), *out]))
        plated = Path(tmp) / f"run{a.runs - 1}2"
        m = json.loads((plated / "manifest.json").read_text())
        sizes = {p["file"]: (plated / p["file"]).stat().st_size for p in m["plates"]}
        triangles = sum(o["triangles"] * o["copies"] for p in m["plates"] for o in p["objects"])
        from stratstone_cad.base.printers import get_printer
        from stratstone_cad.printing.slicing import find_prusaslicer, slice_plate, slicer_version

        exe = find_prusaslicer()
        slicing = {}
        if exe and a.slice_runs > 0:
            for p in m["plates"]:
                data = (plated / p["file"]).read_bytes()
                runs = []
                for _ in range(a.slice_runs):
                    t = time.perf_counter()
                    slice_plate(exe, data, get_printer(p["printer"]), p["file"])
                    runs.append(time.perf_counter() - t)
                slicing[p["file"]] = statistics.median(runs)
    w, wo = statistics.median(with_plates), statistics.median(without)
    print(f"machine: {machine_line()}; 1-minute load average {load_before} before, {loadavg()} after")
    print(f"{len(sizes)} plates, {sum(sizes.values()) / 1e6:.1f} MB, {triangles} triangles")
    print(f"build --plates --no-slice, parts cached: {w:.2f} s (median of {a.runs}; "
          f"{', '.join(f'{x:.2f}' for x in with_plates)})")
    print(f"build, parts cached, no plates:          {wo:.2f} s ({', '.join(f'{x:.2f}' for x in without)})")
    print(f"plates beyond the STL build: {w - wo:.2f} s  target <= 2 s")
    if slicing:
        print(f"\nPrusaSlicer ({slicer_version(exe)}) slicing each plate, median of {a.slice_runs}:")
        for f, s in slicing.items():
            print(f"  {f:<42} {s:6.2f} s  {sizes[f] / 1e6:5.2f} MB")
        print(f"  all plates: {sum(slicing.values()):.1f} s")


if __name__ == "__main__":
    main()
