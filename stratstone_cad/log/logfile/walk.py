"""A log walked: each ply re-applied through its engine and checked, resumable from a seek point."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stratstone_cad.engine.events import DRAW_AGREED, RESIGNATION, TIME_OUT, Event, Result
from stratstone_cad.engine.protocol import Game, State
from stratstone_cad.errors import GameError, LogError, UnknownGameError, counted, short_repr
from stratstone_cad.log.logfile.reading import SeekPoint, _read_lines, _Where
from stratstone_cad.log.logfile.schema import FORMAT, VERSION, _cut, _fast_header, _fast_result, validate_line
from stratstone_cad.registry import get_game

# --------------------------------------------------------------------------- walking a log


@dataclass(frozen=True)
class Header:
    """The header line: which game, rules version, players, seed and explicit setup."""

    game: str
    rules: str
    players: list[str]
    seed: int | None
    setup: dict[str, Any]


@dataclass(slots=True)
class Step:
    """One replayed ply: its line, the logged facts, the states around it and its events.

    ``events`` include the chance events (``DiceRolled``) of the ply first.
    """

    line: int
    ply: int
    player: str
    move: str
    chance: tuple[int, ...] | None
    before: State
    after: State
    events: list[Event]


_PLY_BASE_KEYS = frozenset({"ply", "player", "move"})


class LogWalk:
    """A streaming, checking replay of a log; use :func:`walk_log` to open one.

    ``header``, ``game`` and ``initial`` are set on opening (the header is checked then);
    iterating yields one :class:`Step` per ply and raises :class:`LogError` at the first
    bad line. After the iteration, ``state`` is the final state and ``logged_result``
    the result line's result (``None`` when the log has none).
    """

    def __init__(self, lines: Iterator[tuple[int, Any]], where: _Where | None = None) -> None:
        self._lines = lines
        self._where = where
        self.logged_result: Result | None = None
        self.plies = 0
        first = next(lines, None)
        if first is None:
            raise LogError("line 1: empty log, expected the header")
        line_no, obj = first
        self.header, self.game, self.initial = _check_header(line_no, obj)
        self.state: State = self.initial

    def close(self) -> None:
        """Close the underlying file."""
        close = getattr(self._lines, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> LogWalk:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Step]:
        return self._walk(True)

    def seek_point(self) -> SeekPoint:
        """Where the replay is now (between two steps): resume from it with ``walk_log(path, start=point)``."""
        w = self._where
        if w is None:
            raise TypeError("a walk of lines from memory has no seek points")
        return SeekPoint(w.line, w.offset, self.state, w.ident)

    def run(self) -> State:
        """LogWalk and check every remaining line without building steps; returns the final state."""
        for _ in self._walk(False):
            pass
        return self.state

    def _walk(self, want_steps: bool) -> Iterator[Step]:
        game = self.game
        gname = game.name
        fast = game.fast_ply
        ids = frozenset(self.header.players)  # all match the id pattern: the header was checked
        chance_field = game.chance_field
        state = self.state
        result_line = 0
        try:
            for line_no, obj in self._lines:
                if result_line:
                    raise LogError(f"line {line_no}: nothing may follow the result line (line {result_line})")
                if type(obj) is not dict:
                    raise LogError(f"line {line_no}: expected a JSON object, got {_json_type(obj)}")
                if "result" in obj:
                    self._check_result(line_no, obj, state)
                    result_line = line_no
                    continue
                if not fast(obj, ids):
                    _check_ply_schema(line_no, obj, gname)
                ply = obj["ply"]
                if ply != state.ply + 1:
                    raise LogError(f"line {line_no}: ply is {short_repr(ply)}, expected {state.ply + 1}")
                move_text = obj["move"]
                player = obj["player"]
                res = state.result()
                if res is not None:
                    raise LogError(
                        f"line {line_no}, ply {ply}: {short_repr(move_text)} comes after the end of the game: {res.text()}"
                    )
                if player != state.to_move():
                    raise LogError(f"line {line_no}, ply {ply}: player is {short_repr(player)} but {state.to_move()} is to move")
                before = state
                events: list[Event] = []
                chance: tuple[int, ...] | None = None
                try:
                    if chance_field is not None and state.is_chance():
                        if chance_field not in obj:
                            raise LogError(f"line {line_no}, ply {ply}: {chance_field} missing, this ply starts with a roll")
                        chance = tuple(obj[chance_field])
                        state, events = state.apply_chance(chance)
                    elif chance_field is not None and chance_field in obj:
                        raise LogError(f"line {line_no}, ply {ply}: {chance_field} given but no roll is due")
                    state, more = state.apply(state.parse_move(move_text))
                except GameError as e:
                    raise LogError(f"line {line_no}, {e}") from None
                derived = len(obj) > 3 + (chance is not None)
                if want_steps or derived:
                    events.extend(more)
                    if derived:
                        self._check_derived(f"line {line_no}, ply {ply}", obj, before, state, events)
                if want_steps:
                    self.state = state
                    self.plies = ply
                    yield Step(line_no, ply, player, move_text, chance, before, state, events)
        finally:
            self.state = state
            self.plies = state.ply

    def _check_derived(self, where: str, obj: Mapping[str, Any], before: State, after: State, events: list[Event]) -> None:
        derived = self.game.derived(before, after, events)
        for key, value in obj.items():
            if key in _PLY_BASE_KEYS or key == self.game.chance_field:
                continue
            if key not in derived:  # pragma: no cover - the schema rejects unknown keys
                raise LogError(f"{where}: unknown field {short_repr(key)}")
            want = derived[key]
            got = sorted(value) if isinstance(value, list) else value
            if got != want:
                raise LogError(f"{where}: {key} says {short_repr(value, 80)} but the moves give {short_repr(want, 80)}")

    def _check_result(self, line_no: int, obj: Mapping[str, Any], state: State) -> None:
        """The result line: its shape, then against the final state (or an agreed end)."""
        err = None if _fast_result(obj) else validate_line(obj, "result")
        if err:
            raise LogError(f"line {line_no}: {err}")
        raw = obj["result"]
        logged = Result(raw["winner"], raw["reason"])
        actual = state.result()
        self.logged_result = logged
        if actual is None and agreed_end(logged, self.header.players):
            return
        if actual is None:
            said = f"line {line_no}: result says {_cut(logged.text(), 80)}"
            players = self.header.players
            if logged.reason == DRAW_AGREED:  # an agreed end, but not as the format writes one
                raise LogError(f"{said}: a draw agreed has no winner, expected winner null")
            what = {RESIGNATION: "a resignation", TIME_OUT: "a loss on time"}.get(logged.reason)
            if what and len(players) != 2:
                raise LogError(f"{said}: {what} ends only a two-player game, this one has "
                               f"{counted(len(players), 'player')}; expected a draw agreed or the game played on")
            if what:
                raise LogError(f"{said}: {what} names its winner, expected winner {' or '.join(players)}")
            raise LogError(f"{said} but the game is not over after {counted(state.ply, 'ply', 'plies')}")
        if actual != logged:
            raise LogError(f"line {line_no}: result says {_cut(logged.text(), 80)} but the moves give {actual.text()}")


def agreed_end(result: Result, players: Sequence[str]) -> bool:
    """A result the players agreed at the table before the rules ended the game: a
    resignation or a loss on time in a two-player game (the winner is the other player)
    or a draw agreed."""
    if result.reason in (RESIGNATION, TIME_OUT):
        return len(players) == 2 and result.winner in players
    return result.reason == DRAW_AGREED and result.winner is None


def _check_ply_schema(line_no: int, obj: dict[str, Any], game: str) -> None:
    """A ply line the fast check did not take, through the schema (which words the error)."""
    err = validate_line(obj, "ply", game)
    if err:
        p = obj.get("ply")
        where = f"line {line_no}, ply {p}" if type(p) is int and p >= 1 else f"line {line_no}"
        raise LogError(f"{where}: {_cut(err)}")


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(type(value), "a value")


def _check_header(line_no: int, obj: Any) -> tuple[Header, Game, State]:
    where = f"line {line_no}"
    if type(obj) is not dict:
        raise LogError(f"{where}: expected the header object, got {_json_type(obj)}")
    if "format" not in obj and ("ply" in obj or "result" in obj):
        raise LogError(f"{where}: expected the header first (format, version, game, ...)")
    if obj.get("format") != FORMAT and "format" in obj:
        raise LogError(f"{where}: format is {short_repr(obj['format'])}, expected {FORMAT!r}")
    if type(obj.get("version")) is int and obj["version"] != VERSION:
        raise LogError(f"{where}: version {short_repr(obj['version'])} is not supported (this reader reads version {VERSION})")
    err = None if _fast_header(obj) else validate_line(obj, "header")
    if err:
        raise LogError(f"{where}: {err}")
    header = Header(obj["game"], obj["rules"], list(obj["players"]), obj["seed"], obj["setup"])
    try:
        game = get_game(header.game)
    except UnknownGameError:
        raise LogError(f"{where}: game {short_repr(header.game)} has no rules engine installed yet") from None
    if header.rules != game.rules:
        raise LogError(f"{where}: rules {short_repr(header.rules)} is not supported (this engine plays {game.rules!r})")
    try:
        state = game.initial_state(header.players, header.setup)
    except GameError as e:
        raise LogError(f"{where}: {e}") from None
    return header, game, state


def walk_log(path: str | os.PathLike[str], start: SeekPoint | None = None) -> LogWalk:
    """Open ``path`` for a streaming, checking replay (use as a context manager).

    Raises :class:`LogError` at once for a missing, oversized or unreadable file or a
    bad header; iterate the result to replay and check every ply. With ``start`` (a
    :meth:`LogWalk.seek_point` of this file), the replay goes on from there: its ``state`` is the
    mark's, and iterating yields the plies after it.
    """
    where = _Where()
    lines = _read_lines(Path(path), where, start)
    try:
        r = LogWalk(lines, where)
        if start is not None:
            r.state = start.state
            r.plies = start.state.ply
        return r
    except BaseException:
        lines.close()
        raise


@dataclass(frozen=True)
class LogReport:
    """What :func:`validate` found in a valid log."""

    game: str
    plies: int
    result: Result | None
    has_result_line: bool
    header: Header = field(repr=False)

    def summary(self) -> str:
        """``ok: stratstone, 16 plies, winner red (line of four)`` or ``... unfinished after N plies``."""
        if self.result is None:
            return f"ok: {self.game}, unfinished after {counted(self.plies, 'ply', 'plies')}"
        return f"ok: {self.game}, {counted(self.plies, 'ply', 'plies')}, {self.result.text()}"


def validate(path: str | os.PathLike[str]) -> LogReport:
    """Validate a log: schema, then every ply through the engine, then the result line.

    Raises :class:`LogError` with ``line N, ply P: <move> <rule>`` style one-line messages.
    """
    with walk_log(path) as r:
        r.run()
        return report(r)


def report(r: LogWalk) -> LogReport:
    """What a replay run to its end found."""
    result = r.state.result() or r.logged_result  # the engine's, or one agreed at the table
    return LogReport(r.game.name, r.state.ply, result, r.logged_result is not None, r.header)


def ply_line(game: Game, ply: int, player: str, move: str, before: State, after: State, events: Sequence[Event]) -> str:
    """A ply in words: ``12 red d4-f5: Lancer, 1 + 3 = 4 of 4``, its number, player and
    move, then what the game's :meth:`~stratstone_cad.engine.protocol.Game.explain` says of it."""
    words = game.explain(before, after, events)
    return f"{ply} {player} {move}: {words}" if words else f"{ply} {player} {move}"
