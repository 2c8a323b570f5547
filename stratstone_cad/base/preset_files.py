"""The shared presets' TOML files (package data in ``base/presets/``: printers, print
profiles, plates, mesh tolerance, colours) and the reading of any parameter file: size-
and line-limited, each fault one :class:`~stratstone_cad.errors.ParameterError` line."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from stratstone_cad.base.fileio import read_user_file
from stratstone_cad.errors import ParameterError

#: The shared presets (printers, print profiles, plates, mesh tolerance, colours), package data.
PRESETS_DIR = Path(__file__).resolve().parent / "presets"

TOML_MAX_BYTES = 1 << 20  # a parameter file is a few kilobytes
TOML_MAX_LINE = 4096


def load_toml(path: Path, what: str) -> dict[str, Any]:
    """A TOML file's tables; one-line ParameterError for anything else (see fileio).

    Raises:
        ParameterError: the file has a line too long, is not UTF-8 text or is not valid TOML.
    """
    data = read_user_file(path, what, TOML_MAX_BYTES, "a TOML file", ParameterError)
    # tomllib takes time quadratic in a dotted key's length (a 60 000-character key
    # takes minutes); a parameter file's lines are short, so a long one is refused first.
    for n, line in enumerate(data.splitlines(), 1):
        if len(line) > TOML_MAX_LINE:
            raise ParameterError(f"{what} {path}: line {n} is {len(line)} bytes long, expected at most "
                                 f"{TOML_MAX_LINE} (split a long list over several lines)")
    try:
        return tomllib.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ParameterError(f"{what} {path}: not UTF-8 text, expected a TOML file") from None
    except tomllib.TOMLDecodeError as e:
        raise ParameterError(f"{what} {path}: invalid TOML ({e})") from None
    except RecursionError:
        raise ParameterError(f"{what} {path}: invalid TOML (nested too deeply), expected a TOML file") from None


def flatten(table: dict[str, Any]) -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}`` (lists stay values). Iterative: a file's
    tables may nest as deep as its longest line allows."""
    out: dict[str, Any] = {}
    todo: list[tuple[str, dict[str, Any]]] = [("", table)]
    while todo:
        prefix, t = todo.pop()
        for k, v in t.items():
            key = f"{prefix}.{k}" if prefix else k
            if isinstance(v, dict):
                todo.append((key, v))
            else:
                out[key] = v
    return out
