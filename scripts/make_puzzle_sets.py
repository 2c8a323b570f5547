"""Make the puzzle sets shipped in the package: ``stratstone_cad/games/<game>/puzzles.jsonl``.

For every registered game (the registry's, never a list written here) the search plays
against itself (``search:B`` on both sides, as ``stratstone-cad play GAME --players
search:B,search:B --seed N`` plays it), seeds 1, 2, ... in turn, and each game's puzzles
are found: to depth 3 (``puzzles --depth 3``: a win or save in one, and a win in two moves)
until ``--least-deep`` wins in two moves are found where OpenSpiel's exact search can judge
the game (not Sage Stones, whose dice it does not take), then to depth 1 (several times
faster) until the set holds ``--least`` puzzles. Each puzzle's ``source`` names its game reproducibly
(``self-play search:30 vs search:30 seed 12``); the file is written atomically. A game is
deterministic for its seed and budget, so the same arguments write the same files.

The games' logs are kept in ``--games`` (default: a temporary folder) and a log found
there is read instead of played again (the same seed and budget play the same game), and
so are a game's puzzles kept beside it (``seed-N.puzzles.jsonl``). ``--jobs N`` finds the
puzzles of N games at once; the seeds are still taken in order, so the files are the same.

Usage::

    .venv/bin/python scripts/make_puzzle_sets.py [--budget 30] [--least 30] [--least-deep 5] [--only GAME]
                                                 [--games DIR] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import machine_line  # noqa: E402  (scripts/ is on the path when run as a script)

from stratstone_cad.analysis.players import make_player  # noqa: E402
from stratstone_cad.analysis.puzzles import deep_search, find_puzzles, shipped_puzzles  # noqa: E402
from stratstone_cad.base.fileio import atomic_write  # noqa: E402
from stratstone_cad.log import logfile as _log  # noqa: E402
from stratstone_cad.log.commands import play_records  # noqa: E402
from stratstone_cad.registry import game_names, get_game  # noqa: E402

MOST_SEEDS = 1000
"""Seeds tried at most for one game before the script gives up (it says so)."""


def game_log(game: str, seed: int, budget: int, folder: Path) -> Path:
    """The log of the self-play game of ``seed`` in ``folder`` (played unless it is there)."""
    log = folder / game / f"seed-{seed}.jsonl"
    if not log.exists():
        log.parent.mkdir(parents=True, exist_ok=True)
        kinds = [f"search:{budget}"] * 2
        _log.write_log(log, play_records(game, seed, kinds, make_player=make_player))
    return log


def seed_puzzles(task: tuple[str, int, int, Path, int]) -> list[dict]:
    """The puzzles (to ``depth``) of the self-play game of one seed, kept beside its log (a
    game's depth-1 puzzles are those of depth 1 among its depth-3 ones, when kept)."""
    game, seed, budget, folder, depth = task
    log = game_log(game, seed, budget, folder)
    kept = {3: log.with_suffix(".puzzles.jsonl"), 1: log.with_suffix(".puzzles1.jsonl")}
    for d in (depth, 3):
        if kept[d].exists():
            return [p for p in map(json.loads, kept[d].read_text().splitlines()) if p["depth"] <= depth]
    puzzles = []
    for p in find_puzzles(log, depth=depth):
        p["source"] = f"self-play search:{budget} vs search:{budget} seed {seed}"
        puzzles.append(p)
    atomic_write(kept[depth], "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in puzzles).encode("utf-8"))
    return puzzles


def puzzle_set(game: str, budget: int, least: int, least_deep: int, folder: Path, jobs: int) -> tuple[list[dict], int]:
    """The puzzles of seeds 1, 2, ...: to depth 3 until ``least_deep`` of depth 3 are found
    (where the game can be searched that deep), then to depth 1 until ``least`` in all (a
    depth-3 search costs several times a depth-1 one); and the number of games played.
    ``jobs`` processes find them, the seeds taken in order: the result does not depend on ``jobs``."""
    deep = least_deep if deep_search(get_game(game), 2) else 0
    puzzles: list[dict] = []
    seed = 0
    for depth, enough in ((3, lambda: sum(p["depth"] == 3 for p in puzzles) >= deep), (1, lambda: len(puzzles) >= least)):
        if enough():
            continue
        first = seed + 1
        tasks = ((game, s, budget, folder, depth) for s in range(first, MOST_SEEDS + 1))
        with multiprocessing.Pool(jobs) as pool:  # a pool a depth: the first depth's tasks end with it
            for n, found in enumerate(pool.imap(seed_puzzles, tasks)):
                puzzles.extend(found)
                seed = first + n
                if enough():
                    break
            else:
                raise SystemExit(f"{game}: {len(puzzles)} puzzles in {MOST_SEEDS} games, fewer than asked")
    return puzzles, seed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=int, default=30, help="the search's simulations a move (both sides)")
    ap.add_argument("--least", type=int, default=30, help="puzzles a game at least")
    ap.add_argument("--least-deep", type=int, default=5, help="wins in two moves at least (games searched to depth 3)")
    ap.add_argument("--only", default=None, help="one game (default: every registered game)")
    ap.add_argument("--jobs", type=int, default=1, help="processes finding puzzles (the result is the same)")
    ap.add_argument("--games", type=Path, default=None, help="keep the games' logs here (and read those already there)")
    args = ap.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as temp:
        folder = args.games or Path(temp)
        for game in game_names() if args.only is None else [args.only]:
            start = time.perf_counter()
            puzzles, games = puzzle_set(game, args.budget, args.least, args.least_deep, folder, args.jobs)
            out = shipped_puzzles(game)
            atomic_write(out, "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in puzzles).encode("utf-8"))
            deep = sum(p["depth"] == 3 for p in puzzles)
            print(f"{game}: {len(puzzles)} puzzles ({len(puzzles) - deep} depth 1, {deep} depth 3) from {games} games "
                  f"in {time.perf_counter() - start:.0f} s -> {out.relative_to(ROOT)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
