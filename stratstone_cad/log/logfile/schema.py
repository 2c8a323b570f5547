"""The log's format: its facts, its JSON Schema and the fast checks of the usual line shapes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from importlib import resources
from typing import Any

from stratstone_cad.errors import UnknownGameError, short_repr
from stratstone_cad.registry import FACTS, get_game

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
    """The JSON Schema of one log line: the format's game-neutral part
    (``stratstone_cad/log/base-schema.json``) with each game's entry, from its facts
    (``log_schema()``: its header's players, its setup, its ply lines), in the registry's
    order. The wheel carries it assembled, as ``stratstone_cad/log/schema.json``."""
    text = resources.files("stratstone_cad.log").joinpath("base-schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    for name, facts in FACTS.items():
        _add_game(schema, name, facts.log_schema())
    return schema


def _add_game(schema: dict[str, Any], name: str, entry: Mapping[str, Any]) -> None:
    """``schema`` with the game ``name``: in the header's list of games, its header's
    players and setup, its ply lines among the plies, and its own definitions."""
    defs, key = schema["$defs"], name.replace("-", "_")
    defs["header"]["properties"]["game"]["enum"].append(name)
    then = {"players": entry["players"]} if entry.get("players") is not None else {}
    then["setup"] = {"$ref": f"#/$defs/setup_{key}"}
    defs["header"]["allOf"].append({"if": {"required": ["game"], "properties": {"game": {"const": name}}},
                                    "then": {"properties": then}})
    defs.update(entry.get("defs", {}))
    defs[f"setup_{key}"], defs[f"ply_{key}"] = entry["setup"], _ply(entry["ply"])
    defs["ply"]["anyOf"].append({"$ref": f"#/$defs/ply_{key}"})


def _ply(own: Mapping[str, Any]) -> dict[str, Any]:
    """A game's ply line from what is its own (who may move, its other fields and which of
    them are required): every ply line has its number, its player and its move, no more
    than the fields named."""
    return {"type": "object", "required": ["ply", "player", "move", *own.get("required", [])],
            "additionalProperties": False,
            "properties": {"ply": {"$ref": "#/$defs/ply_number"}, "player": own["player"],
                           "move": {"$ref": "#/$defs/move_text"}, **own.get("properties", {})}}


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
