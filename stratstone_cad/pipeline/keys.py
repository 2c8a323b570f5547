"""The cache key of a part: everything its files are made from, and nothing else.

The key is derived, never listed by hand: the job's arguments (everything its CAD
function is given: its parameters, print profile, tile plan), the mesh settings, and the
source of every module of this package that the CAD function and the mesh writers import
(found by reading their imports, :mod:`stratstone_cad.base.codeprint`), with the versions of
the libraries that shape a part's bytes (:data:`KERNEL_DISTS`). So a change to one game's
CAD code rebuilds that game's parts only. Kept apart from the build (:mod:`stratstone_cad.pipeline.build`) as pure Python that
the mutation tests reach (docs/testing.md).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
from typing import TYPE_CHECKING, Any

from stratstone_cad.assets.jobs import Job
from stratstone_cad.base.codeprint import KERNEL_DISTS, PACKAGE_DIR, code_closure, code_fingerprint, plain
from stratstone_cad.base.memo import remembered

if TYPE_CHECKING:
    from stratstone_cad.base.params import Profile
    from stratstone_cad.registry import ParamSet

__all__ = ["ENTRY_FORMAT", "KERNEL_DISTS", "PACKAGE_DIR", "WRITER_MODULES", "code_closure", "code_fingerprint", "job_key",
           "job_roots", "plain"]

#: What run_job runs besides the maker: tessellation, mesh checks, the STL writer.
WRITER_MODULES = ("stratstone_cad.occ.tessellate", "stratstone_cad.printing.checks", "stratstone_cad.printing.stl")
#: Bumped when the manifest entry written for a part changes shape.
ENTRY_FORMAT = 2

#: Output fields that describe a file without changing it (how many copies to print, the
#: printer a tile plan was made for, where a heightmap was read): left out of the key,
#: so a cached file gets them afresh from the plan (see :func:`described`).
_DESCRIPTIVE = ("count", "printer", "info", "plate", "adaptive")


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
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=plain).encode()).hexdigest()


def _kernel_free(job: Job) -> bool:
    """Whether a job's CAD function builds meshes without CadQuery (see jobs.kernel_free).

    Remembered (:mod:`stratstone_cad.base.memo`) under the maker's name and its module's code:
    the answer takes importing the CAD module, which loads shapely and numpy, and an
    unchanged rebuild keys every job."""
    module, func = job.maker.split(":")
    return bool(remembered("kernel free", (module,), job.maker,
                           lambda: bool(getattr(getattr(importlib.import_module(module), func), "kernel_free", False))))
