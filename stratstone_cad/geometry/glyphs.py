"""Engraved lettering, set marks and piece symbols, as plain coordinates (no CadQuery).

Lettering is the Hershey Roman Simplex font ("futural" of the ``hershey-fonts``
package, pinned in pyproject.toml): a single-stroke engraving font, drawn here with a
round pen of a chosen width. Why not CadQuery's ``text()``: it needs a system font, which
a fresh machine may not have, and another font (or font version) would change the
geometry and so the files' bytes. The Hershey strokes are integer coordinates in the
pinned package, the same on every machine, and the pen width is a parameter, so every
groove is at least two extrusions wide.

Glyphs are polylines with the baseline at y = 0 and the cap height (digits, ascenders)
at y = 1; lower-case letters reach y = 0.67, descenders y = -0.33.

Set marks (the stones' and gems' top marks) are built from exact primitives (straight
strokes with round ends, rings, discs) whose groove areas are equal by construction for
a given size and stroke (:func:`mark_strokes`): a mark that nearly vanishes beside its
neighbours (a single bar has 40 % of a ring's area) would tell the sets apart badly.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

Point = tuple[float, float]
Polyline = list[Point]

FONT = "futural"  # Hershey Roman Simplex
_CAP = 12  # Hershey units above the baseline (y grows downwards in the font: -12 .. 9)
_BASE = 9
_UNITS = _CAP + _BASE  # 21 units = one cap height


@functools.lru_cache(maxsize=1)
def _font() -> dict[str, tuple[list[Polyline], float, float]]:
    """Every printable ASCII glyph: (strokes in cap-height units, left bearing, advance)."""
    # start-up speed: the font only where text is drawn: an unchanged rebuild draws none
    from HersheyFonts import HersheyFonts

    f = HersheyFonts()
    f.load_default_font(FONT)
    out = {}
    for code in range(33, 127):
        ch = chr(code)
        g = next(iter(f.glyphs_for_text(ch)))
        strokes = [_dot([(x / _UNITS, (_BASE - y) / _UNITS) for x, y in s]) for s in g.strokes]
        out[ch] = (strokes, g.left_offset / _UNITS, g.char_width / _UNITS)
    return out


def _dot(stroke: Polyline) -> Polyline:
    """A stroke no wider than a tenth of the cap height (the dot of an i, a j, a full
    stop: Hershey draws it as a tiny loop) becomes a single point: the pen's disc. A tiny
    loop would leave a speck of a hole that no printer can make."""
    xs, ys = [p[0] for p in stroke], [p[1] for p in stroke]
    if len(stroke) > 1 and max(xs) - min(xs) <= 0.1 and max(ys) - min(ys) <= 0.1:
        return [((max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2)]
    return stroke


def glyph(ch: str) -> list[Polyline]:
    """The strokes of one character in cap-height units (origin at its left bearing)."""
    font = _font()
    if ch not in font:
        raise ValueError(f"no engraving glyph for {ch!r}: expected a printable ASCII character")
    strokes, left, _ = font[ch]
    return [[(x - left, y) for x, y in s] for s in strokes]


def text_strokes(text: str, height: float) -> tuple[list[Polyline], float]:
    """Polylines of ``text`` with the cap height ``height`` (mm), left end at x = 0.

    Returns the polylines and the advance width of the whole text (mm). A character
    without a glyph raises ValueError.
    """
    font = _font()
    out: list[Polyline] = []
    x = 0.0
    for ch in text:
        if ch not in font:
            raise ValueError(f"no engraving glyph for {ch!r}: expected a printable ASCII character")
        strokes, left, advance = font[ch]
        out += [[(x + (px - left) * height, py * height) for px, py in s] for s in strokes]
        x += advance * height
    return out, x


def text_ink(text: str) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1): the box of the text's stroke centre lines, in cap-height units."""
    lines, _ = text_strokes(text, 1.0)
    xs = [p[0] for line in lines for p in line]
    ys = [p[1] for line in lines for p in line]
    return min(xs), min(ys), max(xs), max(ys)


def centred_text(text: str, height: float, cx: float, cy: float, rotation_deg: float = 0.0) -> list[Polyline]:
    """Polylines of ``text`` whose ink box is centred on (cx, cy), rotated about it.

    A rotation of 180 degrees makes the text read right way up from the other side of
    the board.
    """
    lines, _ = text_strokes(text, height)
    x0, y0, x1, y1 = text_ink(text)
    ox, oy = (x0 + x1) / 2 * height, (y0 + y1) / 2 * height
    c, s = math.cos(math.radians(rotation_deg)), math.sin(math.radians(rotation_deg))
    return [[(cx + c * (x - ox) - s * (y - oy), cy + s * (x - ox) + c * (y - oy)) for x, y in line] for line in lines]


# --------------------------------------------------------------------------- set marks


@dataclass(frozen=True)
class Mark:
    """A mark centred on the origin: straight strokes, filled discs and rings (mm).

    Marks are kept as exact primitives (not polygons) because they are cut into curved
    tops, where OpenCascade's booleans are many times faster with a few exact arcs than
    with a polygon's many facets. Strokes have round ends and round joins.
    """

    lines: list[Polyline]
    discs: list[tuple[float, float, float]]  # (x, y, radius)
    rings: list[tuple[float, float, float]]  # (x, y, radius of the stroke's centre line)


MARKS = ("ring", "cross", "bars", "dot", "dots", "triangle", "none")


def mark_area(size: float, stroke: float) -> float:
    """The groove area (mm2) of every mark of ``size`` mm with ``stroke`` mm lines.

    It is the area of the largest cross that fits the size: two diagonal strokes of
    length ``size - stroke`` (round ends included), crossing at right angles. Every
    other mark is dimensioned to the same area (the cross is the mark that can grow
    least inside its circle).
    """
    length = max(size - stroke, stroke)
    return 2 * (length * stroke + math.pi * stroke**2 / 4) - stroke**2


def mark_strokes(kind: str, size: float, stroke: float) -> Mark:
    """The mark ``kind`` (see :data:`MARKS`) for a ``size`` mm mark drawn ``stroke`` mm wide.

    Each mark's groove area is :func:`mark_area` (exactly: the shapes are closed-form):
    ring 2 pi r w; cross and bars straight strokes with round ends; dot and dots discs;
    triangle a closed outline with round corners.
    """
    area = mark_area(size, stroke)
    w, h = stroke, stroke / 2
    if kind == "ring":
        return Mark([], [], [(0.0, 0.0, area / (2 * math.pi * w))])
    if kind == "cross":
        d = max(size - stroke, stroke) / (2 * math.sqrt(2))
        return Mark([[(-d, -d), (d, d)], [(-d, d), (d, -d)]], [], [])
    if kind == "bars":  # two parallel strokes, a stroke's width apart
        length = (area / 2 - math.pi * w**2 / 4) / w
        return Mark([[(-length / 2, y), (length / 2, y)] for y in (-w, w)], [], [])
    if kind == "dot":
        return Mark([], [(0.0, 0.0, math.sqrt(area / math.pi))], [])
    if kind == "dots":  # three discs on a triangle, a stroke's width apart
        r = math.sqrt(area / (3 * math.pi))
        rho = (2 * r + w) / math.sqrt(3)
        return Mark([], [(rho * math.cos(math.radians(90 + 120 * i)), rho * math.sin(math.radians(90 + 120 * i)), r)
                         for i in range(3)], [])
    if kind == "triangle":  # outline area = 12 sqrt3 a h - 3 sqrt3 h^2 + pi h^2 for inradius a
        a = (area - math.pi * h**2 + 3 * math.sqrt(3) * h**2) / (12 * math.sqrt(3) * h)
        pts = [(2 * a * math.cos(math.radians(90 + 120 * i)), 2 * a * math.sin(math.radians(90 + 120 * i)))
               for i in range(4)]
        return Mark([pts], [], [])
    if kind == "none":
        return Mark([], [], [])
    raise ValueError(f"mark {kind!r}: expected one of {', '.join(MARKS)}")


def mark_diameter(kind: str, size: float, stroke: float) -> float:
    """The diameter (mm) of the smallest circle about the centre that holds the engraved mark."""
    m = mark_strokes(kind, size, stroke)
    reach = [math.hypot(x, y) + stroke / 2 for line in m.lines for x, y in line]
    reach += [math.hypot(x, y) + r for x, y, r in m.discs]
    reach += [math.hypot(x, y) + r + stroke / 2 for x, y, r in m.rings]
    return 2 * max(reach, default=0.0)


def mark_island(kind: str, size: float, stroke: float) -> float | None:
    """Width (mm) of the material left inside a closed mark (a ring's centre, a
    triangle's middle), or None for marks without one; it must print (two extrusions)."""
    m = mark_strokes(kind, size, stroke)
    if kind == "ring":
        return 2 * (m.rings[0][2] - stroke / 2)
    if kind == "triangle":
        inradius = math.hypot(*m.lines[0][0]) / 2
        return 2 * (inradius - stroke / 2)
    return None


def mark_gap(kind: str, size: float, stroke: float) -> float | None:
    """Narrowest material (mm) between two separate grooves of a mark (bars, dots)."""
    m = mark_strokes(kind, size, stroke)
    if kind == "bars":
        return 2 * stroke - stroke
    if kind == "dots":
        (x0, y0, r), (x1, y1, _) = m.discs[:2]
        return math.hypot(x1 - x0, y1 - y0) - 2 * r
    return None


# --------------------------------------------------------------------------- piece symbols


SYMBOLS = {"pentagon": 5, "diamond": 4, "triangle": 3}


def symbol_outline(kind: str, size: float) -> Polyline:
    """The closed outline of a piece symbol ``size`` mm across its corners (a regular
    polygon with a corner at the top; the diamond is a square on its corner)."""
    n = SYMBOLS[kind]
    r = size / 2
    return [(r * math.cos(math.radians(90 + 360 * i / n)), r * math.sin(math.radians(90 + 360 * i / n)))
            for i in range(n + 1)]


def pip_centres(count: int, spacing: float, y: float = 0.0) -> list[Point]:
    """``count`` pips in a row centred on x = 0 at height ``y``, ``spacing`` mm apart."""
    return [((i - (count - 1) / 2) * spacing, y) for i in range(count)]
