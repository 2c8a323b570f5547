"""How far a long run is, on standard error: the build's parts and slices, an export's frames.

On a terminal, one bar redrawn in place (``\\r``), at most once a percent so a 2,000-frame
video does not flood a slow terminal; the line ends when the bar is full or the run stops.
Elsewhere (a log file, CI), one line per step when ``lines`` is set (the build: each part
it finished, which a log reader wants), nothing otherwise (an export: frames say nothing).
:meth:`ProgressBar.note` says what the run waits for between steps (the slicers running).
"""

from __future__ import annotations

from typing import TextIO

WIDTH = 25  # the bar's characters


class ProgressBar:
    """A bar over ``total`` steps, titled ``title`` (the file written), on ``stream`` (None: silent)."""

    def __init__(self, total: int, stream: TextIO | None, *, title: str = "", lines: bool = True) -> None:
        self.total, self.done, self.stream, self.title, self.lines = max(total, 1), 0, stream, title, lines
        self.tty = bool(stream and getattr(stream, "isatty", lambda: False)())
        self.drawn = -1  # the percent the bar last showed, -1: its line is not open

    def step(self, label: str = "", n: int = 1) -> None:
        """``n`` more steps done, the last of them ``label``."""
        self.reach(self.done + n, label)

    def reach(self, done: int, label: str = "") -> None:
        """``done`` steps done in all, the last of them ``label``."""
        self.done = done
        self._show(label, False)

    def note(self, label: str) -> None:
        """Say ``label`` (what the run waits for: a step begun) without counting a step:
        the bar redrawn with it on a terminal, a line of its own elsewhere (``lines``)."""
        self._show(label, True)

    def _show(self, label: str, always: bool) -> None:
        if not self.stream:
            return
        if self.tty:
            self._draw(label, always)
        elif self.lines:
            title = f"{self.title}: " if self.title else ""
            self.stream.write(f"[{self.done}/{self.total}] {title}{label}\n")
            self.stream.flush()

    def _draw(self, label: str, always: bool = False) -> None:
        assert self.stream is not None
        pct = self.done * 100 // self.total
        if pct == self.drawn and not always:
            return
        bar = "#" * (pct * WIDTH // 100) + "-" * (WIDTH - pct * WIDTH // 100)
        title = f"{self.title} " if self.title else ""
        self.stream.write(f"\r{title}[{bar}] {pct:3d}% {self.done}/{self.total} {label:<32.32}".rstrip())
        self.drawn = pct
        if self.done >= self.total:
            self.close()
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line if it is open (the run stopped or failed before the bar was
        full, as before an error message); called again, it does nothing."""
        if self.stream and self.tty and self.drawn >= 0:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = -1
