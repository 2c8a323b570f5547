"""The engine log: JSON Lines, UTF-8, one JSON object per line.

Line 1 is the header, then one line per ply, then optionally the result::

    {"format": "stratstone-cad/log", "version": 1, "game": "stratstone", "rules": "stratstone/1",
     "players": ["yellow", "red"], "seed": 7, "setup": {"first": "yellow"}}
    {"ply": 1, "player": "yellow", "move": "a1 NNE"}
    {"result": {"winner": "red", "reason": "line of four"}}

Reading is streaming, one line at a time, with a cap on the line length and the file size,
so a huge file or a huge line fails fast with one line of explanation. Each line is
checked against the JSON Schema shipped in ``schema.json`` (the usual line shapes go
through hand-written checks that accept strictly less than the schema, for speed; any other
line goes through jsonschema, which also words the error), then every ply is replayed
through the engine (dice are data: they are replayed, never re-rolled). Logs are data only:
``json`` with NaN/Infinity and duplicate keys rejected; no pickle, no eval.

A replay can be resumed part way: :meth:`Replay.mark` notes where it is (the byte after a
ply's line and the state after it, an immutable value), and ``replay(path, start=mark)``
goes on from there, checking every ply again as it goes, so a reader can keep a mark every
N plies and rebuild any ply from the nearest one instead of keeping every ply.

The format is documented in docs/log-format.md.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import math
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO

from stratstone_cad.base.fileio import atomic_write, describe_os_error, kind_of, open_regular, path_too_long
from stratstone_cad.engine.core import DRAW_AGREED, RESIGNATION, Event, Game, Result, State, UnknownGameError, short_repr
from stratstone_cad.errors import GameError, LogError, OutputError, counted
from stratstone_cad.registry import get_game

__all__ = [
    "FORMAT",
    "JSON_WS",
    "MAX_LINE_BYTES",
    "MAX_LOG_BYTES",
    "VERSION",
    "Header",
    "LogReport",
    "Mark",
    "Replay",
    "Step",
    "agreed_end",
    "dumps_line",
    "header_record",
    "load_schema",
    "loads_strict",
    "ply_record",
    "replay",
    "result_record",
    "validate",
    "validate_line",
    "validator_class",
    "write_log",
]

FORMAT = "stratstone-cad/log"
VERSION = 1
MAX_LINE_BYTES = 1 << 20
"""Longest accepted line, 1 MiB (a terrain header with its heightmap fits many times)."""
MAX_LOG_BYTES = 64 << 20
"""Largest accepted log, 64 MiB (about a million plies)."""

_MESSAGE_LIMIT = 160


def _cut(text: str, limit: int = _MESSAGE_LIMIT) -> str:
    """One line, at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- schema


@cache
def load_schema() -> dict[str, Any]:
    """The JSON Schema of one log line (``stratstone_cad/log/schema.json``)."""
    text = resources.files("stratstone_cad.log").joinpath("schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _strict_int(checker: Any, instance: object) -> bool:
    return type(instance) is int


@cache
def validator_class() -> Any:
    """Draft 2020-12 with strict integers (``1.0`` and ``true`` are not integers).

    jsonschema is imported here, on first use: the usual lines pass the fast checks
    below and never need it, which keeps ``check-log`` quick to start.
    """
    # start-up speed: jsonschema only for a line the fast check cannot pass
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        validators={"uniqueItems": _unique_items},
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_int),
    )


def _unique_items(validator: Any, unique: bool, instance: Any, schema: Any) -> Iterator[Any]:
    """``uniqueItems`` in time linear in the array (jsonschema compares every pair, which
    made 8,000 objects in a header's ``players`` take a minute): each item becomes a
    hashable key that is equal exactly when JSON Schema calls the items equal."""
    # start-up speed: jsonschema only for a line the fast check cannot pass
    from jsonschema.exceptions import ValidationError

    if not unique or not isinstance(instance, list):
        return
    seen: set[Any] = set()
    for item in instance:
        key = _canonical(item)
        if key in seen:
            yield ValidationError(f"{short_repr(instance)} has non-unique elements")
            return
        seen.add(key)


def _canonical(value: Any) -> Any:
    """A hashable stand-in for a JSON value: 1 and 1.0 alike, true and 1 not, object keys unordered."""
    if isinstance(value, bool) or value is None:
        return ("c", value)
    if isinstance(value, int | float):
        return ("n", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("d", frozenset((k, _canonical(v)) for k, v in value.items()))
    return ("?", repr(value))


@cache
def _validator(part: str) -> Any:
    """A validator for ``$defs[part]`` (or the whole line schema when ``part`` is ``""``)."""
    root = load_schema()
    schema = root if not part else {"$ref": f"#/$defs/{part}", "$defs": root["$defs"]}
    return validator_class()(schema)


def _schema_error(value: Any, part: str) -> str | None:
    """The most relevant schema error for ``value`` against ``part``, as one line, or None."""
    # start-up speed: jsonschema only for a line the fast check cannot pass
    from jsonschema.exceptions import best_match

    try:
        err = best_match(_validator(part).iter_errors(value))
    except RecursionError:
        return "nested too deeply"
    if err is None:
        return None
    where = ""
    for p in err.absolute_path:
        where += f"[{p}]" if isinstance(p, int) else (f".{p}" if where else str(p))
    try:
        message = err.message
    except RecursionError:  # pragma: no cover - defensive
        message = "does not match the schema"
    return _cut(f"{where}: {message}" if where else message)


def validate_line(value: Any, kind: str, game: str | None = None) -> str | None:
    """Check one parsed line against the schema; returns the error text or ``None``.

    ``kind`` is ``"header"``, ``"ply"`` or ``"result"``; a ply is checked against the
    ply schema of ``game`` (e.g. ``ply_sage_stones``).
    """
    if kind == "ply":
        part = "ply_" + (game or "").replace("-", "_")
        if part not in load_schema()["$defs"]:
            part = "ply"
    else:
        part = kind
    return _overlong(value, _longest_list()) or _schema_error(value, part)


@cache
def _longest_list() -> int:
    """The most items any list of a log line may hold (the schema's largest ``maxItems``)."""
    found: list[int] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("maxItems"), int):
                found.append(node["maxItems"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(load_schema())
    return max(found)


def _overlong(value: Any, most: int, where: str = "") -> str | None:
    """A list longer than any the schema allows, named, before the schema looks at it: the
    schema would check every one of its items first (a 1 MiB line of them took seconds)."""
    if isinstance(value, list):
        if len(value) > most:
            return f"{where or 'the line'}: {len(value)} items, expected at most {most}"
        items: Iterable[tuple[str, Any]] = ((f"{where}[{i}]", v) for i, v in enumerate(value))
    elif isinstance(value, dict):
        items = ((f"{where}.{k}" if where else str(k), v) for k, v in value.items())
    else:
        return None
    for path, v in items:
        if isinstance(v, list | dict) and (bad := _overlong(v, most, path)):
            return bad
    return None


# Fast, strictly narrower checks for the common line shapes: when one passes, the line is
# valid by the schema (tests/games/test_log.py checks that), and the schema is skipped.
# Each game gives its own ply and header checks (Game.fast_ply, Game.fast_header).

_ID_RE = re.compile(r"[a-z][a-z0-9_-]{0,31}")


def _fast_result(o: dict[str, Any]) -> bool:
    if len(o) != 1:
        return False
    r = o["result"]
    if type(r) is not dict or len(r) != 2:
        return False
    w = r.get("winner", 0)
    reason = r.get("reason")
    return (w is None or (type(w) is str and _ID_RE.fullmatch(w) is not None)) and type(reason) is str and 0 < len(reason) <= 200


_RULES_RE = re.compile(r"[a-z][a-z-]*/[0-9]{1,6}")


def _fast_header(o: dict[str, Any]) -> bool:
    """The usual headers written by ``play`` (no start position in the setup)."""
    if len(o) != 7:
        return False
    game = o.get("game")
    rules = o.get("rules")
    players = o.get("players")
    seed = o.get("seed", 0.5)
    setup = o.get("setup")
    if not (
        o.get("format") == FORMAT
        and type(o.get("version")) is int
        and o["version"] == VERSION
        and type(rules) is str
        and _RULES_RE.fullmatch(rules) is not None
        and (seed is None or (type(seed) is int and 0 <= seed <= 2**63 - 1))
        and type(players) is list
        and 1 <= len(players) <= 6
        and all(type(p) is str and _ID_RE.fullmatch(p) is not None for p in players)
        and len(set(players)) == len(players)
        and type(setup) is dict
    ):
        return False
    try:
        engine = get_game(game)
    except UnknownGameError:
        return False  # the schema path words the error
    return engine.fast_header(players, setup)


# --------------------------------------------------------------------------- reading


class _DuplicateKey(ValueError):
    pass


class _BadConstant(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return d


def _constant(name: str) -> Any:
    raise _BadConstant(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):
        raise _BadConstant(f"{text[:24]} is out of range")
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_finite_float)


JSON_WS = " \t\r\n"
"""The only characters JSON allows around a value (``str.strip()`` would also take
U+00A0, U+2028, form feeds and the like, which would let a line that is not JSON pass)."""


def loads_strict(text: str) -> Any:
    """One JSON value from ``text``, read as a log line is: no duplicate keys, no NaN or
    infinity, only JSON whitespace around it. Raises ValueError with a short reason (a
    column counts from the start of ``text``)."""
    body = text.strip(JSON_WS)
    try:
        value, end = _DECODER.raw_decode(body)
    except (ValueError, RecursionError) as e:
        raise ValueError(_json_reason(e, text)) from None
    if end != len(body):
        lead = len(text) - len(text.lstrip(JSON_WS))
        rest = body[end:]
        raise ValueError(f"extra data at column {lead + end + len(rest) - len(rest.lstrip(JSON_WS)) + 1}")
    return value


def _json_reason(e: BaseException, text: str) -> str:
    lead = len(text) - len(text.lstrip(JSON_WS))  # columns count from the start of the line
    if isinstance(e, _DuplicateKey):
        return f"duplicate key {short_repr(str(e))}"
    if isinstance(e, _BadConstant):
        return str(e)
    if isinstance(e, json.JSONDecodeError):
        msg = e.msg[:-3] if e.msg.endswith(" at") else e.msg
        return f"{msg} at column {e.pos + lead + 1}"
    if isinstance(e, RecursionError):
        return "nested too deeply"
    return _cut(str(e).split(":")[0], 80)  # e.g. an integer over Python's 4300-digit limit


def _json_error(e: BaseException, text: str, line_no: int) -> LogError:
    """The one-line error for a line that ``_DECODER`` refused (``text`` is the whole line)."""
    return LogError(f"line {line_no}: not valid JSON ({_json_reason(e, text)})")


def _parse_json(text: str, line_no: int) -> Any:
    """Parse one non-blank line; raises :class:`LogError` naming the line."""
    try:
        return loads_strict(text)
    except ValueError as e:
        raise LogError(f"line {line_no}: not valid JSON ({e})") from None


def _human_size(n: int) -> str:
    """``n`` bytes in the largest unit that keeps the number below 1024 once rounded (so
    1 MiB less a byte is "1.0 MiB", not "1024.0 KiB")."""
    if n < 1 << 10:
        return f"{n} bytes"
    for unit, size in (("KiB", 1 << 10), ("MiB", 1 << 20)):
        if round(n / size, 1) < 1024:
            return f"{n / size:.1f} {unit}"
    return f"{n / (1 << 30):.1f} GiB"


class _Where:
    """Where a reader is in its file: the last line it yielded, the byte after it, and the
    file's identity (device, inode, size, modification time)."""

    __slots__ = ("ident", "line", "offset")

    def __init__(self) -> None:
        self.line = 0
        self.offset = 0
        self.ident: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Mark:
    """A place to resume a replay from (:meth:`Replay.mark`): after the ply ``state.ply``,
    whose line is ``line`` and ends before byte ``offset`` of the file ``ident`` names."""

    line: int
    offset: int
    state: State
    ident: tuple[int, ...]


def _read_lines(path: Path, where: _Where | None = None, start: Mark | None = None) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, parsed JSON value)`` for each line of ``path``, streaming.

    Blank lines at the very end are ignored; any other blank line is an error. ``where``
    follows the reader; with ``start``, the header line is read, then the lines after
    ``start`` (a :class:`LogError` when the file is not the one the mark was made in).
    """
    name = str(path)
    with open_regular(path, "", "a log file", LogError) as f:
        st = os.fstat(f.fileno())
        if st.st_size > MAX_LOG_BYTES:
            raise LogError(f"{name}: {_human_size(st.st_size)} is larger than the {_human_size(MAX_LOG_BYTES)} limit for a log")
        ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if start is not None and start.ident != ident:
            raise LogError(f"{name}: changed since it was checked; expected the log as it was (replay it again)")
        if where is not None:
            where.ident = ident
        yield from _read_open_lines(f, name, where, start)


def _read_open_lines(f: BinaryIO, name: str, where: _Where | None = None, start: Mark | None = None) -> Iterator[tuple[int, Any]]:
    try:
        total = 0
        line_no = 0
        blank_at = 0
        raw_decode = _DECODER.raw_decode
        jump = start is not None
        while True:
            try:
                raw = f.readline(MAX_LINE_BYTES + 1)
            except OSError as e:
                raise LogError(f"{name}: cannot read ({describe_os_error(e)})") from None
            if not raw:
                return
            line_no += 1
            total += len(raw)
            if total > MAX_LOG_BYTES:
                raise LogError(f"line {line_no}: the log is larger than the {_human_size(MAX_LOG_BYTES)} limit")
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise LogError(f"line {line_no}: longer than the {_human_size(MAX_LINE_BYTES)} limit for a line")
            if line_no == 1 and raw.startswith(codecs.BOM_UTF8):  # Notepad's byte order mark: UTF-8 all the same
                raw = raw[len(codecs.BOM_UTF8):]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise LogError(f"line {line_no}: not UTF-8 (byte {raw[e.start]:#04x} at byte {e.start + 1})") from None
            body = text.strip(JSON_WS)
            if not body:
                blank_at = blank_at or line_no
                continue
            if blank_at:
                raise LogError(f"line {blank_at}: empty line, expected a JSON object")
            try:
                value, end = raw_decode(body)
            except (ValueError, RecursionError) as e:
                if line_no > 1 and not raw.endswith(b"\n") and body.startswith("{") and isinstance(e, ValueError):
                    raise LogError(f"line {line_no}: cut short, the file ends inside it (as a write stopped part way, "
                                   "such as a killed record, leaves it); expected a whole JSON line: remove this last "
                                   "line to keep the plies before it") from None
                raise _json_error(e, text, line_no) from None
            if end != len(body):
                _parse_json(text, line_no)  # raises the "extra data" error
            if where is not None:
                where.line, where.offset = line_no, total
            yield line_no, value
            if jump:  # the header read: on from the mark
                assert start is not None
                jump = False
                try:
                    f.seek(start.offset)
                except OSError as e:
                    raise LogError(f"{name}: cannot read ({describe_os_error(e)})") from None
                line_no, total = start.line, start.offset
    finally:
        f.close()


# --------------------------------------------------------------------------- replay


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


class Replay:
    """A streaming, checking replay of a log; use :func:`replay` to open one.

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

    def __enter__(self) -> Replay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Step]:
        return self._replay(True)

    def mark(self) -> Mark:
        """Where the replay is now (between two steps): resume from it with ``replay(path, start=mark)``."""
        w = self._where
        if w is None:
            raise TypeError("a replay of lines from memory has no marks")
        return Mark(w.line, w.offset, self.state, w.ident)

    def run(self) -> State:
        """Replay and check every remaining line without building steps; returns the final state."""
        for _ in self._replay(False):
            pass
        return self.state

    def _replay(self, want_steps: bool) -> Iterator[Step]:
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
                        f"line {line_no}, ply {ply}: {short_repr(move_text)} comes after the end of the game: {res.describe()}"
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
            said = f"line {line_no}: result says {_cut(logged.describe(), 80)}"
            players = self.header.players
            if logged.reason == DRAW_AGREED:  # an agreed end, but not as the format writes one
                raise LogError(f"{said}: a draw agreed has no winner, expected winner null")
            if logged.reason == RESIGNATION and len(players) != 2:
                raise LogError(f"{said}: a resignation ends only a two-player game, this one has "
                               f"{counted(len(players), 'player')}; expected a draw agreed or the game played on")
            if logged.reason == RESIGNATION:
                raise LogError(f"{said}: a resignation names its winner, expected winner {' or '.join(players)}")
            raise LogError(f"{said} but the game is not over after {counted(state.ply, 'ply', 'plies')}")
        if actual != logged:
            raise LogError(f"line {line_no}: result says {_cut(logged.describe(), 80)} but the moves give {actual.describe()}")


def agreed_end(result: Result, players: Sequence[str]) -> bool:
    """A result the players agreed at the table before the rules ended the game: a
    resignation in a two-player game (the winner is the other player) or a draw agreed."""
    if result.reason == RESIGNATION:
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


def replay(path: str | os.PathLike[str], start: Mark | None = None) -> Replay:
    """Open ``path`` for a streaming, checking replay (use as a context manager).

    Raises :class:`LogError` at once for a missing, oversized or unreadable file or a
    bad header; iterate the result to replay and check every ply. With ``start`` (a
    :meth:`Replay.mark` of this file), the replay goes on from there: its ``state`` is the
    mark's, and iterating yields the plies after it.
    """
    where = _Where()
    lines = _read_lines(Path(path), where, start)
    try:
        r = Replay(lines, where)
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
        return f"ok: {self.game}, {counted(self.plies, 'ply', 'plies')}, {self.result.describe()}"


def validate(path: str | os.PathLike[str]) -> LogReport:
    """Validate a log: schema, then every ply through the engine, then the result line.

    Raises :class:`LogError` with ``line N, ply P: <move> <rule>`` style one-line messages.
    """
    with replay(path) as r:
        r.run()
        return report(r)


def report(r: Replay) -> LogReport:
    """What a replay run to its end found."""
    result = r.state.result() or r.logged_result  # the engine's, or one agreed at the table
    return LogReport(r.game.name, r.state.ply, result, r.logged_result is not None, r.header)


def ply_line(game: Game, ply: int, player: str, move: str, before: State, after: State, events: Sequence[Event]) -> str:
    """A ply in words: ``12 red d4-f5: Lancer, 1 + 3 = 4 of 4``, its number, player and
    move, then what the game's :meth:`~stratstone_cad.engine.core.Game.explain` says of it."""
    words = game.explain(before, after, events)
    return f"{ply} {player} {move}: {words}" if words else f"{ply} {player} {move}"


# --------------------------------------------------------------------------- writing


def header_record(game: Game, players: Sequence[str], seed: int | None, setup: Mapping[str, Any]) -> dict[str, Any]:
    """The header object for ``game``."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.name,
        "rules": game.rules,
        "players": list(players),
        "seed": seed,
        "setup": dict(setup),
    }


def ply_record(
    ply: int,
    player: str,
    move: str,
    chance: tuple[str, Sequence[int]] | None = None,
    derived: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One ply object: ``ply``, ``player``, the chance field (``dice``) if any, ``move``, derived facts."""
    rec: dict[str, Any] = {"ply": ply, "player": player}
    if chance is not None:
        rec[chance[0]] = list(chance[1])
    rec["move"] = move
    if derived:
        rec.update(derived)
    return rec


def result_record(result: Result) -> dict[str, Any]:
    """The last-line object ``{"result": {"winner": ..., "reason": ...}}``."""
    return {"result": result.to_json()}


def dumps_line(obj: Mapping[str, Any]) -> str:
    """One log line (no newline): compact-ish, key order kept, ASCII-only, deterministic."""
    return json.dumps(obj, ensure_ascii=True, allow_nan=False)


def append_log(path: str | os.PathLike[str], records: Iterable[Mapping[str, Any]]) -> None:
    """Append records to the log at ``path``, which :func:`write_log` (or this) wrote: the
    same bytes a rewrite of the whole log would give (``dumps_line``, one a line), written
    at the end only and made durable (``fsync``) before it returns, so a long game costs
    each move its own line, not the log again. A failed append (a full disk) is taken back,
    the file cut to its old length; a kill part way can leave a last line cut short, which
    the reader names (``check-log``, ``record --resume``).

    Raises :class:`~stratstone_cad.errors.OutputError` when the file cannot be written.
    """
    data = "".join(dumps_line(rec) + "\n" for rec in records).encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise OutputError(f"output file {path}: cannot write ({describe_os_error(e)})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(f"output file {path}: is {kind_of(st.st_mode)}, expected the log, a regular file")
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except BaseException as e:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, st.st_size)  # the log as it was: no line half written
                os.fsync(fd)
            if isinstance(e, OSError):
                raise OutputError(f"output file {path}: cannot write ({describe_os_error(e)})") from None
            raise
    finally:
        os.close(fd)


def holds_as_written(path: str | os.PathLike[str], records: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the file at ``path`` holds exactly the bytes :func:`write_log` writes for
    ``records`` (read alongside, line by line, to the first difference): then new records
    can be appended (:func:`append_log`) and the file stays what a rewrite would give."""
    try:
        with open(path, "rb") as f:
            for rec in records:
                line = (dumps_line(rec) + "\n").encode("utf-8")
                if f.read(len(line)) != line:
                    return False
            return f.read(1) == b""
    except OSError:
        return False


def write_log(path: str | os.PathLike[str], records: Iterable[Mapping[str, Any]]) -> None:
    """Write records as a log atomically: a temp file in the same folder, then ``os.replace``.

    Raises :class:`~stratstone_cad.errors.OutputError` when the file cannot be written.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    why = path_too_long(path)
    if why:
        raise OutputError(f"output file {path}: cannot write ({why})")
    if os.path.isdir(path):  # os.path: False on any OSError (atomic_write reports those)
        raise OutputError(f"output file {path}: is a directory, expected a file name for the log")
    if not os.path.isdir(folder):
        raise OutputError(f"output file {path}: its folder {folder} does not exist, expected a file in a folder that does")
    text = "".join(dumps_line(rec) + "\n" for rec in records)
    atomic_write(path, text.encode("utf-8"), follow_symlinks=True)  # a link is written through, a FIFO refused
