"""Print plates: the parts of one print job arranged on a printer's bed (pure Python).

A plate holds the copies a game needs of each part of one job (8 stones of a colour, 10
gems of a colour, a side's 6 terrain pieces, the tiles of a board), each copy placed by
the corner of its footprint (its bounding box seen from above) inside the usable bed
(the bed less the printer's margin on every side), ``spacing_mm`` apart. The parts are
packed in rows, tallest footprint first (the classic shelf packing: each row as deep as
its deepest part), rows as wide as makes the most compact block, and the whole
arrangement is centred on the bed. When the parts do
not fit one bed they go on more plates, never overlapping; a part larger than the usable
bed (a board the tile plan did not cut, for another printer) is refused by name.

Parts are not rotated: a board tile is already planned for the bed's orientation, and
the pieces are small. Deterministic: the same parts and bed give the same placements.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from stratstone_cad.base.printers import Printer
from stratstone_cad.errors import PlateError

__all__ = ["Part", "Placement", "Plate", "arrange", "plate_files"]


@dataclass(frozen=True)
class Part:
    """A part to print ``copies`` times: its file, its footprint in mm (x, y) and where that
    footprint starts in the part's own coordinates (the bounding box's minimum x, y)."""

    name: str  # the object's name in the plate, e.g. "stone-red-03"
    file: str  # its STL, relative to the output folder
    size: tuple[float, float]
    origin: tuple[float, float]
    copies: int = 1


@dataclass(frozen=True)
class Placement:
    """Copy ``copy`` (1-based) of ``part`` moved by ``offset`` (x, y mm): its footprint then
    starts at ``corner`` on the bed."""

    part: Part
    copy: int
    corner: tuple[float, float]

    @property
    def offset(self) -> tuple[float, float]:
        """The translation from the part's own coordinates to the bed's."""
        return (round(self.corner[0] - self.part.origin[0], 6), round(self.corner[1] - self.part.origin[1], 6))

    def footprint(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) on the bed."""
        x, y = self.corner
        return (x, y, x + self.part.size[0], y + self.part.size[1])


@dataclass(frozen=True)
class Plate:
    """One bed of one print job."""

    placements: tuple[Placement, ...]

    def parts(self) -> list[Part]:
        """The distinct parts on this plate, in order of first placement."""
        return list(dict.fromkeys(p.part for p in self.placements))

    def offsets(self, part: Part) -> tuple[tuple[float, float], ...]:
        """Where each copy of ``part`` on this plate is moved to (x, y mm), in placement order."""
        return tuple(p.offset for p in self.placements if p.part == part)


def arrange(parts: Sequence[Part], printer: Printer, spacing_mm: float, what: str) -> list[Plate]:
    """Place every copy of every part on as few beds of ``printer`` as shelf packing finds.

    ``what`` names the job in messages (``stratstone stones-red``). Raises
    :class:`PlateError` for a part larger than the usable bed.

    Raises:
        PlateError: a part is larger than the printer's usable bed.
    """
    width, depth = printer.usable_mm
    for p in parts:
        if p.size[0] > width + 1e-9 or p.size[1] > depth + 1e-9:
            raise PlateError(
                f"{what}: part {p.name} is {p.size[0]:g} x {p.size[1]:g} mm, larger than the usable bed of "
                f"{printer.name} ({width:g} x {depth:g} mm); build for that printer (--printer {printer.name}) "
                "so the board is cut into tiles that fit")
    copies = [(p, c) for p in parts for c in range(1, p.copies + 1)]
    copies.sort(key=lambda pc: (-pc[0].size[1], -pc[0].size[0], pc[0].name, pc[1]))
    plates: list[list[Placement]] = []
    while copies:
        placed, copies = _compact(copies, width, depth, spacing_mm)
        plates.append(_centred(placed, printer))
    return [Plate(tuple(p)) for p in plates]


def _compact(copies: list[tuple[Part, int]], width: float, depth: float,
             spacing: float) -> tuple[list[Placement], list[tuple[Part, int]]]:
    """The fullest bed, and of those the most compact: rows no wider than a share of the
    bed (all of it, 95 %, ... 20 %) so 10 gems lie in a block, not one long row; the
    block whose larger side (as a share of the bed's) is smallest wins."""
    best: tuple[tuple[int, float], list[Placement], list[tuple[Part, int]]] | None = None
    widest = max(p.size[0] for p, _ in copies)
    for share in range(100, 15, -5):
        limit = max(width * share / 100, widest)
        placed, left = _fill_one_bed(copies, limit, depth, spacing)
        x1 = max(p.corner[0] + p.part.size[0] for p in placed)
        y1 = max(p.corner[1] + p.part.size[1] for p in placed)
        score = (-len(placed), round(max(x1 / width, y1 / depth), 9))
        if best is None or score < best[0]:
            best = (score, placed, left)
    assert best is not None
    return best[1], best[2]


def _fill_one_bed(copies: list[tuple[Part, int]], width: float, depth: float,
                  spacing: float) -> tuple[list[Placement], list[tuple[Part, int]]]:
    """Rows of parts on one bed, origin at the usable area's corner; returns what is placed
    and what is left for the next bed (at least one part is always placed)."""
    placed: list[Placement] = []
    left: list[tuple[Part, int]] = []
    x = y = row_depth = 0.0
    for part, copy in copies:
        w, d = part.size
        if placed and x + w > width + 1e-9:  # next row
            x, y, row_depth = 0.0, y + row_depth + spacing, 0.0
        if placed and y + d > depth + 1e-9:
            left.append((part, copy))
            continue
        placed.append(Placement(part, copy, (x, y)))
        x += w + spacing
        row_depth = max(row_depth, d)
    return placed, left


def _centred(placed: list[Placement], printer: Printer) -> list[Placement]:
    """The arrangement moved to the middle of the bed (rounded to 1 um for stable bytes)."""
    x1 = max(p.corner[0] + p.part.size[0] for p in placed)
    y1 = max(p.corner[1] + p.part.size[1] for p in placed)
    dx = (printer.bed_x_mm - x1) / 2
    dy = (printer.bed_y_mm - y1) / 2
    return [Placement(p.part, p.copy, (round(p.corner[0] + dx, 6), round(p.corner[1] + dy, 6))) for p in placed]


def plate_files(game: str, stem: str, count: int) -> list[str]:
    """The files of a job's plates: ``game/stem.3mf``, or ``game/stem-plate-i-of-n.3mf``."""
    if count == 1:
        return [f"{game}/{stem}.3mf"]
    return [f"{game}/{stem}-plate-{i}-of-{count}.3mf" for i in range(1, count + 1)]


def overlap(a: Placement, b: Placement) -> float:
    """The area (mm2) two placements' footprints share (0 when they are apart)."""
    ax0, ay0, ax1, ay1 = a.footprint()
    bx0, by0, bx1, by1 = b.footprint()
    return max(0.0, min(ax1, bx1) - max(ax0, bx0)) * max(0.0, min(ay1, by1) - max(ay0, by0))


def gap(a: Placement, b: Placement) -> float:
    """The distance between two footprints (0 when they touch or overlap)."""
    ax0, ay0, ax1, ay1 = a.footprint()
    bx0, by0, bx1, by1 = b.footprint()
    return math.hypot(max(0.0, bx0 - ax1, ax0 - bx1), max(0.0, by0 - ay1, ay0 - by1))
