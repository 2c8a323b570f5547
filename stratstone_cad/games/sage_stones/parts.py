"""Sage Stones' printable assets: the 7 x 9 board with a well per cell for the 18 mm
glass gems the game is played with, and printable gems for people without glass ones.

The board's columns are numbered 3-9 (the totals of three three-sided dice) along the
short edges, its rows 1-9 along the long edges, so a square of the log (``5-7``: column
5, row 7) can be read off the board from either end. Both long edges carry matching
arrows at every row: the rows wrap there (east of column 9 comes column 3).

A gem is a domed disc with a flat bottom and a small flat top carrying its colour's
tactile mark; all gems of a colour are the same part, made once and printed 10 times.

Every turn starts with "roll 3d3", so the set has three dice: a cube with rounded edges
and corners numbered 1, 2, 3, 1, 2, 3 (1 opposite 1) in engraved pips, flat-bottomed pits
that read by touch as well as by eye. A printed die with deeper or more pips on one side
is lighter there and rolls that side up; these are fair by construction: every face's
pips remove the same volume of plastic (a face with fewer pips has wider ones: a pip's
area is a third of the face's total on the three face, half on the two, all on the one),
all are the same depth, and each face's pips sit symmetrically about its centre, so the
centre of mass is the cube's centre (to a few micrometres: the bottom face's pips end on
a layer boundary, see :func:`die_pips`).
Parameters in ``preset.toml`` beside this module; CAD in :mod:`stratstone_cad.games.sage_stones.cad`.
"""

from __future__ import annotations

import functools
import math
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
    MIN_WALL_MM,
    NAME_RE,
    TOL,
    MeshParams,
    Params,
    Profile,
    check_names,
    fmt,
    fmt_down,
    fmt_up,
    param,
    snap_depth,
    snap_height,
)
from stratstone_cad.base.printers import Printer
from stratstone_cad.games.sage_stones.facts import COLOURS as ENGINE_COLOURS
from stratstone_cad.games.sage_stones.facts import COLUMNS as N_COLUMNS
from stratstone_cad.games.sage_stones.facts import FIRST_COLUMN, NAME
from stratstone_cad.games.sage_stones.facts import ROWS as N_ROWS
from stratstone_cad.geometry.boards import BoardParams, GridBoard, Label, edge_labels, label_strokes, stroke_region
from stratstone_cad.geometry.coupons import clearances_of
from stratstone_cad.geometry.glyphs import Polyline
from stratstone_cad.geometry.marks import MarkParams, MarkSpec, check_mark_floor, check_marks, mark_spec

#: The game's default parameters (package data).
PRESET = Path(__file__).with_name("preset.toml")
#: The CAD functions of this game's parts, in cad.py (named, not imported: see CadFunctions).
CAD = CadFunctions("stratstone_cad.games.sage_stones.cad", ("make_board", "make_gem", "make_die", "make_fit_wells",
                                                           "make_fit_gem", "make_fit_joint"))

COLUMNS = tuple(str(FIRST_COLUMN + c) for c in range(N_COLUMNS))  # 3-9, the totals of three 3-sided dice
ROWS = tuple(str(r) for r in range(1, N_ROWS + 1))


@dataclass(frozen=True)
class SageBoard(BoardParams):
    """The Sage Stones board: 7 columns x 9 rows of wells, numbers on every edge."""

    PREFIX = "sage-stones.board"

    cell_pitch_mm: float = param("centre-to-centre distance of two wells", lo=10, hi=120)
    side_rim_width_mm: float = param("width of the long edges' rims: row numbers outside, wrap arrows inside",
                                     lo=6, hi=60)
    well_depth_mm: float = param("depth of a gem's well, snapped to whole layers (a gem sits in it when the "
                                 "board is bumped)", lo=0.6, hi=10)
    clearance_mm: float = param("gap between a gem and its well, per side", lo=0.1, hi=3)
    arrow_length_mm: float = param("length of the wrap arrows on the long edges", lo=3, hi=30)

    def grid(self) -> GridBoard:
        return GridBoard(len(COLUMNS), len(ROWS), self.cell_pitch_mm, self.side_rim_width_mm, self.rim_width_mm,
                         self.corner_radius_mm)

    def col_texts(self) -> list[str]:
        return list(COLUMNS)

    def row_texts(self) -> list[str]:
        return list(ROWS)

    def row_label_room(self) -> tuple[float, str]:
        return self.rim_width_mm, "rim_width_mm"  # the outer strip of the long rims, as wide as the short rims

    def labels(self) -> list[Label]:
        return edge_labels(self.grid(), COLUMNS, ROWS, row_label_x=self.rim_width_mm / 2)

    def arrows(self) -> list[Polyline]:
        """An arrow pointing east at every row on both long edges, in the strip between the
        row numbers and the wells: rows leave the board on the right and come back on the left."""
        grid = self.grid()
        w, _ = grid.size_mm
        half, head = self.arrow_length_mm / 2, self.arrow_length_mm * 0.3
        centre = (self.rim_width_mm + self.side_rim_width_mm) / 2
        lines: list[Polyline] = []
        for r in range(len(ROWS)):
            _, y = grid.cell_centre(0, r)
            for x in (centre, w - centre):
                lines.append([(x - half, y), (x + half, y)])
                lines.append([(x + half - head, y + head), (x + half, y), (x + half - head, y - head)])
        return lines

    def check(self) -> None:
        super().check()
        strip = self.side_rim_width_mm - self.rim_width_mm
        need = self.arrow_length_mm + self.label_stroke_mm + 2 * MIN_WALL_MM
        if strip < need - TOL:
            self.fail("side_rim_width_mm", self.side_rim_width_mm,
                      f"at least {fmt_up(self.rim_width_mm + need)}: the row numbers take the outer "
                      f"{fmt(self.rim_width_mm)} mm (rim_width_mm) and the {fmt(self.arrow_length_mm)} mm wrap arrows "
                      f"need {fmt_up(need)} mm beside them", "use a smaller rim_width_mm or arrow_length_mm")
        if 0.6 * self.arrow_length_mm + self.label_stroke_mm + MIN_WALL_MM > self.cell_pitch_mm + TOL:
            self.fail("arrow_length_mm", self.arrow_length_mm,
                      f"at most {fmt_down((self.cell_pitch_mm - self.label_stroke_mm - MIN_WALL_MM) / 0.6)} so the "
                      "arrows of neighbouring rows stay apart")
        if self.well_depth_mm > self.thickness_mm - 1.0 + TOL:
            self.fail("well_depth_mm", self.well_depth_mm,
                      f"at most {fmt_down(self.thickness_mm - 1.0)} to leave a 1 mm floor under the wells in the "
                      f"{fmt(self.thickness_mm)} mm board (sage-stones.board.thickness_mm)", "use a thicker board")


@dataclass(frozen=True)
class GemShape:
    """What a gem's CAD function reads of ``sage-stones.gem`` to shape a gem."""

    diameter_mm: float
    height_mm: float
    edge_height_mm: float
    top_diameter_mm: float


@dataclass(frozen=True)
class SageGems(MarkParams):
    """Printable gems: one domed disc per colour, its colour's mark on its flat top."""

    PREFIX = "sage-stones.gem"
    MARK_COUNT = 6
    MARK_HELP = "engrave each colour's mark on its gems' tops"
    MARKS_HELP = "mark of each colour (six that differ by touch, every one the same groove area)"
    THE_MARK = "a mark"

    diameter_mm: float = param("gem diameter: the glass gems' and the printed ones' (the wells fit it)",
                               lo=8, hi=40)
    height_mm: float = param("height of a printed gem, snapped to the piece profile's layers", lo=3, hi=20)
    edge_height_mm: float = param("height of a printed gem's straight side, under the dome", lo=0.6, hi=15)
    top_diameter_mm: float = param("diameter of the flat top that carries the mark", lo=2, hi=36)
    per_colour: int = param("gems of each colour the game needs (the manifest's print count)", lo=1, hi=50)
    colours: list[str] = param("names of the six colours, in the engine's colour order",
                               length=6)
    # then MarkParams' fields: mark, marks, mark_size_mm, mark_stroke_mm, mark_depth_mm

    def check(self) -> None:
        check_names(self, "colours", self.colours, "six")
        if self.edge_height_mm > self.height_mm - 0.5 + TOL:
            self.fail("edge_height_mm", self.edge_height_mm, f"at most {fmt_down(self.height_mm - 0.5)} so the gem "
                                                             f"has a dome (sage-stones.gem.height_mm {fmt(self.height_mm)})")
        if self.top_diameter_mm > self.diameter_mm - 2 + TOL:
            self.fail("top_diameter_mm", self.top_diameter_mm, f"at most {fmt_down(self.diameter_mm - 2)} so the "
                                                               "gem has a dome")
        # A sphere through the side's top edge and the flat top's edge; its centre must not
        # lie above the edge, or the dome would bulge out past the side (an overhang).
        a, b, dome = self.diameter_mm / 2, self.top_diameter_mm / 2, self.height_mm - self.edge_height_mm
        if a * a < b * b + dome * dome - TOL:
            self.fail("height_mm", self.height_mm,
                      f"at most {fmt_down(self.edge_height_mm + math.sqrt(a * a - b * b))} with a "
                      f"{fmt(self.edge_height_mm)} mm side under a {fmt(self.top_diameter_mm)} mm top, or the dome "
                      "would bulge past the side and need supports")
        if self.mark and self.mark_depth_mm > self.height_mm - 1.0 + TOL:
            self.fail("mark_depth_mm", self.mark_depth_mm, f"at most {fmt_down(self.height_mm - 1.0)}")
        check_marks(self, self.top_diameter_mm, "a gem's flat top")


@dataclass(frozen=True)
class DieShape:
    """What a die's CAD function reads of ``sage-stones.die`` to shape a die."""

    size_mm: float
    edge_radius_mm: float
    pip_diameter_mm: float
    pip_depth_mm: float
    pip_spacing_mm: float


#: The pips of a face by its number (the die's 1, 2 and 3), as offsets from the face's
#: centre in units of ``pip_spacing_mm``: one in the middle, two and three on a diagonal.
PIP_PATTERNS = {1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1))}
#: The number on each face, by its outward axis: 3 on the top and the bed (its pips are
#: the narrowest: the holes the first layers print around), 1 on the sides facing x, 2 on
#: those facing y; each number opposite itself.
DIE_FACES = {"+z": 3, "-z": 3, "+x": 1, "-x": 1, "+y": 2, "-y": 2}


@dataclass(frozen=True)
class Pip:
    """One pip: the face it is in (``"+x"``, its outward axis), its centre on the face's
    plane (x, y, z, mm) and its width and depth (mm)."""

    face: str
    centre: tuple[float, float, float]
    diameter_mm: float
    depth_mm: float


def pip_diameter(shape: DieShape, pips: int) -> float:
    """The width of each pip on a face of ``pips`` pips: the three face's pips are
    ``pip_diameter_mm`` wide, and every face's pips have the same total area."""
    return shape.pip_diameter_mm * math.sqrt(3 / pips)


def die_pips(shape: DieShape, profile: Profile) -> list[Pip]:
    """Every pip of a die standing on the bed (its height ``die_size``), centred on the
    origin in x and y. Every pip is ``pip_depth_mm`` deep snapped to whole layers, its
    floor in the top face on a layer boundary; those in the face on the bed end at the
    layer boundary nearest that depth and are widened or narrowed so that they remove the
    same volume as every other face's pips."""
    size = die_size(shape, profile)
    depth = snap_depth(shape.pip_depth_mm, profile)
    bottom = snap_height(depth, profile)
    half, a = size / 2, shape.pip_spacing_mm
    out = []
    for face, number in DIE_FACES.items():
        axis, sign = "xyz".index(face[1]), 1.0 if face[0] == "+" else -1.0
        u, v = [i for i in range(3) if i != axis]
        d, h = pip_diameter(shape, number), depth
        if face == "-z":
            d, h = d * math.sqrt(depth / bottom), bottom
        for i, j in PIP_PATTERNS[number]:
            c = [0.0, 0.0, half]
            c[axis] = half + sign * half if axis == 2 else sign * half
            c[u] += i * a * (sign if axis != 2 else 1.0)  # the diagonals of opposite faces cross
            c[v] += j * a
            out.append(Pip(face, (c[0], c[1], c[2]), d, h))
    return out


def die_size(shape: DieShape, profile: Profile) -> float:
    """A die's edge (mm): ``size_mm`` snapped to the layers of ``profile``, in x and y too."""
    return snap_height(shape.size_mm, profile, minimum_layers=4)


@dataclass(frozen=True)
class SageDice(Params):
    """The three three-sided dice ("roll 3d3"): cubes numbered 1, 2, 3, 1, 2, 3 in pips."""

    PREFIX = "sage-stones.die"

    size_mm: float = param("edge of a die, snapped to the piece profile's layers", lo=12, hi=40)
    edge_radius_mm: float = param("radius of a die's rounded edges and corners", lo=0.5, hi=8)
    pip_diameter_mm: float = param("width of a pip on the faces of three (those of two and one are wider, so "
                                   "every face's pips remove the same plastic)", lo=1.5, hi=12)
    pip_depth_mm: float = param("depth of every pip, snapped to whole layers", lo=0.3, hi=5)
    pip_spacing_mm: float = param("distance from a face's centre to its outer pips, along each edge",
                                  lo=1, hi=15)
    count: int = param("dice the game rolls (the manifest's print count)", lo=1, hi=9)
    colour: str = param("colour of the dice (a name of the plate's filaments)")

    def check(self) -> None:
        if not NAME_RE.fullmatch(self.colour):
            self.fail("colour", self.colour, "a name of lower-case letters, digits, '-' or '_' (it names a filament)")
        land = self.size_mm / 2 - self.edge_radius_mm - MIN_WALL_MM  # the flat face, less a wall at its edge
        if land < 0.5 * pip_diameter(self, 1) - TOL:
            self.fail("edge_radius_mm", self.edge_radius_mm,
                      f"at most {fmt_down(self.size_mm / 2 - MIN_WALL_MM - pip_diameter(self, 1) / 2)} so the one's "
                      f"{fmt(pip_diameter(self, 1))} mm pip fits on the flat of the face")
        outer = max(self.pip_spacing_mm + pip_diameter(self, n) / 2 for n in (2, 3))
        if outer > land + TOL:
            self.fail("pip_spacing_mm", self.pip_spacing_mm,
                      f"at most {fmt_down(land - pip_diameter(self, 2) / 2)} so the two's "
                      f"{fmt(pip_diameter(self, 2))} mm pips stay {fmt(MIN_WALL_MM)} mm inside the rounded edges "
                      f"(sage-stones.die.size_mm {fmt(self.size_mm)}, edge_radius_mm {fmt(self.edge_radius_mm)})",
                      "use a larger die or smaller pips")
        if self.pip_spacing_mm * math.sqrt(2) < self.pip_diameter_mm + MIN_WALL_MM - TOL:
            self.fail("pip_spacing_mm", self.pip_spacing_mm,
                      f"at least {fmt_up((self.pip_diameter_mm + MIN_WALL_MM) / math.sqrt(2))} so the three's "
                      f"pips stay {fmt(MIN_WALL_MM)} mm apart")
        if self.pip_depth_mm > self.size_mm / 4 + TOL:
            self.fail("pip_depth_mm", self.pip_depth_mm, f"at most {fmt_down(self.size_mm / 4)}, a quarter of "
                                                         f"the die (sage-stones.die.size_mm {fmt(self.size_mm)})")


@dataclass(frozen=True)
class SageParams:
    board: SageBoard
    gem: SageGems
    die: SageDice

    @property
    def well_diameter_mm(self) -> float:
        return self.gem.diameter_mm + 2 * self.board.clearance_mm


def combine(sections: Mapping[str, Any], profiles: Mapping[str, Profile]) -> SageParams:
    p = SageParams(sections["board"], sections["gem"], sections["die"])
    b, g = p.board, p.gem
    b.check_pocket_fits(p.well_diameter_mm, f"gem {fmt(g.diameter_mm)} + 2 x clearance {fmt(b.clearance_mm)}")
    board, piece = profiles["board"], profiles["piece"]
    b.check_floors(board, snap_height(b.thickness_mm, board, minimum_layers=3), ("well_depth_mm", "engrave_depth_mm"))
    check_mark_floor(g, snap_height(g.height_mm, piece, minimum_layers=4), piece, "a gem")
    return p

def keep_out(p: SageParams) -> list[tuple[str, Any]]:
    """What a tile cut or a dovetail socket must stay clear of: wells, numbers, arrows."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import Point

    b = p.board
    wells = shapely.union_all([Point(c).buffer(p.well_diameter_mm / 2, quad_segs=32) for c in b.grid().centres()])
    return [("well", wells),
            ("label", stroke_region(label_strokes(b.labels(), b.label_height_mm), b.label_stroke_mm)),
            ("wrap arrow", stroke_region(b.arrows(), b.label_stroke_mm))]


def plan(p: SageParams, printer: Printer, profiles: Mapping[str, Profile], mesh: MeshParams) -> list[Job]:
    b, g = p.board, p.gem
    jobs = [board_job(
        game=NAME, stem="board", maker=CAD.make_board,
        args={"board": b, "well_diameter_mm": p.well_diameter_mm, "profile": profiles["board"],
              "tolerance_mm": mesh.tolerance_mm},
        board=b, printer=printer, keep_out=functools.partial(keep_out, p), what="Sage Stones board",
        facts=f"7 x 9 wells of {p.well_diameter_mm:g} mm, pitch {b.cell_pitch_mm:g} mm",
        cut_fix="each tile keeps half the wall between two wells: a larger cell_pitch_mm or a smaller clearance_mm")]
    shape = subset(g, GemShape)
    for c, colour in enumerate(g.colours):
        mark: MarkSpec | None = mark_spec(g, g.marks[c])
        jobs.append(Job(f"{NAME}/gem-{colour}", CAD.make_gem,
                        {"shape": shape, "mark": mark, "profile": profiles["piece"], "tolerance_mm": mesh.tolerance_mm,
                         "angular_tolerance_deg": mesh.angular_tolerance_deg},
                        (Output(f"{NAME}/gem-{colour}.stl", NAME, "gem", "piece", colour,
                                count=g.per_colour, plate=f"gems-{colour}", adaptive=True),),
                        f"gem-{colour} (sage-stones.gem {g.diameter_mm:g} x {g.height_mm:g} mm, "
                        f"mark {mark.kind if mark else 'off'})", cost=0.5))
    d = p.die
    jobs.append(Job(f"{NAME}/die", CAD.make_die, {"shape": subset(d, DieShape), "profile": profiles["piece"],
                                                   "tolerance_mm": mesh.tolerance_mm},
                    (Output(f"{NAME}/die.stl", NAME, "die", "piece", d.colour, count=d.count, plate="dice"),),
                    f"die (sage-stones.die {d.size_mm:g} mm, pips {d.pip_diameter_mm:g} x {d.pip_depth_mm:g} mm)",
                    cost=1.0))
    return jobs


def fits(p: SageParams, printer: Printer, profiles: Mapping[str, Profile], mesh: MeshParams) -> list[Job]:
    """The fit test's coupons (:mod:`stratstone_cad.assets.fit_test`): a cell of the board with
    its well at three clearances (``sage-stones.board.clearance_mm``) and a gem of the set
    up to the wells' depth (what sits in one) to try in them; the two sides of a tile joint, the socket at three clearances
    about the board's ``joint_clearance_mm``, as the board's tiles are cut (the value of the shared
    ``fit.joint_clearance_mm`` that every board's joints follow, unless this board's own is set)."""
    b, g = p.board, p.gem
    wells = clearances_of(b, "clearance_mm")
    joints = clearances_of(b, "joint_clearance_mm")
    return [
        Job("fit-test/gem-well", CAD.make_fit_wells,
            {"board": b, "gem_diameter_mm": g.diameter_mm, "clearances": wells, "profile": profiles["board"],
             "tolerance_mm": mesh.tolerance_mm},
            tuple(fit_output(at("gem-well", c), "gem-well") for c in wells),
            f"gem wells at {', '.join(f'{c:g}' for c in wells)} mm (sage-stones.board.clearance_mm)"),
        Job("fit-test/gem", CAD.make_fit_gem,
            {"shape": subset(g, GemShape), "profile": profiles["piece"], "tolerance_mm": mesh.tolerance_mm,
             "angular_tolerance_deg": mesh.angular_tolerance_deg,
             "foot_mm": snap_depth(b.well_depth_mm, profiles["board"])},
            (fit_output("gem", "gem"),), f"a gem's foot (sage-stones.gem {g.diameter_mm:g} mm)"),
        Job("fit-test/joint", CAD.make_fit_joint, {"board": b, "clearances": joints, "profile": profiles["board"]},
            (fit_output("joint-dovetail", "joint-dovetail"),
             *(fit_output(at("joint-socket", c), "joint-socket") for c in joints)),
            f"tile joint sockets at {', '.join(f'{c:g}' for c in joints)} mm (fit.joint_clearance_mm)"),
    ]


def table(p: SageParams, profiles: Mapping[str, Profile], pieces: Mapping[str, Any], engine: Any) -> Table:
    """Gems rest on their well's floor; square ``5-7`` (the engine's parser) is column 5, row 7.
    Each colour's gems in hand stand beside the board in a block of two columns, the colours
    in play order alternating left and right, two blocks above each other on a side (a third
    pair of colours further out); the dice in a row in front of the board's near edge."""
    b, g = p.board, p.gem
    grid = b.grid()
    top = snap_height(b.thickness_mm, profiles["board"], minimum_layers=3)
    floor = top - snap_depth(b.well_depth_mm, profiles["board"])
    seats = seats_on(grid, engine, lambda col, row: floor, "the Sage Stones board")
    assets = {pid: f"gem-{g.colours[ENGINE_COLOURS.index(piece.colour)]}" for pid, piece in pieces.items()}
    size = die_size(subset(p.die, DieShape), profiles["piece"])
    w, _ = grid.size_mm
    dice = tuple((w / 2 + (i - (p.die.count - 1) / 2) * 1.6 * size, -1.2 * size, 0.0) for i in range(p.die.count))
    return Table("board", seats, b.cell_pitch_mm, assets, _hands(grid.size_mm, g.diameter_mm, pieces),
                 tops=dict.fromkeys(seats, top), dice=dice, die="die",
                 die_faces={n: face for face, n in DIE_FACES.items() if face[0] == "+"})


def _hands(size_mm: tuple[float, float], diameter_mm: float, pieces: Mapping[str, Any]) -> dict[str, tuple[float, float, float]]:
    """Where each gem in hand waits (mm, on the table): colour k of those in play (their
    order in ``pieces``) on the left (k even) or the right, its gems in two columns of
    rows, the upper or lower half of the side (k // 2 even or odd), a pair further out."""
    colours = list(dict.fromkeys(piece.colour for piece in pieces.values()))
    per = max((piece.number for piece in pieces.values()), default=0)
    rows = max(1, math.ceil(per / 2))
    gap, step = 0.3 * diameter_mm, 1.08 * diameter_mm
    reserve = {}
    for pid, piece in pieces.items():
        k = colours.index(piece.colour)
        side, slot = k % 2, k // 2
        col, row = divmod(piece.number - 1, rows)
        out = (slot // 2) * (2 * step + gap) + (col + 0.5) * step + gap
        x = -out if side == 0 else size_mm[0] + out
        half = size_mm[1] / 4 * (1 if slot % 2 == 0 else -1)  # the upper half first
        y = size_mm[1] / 2 + half + ((rows - 1) / 2 - row) * step
        reserve[pid] = (x, y, 0.0)
    return reserve


ASSETS = GameAssets(NAME, "Sage Stones: 7 x 9 board with wells for 18 mm gems, printable gems and three dice",
                    PRESET, {"sage-stones.board": SageBoard, "sage-stones.gem": SageGems, "sage-stones.die": SageDice},
                    combine, plan, CAD, files=rf"{BOARD_FILES}|gem-{COLOUR}|die", table=table, fits=fits)
