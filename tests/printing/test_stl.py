"""The binary STL writer on hand-made meshes, byte for byte, and its reader (fast: the mutation tests'
selection; the built parts' STL files are checked in test_build and test_holes)."""

from __future__ import annotations

import numpy as np

from stratstone_cad.printing.checks import Mesh
from stratstone_cad.printing.stl import read_stl_mesh, stl_bytes

# the format as its specification has it, spelled here apart from the writer's
RECORD = np.dtype([("normal", "<f4", (3,)), ("v", "<f4", (3, 3)), ("attr", "<u2")])


def _tetra(scale: float = 1.0) -> Mesh:
    v = np.array([[0, 0, 0], [scale, 0, 0], [0, scale, 0], [0, 0, scale]], dtype=np.float64)
    t = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], dtype=np.int64)  # outward winding
    return Mesh(v, t)


def _read(data: bytes) -> tuple[bytes, np.ndarray]:
    n = int(np.frombuffer(data, "<u4", 1, 80)[0])
    assert len(data) == 84 + 50 * n  # 80-byte header, count, 50 bytes a triangle, nothing after
    return data[:80], np.frombuffer(data, RECORD, n, 84)


def test_the_header_names_the_part_and_holds_no_date():
    head, _ = _read(stl_bytes(_tetra(), "stone-red-03"))
    assert head == b"stratstone-cad stone-red-03".ljust(80, b" ")
    head, _ = _read(stl_bytes(_tetra(), "x" * 100 + "\u00e9"))
    assert head == (b"stratstone-cad " + b"x" * 65)  # cut to 80 bytes, never longer
    head, _ = _read(stl_bytes(_tetra(), "pi\u00e8ce"))
    assert head == b"stratstone-cad pi?ce".ljust(80, b" ")  # ASCII only
    assert stl_bytes(_tetra(), "a") == stl_bytes(_tetra(), "a")  # deterministic


def test_each_record_holds_its_triangle_and_its_outward_unit_normal():
    mesh = _tetra(10.0)
    _, rec = _read(stl_bytes(mesh, "t"))
    assert len(rec) == 4
    assert np.array_equal(rec["v"], mesh.vertices[mesh.triangles].astype(np.float32))
    expected = np.array([[0, 0, -1], [0, -1, 0], [-1, 0, 0], [1, 1, 1] / np.sqrt(3)], dtype=np.float32)
    assert np.allclose(rec["normal"], expected, atol=1e-7)
    assert np.allclose(np.linalg.norm(rec["normal"], axis=1), 1.0)
    assert not rec["attr"].any()


def test_the_reader_gives_back_the_indexed_mesh_at_float32():
    mesh = _tetra(1 / 3)
    back = read_stl_mesh(stl_bytes(mesh, "t"))
    assert back.vertices.dtype == np.float64 and len(back.vertices) == 4  # shared corners one vertex again
    assert np.array_equal(back.vertices[back.triangles], mesh.vertices[mesh.triangles].astype(np.float32))
    assert back.triangles[0].tolist() == [0, 1, 2]  # numbered in order of first use
    assert len(read_stl_mesh(stl_bytes(Mesh(np.zeros((0, 3)), np.zeros((0, 3), np.int64)), "empty")).triangles) == 0


def test_a_degenerate_triangle_gets_a_zero_normal_not_nan():
    v = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0]], dtype=np.float64)
    mesh = Mesh(v, np.array([[0, 1, 2], [0, 1, 3]], dtype=np.int64))
    _, rec = _read(stl_bytes(mesh, "flat"))
    assert np.array_equal(rec["normal"][0], np.zeros(3, np.float32))
    assert np.allclose(rec["normal"][1], [0, 0, 1])


def test_stored_stl_normals_point_out_of_the_part(built_all):
    """The normal written with each triangle agrees with its winding (outwards): a reader
    that recomputes normals would not notice a writer that stores them reversed."""
    for path in sorted(built_all.rglob("*.stl"))[::5]:
        raw = path.read_bytes()
        n = int(np.frombuffer(raw, "<u4", 1, 80)[0])
        rec = np.frombuffer(raw, np.dtype([("normal", "<f4", (3,)), ("v", "<f4", (3, 3)), ("attr", "<u2")]), n, 84)
        v = rec["v"].astype(np.float64)
        cross = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
        # a sliver's winding can flip when its corners are rounded to float32 (about 1e-5 mm at
        # 200 mm): the normal is the unrounded triangle's; one of 52,648 in the shell Sage Stones
        # board is 1.3e-5 mm2. Judged on every triangle of at least 1e-4 mm2 (twice its area).
        good = np.linalg.norm(cross, axis=1) > 2e-4
        assert (np.einsum("ij,ij->i", rec["normal"][good].astype(np.float64), cross[good]) > 0).all(), path.name
        # and the winding is outwards: the mesh's signed volume is positive
        assert np.einsum("ij,ij->i", v[:, 0], np.cross(v[:, 1], v[:, 2])).sum() > 0, path.name
