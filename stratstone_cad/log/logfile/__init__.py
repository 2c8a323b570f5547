"""The engine log: JSON Lines, UTF-8, one JSON object per line.

Line 1 is the header, then one line per ply, then optionally the result::

    {"format": "stratstone-cad/log", "version": 1, "game": "stratstone", "rules": "stratstone/1",
     "players": ["yellow", "red"], "seed": 7, "setup": {"first": "yellow"}}
    {"ply": 1, "player": "yellow", "move": "a1 NNE"}
    {"result": {"winner": "red", "reason": "line of four"}}

Reading is streaming, one line at a time, with a cap on the line length and the file size,
so a huge file or a huge line fails fast with one line of explanation. Each line is
checked against the log's JSON Schema (:func:`load_schema`; the usual line shapes go
through hand-written checks that accept strictly less than the schema, for speed; any other
line goes through jsonschema, which also words the error), then every ply is replayed
through the engine (dice are data: they are replayed, never re-rolled). Logs are data only:
``json`` with NaN/Infinity and duplicate keys rejected; no pickle, no eval.

A replay can be resumed part way: :meth:`LogWalk.seek_point` notes where it is (the byte after a
ply's line and the state after it, an immutable value), and ``walk_log(path, start=point)``
goes on from there, checking every ply again as it goes, so a reader can keep a seek point every
N plies and rebuild any ply from the nearest one instead of keeping every ply.

The format is documented in docs/log-format.md.

The package follows a log's life: :mod:`.schema` (the format's facts and its JSON Schema,
the fast checks of the usual line shapes), :mod:`.reading` (the strict, size-limited
streaming reader), :mod:`.walk` (each ply re-applied through its engine: the header,
the steps, a seek point to resume from, check-log's report) and :mod:`.writing` (the
records and the atomic and appending writers). The public names are re-exported here.
"""

from stratstone_cad.log.logfile.reading import JSON_WS, SeekPoint, loads_strict
from stratstone_cad.log.logfile.schema import (
    FORMAT,
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    VERSION,
    load_schema,
    validate_line,
    validator_class,
)
from stratstone_cad.log.logfile.walk import Header, LogReport, LogWalk, Step, agreed_end, ply_line, report, validate, walk_log
from stratstone_cad.log.logfile.writing import (
    append_log,
    dumps_line,
    header_record,
    holds_as_written,
    ply_record,
    result_record,
    write_log,
)

__all__ = ["FORMAT", "JSON_WS", "MAX_LINE_BYTES", "MAX_LOG_BYTES", "VERSION", "Header", "LogReport", "LogWalk", "SeekPoint",
           "Step", "agreed_end", "append_log", "dumps_line", "header_record", "holds_as_written", "load_schema", "loads_strict",
           "ply_line", "ply_record", "report", "result_record", "validate", "validate_line", "validator_class", "walk_log",
           "write_log"]
