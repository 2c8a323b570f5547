"""What the commands' arguments share: the path and number types that refuse what nobody
means, the parameter flags, the map flags of a game played on a map, the player and setup
arguments, the image size, and how a warning is said."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from stratstone_cad.errors import UserError, printable, short_repr
from stratstone_cad.registry import FACTS
from stratstone_cad.viewer import DEFAULT_SIZE

PROG = "stratstone-cad"


def warn(message: str) -> None:
    """A warning on standard error, one line."""
    print(f"{PROG}: warning: {printable(message)}", file=sys.stderr)


def map_games() -> list[ModuleType]:
    """The facts of the games played on a map (those that name its flags)."""
    return [f for f in FACTS.values() if getattr(f, "MAP_FLAGS", None)]


def map_dest(facts: ModuleType, what: str) -> str:
    """The argparse attribute of a map flag (``map_terrain_seed``)."""
    return f"map_{facts.NAME}_{what}".replace("-", "_").replace(" ", "_")


def map_args(args: argparse.Namespace, what: str) -> list[tuple[ModuleType, str, Any]]:
    """(game facts, flag, value) of each map flag ``what`` the command has."""
    return [(g, g.MAP_FLAGS[what], getattr(args, map_dest(g, what), None)) for g in map_games()
            if hasattr(args, map_dest(g, what))]


def add_map_flag(p: argparse.ArgumentParser, facts: ModuleType, what: str, help: str) -> None:
    """The map flag ``what`` of the game whose ``facts`` are given (its seed, a heightmap file for the game, or one
    for the board) on the command ``p``."""
    if what == "seed":
        p.add_argument(facts.MAP_FLAGS[what], metavar="N", type=integer, default=None, dest=map_dest(facts, what), help=help)
    else:
        p.add_argument(facts.MAP_FLAGS[what], metavar="FILE" if what == "board file" else "FILE.json", type=file_path,
                       default=None, dest=map_dest(facts, what), help=help)


def map_choices(args: argparse.Namespace, file_flag: str) -> list[tuple[ModuleType, Any, Any]]:
    """(game facts, seed, file) of each game played on a map, from its seed flag and its
    ``file_flag`` flag ("file" or "board file"); both for one game is refused: one map.

    Raises:
        UserError: both a map seed and a map file are given for one game.
    """
    out = []
    for (g, seed_flag, seed), (_, flag, file) in zip(map_args(args, "seed"), map_args(args, file_flag), strict=True):
        if seed is not None and file is not None:
            raise UserError(f"{seed_flag} {seed} and {flag} {file}: expected one of them, the {g.NAME} board has "
                            "one map")
        out.append((g, seed, file))
    return out


def path_arg(text: str) -> Path:
    """A path argument; an empty one is an error (``Path("")`` would quietly mean ".")."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a path, got {text!r}")
    return Path(text)


def _folder_ending(text: str) -> str:
    """How ``text`` ends if it ends as only a folder's path does (``/``, ``/.``), else '':
    ``Path`` drops that ending, and ``x.png/`` would quietly become the file ``x.png``."""
    return next((end for end in ("/.", "/") if text.endswith(end)), "")


def file_path(text: str) -> Path:
    """A path where a file is expected (read or written): not empty, not a folder's path."""
    path = path_arg(text)
    if _folder_ending(text):
        raise argparse.ArgumentTypeError(f"{short_repr(text, 200)}: a folder's path (it ends in "
                                         f"{_folder_ending(text)!r}), expected a file name")
    return path


def file_or_folder(text: str) -> Path:
    """``replay --out``: a file (a name with a suffix) or a new folder (a name without one);
    a folder's path with a file's suffix is refused: it would be written as the file."""
    path = path_arg(text)
    if _folder_ending(text) and path.suffix:
        raise argparse.ArgumentTypeError(f"{short_repr(text, 200)}: a folder's path (it ends in "
                                         f"{_folder_ending(text)!r}) with a file's suffix, expected FILE.gif, "
                                         "FILE.mp4, FILE.png or a new folder (a name without a suffix)")
    return path


def integer(text: str) -> int:
    """A whole number written with the digits 0-9 only (``int()`` would also take ``1_0``
    and other scripts' digits, which nobody means)."""
    if not re.fullmatch(r"-?[0-9]{1,30}", text.strip()):
        raise argparse.ArgumentTypeError(f"expected a whole number in the digits 0-9, got {short_repr(text, 200)}")
    return int(text)


def add_param_flags(p: argparse.ArgumentParser) -> None:
    """--set and --params, for the commands that read the parameters."""
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="sets",
                   help="override a parameter, e.g. --set stratstone.stone.height_mm=9 (repeatable; for a name "
                        "given twice, the last value counts); a list as names separated by commas, "
                        "stratstone.stone.colours=yellow,red,tan, or as an array as 'list' shows it, "
                        "'stratstone.stone.colours=[\"yellow\", \"red\", \"tan\"]'")
    p.add_argument("--params", metavar="FILE.toml", type=file_path, default=None,
                   help="a TOML file of parameter overrides ([stratstone.stone] height_mm = 9)")


def size_arg(text: str | None) -> tuple[int, int]:
    """``--size WIDTHxHEIGHT`` as pixels (the default size for none).

    Raises:
        UserError: the text is not WIDTHxHEIGHT within 64 to 7680 x 4320 pixels.
    """
    if text is None:
        return DEFAULT_SIZE
    m = re.fullmatch(r"([0-9]{2,5})x([0-9]{2,5})", text.strip())
    if not m or not (64 <= int(m[1]) <= 7680 and 64 <= int(m[2]) <= 4320):
        raise UserError(f"--size {short_repr(text)}: expected WIDTHxHEIGHT in pixels, each from 64 to "
                        "7680 x 4320, e.g. 1280x720")
    return int(m[1]), int(m[2])


def players_arg(args: argparse.Namespace, what: str, example: str) -> list[str] | None:
    """``--players`` as a list of names, or None for the defaults.

    Raises:
        UserError: a name between the commas is empty.
    """
    if args.players is None:
        return None
    players = [p.strip() for p in args.players.split(",")]
    if not all(players):
        raise UserError(f"--players {args.players[:60]!r}: expected {what} separated by commas, such as "
                        f"{example} (leave --players out for the defaults)")
    return players


def setup_arg(args: argparse.Namespace) -> dict[str, Any] | None:
    """``--setup`` as a JSON object, or None for the game's default setup.

    Raises:
        UserError: the text is not JSON, or not a JSON object.
    """
    if args.setup is None:
        return None
    # start-up speed: each command loads only its own layer: --help and check-log no CAD, no VTK
    from stratstone_cad.log.logfile import loads_strict

    try:
        setup = loads_strict(args.setup)
    except ValueError as e:
        raise UserError(f"--setup {args.setup[:60]!r}: not JSON ({e}), expected an object such as "
                        '{"variant": "two-player"}') from None
    if not isinstance(setup, dict):
        raise UserError(f"--setup {args.setup[:60]!r}: expected a JSON object such as {{\"variant\": \"two-player\"}}")
    return setup

