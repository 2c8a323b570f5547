"""The one grid-board description every board uses, its shared parameters and checks,
its coordinates, and how a board becomes a solid.

A board is ``cols`` x ``rows`` square cells of one pitch inside a rim: the rim on the
left and right (``rim_x_mm``) carries the row labels, the rim on the near and far side
(``rim_y_mm``) the column labels. The origin is the board's lower-left corner, x grows
along the columns (file a, column 3, ...), y along the rows (rank 1 first), z up from
the bed. Everything here is pure Python (shapely for 2D regions), so the registry plans
tiles, checks parameters and the viewer places pieces with the very numbers the boards
are made from.

Boards are prismatic: every face is horizontal or vertical. A board is therefore
described exactly as a stack of :class:`Slab` (a 2D region between two heights), made
by :func:`layered` from columns (a region and its top) and cuts (a region engraved or
recessed from a top down to a floor); :func:`stratstone_cad.printing.stack.stack_mesh` turns
a stack into a watertight mesh and :func:`stratstone_cad.geometry.tiling.tile_stack` cuts it
into bed-sized tiles, both without a 3D boolean of the CAD kernel. Why not CadQuery
here: cutting a board's engraved labels into its top face took OpenCascade 2-3 s per
board (one face with hundreds of holes) and meshing it 1-3 s more; the same board as
2D regions extruded and united by manifold3d takes 0.15 s, is exact (every height is a
slab boundary, so it lies on a layer boundary by construction) and tiles in 2D. Round
pockets are polygons within the mesh tolerance of the circle, never smaller than it.

Coordinates read right way up from both sides of the table: column labels stand on the
near rim and, turned half round, on the far rim; row labels on the left rim and, turned,
on the right rim.
"""

from __future__ import annotations

import functools
import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stratstone_cad.base.params import MIN_WALL_MM, TOL, Params, fmt, fmt_down, fmt_up, param, snap_depth
from stratstone_cad.geometry.glyphs import Polyline, centred_text, text_ink


@dataclass(frozen=True)
class GridBoard:
    """Cells, pitch and rims of a board (mm); see the module docstring for the axes."""

    cols: int
    rows: int
    pitch_mm: float
    rim_x_mm: float  # left and right rims
    rim_y_mm: float  # near and far rims
    corner_radius_mm: float = 0.0

    @property
    def size_mm(self) -> tuple[float, float]:
        """Outer size (x, y) of the board."""
        return (self.cols * self.pitch_mm + 2 * self.rim_x_mm, self.rows * self.pitch_mm + 2 * self.rim_y_mm)

    def cell_centre(self, col: int, row: int) -> tuple[float, float]:
        """Centre (x, y) of a cell; col 0 is the leftmost column, row 0 the nearest row."""
        return (self.rim_x_mm + (col + 0.5) * self.pitch_mm, self.rim_y_mm + (row + 0.5) * self.pitch_mm)

    def cell_box(self, col: int, row: int) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of a cell."""
        x0, y0 = self.rim_x_mm + col * self.pitch_mm, self.rim_y_mm + row * self.pitch_mm
        return (x0, y0, x0 + self.pitch_mm, y0 + self.pitch_mm)

    def centres(self) -> list[tuple[float, float]]:
        """Every cell's centre, column by column."""
        return [self.cell_centre(c, r) for c in range(self.cols) for r in range(self.rows)]

    def wall_lines(self) -> tuple[list[float], list[float]]:
        """(x, y) positions of the boundaries between cells: where tiles may be cut."""
        return ([self.rim_x_mm + k * self.pitch_mm for k in range(1, self.cols)],
                [self.rim_y_mm + k * self.pitch_mm for k in range(1, self.rows)])

    def centre_lines(self) -> tuple[list[float], list[float]]:
        """(x, y) positions of the cells' centre lines."""
        return ([self.cell_centre(c, 0)[0] for c in range(self.cols)],
                [self.cell_centre(0, r)[1] for r in range(self.rows)])


@dataclass(frozen=True)
class Label:
    """An engraved text: its ink box centred on (x, y), turned by ``rotation_deg``."""

    text: str
    x: float
    y: float
    rotation_deg: float = 0.0


def edge_labels(grid: GridBoard, col_texts: Sequence[str], row_texts: Sequence[str],
                row_label_x: float | None = None) -> list[Label]:
    """Column labels on the near and far rims, row labels on the left and right rims.

    The far and right labels are turned half round, so a player on either side reads
    the columns in front and the rows on the left right way up. ``row_label_x`` is the
    row labels' distance from the outer edge (default: the middle of the rim).
    """
    w, h = grid.size_mm
    rx = grid.rim_x_mm / 2 if row_label_x is None else row_label_x
    out = []
    for c, text in enumerate(col_texts):
        x, _ = grid.cell_centre(c, 0)
        out += [Label(text, x, grid.rim_y_mm / 2), Label(text, x, h - grid.rim_y_mm / 2, 180.0)]
    for r, text in enumerate(row_texts):
        _, y = grid.cell_centre(0, r)
        out += [Label(text, rx, y), Label(text, w - rx, y, 180.0)]
    return out


def label_strokes(labels: Sequence[Label], height: float) -> list[Polyline]:
    """The polylines of every label at cap height ``height`` mm."""
    lines: list[Polyline] = []
    for lab in labels:
        lines += centred_text(lab.text, height, lab.x, lab.y, lab.rotation_deg)
    return lines


def stroke_region(lines: Sequence[Polyline], width: float,
                  discs: Sequence[tuple[float, float, float]] = (), quad_segs: int = 0) -> Any:
    """The 2D region (shapely) covered by polylines drawn with a round pen ``width`` mm
    wide, and by discs (x, y, radius); its area is exact up to the arcs' polygons
    (``quad_segs`` segments per quarter circle; default 6 for a pen, 12 for a disc)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import LineString, Point

    pen = quad_segs or QUAD_SEGS
    shapes = [LineString(line).buffer(width / 2, quad_segs=pen) for line in lines if len(line) > 1]
    shapes += [Point(line[0]).buffer(width / 2, quad_segs=pen) for line in lines if len(line) == 1]
    shapes += [Point(x, y).buffer(r, quad_segs=quad_segs or QUAD_SEGS * 2) for x, y, r in discs]
    return shapely.union_all(shapes)


QUAD_SEGS = 6  # segments per quarter circle of a stroke's round ends


def thin_island(texts: Sequence[str], height: float, stroke: float) -> str | None:
    """The first text whose closed letters (the eye of an e, the bowl of an a, a 0, an 8)
    leave material inside them less than two extrusions wide at this cap height and
    stroke, or None when every inside prints."""
    return next((t for t in sorted(set(texts)) if not _inside_prints(t, height, stroke)), None)


@functools.lru_cache(maxsize=4096)
def _inside_prints(text: str, height: float, stroke: float) -> bool:
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    from shapely.geometry import Polygon

    region = stroke_region(centred_text(text, height, 0.0, 0.0), stroke)
    for poly in getattr(region, "geoms", [region]):
        for ring in poly.interiors:
            if Polygon(ring).buffer(-MIN_WALL_MM / 2 + 1e-9).is_empty:
                return False
    return True


def islands_print(texts: Sequence[str], height: float, stroke: float) -> bool:
    return thin_island(texts, height, stroke) is None


def least_island_height(texts: Sequence[str], stroke: float, hi: float = 60.0) -> float:
    """The smallest cap height (mm, to 0.01 mm) at which :func:`islands_print` holds."""
    lo = 0.5
    if not islands_print(texts, hi, stroke):
        return math.inf
    while hi - lo > 1e-5:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if islands_print(texts, mid, stroke) else (mid, hi)
    return hi


# --------------------------------------------------------------------------- shared parameters


@dataclass(frozen=True)
class BoardParams(Params, ABC):
    """Parameters every board has: cells, rim, thickness, labels, tile joints.

    A game's board class adds its own fields and says what its grid and labels are
    (:meth:`grid`, :meth:`col_texts`, :meth:`row_texts`, abstract: a board class without
    one of them cannot be made); the label checks here then hold for every board.
    """

    cell_pitch_mm: float = param("centre-to-centre distance of two cells", lo=10, hi=120)
    rim_width_mm: float = param("width of the rim around the cells, carries the coordinates", lo=4, hi=60)
    thickness_mm: float = param("board height, snapped to the board profile's layers", lo=1.5, hi=30)
    corner_radius_mm: float = param("radius of the board's outer corners", lo=0, hi=30)
    label_height_mm: float = param("cap height of the engraved coordinates", lo=2.5, hi=30)
    label_stroke_mm: float = param("groove width of the engraved coordinates (two 0.4 mm extrusions at least)",
                                   lo=MIN_WALL_MM, hi=4)
    engrave_depth_mm: float = param("depth of the engraved coordinates, snapped to whole layers", lo=0.3, hi=3)
    joint_clearance_mm: float = param("gap between a dovetail and its socket when tiled, per side (left out: "
                                      "fit.joint_clearance_mm)", lo=0.05, hi=1, follows="fit.joint_clearance_mm")
    joint_width_mm: float = param("width of a tile joint's dovetail head", lo=4, hi=40)
    joint_length_mm: float = param("how far a dovetail reaches into the next tile", lo=2, hi=20)
    shell: bool = param("print the board as a shell: its tops and walls solid, hollow underneath with a wall "
                        "under a cell edge where a ceiling needs one (false: the solid board)")
    shell_top_layers: int = param("a shell's top thickness in whole layers of the board profile", lo=3, hi=20)
    shell_wall_extrusions: int = param("a shell's wall thickness in whole 0.4 mm extrusion widths", lo=2, hi=10)

    # ---- what a game's board says about itself
    @abstractmethod
    def grid(self) -> GridBoard:
        """The board's cells, pitch and rims."""

    @abstractmethod
    def col_texts(self) -> list[str]:
        """The column labels, first column first."""

    @abstractmethod
    def row_texts(self) -> list[str]:
        """The row labels, first row first."""

    def row_label_room(self) -> tuple[float, str]:
        """(width, parameter) of the side rim's strip that holds the row labels."""
        return self.rim_width_mm, "rim_width_mm"

    # ---- checks shared by every board
    def check(self) -> None:
        self.check_labels()
        if self.corner_radius_mm > min(self.grid().rim_x_mm, self.grid().rim_y_mm) + TOL:
            self.fail("corner_radius_mm", self.corner_radius_mm, f"at most the rim width {fmt_down(self.rim_width_mm)}")
        if self.engrave_depth_mm > self.thickness_mm - 1.0 + TOL:
            self.fail("engrave_depth_mm", self.engrave_depth_mm,
                      f"at most {fmt_down(self.thickness_mm - 1.0)} to leave a 1 mm floor under the labels in the "
                      f"{fmt_down(self.thickness_mm)} mm board ({self.PREFIX}.thickness_mm)", "use a thicker board")

    def check_labels(self) -> None:
        """Labels fit their rims with walls beside them, stay apart, and their insides print.

        Ink grows linearly with the cap height h: an extent is ``unit x h + stroke``; each
        room gives an upper limit on h. When no label height can fit, the message names
        the rim (or the pitch) that must grow instead.
        """
        w, h = self.label_stroke_mm, self.label_height_mm
        cols, rows = self.col_texts(), self.row_texts()
        col_w = max(text_ink(t)[2] - text_ink(t)[0] for t in cols)
        col_h = max(text_ink(t)[3] - text_ink(t)[1] for t in cols)
        row_w = max(text_ink(t)[2] - text_ink(t)[0] for t in rows)
        row_h = max(text_ink(t)[3] - text_ink(t)[1] for t in rows)
        side_room, side_name = self.row_label_room()
        limits = [  # (largest h, what the room is, the parameter that makes the room, its value, unit extent, walls)
            ((self.rim_width_mm - 2 * MIN_WALL_MM - w) / col_h, "beside the column labels on the "
             f"{fmt_down(self.rim_width_mm)} mm rim", "rim_width_mm", self.rim_width_mm, col_h, 2),
            ((side_room - 2 * MIN_WALL_MM - w) / row_w, "beside the row labels on the "
             f"{fmt_down(side_room)} mm rim", side_name, side_room, row_w, 2),
            ((self.cell_pitch_mm - MIN_WALL_MM - w) / col_w, "between neighbouring column labels",
             "cell_pitch_mm", self.cell_pitch_mm, col_w, 1),
            ((self.cell_pitch_mm - MIN_WALL_MM - w) / row_h, "between neighbouring row labels",
             "cell_pitch_mm", self.cell_pitch_mm, row_h, 1),
        ]
        for most, room, name, value, unit, walls in limits:
            if h > most + TOL:
                least = least_island_height(cols + rows, w)
                lo = max(least, self.__dataclass_fields__["label_height_mm"].metadata["lo"])
                if most + TOL >= lo:
                    self.fail("label_height_mm", h, f"at most {fmt_down(most)} to leave {MIN_WALL_MM:g} mm walls "
                                                    f"{room} ({self.PREFIX}.{name} {fmt_down(value)})")
                need = lo * unit + w + walls * MIN_WALL_MM
                self.fail(name, value, f"at least {fmt_up(need)} to hold {fmt_up(lo)} mm labels with "
                                       f"{fmt_down(w)} mm strokes and {MIN_WALL_MM:g} mm walls {room.split(' on ')[0]}")
        worst = thin_island(cols + rows, h, w)
        if worst is not None:
            least = least_island_height(cols + rows, w)
            self.fail("label_height_mm", h, f"at least {fmt_up(least)} with {fmt_down(w)} mm strokes, so the inside "
                                            f"of the {worst!r} (and every closed letter or digit) stays "
                                            f"{MIN_WALL_MM:g} mm wide")

    def labels(self) -> list[Label]:
        return edge_labels(self.grid(), self.col_texts(), self.row_texts())

    def check_pocket_fits(self, pocket_mm: float, what: str) -> None:
        """A round pocket per cell (``what``: "stone footprint 30 + 2 x clearance 0.6")
        leaves a wall of two extrusions between neighbouring cells."""
        if self.cell_pitch_mm - pocket_mm < MIN_WALL_MM - TOL:
            self.fail("cell_pitch_mm", self.cell_pitch_mm, f"at least {fmt_up(pocket_mm + MIN_WALL_MM)} ({what} + a "
                                                           f"{MIN_WALL_MM:g} mm wall, two 0.4 mm extrusions)")

    def check_floors(self, profile: Any, top: float, depths: Sequence[str]) -> None:
        """Each named depth (recess, well, engraving), snapped to whole layers of
        ``profile``, leaves at least 1 mm of floor under it in a board ``top`` mm high."""
        for name in depths:
            depth = getattr(self, name)
            floor = top - snap_depth(depth, profile)
            if floor < 1.0 - TOL:
                self.fail(name, depth, f"at most {fmt_down(top - 1.0)}; it snaps to {fmt(snap_depth(depth, profile))} mm "
                                       f"in the {fmt(top)} mm board (whole {fmt(profile.layer_height_mm)} mm layers), "
                                       f"leaving {fmt(round(floor, 6))} mm under it, expected at least 1 mm",
                          f"use a thicker board ({self.PREFIX}.thickness_mm)")

    def joint_lines(self) -> tuple[list[float], list[float]]:
        """Where tile dovetails may sit along a cut: the crossings of the walls between
        cells (solid on a board of pockets) and the middle of the rims."""
        grid = self.grid()
        w, h = grid.size_mm
        xs, ys = grid.wall_lines()
        return (sorted([*xs, grid.rim_x_mm / 2, w - grid.rim_x_mm / 2]),
                sorted([*ys, grid.rim_y_mm / 2, h - grid.rim_y_mm / 2]))


# --------------------------------------------------------------------------- regions and stacks


@dataclass(frozen=True)
class Slab:
    """The board's material between heights ``z0`` and ``z1`` (mm): a 2D region (shapely)."""

    z0: float
    z1: float
    region: Any


def circle_segments(radius: float, tolerance: float) -> int:
    """Segments of a polygon within ``tolerance`` mm of a circle (a multiple of 4, at least 16)."""
    if radius <= tolerance:
        return 16
    n = math.pi / math.acos(1 - tolerance / radius)
    return max(16, 4 * math.ceil(n / 4 - 1e-9))


def disc(centre: tuple[float, float], radius: float, tolerance: float, hole: bool = True,
         segments: int | None = None) -> Any:
    """A round region within ``tolerance`` of the circle: for a hole (a pocket, a well) the
    polygon's sides touch the circle from outside, so the pocket is never too small; for
    a solid its corners lie on the circle. ``segments`` (a multiple of 4) overrides the count."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    from shapely.geometry import Point

    n = segments or circle_segments(radius, tolerance)
    r = radius / math.cos(math.pi / n) if hole else radius
    return Point(centre).buffer(r, quad_segs=n // 4)


def discs(centres: Sequence[tuple[float, float]], radius: float, tolerance: float) -> Any:
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    return shapely.union_all([disc(c, radius, tolerance) for c in centres])


def outline(grid: GridBoard, tolerance: float) -> Any:
    """The board's outline: a rectangle with rounded corners (polygonised within ``tolerance``)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    from shapely.geometry import box

    w, h = grid.size_mm
    r = grid.corner_radius_mm
    if r <= 1e-6:
        return box(0, 0, w, h)
    n = circle_segments(r, tolerance)
    return box(r, r, w - r, h - r).buffer(r, quad_segs=n // 4)


def layered(columns: Sequence[tuple[Any, float]], cuts: Sequence[tuple[Any, float, float]] = ()) -> list[Slab]:
    """A stack of slabs from ``columns`` (region, top: material from the bed to ``top``)
    and ``cuts`` (region, floor, top: material removed from ``floor`` up to ``top``).

    Slabs break at every top and floor, so every horizontal face of the result is one of
    those heights. Neighbouring slabs with the same region are merged.
    """
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely

    heights = sorted({0.0} | {round(t, 9) for _, t in columns} | {round(z, 9) for _, a, b in cuts for z in (a, b)})
    slabs: list[Slab] = []
    for z0, z1 in itertools.pairwise(heights):
        solid = [r for r, top in columns if top >= z1 - 1e-9]
        if not solid:
            continue
        region = polygonal(shapely.union_all(solid))
        holes = [r for r, floor, top in cuts if floor <= z0 + 1e-9 and top >= z1 - 1e-9]
        if holes:
            region = polygonal(region.difference(shapely.union_all(holes)))
        if region.is_empty:
            continue
        if slabs and slabs[-1].z1 == z0 and slabs[-1].region.equals(region):
            slabs[-1] = Slab(slabs[-1].z0, z1, slabs[-1].region)
        else:
            slabs.append(Slab(z0, z1, region))
    return slabs


def mark_region(mark: Any, stroke: float, quad_segs: int = 0) -> Any:
    """The 2D region of a :class:`~stratstone_cad.geometry.glyphs.Mark`: its strokes drawn
    ``stroke`` mm wide, its discs, and its rings as annuli ``stroke`` mm wide."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import Point

    parts = [stroke_region(mark.lines, stroke, mark.discs, quad_segs=quad_segs)]
    segs = quad_segs or QUAD_SEGS * 2
    parts += [Point(x, y).buffer(r + stroke / 2, quad_segs=segs).difference(Point(x, y).buffer(r - stroke / 2,
                                                                                              quad_segs=segs))
              for x, y, r in mark.rings]
    return shapely.union_all(parts)


PINCH_MM = 0.005  # half the side of the patch that joins regions touching only at a corner


def polygonal(geom: Any) -> Any:
    """Only the areas of a shapely result, with no pinch points.

    An intersection of two regions that touch along an edge also returns that edge (a
    line), which is no material. Two cells that touch only at a corner (a checkerboard of
    levels) would make a solid whose vertical edge four faces share, which no mesh check
    or slicer accepts as manifold: a square of material :data:`PINCH_MM` x 2 wide is
    added at every such point, joining them with a bridge a few microns wide (nothing
    else of the region moves)."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import shapely
    from shapely.geometry import MultiPolygon, Polygon, box

    if not isinstance(geom, Polygon | MultiPolygon):
        parts = []
        for g in getattr(geom, "geoms", []):
            if isinstance(g, Polygon) and g.area > 0:
                parts.append(g)
            elif isinstance(g, MultiPolygon):
                parts += [p for p in g.geoms if p.area > 0]
        geom = MultiPolygon(parts)
    points = _pinch_points(geom)
    if not points:
        return geom
    patched = shapely.union_all([geom, *(box(x - PINCH_MM, y - PINCH_MM, x + PINCH_MM, y + PINCH_MM) for x, y in points)])
    return polygonal(patched) if not isinstance(patched, Polygon | MultiPolygon) else patched


def _pinch_points(geom: Any) -> list[tuple[float, float]]:
    """Points where a region's boundary touches itself: a ring passing a vertex twice, or
    two parts, two holes or a part and a hole meeting at a point."""
    # start-up speed: shapely (and numpy) only where a region is drawn: an unchanged rebuild draws none
    import numpy as np
    import shapely

    if geom.is_empty:
        return []
    polys = list(getattr(geom, "geoms", [geom]))
    rings = [r for p in polys for r in (p.exterior, *p.interiors)]
    out: set[tuple[float, float]] = set()
    xy, which = shapely.get_coordinates(rings, return_index=True)  # every ring's points at once
    last = np.r_[which[1:] != which[:-1], True]  # a ring's closing point repeats its first
    keyed = np.column_stack([which[~last], xy[~last]])
    rows, counts = np.unique(keyed, axis=0, return_counts=True)
    out |= {(float(x), float(y)) for _, x, y in rows[counts > 1].tolist()}
    if len(rings) > 1:
        tree = shapely.STRtree(rings)
        left, right = tree.query(rings, predicate="intersects")  # every pair at once: one call, not one a ring
        for i, j in zip(left.tolist(), right.tolist(), strict=True):
            if j > i:
                touch = rings[i].intersection(rings[j])
                out |= {(p.x, p.y) for p in getattr(touch, "geoms", [touch]) if p.geom_type == "Point"}
    return sorted(out)


def stack_volume(slabs: Sequence[Slab]) -> float:
    """The exact volume (mm3) of a stack: each region's area times its thickness."""
    return sum(s.region.area * (s.z1 - s.z0) for s in slabs)
