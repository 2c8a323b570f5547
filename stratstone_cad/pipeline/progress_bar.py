"""The build's progress: a bar on a terminal, one line per finished part elsewhere."""

from __future__ import annotations

from typing import TextIO


class ProgressBar:
    """A progress bar on a terminal; one line per finished part elsewhere."""

    def __init__(self, total: int, stream: TextIO | None, width: int = 30) -> None:
        self.total, self.done, self.stream, self.width = total, 0, stream, width
        self.tty = bool(stream and hasattr(stream, "isatty") and stream.isatty())

    def step(self, label: str, n: int = 1) -> None:
        self.done += n
        if not self.stream:
            return
        if self.tty:
            fill = int(self.width * self.done / max(self.total, 1))
            bar = "#" * fill + "-" * (self.width - fill)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label:<32.32}")
            if self.done >= self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"[{self.done}/{self.total}] {label}\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line if the build stopped before the bar was full."""
        if self.stream and self.tty and 0 < self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()
