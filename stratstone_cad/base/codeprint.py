"""The fingerprint of this package's code: which of its modules a module imports, and a
hash of their source with the versions of the libraries that shape the parts.

Used by a part's cache key (:mod:`stratstone_cad.pipeline.keys`) and by the memo of checks and
plans (:mod:`stratstone_cad.base.memo`). It imports nothing of this package, so that a module
that uses it (the parameters, through the memo) does not bring other modules' code into
every key.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["KERNEL_DISTS", "PACKAGE", "PACKAGE_DIR", "code_closure", "code_fingerprint", "forget_code", "plain"]

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # stratstone_cad/
PACKAGE = __name__.split(".")[0]

#: Distributions whose version can change a part's geometry or bytes.
KERNEL_DISTS = ("cadquery", "cadquery-ocp", "manifold3d", "shapely", "hershey-fonts", "numpy")


@functools.cache
def _module_path(name: str) -> Path | None:
    """The source file of a module of this package, or None (not ours, or not a file)."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    parts = name.split(".")[1:]  # none for the package itself: its __init__
    module = [PACKAGE_DIR.joinpath(*parts[:-1], parts[-1] + ".py")] if parts else []
    for p in (*module, PACKAGE_DIR.joinpath(*parts, "__init__.py")):
        if p.is_file():
            return p
    return None


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]+))",
                     re.MULTILINE)


@functools.cache
def _imports(name: str) -> tuple[str, ...]:
    """The modules of this package that module ``name`` imports (anywhere in it: a CAD
    module imports CadQuery helpers inside functions), read from its source.

    A regular expression over the import statements rather than a parse of the module:
    it is ten times faster (an unchanged rebuild reads every module) and can only find
    more imports than there are (one quoted in a docstring), which makes a key stricter,
    never looser.
    """
    path = _module_path(name)
    if path is None:
        return ()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for base, names, plain in _IMPORT.findall(path.read_text("utf-8")):
        if plain:
            found |= {n.split(" as ")[0].strip() for n in plain.split(",")}
            continue
        level = len(base) - len(base.lstrip("."))
        module = base[level:]
        if level:
            parts = package.split(".")
            parts = parts[: len(parts) - level + 1]
            module = ".".join(parts + ([module] if module else []))
        found.add(module)
        # "from .pkg import mod" imports the module pkg.mod when there is one
        for n in names.strip("()").replace("\n", " ").split(","):
            n = n.split(" as ")[0].split("#")[0].strip()
            if n and _module_path(f"{module}.{n}"):
                found.add(f"{module}.{n}")
    return tuple(sorted(m for m in found if _module_path(m)))


def code_closure(roots: list[str]) -> list[Path]:
    """The source files of ``roots`` and of every module of this package they import,
    transitively. A package's ``__init__`` counts only when it is imported by name."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo += _imports(m)
    return sorted({p for m in seen if (p := _module_path(m)) is not None})


@functools.cache
def code_fingerprint(roots: tuple[str, ...]) -> str:
    """sha256 over the source of the code a job runs (see :func:`code_closure`) and the
    versions of the CAD kernel, the 2D geometry library and the engraving font."""
    h = hashlib.sha256()
    for f in code_closure(list(roots)):
        h.update(f.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        h.update(_source_digest(f))
    h.update(_kernel_versions().encode())
    return h.hexdigest()


@functools.cache
def _source_digest(path: Path) -> bytes:
    """sha256 of a module's source, read once a process (an unchanged rebuild fingerprints
    a dozen overlapping sets of modules)."""
    return hashlib.sha256(path.read_bytes()).digest()


def forget_code() -> None:
    """Forget the source read so far (for the tests, which change a module's source)."""
    for cached in (_module_path, _imports, code_fingerprint, _source_digest):
        cached.cache_clear()


@functools.cache
def _kernel_versions() -> str:
    """``cadquery=2.8.0 ...``: once a process (each version is a millisecond or two to look up,
    and an unchanged rebuild keys every game's code)."""
    out = []
    for dist in KERNEL_DISTS:
        try:
            out.append(f"{dist}={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            out.append(f"{dist}=none")
    return "".join(out)


def plain(o: Any) -> Any:
    """JSON form of the dataclasses in job arguments (parameters, a tile plan), named by
    their class so two kinds of argument with equal fields never share a key."""
    if dataclasses.is_dataclass(o) and not isinstance(o, type):
        return {"class": f"{type(o).__module__}.{type(o).__qualname__}",
                **{f.name: getattr(o, f.name) for f in dataclasses.fields(o)}}
    raise TypeError(f"cannot key {type(o).__name__}")
