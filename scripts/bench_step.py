"""The CAD files of issue 24, timed: ``build --step`` cold and unchanged, the build without
``--step`` side by side with another tree, and the model API.

Each round, in turn: a cold ``build --jobs 2`` (no --step) of the tree before and of this
tree, each into a fresh folder with a fresh cache (XDG_CACHE_HOME); a cold ``build --step
--jobs 2`` of this tree, then the same build again (unchanged: every file cached). Then,
in one warm process: ``models.part("stratstone/board")`` and ``models.assembly(GAME)`` per
game. Medians over the rounds; the machine is shared, so compare ratios of one run. Usage::

    git worktree add --detach /tmp/before <commit>
    .venv/bin/python scripts/bench_step.py /tmp/before [--rounds 3]
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

HERE = Path(__file__).resolve().parent.parent


def _run(tree: Path, out: str, cache: str, *flags: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree), XDG_CACHE_HOME=cache)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "stratstone_cad", "build", "--out", out, "--jobs", "2", "--quiet", *flags],
                   check=True, capture_output=True, env=env, cwd=tree)
    return time.perf_counter() - t


def _api(rounds: int) -> dict[str, float]:
    code = f"""
import statistics, time
from stratstone_cad import models
models.part("stratstone/board")
t = []
for _ in range({rounds}):
    s = time.perf_counter(); models.part("stratstone/board"); t.append(time.perf_counter() - s)
print("models.part('stratstone/board') warm", statistics.median(t))
for g in ("stratstone", "sage-stones", "terrain"):
    s = time.perf_counter(); models.assembly(g); print(f"models.assembly('{{g}}')", time.perf_counter() - s)
"""
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(HERE)))
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in done.stdout.splitlines()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path, help="the tree to compare the build without --step with")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    times: dict[str, list[float]] = {k: [] for k in ("before build", "this build", "this build --step cold",
                                                       "this build --step unchanged")}
    for _ in range(a.rounds):
        for label, tree in (("before build", a.before), ("this build", HERE)):
            with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as cache:
                times[label].append(_run(tree, out, cache))
        with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as cache:
            times["this build --step cold"].append(_run(HERE, out, cache, "--step"))
            times["this build --step unchanged"].append(_run(HERE, out, cache, "--step"))
    print(machine_line(), f"load {loadavg()}")
    for k, v in times.items():
        print(f"{k:32s} median {statistics.median(v):7.2f} s  ({', '.join(f'{x:.2f}' for x in v)})")
    ratio = statistics.median(times["this build"]) / statistics.median(times["before build"])
    print(f"{'this / before (no --step)':32s} {ratio:.3f}")
    for k, v in _api(a.rounds * 2 + 1).items():
        print(f"{k:32s} {v:7.2f} s")


if __name__ == "__main__":
    main()
