"""What ``record`` reads: the answers typed at its prompt (a terminal's, with line
editing, or standard input's lines, echoed as a transcript), the commands it knows and
the form of the dice."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TextIO

from stratstone_cad.errors import printable

__all__ = ["COMMANDS", "DICE_RE", "HELP", "MAX_INPUT", "SHOW_MOVES", "Reader", "reader"]

MAX_INPUT = 1000
"""The longest answer read from the prompt, in characters; a longer line is refused whole."""
SHOW_MOVES = 120
"""``moves`` lists at most this many moves (a Stratstone stack of ten has thousands of paths)."""

DICE_RE = re.compile(r"\s*([0-9])\s*[ ,-]?\s*([0-9])\s*[ ,-]?\s*([0-9])(?:\s+(\S.*?))?\s*")

HELP = """\
Enter a move in the log's notation (in any case), or one of:
  moves [SQUARE]    the legal moves (those of the piece or stack on SQUARE; with costs in the terrain game)
  undo              take back the last ply (or the dice just entered)
  show              show the position again
  resign [PLAYER]   PLAYER (default: the player to move) resigns; two-player games only
  draw              the players agree a draw
  quit              stop here; the log keeps every ply (record --resume FILE continues it)
  help              this text"""

Reader = Callable[[str], "str | None"]
"""Shows a prompt and returns the answer (without its newline), or ``None`` at the end of input."""

COMMANDS = frozenset({"help", "?", "show", "moves", "undo", "quit", "resign", "draw"})


def reader(stdin: TextIO | None, say: Callable[[str], None], interactive: bool) -> Reader:
    """Prompts on a terminal (with line editing); otherwise one capped line per answer,
    echoed after its prompt. No standard input at all is an empty one."""
    if interactive:
        try:
            import readline  # noqa: F401  (line editing and history for input())
        except ImportError:  # pragma: no cover - not on every platform
            pass

        def ask(prompt: str) -> str | None:
            try:
                return input(prompt)
            except EOFError:
                return None

        return ask

    def read(prompt: str) -> str | None:
        line = stdin.readline(MAX_INPUT + 1) if stdin is not None else ""
        if not line:
            return None
        if len(line) > MAX_INPUT and not line.endswith("\n"):
            while (more := stdin.readline(65536)) and not more.endswith("\n"):  # type: ignore[union-attr]
                pass
            say(f"{prompt}... (a line over {MAX_INPUT} characters, ignored)")
            return ""
        line = line.rstrip("\r\n")
        say(prompt + printable(line))
        return line

    return read
