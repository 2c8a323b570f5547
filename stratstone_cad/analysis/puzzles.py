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

Each line also says its ``depth`` in plies: 1 for the puzzles above; with ``depth=3``
(``puzzles --depth 3``) a position with neither also becomes a puzzle (kind ``win``,
depth 3) where exactly one move **wins in two moves**: after it, every reply leaves a
move that wins at once, and no move wins at once. That is proven for each move by
OpenSpiel's exact alpha-beta search (``open_spiel.python.algorithms.minimax``, two
plies deep from the position after the move) on the game as :mod:`~stratstone_cad.analysis.spiel`
wraps it; it is run only where the exact check of one ply found no win. OpenSpiel's
search takes two players and no chance: in a game with dice (Sage Stones) or of more
players, only depth 1 is looked for (the summary line says so). A line without
``depth`` (an older file) reads as depth 1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from stratstone_cad.base.fileio import atomic_write, read_user_file
from stratstone_cad.engine.protocol import Game, Move, State
from stratstone_cad.errors import GameError, LogError, PuzzleError, counted, short_repr
from stratstone_cad.log import logfile as _log
from stratstone_cad.registry import game_names

__all__ = ["DEPTHS", "Puzzle", "find_puzzles", "position_log", "read_puzzle", "shipped_puzzles", "solution", "win_in_two",
           "write_puzzles"]


PUZZLE_FILE_LIMIT = 256 * 2**20
"""The largest puzzle file ``replay --puzzle`` reads, in bytes."""
SHIPPED_NAME = "puzzles.jsonl"
"""The name of a game's shipped puzzle file in its folder (:func:`shipped_puzzles`)."""
DEPTHS = (1, 3)
"""The depths (in plies) ``puzzles --depth`` looks to: a win (or save) in one, a win in two moves."""


def _wins(state: State, player: str) -> list[Move]:
    """The moves of ``state`` after which ``player`` has won."""
    out = []
    for m in state.legal_moves():
        result = state.apply(m)[0].result()
        if result is not None and result.winner == player:
            out.append(m)
    return out


def _lets_a_win(after: State, player: str) -> bool:
    """Whether, after ``player``'s move, another player can win at once: the next mover
    has a winning move; when dice come first, with at least one of their outcomes."""
    if after.is_terminal():
        return False
    if after.is_chance():
        return any(_lets_a_win(after.apply_chance(dice)[0], player) for dice, _ in after.chance_outcomes())
    mover = str(after.to_move())
    return mover != player and bool(_wins(after, mover))


def solution(state: State) -> tuple[str, Move] | None:
    """``("win", move)`` or ``("save", move)`` when exactly one legal move of ``state``
    wins at once or saves the game (after it no roll of the dice, if they come next, lets
    the next player win at once; after each other move one does); else ``None``."""
    moves = list(state.legal_moves())
    if len(moves) < 2:
        return None
    player = str(state.to_move())
    wins = _wins(state, player)
    if wins:
        return ("win", wins[0]) if len(wins) == 1 else None
    afters = [state.apply(m)[0] for m in moves]
    if any(a.is_terminal() for a in afters):
        return None
    safe = [m for m, a in zip(moves, afters, strict=True) if not _lets_a_win(a, player)]
    return ("save", safe[0]) if len(safe) == 1 else None


def deep_search(game: Game, players: int) -> bool:
    """Whether OpenSpiel's exact search can judge a game of ``game`` with ``players``
    players: two players, and no dice."""
    return players == 2 and not game.max_chance_outcomes


@cache
def _spiel_game(name: str) -> Any:
    # start-up speed: OpenSpiel only for depth 3
    from stratstone_cad.analysis import spiel

    return spiel.load(name, players=2)


def win_in_two(game: Game, state: State) -> Move | None:
    """The move of ``state`` that wins in two moves, when exactly one does and no move
    wins at once (see the module's docstring); else ``None``. Each move is first pruned by
    the exact check of one reply after another (the first that leaves the mover no win at
    once refutes it); a move that passes wins in two when, after it, OpenSpiel's
    alpha-beta search two plies deep (every reply, then every move of the mover; a
    position left undecided there is worth 0) proves the mover's return is the winner's, +1.
    ``None`` for a game :func:`deep_search` cannot judge."""
    from open_spiel.python.algorithms import minimax

    if state.is_terminal() or state.is_chance() or not deep_search(game, len(state.player_ids())):
        return None
    moves = list(state.legal_moves())
    if len(moves) < 2 or _wins(state, str(state.to_move())):
        return None
    spiel_game = _spiel_game(game.name)
    seat = state.player_ids().index(state.to_move())
    found: list[Move] = []
    for move in moves:
        after = state.apply(move)[0]
        if after.is_terminal() or not _may_win_in_two(after, str(state.to_move())):
            continue
        value, _ = minimax.alpha_beta_search(spiel_game, spiel_game.state_of(after), value_function=_undecided, maximum_depth=2,
                                             maximizing_player_id=seat)
        if value >= 1.0:
            found.append(move)
            if len(found) > 1:
                return None
    return found[0] if found else None


def _may_win_in_two(after: State, player: str) -> bool:
    """The exact check that prunes :func:`win_in_two`'s search, at the engine's speed: False
    when a reply of the other player to ``after`` leaves ``player`` no win at once (it
    stops at the first such reply). When ``player`` is to move again in ``after``, True:
    the search judges it."""
    if str(after.to_move()) == player:
        return True
    for reply in after.legal_moves():
        then = after.apply(reply)[0]
        result = then.result()
        if result is not None:
            if result.winner != player:
                return False
        elif then.is_chance() or not any(_won(then.apply(m)[0], player) for m in then.legal_moves()):
            return False
    return True


def _won(state: State, player: str) -> bool:
    result = state.result()
    return result is not None and result.winner == player


def _undecided(_state: Any) -> float:
    """The worth of a position the search leaves undecided: neither side's win yet."""
    return 0.0


def find_puzzles(path: Path, depth: int = 1) -> Iterator[dict[str, Any]]:
    """The puzzles of the log ``path`` (checked as check-log checks it), in ply order; with
    ``depth`` 3 also those to win in two moves (where :func:`deep_search` can judge the game)."""
    records: list[dict[str, Any]] = []
    with _log.walk_log(path) as r:
        header = _log.header_record(r.game, r.header.players, r.header.seed, r.header.setup)
        for step in r:
            state = step.before if step.chance is None else step.before.apply_chance(step.chance)[0]
            found = solution(state)
            deep = None if found is not None or depth < 3 else win_in_two(r.game, state)
            if found is not None or deep is not None:
                kind, move = found if found is not None else ("win", deep)
                position: dict[str, Any] = {"log": [header, *records]}
                if step.chance is not None:
                    position["dice"] = list(step.chance)
                yield {"game": r.game.name, "rules": r.game.rules, "source": str(path), "ply": step.ply,
                       "player": step.player, "kind": kind, "depth": 1 if found is not None else 3,
                       "solution": str(move), "played": step.move, "position": position}
            chance = (r.game.chance_field, step.chance) if step.chance is not None and r.game.chance_field else None
            records.append(_log.ply_record(step.ply, step.player, step.move, chance))


def write_puzzles(logs: Sequence[Path], out: Path, depth: int = 1) -> str:
    """Find the puzzles of every log (to ``depth`` plies: 1 or 3, see :func:`find_puzzles`)
    and write them to ``out`` (JSON Lines, atomically); returns ``wrote puzzles.jsonl: 3
    puzzles (2 to win, 1 to save) from 2 logs`` (with depth 3: ``(2 to win in one, 1 to
    save, 1 to win in two)``, and which logs were searched to depth 1 only). A log given
    twice is read once (a shell's overlapping patterns should not count a game twice),
    and the line says so; a bad log is named in its error.

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
            puzzles.extend(find_puzzles(log, depth))
        except LogError as e:
            message = str(e)
            raise LogError(message if message.startswith(str(log)) else f"{log}: {message}") from None
    atomic_write(out, "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in puzzles).encode("utf-8"))
    wins = sum(p["kind"] == "win" and p["depth"] == 1 for p in puzzles)
    deep = sum(p["depth"] == 3 for p in puzzles)
    kinds = f"{wins} to win, {len(puzzles) - wins} to save" if depth == 1 else \
        f"{wins} to win in one, {len(puzzles) - wins - deep} to save, {deep} to win in two"
    skipped = "".join(f" ({log} given twice: read once)" for log in dict.fromkeys(twice))
    shallow = [str(log) for log in read if depth == 3 and not _deep_log(log)]
    only = f" (depth 1 only, dice or more than two players: {', '.join(shallow)})" if shallow else ""
    return f"wrote {out}: {counted(len(puzzles), 'puzzle')} ({kinds}) from {counted(len(read), 'log')}{skipped}{only}"


def _deep_log(log: Path) -> bool:
    """Whether :func:`deep_search` can judge the game of ``log`` (read before: it is good)."""
    with _log.walk_log(log) as r:
        return deep_search(r.game, len(r.header.players))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return a == b


@dataclass(frozen=True)
class Puzzle:
    """One puzzle of a puzzle file, ready to show: ``log``, the game up to its position
    (written by :func:`read_puzzle`); ``number`` (from 1), the ``player`` to move, its
    ``kind`` (``"win"`` or ``"save"``), its ``solution`` (the log's notation), the
    ``dice`` rolled for the move, if the game rolls, and its ``depth`` in plies (1: in
    one move; 3: a win in two moves)."""

    log: Path
    number: int
    player: str
    kind: str
    solution: str
    dice: tuple[int, ...] | None = None
    depth: int = 1
    state: Any = field(default=None, repr=False, compare=False)  # the position, its dice rolled

    @property
    def task(self) -> str:
        """``red to move, win in one``; ``red to move, win in two moves`` (depth 3);
        ``... save the game in one`` (one move keeps the next player from winning at
        once); the dice, if any, after the player."""
        rolled = f" (dice {'-'.join(map(str, self.dice))})" if self.dice else ""
        goal = ("win in two moves" if self.depth == 3 else "win in one") if self.kind == "win" else \
            "save the game in one (any other move loses at once)"
        return f"{self.player} to move{rolled}, {goal}"

    @property
    def heading(self) -> str:
        """``puzzle 1: red to move, win in one`` (``... win in two moves``): what replay prints and captions."""
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
        depth = puzzle.get("depth", 1)  # older files have none: depth 1
        if not isinstance(records, list) or kind not in ("win", "save") or depth not in DEPTHS or type(depth) is not int \
                or (depth == 3 and kind != "win"):
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
    return Puzzle(log, number, str(state.to_move()), kind, answer, tuple(dice) if dice is not None else None, depth, state)


def shipped_puzzles(game: str) -> Path:
    """The puzzle file shipped in the package for the game registered as ``game``
    (``stratstone_cad/games/<game>/puzzles.jsonl``, dashes as underscores: at least 30
    puzzles found in games the search played against itself; scripts/make_puzzle_sets.py
    makes them). A path for :func:`read_puzzle` and ``replay --puzzle``.

    Raises:
        PuzzleError: ``game`` is not a game with a shipped puzzle file.
    """
    folder = game.replace("-", "_")
    if game not in game_names():
        raise PuzzleError(f"game {short_repr(game)}: no shipped puzzles (expected one of {', '.join(game_names())})")
    return Path(str(files("stratstone_cad.games").joinpath(folder, SHIPPED_NAME)))
