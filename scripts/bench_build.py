#!/usr/bin/env python3
"""Benchmark: cold build of every game's default assets, with 1 and 2 jobs, and the
unchanged (cached) rebuild.

Runs the real command line (``python -m stratstone_cad build``) into a fresh temporary
output folder, as a user would, several times, and prints the medians with the machine
they ran on. The ``--jobs 1`` and ``--jobs 2`` builds alternate, so both see the same
machine load and their ratio is measured side by side. Each cold build starts with an
empty cache folder too (``XDG_CACHE_HOME``: the memo of checks and tile plans,
:mod:`stratstone_cad.base.memo`), as a first build on a new machine; the rebuilds that follow
find what it remembered, as a user's next build does, and alternate with rebuilds that
have the memo off (``STRATSTONE_MEMO=off``), which shows what it saves. Targets (issue 7):
cold build at most 20 s, unchanged rebuild at most 0.3 s, ``--jobs 2`` at least 1.8x
faster than ``--jobs 1``.

The machine's own ceiling for that speed-up is measured last (``--ceiling-rounds``): the
same 16 stones made by the build's worker pool with one worker, then with two, in turn;
the per-stone times show how much two busy cores slow each other (two vCPUs of a shared
host), and ``2 x one / two`` is the speed-up two workers can give that work at best.

    python scripts/bench_build.py [--runs 5] [--games stratstone ...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile

from benchlib import loadavg, machine_line, timed


def _timed_stone(job, mesh, profiles, out: str) -> float:
    import time

    from stratstone_cad.pipeline.build import run_job

    t = time.perf_counter()
    run_job(job, mesh, profiles, out, "bench")
    return time.perf_counter() - t


def ceiling(rounds: int) -> tuple[list[float], list[float]]:
    """Per-stone seconds of 16 stones made by a pool of one worker and of two, in turn."""
    import os

    from stratstone_cad.base.printers import get_printer, load_profiles
    from stratstone_cad.pipeline import scheduler
    from stratstone_cad.registry import ASSETS, load_params

    ps, profiles = load_params(), load_profiles()
    stones = [j for j in ASSETS["stratstone"].plan(ps.params_of("stratstone"), get_printer(None), profiles, ps.mesh)
              if "/stone-" in j.id][:16]
    one: list[float] = []
    two: list[float] = []
    scheduler.start_fork_server()
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "stratstone"))
        for _ in range(rounds):
            for workers, into in ((1, one), (2, two)):
                with scheduler.worker_pool(workers) as pool:
                    for f in [pool.submit(_timed_stone, s, ps.mesh, profiles, d) for s in stones[:workers]]:
                        f.result()  # each worker's first part pays its first imports
                    into += [f.result() for f in [pool.submit(_timed_stone, s, ps.mesh, profiles, d) for s in stones]]
    return one, two


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--games", nargs="*", default=[], help="games to build (default: all)")
    ap.add_argument("--ceiling-rounds", type=int, default=3, help="rounds of the two-worker ceiling (0: none)")
    a = ap.parse_args()
    load_before = loadavg()
    two, one, warm, off = [], [], [], []
    for _ in range(a.runs):
        with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as cache:
            env = {"XDG_CACHE_HOME": cache}
            two.append(timed(["build", *a.games, "--out", d, "--jobs", "2", "--quiet"], env))
            for _ in range(3):
                warm.append(timed(["build", *a.games, "--out", d, "--jobs", "2", "--quiet"], env))
                off.append(timed(["build", *a.games, "--out", d, "--jobs", "2", "--quiet"],
                                 {**env, "STRATSTONE_MEMO": "off"}))
        with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as cache:
            one.append(timed(["build", *a.games, "--out", d, "--jobs", "1", "--quiet"], {"XDG_CACHE_HOME": cache}))
    med = statistics.median
    ratios = [s / p for s, p in zip(one, two, strict=True)]
    print(f"machine: {machine_line()}")
    print(f"games: {' '.join(a.games) or 'all'}; runs: {a.runs} (median, min-max)")
    print(f"cold build, --jobs 2: {med(two):.2f} s ({min(two):.2f}-{max(two):.2f})  target <= 20 s")
    print(f"cold build, --jobs 1: {med(one):.2f} s ({min(one):.2f}-{max(one):.2f})")
    print(f"speed-up of --jobs 2: {med(one) / med(two):.2f}x of the medians; per pair "
          f"{', '.join(f'{r:.2f}' for r in ratios)}  target >= 1.8x")
    print(f"unchanged rebuild: {med(warm):.3f} s ({min(warm):.3f}-{max(warm):.3f}, {len(warm)} runs)  target <= 0.3 s")
    print(f"unchanged rebuild, memo off: {med(off):.3f} s ({min(off):.3f}-{max(off):.3f}, {len(off)} runs)")
    if a.ceiling_rounds:
        solo, pair = ceiling(a.ceiling_rounds)
        print(f"a stone in a worker, alone: {med(solo):.3f} s; beside another: {med(pair):.3f} s "
              f"({len(solo)} stones each); ceiling of the speed-up: {2 * med(solo) / med(pair):.2f}x")
    print(f"1-minute load average before / after: {load_before} / {loadavg()}")


if __name__ == "__main__":
    main()
