"""The commands of the analysis on OpenSpiel: check-log's --review and puzzles."""

from __future__ import annotations

import argparse
from typing import Any

from stratstone_cad.cli.args import file_path, integer
from stratstone_cad.errors import UserError, printable

DEPTHS = (1, 3)
"""puzzles --depth: as stratstone_cad.analysis.puzzles.DEPTHS (not imported here: start-up speed)."""


def add_review_flags(ck: Any) -> None:
    """check-log's --review, --budget and --json."""
    ck.add_argument("--review", action="store_true",
                    help="review every move with the search (OpenSpiel's MCTS): one line a ply beginning with its "
                         "number (its class: best, excellent, good, inaccuracy, mistake, blunder or forced; the best "
                         "move; the mover's expected score before and after), then each player's accuracy and counts; the plies "
                         "are searched by one process a CPU, each ply's search seeded by its number: the same review on "
                         "any machine")
    ck.add_argument("--budget", metavar="N", default=None,
                    help="with --review: simulations a ply (default: the game's own search budget, as the search player's: "
                         "Sage Stones 2,000, the others 300, about 1 s a Stratstone ply)")
    ck.add_argument("--json", action="store_true",
                    help="with --review: one JSON object a ply (ply, player, move, best, class, expected_before, "
                         "expected_after, legal_moves) instead of text")


def cmd_review(args: argparse.Namespace) -> int:
    """check-log --review: a line a ply as it is reviewed, then each player's summary.

    Raises:
        UserError: --budget is given without --review, or --explain with --review.
    """
    # start-up speed: OpenSpiel only for a review
    from stratstone_cad.analysis import review

    if not args.review:
        raise UserError(f"{'--budget' if args.budget is not None else '--json'} without --review: expected "
                        "check-log --review FILE [--budget N] [--json]")
    if args.explain:
        raise UserError("--explain and --review: expected one of them")
    budget = None if args.budget is None else review.parse_budget(args.budget)
    for line in review.review_lines(args.file, budget, as_json=args.json):
        print(printable(line), flush=True)  # moves and ids are the log's text
    return 0


def add_puzzles(sub: Any) -> None:
    pz = sub.add_parser("puzzles", help="find puzzles in logged games: positions where exactly one move wins or saves "
                                        "the game",
                        description="Find the puzzles of real games: each position of the logs where exactly one of "
                                    "the legal moves wins at once, or (where none wins) is the only one after which "
                                    "the next player cannot win at once. Writes one JSON line a puzzle: the game, the "
                                    "source log and ply, the player, the solution, the move played and the position "
                                    "(replay FILE --puzzle N shows it). With --depth 3, also the positions where "
                                    "exactly one move wins in two moves (every reply leaves a win at once), proven by "
                                    "OpenSpiel's alpha-beta search.")
    pz.add_argument("logs", nargs="+", metavar="LOG", type=file_path, help="engine logs (JSON Lines)")
    pz.add_argument("--out", metavar="FILE.jsonl", type=file_path, required=True, help="the puzzle file to write")
    pz.add_argument("--depth", metavar="N", type=integer, choices=DEPTHS, default=1,
                    help="plies to look ahead: 1 (win or save in one, the default) or 3 (also a win in two moves; "
                         "games without dice and of two players only: Sage Stones gets depth 1)")
    pz.set_defaults(run=cmd_puzzles)


def cmd_puzzles(args: argparse.Namespace) -> int:
    # start-up speed: each command loads only its own layer
    from stratstone_cad.analysis.puzzles import write_puzzles
    from stratstone_cad.base.fileio import refuse_reading

    refuse_reading(args.out, [("log", log) for log in args.logs])
    print(printable(write_puzzles(args.logs, args.out, args.depth)))
    return 0
