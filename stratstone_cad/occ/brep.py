"""B-rep solids from the 2D regions the print meshes are made from: one solid per stack.

A board (or a tile of one) is a stack of :class:`~stratstone_cad.geometry.boards.Slab`:
2D regions between two heights, every face horizontal or vertical. Its print mesh is
the slabs' prisms united by manifold3d (:func:`stratstone_cad.printing.stack.stack_mesh`);
its B-rep, here, is the same solid as OpenCascade faces: one planar face per region of
each horizontal level (the floors of the recesses and of the engraving, the tops) with
the holes as inner wires, and one planar wall per side of each slab's outline.

Why the faces are assembled by hand, sharing their edges, rather than by booleans:
fusing the Stratstone board's 11 slab prisms with ``BRepAlgoAPI_Fuse`` took 1.6 s and
merging the coplanar faces after it 0.7 s more (the Sage Stones board 7.8 + 2.5 s; the
coplanar faces with hundreds of holes are what OpenCascade's face-face intersection is
slow at), and sewing the same faces made separately (``BRepBuilderAPI_Sewing``, which
must find the shared edges and cut T-junctions) took 3.1 s. Here every vertex and every
edge is made once and shared by the faces that meet there, so no boolean, no sewing
and no validity check runs (the tests run ``BRepCheck_Analyzer`` on every part).

A round pocket (a recess, a well) is a true circle and one cylindrical face, not its
polygon's 32-44 walls (:func:`_circles`): a CAD user gets the circle as designed, and the
Sage Stones board has half the faces (3,654, not 7,623), made in 0.7 s instead of 1.2 and
written to STEP in a third of the time. The print mesh's polygon touches the circle from
outside, within the mesh tolerance.

For faces to share their edges, an edge must not end on the inside of another edge
(a T-junction): at each level every outline segment is split at every vertex of that
level lying on it (the vertices of the regions below and above and of the faces
between them, computed on a 1e-6 mm grid so that the same point is the same number).

A wall is one face from the lowest slab its side bounds to the highest (:func:`_walls`),
not one face per slab: a shell board is many slabs (a cavity's side runs from the bed to
its ceiling through every slab between), and the Sage Stones shell board's 43,582 sides
of slabs were as many walls (36,119 faces in all; 12,803 now, the same solid: the volume,
the bounding box and every horizontal face as before). Where a side runs on through a
height no horizontal face meets it (the material is on the same side above and below);
a vertex lying inside it there (a T-junction) ends the face at that height, and its
vertical edges are split only at the heights where a horizontal edge ends on them. The
split points of a level are found for all its sides in one STRtree query and numpy
(:meth:`_Level.inner`), and a ring's signature once (:func:`_signature`): with three
times fewer faces, the shell boards' solids take 1.3-1.7x less time to make, and
BRepCheck 1.6-2.3x less on the Stratstone and terrain boards (on the Sage Stones board its
time is the big flat faces', unchanged: docs/benchmarks.md).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from typing import Any

import cadquery as cq
import numpy as np
import shapely
from OCP.BRep import BRep_Builder
from OCP.BRepAdaptor import BRepAdaptor_Curve
from OCP.BRepBuilderAPI import BRepBuilderAPI_MakeEdge, BRepBuilderAPI_MakeFace, BRepBuilderAPI_MakeVertex
from OCP.Geom import Geom_CylindricalSurface, Geom_Plane
from OCP.GeomAbs import GeomAbs_Circle
from OCP.gp import gp_Ax3, gp_Dir, gp_Pln, gp_Pnt
from OCP.TopAbs import TopAbs_EDGE, TopAbs_FORWARD
from OCP.TopExp import TopExp_Explorer
from OCP.TopoDS import TopoDS, TopoDS_Edge, TopoDS_Face, TopoDS_Shell, TopoDS_Solid, TopoDS_Vertex, TopoDS_Wire

from stratstone_cad.errors import GeometryError

GRID_MM = 1e-6  # every region's coordinates are snapped to this grid before the faces are made
_ON = 2.5 * GRID_MM  # a vertex this close to a segment lies on it
_TOLERANCE = 1e-7  # OpenCascade's tolerance of the faces, as BRepBuilderAPI gives them


def _polygons(geom: Any) -> list[Any]:
    """The non-empty polygons of a region, each oriented: outline counter-clockwise, holes clockwise."""
    out = []
    for g in getattr(geom, "geoms", [geom]):
        if g.is_empty:
            continue
        if g.geom_type == "Polygon":
            out.append(shapely.orient_polygons(g, exterior_cw=False))
        elif g.geom_type == "MultiPolygon":
            out += _polygons(g)
        # lines and points left by an overlay have no area: no face
    return out


def _rings(poly: Any) -> list[np.ndarray]:
    """The outline then the holes of an oriented polygon, each as an (n, 2) array, not closed."""
    return [np.asarray(r.coords, dtype=np.float64)[:-1] for r in (poly.exterior, *poly.interiors)]


class _Topology:
    """Vertices and edges made once each, shared by every face that meets there."""

    def __init__(self) -> None:
        self.vertices: dict[tuple[int, int, int], TopoDS_Vertex] = {}
        self.edges: dict[tuple[tuple[int, int, int], tuple[int, int, int]], TopoDS_Edge] = {}
        self.builder = BRep_Builder()
        #: the round pockets' circle edges, by (centre x, y, radius, height on the grid)
        self.circles: dict[tuple[float, float, float, int], TopoDS_Edge] = {}
        #: where a vertex is, when not at its key's grid point: the first point computed for it
        self.at: dict[tuple[int, int, int], tuple[float, float, float]] = {}

    @staticmethod
    def key(x: float, y: float, z: float) -> tuple[int, int, int]:
        return (round(x / GRID_MM), round(y / GRID_MM), round(z / GRID_MM))

    def vertex(self, k: tuple[int, int, int]) -> TopoDS_Vertex:
        v = self.vertices.get(k)
        if v is None:
            p = self.at.get(k) or (k[0] * GRID_MM, k[1] * GRID_MM, k[2] * GRID_MM)
            v = BRepBuilderAPI_MakeVertex(gp_Pnt(*p)).Vertex()
            self.vertices[k] = v
        return v

    def edge(self, a: tuple[int, int, int], b: tuple[int, int, int]) -> TopoDS_Edge:
        """The edge from ``a`` to ``b``, oriented so (the same edge reversed when it was made from ``b``)."""
        e = self.edges.get((a, b))
        if e is None:
            va, vb = self.vertices.get(a), self.vertices.get(b)
            e = BRepBuilderAPI_MakeEdge(va if va is not None else self.vertex(a),
                                        vb if vb is not None else self.vertex(b)).Edge()
            self.edges[(a, b)] = e
            self.edges[(b, a)] = TopoDS.Edge_s(e.Reversed())  # each edge is met twice: once each way
        return e

    def wire(self, loop: Sequence[tuple[int, int, int]] | TopoDS_Edge) -> TopoDS_Wire:
        """A closed wire through the points of ``loop`` in order, or of one closed edge (a circle)."""
        w = TopoDS_Wire()
        add = self.builder.Add
        self.builder.MakeWire(w)
        if isinstance(loop, TopoDS_Edge):
            add(w, loop)
            w.Closed(True)
            return w
        edge, edges = self.edge, self.edges
        prev = loop[-1]
        for p in loop:
            e = edges.get((prev, p))
            add(w, e if e is not None else edge(prev, p))
            prev = p
        w.Closed(True)
        return w

    def face(self, plane: gp_Pln, loops: Sequence[Sequence[tuple[int, int, int]]]) -> Any:
        """A planar face: the first loop its outline (counter-clockwise seen from the plane's
        normal), the others its holes (clockwise)."""
        f = TopoDS_Face()
        self.builder.MakeFace(f, Geom_Plane(plane), _TOLERANCE)
        for loop in loops:
            self.builder.Add(f, self.wire(loop))
        return f


    def solid(self, faces: Sequence[Any]) -> cq.Solid:
        """The solid bounded by ``faces``, which share their edges and close. No check here:
        BRepCheck_Analyzer takes 2-4 x as long as making the solid (8.5 s for the Sage
        Stones board); the tests run it on every part."""
        shell = TopoDS_Shell()
        self.builder.MakeShell(shell)
        for f in faces:
            self.builder.Add(shell, f)
        shell.Closed(True)
        solid = TopoDS_Solid()
        self.builder.MakeSolid(solid)
        self.builder.Add(solid, shell)
        return cq.Solid(solid)


_SPAN = 1 << 30  # grid points within 1,073 mm of the origin: a key (x, y) as one int64


def _codes(keys: np.ndarray) -> np.ndarray:
    """Grid keys ((n, 2) int64) as one int64 each, in the order of (x, y): numpy sorts and
    compares one column several times faster than rows."""
    if len(keys) and np.abs(keys).max() >= _SPAN:
        raise GeometryError(f"a board {np.abs(keys).max() * GRID_MM:.0f} mm from the origin: expected within 1,000 mm")
    return (keys[:, 0] + _SPAN) * (2 * _SPAN) + (keys[:, 1] + _SPAN)


def _keys(codes: np.ndarray) -> np.ndarray:
    return np.column_stack([codes // (2 * _SPAN) - _SPAN, codes % (2 * _SPAN) - _SPAN])


class _Level:
    """The vertices lying in one horizontal plane, to split each segment drawn there."""

    def __init__(self, z: float, points: np.ndarray, rings: Sequence[np.ndarray] = ()) -> None:
        #: the vertex keys two different rings share: where they touch
        self.shared: set[tuple[int, int]] = set()
        if rings:
            distinct = {_signature(r): r for r in rings}.values()  # the same ring below, above and in a face
            code = np.concatenate([_codes(np.round(r / GRID_MM).astype(np.int64)) for r in distinct])
            owner = np.repeat(np.arange(len(distinct)), [len(r) for r in distinct])
            order = np.lexsort((owner, code))
            code, owner = code[order], owner[order]
            again = (code[1:] == code[:-1]) & (owner[1:] != owner[:-1])
            self.shared = set(map(tuple, _keys(np.unique(code[1:][again])).tolist()))
        self.z = z
        self.points = _keys(np.unique(_codes(np.round(points / GRID_MM).astype(np.int64)))) if len(points) else \
            np.zeros((0, 2), dtype=np.int64)
        self.tree = shapely.STRtree(shapely.points(self.points * GRID_MM)) if len(self.points) else None
        self.kz = round(z / GRID_MM)

    def inner(self, a: np.ndarray, b: np.ndarray) -> dict[int, list[tuple[int, int]]]:
        """The vertices of the level lying inside each segment from ``a[i]`` to ``b[i]`` ((n, 2)
        arrays), as ``{i: keys in order along it}`` (segments with none left out): one
        query and numpy for all of them, Python only where a vertex lies on a segment."""
        if self.tree is None or not len(a):
            return {}
        seg_i, pt_i = self.tree.query(shapely.linestrings(np.stack([a, b], axis=1)), predicate="dwithin",
                                      distance=_ON)
        q = self.points[pt_i]
        ends = (q == np.round(a[seg_i] / GRID_MM)).all(axis=1) | (q == np.round(b[seg_i] / GRID_MM)).all(axis=1)
        seg_i, q = seg_i[~ends], q[~ends]
        if not len(seg_i):
            return {}
        s, d = a[seg_i], (b - a)[seg_i]
        t = ((q[:, 0] * GRID_MM - s[:, 0]) * d[:, 0] + (q[:, 1] * GRID_MM - s[:, 1]) * d[:, 1]) / (
            d[:, 0] ** 2 + d[:, 1] ** 2)
        out: dict[int, list[tuple[int, int]]] = {}
        for k in np.lexsort((q[:, 1], q[:, 0], t, seg_i)).tolist():
            out.setdefault(int(seg_i[k]), []).append((int(q[k, 0]), int(q[k, 1])))
        return out

    def splits(self, ring: np.ndarray) -> list[list[tuple[int, int, int]]]:
        """Each segment of the closed ring as vertex keys at this height: its start, then
        every vertex of the level lying inside it, in order along it (its end is the next
        segment's start)."""
        kz = self.kz
        out = [[(x, y, kz)] for x, y in np.round(ring / GRID_MM).astype(np.int64).tolist()]
        for s, found in self.inner(ring, np.roll(ring, -1, axis=0)).items():
            out[s] += [(x, y, kz) for x, y in found]
        return out

    def only(self, sig: frozenset, ring: np.ndarray) -> bool:
        """Whether the ring ``sig`` touches no other ring here: none of its vertices is
        another's, and no other vertex lies on it."""
        if not self.shared.isdisjoint(sig):
            return False
        return all(len(seg) == 1 for seg in self.splits(ring))

    def split(self, ring: np.ndarray) -> list[tuple[int, int, int]]:
        """The closed ring's points as vertex keys at this height, split as :meth:`splits`."""
        return _without_repeats([k for seg in self.splits(ring) for k in seg])


def _without_repeats(loop: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    out = [p for i, p in enumerate(loop) if p != loop[i - 1]] if len(loop) > 1 else loop
    return out


def _snapped(region: Any) -> Any:
    return shapely.set_precision(region, GRID_MM)


def stack_solid(slabs: Iterable[Any], what: str = "board") -> cq.Solid:
    """The B-rep solid of a stack of slabs (mm): the same solid as
    :func:`stratstone_cad.printing.stack.stack_mesh` makes the mesh of.

    Every horizontal face lies at a slab boundary, so at a height the mesh has too.
    Raises GeometryError when the stack has no material or its faces do not close.

    Raises:
        GeometryError: the board has no material.
    """
    levels: list[tuple[float, float, Any]] = [(float(s.z0), float(s.z1), _snapped(s.region))
                                              for s in slabs if s.z1 > s.z0 and not s.region.is_empty]
    if not levels:
        raise GeometryError(f"{what}: the board has no material")
    heights = sorted({z for z0, z1, _ in levels for z in (z0, z1)})

    def region_between(lo: float, hi: float) -> Any:
        for z0, z1, r in levels:
            if z0 <= lo + 1e-9 and z1 >= hi - 1e-9:
                return r
        return shapely.Polygon()

    topo = _Topology()
    faces = []
    level_of: dict[float, _Level] = {}
    flats: list[tuple[float, float, Any]] = []  # (z, normal z, polygon) of each horizontal face
    for i, z in enumerate(heights):
        below = region_between(heights[i - 1], z) if i > 0 else shapely.Polygon()
        above = region_between(z, heights[i + 1]) if i + 1 < len(heights) else shapely.Polygon()
        up = _polygons(shapely.difference(below, above, grid_size=GRID_MM))
        down = _polygons(shapely.difference(above, below, grid_size=GRID_MM))
        flats += [(z, 1.0, p) for p in up] + [(z, -1.0, p) for p in down]
        pts = [r for g in (below, above) for p in _polygons(g) for r in _rings(p)]
        pts += [r for p in (*up, *down) for r in _rings(p)]
        level_of[z] = _Level(z, np.concatenate(pts) if pts else np.zeros((0, 2)), pts)
    circles = _circles(flats, levels, level_of)
    used: set[tuple[int, int, int]] = set()  # the vertices of the horizontal edges
    for (cx, cy, r, a, b, hole), _sig in circles.values():
        faces.append(_cylinder(topo, cx, cy, r, a, b, hole))
    for z, nz, poly in flats:
        lv = level_of[z]
        loops: list[Any] = []
        for k, ring in enumerate(_rings(poly)):
            circle = circles.get(_signature(ring))
            if circle is None:
                loop = lv.split(ring)
                used.update(loop)
                loops.append(loop[::-1] if nz < 0 else loop)  # seen from below, the outline runs the other way round
            else:
                edge = topo.circles[(circle[0][0], circle[0][1], circle[0][2], round(z / GRID_MM))]
                counter_clockwise = (k == 0) != (nz < 0)  # as seen from the face's side
                loops.append(edge if counter_clockwise else TopoDS.Edge_s(edge.Reversed()))
        faces.append(topo.face(gp_Pln(gp_Pnt(0.0, 0.0, z), gp_Dir(0.0, 0.0, nz)), loops))
    faces += _walls(topo, levels, set(circles), level_of, used)
    return topo.solid(faces)


def _signature(ring: np.ndarray) -> frozenset[tuple[int, int]]:
    """A ring's vertices on the grid, whatever vertex it starts at and whichever way it runs."""
    return _signature_of(ring.tobytes())


@functools.lru_cache(maxsize=4096)
def _signature_of(data: bytes) -> frozenset[tuple[int, int]]:
    # a ring is met several times (its slab's walls, the levels above and below, the flat
    # faces, the round pockets' search): its signature is made once
    return frozenset(map(tuple, np.round(np.frombuffer(data).reshape(-1, 2) / GRID_MM).astype(np.int64).tolist()))


_CIRCLE_MIN_SIDES = 16  # disc() draws at least 16


def _circle_of(ring: np.ndarray) -> tuple[float, float, float, int] | None:
    """(centre x, y, circumradius, sides) of a ring that is a regular polygon of at least
    16 sides (a round pocket as :func:`stratstone_cad.geometry.boards.disc` draws it), else None."""
    n = len(ring)
    if n < _CIRCLE_MIN_SIDES:
        return None
    c = ring.mean(axis=0)
    d = np.hypot(*(ring - c).T)
    if d.max() - d.min() > 4 * GRID_MM:
        return None
    sides = np.hypot(*(ring - np.roll(ring, 1, axis=0)).T)
    if sides.max() - sides.min() > 8 * GRID_MM:
        return None
    return float(c[0]), float(c[1]), float(d.mean()), n


def _circles(flats: list[tuple[float, float, Any]], levels: list[tuple[float, float, Any]],
             level_of: dict[float, _Level]) -> dict[frozenset, tuple[tuple[float, float, float, float, float, bool], Any]]:
    """The round pockets among the rings, to be made as true circles and one cylinder each:
    ``{signature: ((centre x, y, radius, bottom, top, is a hole), signature)}``.

    A ring qualifies when it is a regular polygon of 16 sides or more, its walls run from
    one height ``bottom`` to another ``top`` without a break, the horizontal faces use it
    there and nowhere else, and at both heights no other ring touches it (no vertex of
    another ring on it): then its polygon's edges can be one circle's edge shared by the
    cylinder and each flat face, with no T-junction. Its radius is the polygon's
    inscribed circle's: a pocket's polygon touches its circle from outside (``disc``), so
    the circle is the pocket as designed (the mesh's within ``tolerance_mm`` of it)."""
    walls: dict[frozenset, list[tuple[float, float, bool]]] = {}
    rings: dict[frozenset, np.ndarray] = {}
    for z0, z1, region in levels:
        for poly in _polygons(region):
            for k, ring in enumerate(_rings(poly)):
                sig = _signature(ring)
                walls.setdefault(sig, []).append((z0, z1, k > 0))
                rings[sig] = ring
    uses: dict[frozenset, list[float]] = {}
    for z, _nz, poly in flats:
        for ring in _rings(poly):
            uses.setdefault(_signature(ring), []).append(z)
    out = {}
    for sig, spans in walls.items():
        circle = _circle_of(rings[sig])
        if circle is None or len({hole for _, _, hole in spans}) != 1:
            continue
        spans = sorted(spans)
        if any(spans[i][1] != spans[i + 1][0] for i in range(len(spans) - 1)):
            continue
        a, b = spans[0][0], spans[-1][1]
        if sorted(uses.get(sig, [])) != [a, b]:
            continue
        if not all(level_of[z].only(sig, rings[sig]) for z in (a, b)):
            continue
        cx, cy, big, n = circle
        out[sig] = ((cx, cy, big * math.cos(math.pi / n), a, b, spans[0][2]), sig)
    return out


def _cylinder(topo: _Topology, cx: float, cy: float, r: float, a: float, b: float, hole: bool) -> Any:
    """The wall of a round pocket (``hole``) or column from height ``a`` to ``b``: one
    cylindrical face, its circles kept in ``topo.circles`` for the flat faces to share."""
    surface = Geom_CylindricalSurface(gp_Ax3(gp_Pnt(cx, cy, a), gp_Dir(0.0, 0.0, 1.0)), r)
    face = BRepBuilderAPI_MakeFace(surface, 0.0, 2 * math.pi, 0.0, b - a, _TOLERANCE).Face()
    ka, kb = round(a / GRID_MM), round(b / GRID_MM)
    for e in _edges(face):
        curve = BRepAdaptor_Curve(e)
        if curve.GetType() == GeomAbs_Circle:
            z = curve.Value(curve.FirstParameter()).Z()
            # as its curve runs (counter-clockwise about +z), whatever way the face uses it
            topo.circles[(cx, cy, r, ka if abs(z - a) < abs(z - b) else kb)] = TopoDS.Edge_s(e.Oriented(TopAbs_FORWARD))
    # the surface's normal points away from its axis: out of a column, into a pocket's material
    return TopoDS.Face_s(face.Reversed()) if hole else face


def _edges(shape: Any) -> list[TopoDS_Edge]:
    out = []
    ex = TopExp_Explorer(shape, TopAbs_EDGE)
    while ex.More():
        out.append(TopoDS.Edge_s(ex.Current()))
        ex.Next()
    return out


Segment = tuple[tuple[int, int], tuple[int, int]]  # a side of a ring: its start and end on the grid
Spans = dict[Segment, list[tuple[float, float]]]
Ends = dict[Segment, tuple[float, float, float, float]]


def _segments(levels: list[tuple[float, float, Any]], skip: set[frozenset]) -> tuple[Spans, Ends]:
    """Every side of every slab's rings but those in ``skip`` (the round pockets), as
    ``{(start, end) on the grid: [(z0, z1) of each slab it bounds]}`` (material on its
    left), and each side's end points ``(ax, ay, bx, by)``."""
    spans: Spans = {}
    ends: Ends = {}
    for z0, z1, region in levels:
        for poly in _polygons(region):
            for ring in _rings(poly):
                if _signature(ring) in skip:
                    continue
                keys = [(x, y) for x, y in np.round(ring / GRID_MM).astype(np.int64).tolist()]
                pts = ring.tolist()
                for i in range(len(keys)):
                    j = (i + 1) % len(keys)
                    seg = (keys[i], keys[j])
                    if seg[0] == seg[1]:
                        continue  # shorter than the grid: no wall
                    spans.setdefault(seg, []).append((z0, z1))
                    ends.setdefault(seg, (*pts[i], *pts[j]))
    return spans, ends


def _key(p: tuple[int, int], z: float) -> tuple[int, int, int]:
    return (*p, round(z / GRID_MM))


def _walls(topo: _Topology, levels: list[tuple[float, float, Any]], skip: set[frozenset],
           level_of: dict[float, _Level], used: set[tuple[int, int, int]]) -> list[Any]:
    """The vertical faces along the slabs' rings (material on a ring's left): one face for
    each side of a ring from the bottom of the lowest slab it bounds to the top of the
    highest, its edges split where the levels' vertices lie on them (``used``: the
    vertices of the flat faces' edges).

    Why one face through several slabs: a side that bounds slab after slab (a cell's
    wall, the outline, a cavity's side from the bed to its ceiling) meets no horizontal
    face at the heights between (the material is on the same side above and below), so
    its walls are one plane: one face instead of one per slab (the Sage Stones shell
    board's 43,582 sides of slabs make 14,218 faces). A height where a vertex of the
    level lies inside the side (a T-junction) ends the face there; its vertical edges are
    split only at the heights where a horizontal edge ends on them."""
    spans, ends = _segments(levels, skip)
    inside = _inside(spans, ends, level_of)
    faces = []
    for seg, zs in spans.items():
        runs: list[list[float]] = []
        for z0, z1 in sorted(zs):
            if runs and runs[-1][-1] == z0 and (z0, seg) not in inside:
                runs[-1].append(z1)
            else:
                runs.append([z0, z1])
        ka, kb = seg
        for hs in runs:
            lo, hi = hs[0], hs[-1]
            bottom = [_key(ka, lo), *(_key(p, lo) for p in inside.get((lo, seg), ())), _key(kb, lo)]
            top = [_key(kb, hi), *(_key(p, hi) for p in reversed(inside.get((hi, seg), ()))), _key(ka, hi)]
            used.update(bottom)
            used.update(top)
            faces.append((seg, hs, bottom, top))
    out = []
    for seg, hs, bottom, top in faces:
        ax, ay, bx, by = ends[seg]
        length = math.hypot(bx - ax, by - ay)
        plane = gp_Pln(gp_Pnt(ax, ay, hs[0]), gp_Dir((by - ay) / length, (ax - bx) / length, 0.0))
        (ka, kb), between = seg, hs[1:-1]
        # seen from outside (the ring's right): along the bottom, up, back along the top, down
        up = [k for k in (_key(kb, z) for z in between) if k in used]
        down = [k for k in (_key(ka, z) for z in reversed(between)) if k in used]
        out.append(topo.face(plane, [[*bottom, *up, *top, *down]]))
    return out


def _inside(spans: Spans, ends: Ends, level_of: dict[float, _Level]) -> dict[tuple[float, Segment], list[tuple[int, int]]]:
    """``{(height, side): the level's vertices inside the side there}`` at the bottom and
    top of every slab each side bounds (sides with none left out), one query a level."""
    wanted: dict[float, dict[Segment, None]] = {}
    for seg, zs in spans.items():
        for z0, z1 in zs:
            wanted.setdefault(z0, {})[seg] = None
            wanted.setdefault(z1, {})[seg] = None
    inside: dict[tuple[float, Segment], list[tuple[int, int]]] = {}
    for z, segs in wanted.items():
        order = list(segs)
        xy = np.array([ends[g] for g in order], dtype=np.float64)
        for i, found in level_of[z].inner(xy[:, :2], xy[:, 2:]).items():
            inside[(z, order[i])] = found
    return inside


def region_prism(region: Any, z0: float, z1: float, origin: Sequence[float] = (0.0, 0.0, 0.0),
                 u: Sequence[float] = (1.0, 0.0, 0.0), v: Sequence[float] = (0.0, 1.0, 0.0)) -> cq.Shape:
    """The B-rep of :func:`stratstone_cad.printing.stack.face_prism` (and of ``prism``
    with the default frame): ``region`` drawn in a face's coordinates (``u``, ``v`` unit
    vectors in the face from ``origin``), extruded straight up from ``z0`` to ``z1`` mm
    above the face, measured along z. One planar face per polygon, holes as inner
    wires, extruded: the tool of one boolean cut, not one cut per stroke."""
    o, uu, vv = (np.asarray(a, dtype=np.float64) for a in (origin, u, v))

    def wire(ring: np.ndarray) -> cq.Wire:
        pts = [o + x * uu + y * vv + (0.0, 0.0, z0) for x, y in ring]
        return cq.Wire.makePolygon([cq.Vector(*map(float, p)) for p in pts], close=True)

    solids = []
    for poly in _polygons(shapely.set_precision(region, GRID_MM)):
        rings = _rings(poly)
        face = cq.Face.makeFromWires(wire(rings[0]), [wire(r) for r in rings[1:]])
        solids.append(cq.Solid.extrudeLinear(face, cq.Vector(0.0, 0.0, z1 - z0)))
    return cq.Compound.makeCompound(solids)


def pocketed_solid(faces: Sequence[tuple[Any, Sequence[float], Sequence[float], Sequence[float], Any, float]],
                   what: str) -> cq.Solid:
    """A solid of planar faces, some with a pocket: each face ``(outline, origin, u, v,
    pocket, floor)`` is the polygon ``outline`` drawn in its own coordinates (``u``, ``v``
    unit vectors from ``origin``; ``u`` x ``v`` points out of the solid); ``pocket``, a
    region inside it (or None), is sunk into the face down to ``floor`` mm (negative)
    measured along z, with vertical walls: the B-rep of :func:`stratstone_cad.printing.stack.face_prism`
    cut from the face. The faces must close (each outline edge shared with one other face).

    Why not a boolean cut: cutting a Lancer's four marks (446 points each) took
    OpenCascade 11 s (3.5 s for one), where these faces, made with shared edges, take
    a few milliseconds each."""
    topo = _Topology()
    out = []
    for outline, origin, u, v, pocket, floor in faces:
        o, uu, vv = (np.asarray(a, dtype=np.float64) for a in (origin, u, v))
        normal = np.cross(uu, vv)
        normal /= np.linalg.norm(normal)

        def keys(ring: np.ndarray, w: float, o=o, uu=uu, vv=vv) -> list[tuple[int, int, int]]:
            # keyed on the grid, placed where first computed: a sloped face's points are
            # then on its plane to rounding error, not to the grid's 1e-6 mm
            out = []
            for p in (o + ring[:, :1] * uu + ring[:, 1:2] * vv + (0.0, 0.0, w)).tolist():
                k = (round(p[0] / GRID_MM), round(p[1] / GRID_MM), round(p[2] / GRID_MM))
                topo.at.setdefault(k, tuple(p))
                out.append(k)
            return out

        face_plane = gp_Pln(gp_Pnt(*map(float, o)), gp_Dir(*map(float, normal)))
        shape = shapely.Polygon(outline)
        if pocket is None:
            for poly in _polygons(shape):
                out.append(topo.face(face_plane, [keys(r, 0.0) for r in _rings(poly)]))
            continue
        pocket = shapely.set_precision(pocket, GRID_MM)
        for poly in _polygons(shapely.difference(shape, pocket, grid_size=GRID_MM)):
            out.append(topo.face(face_plane, [keys(r, 0.0) for r in _rings(poly)]))
        floor_plane = gp_Pln(gp_Pnt(float(o[0]), float(o[1]), float(o[2] + floor)), gp_Dir(*map(float, normal)))
        for poly in _polygons(pocket):
            rings = _rings(poly)
            out.append(topo.face(floor_plane, [keys(r, floor) for r in rings]))
            for ring in rings:  # the walls: the pocket (the void) on the ring's left, so seen from there
                top, low = keys(ring, 0.0), keys(ring, floor)
                n = len(ring)
                for s in range(n):
                    t = (s + 1) % n
                    if top[s] == top[t]:
                        continue
                    d = (o + ring[t, 0] * uu + ring[t, 1] * vv) - (o + ring[s, 0] * uu + ring[s, 1] * vv)
                    side = np.array([-d[1], d[0], 0.0])  # the horizontal left of d: into the pocket
                    plane = gp_Pln(gp_Pnt(*map(float, o + ring[s, 0] * uu + ring[s, 1] * vv)),
                                   gp_Dir(*map(float, side / np.linalg.norm(side))))
                    out.append(topo.face(plane, [[top[s], top[t], low[t], low[s]]]))
    return topo.solid(out)
