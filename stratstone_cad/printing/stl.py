"""Binary STL: deterministic bytes (fixed header, no timestamp). The build writes a part's
files all or none (:func:`stratstone_cad.base.fileio.atomic_write_all`)."""

from __future__ import annotations

import numpy as np

from stratstone_cad.printing.checks import Mesh

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
