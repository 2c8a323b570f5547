"""Compare the cold builds of two checkouts side by side, in one run.

For a change to how the build runs (issue 7: ``--jobs 2`` at least 1.8x faster than
``--jobs 1``), each round builds every game's default assets into a fresh temporary
folder three times, in turn: the first tree with ``--jobs 2``, the second tree with
``--jobs 2``, the second tree with ``--jobs 1``. Each build is the real command line
(``python -m stratstone_cad build``) with the tree first on ``PYTHONPATH``. The report gives
each build's median over the rounds, the second tree's ``--jobs 2`` time against the first
tree's, and the speed-up of ``--jobs 2`` with each tree (against the second tree's
``--jobs 1``, which a change to the parallel build does not touch). The machine is shared:
only ratios of one run mean anything. Usage::

    git worktree add --detach /tmp/before HEAD~1
    .venv/bin/python scripts/bench_build_side_by_side.py /tmp/before . [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import loadavg, machine_line


def timed(tree: Path, jobs: int) -> float:
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as cache:
        # an empty cache folder too: a cold build, with nothing remembered (stratstone_cad.base.memo)
        env = dict(os.environ, PYTHONPATH=str(tree), XDG_CACHE_HOME=cache)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "stratstone_cad", "build", "--out", out, "--jobs", str(jobs), "--quiet"],
                       check=True, capture_output=True, env=env, cwd=tree)
        return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=Path, help="the tree to compare with (e.g. main)")
    ap.add_argument("second", type=Path, help="the tree with the change")
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    first, second = a.first.resolve(), a.second.resolve()
    load_before = loadavg()
    times: dict[str, list[float]] = {"first --jobs 2": [], "second --jobs 2": [], "second --jobs 1": []}
    for r in range(a.rounds):
        times["first --jobs 2"].append(timed(first, 2))
        times["second --jobs 2"].append(timed(second, 2))
        times["second --jobs 1"].append(timed(second, 1))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()), flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    one = times["second --jobs 1"]
    print(f"machine: {machine_line()}")
    print(f"first: {first}; second: {second}; rounds: {a.rounds} (median, min-max)")
    for k, v in times.items():
        print(f"{k}: {med[k]:.2f} s ({min(v):.2f}-{max(v):.2f})")
    print(f"second --jobs 2 against first --jobs 2: {med['second --jobs 2'] / med['first --jobs 2']:.3f}")
    for tree in ("first", "second"):
        pairs = [s / p for s, p in zip(one, times[f"{tree} --jobs 2"], strict=True)]
        print(f"speed-up of --jobs 2, {tree}: {med['second --jobs 1'] / med[f'{tree} --jobs 2']:.2f}x of the medians; "
              f"per round {', '.join(f'{x:.2f}' for x in pairs)} (median {statistics.median(pairs):.2f})")
    print(f"1-minute load average before / after: {load_before} / {loadavg()}")


if __name__ == "__main__":
    main()
