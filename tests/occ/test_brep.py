"""B-rep solids of stacks of slabs (stratstone_cad.occ.brep.stack_solid): a wall through
several slabs is one face, and the solid is the one the slabs make (volume, bounding box,
one closed valid solid, every edge shared by two faces)."""

from __future__ import annotations

import pytest
import shapely
from OCP.BRepCheck import BRepCheck_Analyzer
from OCP.TopAbs import TopAbs_EDGE, TopAbs_FACE
from OCP.TopExp import TopExp
from OCP.TopTools import TopTools_IndexedDataMapOfShapeListOfShape

from stratstone_cad.geometry.boards import Slab
from stratstone_cad.occ.brep import stack_solid
from stratstone_cad.occ.shapes import volume


def _faces_of_each_edge(solid) -> set[int]:
    edges = TopTools_IndexedDataMapOfShapeListOfShape()
    TopExp.MapShapesAndAncestors_s(solid.wrapped, TopAbs_EDGE, TopAbs_FACE, edges)
    return {edges.FindFromIndex(i).Size() for i in range(1, edges.Extent() + 1)}


def test_a_wall_through_three_slabs_is_one_face_and_the_solid_is_closed():
    """A 10 mm square block in three slabs, a 2 mm square pocket in the top one and a 4 mm
    square cavity under the bottom one's ceiling: its outline's four sides bound all three
    slabs (4 faces, not 12), the cavity's sides the lowest slab, the pocket's the top."""
    block = shapely.box(0, 0, 10, 10)
    slabs = [Slab(0.0, 1.0, block.difference(shapely.box(3, 3, 7, 7))), Slab(1.0, 2.0, block),
             Slab(2.0, 3.0, block.difference(shapely.box(4, 4, 6, 6)))]
    solid = stack_solid(slabs)
    # bottom with its hole, the cavity's ceiling, the pocket's floor, the top: 4 flat faces;
    # the outline's 4 walls, the cavity's 4 and the pocket's 4
    assert len(solid.Faces()) == 4 + 4 + 4 + 4
    assert volume(solid) == pytest.approx(300 - 16 - 4)
    bb = solid.BoundingBox()
    assert (bb.xmin, bb.ymin, bb.zmin, bb.xmax, bb.ymax, bb.zmax) == pytest.approx((0, 0, 0, 10, 10, 3))
    assert len(solid.Solids()) == 1 and BRepCheck_Analyzer(solid.wrapped).IsValid()
    assert _faces_of_each_edge(solid) == {2}


def test_a_wall_ends_where_a_face_between_the_slabs_meets_it():
    """Two slabs of the same outline, the upper one less a notch on the outline's middle:
    the notch's floor meets the outline's side at the height between, so the side is
    split there, and every edge still joins two faces."""
    block = shapely.box(0, 0, 10, 10)
    notched = block.difference(shapely.box(4, -1, 6, 2))
    solid = stack_solid([Slab(0.0, 1.0, block), Slab(1.0, 2.0, notched)])
    assert volume(solid) == pytest.approx(200 - 4)
    assert len(solid.Solids()) == 1 and BRepCheck_Analyzer(solid.wrapped).IsValid()
    assert _faces_of_each_edge(solid) == {2}
    # the outline's three whole sides are one face each through both slabs; the notched
    # side is one wall below the notch's floor (its top edge split where the notch meets
    # it), two beside the notch above, and the notch's three sides
    walls = [f for f in solid.Faces() if abs(f.normalAt().z) < 1e-9]
    assert len(walls) == 3 + 1 + 2 + 3
