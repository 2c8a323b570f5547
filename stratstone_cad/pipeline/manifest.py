"""The build's manifest, ``output/manifest.json``: every part (STL) and print plate (3MF)
the build wrote, each with the key of what it was made from and its file's sha256. It is
the build's cache (:mod:`stratstone_cad.pipeline.build`), and what the viewer and the
tests read."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stratstone_cad.assets.jobs import Output
from stratstone_cad.base.fileio import atomic_write, describe_os_error
from stratstone_cad.errors import printable

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "stratstone-cad/manifest"
MANIFEST_MAX_BYTES = 64 << 20  # a manifest of a few hundred parts is well under 1 MiB


def sha256_file(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def read_manifest(out_dir: Path, damaged: Callable[[str], None] | None = None) -> dict[str, dict[str, Any]]:
    """Entries of an existing manifest by file; a damaged or unreadable manifest counts as
    empty (nesting too deep for the parser, a huge file, not a regular file), so the
    build makes everything again and writes a sound one. ``damaged`` is told why, in one
    line, when a manifest is there but cannot be used (no manifest is no damage)."""
    path = out_dir / MANIFEST
    why = ""
    try:
        if not path.exists() and not path.is_symlink():
            return {}
        if not path.is_file():
            why = "not a regular file"
        elif path.stat().st_size > MANIFEST_MAX_BYTES:
            why = f"larger than the {MANIFEST_MAX_BYTES >> 20} MiB limit"
        else:
            data = json.loads(path.read_text("utf-8"))
            if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
                why = f"not a manifest of this program (expected format {MANIFEST_FORMAT!r})"
            else:
                listed = [*data["assets"], *data.get("plates", []), *data.get("cad", [])]
                entries = {a["file"]: a for a in listed if isinstance(a, dict) and _our_file(a.get("file"))}
                for f in broken_plates(entries):  # a plate is only as true as its parts: never vouched for without them
                    del entries[f]
                return entries
    except UnicodeDecodeError:
        why = "not UTF-8 text"
    except json.JSONDecodeError as e:
        why = f"not valid JSON ({e.msg} at line {e.lineno})"
    except OSError as e:
        why = f"cannot be read ({describe_os_error(e)})"
    except RecursionError:
        why = "not valid JSON (nested too deeply)"
    except (ValueError, KeyError, TypeError, AttributeError):
        why = "not a manifest's shape (expected an assets list of entries, each with its file)"
    if damaged is not None:
        damaged(f"{printable(str(path))}: {why}; it is ignored and every file is made again")
    return {}


_OUR_FILE = re.compile(r"[a-z][a-z0-9-]*/[a-z0-9][a-z0-9_-]*\.(?:stl|3mf|step|glb)")


def _our_file(name: Any) -> bool:
    """Whether a manifest's file name is one the build writes: ``game/part.stl`` or ``game/plate.3mf``,
    never an absolute path or one that leaves the output folder (the build deletes
    stale files by these names, so a damaged manifest must not point elsewhere)."""
    return isinstance(name, str) and _OUR_FILE.fullmatch(name) is not None


def broken_plates(entries: dict[str, dict[str, Any]]) -> list[str]:
    """The plates of ``entries`` that do not hold exactly the parts listed beside them: a
    plate's ``inputs`` (each part it holds, with the sha256 it was made from) must all be
    listed with that sha256 (a plate without them, from an older manifest, cannot say)."""
    broken = []
    for f, e in entries.items():
        if f.endswith(".3mf"):
            inputs = e.get("inputs")
            if not isinstance(inputs, dict) or not inputs or any(
                    not isinstance(entries.get(part), dict) or entries[part].get("sha256") != sha
                    for part, sha in inputs.items()):
                broken.append(f)
    return sorted(broken)


def write_manifest(out_dir: Path, entries: dict[str, dict[str, Any]]) -> list[str]:
    """The manifest of ``entries``: the parts (STL) under ``assets``, the print plates (3MF) under
    ``plates``, the CAD files (STEP, glTF: ``build --step``) under ``cad``.

    A plate is made of its parts: a plate one of whose parts has left ``entries`` or
    changed there leaves them in this same write (it is taken out of ``entries``), and its
    file is removed after it (a kill in between leaves it unlisted, and the next build
    sweeps it: :func:`stratstone_cad.pipeline.plate_phase.sweep_unlisted_plates`). Returns
    the plates so taken out."""
    dropped = broken_plates(entries)
    for f in dropped:
        del entries[f]
    data: dict[str, Any] = {"format": MANIFEST_FORMAT, "version": 1,
                            "assets": [entries[k] for k in sorted(entries) if k.endswith(".stl")]}
    plates = [entries[k] for k in sorted(entries) if k.endswith(".3mf")]
    if plates:
        data["plates"] = plates
    cad = [entries[k] for k in sorted(entries) if k.endswith((".step", ".glb"))]
    if cad:  # build --step: a STEP file per part, each game's set as STEP and glTF
        data["cad"] = cad
    atomic_write(out_dir / MANIFEST, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())
    for f in dropped:
        with contextlib.suppress(OSError):
            (out_dir / f).unlink()
    return dropped


def described(entry: dict[str, Any], out: Output) -> dict[str, Any]:
    """A manifest entry with ``out``'s descriptive facts in place of the ones it had (a
    file's info keys are the same at every build: the file's name says which map)."""
    return {**entry, "count": out.count, "printer": out.printer, "plate": out.plate or None, **(out.info or {})}


def assets_for(out_dir: Path, game: str | None = None) -> list[dict[str, Any]]:
    """The manifest's parts (of one game), for tests and the viewer."""
    return [e for f, e in read_manifest(Path(out_dir)).items()
            if f.endswith(".stl") and (game is None or e["game"] == game)]
