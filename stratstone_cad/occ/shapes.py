"""CadQuery shape helpers: engraved strokes, checked booleans, exact volumes, rounded rectangles,
the heights of horizontal faces.

Layer snapping (``snap_height``, ``snap_depth``, ``on_layer_boundary``) lives beside
``Profile`` in :mod:`stratstone_cad.base.params`, because the parameter checks need the
snapped heights too and must not import CadQuery.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import cadquery as cq
from OCP.BRepGProp import BRepGProp
from OCP.GProp import GProp_GProps
from shapely.geometry import Polygon

from stratstone_cad.errors import GeometryError
from stratstone_cad.geometry.boards import stroke_region
from stratstone_cad.geometry.glyphs import Mark, Polyline

EPS = 1e-6


def stroke_outline(lines: list[Polyline], width: float,
                   discs: Sequence[tuple[float, float, float]] = ()) -> list[cq.Face]:
    """Planar faces (z = 0) of polylines drawn with a round pen ``width`` mm wide, plus discs.

    ``discs`` are (x, y, radius). The 2D union is done by shapely (GEOS): it is exact,
    handles holes (the ring of a "0", an "a") and is hundreds of times faster than
    fusing stadium faces in OpenCascade; the result is turned into one planar face
    per polygon.
    """
    union = stroke_region(lines, width, discs)
    return region_faces(union)


def region_faces(region: Any) -> list[cq.Face]:
    """Planar faces (z = 0) of a shapely polygon or multipolygon, holes kept."""
    polygons = list(getattr(region, "geoms", [region]))
    return [_face(poly) for poly in polygons if not poly.is_empty]


def _face(poly: Polygon) -> cq.Face:
    def wire(ring: object) -> cq.Wire:
        pts = [cq.Vector(round(x, 6), round(y, 6), 0) for x, y in ring.coords[:-1]]  # type: ignore[attr-defined]
        return cq.Wire.makePolygon(pts, close=True)

    return cq.Face.makeFromWires(wire(poly.exterior), [wire(r) for r in poly.interiors])


def engraving(lines: list[Polyline], width: float, top_z: float, depth: float,
              discs: Sequence[tuple[float, float, float]] = ()) -> cq.Shape | None:
    """The solid to cut for strokes engraved ``depth`` mm into a face at ``top_z``.

    The tool reaches 1 mm above the face so the cut is clean; returns None when there
    is nothing to engrave.
    """
    if not lines and not discs:
        return None
    prisms = [
        cq.Solid.extrudeLinear(face, cq.Vector(0, 0, depth + 1.0)).translate(cq.Vector(0, 0, top_z - depth))
        for face in stroke_outline(lines, width, discs)
    ]
    return cq.Compound.makeCompound(prisms)


def mark_engraving(mark: Mark, width: float, top_z: float, depth: float) -> cq.Shape | None:
    """The solid to cut for a set mark engraved ``depth`` mm into a face at ``top_z``.

    Built from exact primitives: each straight stroke a slot with round ends, each ring
    an annulus, each disc a circle, fused in 2D by a CadQuery sketch.
    """
    if not (mark.lines or mark.discs or mark.rings):
        return None
    sk = cq.Sketch()
    for line in mark.lines:
        for (x0, y0), (x1, y1) in itertools.pairwise(line):
            length = math.hypot(x1 - x0, y1 - y0)
            if length > EPS:
                angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
                sk = sk.push([((x0 + x1) / 2, (y0 + y1) / 2)]).slot(length, width, angle).reset()
        if len(line) > 2:  # round the inner corners of a polyline
            for x, y in line[1:-1]:
                sk = sk.push([(x, y)]).circle(width / 2).reset()
    for x, y, r in mark.discs:
        sk = sk.push([(x, y)]).circle(r).reset()
    for x, y, r in mark.rings:
        sk = sk.push([(x, y)]).circle(r + width / 2).circle(r - width / 2, mode="s").reset()
    tool = cq.Workplane("XY").workplane(offset=top_z - depth).placeSketch(sk.clean()).extrude(depth + 1.0)
    return tool.val()


def volume(shape: cq.Shape) -> float:
    """The volume in mm3, integrated to 1e-9 relative precision.

    ``Shape.Volume()`` uses OpenCascade's default integration, which is off by 0.5 %
    on the pebbles' B-spline sides; this is exact to the last digit we report.
    """
    props = GProp_GProps()
    BRepGProp.VolumeProperties_s(shape.wrapped, props, 1e-9, False)
    return props.Mass()


def checked(shape: cq.Shape, what: str) -> cq.Shape:
    """Return a single valid solid from a boolean result or raise GeometryError.

    Raises:
        GeometryError: the CAD result is not one valid solid with a volume.
    """
    solids = shape.Solids()
    if len(solids) != 1:
        raise GeometryError(f"{what}: the CAD result has {len(solids)} solids, expected 1")
    solid = solids[0]
    if not solid.isValid():
        raise GeometryError(f"{what}: the CAD kernel reports an invalid solid")
    if solid.Volume() <= 0:  # a quick integration: the sign is all that matters here (volume() is 10x slower)
        raise GeometryError(f"{what}: the CAD solid has no volume")
    return solid


def rounded_rect(x0: float, y0: float, x1: float, y1: float, radius: float, z0: float, z1: float) -> cq.Shape:
    """A box from (x0, y0, z0) to (x1, y1, z1) with vertical edges rounded by ``radius``."""
    wp = cq.Workplane("XY").workplane(offset=z0).center((x0 + x1) / 2, (y0 + y1) / 2)
    box = wp.rect(x1 - x0, y1 - y0).extrude(z1 - z0)
    if radius > EPS:
        box = box.edges("|Z").fillet(radius)
    return box.val()


def horizontal_face_heights(shape: cq.Shape) -> list[float]:
    """The z of every planar face whose normal is vertical (up or down), in mm."""
    heights = []
    for face in shape.Faces():
        if face.geomType() != "PLANE":
            continue
        n = face.normalAt()
        if abs(abs(n.z) - 1.0) < 1e-6:
            heights.append(face.Center().z)
    return heights
