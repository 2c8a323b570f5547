"""A single-stroke font for engraved coordinates (a-j, 0-9) and set marks.

Why our own strokes and not CadQuery's ``text()``: ``text()`` needs a system font,
which a fresh machine may not have, and a different font (or font version) on
another machine would change the geometry and so the files' bytes. Strokes defined
here give the same engraving everywhere, and their width is a parameter, so every
line is at least two extrusion widths wide and prints cleanly.

Glyphs are polylines in a unit box: x from 0 to :data:`ADVANCE`, baseline at y = 0,
digits and ascenders reach y = 1, the x-height is 0.68, descenders reach y = -0.3.
No module here imports CadQuery: the shapes are plain coordinates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]
Polyline = list[Point]

ADVANCE = 0.72  # glyph box width, in units of the cap height
XH = 0.68  # x-height of lowercase letters


def arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 14) -> Polyline:
    """Points on an elliptical arc from angle a0 to a1 (degrees, counter-clockwise)."""
    return [
        (cx + rx * math.cos(math.radians(a0 + (a1 - a0) * i / n)), cy + ry * math.sin(math.radians(a0 + (a1 - a0) * i / n)))
        for i in range(n + 1)
    ]


_R = 0.25  # bowl radius of lowercase letters
_BOWL = (0.34, XH / 2, _R, XH / 2)

GLYPHS: dict[str, list[Polyline]] = {
    "a": [arc(*_BOWL, 0, 360, 20), [(0.59, XH), (0.59, 0.0)]],
    "b": [[(0.09, 1.0), (0.09, 0.0)], arc(0.34, XH / 2, _R, XH / 2, 0, 360, 20)],
    "c": [arc(*_BOWL, 40, 320, 16)],
    "d": [arc(*_BOWL, 0, 360, 20), [(0.59, 1.0), (0.59, 0.0)]],
    "e": [[(0.09, XH / 2), (0.59, XH / 2), *arc(*_BOWL, 0, 320, 18)[1:]]],
    "f": [[*arc(0.45, 0.85, 0.15, 0.15, 0, 180, 8), (0.3, 0.0)], [(0.1, XH), (0.52, XH)]],
    "g": [arc(*_BOWL, 0, 360, 20), [(0.59, XH), (0.59, -0.1), *arc(0.34, -0.1, 0.25, 0.2, 0, -180, 10)[1:]]],
    "h": [[(0.09, 1.0), (0.09, 0.0)], [(0.09, 0.35), *arc(0.34, 0.43, 0.25, 0.25, 180, 0, 10), (0.59, 0.0)]],
    "i": [[(0.34, XH), (0.34, 0.0)], [(0.34, 0.9), (0.34, 0.95)]],
    "j": [[(0.44, XH), (0.44, -0.1), *arc(0.24, -0.1, 0.2, 0.2, 0, -160, 8)[1:]], [(0.44, 0.9), (0.44, 0.95)]],
    "0": [arc(0.36, 0.5, 0.3, 0.5, 0, 360, 28)],
    "1": [[(0.14, 0.78), (0.4, 1.0), (0.4, 0.0)], [(0.14, 0.0), (0.64, 0.0)]],
    "2": [[*arc(0.36, 0.7, 0.28, 0.28, 160, -40, 12), (0.08, 0.0), (0.66, 0.0)]],
    "3": [arc(0.36, 0.75, 0.26, 0.25, 150, -90, 12), arc(0.36, 0.26, 0.3, 0.26, 90, -150, 12)],
    "4": [[(0.52, 0.0), (0.52, 1.0), (0.06, 0.3), (0.68, 0.3)]],
    "5": [[(0.62, 1.0), (0.14, 1.0), (0.1, 0.56), *arc(0.36, 0.32, 0.3, 0.32, 130, -150, 14)]],
    "6": [arc(0.38, 0.3, 0.3, 0.3, 0, 360, 20), arc(0.62, 0.3, 0.54, 0.7, 180, 95, 10)],
    "7": [[(0.06, 1.0), (0.66, 1.0), (0.26, 0.0)]],
    "8": [arc(0.36, 0.76, 0.24, 0.24, -90, 270, 18), arc(0.36, 0.27, 0.3, 0.27, 90, 450, 20)],
    "9": [arc(0.34, 0.7, 0.3, 0.3, 0, 360, 20), arc(0.1, 0.7, 0.54, 0.7, 0, -85, 10)],
}


def text_strokes(text: str, height: float, spacing: float = 0.22) -> tuple[list[Polyline], float]:
    """Polylines of ``text`` with the cap height ``height`` (mm), left end at x = 0.

    Returns the polylines and the advance width of the whole text (mm). A character
    without a glyph raises ValueError (callers pass only coordinates and digits).
    """
    out: list[Polyline] = []
    x = 0.0
    for i, ch in enumerate(text):
        if ch not in GLYPHS:
            raise ValueError(f"no engraving glyph for {ch!r}: expected one of {''.join(sorted(GLYPHS))}")
        if i:
            x += spacing * height
        for line in GLYPHS[ch]:
            out.append([(x + px * height, py * height) for px, py in line])
        x += ADVANCE * height
    return out, x


def text_extent(text: str) -> tuple[float, float]:
    """(lowest y, highest y) of the text's glyphs, in units of the cap height."""
    ys = [p[1] for ch in text for line in GLYPHS[ch] for p in line]
    return min(ys), max(ys)


def centred_text(text: str, height: float, cx: float, cy: float, rotation_deg: float = 0.0) -> list[Polyline]:
    """Polylines of ``text`` centred on (cx, cy) (the ink's box centre), rotated about it."""
    lines, width = text_strokes(text, height)
    lo, hi = text_extent(text)
    oy = (lo + hi) / 2 * height
    c, s = math.cos(math.radians(rotation_deg)), math.sin(math.radians(rotation_deg))
    placed = []
    for line in lines:
        pts = []
        for x, y in line:
            x, y = x - width / 2, y - oy
            pts.append((cx + c * x - s * y, cy + s * x + c * y))
        placed.append(pts)
    return placed


@dataclass(frozen=True)
class Mark:
    """A set mark centred on the origin: straight strokes, filled discs and rings (mm).

    Marks are kept as exact primitives (not polygons) because they are cut into the
    stones' curved tops, where OpenCascade's booleans are many times faster with a
    few exact arcs than with a polygon's many facets.
    """

    lines: list[Polyline]
    discs: list[tuple[float, float, float]]  # (x, y, radius)
    rings: list[tuple[float, float, float]]  # (x, y, radius of the stroke's centre line)


def mark_strokes(kind: str, size: float) -> Mark:
    """The mark ``kind`` (ring, cross, bar, dot, triangle, none), ``size`` mm across."""
    r = size / 2
    if kind == "ring":
        return Mark([], [], [(0.0, 0.0, r * 0.8)])
    if kind == "cross":
        d = r * 0.7
        return Mark([[(-d, -d), (d, d)], [(-d, d), (d, -d)]], [], [])
    if kind == "bar":
        return Mark([[(-r * 0.9, 0.0), (r * 0.9, 0.0)]], [], [])
    if kind == "dot":
        return Mark([], [(0.0, 0.0, r * 0.55)], [])
    if kind == "triangle":
        pts = [(r * 0.85 * math.cos(math.radians(90 + 120 * i)), r * 0.85 * math.sin(math.radians(90 + 120 * i)))
               for i in range(4)]
        return Mark([pts], [], [])
    if kind == "none":
        return Mark([], [], [])
    raise ValueError(f"mark {kind!r}: expected one of {', '.join(MARKS)}")


MARKS = ("ring", "cross", "bar", "dot", "triangle", "none")


def mark_diameter(kind: str, size: float, stroke: float) -> float:
    """The diameter (mm) of the smallest circle about the centre that holds the engraved mark."""
    m = mark_strokes(kind, size)
    reach = [math.hypot(x, y) + stroke / 2 for line in m.lines for x, y in line]
    reach += [math.hypot(x, y) + r for x, y, r in m.discs]
    reach += [math.hypot(x, y) + r + stroke / 2 for x, y, r in m.rings]
    return 2 * max(reach, default=0.0)
