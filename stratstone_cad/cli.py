"""The ``stratstone-cad`` command line: parses arguments, calls the layers, prints
errors as one line (exit code 2). Heavy layers are imported by the command that uses
them, so ``--help`` and a cached rebuild start fast.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

from stratstone_cad import __version__
from stratstone_cad.errors import BuildError, OutputError, UserError, counted, printable
from stratstone_cad.registry import FACTS, get_game

PROG = "stratstone-cad"


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (no usage dump) and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {error_line(message)} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description=f"Printable assets, rules engines and replays for "
                                       f"{_listed([f.TITLE for f in FACTS.values()], 'and')}.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    b = sub.add_parser("build", help="build the parts (STL), with --plates the print plates (3MF) and the print report, "
                                     "with --step STEP files and each set (STEP, glTF), and output/manifest.json",
                       description="Build every asset of the games named (all games when none) into the "
                                   "output folder: checked, watertight binary STL files and manifest.json; with "
                                   "--plates the print plates (one 3MF per print job, the slicer settings inside) "
                                   "and print-report.md (PrusaSlicer's times and filament unless --no-slice); with "
                                   "--step a STEP file beside each STL and each game's set as GAME/set.step and "
                                   "GAME/set.glb. Unchanged assets are taken from the cache.")
    b.add_argument("games", nargs="*", metavar="GAME", help="games to build (default: all)")
    b.add_argument("--printer", metavar="NAME", help="printer whose bed a part must fit (see 'list')")
    b.add_argument("--out", metavar="DIR", type=_path, default=Path("output"), help="output folder (default: output)")
    b.add_argument("--jobs", metavar="N", type=_integer, default=None,
                   help="parts built in parallel (default and most: the cores this process may use)")
    b.add_argument("--plates", action="store_true",
                   help="also write the print plates: one 3MF per print job and bed, the parts arranged on the "
                        "printer's bed with their slicer settings (layer heights, ironing) embedded")
    b.add_argument("--step", action="store_true",
                   help="also write a STEP file beside each STL (a B-rep in mm, for FreeCAD, Fusion, Onshape) and each "
                        "game's set as a coloured assembly, GAME/set.step and GAME/set.glb")
    b.add_argument("--no-slice", action="store_true",
                   help="with --plates: do not slice the plates with PrusaSlicer for the print report's times and "
                        "filament (slicing every plate the first time takes a few minutes)")
    _param_args(b)
    for g in _map_games():  # a game played on a map: its board's map by seed or from a file
        b.add_argument(g.MAP_FLAGS["seed"], metavar="N", type=_integer, default=None, dest=_map_dest(g, "seed"),
                       help=f"{g.NAME} board: the engine's fair map of seed N (the same as "
                            f"--set {g.MAP_PARAMETERS['seed']}=N; the preset's seed by default)")
        b.add_argument(g.MAP_FLAGS["board file"], metavar="FILE", type=_file_path, default=None,
                       dest=_map_dest(g, "board file"),
                       help=f"{g.NAME} board: the map in FILE, {g.MAP_TEXT} or a {g.NAME}-game log whose header "
                            f"holds one (--set {g.MAP_PARAMETERS['board file']}=FILE)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")

    ls = sub.add_parser("list", help="list the models, their parameters and the printers",
                        description="Show every model's parameters with defaults, units and allowed "
                                    "values, the print profiles and the printers.")
    _param_args(ls)

    pl = sub.add_parser("play", help="play a whole game between built-in players and write its log",
                        description="Play a game between built-in players (random, greedy, and search: "
                                    "OpenSpiel's MCTS) and write its engine log (JSON Lines).")
    pl.add_argument("game", metavar="GAME", help=_listed(list(FACTS), "or"))
    pl.add_argument("--seed", type=_integer, default=None, help="seed of the players' and the dice's randomness")
    pl.add_argument("--players", default=None,
                    help="comma-separated player kinds, e.g. random,greedy or search,greedy; search takes a budget: "
                         "search:300 (simulations a move, the default) or search:2s (seconds a move)")
    pl.add_argument("--out", metavar="FILE", type=_file_path, default=None, help="log file (default: standard output)")
    pl.add_argument("--setup", metavar="JSON", default=None,
                    help='the game\'s setup as a JSON object, e.g. \'{"first": "red"}\' (Stratstone) or '
                         '\'{"variant": "two-player"}\' (Sage Stones); see docs/log-format.md')
    for g in _map_games():
        pl.add_argument(g.MAP_FLAGS["file"], metavar="FILE.json", type=_file_path, default=None, dest=_map_dest(g, "file"),
                        help=f"{g.NAME} game: play on this heightmap ({g.MAP_TEXT}, or a {g.NAME}-game log whose "
                             "header holds one) instead of the map generated "
                             "from --seed; an unfair map is played with a warning")

    rc = sub.add_parser("record", help="record a game played at the table, move by move",
                        description="Record a game played at the table: the prompt shows the position and "
                                    "reads one move at a time in the log's notation, checked by the rules "
                                    "engine; the log is written after every move. Reads standard input when "
                                    "it is not a terminal. Type help at the prompt for the commands. A move is "
                                    "written as the log writes it: "
                                    + "; ".join(f"{name}: {getattr(f, 'MOVE_TEXT', 'as its log')}"
                                                for name, f in FACTS.items()) + ".")
    rc.add_argument("game", nargs="?", metavar="GAME", help=_listed(list(FACTS), "or"))
    rc.add_argument("--out", metavar="FILE.jsonl", type=_file_path, default=None, help="the new log file")
    rc.add_argument("--resume", metavar="FILE.jsonl", type=_file_path, default=None,
                    help="continue this unfinished log instead of starting a game")
    rc.add_argument("--players", default=None,
                    help="comma-separated player ids: the colours at the table for Sage Stones, e.g. "
                         "yellow,red,blue (default: the game's, 4 colours for Sage Stones)")
    rc.add_argument("--setup", metavar="JSON", default=None, help="the game's setup, as for play")
    rc.add_argument("--roll", action="store_true", help="Sage Stones: the program rolls the dice")
    rc.add_argument("--seed", type=_integer, default=None, help="with --roll: the dice's seed (recorded)")
    rc.add_argument("--vs", metavar="PLAYER", default=None,
                    help="play against the engine: search (search:300, search:2s), greedy or random moves for every "
                         "side but yours; its reply is printed, to be made on the board, and logged")
    rc.add_argument("--as", metavar="SIDE", dest="vs_as", default=None,
                    help="with --vs: the side you play (default the first, e.g. yellow in Stratstone)")
    for g in _map_games():
        seed = g.MAP_FLAGS["seed"]
        rc.add_argument(seed, metavar="N", type=_integer, default=None, dest=_map_dest(g, "seed"),
                        help=f"{g.NAME} game: played on the map of seed N (the board build {seed} N prints)")
        rc.add_argument(g.MAP_FLAGS["file"], metavar="FILE.json", type=_file_path, default=None, dest=_map_dest(g, "file"),
                        help=f"{g.NAME} game: played on this heightmap ({g.MAP_TEXT}, or a {g.NAME}-game "
                             "log whose header holds one)")

    pv_ = sub.add_parser("preview", help="look at assets in 3D: a window, a still (PNG), a turntable (GIF, MP4), a contact "
                                         "sheet, the parts to orbit as glTF or an offline HTML page",
                         description="Show the assets named (game/part such as stratstone/stone-red-03, a whole "
                                     "game, or all when none) in 3D in their print colours: an interactive window "
                                     "(drag to orbit, scroll to zoom, r resets the view), or off screen with --out "
                                     "(.png a still, .gif or .mp4 a turntable, .glb or .html the parts to orbit in a "
                                     "glTF viewer or any browser) or --sheet (a contact sheet, each "
                                     "asset labelled). The meshes are the build's, tessellated more coarsely and "
                                     "cached.")
    pv_.add_argument("assets", nargs="*", metavar="ASSET", help="assets or games (default: every asset)")
    pv_.add_argument("--out", metavar="FILE", type=_file_path, default=None,
                     help="FILE.png, FILE.gif, FILE.mp4, FILE.glb or FILE.html")
    pv_.add_argument("--sheet", metavar="FILE.png", type=_file_path, default=None, help="a contact sheet of the assets")
    pv_.add_argument("--size", metavar="WxH", default=None, help="image size in pixels (default 1280x720)")
    pv_.add_argument("--frames", metavar="N", type=_integer, default=36, help="frames of a turntable (default 36)")
    pv_.add_argument("--fps", metavar="N", type=_integer, default=12, help="frames per second of a turntable")
    _param_args(pv_)

    rp = sub.add_parser("replay", help="replay an engine log as a 3D scene: a window, a GIF, an MP4, a PNG still or "
                                       "frames, an animated glTF or an offline HTML page",
                        description="Replay an engine log on the game's printed set: the board (the terrain "
                                    "from the log's heightmap, coloured by level unless --colours print) and every "
                                    "piece in its print colour, each move "
                                    "animated from the engine's events. A window (Left/Right: previous/next ply, "
                                    "Home/End: first/last, Space: play/pause, a slider to scrub), or off screen "
                                    "with --out: FILE.gif or FILE.mp4 (the whole game), a new folder (one PNG a "
                                    "frame), or FILE.png (the position after --ply N, by default the last). The "
                                    "log is checked first, as check-log does.")
    rp.add_argument("log", metavar="LOG", type=_file_path, help="the engine log (JSON Lines) to replay")
    rp.add_argument("--out", metavar="PATH", type=_file_or_folder, default=None,
                    help="FILE.gif, FILE.mp4, FILE.png, a new folder for PNG frames, or the scene to share: FILE.glb "
                         "(animated glTF) or FILE.html (one page that plays offline in any browser)")
    rp.add_argument("--puzzle", metavar="N", type=_integer, default=None,
                    help="LOG is a puzzle file (stratstone-cad puzzles): show puzzle N's position (from 1)")
    rp.add_argument("--ply", metavar="N", type=_integer, default=None,
                    help="with --out FILE.png: the position after ply N (0: the start)")
    rp.add_argument("--plies", metavar="FIRST-LAST", default=None,
                    help="with --out FILE.gif, .mp4 or a folder: only these plies (e.g. 10-20)")
    rp.add_argument("--size", metavar="WxH", default=None, help="image size in pixels (default 1280x720)")
    rp.add_argument("--fps", metavar="N", type=_integer, default=10, help="frames per second (default 10)")
    rp.add_argument("--frames-per-ply", metavar="N", type=_integer, default=10,
                    help="frames of each ply's animation (default 10)")
    rp.add_argument("--hold", metavar="SECONDS", type=float, default=None,
                    help="with --out FILE.gif or FILE.mp4: how long the last position shows before the film ends or "
                         "the GIF starts again (default 1.5)")
    rp.add_argument("--colours", choices=("levels", "print"), default="levels",
                    help="levels (the default): a board of levels (the terrain game's) coloured by level, with a "
                         "legend of the levels; print: every part in its print colour. For a game without levels "
                         "the two are the same")
    rp.add_argument("--reach", action=argparse.BooleanOptionalAction, default=None,
                    help="the squares the piece to move could reach (the terrain game's): each lit with its walking "
                         "cost, its special moves starred and its exit marked (default: on in the window and "
                         "in the page of --out FILE.html, which has a button for it; off in pictures and films)")
    _param_args(rp)

    pz = sub.add_parser("puzzles", help="find puzzles in logged games: positions where exactly one move wins or saves "
                                        "the game",
                        description="Find the puzzles of real games: each position of the logs where exactly one of "
                                    "the legal moves wins at once, or (where none wins) is the only one after which "
                                    "the next player cannot win at once. Writes one JSON line a puzzle: the game, the "
                                    "source log and ply, the player, the solution, the move played and the position "
                                    "(replay FILE --puzzle N shows it).")
    pz.add_argument("logs", nargs="+", metavar="LOG", type=_file_path, help="engine logs (JSON Lines)")
    pz.add_argument("--out", metavar="FILE.jsonl", type=_file_path, required=True, help="the puzzle file to write")

    ck = sub.add_parser("check-log", help="validate an engine log and print its result",
                        description="Validate an engine log: its schema, then every ply through the "
                                    "rules engine. Prints the result; exits 2 naming the line, the ply "
                                    "and the broken rule when the log is invalid.")
    ck.add_argument("file", metavar="FILE", type=_file_path, help="the engine log (JSON Lines) to check")
    ck.add_argument("--explain", action="store_true",
                    help="also print every ply in words as it is checked, one line each beginning with its ply number: "
                         "the terrain game's step costs and attack sums, Sage Stones' dice, column and traps, "
                         "Stratstone's sowing and winning line")
    ck.add_argument("--review", action="store_true",
                    help="review every move with the search (OpenSpiel's MCTS): one line a ply beginning with its "
                         "number (its class: best, excellent, good, inaccuracy, mistake, blunder or forced; the best "
                         "move; the mover's expected score before and after), then each player's accuracy and counts")
    ck.add_argument("--budget", metavar="N", default=None,
                    help="with --review: simulations a ply (default 300, about 1 s a Stratstone ply)")
    ck.add_argument("--json", action="store_true",
                    help="with --review: one JSON object a ply (ply, player, move, best, class, expected_before, "
                         "expected_after, legal_moves) instead of text")
    return p


def _listed(items: list[str], last: str) -> str:
    """``a, b and c`` (``last`` is "and" or "or")."""
    return f"{', '.join(items[:-1])} {last} {items[-1]}" if len(items) > 1 else "".join(items)


def _map_games() -> list[ModuleType]:
    """The facts of the games played on a map (those that name its flags)."""
    return [f for f in FACTS.values() if getattr(f, "MAP_FLAGS", None)]


def _map_dest(game: ModuleType, what: str) -> str:
    """The argparse attribute of a map flag (``map_terrain_seed``)."""
    return f"map_{game.NAME}_{what}".replace("-", "_").replace(" ", "_")


def _map_args(a: argparse.Namespace, what: str) -> list[tuple[ModuleType, str, Any]]:
    """(game facts, flag, value) of each map flag ``what`` the command has."""
    return [(g, g.MAP_FLAGS[what], getattr(a, _map_dest(g, what), None)) for g in _map_games()
            if hasattr(a, _map_dest(g, what))]


def _path(text: str) -> Path:
    """A path argument; an empty one is an error (``Path("")`` would quietly mean ".")."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a path, got {text!r}")
    return Path(text)


def _folder_ending(text: str) -> str:
    """How ``text`` ends if it ends as only a folder's path does (``/``, ``/.``), else '':
    ``Path`` drops that ending, and ``x.png/`` would quietly become the file ``x.png``."""
    return next((end for end in ("/.", "/") if text.endswith(end)), "")


def _file_path(text: str) -> Path:
    """A path where a file is expected (read or written): not empty, not a folder's path."""
    path = _path(text)
    if _folder_ending(text):
        raise argparse.ArgumentTypeError(f"{printable(repr(text))}: a folder's path (it ends in "
                                         f"{_folder_ending(text)!r}), expected a file name")
    return path


def _file_or_folder(text: str) -> Path:
    """``replay --out``: a file (a name with a suffix) or a new folder (a name without one);
    a folder's path with a file's suffix is refused: it would be written as the file."""
    path = _path(text)
    if _folder_ending(text) and path.suffix:
        raise argparse.ArgumentTypeError(f"{printable(repr(text))}: a folder's path (it ends in "
                                         f"{_folder_ending(text)!r}) with a file's suffix, expected FILE.gif, "
                                         "FILE.mp4, FILE.png or a new folder (a name without a suffix)")
    return path


def _integer(text: str) -> int:
    """A whole number written with the digits 0-9 only (``int()`` would also take ``1_0``
    and other scripts' digits, which nobody means)."""
    if not re.fullmatch(r"-?[0-9]{1,30}", text.strip()):
        raise argparse.ArgumentTypeError(f"expected a whole number in the digits 0-9, got {printable(repr(text))}")
    return int(text)


def _param_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="sets",
                   help="override a parameter, e.g. --set stratstone.stone.height_mm=9 (repeatable; for a name "
                        "given twice, the last value counts); a list as names separated by commas, "
                        "stratstone.stone.colours=yellow,red,tan, or as an array as 'list' shows it, "
                        "'stratstone.stone.colours=[\"yellow\", \"red\", \"tan\"]'")
    p.add_argument("--params", metavar="FILE.toml", type=_file_path, default=None,
                   help="a TOML file of parameter overrides ([stratstone.stone] height_mm = 9)")


def _cmd_build(a: argparse.Namespace) -> int:
    # start-up speed: the parameters only for the commands that read them, not check-log or play
    from stratstone_cad.base.params import parse_set
    from stratstone_cad.pipeline.build import build, usable_cores

    jobs = usable_cores() if a.jobs is None else a.jobs
    sets = parse_set(a.sets)
    for (g, seed_flag, seed), (_, file_flag, file) in zip(_map_args(a, "seed"), _map_args(a, "board file"), strict=True):
        if seed is not None and file is not None:
            raise UserError(f"{seed_flag} {seed} and {file_flag} {file}: expected one of them, the {g.NAME} board has "
                            "one map")
        if seed is not None:
            sets[g.MAP_PARAMETERS["seed"]] = str(seed)
        if file is not None:
            sets[g.MAP_PARAMETERS["board file"]] = str(file)
    report = build(a.games, a.printer, a.out, jobs, a.params, sets, progress=None if a.quiet else sys.stderr,
                   plates=a.plates, slice_plates=not a.no_slice, step=a.step,
                   on_warning=lambda m: print(f"{PROG}: warning: {printable(m)}", file=sys.stderr))
    print(printable(report.summary()))  # it names the output folder, as the user typed it
    return 0


def _cmd_list(a: argparse.Namespace) -> int:
    # start-up speed: the parameters only for the commands that read them, not check-log or play
    from stratstone_cad.base.params import default_printer, load_printers, load_profiles, parse_set
    from stratstone_cad.registry import GAMES, SCHEMA, load_params

    ps = load_params(a.params, parse_set(a.sets))
    defaults = load_params()  # the presets alone: the one place the defaults are written
    lines = []
    for game in GAMES.values():
        lines.append(f"{game.name}: {game.title}")
        for section in game.sections:
            lines += _section_lines(section, SCHEMA[section], ps, defaults)
    lines.append("mesh: tessellation of every part")
    lines += _section_lines("mesh", SCHEMA["mesh"], ps, defaults)
    lines.append("plates: print plates (build --plates)")
    lines += _section_lines("plates", SCHEMA["plates"], ps, defaults)
    lines.append("")
    lines.append("profiles (layer boundaries at first + n x layer):")
    for pr in load_profiles().values():
        lines.append(f"  {pr.name:<8} layer {pr.layer_height_mm:g} mm, first layer {pr.first_layer_height_mm:g} mm")
    lines.append("")
    default = default_printer()
    lines.append("printers (--printer NAME):")
    for pr in load_printers().values():
        star = " (default)" if pr.name == default else ""
        lines.append(f"  {pr.name:<14} {pr.bed_x_mm:g} x {pr.bed_y_mm:g} mm bed, {pr.bed_z_mm:g} mm high, "
                     f"{pr.margin_mm:g} mm margin  "
                     f"{pr.title}{star}")
    print("\n".join(lines))
    return 0


def _section_lines(section: str, cls: type, ps: object, defaults: object) -> list[str]:
    current = ps.section(section)  # type: ignore[attr-defined]
    preset = defaults.section(section)  # type: ignore[attr-defined]
    out = []
    for name, expected, doc in cls.describe():
        field = name.rsplit(".", 1)[1]
        value, default = current[field], preset[field]
        shown = _toml(value)
        changed = "" if value == default else f" (default {_toml(default)})"
        out.append(f"  {name} = {shown}{changed}\n      {doc}; {expected}")
    return out


def _toml(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(f'"{x}"' for x in v) + "]"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def _players_arg(a: argparse.Namespace, what: str, example: str) -> list[str] | None:
    if a.players is None:
        return None
    players = [p.strip() for p in a.players.split(",")]
    if not all(players):
        raise UserError(f"--players {a.players[:60]!r}: expected {what} separated by commas, such as "
                        f"{example} (leave --players out for the defaults)")
    return players


def _setup_arg(a: argparse.Namespace) -> dict[str, Any] | None:
    if a.setup is None:
        return None
    # start-up speed: each command loads only its own layer: --help and check-log no CAD, no VTK
    from stratstone_cad.log.logfile import loads_strict

    try:
        setup = loads_strict(a.setup)
    except ValueError as e:
        raise UserError(f"--setup {a.setup[:60]!r}: not JSON ({e}), expected an object such as "
                        '{"variant": "two-player"}') from None
    if not isinstance(setup, dict):
        raise UserError(f"--setup {a.setup[:60]!r}: expected a JSON object such as {{\"variant\": \"two-player\"}}")
    return setup


def _cmd_play(a: argparse.Namespace) -> int:
    # start-up speed: each command loads only its own layer: --help and check-log no CAD, no VTK
    from stratstone_cad.analysis.players import make_player
    from stratstone_cad.log import commands

    players = _players_arg(a, "player kinds", "random,greedy")
    setup = _setup_arg(a)
    map_file = next((file for _, _, file in _map_args(a, "file") if file is not None), None)
    if a.out is not None:
        from stratstone_cad.base.fileio import refuse_reading  # no CAD: fileio imports only errors

        refuse_reading(a.out, [(f"{flag} file", file) for _, flag, file in _map_args(a, "file")])
    text = commands.play(a.game, a.seed, players, a.out, setup, map_file=map_file,
                         on_warning=lambda m: print(f"{PROG}: warning: {printable(m)}", file=sys.stderr),
                         make_player=make_player)
    sys.stdout.write("".join(printable(line) + "\n" for line in text.split("\n")))  # it names --out
    return 0


def _cmd_record(a: argparse.Namespace) -> int:
    # start-up speed: each command loads only its own layer: --help and check-log no CAD, no VTK
    from stratstone_cad.log import record

    record.check_args(a.out, a.resume, a.game)
    vs = None
    if a.vs is not None:
        from stratstone_cad.analysis.players import make_player  # OpenSpiel itself only when the search moves

        vs = make_player(a.vs, get_game(a.game) if a.game else record.log_game(a.resume))
    if a.seed is not None and not a.roll:
        raise UserError(f"--seed {a.seed} without --roll: the dice are typed in; add --roll to have them rolled")
    stdin = sys.stdin  # None when standard input is closed: read as an empty one
    if stdin is not None and hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")  # a stray byte is a mistyped move, not a traceback
    interactive = stdin is not None and stdin.isatty()  # the prompt shows even when stdout is a pipe

    def say(text: str) -> None:
        print("\n".join(printable(line) for line in text.split("\n")), flush=True)

    log = a.out or a.resume
    try:
        if a.resume is not None:
            maps = [(flag, value) for what in ("seed", "file") for _, flag, value in _map_args(a, what)]
            for flag, value in (("--setup", a.setup), ("--players", a.players), *maps, ("--seed", a.seed)):
                if value is not None:
                    raise UserError(f"{flag} with --resume: the log's header already says it; leave {flag} out")
            line = record.resume(a.resume, a.game, roll=a.roll, stdin=stdin, say=say, interactive=interactive,
                                 vs=vs, vs_as=a.vs_as)
        else:
            setup = _setup_arg(a) or {}
            for (g, seed_flag, seed), (_, file_flag, file) in zip(_map_args(a, "seed"), _map_args(a, "file"),
                                                                    strict=True):
                if seed is not None and file is not None:
                    raise UserError(f"{seed_flag} {seed} and {file_flag} {file}: expected one of them")
                map_field, seed_field = g.MAP_FIELDS
                if seed is not None:
                    setup[seed_field] = seed
                if file is not None:
                    setup[map_field] = get_game(g.NAME).load_map(file)
            line = record.record(a.game, a.out, setup or None, _players_arg(a, "player ids", "yellow,red,blue"),
                                 roll=a.roll, seed=a.seed, stdin=stdin, say=say, interactive=interactive,
                                 on_warning=lambda m: print(f"{PROG}: warning: {printable(m)}", file=sys.stderr),
                                 vs=vs, vs_as=a.vs_as)
    except KeyboardInterrupt:
        if interactive:
            print()  # off the prompt's line
        if log is not None and os.path.isfile(log):
            say(f"kept {printable(str(log))}: every move entered (record --resume {printable(str(log))} continues it)")
        raise
    say(line)
    return 0


def _cmd_check_log(a: argparse.Namespace) -> int:
    # start-up speed: each command loads only its own layer: --help and check-log no CAD, no VTK
    from stratstone_cad.log import commands

    if a.review or a.budget is not None or a.json:
        return _review(a)
    if a.explain:
        for line in commands.explain_log(a.file):
            print(printable(line), flush=True)  # the reason and the ids are the log's text
        return 0
    print(printable(commands.check_log(a.file)))  # the result's reason is the log's text
    return 0


def _review(a: argparse.Namespace) -> int:
    # start-up speed: OpenSpiel only for a review
    from stratstone_cad.analysis import review

    if not a.review:
        raise UserError(f"{'--budget' if a.budget is not None else '--json'} without --review: expected "
                        "check-log --review FILE [--budget N] [--json]")
    if a.explain:
        raise UserError("--explain and --review: expected one of them")
    budget = review.DEFAULT_BUDGET if a.budget is None else review.parse_budget(a.budget)
    for line in review.review_lines(a.file, budget, as_json=a.json):
        print(printable(line), flush=True)  # moves and ids are the log's text
    return 0


def _size(text: str | None) -> tuple[int, int]:
    if text is None:
        return (1280, 720)
    m = re.fullmatch(r"([0-9]{2,5})x([0-9]{2,5})", text.strip())
    if not m or not (64 <= int(m[1]) <= 7680 and 64 <= int(m[2]) <= 4320):
        raise UserError(f"--size {printable(repr(text))[:40]}: expected WIDTHxHEIGHT in pixels, each from 64 to "
                        "7680 x 4320, e.g. 1280x720")
    return int(m[1]), int(m[2])


def _cmd_preview(a: argparse.Namespace) -> int:
    # start-up speed: the parameters only for the commands that read them, not check-log or play
    from stratstone_cad.base.fileio import refuse_reading
    from stratstone_cad.base.params import parse_set
    from stratstone_cad.viewer.assets import list_assets, select
    from stratstone_cad.viewer.preview import contact_sheet, render_still, render_turntable, show
    from stratstone_cad.viewer.writer import check_frames, check_target

    size = _size(a.size)
    if not 1 <= a.frames <= 3600 or not 1 <= a.fps <= 120:
        raise UserError(f"--frames {a.frames} --fps {a.fps}: expected 1 to 3600 frames at 1 to 120 frames a second")
    kind = check_target(a.out, (".png", ".gif", ".mp4", ".glb", ".html"), size) if a.out else None
    if kind in (".png", ".gif", ".mp4"):
        check_frames(a.out, kind, a.frames, size, a.fps, fewer="fewer --frames")
    if a.sheet:
        check_target(a.sheet, (".png",), flag="--sheet")
    for flag, out in (("--out", a.out), ("--sheet", a.sheet)):
        if out is not None:
            refuse_reading(out, [("--params file", a.params)], flag)
    if a.out and a.sheet and os.path.realpath(a.out) == os.path.realpath(a.sheet):
        raise UserError(f"--out {a.out} and --sheet {a.sheet}: the same file; expected two files (or one of them)")
    chosen = select(list_assets(sets=parse_set(a.sets), params_file=a.params), a.assets)
    if a.sheet:
        contact_sheet(chosen, a.sheet)
        print(printable(f"wrote {a.sheet}: {counted(len(chosen), 'asset')}"))
    if kind in (".glb", ".html"):  # the parts to orbit, in a glTF viewer or any browser
        from stratstone_cad.base.fileio import atomic_write
        from stratstone_cad.viewer import gltf, web

        if kind == ".glb":
            atomic_write(a.out, gltf.set_glb(chosen), follow_symlinks=True, sweep=True)
        else:
            web.write_set(chosen, a.out)
        print(printable(f"wrote {a.out}: {counted(len(chosen), 'asset')}"))
    elif kind == ".png":
        render_still(chosen, a.out, size)
        print(printable(f"wrote {a.out}: {counted(len(chosen), 'asset')}"))
    elif kind:
        n = render_turntable(chosen, a.out, size, a.frames, a.fps)
        print(printable(f"wrote {a.out}: {counted(n, 'frame')} of {counted(len(chosen), 'asset')}"))
    if not a.out and not a.sheet:
        show(chosen)
    return 0


def _cmd_replay(a: argparse.Namespace) -> int:
    # start-up speed: the parameters only for the commands that read them, not check-log or play
    from stratstone_cad.base.fileio import refuse_reading
    from stratstone_cad.base.params import parse_set
    from stratstone_cad.viewer import replay

    size = _size(a.size)
    if not 1 <= a.frames_per_ply <= 600 or not 1 <= a.fps <= 120:
        raise UserError(f"--frames-per-ply {a.frames_per_ply} --fps {a.fps}: expected 1 to 600 frames a ply at 1 to "
                        "120 frames a second")
    kind = replay.check_out(a.out, size) if a.out else None
    if a.out:
        refuse_reading(a.out, [("log", a.log), ("--params file", a.params)])
    if a.ply is not None and kind != ".png":
        raise UserError(f"--ply {a.ply}: only with --out FILE.png (one position)")
    plies = None
    if a.plies is not None:
        m = re.fullmatch(r"([0-9]{1,7})-([0-9]{1,7})", a.plies.strip())
        if not m or kind in (None, ".png", *replay.SHARED):
            raise UserError(f"--plies {printable(repr(a.plies))[:40]}: expected FIRST-LAST such as 10-20, with --out "
                            "FILE.gif, FILE.mp4 or a folder")
        plies = (int(m[1]), int(m[2]))
    if a.puzzle is not None:
        from stratstone_cad.analysis.puzzles import position_log

        folder = tempfile.TemporaryDirectory(prefix="stratstone-puzzle-")  # removed when the command ends
        a.log = position_log(a.log, a.puzzle, Path(folder.name))
    rep = replay.load(a.log, parse_set(a.sets), a.params)
    if kind in replay.SHARED:  # the scene itself, animated: the same motion as the MP4
        from stratstone_cad.viewer import gltf, web

        write = gltf.write_replay if kind == ".glb" else web.write_replay
        size_b = write(rep, a.log, a.out, a.frames_per_ply / a.fps, a.colours, reach=a.reach is not False)
        print(printable(f"wrote {a.out}: {rep.game}, {counted(rep.count, 'ply', 'plies')}, "
                        f"{size_b / 1e6:.1f} MB, {a.frames_per_ply / a.fps:g} s a ply"))
        return 0
    if not a.out:
        replay.show_window(rep, a.frames_per_ply, a.fps, a.colours, reach=a.reach is not False)
        return 0
    hold = replay.HOLD_S if a.hold is None else a.hold
    if a.hold is not None and (kind not in (".gif", ".mp4") or not 0 <= a.hold <= 60):
        raise UserError(f"--hold {printable(repr(a.hold))[:40]}: expected 0 to 60 seconds, with --out FILE.gif or FILE.mp4")
    n = replay.export(rep, a.out, size=size, fps=a.fps, per_ply=a.frames_per_ply, ply=a.ply, plies=plies,
                      colours=a.colours, reach=bool(a.reach), hold_s=hold)
    what = f"the position after ply {rep.count if a.ply is None else a.ply}" if kind == ".png" else counted(n, "frame")
    print(printable(f"wrote {a.out}: {rep.game}, {counted(rep.count, 'ply', 'plies')}, {what}"))
    return 0


def _cmd_puzzles(a: argparse.Namespace) -> int:
    # start-up speed: each command loads only its own layer
    from stratstone_cad.analysis.puzzles import write_puzzles
    from stratstone_cad.base.fileio import refuse_reading

    refuse_reading(a.out, [("log", log) for log in a.logs])
    print(printable(write_puzzles(a.logs, a.out)))
    return 0


COMMANDS = {"build": _cmd_build, "list": _cmd_list, "play": _cmd_play, "record": _cmd_record,
            "check-log": _cmd_check_log, "puzzles": _cmd_puzzles, "preview": _cmd_preview, "replay": _cmd_replay}


class Terminated(KeyboardInterrupt):
    """SIGTERM: stop as for Ctrl-C (running parts finish, the manifest stays true)."""


#: How long a stop signal that came during an import waits before it is sent again.
RESEND_S = 0.05


def _importing(frame: Any) -> bool:
    """Whether ``frame`` runs inside an import (a frame of importlib's bootstrap below it)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        frame = frame.f_back
    return False


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM and Ctrl-C: stop by raising :class:`Terminated` or KeyboardInterrupt, but
    not inside an import. An exception raised there can land in a compiled module's own
    initialisation (manifold3d's, when the build's first board is meshed), which then
    aborts the whole process with a C++ "terminate called" message instead of stopping
    the build. There the signal is sent again a moment later, until the import is done."""
    if _importing(frame):
        threading.Timer(RESEND_S, os.kill, (os.getpid(), signum)).start()
        return
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


VALUE_FLAGS = ("--size",)
"""Flags whose value may start with '-' (``--size -64x64``): argparse would take the value
for a flag and say "expected one argument"; given to the flag, it gets the flag's message."""


def _values_with_a_dash(argv: list[str]) -> list[str]:
    """``argv`` with ``--size -64x64`` joined as ``--size=-64x64`` (a value that looks like
    a short flag; a long flag after ``--size`` is left alone, as is everything after ``--``)."""
    out: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--":
            return [*out, arg, *args]
        value = next(args, None) if arg in VALUE_FLAGS else None
        if value is None:
            out.append(arg)
        elif value.startswith("-") and not value.startswith("--") and value != "-":
            out.append(f"{arg}={value}")
        else:
            out += [arg, value]
    return out


#: The exit code when standard output or error is a pipe its reader closed (``| head -1``):
#: what a shell reports for a process that SIGPIPE stopped (128 + 13), said nowhere.
CLOSED_PIPE_EXIT = 128 + signal.SIGPIPE


class _StreamClosed(Exception):
    """Standard output or error went away (its pipe's reader closed, or it is the stream
    an error would be told on): the command stops quietly with ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class _Guarded:
    """``sys.stdout`` or ``sys.stderr`` while a command runs: a write that fails becomes
    one line instead of a traceback. Standard output that cannot take the output (``>
    /dev/full``, a full disk, an I/O error) is an OutputError (exit 2, said on standard
    error); a closed pipe on either stream, or standard error failing, is
    :class:`_StreamClosed` (there is nowhere to say it). Either way the stream's file is
    then pointed at /dev/null, so the interpreter's last flush of what is left in its
    buffer cannot fail again (and print "Exception ignored") at exit."""

    def __init__(self, stream: Any, name: str) -> None:
        self._stream = stream
        self._name = name

    def write(self, text: str) -> int:
        return self._guard(self._stream.write, text)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def __getattr__(self, attr: str) -> Any:  # isatty, fileno, encoding, ...: the stream's own
        return getattr(self._stream, attr)

    def _guard(self, call: Any, *args: Any) -> Any:
        try:
            return call(*args)
        except OSError as e:
            _to_devnull(self._stream)
            if isinstance(e, BrokenPipeError):
                raise _StreamClosed(CLOSED_PIPE_EXIT) from None
            if self._name != "standard output":
                raise _StreamClosed(2) from None
            # start-up speed: the file helpers only when they are needed
            from stratstone_cad.base.fileio import describe_os_error
            from stratstone_cad.errors import OutputError

            raise OutputError(f"{self._name}: cannot write ({describe_os_error(e)}), expected a terminal, a pipe "
                              "or a file with room for the output") from None


def _to_devnull(stream: Any) -> None:
    """Point ``stream``'s file descriptor at /dev/null (a stream without one is left)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code: 0, 2 for a user's error (one line on
    standard error), 1 for a build that failed for another reason, 130 and 143 when
    interrupted or terminated, :data:`CLOSED_PIPE_EXIT` when the output's pipe closed."""
    for stream in (sys.stdout, sys.stderr):  # a terminal in Latin-1 or ASCII gets \u escapes, not a traceback
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    out, err = sys.stdout, sys.stderr
    if out is not None:  # None: started with standard output closed (print() then writes nothing)
        sys.stdout = _Guarded(out, "standard output")  # type: ignore[assignment]
    if err is not None:
        sys.stderr = _Guarded(err, "standard error")  # type: ignore[assignment]
    try:
        try:
            return _main(argv)
        except OutputError as e:  # standard output failed: said on standard error
            print(f"{PROG}: error: {error_line(str(e))}", file=sys.stderr)
            return 2
    except _StreamClosed as e:
        return e.code
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: list[str] | None) -> int:
    try:
        args = _parser().parse_args(_values_with_a_dash(sys.argv[1:] if argv is None else argv))
    except SystemExit:  # --help, --version, a usage error: what argparse printed must reach its reader
        if sys.stdout is not None:
            sys.stdout.flush()
        raise
    previous = signal.signal(signal.SIGTERM, _stop)
    interrupt = signal.getsignal(signal.SIGINT)
    if interrupt is signal.default_int_handler:  # left alone when ignored (a background job) or the caller's own
        signal.signal(signal.SIGINT, _stop)
    try:
        code = COMMANDS[args.command](args)
        if sys.stdout is not None:
            sys.stdout.flush()  # a full disk or a closed pipe is found here, not in the interpreter's exit
        return code
    except UserError as e:
        print(f"{PROG}: error: {error_line(str(e))}", file=sys.stderr)
        return 2
    except BuildError as e:
        print(f"{PROG}: error: {error_line(str(e))}", file=sys.stderr)
        return 1
    except Terminated:
        print(f"{PROG}: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        if interrupt is signal.default_int_handler:
            signal.signal(signal.SIGINT, interrupt)


MESSAGE_CHARS = 1000
"""The longest error message shown whole; a longer one (it quotes too much of some input)
keeps its start and its end, which say what was wrong and what was expected."""


def error_line(text: str) -> str:
    """An error message for the terminal: :func:`printable`, and cut to about
    :data:`MESSAGE_CHARS` characters so no input can flood the screen."""
    text = printable(text)
    if len(text) <= MESSAGE_CHARS:
        return text
    head, tail = MESSAGE_CHARS * 6 // 10, MESSAGE_CHARS * 3 // 10
    return f"{text[:head]} ... ({len(text) - head - tail} characters left out) ... {text[-tail:]}"


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
