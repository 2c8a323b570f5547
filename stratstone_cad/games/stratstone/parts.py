"""Stratstone's printable assets: a square board with a recess per cell and 24 pebbles,
8 per colour set (two players' colours and a neutral tan), each set with its top mark.

Parameters in ``preset.toml`` beside this module (sections ``stratstone.board`` and
``stratstone.stone``); the CAD functions are in :mod:`stratstone_cad.games.stratstone.cad`.
"""

from __future__ import annotations

import functools
import math
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stratstone_cad.assets.fit_test import at, fit_output
from stratstone_cad.assets.game_assets import GameAssets
from stratstone_cad.assets.jobs import BOARD_FILES, COLOUR, Job, Output, board_job, subset
from stratstone_cad.assets.makers import CadFunctions
from stratstone_cad.assets.table import Table, seats_on
from stratstone_cad.base.params import (
    TOL,
    MeshParams,
    Profile,
    check_names,
    fmt,
    fmt_down,
    param,
    snap_depth,
    snap_height,
)
from stratstone_cad.base.printers import Printer
from stratstone_cad.errors import ParameterError
from stratstone_cad.games.stratstone.facts import NAME, SETS, SIZE, STONES_PER_PLAYER, TAN_STONES, TITLE
from stratstone_cad.geometry.boards import BoardParams, GridBoard, label_strokes, stroke_region
from stratstone_cad.geometry.coupons import clearances_of
from stratstone_cad.geometry.marks import MarkParams, MarkSpec, check_mark_floor, check_marks, mark_spec

#: The game's default parameters (package data).
PRESET = Path(__file__).with_name("preset.toml")
#: The CAD functions of this game's parts, in cad.py (named, not imported: see CadFunctions).
CAD = CadFunctions("stratstone_cad.games.stratstone.cad", ("make_board", "make_stone", "make_fit_recesses",
                                                          "make_fit_stone"))

#: The letters of the files of a board of up to 8 cells (the game's own 4 are facts.FILES).
CELL_LETTERS = string.ascii_lowercase[:8]


@dataclass(frozen=True)
class StratstoneBoard(BoardParams):
    """The Stratstone board: square cells with a recess each, a rim with coordinates."""

    PREFIX = "stratstone.board"

    cells: int = param("cells per side (files a.., ranks 1..)", lo=2, hi=8)
    recess_depth_mm: float = param("depth of a cell's recess, snapped to whole layers", lo=0.3, hi=10)
    clearance_mm: float = param("gap between the largest stone and its recess, per side", lo=0.1, hi=5)

    def grid(self) -> GridBoard:
        return GridBoard(self.cells, self.cells, self.cell_pitch_mm, self.rim_width_mm, self.rim_width_mm,
                         self.corner_radius_mm)

    def col_texts(self) -> list[str]:
        return list(CELL_LETTERS[: self.cells])

    def row_texts(self) -> list[str]:
        return [str(i + 1) for i in range(self.cells)]

    def check(self) -> None:
        super().check()
        if self.recess_depth_mm > self.thickness_mm - 1.0 + TOL:
            self.fail("recess_depth_mm", self.recess_depth_mm,
                      f"at most {fmt_down(self.thickness_mm - 1.0)} to leave a 1 mm floor under the "
                      f"{fmt(self.thickness_mm)} mm board (stratstone.board.thickness_mm)", "use a thicker board")


@dataclass(frozen=True)
class PebbleParams:
    """What a stone's CAD function reads of ``stratstone.stone`` to shape a pebble."""

    footprint_mm: float
    min_scale: float
    height_mm: float
    height_variation_mm: float
    plateau_fraction: float
    irregularity: float
    elongation: float
    seed: int


@dataclass(frozen=True)
class StratstoneStones(MarkParams):
    """The 24 pebble stones: three colour sets of organic, stackable shapes."""

    PREFIX = "stratstone.stone"
    MARK_COUNT = 3
    MARK_HELP = "engrave a set mark on every stone's top"
    MARKS_HELP = "mark of each colour set (every mark has the same groove area)"
    THE_MARK = "the set mark"

    footprint_mm: float = param("largest width of a stone seen from above", lo=10, hi=80)
    min_scale: float = param("smallest stone's width as a fraction of footprint_mm", lo=0.6, hi=1)
    height_mm: float = param("average stone height, each snapped to the piece profile's layers", lo=3, hi=25)
    height_variation_mm: float = param("stone heights spread by up to this much either way", lo=0, hi=5)
    plateau_fraction: float = param("flat top area over footprint area (stacks need 0.5)", lo=0.5, hi=0.9)
    irregularity: float = param("how far a pebble's outline wanders from an ellipse (fraction of radius)",
                                lo=0, hi=0.15)
    elongation: float = param("up to how much shorter a pebble's narrow axis is (fraction)", lo=0, hi=0.35)
    seed: int = param("seed of the pebble shapes; the same seed gives the same stones", lo=0, hi=2**31 - 1)
    per_colour: int = param("stones per colour set", lo=1, hi=16)
    colours: list[str] = param("names of the three colour sets (players first, neutral last)",
                               length=3)
    # then MarkParams' fields: mark, marks, mark_size_mm, mark_stroke_mm, mark_depth_mm

    def check(self) -> None:
        check_names(self, "colours", self.colours, "three")
        low = self.height_mm - self.height_variation_mm
        if low < 2.0 - TOL:
            self.fail("height_variation_mm", self.height_variation_mm,
                      f"at most {fmt_down(self.height_mm - 2.0)} so the lowest stone stays 2 mm high")
        if self.mark and self.mark_depth_mm > low - 1.0 + TOL:
            self.fail("mark_depth_mm", self.mark_depth_mm,
                      f"at most {fmt_down(low - 1.0)} (1 mm under the lowest stone's mark)")
        # The narrowest plateau: the smallest, most elongated stone with the deepest outline
        # dent; the mark's outline (strokes included) keeps a wall to its edge.
        narrowest = self.footprint_mm * self.min_scale * (1 - self.elongation) * (1 - 2 * self.irregularity)
        check_marks(self, narrowest * math.sqrt(self.plateau_fraction), "the smallest stone's top plateau")


@dataclass(frozen=True)
class StratstoneParams:
    """Board and stones together, with the constraints between them."""

    board: StratstoneBoard
    stone: StratstoneStones

    @property
    def recess_diameter_mm(self) -> float:
        return self.stone.footprint_mm + 2 * self.board.clearance_mm


def combine(sections: Mapping[str, Any], profiles: Mapping[str, Profile]) -> StratstoneParams:
    """The board and the stones checked together, on the heights after snapping."""
    p = StratstoneParams(sections["board"], sections["stone"])
    b, s = p.board, p.stone
    b.check_pocket_fits(p.recess_diameter_mm, f"stone footprint {fmt(s.footprint_mm)} + 2 x clearance "
                                               f"{fmt(b.clearance_mm)}")
    board, piece = profiles["board"], profiles["piece"]
    b.check_floors(board, snap_height(b.thickness_mm, board, minimum_layers=3), ("recess_depth_mm", "engrave_depth_mm"))
    check_mark_floor(s, snap_height(s.height_mm - s.height_variation_mm, piece, minimum_layers=4), piece,
                     "the lowest stone")
    return p

def keep_out(p: StratstoneParams) -> list[tuple[str, Any]]:
    """What a tile cut or a dovetail socket must stay clear of: the recesses and the labels."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import Point

    b = p.board
    recesses = shapely.union_all([Point(c).buffer(p.recess_diameter_mm / 2, quad_segs=32) for c in b.grid().centres()])
    return [("recess", recesses), ("label", stroke_region(label_strokes(b.labels(), b.label_height_mm),
                                                          b.label_stroke_mm))]


def plan(p: StratstoneParams, printer: Printer, profiles: Mapping[str, Profile], mesh: MeshParams) -> list[Job]:
    b, s = p.board, p.stone
    jobs = [board_job(
        game=NAME, stem="board", maker=CAD.make_board,
        args={"board": b, "recess_diameter_mm": p.recess_diameter_mm, "profile": profiles["board"],
              "tolerance_mm": mesh.tolerance_mm},
        board=b, printer=printer, keep_out=functools.partial(keep_out, p), what="Stratstone board",
        facts=f"{b.cells} x {b.cells} cells, pitch {b.cell_pitch_mm:g} mm",
        cut_fix="each tile keeps half the wall between two recesses: a larger cell_pitch_mm or a smaller clearance_mm")]
    shape = subset(s, PebbleParams)
    for c, colour in enumerate(s.colours):
        mark: MarkSpec | None = mark_spec(s, s.marks[c])
        for i in range(s.per_colour):
            name = f"stone-{colour}-{i + 1:02d}"
            jobs.append(Job(f"{NAME}/{name}", CAD.make_stone,
                            {"shape": shape, "set_index": c, "index": i, "mark": mark, "profile": profiles["piece"]},
                            (Output(f"{NAME}/{name}.stl", NAME, "stone", "piece", colour, i + 1,
                                    plate=f"stones-{colour}", adaptive=True),),
                            f"{name} (stratstone.stone seed {s.seed}, footprint {s.footprint_mm:g} mm, "
                            f"height {s.height_mm:g} mm, mark {mark.kind if mark else 'off'})"))
    return jobs


def fits(p: StratstoneParams, printer: Printer, profiles: Mapping[str, Profile], mesh: MeshParams) -> list[Job]:
    """The fit test's coupons (:mod:`stratstone_cad.assets.fit_test`): a cell of the board with
    its recess at three clearances (``stratstone.board.clearance_mm``), and the set's
    largest stone's foot (what sits in a recess: its depth) to try in them."""
    b, s = p.board, p.stone
    values = clearances_of(b, "clearance_mm")
    return [
        Job("fit-test/stone-recess", CAD.make_fit_recesses,
            {"board": b, "footprint_mm": s.footprint_mm, "clearances": values, "profile": profiles["board"],
             "tolerance_mm": mesh.tolerance_mm},
            tuple(fit_output(at("stone-recess", c), "stone-recess") for c in values),
            f"stone recesses at {', '.join(f'{c:g}' for c in values)} mm (stratstone.board.clearance_mm)"),
        Job("fit-test/stone", CAD.make_fit_stone,
            {"shape": subset(s, PebbleParams), "sets": len(s.colours), "per_colour": s.per_colour,
             "profile": profiles["piece"],
             "foot_mm": snap_depth(b.recess_depth_mm, profiles["board"])},
            (fit_output("stone", "stone"),), f"the largest stone's foot (stratstone.stone seed {s.seed})"),
    ]


def table(p: StratstoneParams, profiles: Mapping[str, Profile], pieces: Mapping[str, Any], engine: Any) -> Table:
    """Stones rest on their recess's floor (the engine's square, parsed by the engine, is
    the grid's cell); a player's stones in hand stand in two columns beside the board, the
    first player's on the left, the second's on the right.

    Raises:
        ParameterError: there are fewer stones of a colour than the game needs to replay it.
    """
    b, s = p.board, p.stone
    grid = b.grid()
    top = snap_height(b.thickness_mm, profiles["board"], minimum_layers=3)
    floor = top - snap_depth(b.recess_depth_mm, profiles["board"])
    seats = seats_on(grid, engine, lambda col, row: floor, f"stratstone.board.cells = {b.cells}")
    need = max(piece.number for piece in pieces.values()) if pieces else 0
    if s.per_colour < need:
        raise ParameterError(f"stratstone.stone.per_colour = {s.per_colour}: the game is played with {need} stones of "
                             f"each colour; expected at least {need} to replay it")
    width = grid.size_mm[0]
    gap, step = 0.15 * s.footprint_mm, 1.08 * s.footprint_mm
    rows = math.ceil(s.per_colour / 2)
    assets, reserve = {}, {}
    for pid, piece in pieces.items():
        i = SETS.index(piece.colour)  # colour set i of the parameters is the engine's colour SETS[i]
        assets[pid] = f"stone-{s.colours[i]}-{piece.number:02d}"
        if i < 2:  # the players' hands
            col, row = divmod(piece.number - 1, rows)
            x = -gap - (col + 0.5) * step if i == 0 else width + gap + (col + 0.5) * step
            reserve[pid] = (x, grid.size_mm[1] / 2 + (row - (rows - 1) / 2) * step, 0.0)
    return Table("board", seats, b.cell_pitch_mm, assets, reserve, tops=dict.fromkeys(seats, top))


ASSETS = GameAssets(NAME, f"{TITLE}: {SIZE} x {SIZE} board and {2 * STONES_PER_PLAYER + TAN_STONES} pebble stones", PRESET,
                    {"stratstone.board": StratstoneBoard, "stratstone.stone": StratstoneStones}, combine, plan, CAD,
                    files=rf"{BOARD_FILES}|stone-{COLOUR}-[0-9]{{2}}", table=table, fits=fits)
