"""Benchmark ``puzzles`` at depth 1 and depth 3 on a long logged game of each game.

For every registered game (the registry's, never a list written here) a game is played
(greedy against random, seeds from ``--seed`` on, the first whose game lasts at least
``--plies`` plies or, where none does in ``--tries`` seeds, the longest) and its puzzles
found as ``puzzles LOG --depth D`` finds them, ``--rounds`` times a depth, with its
process time (CPU seconds: the machine is shared) beside the wall clock. Prints one row a
game and depth for docs/benchmarks.md's puzzle table, with the machine and its load.

Usage::

    .venv/bin/python scripts/bench_puzzles.py [--rounds 1] [--plies 40] [--only GAME]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_review import long_game  # noqa: E402  (scripts/ is on the path when run as a script)
from benchlib import loadavg, machine_line  # noqa: E402

from stratstone_cad.analysis.puzzles import DEPTHS, deep_search, find_puzzles  # noqa: E402
from stratstone_cad.log import logfile as _log  # noqa: E402
from stratstone_cad.registry import game_names, get_game  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tries", type=int, default=20)
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as folder:
        for name in game_names() if args.only is None else [args.only]:
            records, seed = long_game(name, args.seed, args.plies, args.tries)
            log = Path(folder) / f"{name}.jsonl"
            _log.write_log(log, records)
            count = sum(1 for r in records if "ply" in r)
            for depth in DEPTHS if deep_search(get_game(name), 2) else DEPTHS[:1]:
                walls, cpus, found = [], [], []
                for _ in range(args.rounds):
                    wall, cpu = time.perf_counter(), time.process_time()
                    found = list(find_puzzles(log, depth))
                    walls.append(time.perf_counter() - wall)
                    cpus.append(time.process_time() - cpu)
                deep = sum(p["depth"] == 3 for p in found)
                print(f"| {name}, {count} plies (greedy-random, seed {seed}) | {depth} | {len(found)} ({deep} of depth 3) | "
                      f"**{statistics.median(cpus):.1f} s** CPU ({statistics.median(cpus) / count:.2f} s a ply) | "
                      f"{statistics.median(walls):.1f} s | load {loadavg()} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
