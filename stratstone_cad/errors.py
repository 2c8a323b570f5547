"""The errors the command line reports in one line.

Every class here carries a one-line message that names the thing, the value and what
was expected, and the CLI prints ``str(error)`` on one line. The exit code says whose
move it is: 2 for a :class:`UserError` (the input is wrong: the same command fails again
until it is changed, as argparse's usage errors do), 1 for a :class:`BuildError` (the
input is fine, the run was not: running it again may succeed).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


class BuildError(Exception):
    """A build that cannot go on for a reason outside the user's input: a worker process
    killed or out of memory, PrusaSlicer failing or not finishing, a file changed under
    the build. The CLI prints it on one line and exits with code 1, not 2: nothing in the
    command is wrong, so a script may run it again (a retry after a user error would only
    fail the same way)."""


class WorkersLost(BuildError):
    """The studio's build workers died twice while making one part (killed, out of memory):
    the studio answers 503 with its message; the next request gets new workers."""


class StudioBusy(BuildError):
    """The studio has as many whole builds (sets, plates, zips) queued or running as it
    keeps: it answers 503 with one line; a request once one is done gets its build."""


class UserError(Exception):
    """Base of every error caused by user input (parameters, files, logs, paths)."""


class ParameterError(UserError, ValueError):
    """A model parameter, preset file or override is invalid."""


class ModelError(ParameterError):
    """A part name, override or value the model API (:mod:`stratstone_cad.models`) cannot
    use (a ``ValueError`` too).

    The API's one error: whatever a user can get wrong below it (a parameter, a printer, a
    heightmap file, a set the rules cannot start) is raised by ``models.part``,
    ``models.names`` and ``models.assembly`` as a ModelError with the one-line message the
    command line prints. It is translated at that boundary rather than made the base of
    every user error: the layers below keep their own types (the command line and the
    build tell a ``LogError`` from an ``OutputError``), and a caller of the API needs to
    catch one."""


class OutputError(UserError):
    """The output folder or file cannot be written, or standard output cannot (``> /dev/full``:
    the user's redirection, so exit code 2 too; a closed pipe is no error: the CLI stops
    quietly with exit code 141, as SIGPIPE would)."""


class GeometryError(UserError):
    """A generated part failed its mesh checks (the parameters produce a bad solid)."""


class GameError(UserError, ValueError):
    """Base of rules-engine errors (bad move text, illegal move, bad setup)."""


class MoveParseError(GameError):
    """Move text that does not parse."""


class IllegalMoveError(GameError):
    """A well-formed move that the rules forbid in the current position."""


class LogError(UserError, ValueError):
    """An engine log that is malformed or disagrees with the rules."""


# --------------------------------------------------------------------------- the rules engines' errors


class MoveTextError(MoveParseError):
    """Move text that does not parse; names the ply and the text.

    ``str()`` reads e.g. ``ply 6: 'b9 NN' does not parse: expected ...``.
    """

    def __init__(self, text: str, ply: int, expected: str) -> None:
        self.text = text
        self.ply = ply
        self.expected = expected
        super().__init__(f"ply {ply}: {short_repr(text)} does not parse: expected {expected}")


class RuleViolation(IllegalMoveError):
    """A well-formed move (or chance outcome) that the rules forbid.

    ``str()`` is ``ply <n>: <move text> <rule>``, e.g. ``ply 6: b2 NNS steps straight back``.
    """

    def __init__(self, move: str, ply: int, rule: str) -> None:
        self.move = move
        self.ply = ply
        self.rule = rule
        super().__init__(f"ply {ply}: {move} {rule}")


class SetupError(GameError):
    """An explicit setup (or player list) that the game cannot start from."""


class UnknownGameError(ParameterError, GameError):
    """A game's name that is not registered, wherever a name is looked up (a rules engine,
    a game's parts, the model API, the command line): one class for every path, a
    :class:`ParameterError` as well as a :class:`GameError` so that a caller catching either
    catches it."""


class SquareError(GameError):
    """Text that is not a square of the game's board."""


class UnknownGameModelError(ModelError, UnknownGameError):
    """A game's name the model API does not know: the API's :class:`ModelError`, and the
    :class:`UnknownGameError` every other path raises for it."""


# ---- the errors of the players, plates, stop signals, puzzles and review (Terminated is
# no error the CLI prints: a stop, handled as Ctrl-C is, kept here beside the others)


class PlayerKindError(GameError):
    """An unknown player kind."""


class PlateError(ParameterError):
    """A part that no bed of the chosen printer can hold."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, or SIGHUP (the terminal closed): stop as for Ctrl-C (running parts finish,
    the manifest stays true, the temporary folders are removed at exit)."""


class PuzzleError(UserError):
    """A puzzle file or number that cannot be read (``replay --puzzle``)."""


class ReviewError(UserError):
    """A bad argument to the review (its budget)."""


# --------------------------------------------------------------------------- the log commands' arguments


class PlayArgumentError(GameError):
    """A bad argument to ``play`` (seed, players, terrain file)."""


class RecordError(GameError):
    """A bad argument to ``record`` (an existing --out, a finished log to resume, ...)."""


class TableError(UserError):
    """A request the studio's Play room refuses, with its HTTP ``status``: 400 (bad input,
    an illegal move), 403 (not this seat's), 404 (no such table), 409 (a stale ply)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def printable(text: str) -> str:
    """``text`` on one line with every control character escaped (``\\x1b``, ``\\n``,
    ``\\u2028``): a message may quote a log or a file, and a crafted one must not move the
    cursor, clear or recolour the user's terminal."""
    out = []
    for ch in text:
        if ch.isprintable():  # a space is, a tab, newline or escape is not
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def short_repr(value: object, limit: int = 40) -> str:
    """``repr`` of a value for a one-line message, its control characters escaped: a text
    longer than ``limit`` is cut there and its length said (``'abc'... (5000 characters)``),
    another value's ``repr`` is cut to ``limit`` characters ending in ``...``."""
    if isinstance(value, str):
        return printable(repr(value[:limit])) + (f"... ({len(value)} characters)" if len(value) > limit else "")
    try:
        r = printable(repr(value))
    except (RecursionError, ValueError):  # a list nested thousands deep, an int of 5000 digits
        r = f"<{type(value).__name__}>"
    return r if len(r) <= limit else r[: limit - 3] + "..."


def did_you_mean(value: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` for the choice closest to ``value``, or nothing when none is close."""
    close = difflib.get_close_matches(value, list(choices), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


def listed(items: Sequence[str], last: str) -> str:
    """``a, b and c`` (``last`` is "and" or "or")."""
    return f"{', '.join(items[:-1])} {last} {items[-1]}" if len(items) > 1 else "".join(items)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun for a message: "1 frame", "3 frames", "2 plies"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
