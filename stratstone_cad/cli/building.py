"""The commands that build: build (the files) and list (the parameters, profiles and printers)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from stratstone_cad.cli.args import (
    add_map_flag,
    add_param_flags,
    integer,
    map_choices,
    map_games,
    path_arg,
    warn,
)
from stratstone_cad.cli.kit import kit_games
from stratstone_cad.errors import printable


def add_build(sub: Any) -> None:
    b = sub.add_parser("build", help="build the parts (STL), with --plates the print plates (3MF) and the print report, "
                                     "with --step STEP files and each set (STEP, glTF), and output/manifest.json",
                       description="Build every asset of the games named (all games when none) into the "
                                   "output folder: checked, watertight binary STL files and manifest.json; with "
                                   "--plates the print plates (one 3MF per print job, the slicer settings inside) "
                                   "and print-report.md (PrusaSlicer's times and filament unless --no-slice); with "
                                   "--step a STEP file beside each STL and each game's set as GAME/set.step and "
                                   "GAME/set.glb. Unchanged assets are taken from the cache.")
    b.add_argument("games", nargs="*", metavar="GAME", help="games to build (default: all), or fit-test: a small plate "
                                                            "of the set's fits at three clearances to print first")
    b.add_argument("--printer", metavar="NAME", help="printer whose bed a part must fit (see 'list')")
    b.add_argument("--out", metavar="DIR", type=path_arg, default=Path("output"), help="output folder (default: output)")
    b.add_argument("--jobs", metavar="N", type=integer, default=None,
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
    add_param_flags(b)
    for g in map_games():  # a game played on a map: its board's map by seed or from a file
        add_map_flag(b, g, "seed", f"{g.NAME} board: the engine's fair map of seed N (the same as "
                                   f"--set {g.MAP_PARAMETERS['seed']}=N; the preset's seed by default)")
        add_map_flag(b, g, "board file", f"{g.NAME} board: the map in FILE, {g.MAP_TEXT} or a {g.NAME}-game log whose "
                                         f"header holds one (--set {g.MAP_PARAMETERS['board file']}=FILE)")

    if kit_games():
        b.add_argument("--kit", action="store_true",
                       help=f"{' and '.join(kit_games())}: build the kit of tiles that lays a new map every game "
                            "(and its frame) in place of the one board (the same as --set GAME.kit.print=true)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(run=cmd_build)


def cmd_build(args: argparse.Namespace) -> int:
    # start-up speed: the parameters only for the commands that read them, not check-log or play
    from stratstone_cad.base.overrides import parse_set
    from stratstone_cad.pipeline.build import build, usable_cores

    jobs = usable_cores() if args.jobs is None else args.jobs
    sets = parse_set(args.sets)
    for g, seed, file in map_choices(args, "board file"):
        if seed is not None:
            sets[g.MAP_PARAMETERS["seed"]] = str(seed)
        if file is not None:
            sets[g.MAP_PARAMETERS["board file"]] = str(file)
    if getattr(args, "kit", False):
        from stratstone_cad.registry import FACTS

        for name in kit_games():
            sets[FACTS[name].KIT_PARAMETERS["print"]] = "true"
    report = build(args.games, args.printer, args.out, jobs, args.params, sets, progress=None if args.quiet else sys.stderr,
                   plates=args.plates, slice_plates=not args.no_slice, step=args.step,
                   on_warning=warn)
    print(printable(report.summary()))  # it names the output folder, as the user typed it
    return 0


def add_list(sub: Any) -> None:
    ls = sub.add_parser("list", help="list the models, their parameters and the printers",
                        description="Show every model's parameters with defaults, units and allowed "
                                    "values, the print profiles and the printers.")
    add_param_flags(ls)
    ls.set_defaults(run=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    # start-up speed: the parameters only for the commands that read them, not check-log or play
    from stratstone_cad.base.overrides import parse_set
    from stratstone_cad.base.printers import default_printer, load_printers, load_profiles
    from stratstone_cad.registry import ASSETS, SCHEMA, load_params

    ps = load_params(args.params, parse_set(args.sets))
    defaults = load_params()  # the presets alone: the one place the defaults are written
    lines = []
    for game in ASSETS.values():
        lines.append(f"{game.name}: {game.title}")
        for section in game.sections:
            lines += _section_lines(section, SCHEMA[section], ps, defaults)
    lines.append("mesh: tessellation of every part")
    lines += _section_lines("mesh", SCHEMA["mesh"], ps, defaults)
    lines.append("plates: print plates (build --plates)")
    lines += _section_lines("plates", SCHEMA["plates"], ps, defaults)
    lines.append("fit: the fits every set shares (build fit-test prints them at three clearances)")
    lines += _section_lines("fit", SCHEMA["fit"], ps, defaults)
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
    for name, expected, doc in cls.field_docs():
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

