"""The kit command: the maps a game's printed kit of tiles lays (kit maps) and how to lay
them for a game (kit setup); the games with a kit are those whose assets name one
(:class:`~stratstone_cad.assets.game_assets.KitHooks`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from stratstone_cad.cli.args import add_param_flags, file_path
from stratstone_cad.errors import UserError, printable

#: The facts' attribute that says a game has a kit (the parameter build --kit sets).
KIT_FACT = "KIT_PARAMETERS"


def kit_games() -> list[str]:
    """The names of the games with a kit, from their facts (no CAD imported)."""
    from stratstone_cad.registry import FACTS

    return [name for name, f in FACTS.items() if getattr(f, KIT_FACT, None)]


def add_kit(sub: Any) -> None:
    k = sub.add_parser("kit", help="the maps the printed kit of terrain tiles lays, and how to lay one for a game",
                       description="The kit (build --kit): quadrant tiles that lay a new map every game. 'kit maps' "
                                   "counts the distinct maps the kit lays (--json: one JSON object a line, each with "
                                   "its heightmap and the tiles' arrangement as a log's setup holds them); 'kit setup' "
                                   "draws the arrangement of a game (a log, or the seed play --kit --seed N plays) as a "
                                   "PNG to lay the tiles by.")
    ks = k.add_subparsers(dest="kit_command", metavar="WHAT", required=True,
                          help="maps (count or list the maps) or setup (draw how to lay one)")
    m = ks.add_parser("maps", help="count (or list, --json) every distinct map the kit lays")
    m.add_argument("--json", action="store_true", help="one JSON object a line: heightmap and kit (the arrangement)")
    add_param_flags(m)
    m.set_defaults(run=cmd_kit_maps)
    s = ks.add_parser("setup", help="draw how to lay the tiles for a game (PNG)")
    s.add_argument("source", metavar="LOG_OR_SEED",
                   help="a log of a game on a kit map, or the seed N of play --kit --seed N")
    s.add_argument("--out", metavar="FILE.png", type=file_path, required=True, help="the picture to write")
    s.add_argument("--size", type=int, default=900, help="width of the picture in pixels (default 900)")
    add_param_flags(s)
    s.set_defaults(run=cmd_kit_setup)


def _kit_assets(args: argparse.Namespace) -> tuple[Any, Any]:
    """(the game's assets, its parameters) of the one game with a kit."""
    from stratstone_cad.base.overrides import parse_set
    from stratstone_cad.registry import ASSETS, load_params

    names = kit_games()
    if not names:
        raise UserError("kit: no game has a kit")
    name = names[0]
    ps = load_params(args.params, parse_set(args.sets), games=[name])
    return ASSETS[name], ps.games[name]


def kit_setup(game: str, params_file: Any = None, sets: list[str] | None = None) -> dict[str, Any]:
    """The setup of a game of ``game`` on a map of its kit (play --kit, record --kit).

    Raises:
        UserError: the game has no kit.
    """
    from stratstone_cad.base.overrides import parse_set
    from stratstone_cad.registry import ASSETS, load_params

    if game not in kit_games():
        raise UserError(f"--kit: the game {game!r} has no kit; expected one of {', '.join(kit_games())}")
    ps = load_params(params_file, parse_set(sets or []), games=[game])
    hooks = ASSETS[game].kit
    assert hooks is not None
    return dict(hooks.setup(ps.games[game]))


def cmd_kit_maps(args: argparse.Namespace) -> int:
    assets, p = _kit_assets(args)
    maps = assets.kit.maps(p)
    if args.json:
        for m in maps:
            print(json.dumps(m, separators=(",", ":")))
    else:
        print(len(maps))
    return 0


def cmd_kit_setup(args: argparse.Namespace) -> int:
    """``kit setup LOG_OR_SEED --out PNG``: draw the arrangement to lay out before a game.

    Raises:
        UserError: the picture's size is not a width from 200 to 4000 pixels.
    """
    from stratstone_cad.registry import get_game

    assets, p = _kit_assets(args)
    if not 200 <= args.size <= 4000:
        raise UserError(f"--size {args.size}: expected a width from 200 to 4000 pixels")
    text = args.source.strip()
    if text.isdigit():
        engine = get_game(assets.name)
        _, setup = engine.new_setup(2, engine.play_setup(assets.kit.setup(p), int(text)), None)
    else:
        from stratstone_cad.log.logfile.walk import walk_log

        with walk_log(file_path(text)) as walk:
            if walk.header.game != assets.name or "kit" not in walk.header.setup:
                raise UserError(f"{text}: not a log of a {assets.name} game on a kit map (its setup has no kit)")
            setup = walk.header.setup
    assets.kit.draw(setup, args.out, args.size)
    print(printable(f"wrote {args.out}: " + ", ".join(f"{q} {t['design']} turn {t['turn']}"
                                                         for q, t in setup["kit"]["tiles"].items())))
    return 0
