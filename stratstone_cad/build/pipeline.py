"""The build pipeline: plan the assets, skip what is cached, make the rest in parallel,
check and write every mesh, and keep output/manifest.json.

The cache is the manifest itself: each asset's entry holds the key of everything it
was made from (derived, never listed by hand: :mod:`stratstone_cad.build.keys`) and the
sha256 of the file. An asset whose key is unchanged and whose file still has that
sha256 is not rebuilt, and the unchanged rebuild never imports CadQuery.

Workers: with more than one job, the CadQuery parts are made by worker processes forked
from a fork server that imports CadQuery once (see :func:`_pool`), and the parts made
without CadQuery are made by the build itself meanwhile. A worker dies with the build
(the kernel kills it when its parent goes, whatever the signal).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib
import json
import math
import os
import re
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from stratstone_cad.base.fileio import (
    atomic_write,
    atomic_write_all,
    describe_os_error,
    ensure_writable_dir,
    kind_of,
    sweep_temporary,
    write_target,
)
from stratstone_cad.base.params import MeshParams, Profile, get_printer, load_colours, load_profiles
from stratstone_cad.build.keys import WRITER_MODULES, _kernel_free, code_fingerprint, job_key
from stratstone_cad.errors import BuildError, GeometryError, OutputError, UserError
from stratstone_cad.printing.jobs import GameAssets, Job, Output
from stratstone_cad.registry import GAMES, ParamSet, get_games, load_params

MANIFEST = "manifest.json"
REPORT = "print-report.md"
LOCK = ".stratstone-cad.lock"
MANIFEST_FORMAT = "stratstone-cad/manifest"
MANIFEST_MAX_BYTES = 64 << 20  # a manifest of a few hundred parts is well under 1 MiB

if TYPE_CHECKING:  # the pools' modules are imported where a pool is made: an unchanged rebuild has none
    import concurrent.futures as cf


@dataclass
class BuildReport:
    """What a build did: assets written, assets found cached, stale files removed."""

    out_dir: Path
    built: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    swept: list[str] = field(default_factory=list)  # temporary files a killed build left
    plates_built: list[str] = field(default_factory=list)
    plates_cached: list[str] = field(default_factory=list)
    sliced: list[str] = field(default_factory=list)  # plates PrusaSlicer estimated in this build
    report_file: Path | None = None
    seconds: float = 0.0

    def summary(self) -> str:
        total = len(self.built) + len(self.cached)
        plates = len(self.plates_built) + len(self.plates_cached)
        return (f"{total} assets in {self.out_dir}: {len(self.built)} built, {len(self.cached)} cached"
                + (f"; {plates} plates: {len(self.plates_built)} written, {len(self.plates_cached)} cached"
                   if plates else "")
                + (f", {len(self.removed)} stale removed" if self.removed else "")
                + (f", {len(self.swept)} temporary files of an interrupted build removed" if self.swept else "")
                + (f"; {len(self.sliced)} plates sliced for the print report" if self.sliced else "")
                + (f"; print report {self.report_file}" if self.report_file else "")
                + f" ({self.seconds:.1f} s); manifest {self.out_dir / MANIFEST}")


def sha256_file(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def read_manifest(out_dir: Path) -> dict[str, dict[str, Any]]:
    """Entries of an existing manifest by file; a damaged or unreadable manifest counts as
    empty (nesting too deep for the parser, a huge file, not a regular file), so the
    build makes everything again and writes a sound one."""
    path = out_dir / MANIFEST
    try:
        if not path.is_file() or path.stat().st_size > MANIFEST_MAX_BYTES:
            return {}
        data = json.loads(path.read_text("utf-8"))
        if data.get("format") == MANIFEST_FORMAT:
            listed = [*data["assets"], *data.get("plates", [])]
            return {a["file"]: a for a in listed if isinstance(a, dict) and _our_file(a.get("file"))}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        pass
    return {}


_OUR_FILE = re.compile(r"[a-z][a-z0-9-]*/[a-z0-9][a-z0-9_-]*\.(?:stl|3mf)")


def _our_file(name: Any) -> bool:
    """Whether a manifest's file name is one the build writes: ``game/part.stl`` or ``game/plate.3mf``,
    never an absolute path or one that leaves the output folder (the build deletes
    stale files by these names, so a damaged manifest must not point elsewhere)."""
    return isinstance(name, str) and _OUR_FILE.fullmatch(name) is not None


def write_manifest(out_dir: Path, entries: dict[str, dict[str, Any]]) -> None:
    """The manifest of ``entries``: the parts (STL) under ``assets``, the print plates (3MF) under ``plates``."""
    data: dict[str, Any] = {"format": MANIFEST_FORMAT, "version": 1,
                            "assets": [entries[k] for k in sorted(entries) if k.endswith(".stl")]}
    plates = [entries[k] for k in sorted(entries) if k.endswith(".3mf")]
    if plates:
        data["plates"] = plates
    atomic_write(out_dir / MANIFEST, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())


# --------------------------------------------------------------------------- worker side


def run_job(job: Job, mesh_params: MeshParams, profiles: dict[str, Profile], out_dir: str,
            key: str) -> list[dict[str, Any]]:
    """Make a job's parts, check and write each; returns their manifest entries.

    Runs in a worker process (or in-process with one job). The CAD function is given
    ``job.args`` and nothing else. Raises UserError (for example GeometryError) with a
    message that names the part and its parameters.
    """
    from stratstone_cad.printing.checks import Mesh, check_mesh, mesh_facts
    from stratstone_cad.printing.stl import stl_bytes

    module, func = job.maker.split(":")
    maker: Callable[..., list[Any]] = getattr(importlib.import_module(module), func)
    try:
        shapes = maker(**job.args)
    except UserError as e:
        raise type(e)(f"{job.describe}: {e}") from None
    except Exception as e:  # the CAD kernel refused these parameters: say which part and why
        detail = " ".join(str(e).split()) or type(e).__name__
        raise GeometryError(f"{job.describe}: the CAD kernel cannot make this part ({type(e).__name__}: "
                            f"{detail[:200]})") from None
    if len(shapes) != len(job.outputs):
        raise RuntimeError(f"{job.id}: made {len(shapes)} parts for {len(job.outputs)} outputs")
    entries, files = [], []
    for shape, out in zip(shapes, job.outputs, strict=True):
        if isinstance(shape, Mesh):  # a board: meshed from its stack of 2D regions by the maker
            mesh = shape
        else:
            from stratstone_cad.occ.tessellate import tessellate  # CadQuery: only where a CadQuery part is made

            mesh = tessellate(shape, mesh_params.tolerance_mm, math.radians(mesh_params.angular_tolerance_deg))
        name = Path(out.file).stem
        check_mesh(mesh, job.describe if job.describe.startswith(name) else f"{name} of the {job.describe}")
        data = stl_bytes(mesh, name)
        files.append((Path(out_dir) / out.file, data))
        prof = profiles[out.profile]
        entry = {
            "file": out.file, "game": out.game, "part": out.part, "colour": out.colour, "index": out.index,
            "of": out.of,
            "profile": {"name": prof.name, "layer_height_mm": prof.layer_height_mm,
                        "first_layer_height_mm": prof.first_layer_height_mm},
            "sha256": hashlib.sha256(data).hexdigest(), "key": key,
            **mesh_facts(mesh),
        }
        entries.append(described(entry, out))
    # A job's files are written all or none, after every one is checked: a board's tiles
    # are one part (one key), and a stop or a failing check part-way must not leave some
    # of them on disk that no manifest lists.
    atomic_write_all(files)
    return entries


def described(entry: dict[str, Any], out: Output) -> dict[str, Any]:
    """A manifest entry with ``out``'s descriptive facts in place of the ones it had (a
    file's info keys are the same at every build: the file's name says which map)."""
    return {**entry, "count": out.count, "printer": out.printer, "plate": out.plate or None, **(out.info or {})}


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
          progress: TextIO | None = sys.stderr, plates: bool = False, slice_plates: bool = True) -> BuildReport:
    """Build the assets of ``games`` (all when empty) into ``out_dir``; with ``plates``,
    their print plates too (one 3MF per print job and bed: :mod:`stratstone_cad.printing.plating`)
    and ``print-report.md``, with PrusaSlicer's print time and filament of each plate when
    ``slice_plates`` and PrusaSlicer is installed (the figures are kept in the manifest
    with the plate's sha256, so an unchanged plate is not sliced again).

    Everything the user gives is checked before anything is written: parameters,
    printer, games, the output folder. Raises UserError subclasses for those. More jobs
    than usable cores are not started (they only compete for the same cores).
    """
    start = time.perf_counter()
    if jobs < 1:
        raise UserError(f"--jobs {jobs}: expected a number of parallel jobs of at least 1")
    if min(jobs, usable_cores()) > 1 and not os.path.exists(Path(out_dir) / MANIFEST):  # False on any OSError
        _start_fork_server()  # a first build into this folder will need CadQuery: load it while we plan
    chosen = get_games(games)
    ps = load_params(params_file, sets, games=[g.name for g in chosen])
    printer = get_printer(printer_name)
    profiles = load_profiles()
    colours = load_colours()  # the plates' display colours: checked before anything is written
    plan: list[Job] = [j for g in chosen for j in g.plan(ps.game(g.name), printer, profiles, ps.mesh)]
    room = max(len(os.fsencode(o.file)) for j in plan for o in j.outputs) + 20  # and its temporary name's .X.tmp
    out_dir = ensure_writable_dir(Path(out_dir), room=room)
    # A FIFO, a device or a link where the manifest or a part goes: refuse before writing anything.
    write_target(out_dir / MANIFEST, follow_symlinks=False)
    if plates:
        write_target(out_dir / REPORT, follow_symlinks=False)
    for o in (o for j in plan for o in j.outputs):
        write_target(out_dir / o.file, follow_symlinks=False)
    for sub in sorted({Path(o.file).parent for j in plan for o in j.outputs}):
        if (out_dir / sub).is_symlink():  # the build would write, and remove stale files, elsewhere
            raise OutputError(f"output folder {out_dir / sub}: is a symbolic link, expected a folder of this build")
        ensure_writable_dir(out_dir / sub)
    with _lock(out_dir):
        report = _build_locked(out_dir, plan, chosen, ps, profiles, min(jobs, usable_cores()), progress, start)
        planned = _plates(out_dir, plan, chosen, ps, printer, profiles, colours, plates, min(jobs, usable_cores()),
                          report)
        if planned is not None:  # with --plates: the plates planned and the manifest they are listed in
            _print_report(out_dir, *planned, ps, printer, slice_plates, progress, report)
        report.seconds = time.perf_counter() - start
        return report


@contextlib.contextmanager
def _lock(out_dir: Path) -> Iterator[None]:
    """One build at a time in a folder: a second one would mix its files into the first's."""
    if (out_dir / LOCK).is_symlink():
        raise OutputError(f"output folder {out_dir}: {LOCK} is a symbolic link, expected the build's lock file")
    try:
        fd = os.open(out_dir / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as e:
        raise OutputError(f"output folder {out_dir}: cannot lock {LOCK} ({describe_os_error(e)})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OutputError(f"output folder {out_dir}: {LOCK} is {kind_of(os.fstat(fd).st_mode)}, expected the "
                              "build's lock file")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(f"output folder {out_dir}: another stratstone-cad build is writing to it; "
                              "wait for it or use another --out") from None
        yield
    finally:
        os.close(fd)


def _build_locked(out_dir: Path, plan: list[Job], chosen: list[GameAssets], ps: ParamSet,
                  profiles: dict[str, Profile], jobs: int, progress: TextIO | None, start: float) -> BuildReport:
    old = read_manifest(out_dir)
    report = BuildReport(out_dir)
    entries = dict(old)
    todo: list[tuple[Job, str]] = []
    for job in plan:
        key = job_key(job, ps, profiles)
        fresh = all(
            o.file in old and old[o.file].get("key") == key
            and sha256_file(out_dir / o.file) == old[o.file].get("sha256")
            for o in job.outputs)
        if fresh:
            report.cached += [o.file for o in job.outputs]
            for o in job.outputs:
                entries[o.file] = described(old[o.file], o)
        else:
            todo.append((job, key))

    report.swept = _sweep_temporary(out_dir, chosen)
    # The manifest and the disk agree at every moment a kill can come: the outdated files
    # of the parts to make go first, with their entries, and each part joins the manifest
    # as soon as its files are written (only the parts being finished at a kill can be
    # on disk unlisted, with those the workers finished while this process made one of
    # its own: they are taken between its parts). What a killed build leaves unlisted,
    # the next build makes again or removes.
    outdated = [o.file for j, _ in todo for o in j.outputs if o.file in entries or (out_dir / o.file).exists()]
    if outdated:
        for f in outdated:
            entries.pop(f, None)
        write_manifest(out_dir, entries)  # the entries go first: a kill mid-way leaves files unlisted, never the reverse
        for f in outdated:
            with contextlib.suppress(FileNotFoundError):
                (out_dir / f).unlink()
    bar = Progress(sum(len(j.outputs) for j, _ in todo), progress if todo else None)
    error: BaseException | None = None

    def record(job_entries: list[dict[str, Any]]) -> None:
        for e in job_entries:
            if entries.get(e["file"]) is not e:
                entries[e["file"]] = e
                report.built.append(e["file"])
        write_manifest(out_dir, entries)

    runner = _run_all(todo, ps.mesh, profiles, out_dir, jobs, bar)
    try:
        _drain(runner, record)
    except BaseException as e:  # keep what finished in the manifest, then re-raise
        error = e
    finally:
        # A stop that escaped _drain without reaching the runner (between two of its
        # steps) closes it here: the pool is shut down, its running parts finish, before
        # the files nothing lists are removed below.
        late = _despite_stops(runner.close)
        error = error or late
        bar.close()

    def settle() -> None:
        write_manifest(out_dir, entries)
        if error is not None:
            # Files of this build's parts that no entry lists (a stop between a part's
            # files and its entries, or a part a worker finished after a second stop):
            # they go, and the manifest lists every part on disk.
            for f in (o.file for j, _ in todo for o in j.outputs if o.file not in entries):
                with contextlib.suppress(OSError):
                    (out_dir / f).unlink()

    late = _despite_stops(settle)
    error = error or late
    if error is not None:
        raise error
    report.removed = _remove_stale(out_dir, plan, chosen, old, entries)
    report.seconds = time.perf_counter() - start
    return report


def _drain(runner: Iterator[list[dict[str, Any]]], record: Callable[[list[dict[str, Any]]], None]) -> None:
    """Hand every result of ``runner`` to ``record``. A Ctrl-C or SIGTERM that lands while
    ``record`` writes the manifest is passed into the runner (once), which stops as it
    would have had the signal reached it: the parts still running finish, and those are
    recorded too (left to the generator's closing, they would be written but unlisted)."""
    interrupt: BaseException | None = None
    thrown = False
    while True:
        try:
            if interrupt is not None and not thrown:
                thrown = True
                item = runner.throw(interrupt)
            else:
                item = next(runner)
        except StopIteration:
            break
        try:
            record(item)
        except KeyboardInterrupt as e:
            interrupt = interrupt or e
            record(item)  # its entries and the manifest, once more: the signal may have cut them short
    if interrupt is not None:
        raise interrupt


def _sweep_temporary(out_dir: Path, chosen: list[GameAssets]) -> list[str]:
    """Remove the temporary files a killed build left (``.NAME.stl.XXXXXXXX.tmp``, named
    by :func:`~stratstone_cad.base.fileio.atomic_write`): only those names, only in the folders
    this build writes, and only while it holds the folder's lock, so no running build's
    file is touched."""
    names = r"[a-z0-9][a-z0-9_-]*\.(?:stl|3mf)|manifest\.json|print-report\.md"
    return [p.relative_to(out_dir).as_posix()
            for folder in (out_dir, *(out_dir / g.name for g in chosen)) for p in sweep_temporary(folder, names)]


def _remove_stale(out_dir: Path, plan: list[Job], chosen: list[GameAssets], old: dict[str, dict[str, Any]],
                  entries: dict[str, dict[str, Any]]) -> list[str]:
    """Delete the built games' files that the plan no longer makes (another printer's
    tiles, a renamed colour): those the old manifest lists, and any other file in the
    games' folders (found even when the manifest was lost) named as the game names its
    files (:meth:`GameAssets.owns`): a user's own ``notes.stl`` there stays. Their entries
    leave the manifest before the files go. After a failed build nothing is deleted and
    the old entries stay listed, so the next build removes them."""
    planned = {o.file for j in plan for o in j.outputs}
    stale = set()
    for game in chosen:
        stale |= {f for f, e in old.items() if e.get("game") == game.name and game.owns(f)}
        folder = out_dir / game.name
        if folder.is_dir() and not folder.is_symlink():
            stale |= {f"{game.name}/{p.name}" for p in folder.glob("*.stl")
                      if game.owns(f"{game.name}/{p.name}") and p.is_file() and not p.is_symlink()}
    stale = sorted(stale - planned)
    unlisted = [f for f in stale if entries.pop(f, None) is not None]
    if unlisted:
        write_manifest(out_dir, entries)  # unlisted first: a kill mid-way leaves files unlisted, never the reverse
    removed = []
    for f in stale:
        try:
            (out_dir / f).unlink()
            removed.append(f)
        except FileNotFoundError:
            pass
        except OSError as ex:
            raise OutputError(f"stale file {out_dir / f}: cannot remove ({describe_os_error(ex)})") from None
    return removed


def _worker_failure(e: BaseException) -> BaseException:
    """The error to raise for a failure in the worker pool: the part's own error (a
    ``UserError`` from a worker is the user's to fix) as it is, a dead worker or fork
    server as one line that says so, instead of a traceback from the pool's internals."""
    from concurrent.futures.process import BrokenProcessPool

    if isinstance(e, (UserError, KeyboardInterrupt)):
        return e
    if isinstance(e, (BrokenProcessPool, EOFError, ConnectionError)) or (
            isinstance(e, RuntimeError) and "shutdown" in str(e)):
        return BuildError("build: a worker process died before its parts were made (killed, or out of "
                          "memory?); the parts written so far are kept and listed: run the build again "
                          "to make the rest")
    return e


def _pool(workers: int) -> cf.ProcessPoolExecutor:
    """Worker processes forked from a fork server that has imported CadQuery, the makers'
    modules and the mesh writers once. Why a fork server and not plain fork: a process
    whose OpenCascade has run a boolean holds TBB worker threads, and a child forked from
    it hangs in its next boolean; the fork server is a fresh process that never builds
    anything. Why not spawn: each spawned worker would import CadQuery again (~1.5 s)."""
    import concurrent.futures as cf
    import multiprocessing

    from stratstone_cad.build.workers import worker_init

    ctx = multiprocessing.get_context("forkserver")
    return cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=worker_init)


_QUIET_TRACKER = "ignore::UserWarning:multiprocessing.resource_tracker"


def _start_fork_server() -> None:
    """Start the workers' fork server now, without waiting for it: it imports CadQuery, the
    CAD modules and the mesh writers in the background while the build plans and makes its
    CadQuery-free parts. (It ends with this process.)"""
    import multiprocessing
    from multiprocessing import forkserver

    from stratstone_cad.build.workers import PARENT_ENV

    cad_modules = {g.cad.module for g in GAMES.values()}
    multiprocessing.get_context("forkserver").set_forkserver_preload(
        ["stratstone_cad.build.forkserver_start", *sorted({"cadquery", "manifold3d", *cad_modules, *WRITER_MODULES})])
    # The server (only it) dies with this process. So does the resource tracker started
    # beside it, which then frees the killed build's semaphores: it does so without the
    # two-line "leaked semaphore objects" warning, which would only alarm the user.
    saved = {k: os.environ.get(k) for k in (PARENT_ENV, "PYTHONWARNINGS")}
    os.environ[PARENT_ENV] = str(os.getpid())
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [saved["PYTHONWARNINGS"], _QUIET_TRACKER]))
    # The server is started with Ctrl-C ignored, as it would set itself only once its
    # imports are done: a Ctrl-C to the terminal's process group during those seconds
    # printed its KeyboardInterrupt traceback. (The workers ignore it too: worker_init.)
    quiet = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if quiet else None
    try:
        forkserver.ensure_running()
    finally:
        if quiet:
            signal.signal(signal.SIGINT, previous)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _run_all(todo: list[tuple[Job, str]], mesh: MeshParams, profiles: dict[str, Profile],
             out_dir: Path, jobs: int, bar: Progress) -> Iterator[list[dict[str, Any]]]:
    """Run the jobs, yielding each one's manifest entries as it finishes.

    With more than one job, the CadQuery parts go to worker processes; the parts built
    without CadQuery (boards, terrain pieces) run here meanwhile, while the workers' fork
    server is still loading CadQuery, so that second of loading is not a second lost.
    On a failing part or Ctrl-C, parts not started are cancelled, parts already running
    finish (their files are whole and still reported), then the error is raised.
    """
    todo = sorted(todo, key=lambda jk: -jk[0].cost)  # longest first keeps both cores busy to the end
    here = [jk for jk in todo if jobs > 1 and _kernel_free(jk[0])]
    cad = [jk for jk in todo if jk not in here]
    if jobs == 1 or len(cad) <= 1:
        for job, key in here + cad:
            result = run_job(job, mesh, profiles, str(out_dir), key)
            bar.step(job.id, len(job.outputs))
            yield result
        return
    import concurrent.futures as cf

    _start_fork_server()
    pool = _pool(min(jobs, len(cad)))
    futures: dict[cf.Future, Job] = {}  # filled by the submitter thread, read here after join
    reported: set[cf.Future] = set()
    error: BaseException | None = None
    stopping = threading.Event()
    submit_failed: list[BaseException] = []

    def stop(e: BaseException) -> None:
        nonlocal error
        if error is None:
            error = _worker_failure(e)
        stopping.set()
        cancel_pending()

    def cancel_pending() -> None:
        # Each pending future is cancelled itself: the pool then reports them to
        # as_completed as it skips them (shutdown(cancel_futures=True) would cancel them
        # behind as_completed's back and leave it waiting forever), and a later
        # shutdown(wait=True) still waits for the running ones (after shutdown(wait=False)
        # it no longer does: a second stop then left workers writing unlisted parts).
        for f in list(futures):
            f.cancel()

    def submit_all() -> None:
        # Submitting waits until the fork server has loaded CadQuery; a thread does it so
        # that this process makes the CadQuery-free parts meanwhile, and the workers start
        # as soon as the server is ready. Each future is recorded as it is made, so a
        # failure part-way (the server killed) leaves exactly the submitted ones known.
        try:
            for job, key in cad:
                if stopping.is_set():
                    return
                futures[pool.submit(run_job, job, mesh, profiles, str(out_dir), key)] = job
        except BaseException as e:  # re-raised by the main thread
            submit_failed.append(e)

    def take(fut: cf.Future) -> list[dict[str, Any]] | None:
        """A finished worker part's entries, once (None: cancelled, failed or taken)."""
        if fut in reported:
            return None
        try:
            result = fut.result()
        except cf.CancelledError:
            return None
        except BaseException as e:
            stop(e)
            return None
        reported.add(fut)
        job = futures[fut]
        bar.step(job.id, len(job.outputs))
        return result

    submitter = threading.Thread(target=submit_all, daemon=True)
    try:
        submitter.start()
        for job, key in here:
            if stopping.is_set():  # a worker's part failed
                break
            try:
                result = run_job(job, mesh, profiles, str(out_dir), key)
            except Exception as e:
                stopping.set()
                submitter.join()
                stop(e)
                break
            bar.step(job.id, len(job.outputs))
            yield result
            # The workers' parts finished meanwhile join the manifest now, not once this
            # process has made all of its own: what a kill leaves unlisted stays at the
            # parts being finished at that moment.
            for fut in [f for f in list(futures) if f.done()]:
                if (taken := take(fut)) is not None:
                    yield taken
        submitter.join()
        if submit_failed:
            stop(submit_failed[0])
        for fut in cf.as_completed(list(futures)):
            if (taken := take(fut)) is not None:
                yield taken
    except KeyboardInterrupt as e:
        error = e
        stopping.set()
        submitter.join()  # the futures it made are all known before they are waited on
        cancel_pending()
        for fut in list(futures):  # parts already running finish; list them too
            if (taken := take(fut)) is not None:
                yield taken
    finally:
        def shut_down() -> None:
            stopping.set()
            if submitter.is_alive():
                submitter.join()
            pool.shutdown(wait=True, cancel_futures=True)

        # Seen through to the end whatever further Ctrl-C or SIGTERM comes: cut short, the
        # running parts would be written after the manifest, listed nowhere, and the
        # interpreter would wait for ever at exit on a worker left holding the pool's lock.
        late = _despite_stops(shut_down)  # run first: `error or ...` would skip it after a stop
        error = error or late
    if error is not None:
        raise error


def _despite_stops(action: Callable[[], None]) -> KeyboardInterrupt | None:
    """Run ``action`` to its end through any Ctrl-C or SIGTERM that comes meanwhile (each
    starts it again, so it must be safe to run again); returns the first such stop, for
    the caller to raise once what must be done is done."""
    stop: KeyboardInterrupt | None = None
    while True:
        try:
            action()
            return stop
        except KeyboardInterrupt as e:
            stop = stop or e


def assets_for(out_dir: Path, game: str | None = None) -> list[dict[str, Any]]:
    """The manifest's parts (of one game), for tests and the viewer."""
    return [e for f, e in read_manifest(Path(out_dir)).items()
            if f.endswith(".stl") and (game is None or e["game"] == game)]


__all__ = ["BuildReport", "Output", "assets_for", "build", "read_manifest"]


# --------------------------------------------------------------------------- print plates


def _plates(out_dir: Path, plan: list[Job], chosen: list[GameAssets], ps: ParamSet, printer: Any,
            profiles: dict[str, Profile], colours: dict[str, Any], write: bool, workers: int,
            report: BuildReport) -> tuple[list[Any], dict[str, dict[str, Any]]] | None:
    """The print plates of the built games: with ``write``, the outdated and missing ones
    are written (each listed the moment it is), and the plates with the manifest's entries
    are returned for the report; without, an outdated plate the manifest lists is removed
    (it would print parts that are no longer these). Plates the plan no longer has go, as
    stale parts do: unlisted first, then removed."""
    entries = read_manifest(out_dir)
    games = {g.name for g in chosen}
    if not write and not any(f.endswith(".3mf") and e.get("game") in games for f, e in entries.items()):
        return None  # no plate of these games listed to keep true (and nothing of the plates to import)
    from stratstone_cad import __version__
    from stratstone_cad.printing.plating import PLATE_MODULES, plan_plates, plate_bytes, plate_entry, plate_key

    jobs = plan_plates([o for j in plan for o in j.outputs], entries, printer, profiles, ps.plates, colours)
    code = code_fingerprint(PLATE_MODULES)
    planned = {pj.file: pj for pj in jobs}
    listed = {f for f, e in entries.items() if f.endswith(".3mf") and e.get("game") in games}
    # A plate on disk is a regular file of this build, or refused before it is read (a FIFO
    # would hang the read, a folder the removal).
    for f in sorted(listed | set(planned)):
        write_target(out_dir / f, follow_symlinks=False)
    keys = {pj.file: plate_key(pj, ps.plates, code, __version__) for pj in jobs}
    fresh = {f for f in listed & set(planned)
             if entries[f].get("key") == keys[f] and sha256_file(out_dir / f) == entries[f].get("sha256")}
    # Plates of these games' jobs on disk but not listed (a kill between a plate's rename and
    # the manifest's, a lost manifest, another bed count's -plate-i-of-n) are outdated too.
    stems = {(pj.game, pj.job) for pj in jobs}
    unlisted = set()
    for game, job in stems:
        folder = out_dir / game
        if folder.is_dir() and not folder.is_symlink():
            names = re.compile(rf"{re.escape(job)}(?:-plate-[1-9][0-9]*-of-[1-9][0-9]*)?\.3mf")
            unlisted |= {f"{game}/{q.name}" for q in folder.iterdir()
                         if names.fullmatch(q.name) and q.is_file() and not q.is_symlink()}
    unlisted -= listed
    outdated = sorted((listed - fresh) | unlisted)
    if outdated:
        for f in outdated:
            entries.pop(f, None)
        write_manifest(out_dir, entries)  # unlisted first: a kill mid-way leaves files unlisted, never the reverse
        for f in outdated:
            if write and f in planned:
                continue  # replaced below, atomically
            try:
                (out_dir / f).unlink()
            except FileNotFoundError:
                continue
            except OSError as ex:
                raise OutputError(f"plate {out_dir / f}: cannot remove ({describe_os_error(ex)})") from None
            report.removed.append(f)
    if not write:
        return None
    todo = []
    for pj in jobs:
        if pj.file in fresh:
            report.plates_cached.append(pj.file)
        else:
            todo.append(pj)
    # Two plates at a time: lib3mf's writer (most of a plate's time) runs outside the GIL,
    # as do numpy's sorts; threads, because a fork of this process after manifold3d or
    # OpenCascade has run can hang in their thread pools (see _pool).
    import concurrent.futures as cf

    def listed(pj: Any, data: bytes, objects: Any) -> None:
        entries[pj.file] = plate_entry(pj, data, objects, keys[pj.file])
        write_manifest(out_dir, entries)
        if pj.file not in report.plates_built:
            report.plates_built.append(pj.file)

    with cf.ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo)))) as pool:
        futures = [pool.submit(plate_bytes, pj, out_dir, ps.plates, __version__) for pj in todo]
        try:
            for pj, fut in zip(todo, futures, strict=True):
                data, objects = fut.result()
                try:
                    atomic_write(out_dir / pj.file, data)
                    listed(pj, data, objects)
                except KeyboardInterrupt:
                    # A stop (Ctrl-C, SIGTERM) as the plate is renamed into place or listed: a
                    # whole plate on disk is listed before the stop goes on, as a part is.
                    if sha256_file(out_dir / pj.file) == hashlib.sha256(data).hexdigest():
                        listed(pj, data, objects)
                    raise
        finally:
            for fut in futures:
                fut.cancel()
    return jobs, entries


def _print_report(out_dir: Path, jobs: list[Any], entries: dict[str, dict[str, Any]], ps: ParamSet, printer: Any,
                  slice_plates: bool, progress: TextIO | None, report: BuildReport) -> None:
    """PrusaSlicer's figures for every plate of ``jobs`` that has none for its present bytes
    (each plate's figures join the manifest ``entries`` as they come), then ``print-report.md``."""
    from stratstone_cad import __version__
    from stratstone_cad.printing.plating import print_figures, report_markdown
    from stratstone_cad.printing.slicing import find_prusaslicer, slicer_identity, slicer_version

    exe = find_prusaslicer() if slice_plates else None
    identity = slicer_identity(exe) if exe else ""
    todo = [pj for pj in jobs if (entries[pj.file].get("print") or {}).get("plate_sha256") != entries[pj.file]["sha256"]
            or entries[pj.file]["print"].get("slicer_id") != identity] if exe else []
    slicer = slicer_version(exe) if todo else next(  # its version only when it has something to slice
        (entries[pj.file]["print"]["slicer"] for pj in jobs), "") if exe else ""
    bar = Progress(len(todo), progress if todo else None)
    try:
        for pj in todo:
            entry = entries[pj.file]
            figures = print_figures(pj, entry, out_dir, ps.plates, __version__, exe, slicer, printer)
            entries[pj.file] = {**entry, "print": {**figures, "slicer_id": identity}}
            write_manifest(out_dir, entries)
            report.sliced.append(pj.file)
            bar.step(f"sliced {pj.file}")
    finally:
        bar.close()
    if exe:
        note = (f"Print times and filament are {slicer}'s estimates (normal mode) for the {printer.title} bed: "
                "PrusaSlicer's default printer and print settings (0.4 mm nozzle) with each plate's own layer "
                "heights, ironing and layer profiles, PLA at 1.24 g/cm3.")
    elif slice_plates:
        note = ("PrusaSlicer was not found (install prusa-slicer, or set STRATSTONE_PRUSA_SLICER to its command "
                "line), so there are no print times or filament figures.")
    else:
        note = "The plates were not sliced (build --no-slice), so there are no print times or filament figures."
    listed = [e if exe else {k: v for k, v in e.items() if k != "print"} for f, e in entries.items() if f.endswith(".3mf")]
    report.report_file = out_dir / REPORT
    write_target(report.report_file, follow_symlinks=False)
    atomic_write(report.report_file, report_markdown(listed, __version__, note).encode())
