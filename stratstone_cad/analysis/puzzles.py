"""Puzzles from real games: ``stratstone-cad puzzles LOG... --out puzzles.jsonl``.

A puzzle is a position of a logged game, the mover to play (after the ply's dice), where
exactly one of two or more legal moves

- **wins** at once (kind ``win``), or, where no move wins at once,
- **saves the game** (kind ``save``): every other move lets the next player win at once,
  and this one does not (judged only where the next position waits for a move, not for dice).

Every legal move is tried (and every reply, for ``save``), so a puzzle's solution is
exact, not a search's opinion. Each puzzle is one JSON line: ``game``, ``rules``,
``source`` (the log), ``ply`` (the ply to find), ``player``, ``kind``, ``solution`` (in the
log's notation), ``played`` (what the game's player did) and ``position``: the log's
header and the plies before (with this ply's dice, if any, under ``dice``), so that
``replay puzzles.jsonl --puzzle N`` shows the position without the source log.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stratstone_cad.base.fileio import atomic_write, read_user_file
from stratstone_cad.engine.protocol import Move, State
from stratstone_cad.errors import GameError, LogError, PuzzleError, counted, short_repr
from stratstone_cad.log import logfile as _log

__all__ = ["Puzzle", "find_puzzles", "position_log", "read_puzzle", "solution", "write_puzzles"]


PUZZLE_FILE_LIMIT = 256 * 2**20
"""The largest puzzle file ``replay --puzzle`` reads, in bytes."""


def _wins(state: State, player: str) -> list[Move]:
    """The moves of ``state`` after which ``player`` has won."""
    out = []
    for m in state.legal_moves():
        result = state.apply(m)[0].result()
        if result is not None and result.winner == player:
            out.append(m)
    return out


def _lets_a_win(after: State) -> bool:
    """Whether the player to move in ``after`` (a position waiting for a move) wins at once."""
    return not after.is_terminal() and not after.is_chance() and bool(_wins(after, str(after.to_move())))


def solution(state: State) -> tuple[str, Move] | None:
    """``("win", move)`` or ``("save", move)`` when exactly one legal move of ``state``
    wins at once or saves the game; else ``None``."""
    moves = list(state.legal_moves())
    if len(moves) < 2:
        return None
    wins = _wins(state, str(state.to_move()))
    if wins:
        return ("win", wins[0]) if len(wins) == 1 else None
    afters = [state.apply(m)[0] for m in moves]
    if any(a.is_chance() or a.is_terminal() for a in afters):
        return None
    safe = [m for m, a in zip(moves, afters, strict=True) if not _lets_a_win(a)]
    return ("save", safe[0]) if len(safe) == 1 else None


def find_puzzles(path: Path) -> Iterator[dict[str, Any]]:
    """The puzzles of the log ``path`` (checked as check-log checks it), in ply order."""
    records: list[dict[str, Any]] = []
    with _log.walk_log(path) as r:
        header = _log.header_record(r.game, r.header.players, r.header.seed, r.header.setup)
        for step in r:
            state = step.before if step.chance is None else step.before.apply_chance(step.chance)[0]
            found = solution(state)
            if found is not None:
                kind, move = found
                position: dict[str, Any] = {"log": [header, *records]}
                if step.chance is not None:
                    position["dice"] = list(step.chance)
                yield {"game": r.game.name, "rules": r.game.rules, "source": str(path), "ply": step.ply,
                       "player": step.player, "kind": kind, "solution": str(move), "played": step.move,
                       "position": position}
            chance = (r.game.chance_field, step.chance) if step.chance is not None and r.game.chance_field else None
            records.append(_log.ply_record(step.ply, step.player, step.move, chance))


def write_puzzles(logs: Sequence[Path], out: Path) -> str:
    """Find the puzzles of every log and write them to ``out`` (JSON Lines, atomically);
    returns ``wrote puzzles.jsonl: 3 puzzles (2 to win, 1 to save) from 2 logs``. A log
    given twice is read once (a shell's overlapping patterns should not count a game
    twice), and the line says so; a bad log is named in its error.

    Raises:
        LogError: the log is malformed (re-raised naming the log).
    """
    read: list[Path] = []
    twice: list[Path] = []
    for log in logs:
        (twice if any(_same_file(log, r) for r in read) else read).append(log)
    puzzles = []
    for log in read:
        try:
            puzzles.extend(find_puzzles(log))
        except LogError as e:
            message = str(e)
            raise LogError(message if message.startswith(str(log)) else f"{log}: {message}") from None
    atomic_write(out, "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in puzzles).encode("utf-8"))
    wins = sum(p["kind"] == "win" for p in puzzles)
    skipped = "".join(f" ({log} given twice: read once)" for log in dict.fromkeys(twice))
    return (f"wrote {out}: {counted(len(puzzles), 'puzzle')} ({wins} to win, {len(puzzles) - wins} to save) "
            f"from {counted(len(read), 'log')}{skipped}")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return a == b


@dataclass(frozen=True)
class Puzzle:
    """One puzzle of a puzzle file, ready to show: ``log``, the game up to its position
    (written by :func:`read_puzzle`); ``number`` (from 1), the ``player`` to move, its
    ``kind`` (``"win"`` or ``"save"``), its ``solution`` (the log's notation) and the
    ``dice`` rolled for the move, if the game rolls."""

    log: Path
    number: int
    player: str
    kind: str
    solution: str
    dice: tuple[int, ...] | None = None
    state: Any = field(default=None, repr=False, compare=False)  # the position, its dice rolled

    @property
    def task(self) -> str:
        """``red to move, win in one``; ``... save the game in one`` (one move keeps the
        next player from winning at once); the dice, if any, after the player."""
        rolled = f" (dice {'-'.join(map(str, self.dice))})" if self.dice else ""
        goal = "win in one" if self.kind == "win" else "save the game in one (any other move loses at once)"
        return f"{self.player} to move{rolled}, {goal}"

    @property
    def heading(self) -> str:
        """``puzzle 1: red to move, win in one``: what replay prints and captions."""
        return f"puzzle {self.number}: {self.task}"


def position_log(puzzles: Path, number: int, folder: Path) -> Path:
    """The log of puzzle ``number`` (from 1) of the file ``puzzles``, written into
    ``folder`` (see :func:`read_puzzle`)."""
    return read_puzzle(puzzles, number, folder).log


def read_puzzle(puzzles: Path, number: int, folder: Path) -> Puzzle:
    """Puzzle ``number`` (from 1) of the file ``puzzles``, its log written into ``folder``:
    the game up to the puzzle's position, for the replay to show. The puzzle is checked
    first (its position replays, it is of the game it names, its solution is a legal move
    there); a fault is a LogError naming the puzzle file's line.

    Raises:
        PuzzleError: the number is not that of a puzzle in the file.
        LogError: the line is not a puzzle of this game, its position is bad, or its solution is not a legal move there.
    """
    data = read_user_file(puzzles, "puzzle file", PUZZLE_FILE_LIMIT, "a file stratstone-cad puzzles writes", PuzzleError)
    lines = data.decode("utf-8", errors="replace").splitlines()
    if not 1 <= number <= len(lines):
        raise PuzzleError(f"--puzzle {number}: {puzzles} holds {counted(len(lines), 'puzzle')}, expected 1 to {len(lines)}")
    where = f"{puzzles} line {number}"
    try:
        puzzle = json.loads(lines[number - 1])
        records = puzzle["position"]["log"]
        dice = puzzle["position"].get("dice")
        game, answer, kind = str(puzzle["game"]), str(puzzle["solution"]), puzzle["kind"]
        if not isinstance(records, list) or kind not in ("win", "save"):
            raise TypeError
    except (ValueError, KeyError, TypeError, AttributeError):
        raise LogError(f"{where}: not a puzzle (expected a line stratstone-cad puzzles writes)") from None
    try:
        with _log.LogWalk(iter(enumerate(records, 1))) as r:
            state = r.run()
            played = r.game.name
    except LogError as e:
        raise LogError(f"{where}: its position's {e}") from None
    if game != played:
        raise LogError(f"{where}: game {short_repr(game)}: its position is a game of {played}; expected the line "
                       "stratstone-cad puzzles wrote")
    try:
        if dice is not None:
            state = state.apply_chance(tuple(dice))[0]
        state.parse_move(answer)
    except (GameError, ValueError, TypeError) as e:
        raise LogError(f"{where}: solution {short_repr(answer)}: {e}; expected a legal move of its position") from None
    log = folder / f"puzzle-{number}.jsonl"
    _log.write_log(log, records)
    return Puzzle(log, number, str(state.to_move()), kind, answer, tuple(dice) if dice is not None else None, state)
