"""Benchmark the review (``check-log --review``) at each game's own search budget.

For every registered game (the registry's, never a list written here) a game is played
(greedy against random, seeds from ``--seed`` on, the first whose game lasts at least
``--plies`` plies or, where no game lasts that long in ``--tries`` seeds, the longest) and
its log reviewed ``--rounds`` times as ``check-log --review LOG`` reviews it: without
``--budget``, at the game's ``search_simulations`` (Sage Stones 2,000, the others 300).
Prints one row a game for docs/benchmarks.md's review table, with the machine and its load.

Usage::

    .venv/bin/python scripts/bench_review.py [--rounds 3] [--plies 40] [--only GAME]
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

from benchlib import loadavg, machine_line  # noqa: E402  (scripts/ is on the path when run as a script)

from stratstone_cad.analysis.review import budget_of, review_jobs, review_log  # noqa: E402
from stratstone_cad.log import logfile as _log  # noqa: E402
from stratstone_cad.log.commands import play_records  # noqa: E402
from stratstone_cad.registry import game_names  # noqa: E402


def long_game(game: str, seed: int, plies: int, tries: int) -> tuple[list[dict], int]:
    """The first game of ``plies`` plies or more from ``seed`` on (else the longest), and its seed."""
    best: tuple[list[dict], int] = ([], seed)
    for s in range(seed, seed + tries):
        records = play_records(game, s, ["greedy", "random"])
        if len(records) > len(best[0]):
            best = (records, s)
        if sum(1 for r in records if "ply" in r) >= plies:
            break
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tries", type=int, default=20)
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    print(machine_line(), f"(the review's processes: {review_jobs()})")
    games = game_names() if args.only is None else [args.only]
    with tempfile.TemporaryDirectory() as folder:
        for name in games:
            records, seed = long_game(name, args.seed, args.plies, args.tries)
            log = Path(folder) / f"{name}.jsonl"
            _log.write_log(log, records)
            count = sum(1 for r in records if "ply" in r)
            budget = budget_of(log)
            times = []
            for _ in range(args.rounds):
                t = time.perf_counter()
                for _review in review_log(log):
                    pass
                times.append(time.perf_counter() - t)
            runs = ", ".join(f"{x:.1f}" for x in times)
            print(f"| {name}, {count} plies (greedy-random, seed {seed}) | its own, {budget:,} simulations a ply | "
                  f"**{statistics.median(times):.1f} s** ({runs}; {statistics.median(times) / count:.2f} s a ply) | "
                  f"load {loadavg()} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
