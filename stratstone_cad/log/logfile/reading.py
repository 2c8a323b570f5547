"""Reading a log: strict JSON, one size-limited line at a time, from a seek point on."""

from __future__ import annotations

import codecs
import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from stratstone_cad.base.fileio import describe_os_error, open_regular
from stratstone_cad.engine.protocol import State
from stratstone_cad.errors import LogError, short_repr
from stratstone_cad.log.logfile.schema import MAX_LINE_BYTES, MAX_LOG_BYTES, _cut

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
class SeekPoint:
    """A place to resume a replay from (:meth:`LogWalk.seek_point`): after the ply ``state.ply``,
    whose line is ``line`` and ends before byte ``offset`` of the file ``ident`` names."""

    line: int
    offset: int
    state: State
    ident: tuple[int, ...]


def _read_lines(path: Path, where: _Where | None = None, start: SeekPoint | None = None) -> Iterator[tuple[int, Any]]:
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


def _read_open_lines(f: BinaryIO, name: str, where: _Where | None = None,
                     start: SeekPoint | None = None) -> Iterator[tuple[int, Any]]:
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
