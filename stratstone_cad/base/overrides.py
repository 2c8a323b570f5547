"""Overrides of the presets: a ``--params FILE.toml`` file (the same ``[stratstone.stone]``
tables as a preset) and ``--set NAME=VALUE`` options (one value, parsed by the field's
type), merged with the presets into each parameter object's values (:func:`resolve`).
Both are addressed by dotted names (``stratstone.stone.height_mm``)."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path
from typing import Any

from stratstone_cad.base.params import Params, field_expected, field_kind
from stratstone_cad.base.preset_files import flatten, load_toml
from stratstone_cad.errors import ParameterError, did_you_mean, short_repr

#: A whole number as a user types it: the digits 0-9, an optional sign.
INTEGER_TEXT = r"[+-]?[0-9]{1,30}"
#: A number as a user types it: the digits 0-9 with an optional point and exponent.
NUMBER_TEXT = r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?"


def parse_text_value(f: dataclasses.Field, text: str, name: str) -> Any:
    """Parse the text of ``--set name=text`` by the field's type.

    Raises:
        ParameterError: the text is not a value of the field's type.
    """
    kind = field_kind(f)
    t = text.strip()
    if kind == "bool":
        low = t.lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise ParameterError(f"{name} = {short_repr(t)}: expected true or false")
    if kind == "str":
        return t
    if kind == "list":
        if t.startswith("["):  # the list as `list` shows it: a TOML (or JSON) array of texts
            return _parse_array(t, name)
        names = [p.strip() for p in t.split(",")]
        if not all(names):
            raise ParameterError(f"{name} = {short_repr(t)}: expected names separated by commas, with none empty")
        return names
    # One number grammar for every input, the integer flags' and TOML's: ASCII digits, no
    # underscores (``int()`` and ``float()`` would also take ``1_0`` and other scripts' digits).
    if not re.fullmatch(INTEGER_TEXT if kind == "int" else NUMBER_TEXT, t):
        raise ParameterError(f"{name} = {short_repr(t)}: expected {field_expected(f)}")
    return int(t) if kind == "int" else float(t)


LIST_FORMS = 'names separated by commas (a,b,c) or an array as list shows it (["a", "b", "c"])'
"""How ``--set`` writes a list parameter, for its messages and the ``--set`` help."""


def _parse_array(text: str, name: str) -> list[Any]:
    """``["a", "b"]`` (TOML's array, so JSON's too, and ``['a', 'b']``) as a list; the
    field then checks its items as it checks a ``--params`` file's."""
    try:
        table = tomllib.loads(f"v = {text}")
    except (tomllib.TOMLDecodeError, RecursionError):
        table = None
    if table is None or list(table) != ["v"] or not isinstance(table["v"], list):  # "[1] \n w = 2" is two keys
        raise ParameterError(f"{name} = {short_repr(text)}: expected {LIST_FORMS}")
    return table["v"]

def parse_set(items: list[str]) -> dict[str, str]:
    """``["a.b=1", ...]`` -> ``{"a.b": "1"}``; a missing ``=`` is an error. A name given
    twice takes its last value, as a later option overrides an earlier one everywhere on
    a command line.

    Raises:
        ParameterError: the item is not ``NAME=VALUE``.
    """
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ParameterError(f"--set {short_repr(item)}: expected NAME=VALUE, e.g. stratstone.stone.height_mm=9")
        out[name.strip()] = value
    return out


def resolve(
    schema: dict[str, type[Params]],
    preset_files: list[Path],
    params_file: Path | None = None,
    sets: dict[str, str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Merge presets, a ``--params`` file and ``--set`` overrides into raw field values.

    ``schema`` maps a prefix (``"stratstone.stone"``) to its Params class. Returns
    ``{prefix: {field: value}}``, not yet constructed (constructing checks them). A field
    that ``follows`` a shared one (:func:`~stratstone_cad.base.params.param`) and is given no
    value of its own, by a preset, the file or ``--set``, takes the shared field's: one
    ``--set fit.joint_clearance_mm=0.3`` reaches every board, and a board's own value, wherever
    given, wins over it (the more specific name, as a game's section wins over nothing else).
    Unknown names anywhere raise ParameterError with the closest valid name.

    Raises:
        ParameterError: a parameter has no value, or a key is not a parameter.
    """
    fields = {}
    for prefix, cls in schema.items():
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            fields[f"{prefix}.{f.name}"] = (prefix, f)
    values: dict[str, dict[str, Any]] = {p: {} for p in schema}

    def put(key: str, value: Any, source: str, from_text: bool) -> None:
        if key not in fields:
            raise ParameterError(f"unknown parameter {short_repr(key)} in {source}{did_you_mean(key, fields, cutoff=0.5)}")
        prefix, f = fields[key]
        if from_text:
            value = parse_text_value(f, value, key)
        values[prefix][f.name] = value

    for path in preset_files:
        for key, value in flatten(load_toml(path, "preset")).items():
            put(key, value, str(path), False)
    following = {key: f.metadata["follows"] for key, (prefix, f) in fields.items()
                 if f.metadata.get("follows") and f.name not in values[prefix]}
    missing = [key for key, (prefix, f) in fields.items() if f.name not in values[prefix] and key not in following]
    if missing:  # the presets are the defaults' one place: each field has its value there
        raise ParameterError(f"presets {', '.join(str(p) for p in preset_files)}: no value for {missing[0]}"
                             f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}, expected one for "
                             "every parameter")
    if params_file is not None:
        for key, value in flatten(load_toml(params_file, "--params file")).items():
            put(key, value, str(params_file), False)
    for key, text in (sets or {}).items():
        put(key, text, "--set", True)
    for key, shared in following.items():  # a field that follows a shared one and was given no value of its own
        prefix, f = fields[key]
        if f.name not in values[prefix]:
            values[prefix][f.name] = values[fields[shared][0]][fields[shared][1].name]
    return values
