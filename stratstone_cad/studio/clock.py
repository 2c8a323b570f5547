"""A table's time control (``studio`` tables with a clock: ``"10+5"``, ten minutes a side and
five seconds added after each move)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from stratstone_cad.errors import TableError, short_repr

__all__ = ["CLOCK_EXPECTED", "Clock", "parse_clock"]

CLOCK = re.compile(r"(\d{1,3})\+(\d{1,3})", re.ASCII)
CLOCK_EXPECTED = "minutes+seconds a move, from 1+0 to 180+60 (e.g. 10+5)"


def parse_clock(text: Any) -> tuple[int, int]:
    """``"10+5"`` -> (600, 5): the starting time and the increment, in seconds; TableError otherwise.

    Raises:
        TableError: the text is not a clock such as ``10+5``.
    """
    m = CLOCK.fullmatch(text) if isinstance(text, str) else None
    if m is None or not (1 <= int(m.group(1)) <= 180 and int(m.group(2)) <= 60):
        raise TableError(f"clock {short_repr(text)}: expected {CLOCK_EXPECTED}")
    return int(m.group(1)) * 60, int(m.group(2))


@dataclass
class Clock:
    """A time control: each side's time ``left`` (seconds), charged to the side to move
    since ``since`` (``time.monotonic()``; None: stopped), plus ``increment`` after each move."""

    spec: str
    increment: int
    left: dict[str, float]
    running: str | None = None
    since: float | None = None

    def charge(self, now: float) -> str | None:
        """The time since ``since`` taken from the running side; returns that side when its time ran out."""
        if self.running is None or self.since is None:
            return None
        self.left[self.running] = max(0.0, self.left[self.running] - (now - self.since))
        self.since = now
        return self.running if self.left[self.running] <= 0 else None

    def start(self, side: str | None, now: float) -> None:
        self.running, self.since = side, (now if side is not None else None)

    def to_json(self, now: float) -> dict[str, Any]:
        left = dict(self.left)
        if self.running is not None and self.since is not None:
            left[self.running] = max(0.0, left[self.running] - (now - self.since))
        return {"spec": self.spec, "increment": self.increment, "left": {k: round(v, 3) for k, v in left.items()},
                "running": self.running}
