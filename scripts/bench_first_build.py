#!/usr/bin/env python3
"""Benchmark: the first ``stratstone-cad build --plates`` (parts, plates, PrusaSlicer's print
report) of main at a commit against the work tree, side by side in one run.

Each round builds every game's default assets with their plates and the print report, once
with each tree, in turn (which goes first alternates), each build the real command line
(``python -m stratstone_cad build --plates``, ``--jobs`` left at its default: every usable
core) with the tree first on ``PYTHONPATH``, into a fresh output folder and with a fresh
cache folder (``XDG_CACHE_HOME``: nothing remembered, :mod:`stratstone_cad.base.memo`). The
commit is taken with ``git archive`` into a temporary folder (the checkout is not touched).
The report gives each tree's median over the rounds and each round's times (wall clock, and
the CPU time of the build and all it ran, which other work on the machine skews less), how many
PrusaSlicer runs each build made and whether both trees gave it the same files (a wrapper
on the slicer notes the sha256 of each), and how the print reports' figures compare:
PrusaSlicer 2.5's estimates vary by a few seconds from one run of the same file to the next
(its seam placer samples at random for an aligned seam, not for the plates' rear one), so two
builds of one tree may differ too. The machine is
shared: only figures of one run mean anything side by side. Usage::

    .venv/bin/python scripts/bench_first_build.py [--commit HEAD] [--rounds 3] [--games terrain ...]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import loadavg, machine_line

ROOT = Path(__file__).resolve().parent.parent

#: A PrusaSlicer that notes the sha256 of each 3MF it is given (its last argument), then is the real one.
WRAPPER = """#!/bin/sh
for last; do :; done
if [ -f "$last" ]; then sha256sum "$last" | cut -c1-64 >> "{log}"; fi
exec "{exe}" "$@"
"""


def build(tree: Path, work: Path, name: str, exe: str, games: list[str]) -> tuple[float, float, dict, str, list[str]]:
    """One cold build with ``tree``: its seconds, the CPU seconds of its processes (the
    slicers' too), its manifest's plates, its print report and the sha256 of each 3MF
    PrusaSlicer was given."""
    out, cache, log = work / f"out-{name}", work / f"cache-{name}", work / f"slices-{name}.log"
    for p in (out, cache):
        shutil.rmtree(p, ignore_errors=True)
    cache.mkdir()
    log.unlink(missing_ok=True)
    wrapper = work / "prusa-slicer"
    wrapper.write_text(WRAPPER.format(log=log, exe=exe))
    wrapper.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(tree), XDG_CACHE_HOME=str(cache), STRATSTONE_PRUSA_SLICER=str(wrapper))
    env.pop("STRATSTONE_MEMO", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "stratstone_cad", "build", *games, "--plates", "--out", str(out), "--quiet"],
                   check=True, capture_output=True, env=env, cwd=tree)
    seconds = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # every process below it, each waited for
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    plates = {e["file"]: e for e in json.loads((out / "manifest.json").read_text())["plates"]}
    slices = sorted(log.read_text().split()) if log.exists() else []
    return seconds, cpu, plates, (out / "print-report.md").read_text(), slices


FIGURES = ("time_s", "filament_m", "filament_g", "layers", "ironed", "ironing_time_s", "flat_time_s", "flat_layers")


def differences(a: dict, b: dict) -> str:
    """How the figures of two builds' plates differ: the plates and figures that do, the largest time apart."""
    changed, largest = set(), 0
    for f in sorted(set(a) | set(b)):
        pa, pb = (a.get(f) or {}).get("print", {}), (b.get(f) or {}).get("print", {})
        for k in FIGURES:
            if pa.get(k) != pb.get(k):
                changed.add((f, k))
                if k.endswith("time_s") and k in pa and k in pb:
                    largest = max(largest, abs(pa[k] - pb[k]))
    if not changed:
        return "every figure the same"
    return (f"{len(changed)} figures of {len({f for f, _ in changed})} plates differ, times by {largest} s at most")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commit", default="HEAD", help="the commit of main to compare with (default HEAD)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", nargs="*", default=[], help="the games to build (default: every game)")
    a = ap.parse_args()
    exe = os.environ.get("STRATSTONE_PRUSA_SLICER") or shutil.which("prusa-slicer")
    if not exe:
        sys.exit("prusa-slicer is not installed: the print report's slicing is what this measures")
    load_before = loadavg()
    commit = subprocess.run(["git", "rev-parse", "--short", a.commit], check=True, capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-first-") as tmp:
        work = Path(tmp)
        main_tree = work / "main"
        main_tree.mkdir()
        archive = subprocess.run(["git", "archive", commit], check=True, capture_output=True, cwd=ROOT).stdout
        subprocess.run(["tar", "-x", "-C", str(main_tree)], input=archive, check=True)
        trees = {f"main {commit}": main_tree, "work tree": ROOT}
        times: dict[str, list[float]] = {k: [] for k in trees}
        cpus: dict[str, list[float]] = {k: [] for k in trees}
        slices: dict[str, list[list[str]]] = {k: [] for k in trees}
        figures: dict[str, list[dict]] = {k: [] for k in trees}
        reports: dict[str, list[str]] = {k: [] for k in trees}
        for r in range(a.rounds):
            order = list(trees) if r % 2 == 0 else list(reversed(trees))
            for name in order:
                s, cpu, plates, report, n = build(trees[name], work, name.split()[0], exe, a.games)
                times[name].append(s)
                cpus[name].append(cpu)
                slices[name].append(n)
                figures[name].append(plates)
                reports[name].append(report)
            print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f} s, CPU {cpus[k][-1]:.1f} s ({len(slices[k][-1])} slices)"
                                                for k, v in times.items()) + f"; load {loadavg()}", flush=True)
    first, second = trees
    print(f"machine: {machine_line()}")
    print(f"rounds: {a.rounds} (median, min-max); cold build --plates of {' '.join(a.games) or 'every game'}, "
          f"--jobs {len(os.sched_getaffinity(0))}")
    for k, v in times.items():
        print(f"{k}: {statistics.median(v):.1f} s ({min(v):.1f}-{max(v):.1f}), CPU {statistics.median(cpus[k]):.1f} s "
              f"({min(cpus[k]):.1f}-{max(cpus[k]):.1f}), PrusaSlicer runs {[len(n) for n in slices[k]]}")
    print(f"work tree against main: {statistics.median(times[second]) / statistics.median(times[first]):.3f} in time "
          f"(per round {', '.join(f'{b / m:.3f}' for m, b in zip(times[first], times[second], strict=True))}), "
          f"{statistics.median(cpus[second]) / statistics.median(cpus[first]):.3f} in CPU")
    for r in range(a.rounds):
        same = reports[first][r] == reports[second][r]
        given = "the same" if slices[first][r] == slices[second][r] else "not the same"
        print(f"round {r + 1}: PrusaSlicer given {given} files (sha256) by both; print reports "
              f"{'identical' if same else 'differ'}; main against work tree: "
              f"{differences(figures[first][r], figures[second][r])}")
    for k in trees:
        if a.rounds > 1:
            print(f"{k}, round 1 against round 2 (PrusaSlicer's own variation): "
                  f"{differences(figures[k][0], figures[k][1])}; reports "
                  f"{'identical' if reports[k][0] == reports[k][1] else 'differ'}")
    print(f"1-minute load average before / after: {load_before} / {loadavg()}")


if __name__ == "__main__":
    main()
