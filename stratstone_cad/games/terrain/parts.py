"""The terrain game's printable assets: the 10 x 10 terrain board built from a heightmap,
and the Runner, Lancer and Guardian of each side (two of each per side).

The board: each cell a flat-topped column at base + level x step (both on the board
profile's layers), files a-j and ranks 1-10 engraved on the rim from both sides, and the
start squares framed: Red's (c1-h1) with a full square, Blue's (c10-h10) with corner
brackets. Its heightmap is the engine's fair map of ``terrain.board.seed`` (default 1),
or the one in ``terrain.board.heightmap`` (a JSON 10 x 10 list of levels, or a
terrain-game log whose header holds one), checked by the engine's own terrain rule.

The pieces: a Runner is a cylinder, a Lancer a truncated square pyramid, a Guardian a
square pyramid with its apex blunted to a printable flat top. Each carries the game's
symbol for it (pentagon, diamond, triangle) and its strength as pips (1, 2, 3) under the
symbol: on the Runner's top, on each of the four sides of the others. Red's symbols are
outlines and Blue's are filled, as white and black pieces in a chess diagram, so the
sides differ at a glance, by touch and in a one-colour print. Every mark is engraved with
vertical walls (a raised mark on a steep side would need a tall vertical skirt).
Parameters in ``preset.toml`` beside this module; CAD in :mod:`stratstone_cad.games.terrain.cad`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stratstone_cad.assets.fit_test import at, fit_output
from stratstone_cad.assets.game_assets import GameAssets, KitHooks
from stratstone_cad.assets.jobs import COLOUR, TILES, Job, Output, board_job
from stratstone_cad.assets.makers import CadFunctions
from stratstone_cad.assets.table import Table, seats_on
from stratstone_cad.base.memo import remembered
from stratstone_cad.base.params import (
    MIN_WALL_MM,
    TOL,
    MeshParams,
    Params,
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
from stratstone_cad.games.terrain import facts
from stratstone_cad.games.terrain.facts import FILES, NAME, SIZE, START_FILES
from stratstone_cad.geometry.boards import BoardParams, GridBoard, label_strokes, stroke_region
from stratstone_cad.geometry.coupons import clearances_of
from stratstone_cad.geometry.glyphs import Polyline, pip_centres, symbol_outline

#: The game's default parameters (package data).
PRESET = Path(__file__).with_name("preset.toml")
#: The CAD functions of this game's parts, in cad.py (named, not imported: see CadFunctions).
CAD = CadFunctions("stratstone_cad.games.terrain.cad", ("make_board", "make_kit_frame", "make_kit_tile", "make_piece",
                                                      "make_fit_frame"))

#: (kind, symbol, strength) of each piece kind, in the engine's terms: what a piece is engraved with.
KIND_MARKS = tuple(zip(facts.KINDS, facts.SYMBOLS, facts.STRENGTH, strict=True))
#: The engine's side ids, in its order: piece colour i of the parameters is side i.
ENGINE_SIDES = facts.PLAYERS


@dataclass(frozen=True)
class TerrainBoard(BoardParams):
    """The terrain board: 10 x 10 cells, each a column at its level's height."""

    PREFIX = "terrain.board"

    # The base's cell_pitch_mm, rim_width_mm and label_height_mm as they are; thickness_mm
    # declared again for its own help (the base holds the levels and the dovetails), which
    # keeps the base's place and bounds.
    thickness_mm: float = param("height of the base: the rim's and the level-0 cells' top, snapped to the "
                                "board profile's layers (the tile dovetails are in it)", lo=1.5, hi=30)
    step_mm: float = param("height of one terrain level, snapped to whole layers of the board profile", lo=0.3,
                           hi=20)
    seed: int = param("the terrain: the engine's fair map of this seed (ignored when heightmap is given)",
                      lo=0, hi=2**31 - 1)
    heightmap: str = param("a heightmap file: a JSON 10 x 10 list of levels (rank 1 first) or a terrain-game log "
                           "whose header holds one; empty for the map of the seed")
    frame_inset_mm: float = param("inset of the engraved frames that mark the start squares", lo=1, hi=20)

    def grid(self) -> GridBoard:
        return GridBoard(SIZE, SIZE, self.cell_pitch_mm, self.rim_width_mm, self.rim_width_mm, self.corner_radius_mm)

    def col_texts(self) -> list[str]:
        return list(FILES)

    def row_texts(self) -> list[str]:
        return [str(r) for r in range(1, SIZE + 1)]

    def joint_lines(self) -> tuple[list[float], list[float]]:
        return self.grid().centre_lines()  # dovetails in the base, under the middle of a cell

    def frames(self) -> dict[tuple[int, int], list[Polyline]]:
        """The start-square frames by (file, rank) index: a full square on Red's c1-h1,
        corner brackets on Blue's c10-h10."""
        grid, d = self.grid(), self.frame_inset_mm
        out: dict[tuple[int, int], list[Polyline]] = {}
        for f in START_FILES:
            x0, y0, x1, y1 = grid.cell_box(f, 0)
            out[(f, 0)] = [[(x0 + d, y0 + d), (x1 - d, y0 + d), (x1 - d, y1 - d), (x0 + d, y1 - d), (x0 + d, y0 + d)]]
            x0, y0, x1, y1 = grid.cell_box(f, SIZE - 1)
            arm = (x1 - x0 - 2 * d) / 3
            out[(f, SIZE - 1)] = [[(cx + sx * arm, cy), (cx, cy), (cx, cy + sy * arm)]
                                  for cx, cy, sx, sy in ((x0 + d, y0 + d, 1, 1), (x1 - d, y0 + d, -1, 1),
                                                         (x1 - d, y1 - d, -1, -1), (x0 + d, y1 - d, 1, -1))]
        return out

    def check(self) -> None:
        super().check()
        if 2 * self.frame_inset_mm + self.label_stroke_mm + 2 * MIN_WALL_MM > self.cell_pitch_mm - TOL:
            self.fail("frame_inset_mm", self.frame_inset_mm,
                      f"at most {fmt_down((self.cell_pitch_mm - self.label_stroke_mm - 2 * MIN_WALL_MM) / 2)} so the "
                      f"start frames fit a {fmt(self.cell_pitch_mm)} mm cell",
                      "use a larger cell_pitch_mm or a smaller label_stroke_mm")
        if self.frame_inset_mm < self.label_stroke_mm / 2 + MIN_WALL_MM - TOL:
            self.fail("frame_inset_mm", self.frame_inset_mm,
                      f"at least {fmt(self.label_stroke_mm / 2 + MIN_WALL_MM)} so a frame keeps a "
                      f"{MIN_WALL_MM:g} mm wall to its cell's edge")


@dataclass(frozen=True)
class TerrainPieces(Params):
    """The pieces' proportions and marks (the same for both sides)."""

    PREFIX = "terrain.piece"

    clearance_mm: float = param("least gap between a piece's foot and its cell's edge, per side", lo=0.2, hi=10)
    runner_diameter_mm: float = param("Runner: diameter of the cylinder", lo=6, hi=100)
    runner_height_mm: float = param("Runner: height, snapped to the piece profile's layers", lo=3, hi=100)
    lancer_base_mm: float = param("Lancer: side of the square foot", lo=6, hi=100)
    lancer_top_mm: float = param("Lancer: side of the square top", lo=2, hi=100)
    lancer_height_mm: float = param("Lancer: height, snapped to the piece profile's layers", lo=3, hi=100)
    guardian_base_mm: float = param("Guardian: side of the square foot", lo=6, hi=100)
    guardian_top_mm: float = param("Guardian: side of the flat top that blunts the apex (printable)",
                                   lo=1.5, hi=100)
    guardian_height_mm: float = param("Guardian: height, snapped to the piece profile's layers", lo=3, hi=100)
    symbol_size_mm: float = param("width across the corners of the symbol (pentagon, diamond, triangle)",
                                  lo=3, hi=60)
    stroke_mm: float = param("line width of the symbol (two 0.4 mm extrusions at least)", lo=MIN_WALL_MM, hi=4)
    pip_diameter_mm: float = param("diameter of a strength pip", lo=MIN_WALL_MM, hi=10)
    relief_mm: float = param("depth of the engraved marks, square to the face (on a top: snapped to whole "
                             "layers)", lo=0.3, hi=3)
    per_kind: int = param("pieces of each kind per side (the manifest's print count)", lo=1, hi=10)
    colours: list[str] = param("names of the two sides, in the engine's order (the first's "
                                "symbols outlined, the second's filled)", length=2)

    def body(self, kind: str) -> PieceBody:
        if kind == "runner":
            return PieceBody(kind, self.runner_diameter_mm, self.runner_diameter_mm, self.runner_height_mm, True)
        base, top, height = (getattr(self, f"{kind}_{f}_mm") for f in ("base", "top", "height"))
        return PieceBody(kind, base, top, height, False)

    def check(self) -> None:
        check_names(self, "colours", self.colours, "two")
        for kind in ("lancer", "guardian"):
            base, top = getattr(self, f"{kind}_base_mm"), getattr(self, f"{kind}_top_mm")
            if top > base - 2 + TOL:
                self.fail(f"{kind}_top_mm", top, f"at most {fmt_down(base - 2)} so the sides lean in (the "
                                                 f"{fmt(base)} mm foot, terrain.piece.{kind}_base_mm)")
        misfits = [(kind, symbol, strength) for kind, symbol, strength in KIND_MARKS
                   if not self.body(kind).mark_fits(self.mark(symbol, strength))]
        if misfits:  # the largest symbol that fits every piece
            most, kind, strength = min((_largest_symbol(self, self.body(k), self.mark(s, n)), k, n) for k, s, n in KIND_MARKS)
            body = self.body(kind)
            self.fail("symbol_size_mm", self.symbol_size_mm,
                      f"at most {fmt_down(most)} so the {kind}'s symbol and {strength} pip(s) fit its "
                      f"{'top' if body.round else 'sides'} with {MIN_WALL_MM:g} mm to spare" if most >= 3 else
                      f"a {misfits[0][0]} large enough for its symbol and pips (terrain.piece.{misfits[0][0]}_* or "
                      "pip_diameter_mm)")

    def mark(self, symbol: str, strength: int, filled: bool = False) -> PieceMark:
        return PieceMark(symbol, strength, self.symbol_size_mm, self.stroke_mm, self.pip_diameter_mm, self.relief_mm,
                         filled)


@dataclass(frozen=True)
class PieceBody:
    """A piece's solid (mm): a cylinder (``round``) or a square frustum, foot on the bed."""

    kind: str
    base_mm: float
    top_mm: float
    height_mm: float
    round: bool

    def slant_mm(self, height: float | None = None) -> float:
        h = self.height_mm if height is None else height
        return math.hypot((self.base_mm - self.top_mm) / 2, h)

    def faces(self, height: float) -> list[tuple[tuple[float, float, float], tuple[float, float, float],
                                                 tuple[float, float, float]]]:
        """(origin, u, v) of each face that carries the mark: the top of a cylinder, the
        four sides of a frustum (origin at the middle of the foot's edge, u along it, v
        up the side)."""
        if self.round:
            return [((0.0, 0.0, height), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))]
        half, run = self.base_mm / 2, (self.base_mm - self.top_mm) / 2
        slant = math.hypot(run, height)
        out = []
        for k in range(4):  # front (-y), right (+x), back (+y), left (-x), each read from outside
            c, s = round(math.cos(math.pi / 2 * k), 12), round(math.sin(math.pi / 2 * k), 12)
            out_dir = (s, -c)  # outward direction of the face in the plane
            u = (c, s, 0.0)
            v = (-out_dir[0] * run / slant, -out_dir[1] * run / slant, height / slant)
            out.append(((out_dir[0] * half, out_dir[1] * half, 0.0), u, v))
        return out

    def mark_room(self) -> Any:
        """Where a mark may go in a face's own coordinates: the face less a two-extrusion wall."""
        # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
        from shapely.geometry import Point, Polygon

        if self.round:
            return Point(0, 0).buffer(self.base_mm / 2, quad_segs=32).buffer(-MIN_WALL_MM)
        slant = self.slant_mm()
        face = Polygon([(-self.base_mm / 2, 0), (self.base_mm / 2, 0), (self.top_mm / 2, slant), (-self.top_mm / 2, slant)])
        return face.buffer(-MIN_WALL_MM, join_style="mitre")

    def mark_centre(self, mark: PieceMark) -> tuple[float, float]:
        """Where a mark's box is centred in face coordinates: mid-top; on a side 42 % up (a
        little low, where the side is wider), but high enough that its pocket keeps a
        1 mm floor above the bed: a pocket's walls are vertical, so on a steep side it
        reaches ``relief / normal_z`` straight down from the face."""
        if self.round:
            return (0.0, 0.0)
        slant = self.slant_mm()
        rise = self.height_mm / slant  # height gained per mm up the side
        normal_z = (self.base_mm - self.top_mm) / 2 / slant
        lowest = (mark.relief_mm / normal_z + 1.0) / rise  # the mark's lowest point, up the side
        box = mark_region(mark).bounds
        return (0.0, max(0.42 * slant, lowest + (box[3] - box[1]) / 2))

    def mark_fits(self, mark: PieceMark) -> bool:
        return bool(self.mark_room().contains(mark_region(mark, self.mark_centre(mark))))


@dataclass(frozen=True)
class PieceMark:
    """The mark a piece carries: its symbol (outlined or filled) above its strength in pips."""

    symbol: str
    strength: int
    size_mm: float
    stroke_mm: float
    pip_diameter_mm: float
    relief_mm: float
    filled: bool


def mark_region(mark: PieceMark, centre: tuple[float, float] = (0.0, 0.0), quad_segs: int = 0) -> Any:
    """The mark's 2D region (shapely), its box centred on ``centre``: the symbol's outline
    drawn ``stroke_mm`` wide (or the symbol filled, to the same outer edge), and under it
    a row of ``strength`` pips (arcs with ``quad_segs`` segments per quarter circle, as
    :func:`stroke_region`)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely import affinity
    from shapely.geometry import Polygon

    outline = symbol_outline(mark.symbol, mark.size_mm)
    symbol = stroke_region([outline], mark.stroke_mm, quad_segs=quad_segs)
    if mark.filled:
        symbol = shapely.union_all([symbol, Polygon(outline)])
    gap = max(MIN_WALL_MM, mark.pip_diameter_mm / 2)
    spacing = mark.pip_diameter_mm + gap
    y = symbol.bounds[1] - gap - mark.pip_diameter_mm / 2
    pips = stroke_region([], 0.0, [(x, py, mark.pip_diameter_mm / 2) for x, py in pip_centres(mark.strength, spacing, y)],
                         quad_segs=quad_segs)
    region = shapely.union_all([symbol, pips])
    x0, y0, x1, y1 = region.bounds
    return affinity.translate(region, centre[0] - (x0 + x1) / 2, centre[1] - (y0 + y1) / 2)


def _largest_symbol(p: TerrainPieces, body: PieceBody, mark: PieceMark) -> float:
    lo, hi = 0.0, max(p.symbol_size_mm, 60.0)
    for _ in range(40):
        mid = (lo + hi) / 2
        m = PieceMark(mark.symbol, mark.strength, mid, mark.stroke_mm, mark.pip_diameter_mm, mark.relief_mm, False)
        lo, hi = (mid, hi) if body.mark_fits(m) else (lo, mid)
    return lo


@dataclass(frozen=True)
class TerrainKit(Params):
    """The terrain kit (:mod:`stratstone_cad.games.terrain.kit`): quadrant tiles that lay a new map every game."""

    PREFIX = "terrain.kit"

    print: bool = param("build the kit's tiles in place of the one board (build --kit)")
    designs: int = param("quadrant designs, each printed twice (2 x designs tiles; 16 x designs x (designs - 1) maps)",
                         lo=2, hi=12)
    band: str = param("levels LOW-HIGH every border square of a design keeps to (at most 2 apart, so any two "
                      "tiles fit side by side in any turn)")
    seed: int = param("seed of the designs", lo=0, hi=2**31 - 1)
    clearance_mm: float = param("gap left between neighbouring tiles (half of it taken off each tile's sides)",
                                lo=0.0, hi=1.0)
    mark_height_mm: float = param("cap height of the design letter engraved under each tile, beside its turn arrow",
                                  lo=5, hi=40)

    def check(self) -> None:
        from stratstone_cad.games.terrain.kit import parse_band  # pure Python, the kit's own words

        parse_band(self.band)

    def kit(self) -> Any:
        from stratstone_cad.games.terrain.kit import make_kit

        return make_kit(self.seed, self.designs, self.band)


@dataclass(frozen=True)
class TerrainParams:
    board: TerrainBoard
    piece: TerrainPieces
    heightmap: tuple[tuple[int, ...], ...]
    map_name: str  # "seed-1" or "map-<8 hex of the heightmap's sha256>": names the board's files
    map_source: dict[str, Any]  # for the manifest
    kit: TerrainKit


def load_map(board: TerrainBoard) -> tuple[tuple[tuple[int, ...], ...], str, dict[str, Any]]:
    """The board's heightmap, a name for its files and where it came from.

    A file is read as a terrain-game log when its first line is a JSON object naming a
    game, else as a heightmap file; either is checked by the engine's terrain rule
    (one line naming the square and the levels when it is broken).
    """
    if not board.heightmap:
        # Remembered (stratstone_cad.base.memo): an unchanged rebuild then loads no engine.
        levels = remembered("terrain map", ("stratstone_cad.games.terrain.terrain_map",), board.seed,
                            lambda: _seed_map(board.seed), decode=_levels)
        return levels, f"seed-{board.seed}", {"terrain_seed": board.seed}
    # start-up speed: the map generator only where a map is not remembered: a rebuild loads no engine
    from stratstone_cad.games.terrain.terrain_map import check_heightmap, load_heightmap_file

    path = Path(board.heightmap)
    levels = check_heightmap(load_heightmap_file(path))  # the file play --terrain reads, a log or a heightmap
    digest = hashlib.sha256(json.dumps(levels).encode()).hexdigest()
    return levels, f"map-{digest[:8]}", {"heightmap_file": str(path), "heightmap_sha256": digest}


def _seed_map(seed: int) -> tuple[tuple[int, ...], ...]:
    # start-up speed: the map generator only where a map is not remembered: a rebuild loads no engine
    from stratstone_cad.games.terrain.terrain_map import check_heightmap, generate

    return check_heightmap(generate(seed))


def _levels(data: Any) -> tuple[tuple[int, ...], ...]:
    """A remembered heightmap back from JSON: SIZE rows of SIZE integer levels, or ValueError."""
    if not (isinstance(data, list) and len(data) == SIZE and all(
            isinstance(row, list) and len(row) == SIZE and all(type(v) is int for v in row) for row in data)):
        raise ValueError("not a heightmap")
    return tuple(tuple(row) for row in data)


def combine(sections: Mapping[str, Any], profiles: Mapping[str, Profile]) -> TerrainParams:
    """The terrain game's parameters from its sections, checked that each piece fits a cell.

    Raises:
        ParameterError: a piece is too wide to stand in a cell with room to spare.
    """
    b, pc = sections["board"], sections["piece"]
    room = b.cell_pitch_mm - 2 * pc.clearance_mm
    for kind, _, _ in KIND_MARKS:
        foot = pc.body(kind).base_mm
        if foot > room + TOL:
            name = "runner_diameter_mm" if kind == "runner" else f"{kind}_base_mm"
            raise ParameterError(
                f"terrain.piece.{name} = {fmt(foot)}: expected at most {fmt_down(room)} so a {kind} stands in a "
                f"{fmt(b.cell_pitch_mm)} mm cell (terrain.board.cell_pitch_mm) with {fmt(pc.clearance_mm)} mm to "
                "spare on each side")
    board = profiles["board"]
    b.check_floors(board, snap_height(b.thickness_mm, board, minimum_layers=3), ("engrave_depth_mm",))  # the rim
    levels, name, source = load_map(b)
    return TerrainParams(b, pc, levels, name, source, sections["kit"])


def keep_out(p: TerrainParams) -> list[tuple[str, Any]]:
    """What a tile cut or a dovetail socket must stay clear of: the labels and start frames."""
    b = p.board
    frames = [line for lines in b.frames().values() for line in lines]
    return [("label", stroke_region(label_strokes(b.labels(), b.label_height_mm), b.label_stroke_mm)),
            ("start frame", stroke_region(frames, b.label_stroke_mm))]


def heights(board: TerrainBoard, profile: Profile) -> tuple[float, float]:
    """(base, step) in mm after snapping: a cell at level L has its top at base + L x step."""
    return (snap_height(board.thickness_mm, profile, minimum_layers=3), snap_depth(board.step_mm, profile))


def check_build_height(p: TerrainParams, printer: Printer, profile: Profile) -> None:
    """The board's highest cell must be under the printer's build height (tiling cuts
    it across, never up).

    Raises:
        ParameterError: the board's highest cells are taller than the printer's build height.
    """
    b = p.board
    base, step = heights(b, profile)
    level = max(max(row) for row in p.heightmap)
    top = base + level * step
    if top > printer.bed_z_mm + TOL:
        most = math.floor((printer.bed_z_mm - base) / level / profile.layer_height_mm + TOL) * profile.layer_height_mm
        raise ParameterError(
            f"terrain.board.step_mm = {fmt(b.step_mm)}: the {p.map_name} board's level-{level} cells stand {fmt(top)} mm "
            f"tall ({fmt(base)} mm base + {level} x {fmt(step)} mm), expected at most {fmt(printer.bed_z_mm)} mm, "
            f"the build height of {printer.title} (a step_mm of at most {fmt_down(most)}, or a smaller "
            f"thickness_mm)")


def plan(p: TerrainParams, printer: Printer, profiles: Mapping[str, Profile], mesh: MeshParams) -> list[Job]:
    b, pc = p.board, p.piece
    check_build_height(p, printer, profiles["board"])
    jobs = kit_jobs(p, printer, profiles, mesh) if p.kit.print else [board_job(
        game=NAME, stem=f"board-{p.map_name}", maker=CAD.make_board,
        # the board as the CAD function sees it: the map's levels, not where they were read
        # from, so the same map from another file or seed is the same cached part
        args={"board": dataclasses.replace(b, seed=0, heightmap=""), "heightmap": p.heightmap,
              "profile": profiles["board"], "tolerance_mm": mesh.tolerance_mm},
        board=b, printer=printer, keep_out=functools.partial(keep_out, p), what="terrain board",
        facts=f"{p.map_name}, pitch {b.cell_pitch_mm:g} mm, step {b.step_mm:g} mm",
        cut_fix="a larger cell_pitch_mm, or smaller labels",
        fixes={"start frame": "a larger frame_inset_mm"},
        info={"heightmap": p.map_source})]
    for side, colour in enumerate(pc.colours):
        for kind, symbol, strength in KIND_MARKS:
            mark = PieceMark(symbol, strength, pc.symbol_size_mm, pc.stroke_mm, pc.pip_diameter_mm, pc.relief_mm,
                             filled=side == 1)
            name = f"{kind}-{colour}"
            jobs.append(Job(f"{NAME}/{name}", CAD.make_piece,
                            {"body": pc.body(kind), "mark": mark, "profile": profiles["piece"],
                             "tolerance_mm": mesh.tolerance_mm, "angular_tolerance_deg": mesh.angular_tolerance_deg},
                            (Output(f"{NAME}/{name}.stl", NAME, kind, "piece", colour, count=pc.per_kind,
                                    plate=f"pieces-{colour}"),),
                            f"{name} (terrain.piece {kind}, strength {strength}, "
                            f"{'filled' if mark.filled else 'outlined'} symbol)", cost=0.8))
    return jobs


def kit_jobs(p: TerrainParams, printer: Printer, profiles: Mapping[str, Profile], mesh: MeshParams) -> list[Job]:
    """The kit's tiles, one file a design (``kit-tile-a``), two copies of each to print, and
    its frame (``kit-frame``, in pieces where it does not fit the bed).

    Raises:
        ParameterError: the board's cell pitch or step makes a tile that does not fit the kit.
    """
    b, k = p.board, p.kit
    designs = k.kit().designs
    side = len(designs[0]) * b.cell_pitch_mm - k.clearance_mm
    if side > min(printer.bed_x_mm, printer.bed_y_mm) - 2 * printer.margin_mm + TOL:
        raise ParameterError(f"terrain.board.cell_pitch_mm = {fmt(b.cell_pitch_mm)}: a kit tile is {fmt(side)} mm "
                             f"square, expected one that fits the bed of {printer.title}")
    top = heights(b, profiles["board"])[0] + max(max(map(max, d)) for d in designs) * heights(b, profiles["board"])[1]
    if top > printer.bed_z_mm + TOL:
        raise ParameterError(f"terrain.board.step_mm = {fmt(b.step_mm)}: the kit's highest cell stands {fmt(top)} mm "
                             f"tall, expected at most {fmt(printer.bed_z_mm)} mm, the build height of {printer.title}")
    board = dataclasses.replace(b, seed=0, heightmap="")
    jobs = []
    for i, design in enumerate(designs):
        mark = chr(ord("A") + i)
        jobs.append(Job(f"{NAME}/kit-tile-{mark.lower()}", CAD.make_kit_tile,
                        {"board": board, "clearance_mm": k.clearance_mm, "mark_height_mm": k.mark_height_mm,
                         "design": design, "mark": mark, "profile": profiles["board"]},
                        (Output(f"{NAME}/kit-tile-{mark.lower()}.stl", NAME, "kit-tile", "board", count=2,
                                info={"kit": {"seed": k.seed, "band": k.band, "designs": k.designs, "design": mark}},
                                plate=f"kit-tile-{mark.lower()}"),),
                        f"kit tile {mark} (terrain.kit seed {k.seed}, band {k.band}, {fmt(side)} mm square)", cost=1.5))
    w, h = b.grid().size_mm
    rim = b.rim_width_mm / 2  # the frame's pieces join under the middle of the rim
    jobs.append(board_job(
        game=NAME, stem="kit-frame", maker=CAD.make_kit_frame,
        args={"board": board, "clearance_mm": k.clearance_mm, "profile": profiles["board"],
              "tolerance_mm": mesh.tolerance_mm},
        board=b, printer=printer, keep_out=functools.partial(kit_keep_out, p), what="terrain kit frame",
        facts=f"rim {fmt(b.rim_width_mm)} mm around {len(designs[0]) * 2} x {len(designs[0]) * 2} cells",
        cut_fix="a larger cell_pitch_mm, or smaller labels", joint_lines=([rim, w - rim], [rim, h - rim]), cost=1.0))
    return jobs


def fits(p: TerrainParams, printer: Printer, profiles: Mapping[str, Profile], mesh: MeshParams) -> list[Job]:
    """The fit test's coupons (:mod:`stratstone_cad.assets.fit_test`): the kit frame's fit, a
    piece of tile cut as the kit's tiles are and three small frames cut as the kit's frame
    is, each leaving one of three clearances about ``terrain.kit.clearance_mm`` round the piece."""
    k = p.kit
    values = clearances_of(k, "clearance_mm")
    board = dataclasses.replace(p.board, seed=0, heightmap="")  # as the kit's: no map of its own
    return [Job("fit-test/kit-frame", CAD.make_fit_frame,
                {"board": board, "value": k.clearance_mm, "clearances": values, "profile": profiles["board"]},
                (fit_output("kit-tile", "kit-tile"), *(fit_output(at("kit-frame", c), "kit-frame") for c in values)),
                f"kit frames at {', '.join(f'{c:g}' for c in values)} mm round a piece of tile (terrain.kit.clearance_mm)")]


def kit_keep_out(p: TerrainParams) -> list[tuple[str, Any]]:
    """What a cut or a socket of the kit's frame must stay clear of: the labels on its rim."""
    return keep_out(p)[:1]


def for_setup(p: TerrainParams, setup: Mapping[str, Any]) -> TerrainParams:
    """The parameters with the board of a logged game: the heightmap of its setup (a
    checked log's, so valid), named as the build names it (``seed-N`` for the map of a seed)."""
    levels = tuple(tuple(row) for row in setup["heightmap"])
    seed = setup.get("terrain_seed")
    if isinstance(seed, int):
        # start-up speed: the map generator only where a replayed log names a seed
        from stratstone_cad.games.terrain.terrain_map import generate

        if tuple(map(tuple, generate(seed))) == levels:
            return dataclasses.replace(p, heightmap=levels, map_name=f"seed-{seed}",
                                       map_source={"terrain_seed": seed})
    digest = hashlib.sha256(json.dumps(levels).encode()).hexdigest()  # as load_map names a map file
    return dataclasses.replace(p, heightmap=levels, map_name=f"map-{digest[:8]}", map_source={"heightmap_sha256": digest})


def table(p: TerrainParams, profiles: Mapping[str, Profile], pieces: Mapping[str, Any], engine: Any) -> Table:
    """A piece stands on its cell's top, at base + level x step; ``heightmap[0][0]`` is a1
    (the engine's square parser gives the cell). Each square's level goes with it: the
    replay colours the cells by level."""
    b, pc = p.board, p.piece
    grid = b.grid()
    base, step = heights(b, profiles["board"])
    seats = seats_on(grid, engine, lambda col, row: base + p.heightmap[row][col] * step,
                     "the terrain board")
    assets = {pid: f"{piece.kind}-{pc.colours[ENGINE_SIDES.index(piece.colour)]}" for pid, piece in pieces.items()}
    cells = {sq: engine.parse_square(sq) for sq in seats}
    return Table(f"board-{p.map_name}", seats, b.cell_pitch_mm, assets,
                 levels={sq: p.heightmap[row][col] for sq, (col, row) in cells.items()})


def _kit_hook(name: str) -> Any:
    """kit_setup's function ``name``, imported when it is called (start-up speed: the kit's maps and Pillow only
    for the commands that use them)."""

    def hook(*args: Any) -> Any:
        from stratstone_cad.games.terrain import kit_setup

        return getattr(kit_setup, name)(*args)

    hook.__name__ = name
    return hook


ASSETS = GameAssets(NAME, "The terrain game: 10 x 10 terrain boards from a heightmap, Runner / Lancer / Guardian",
                    PRESET, {"terrain.board": TerrainBoard, "terrain.piece": TerrainPieces, "terrain.kit": TerrainKit},
                    combine, plan, CAD,
                    files=rf"board-(?:seed-[0-9]+|map-[0-9a-f]{{8}}){TILES}|kit-tile-[a-l]|kit-frame{TILES}|(?:runner|lancer|guardian)-{COLOUR}",
                    table=table, for_setup=for_setup, fits=fits,
                    start_setup=lambda p: {"heightmap": [list(row) for row in p.heightmap]},
                    kit=KitHooks(_kit_hook("play_setup"), _kit_hook("all_maps"), _kit_hook("draw")))
