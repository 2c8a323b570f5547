"""Top marks engraved into a flat plateau (the stones' set marks, the gems' colour marks):
the parameters every marked part has, what a CAD function is given of one, and the
checks every marked part shares."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from stratstone_cad.base.params import MIN_WALL_MM, TOL, Params, fmt, fmt_down, fmt_up, param, snap_depth
from stratstone_cad.geometry.glyphs import MARKS, mark_diameter, mark_gap, mark_island


class MarkParams(Params):
    """The parameters of a part marked on its top, one mark per colour, declared here once:
    ``mark``, ``marks``, ``mark_size_mm``, ``mark_stroke_mm`` and ``mark_depth_mm``.

    A marked part's parameter class (a frozen dataclass) derives from this one and says, as
    class attributes, how many marks it has (:attr:`MARK_COUNT`, one per colour) and the
    words of their help: :attr:`MARK_HELP` (``mark``'s), :attr:`MARKS_HELP` (``marks``')
    and :attr:`THE_MARK` (what the sizes are the sizes of: "the set mark", "a mark").

    The fields come after the part's own (its shape, then its ``colours``), as a preset,
    ``params`` and the studio's form list them; a dataclass would put a base's fields
    first, so they are added to the part's class as it is made (:meth:`__init_subclass__`,
    before ``@dataclass`` reads it), not declared in this class's body.
    """

    MARK_COUNT: ClassVar[int]
    MARK_HELP: ClassVar[str]
    MARKS_HELP: ClassVar[str]
    THE_MARK: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "MARK_COUNT" not in cls.__dict__:  # a class below a marked part's: it has the fields already
            return
        fields = {
            "mark": ("bool", param(cls.MARK_HELP)),
            "marks": ("list[str]", param(cls.MARKS_HELP, length=cls.MARK_COUNT, choices=MARKS)),
            "mark_size_mm": ("float", param(f"width of {cls.THE_MARK}", lo=3, hi=30)),
            "mark_stroke_mm": ("float", param(f"groove width of {cls.THE_MARK} (two 0.4 mm extrusions at least)",
                                              lo=MIN_WALL_MM, hi=4)),
            "mark_depth_mm": ("float", param(f"depth of {cls.THE_MARK}, snapped to whole layers", lo=0.15, hi=3)),
        }
        annotations = cls.__annotations__  # the class's own (Python makes an empty one for a class without)
        for name, (kind, field) in fields.items():
            annotations[name] = kind  # as `from __future__ import annotations` writes a field's type
            setattr(cls, name, field)



@dataclass(frozen=True)
class MarkSpec:
    """One mark as the CAD function cuts it (mm): its kind, size, groove width and depth."""

    kind: str
    size_mm: float
    stroke_mm: float
    depth_mm: float


def mark_spec(p: MarkParams, kind: str) -> MarkSpec | None:
    """The mark of a part, or None when marks are off or its kind is "none"."""
    if not p.mark or kind == "none":  # type: ignore[attr-defined]
        return None
    return MarkSpec(kind, p.mark_size_mm, p.mark_stroke_mm, p.mark_depth_mm)  # type: ignore[attr-defined]


def check_marks(p: MarkParams, room_mm: float, room_what: str) -> None:
    """The marks of one set differ, print (islands and gaps two extrusions wide) and fit
    a plateau ``room_mm`` wide with two extrusions to spare.

    ``p`` has the fields ``mark``, ``marks``, ``mark_size_mm`` and ``mark_stroke_mm``.
    """
    if not p.mark:  # type: ignore[attr-defined]
        return
    shown = [m for m in p.marks if m != "none"]  # type: ignore[attr-defined]
    size, stroke = p.mark_size_mm, p.mark_stroke_mm  # type: ignore[attr-defined]
    if len(set(shown)) != len(shown):
        p.fail("marks", p.marks, "a different mark for each set (\"none\" for an unmarked set)")  # type: ignore[attr-defined]
    closed = [k for k in sorted(set(shown)) if mark_island(k, size, stroke) is not None]
    least = max((_least_size(k, stroke) for k in closed), default=0.0)  # smallest size whose centres print
    room = room_mm - 2 * MIN_WALL_MM
    most = min((_largest_size(m, stroke, room) for m in set(shown)), default=math.inf)  # largest that fits
    off = f"a thinner {p.PREFIX}.mark_stroke_mm, or {p.PREFIX}.mark = false"
    for kind in sorted(set(shown)):
        gap = mark_gap(kind, size, stroke)
        if gap is not None and gap < MIN_WALL_MM - TOL:
            p.fail("mark_stroke_mm", stroke, f"at least {MIN_WALL_MM:g} so the {kind} stay {MIN_WALL_MM:g} mm apart")
    if size > most + TOL:
        smallest = p.__dataclass_fields__["mark_size_mm"].metadata["lo"]  # type: ignore[attr-defined]
        if most + TOL < smallest:
            p.fail("mark_size_mm", size, f"a mark that fits {room_what} ({fmt_down(room_mm)} mm) with "
                                         f"{MIN_WALL_MM:g} mm to spare, but none from {fmt(smallest)} mm does "
                                         f"({p.PREFIX}.mark = false, or larger parts)")
        if most + TOL < least:
            p.fail("mark_size_mm", size, f"at most {fmt_down(most)} to fit {room_what}, but with {fmt(stroke)} mm "
                                         f"strokes no mark that small keeps its centre {MIN_WALL_MM:g} mm wide ({off})")
        p.fail("mark_size_mm", size, f"at most {fmt_down(most)} to fit {room_what} with {MIN_WALL_MM:g} mm to spare")
    for kind in closed:
        if mark_island(kind, size, stroke) < MIN_WALL_MM - TOL:  # type: ignore[operator]
            largest = _largest_stroke(kind, size)
            if largest >= MIN_WALL_MM:
                p.fail("mark_stroke_mm", stroke, f"at most {fmt_down(largest)} so the {kind}'s centre ({fmt(size)} mm "
                                                 f"mark) stays {MIN_WALL_MM:g} mm wide")
            p.fail("mark_size_mm", size, f"at least {fmt_up(least)} so the {kind}'s centre stays {MIN_WALL_MM:g} mm "
                                         f"wide with {fmt(stroke)} mm strokes")


def _largest_size(kind: str, stroke: float, room: float) -> float:
    """The largest mark size whose mark fits ``room`` mm (bisection: the reach grows with the size)."""
    lo, hi = 0.0, 200.0
    if mark_diameter(kind, lo + 1e-6, stroke) > room:
        return 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mark_diameter(kind, mid, stroke) <= room else (lo, mid)
    return lo


def _largest_stroke(kind: str, size: float) -> float:
    """The largest stroke that keeps a closed mark's centre two extrusions wide."""
    lo, hi = 0.0, size
    for _ in range(60):
        mid = (lo + hi) / 2
        island = mark_island(kind, size, mid)
        lo, hi = (mid, hi) if island is not None and island >= MIN_WALL_MM else (lo, mid)
    return lo


def _least_size(kind: str, stroke: float) -> float:
    """The smallest mark whose closed centre stays two extrusions wide with this stroke."""
    lo, hi = stroke, 200.0
    for _ in range(60):
        mid = (lo + hi) / 2
        island = mark_island(kind, mid, stroke)
        lo, hi = (lo, mid) if island is not None and island >= MIN_WALL_MM else (mid, hi)
    return hi


def check_mark_floor(p: MarkParams, lowest_mm: float, profile: Any, what: str) -> None:
    """The mark (``p.mark_depth_mm``, snapped to whole layers) leaves 1 mm under it in
    the lowest part it is cut into (``lowest_mm`` high after snapping, ``what`` names it)."""
    if not p.mark:  # type: ignore[attr-defined]
        return
    if lowest_mm - snap_depth(p.mark_depth_mm, profile) < 1.0 - TOL:  # type: ignore[attr-defined]
        p.fail("mark_depth_mm", p.mark_depth_mm, f"at most {fmt_down(lowest_mm - 1.0)}; {what} is "  # type: ignore[attr-defined]
                                                 f"{fmt(lowest_mm)} mm after snapping to the layers")
