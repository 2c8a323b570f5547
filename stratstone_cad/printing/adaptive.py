"""Variable layer heights for a piece: thin where its surface is shallow, thick where steep.

A layer of height h leaves a step (the "cusp") of h x |n_z| on a surface whose normal has
vertical component n_z: on a steep side (n_z near 0) thick layers leave no visible step,
on a shallow shoulder or dome (n_z near 1) only thin ones are smooth. Each height z gets
the thickest layer whose cusp stays within ``cusp_mm`` on every facet there, between
``min_mm`` and ``max_mm`` (PrusaSlicer's adaptive slicing works on the same measure).

Every horizontal face of the part (its plateau, the floors of its marks, its top) was
snapped to a layer top of the flat profile by the CAD code; the adaptive layers keep
them there: the heights between two such faces are the layers that fill that gap
exactly, as close to the wanted heights as a whole number of layers allows. The first
layer keeps the profile's first-layer height.

The result is a list of layer tops; :func:`slicer_profile` turns it into the
``(z, h)`` pairs of PrusaSlicer's and OrcaSlicer's layer-height profile, in steps, so the
slicer's interpolation between the points (Slicing.cpp ``generate_object_layers``) gives
exactly these layers.
"""

from __future__ import annotations

import math

import numpy as np

from stratstone_cad.printing.checks import Mesh

__all__ = ["adaptive_layers", "flat_heights", "slicer_profile"]

BIN_MM = 0.005  # resolution of the height -> wanted layer table
FLAT = 1 - 1e-9  # |n_z| of a horizontal face


def _normals(mesh: Mesh) -> tuple[np.ndarray, np.ndarray]:
    tri = mesh.vertices[mesh.triangles]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1)
    nz = np.abs(n[:, 2]) / np.where(length > 0, length, 1)
    return tri, nz


def flat_heights(mesh: Mesh) -> list[float]:
    """The heights of the part's horizontal faces above its bottom (rounded to 1 um)."""
    tri, nz = _normals(mesh)
    z0 = float(mesh.vertices[:, 2].min())
    flat = nz > FLAT
    return sorted({round(float(z) - z0, 6) for z in tri[flat][:, 0, 2]})


def _wanted(mesh: Mesh, cusp_mm: float, min_mm: float, max_mm: float) -> tuple[np.ndarray, float]:
    """The wanted layer height in each ``BIN_MM`` band of height, and the part's height."""
    tri, nz = _normals(mesh)
    z0 = float(mesh.vertices[:, 2].min())
    top = float(mesh.vertices[:, 2].max()) - z0
    bins = max(1, math.ceil(top / BIN_MM))
    wanted = np.full(bins, max_mm)
    sloped = nz <= FLAT
    zs = tri[sloped][:, :, 2] - z0
    lo = np.clip(np.floor(zs.min(axis=1) / BIN_MM).astype(np.int64), 0, bins - 1)
    hi = np.clip(np.ceil(zs.max(axis=1) / BIN_MM).astype(np.int64), 1, bins)
    h = np.clip(cusp_mm / np.maximum(nz[sloped], 1e-9), min_mm, max_mm)
    # every bin a facet spans gets the facet's height, the thinnest of a bin's facets wins
    counts = np.maximum(hi - lo, 0)
    starts = np.repeat(lo - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    np.minimum.at(wanted, starts + np.arange(counts.sum()), np.repeat(h, counts))
    return wanted, top


def _fill(z0: float, z1: float, wanted: np.ndarray, min_mm: float, max_mm: float) -> list[float]:
    """Layer tops from ``z0`` (exclusive) to ``z1`` (inclusive): a whole number of layers
    spread as the wanted heights ask, each within [min_mm, max_mm] when a whole number of
    layers can be (else even layers, as near the bounds as a whole number allows)."""
    gap = z1 - z0
    fewest, most = max(1, math.ceil(gap / max_mm - 1e-9)), math.floor(gap / min_mm + 1e-9)
    if most < fewest:  # no whole number of layers fits: the count that misses the bounds least
        n = min((fewest, max(most, 1)), key=lambda k: max(gap / k - max_mm, min_mm - gap / k))
        return [round(float(t), 6) for t in (*(z0 + np.arange(1, n) * gap / n), z1)]
    edges = np.linspace(z0, z1, max(2, math.ceil(gap / BIN_MM) + 1))
    mid = (edges[:-1] + edges[1:]) / 2
    w = wanted[np.clip((mid / BIN_MM).astype(np.int64), 0, len(wanted) - 1)]
    u = np.concatenate([[0.0], np.cumsum(np.diff(edges) / w)])  # layers wanted so far
    n = min(max(round(u[-1]), fewest), most)
    for _ in range(2 * (most - fewest + 1)):
        tops = np.interp(np.arange(1, n + 1) * u[-1] / n, u, edges)
        tops[-1] = z1
        heights = np.diff(np.concatenate([[z0], tops]))
        if heights.max() > max_mm + 1e-9 and n < most:
            n += 1
        elif heights.min() < min_mm - 1e-9 and n > fewest:
            n -= 1
        else:
            break
    # the spread can still ask for a layer outside the bounds where the wanted heights jump:
    # then even layers, which n (between fewest and most) always keeps within them
    if heights.max() > max_mm + 1e-9 or heights.min() < min_mm - 1e-9:
        tops = z0 + np.arange(1, n + 1) * gap / n
        tops[-1] = z1
    return [round(float(t), 6) for t in tops]


def _keys(flat: list[float], top: float, first_layer_mm: float, min_mm: float) -> list[float]:
    """The heights layers must end at: the flat faces above the first layer and the top. A
    face closer than a thinnest layer to the one below it cannot have its own layer: the
    upper one is kept (a face that close above the first layer is not kept)."""
    keys: list[float] = []
    for z in [*flat, round(top, 6)]:
        below = keys[-1] if keys else first_layer_mm
        if z <= first_layer_mm + 1e-6 or (keys and z <= keys[-1] + 1e-6):
            continue
        if z - below < min_mm - 1e-9:
            if keys:
                keys[-1] = z
            elif z >= top - 1e-6:
                keys.append(z)  # the top itself, just above the first layer: one thin layer
            continue
        keys.append(z)
    return keys


def adaptive_layers(mesh: Mesh, first_layer_mm: float, *, cusp_mm: float, min_mm: float, max_mm: float) -> list[float]:
    """The layer tops of ``mesh`` (heights above its bottom, the last its top), the first
    at ``first_layer_mm`` and every horizontal face on one (see :func:`_keys` for faces
    closer together than a thinnest layer)."""
    wanted, top = _wanted(mesh, cusp_mm, min_mm, max_mm)
    if top <= first_layer_mm + 1e-6:
        return [round(top, 6)]  # all of it within the first layer
    tops = [round(first_layer_mm, 6)]
    for k in _keys(flat_heights(mesh), top, first_layer_mm, min_mm):
        tops += _fill(tops[-1], k, wanted, min_mm, max_mm)
    return tops


def slicer_profile(tops: list[float]) -> tuple[tuple[float, float], ...]:
    """PrusaSlicer's ``(z, h)`` profile of these layer tops, a step per layer: each layer's
    height given at its bottom and again at its top, so interpolation changes nothing."""
    pairs: list[tuple[float, float]] = []
    bottom = 0.0
    for t in tops:
        h = round(t - bottom, 6)
        pairs += [(round(bottom, 6), h), (round(t, 6), h)]
        bottom = t
    return tuple(pairs)
