"""The cache key of a part: everything its files are made from, and nothing else.

The key is derived, never listed by hand: the job's arguments (everything its CAD
function is given: its parameters, print profile, tile plan), the mesh settings, and the
source of every module of this package that the CAD function and the mesh writers import
(found by reading their imports), with the versions of the libraries that shape a part's
bytes (:data:`KERNEL_DISTS`). So a change to one game's CAD code rebuilds that game's
parts only. Kept apart from the build (:mod:`stratstone_cad.build`) as pure Python that
the mutation tests reach (docs/testing.md).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import json
import re
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .jobs import Job

if TYPE_CHECKING:
    from .catalog import ParamSet
    from .params import Profile

__all__ = ["ENTRY_FORMAT", "KERNEL_DISTS", "WRITER_MODULES", "code_closure", "code_fingerprint", "job_key", "job_roots"]

PACKAGE_DIR = Path(__file__).resolve().parent
PACKAGE = __package__ or "stratstone_cad"
#: What run_job runs besides the maker: tessellation, mesh checks, the STL writer.
WRITER_MODULES = ("stratstone_cad.mesh.tessellate", "stratstone_cad.mesh.checks", "stratstone_cad.mesh.stl")
#: Distributions whose version can change a part's geometry or bytes.
KERNEL_DISTS = ("cadquery", "cadquery-ocp", "manifold3d", "shapely", "hershey-fonts", "numpy")
#: Bumped when the manifest entry written for a part changes shape.
ENTRY_FORMAT = 2

#: Output fields that describe a file without changing it (how many copies to print, the
#: printer a tile plan was made for, where a heightmap was read): left out of the key,
#: so a cached file gets them afresh from the plan (see :func:`described`).
_DESCRIPTIVE = ("count", "printer", "info", "plate", "adaptive")


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
def code_fingerprint(roots: tuple[str, ...] = WRITER_MODULES) -> str:
    """sha256 over the source of the code a job runs (see :func:`code_closure`) and the
    versions of the CAD kernel, the 2D geometry library and the engraving font."""
    h = hashlib.sha256()
    for f in code_closure(list(roots)):
        h.update(f.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        h.update(f.read_bytes())
    h.update(_kernel_versions().encode())
    return h.hexdigest()


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


def _arg_modules(value: Any) -> set[str]:
    """Modules defining the dataclasses in a job's arguments: their methods (a grid's
    cell centres, a board's labels) are code the CAD function runs."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {type(value).__module__}
        for f in dataclasses.fields(value):
            out |= _arg_modules(getattr(value, f.name))
        return out
    if isinstance(value, dict):
        return set().union(*(_arg_modules(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_arg_modules(v) for v in value)) if value else set()
    return set()


def job_roots(job: Job) -> tuple[str, ...]:
    """The modules whose code can change a job's files: its maker's, its arguments'
    classes' and the writers'."""
    return tuple(sorted({job.maker.split(":")[0], *_arg_modules(job.args), *WRITER_MODULES}))


def job_key(job: Job, ps: ParamSet, profiles: dict[str, Profile]) -> str:
    """sha256 of everything a job's files are made from, and nothing else: what its CAD
    function is given, the mesh settings, its outputs and their profiles, and its code."""
    data = {
        "job": job.id, "maker": job.maker, "args": job.args,
        # a CadQuery part is meshed here with these settings; a kernel-free maker gets
        # what it uses of them in its args
        "mesh": None if _kernel_free(job) else ps.mesh.as_dict(),
        "outputs": [{k: v for k, v in dataclasses.asdict(o).items() if k not in _DESCRIPTIVE} for o in job.outputs],
        "profiles": {o.profile: vars(profiles[o.profile]) for o in job.outputs},
        "code": code_fingerprint(job_roots(job)),
        "entry": ENTRY_FORMAT,
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=_plain).encode()).hexdigest()


def _plain(o: Any) -> Any:
    """JSON form of the dataclasses in job arguments (parameters, a tile plan), named by
    their class so two kinds of argument with equal fields never share a key."""
    if dataclasses.is_dataclass(o) and not isinstance(o, type):
        return {"class": f"{type(o).__module__}.{type(o).__qualname__}",
                **{f.name: getattr(o, f.name) for f in dataclasses.fields(o)}}
    raise TypeError(f"cannot key {type(o).__name__}")


def _kernel_free(job: Job) -> bool:
    """Whether a job's CAD function builds meshes without CadQuery (see jobs.kernel_free)."""
    module, func = job.maker.split(":")
    return bool(getattr(getattr(importlib.import_module(module), func), "kernel_free", False))
