"""What the viewer tests read from a picture: colours by chromaticity (a colour shaded by
the light keeps its proportions of red, green and blue), the squares pieces stand on, the
points round a ring."""

from __future__ import annotations

import numpy as np


def rgb(colour: str) -> np.ndarray:
    """``#rrggbb`` as three floats, 0-255."""
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)], float)


def chroma(pixel) -> np.ndarray:
    """A pixel's chromaticity: its red, green and blue over their sum."""
    pixel = np.asarray(pixel, float)
    return pixel / max(float(pixel.sum()), 1.0)


def is_colour(pixel, colour: str, within: float = 0.08) -> bool:
    """The pixel is ``colour``, shaded: its chromaticity within ``within`` of the colour's."""
    return float(np.abs(chroma(pixel) - chroma(rgb(colour))).sum()) < within


def occupied(rep, ply: int) -> set[str]:
    """The squares a piece stands on after ``ply`` of a replay."""
    seats = {(round(x, 3), round(y, 3)): sq for sq, (x, y, _) in rep.table.seats.items()}
    return {seats[(round(p[0], 3), round(p[1], 3))] for p in rep.rest(ply).values()
            if p is not None and (round(p[0], 3), round(p[1], 3)) in seats}


def ring_points(x: float, y: float, z: float, radius: float, n: int = 24) -> list[tuple[float, float, float]]:
    """``n`` points round a level ring (mm, Z up): where a drawn ring's pixels are."""
    return [(x + radius * np.cos(a), y + radius * np.sin(a), z) for a in np.linspace(0, 2 * np.pi, n, endpoint=False)]


def check_winning_rings(ringed, squares, line, stacked) -> None:
    """Each square of the winning ``line`` ringed (10 of the ring's 24 points or more in the
    ring's colour, ``ringed(square)`` counts them), no other square with a stack on it."""
    for sq in squares:
        if sq in line:
            assert ringed(sq) >= 10, sq
        elif sq in stacked:
            assert ringed(sq) == 0, sq
