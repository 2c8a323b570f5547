"""The commands of the games' logs: play (a game between players), record (a game at the table) and check-log."""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Any

from stratstone_cad.cli.analysis import add_review_flags, cmd_review
from stratstone_cad.cli.args import (
    add_map_flag,
    file_path,
    integer,
    map_args,
    map_choices,
    map_games,
    players_arg,
    setup_arg,
    warn,
)
from stratstone_cad.errors import UserError, listed, printable
from stratstone_cad.registry import FACTS, get_game


def add_play(sub: Any) -> None:
    pl = sub.add_parser("play", help="play a whole game between built-in players and write its log",
                        description="Play a game between built-in players (random, greedy, and search: "
                                    "OpenSpiel's MCTS) and write its engine log (JSON Lines).")
    pl.add_argument("game", metavar="GAME", help=listed(list(FACTS), "or"))
    pl.add_argument("--seed", type=integer, default=None, help="seed of the players' and the dice's randomness")
    pl.add_argument("--players", default=None,
                    help="comma-separated player kinds, e.g. random,greedy or search,greedy; search takes a budget: "
                         "search:300 (simulations a move) or search:2s (seconds a move); search alone: the game's own default, "
                         "about a second a move")
    pl.add_argument("--out", metavar="FILE", type=file_path, default=None, help="log file (default: standard output)")
    pl.add_argument("--setup", metavar="JSON", default=None,
                    help='the game\'s setup as a JSON object, e.g. \'{"first": "red"}\' (Stratstone) or '
                         '\'{"variant": "two-player"}\' (Sage Stones); see docs/log-format.md')
    for g in map_games():
        add_map_flag(pl, g, "file", f"{g.NAME} game: play on this heightmap ({g.MAP_TEXT}, or a {g.NAME}-game log "
                                    "whose header holds one) instead of the map generated from --seed; an unfair map "
                                    "is played with a warning")
    _add_kit_flag(pl)
    pl.set_defaults(run=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    # start-up speed: each command loads only its own layer: --help and check-log no CAD, no VTK
    from stratstone_cad.analysis.players import make_player
    from stratstone_cad.log import commands

    players = players_arg(args, "player kinds", "random,greedy")
    setup = _with_kit(args, setup_arg(args))
    map_file = next((file for _, _, file in map_args(args, "file") if file is not None), None)
    if args.out is not None:
        from stratstone_cad.base.fileio import refuse_reading  # no CAD: fileio imports only errors

        refuse_reading(args.out, [(f"{flag} file", file) for _, flag, file in map_args(args, "file")])
    text = commands.play(args.game, args.seed, players, args.out, setup, map_file=map_file,
                         on_warning=warn,
                         make_player=make_player)
    sys.stdout.write("".join(printable(line) + "\n" for line in text.split("\n")))  # it names --out
    return 0


def add_record(sub: Any) -> None:
    rc = sub.add_parser("record", help="record a game played at the table, move by move",
                        description="Record a game played at the table: the prompt shows the position and "
                                    "reads one move at a time in the log's notation, checked by the rules "
                                    "engine; the log is written after every move. Reads standard input when "
                                    "it is not a terminal. Type help at the prompt for the commands. A move is "
                                    "written as the log writes it, in any case (B2 nne is logged as b2 NNE): "
                                    + "; ".join(f"{name}: {getattr(f, 'MOVE_TEXT', 'as its log')}"
                                                for name, f in FACTS.items()) + ".")
    rc.add_argument("game", nargs="?", metavar="GAME", help=listed(list(FACTS), "or"))
    rc.add_argument("--out", metavar="FILE.jsonl", type=file_path, default=None, help="the new log file")
    rc.add_argument("--resume", metavar="FILE.jsonl", type=file_path, default=None,
                    help="continue this unfinished log instead of starting a game")
    rc.add_argument("--players", default=None,
                    help="comma-separated player ids: the colours at the table for Sage Stones, e.g. "
                         "yellow,red,blue (default: the game's, 4 colours for Sage Stones)")
    rc.add_argument("--setup", metavar="JSON", default=None, help="the game's setup, as for play")
    rc.add_argument("--roll", action="store_true", help="Sage Stones: the program rolls the dice")
    rc.add_argument("--seed", type=integer, default=None,
                    help="with --roll: the dice's seed (recorded); with --kit: the seed that picks the kit's map")
    rc.add_argument("--vs", metavar="PLAYER", default=None,
                    help="play against the engine: search (search:300, search:2s), greedy or random moves for every "
                         "side but yours; its reply is printed, to be made on the board, and logged")
    rc.add_argument("--as", metavar="SIDE", dest="vs_as", default=None,
                    help="with --vs: the side you play (default the first, e.g. yellow in Stratstone)")
    for g in map_games():
        seed = g.MAP_FLAGS["seed"]
        add_map_flag(rc, g, "seed", f"{g.NAME} game: played on the map of seed N (the board build {seed} N prints); "
                                    "with --vs and no map, one is picked and its seed printed")
        add_map_flag(rc, g, "file", f"{g.NAME} game: played on this heightmap ({g.MAP_TEXT}, or a {g.NAME}-game "
                                    "log whose header holds one)")
    _add_kit_flag(rc)
    rc.set_defaults(run=cmd_record)


def _add_kit_flag(p: Any) -> None:
    from stratstone_cad.cli.kit import kit_games

    if kit_games():
        p.add_argument("--kit", action="store_true",
                       help=f"{' or '.join(kit_games())} game: played on a map the printed kit lays (build --kit), "
                            "picked by the seed; the log's setup says how to lay the tiles (kit setup draws it)")


def _with_kit(args: argparse.Namespace, setup: dict[str, Any] | None) -> dict[str, Any] | None:
    """The setup with a map of the game's kit (--kit): the kit's parameters from the presets."""
    if not getattr(args, "kit", False):
        return setup
    from stratstone_cad.cli.kit import kit_setup

    if args.game is None:
        raise UserError("--kit: expected the game, e.g. record terrain --kit")
    maps = [(flag, value) for what in ("seed", "file") for _, flag, value in map_args(args, what) if value is not None]
    if maps or (setup and "heightmap" in setup):
        raise UserError(f"--kit with {maps[0][0] if maps else '--setup heightmap'}: expected one map, the kit's or "
                        "the one given")
    return {**(setup or {}), **kit_setup(args.game)}


def cmd_record(args: argparse.Namespace) -> int:
    """record: play a game at the keyboard (against a player with --vs) and log it.

    Raises:
        UserError: --seed is given without --roll, or a header option with --resume.
    """
    # start-up speed: each command loads only its own layer: --help and check-log no CAD, no VTK
    from stratstone_cad.log import record

    record.check_args(args.out, args.resume, args.game)
    vs = None
    if args.vs is not None:
        from stratstone_cad.analysis.players import make_player  # OpenSpiel itself only when the search moves

        vs = make_player(args.vs, get_game(args.game) if args.game else record.log_game(args.resume))
    if args.seed is not None and not args.roll and not getattr(args, "kit", False):
        raise UserError(f"--seed {args.seed} without --roll: the dice are typed in; add --roll to have them rolled")
    stdin = sys.stdin  # None when standard input is closed: read as an empty one
    if stdin is not None and hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")  # a stray byte is a mistyped move, not a traceback
    interactive = stdin is not None and stdin.isatty()  # the prompt shows even when stdout is a pipe

    def say(text: str) -> None:
        print("\n".join(printable(line) for line in text.split("\n")), flush=True)

    log = args.out or args.resume
    try:
        if args.resume is not None:
            maps = [(flag, value) for what in ("seed", "file") for _, flag, value in map_args(args, what)]
            for flag, value in (("--setup", args.setup), ("--players", args.players), *maps, ("--seed", args.seed)):
                if value is not None:
                    raise UserError(f"{flag} with --resume: the log's header already says it; leave {flag} out")
            line = record.resume(args.resume, args.game, roll=args.roll, stdin=stdin, say=say, interactive=interactive,
                                 vs=vs, vs_as=args.vs_as)
        else:
            setup = _with_kit(args, setup_arg(args)) or {}
            if getattr(args, "kit", False):  # the map now, from --seed or a fresh one: the table lays it first
                seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
                setup = dict(get_game(args.game).play_setup(setup, seed) or {})
            for g, seed, file in map_choices(args, "file"):
                map_field, seed_field = g.MAP_FIELDS
                if seed is not None:
                    setup[seed_field] = seed
                if file is not None:
                    setup[map_field] = get_game(g.NAME).load_map(file)
            line = record.record(args.game, args.out, setup or None, players_arg(args, "player ids", "yellow,red,blue"),
                                 roll=args.roll, seed=args.seed, stdin=stdin, say=say, interactive=interactive,
                                 on_warning=warn, vs=vs, vs_as=args.vs_as)
    except KeyboardInterrupt:
        if interactive:
            print()  # off the prompt's line
        if log is not None and os.path.isfile(log):
            say(f"kept {printable(str(log))}: every move entered (record --resume {printable(str(log))} continues it)")
        raise
    say(line)
    return 0


def add_check_log(sub: Any) -> None:
    ck = sub.add_parser("check-log", help="validate an engine log and print its result",
                        description="Validate an engine log: its schema, then every ply through the "
                                    "rules engine. Prints the result; exits 2 naming the line, the ply "
                                    "and the broken rule when the log is invalid.")
    ck.add_argument("file", metavar="FILE", type=file_path, help="the engine log (JSON Lines) to check")
    ck.add_argument("--explain", action="store_true",
                    help="also print every ply in words as it is checked, one line each beginning with its ply number: "
                         "the terrain game's step costs and attack sums, Sage Stones' dice, column and traps, "
                         "Stratstone's sowing and winning line")
    add_review_flags(ck)
    ck.set_defaults(run=cmd_check_log)


def cmd_check_log(args: argparse.Namespace) -> int:
    # start-up speed: each command loads only its own layer: --help and check-log no CAD, no VTK
    from stratstone_cad.log import commands

    if args.review or args.budget is not None or args.json:
        return cmd_review(args)
    if args.explain:
        for line in commands.explain_log(args.file):
            print(printable(line), flush=True)  # the reason and the ids are the log's text
        return 0
    print(printable(commands.check_log(args.file)))  # the result's reason is the log's text
    return 0

