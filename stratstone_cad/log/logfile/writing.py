"""Writing a log: its records, one canonical JSON line each, written atomically or appended."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stratstone_cad.base.fileio import atomic_write, describe_os_error, kind_of, open_regular_fd, path_too_long
from stratstone_cad.engine.events import Result
from stratstone_cad.engine.protocol import Game
from stratstone_cad.errors import OutputError
from stratstone_cad.log.logfile.schema import FORMAT, VERSION

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

    Raises:
        OutputError: the log cannot be written.
    """
    data = "".join(dumps_line(rec) + "\n" for rec in records).encode("utf-8")
    fd, st = open_regular_fd(
        path, os.O_WRONLY | os.O_APPEND,
        lambda e: OutputError(f"output file {path}: cannot write ({describe_os_error(e)})"),
        lambda mode: OutputError(f"output file {path}: is {kind_of(mode)}, expected the log, a regular file"))
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
    The temporary files that killed writes of the same log left beside it go (``play --out``,
    ``record``: :func:`~stratstone_cad.base.fileio.sweep_temporary`), as every export's do.

    Raises :class:`~stratstone_cad.errors.OutputError` when the file cannot be written.

    Raises:
        OutputError: the output is a folder, its folder does not exist, or it cannot be written.
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
    atomic_write(path, text.encode("utf-8"), follow_symlinks=True, sweep=True)  # a link is written through, a FIFO refused
