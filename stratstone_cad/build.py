"""The build pipeline: plan the assets, skip what is cached, make the rest in parallel,
check and write every mesh, and keep output/manifest.json.

The cache is the manifest itself: each asset's entry holds the key of everything it
was made from (its parameters, the mesh tolerance, the print profile, the printer
when it matters, the package's CAD and mesh code, the CadQuery/OCP versions) and the
sha256 of the file. An asset whose key is unchanged and whose file still has that
sha256 is not rebuilt, and the unchanged rebuild never imports CadQuery.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import importlib
import json
import multiprocessing
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO

from .catalog import Job, Output, get_games
from .errors import OutputError, UserError
from .fileio import atomic_write, ensure_writable_dir
from .params import ParamSet, Printer, Profile, get_printer, load_params, load_profiles

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "stratstone-cad/manifest"
PACKAGE_DIR = Path(__file__).resolve().parent
# Code whose change must invalidate the cache (the games/ and viewer/ layers cannot
# change a printed file).
_CODE = ("cad", "mesh", "params.py", "catalog.py", "build.py", "fileio.py")


@dataclass
class BuildReport:
    """What a build did: assets written, assets found cached, stale files removed."""

    out_dir: Path
    built: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        total = len(self.built) + len(self.cached)
        return (f"{total} assets in {self.out_dir}: {len(self.built)} built, {len(self.cached)} cached"
                + (f", {len(self.removed)} stale removed" if self.removed else "")
                + f" ({self.seconds:.1f} s); manifest {self.out_dir / MANIFEST}")


def code_fingerprint() -> str:
    """sha256 over the package's CAD/mesh code and the CAD kernel's versions."""
    h = hashlib.sha256()
    for name in _CODE:
        p = PACKAGE_DIR / name
        for f in sorted(p.rglob("*.py")) if p.is_dir() else [p]:
            h.update(f.relative_to(PACKAGE_DIR).as_posix().encode())
            h.update(f.read_bytes())
    for dist in ("cadquery", "cadquery-ocp", "shapely"):
        try:
            h.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=none".encode())
    return h.hexdigest()


def job_key(job: Job, ps: ParamSet, printer: Printer, profiles: dict[str, Profile], code: str) -> str:
    data = {
        "job": job.id, "maker": job.maker, "args": job.args,
        "params": {s: ps.section(s) for s in job.sections},
        "mesh": ps.mesh.as_dict(),
        "profiles": {o.profile: vars(profiles[o.profile]) for o in job.outputs},
        "printer": vars(printer) if job.uses_printer else None,
        "outputs": [o.file for o in job.outputs],
        "code": code,
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def sha256_file(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def read_manifest(out_dir: Path) -> dict[str, dict[str, Any]]:
    """Entries of an existing manifest by file; an unreadable manifest counts as empty."""
    try:
        data = json.loads((out_dir / MANIFEST).read_text("utf-8"))
        if data.get("format") == MANIFEST_FORMAT:
            return {a["file"]: a for a in data["assets"]}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return {}


def write_manifest(out_dir: Path, entries: dict[str, dict[str, Any]]) -> None:
    data = {"format": MANIFEST_FORMAT, "version": 1, "assets": [entries[k] for k in sorted(entries)]}
    atomic_write(out_dir / MANIFEST, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())


# --------------------------------------------------------------------------- worker side


def run_job(job: Job, ps: ParamSet, printer: Printer, profiles: dict[str, Profile], out_dir: str,
            key: str) -> list[dict[str, Any]]:
    """Make a job's parts, check and write each; returns their manifest entries.

    Runs in a worker process (or in-process with one job). Raises UserError (for
    example GeometryError) with a message that names the part and its parameters.
    """
    from .mesh.checks import check_mesh, mesh_facts
    from .mesh.stl import write_stl
    from .mesh.tessellate import tessellate

    module, func = job.maker.split(":")
    maker: Callable[..., list[Any]] = getattr(importlib.import_module(module), func)
    try:
        shapes = maker(ps, printer, profiles, **job.args)
    except UserError as e:
        raise type(e)(f"{job.describe}: {e}") from None
    if len(shapes) != len(job.outputs):
        raise RuntimeError(f"{job.id}: made {len(shapes)} parts for {len(job.outputs)} outputs")
    entries = []
    import math

    for shape, out in zip(shapes, job.outputs, strict=True):
        mesh = tessellate(shape, ps.mesh.tolerance_mm, math.radians(ps.mesh.angular_tolerance_deg))
        name = Path(out.file).stem
        check_mesh(mesh, job.describe if job.describe.startswith(name) else f"{name} of the {job.describe}")
        data = write_stl(Path(out_dir) / out.file, mesh, name)
        prof = profiles[out.profile]
        entry = {
            "file": out.file, "game": out.game, "part": out.part, "colour": out.colour, "index": out.index,
            "of": out.of, "profile": {"name": prof.name, "layer_height_mm": prof.layer_height_mm,
                                      "first_layer_height_mm": prof.first_layer_height_mm},
            "printer": printer.name if job.uses_printer else None,
            "sha256": hashlib.sha256(data).hexdigest(), "key": key,
        }
        entry.update(mesh_facts(mesh))
        entries.append(entry)
    return entries


# --------------------------------------------------------------------------- progress


class Progress:
    """A progress bar on a terminal; one line per finished part elsewhere."""

    def __init__(self, total: int, stream: TextIO | None, width: int = 30) -> None:
        self.total, self.done, self.stream, self.width = total, 0, stream, width
        self.tty = bool(stream and hasattr(stream, "isatty") and stream.isatty())

    def step(self, label: str, n: int = 1) -> None:
        self.done += n
        if not self.stream:
            return
        if self.tty:
            fill = int(self.width * self.done / max(self.total, 1))
            bar = "#" * fill + "-" * (self.width - fill)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label:<32.32}")
            if self.done >= self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"[{self.done}/{self.total}] {label}\n")
        self.stream.flush()


# --------------------------------------------------------------------------- the build


def build(games: list[str] | None = None, printer_name: str | None = None, out_dir: Path = Path("output"),
          jobs: int = 1, params_file: Path | None = None, sets: dict[str, str] | None = None,
          progress: TextIO | None = sys.stderr) -> BuildReport:
    """Build the assets of ``games`` (all when empty) into ``out_dir``.

    Everything the user gives is checked before anything is written: parameters,
    printer, games, the output folder. Raises UserError subclasses for those.
    """
    start = time.perf_counter()
    if jobs < 1:
        raise UserError(f"--jobs {jobs}: expected a number of parallel jobs of at least 1")
    ps = load_params(params_file, sets)
    printer = get_printer(printer_name)
    profiles = load_profiles()
    chosen = get_games(games)
    plan: list[Job] = [j for g in chosen for j in g.plan(ps, printer)]
    out_dir = ensure_writable_dir(Path(out_dir))
    for sub in sorted({Path(o.file).parent for j in plan for o in j.outputs}):
        ensure_writable_dir(out_dir / sub)

    old = read_manifest(out_dir)
    code = code_fingerprint()
    report = BuildReport(out_dir)
    entries = dict(old)
    todo: list[tuple[Job, str]] = []
    for job in plan:
        key = job_key(job, ps, printer, profiles, code)
        fresh = all(
            o.file in old and old[o.file].get("key") == key and sha256_file(out_dir / o.file) == old[o.file].get("sha256")
            for o in job.outputs)
        if fresh:
            report.cached += [o.file for o in job.outputs]
        else:
            todo.append((job, key))

    bar = Progress(sum(len(j.outputs) for j, _ in todo), progress if todo else None)
    error: BaseException | None = None
    try:
        for job_entries in _run_all(todo, ps, printer, profiles, out_dir, jobs, bar):
            for e in job_entries:
                entries[e["file"]] = e
                report.built.append(e["file"])
    except BaseException as e:  # keep what finished in the manifest, then re-raise
        error = e
    # Files of the built games that the new plan no longer makes (e.g. a different tile count).
    planned = {o.file for j in plan for o in j.outputs}
    built_games = {g.name for g in chosen}
    for f, e in sorted(old.items()):
        if e.get("game") in built_games and f not in planned:
            entries.pop(f, None)
            if error is None:
                try:
                    (out_dir / f).unlink()
                    report.removed.append(f)
                except FileNotFoundError:
                    pass
                except OSError as ex:
                    raise OutputError(f"stale file {out_dir / f}: cannot remove ({ex.strerror})") from None
    write_manifest(out_dir, entries)
    if error is not None:
        raise error
    report.seconds = time.perf_counter() - start
    return report


def _run_all(todo: list[tuple[Job, str]], ps: ParamSet, printer: Printer, profiles: dict[str, Profile],
             out_dir: Path, jobs: int, bar: Progress):
    todo = sorted(todo, key=lambda jk: -jk[0].cost)  # longest first keeps both cores busy to the end
    if jobs == 1 or len(todo) <= 1:
        for job, key in todo:
            result = run_job(job, ps, printer, profiles, str(out_dir), key)
            bar.step(job.id, len(job.outputs))
            yield result
        return
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx) as pool:
        futures = {pool.submit(run_job, job, ps, printer, profiles, str(out_dir), key): job for job, key in todo}
        error: BaseException | None = None
        for fut in cf.as_completed(futures):
            try:
                result = fut.result()
            except cf.CancelledError:
                continue
            except BaseException as e:
                # Stop: cancel what has not started; the jobs already running finish,
                # and their files are listed in the manifest like every finished part.
                if error is None:
                    error = e
                    for f in futures:
                        f.cancel()
                continue
            job = futures[fut]
            bar.step(job.id, len(job.outputs))
            yield result
        if error is not None:
            raise error


def assets_for(out_dir: Path, game: str | None = None) -> list[dict[str, Any]]:
    """The manifest's entries (of one game), for tests and the viewer."""
    return [e for e in read_manifest(Path(out_dir)).values() if game is None or e["game"] == game]


__all__ = ["BuildReport", "Output", "assets_for", "build", "read_manifest"]
