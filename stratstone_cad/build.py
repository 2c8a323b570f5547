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
import contextlib
import dataclasses
import fcntl
import hashlib
import importlib
import json
import math
import multiprocessing
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO

from .catalog import Game, Job, Output, get_games
from .errors import GeometryError, OutputError, UserError
from .fileio import atomic_write, ensure_writable_dir
from .params import ParamSet, Printer, Profile, get_printer, load_params, load_profiles

MANIFEST = "manifest.json"
LOCK = ".stratstone-cad.lock"
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


def job_key(job: Job, ps: ParamSet, profiles: dict[str, Profile], code: str) -> str:
    """sha256 of everything a job's files are made from (and nothing else, so an
    unrelated change rebuilds nothing)."""
    data = {
        "job": job.id, "maker": job.maker, "args": job.args, "depends": job.depends,
        "mesh": ps.mesh.as_dict(),
        "profiles": {o.profile: vars(profiles[o.profile]) for o in job.outputs},
        "outputs": [o.file for o in job.outputs],
        "code": code,
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=_plain).encode()).hexdigest()


def _plain(o: Any) -> Any:
    """JSON form of the dataclasses in job arguments (a tile plan)."""
    if dataclasses.is_dataclass(o) and not isinstance(o, type):
        return dataclasses.asdict(o)
    raise TypeError(f"cannot key {type(o).__name__}")


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
            return {a["file"]: a for a in data["assets"] if isinstance(a, dict) and _our_file(a.get("file"))}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return {}


_OUR_FILE = re.compile(r"[a-z][a-z0-9-]*/[a-z0-9][a-z0-9_-]*\.stl")


def _our_file(name: Any) -> bool:
    """Whether a manifest's file name is one the build writes: ``game/part.stl``,
    never an absolute path or one that leaves the output folder (the build deletes
    stale files by these names, so a damaged manifest must not point elsewhere)."""
    return isinstance(name, str) and _OUR_FILE.fullmatch(name) is not None


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
    except Exception as e:  # the CAD kernel refused these parameters: say which part and why
        detail = " ".join(str(e).split()) or type(e).__name__
        raise GeometryError(f"{job.describe}: the CAD kernel cannot make this part ({type(e).__name__}: "
                            f"{detail[:200]})") from None
    if len(shapes) != len(job.outputs):
        raise RuntimeError(f"{job.id}: made {len(shapes)} parts for {len(job.outputs)} outputs")
    entries = []
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
            "printer": out.printer,
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

    def close(self) -> None:
        """End the bar's line if the build stopped before the bar was full."""
        if self.stream and self.tty and 0 < self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------- the build


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def build(games: list[str] | None = None, printer_name: str | None = None, out_dir: Path = Path("output"),
          jobs: int = 1, params_file: Path | None = None, sets: dict[str, str] | None = None,
          progress: TextIO | None = sys.stderr) -> BuildReport:
    """Build the assets of ``games`` (all when empty) into ``out_dir``.

    Everything the user gives is checked before anything is written: parameters,
    printer, games, the output folder. Raises UserError subclasses for those. More jobs
    than usable cores are not started (they only compete for the same cores).
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
    if (out_dir / MANIFEST).exists() and not (out_dir / MANIFEST).is_file():
        raise OutputError(f"manifest {out_dir / MANIFEST}: is not a file, expected the build's manifest")
    for sub in sorted({Path(o.file).parent for j in plan for o in j.outputs}):
        ensure_writable_dir(out_dir / sub)
    with _lock(out_dir):
        return _build_locked(out_dir, plan, chosen, ps, printer, profiles, min(jobs, usable_cores()), progress, start)


@contextlib.contextmanager
def _lock(out_dir: Path) -> Iterator[None]:
    """One build at a time in a folder: a second one would mix its files into the first's."""
    try:
        fd = os.open(out_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise OutputError(f"output folder {out_dir}: cannot lock ({e.strerror})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(f"output folder {out_dir}: another stratstone-cad build is writing to it; "
                              "wait for it or use another --out") from None
        yield
    finally:
        os.close(fd)


def _build_locked(out_dir: Path, plan: list[Job], chosen: list[Game], ps: ParamSet, printer: Printer,
                  profiles: dict[str, Profile], jobs: int, progress: TextIO | None, start: float) -> BuildReport:
    old = read_manifest(out_dir)
    code = code_fingerprint()
    report = BuildReport(out_dir)
    entries = dict(old)
    todo: list[tuple[Job, str]] = []
    for job in plan:
        key = job_key(job, ps, profiles, code)
        fresh = all(
            o.file in old and old[o.file].get("key") == key
            and sha256_file(out_dir / o.file) == old[o.file].get("sha256")
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
    finally:
        bar.close()
    if error is None:
        report.removed = _remove_stale(out_dir, plan, chosen, old, entries)
    write_manifest(out_dir, entries)
    if error is not None:
        raise error
    report.seconds = time.perf_counter() - start
    return report


def _remove_stale(out_dir: Path, plan: list[Job], chosen: list[Game], old: dict[str, dict[str, Any]],
                  entries: dict[str, dict[str, Any]]) -> list[str]:
    """Delete the built games' files that the plan no longer makes (another printer's
    tiles, a renamed colour): those the old manifest lists, and any other STL in the
    games' folders (found even when the manifest was lost). Only names the build
    itself writes are touched. After a failed build nothing is deleted and the old
    entries stay listed, so the next build removes them."""
    planned = {o.file for j in plan for o in j.outputs}
    names = {g.name for g in chosen}
    stale = {f for f, e in old.items() if e.get("game") in names and f not in planned}
    for game in names:
        folder = out_dir / game
        if folder.is_dir():
            stale |= {f"{game}/{p.name}" for p in folder.glob("*.stl") if p.is_file()} - planned
    removed = []
    for f in sorted(x for x in stale if _our_file(x)):
        try:
            (out_dir / f).unlink()
            removed.append(f)
        except FileNotFoundError:
            pass
        except OSError as ex:
            raise OutputError(f"stale file {out_dir / f}: cannot remove ({ex.strerror})") from None
        entries.pop(f, None)
    return removed


def _ignore_sigint() -> None:
    """Workers ignore Ctrl-C: the main process stops the build and lets running parts finish."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_all(todo: list[tuple[Job, str]], ps: ParamSet, printer: Printer, profiles: dict[str, Profile],
             out_dir: Path, jobs: int, bar: Progress) -> Iterator[list[dict[str, Any]]]:
    """Run the jobs, yielding each one's manifest entries as it finishes.

    On a failing part or Ctrl-C, parts not started are cancelled, parts already running
    finish (their files are whole and still reported), then the error is raised.
    """
    todo = sorted(todo, key=lambda jk: -jk[0].cost)  # longest first keeps both cores busy to the end
    if jobs == 1 or len(todo) <= 1:
        for job, key in todo:
            result = run_job(job, ps, printer, profiles, str(out_dir), key)
            bar.step(job.id, len(job.outputs))
            yield result
        return
    ctx = multiprocessing.get_context("spawn")
    pool = cf.ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx, initializer=_ignore_sigint)
    futures: dict[cf.Future, Job] = {}
    reported: set[cf.Future] = set()
    error: BaseException | None = None
    try:
        futures = {pool.submit(run_job, job, ps, printer, profiles, str(out_dir), key): job for job, key in todo}
        for fut in cf.as_completed(futures):
            try:
                result = fut.result()
            except cf.CancelledError:
                continue
            except BaseException as e:
                if error is None:
                    error = e
                    # Cancel each pending future itself: the pool then reports them to
                    # as_completed as it skips them (shutdown(cancel_futures=True) would
                    # cancel them behind as_completed's back and leave it waiting forever).
                    for f in futures:
                        f.cancel()
                continue
            reported.add(fut)
            job = futures[fut]
            bar.step(job.id, len(job.outputs))
            yield result
    except KeyboardInterrupt as e:
        error = e
        pool.shutdown(wait=False, cancel_futures=True)
        for fut in futures:  # parts already running finish; list them too
            if fut in reported or fut.cancelled():
                continue
            try:
                result = fut.result()
            except BaseException:
                continue
            yield result
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if error is not None:
        raise error


def assets_for(out_dir: Path, game: str | None = None) -> list[dict[str, Any]]:
    """The manifest's entries (of one game), for tests and the viewer."""
    return [e for e in read_manifest(Path(out_dir)).values() if game is None or e["game"] == game]


__all__ = ["BuildReport", "Output", "assets_for", "build", "read_manifest"]
