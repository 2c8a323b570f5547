"""Binary STL: deterministic bytes (fixed header, no timestamp), and the one reader of them.
The build writes a part's files all or none (:func:`stratstone_cad.base.fileio.atomic_write_all`)."""

from __future__ import annotations

import numpy as np

from stratstone_cad.printing.checks import Mesh, first_use_numbering

#: One triangle of a binary STL: its normal, its three corners and the attribute word.
_RECORD = np.dtype([("normal", "<f4", (3,)), ("v", "<f4", (3, 3)), ("attr", "<u2")])


def stl_bytes(mesh: Mesh, name: str) -> bytes:
    """The binary STL of ``mesh``; the 80-byte header names the part (no date)."""
    tri = mesh.vertices[mesh.triangles]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
    rec = np.zeros(len(tri), dtype=_RECORD)
    rec["normal"] = n
    rec["v"] = tri
    header = f"stratstone-cad {name}".encode("ascii", "replace")[:80].ljust(80, b" ")
    return header + np.uint32(len(tri)).tobytes() + rec.tobytes()


def read_stl_mesh(data: bytes) -> Mesh:
    """The indexed mesh of a binary STL written by :func:`stl_bytes` (equal
    float32 corners are one vertex, numbered in order of first use)."""
    n = int(np.frombuffer(data, "<u4", 1, 80)[0])
    corners = np.ascontiguousarray(np.frombuffer(data, _RECORD, n, 84)["v"].reshape(-1, 3))
    keys = corners.view(np.dtype((np.void, 12))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    kept, number = first_use_numbering(first, inverse)
    return Mesh(corners[kept].astype(np.float64), number.reshape(-1, 3))
