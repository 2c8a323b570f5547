"""The build pipeline: plan the assets, skip what is cached, make the rest in parallel,
check and write every mesh, and keep output/manifest.json.

The cache is the manifest itself (:mod:`stratstone_cad.pipeline.manifest`): each asset's entry
holds the key of everything it was made from (derived, never listed by hand:
:mod:`stratstone_cad.pipeline.keys`) and the sha256 of the file. An asset whose key is
unchanged and whose file still has that sha256 is not rebuilt, and the unchanged rebuild
never imports CadQuery.

Workers: with more than one job, the CadQuery parts are made by worker processes forked
from a fork server that imports CadQuery once (see
:func:`stratstone_cad.pipeline.scheduler.worker_pool`), and the parts made without CadQuery
are made by the build itself meanwhile. A worker dies with the build (the kernel kills it
when its parent goes, whatever the signal).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from stratstone_cad.assets.fit_test import FIT_TEST, fit_test_set
from stratstone_cad.assets.game_assets import GameAssets
from stratstone_cad.assets.jobs import Job, Output
from stratstone_cad.base.colours import load_colours
from stratstone_cad.base.fileio import atomic_write_all, describe_os_error, ensure_writable_dir, sweep_temporary, write_target
from stratstone_cad.base.params import MeshParams, Profile
from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.base.progress import ProgressBar
from stratstone_cad.errors import GeometryError, OutputError, UnknownGameError, UserError, did_you_mean, short_repr
from stratstone_cad.pipeline.build_report import BuildReport
from stratstone_cad.pipeline.cad_files import cad_files_job
from stratstone_cad.pipeline.keys import job_key
from stratstone_cad.pipeline.lock import folder_lock
from stratstone_cad.pipeline.manifest import MANIFEST, assets_for, described, read_manifest, sha256_file, write_manifest
from stratstone_cad.pipeline.plate_phase import (
    REPORT,
    build_plates,
    settle_print_report,
    sweep_unlisted_plates,
    write_print_report,
)
from stratstone_cad.pipeline.scheduler import despite_stops, drain, run_all, start_fork_server
from stratstone_cad.pipeline.scratch import build_scratch
from stratstone_cad.registry import ParamSet, get_parts, load_params

__all__ = ["BuildReport", "Output", "assets_for", "build", "read_manifest"]


# --------------------------------------------------------------------------- worker side


def run_job(job: Job, mesh_params: MeshParams, profiles: dict[str, Profile], out_dir: str,
            key: str) -> list[dict[str, Any]]:
    """Make a job's parts, check and write each; returns their manifest entries.

    Runs in a worker process (or in-process with one job). The CAD function is given
    ``job.args`` and nothing else. Raises UserError (for example GeometryError) with a
    message that names the part and its parameters.

    Raises:
        GeometryError: the CAD kernel cannot make the part.
    """
    # the mesh checks and writer (numpy): loaded only where a part is made, an unchanged rebuild makes none
    from stratstone_cad.printing.checks import Mesh, check_mesh, mesh_facts
    from stratstone_cad.printing.stl import stl_bytes

    module, func = job.maker.split(":")
    maker: Callable[..., list[Any]] = getattr(importlib.import_module(module), func)
    try:
        shapes = maker(**job.args)
    except UserError as e:
        raise type(e)(f"{job.label}: {e}") from None
    except Exception as e:  # the CAD kernel refused these parameters: say which part and why
        detail = " ".join(str(e).split()) or type(e).__name__
        raise GeometryError(f"{job.label}: the CAD kernel cannot make this part ({type(e).__name__}: "
                            f"{detail[:200]})") from None
    if len(shapes) != len(job.outputs):
        raise RuntimeError(f"{job.id}: made {len(shapes)} parts for {len(job.outputs)} outputs")
    entries, files = [], []
    for shape, out in zip(shapes, job.outputs, strict=True):
        if isinstance(shape, bytes):  # a STEP or glTF file, written whole by the maker (build --step)
            files.append((Path(out_dir) / out.file, shape))
            entries.append(described({"file": out.file, "game": out.game, "part": out.part, "colour": out.colour,
                                      "index": out.index, "of": out.of, "bytes": len(shape),
                                      "sha256": hashlib.sha256(shape).hexdigest(), "key": key}, out))
            continue
        if isinstance(shape, Mesh):  # a board: meshed from its stack of 2D regions by the maker
            mesh = shape
        else:
            from stratstone_cad.occ.tessellate import tessellate  # CadQuery: only where a CadQuery part is made

            mesh = tessellate(shape, mesh_params.tolerance_mm, math.radians(mesh_params.angular_tolerance_deg))
        name = Path(out.file).stem
        check_mesh(mesh, job.label if job.label.startswith(name) else f"{name} of the {job.label}")
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


# --------------------------------------------------------------------------- the build


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def build(games: list[str] | None = None, printer_name: str | None = None, out_dir: Path = Path("output"),
          jobs: int = 1, params_file: Path | None = None, sets: dict[str, str] | None = None,
          progress: TextIO | None = sys.stderr, plates: bool = False, slice_plates: bool = True,
          step: bool = False, on_warning: Callable[[str], None] | None = None) -> BuildReport:
    """Build the assets of ``games`` (all when empty) into ``out_dir``; with ``plates``,
    their print plates too (one 3MF per print job and bed: :mod:`stratstone_cad.printing.plating`)
    and ``print-report.md``, with PrusaSlicer's print time and filament of each plate when
    ``slice_plates`` and PrusaSlicer is installed (the figures are kept in the manifest
    with the plate's sha256, so an unchanged plate is not sliced again). With ``step``, a
    STEP file beside each STL and each game's set as ``set.step`` and ``set.glb``
    (:func:`stratstone_cad.pipeline.cad_files.cad_files_job`); a build without it removes them, as
    it removes every file its plan no longer makes.

    A damaged manifest is said once to ``on_warning`` (default: :func:`warnings.warn`),
    and the build makes every part again.

    Everything the user gives is checked before anything is written: parameters,
    printer, games, the output folder. Raises UserError subclasses for those. More jobs
    than usable cores are not started (they only compete for the same cores).

    Raises:
        UserError: ``--jobs`` is below 1.
    """
    start = time.perf_counter()
    if jobs < 1:
        raise UserError(f"--jobs {jobs}: expected a number of parallel jobs of at least 1")
    # Before the fork server starts: its socket's folder, and the slicer's, go in a folder of
    # this build's own, which the next build sweeps if this one is killed.
    with build_scratch():
        if min(jobs, usable_cores()) > 1 and not os.path.exists(Path(out_dir) / MANIFEST):  # False on any OSError
            start_fork_server()  # a first build into this folder will need CadQuery: load it while we plan
        planned = _plan(games, printer_name, params_file, sets, step)
        out_dir = _checked_out_dir(Path(out_dir), planned.jobs, plates)
        return _build_planned(planned, out_dir, min(jobs, usable_cores()), progress, plates, slice_plates, start,
                              on_warning)


@dataclass(frozen=True)
class _Planned:
    """What a build makes: the games chosen, their parameters, the printer, the jobs."""

    games: list[GameAssets]
    ps: ParamSet
    printer: Any
    profiles: dict[str, Profile]
    colours: Any
    jobs: list[Job]


def _plan(games: list[str] | None, printer_name: str | None, params_file: Path | None, sets: dict[str, str] | None,
          step: bool) -> _Planned:
    """The games, parameters, printer and jobs of a build, every one checked."""
    chosen = _sets(games)
    ps = load_params(params_file, sets, games=[g.name for g in chosen])
    printer = get_printer(printer_name)
    profiles = load_profiles()
    colours = load_colours()  # the plates' display colours: checked before anything is written
    plan: list[Job] = [j for g in chosen for j in g.plan(ps.params_of(g.name), printer, profiles, ps.mesh)]
    if step:  # each game's STEP files and set (the fit test's coupons are test prints: no set to assemble)
        plan += [cad_files_job(g, ps.params_of(g.name), printer, profiles, ps.mesh,
                               [j for j in plan if j.outputs[0].game == g.name]) for g in chosen if g.name != FIT_TEST]
    return _Planned(chosen, ps, printer, profiles, colours, plan)


def _sets(names: list[str] | None) -> list[GameAssets]:
    """The games named (all when none), and the fit test's set when ``fit-test`` is named: a
    set the build knows beside the games (:mod:`stratstone_cad.assets.fit_test`), not a game.

    Raises:
        UnknownGameError: a name is neither a game nor ``fit-test``.
    """
    known = [*(g.name for g in get_parts(None)), FIT_TEST]
    for n in names or []:
        if n not in known:
            raise UnknownGameError(f"game {short_repr(n)}: unknown, expected one of {', '.join(known)}"
                                   f"{did_you_mean(n, known)}")
    games = [n for n in names or [] if n != FIT_TEST]
    chosen = get_parts(games) if games or not names else []
    return chosen + [fit_test_set(get_parts(None))] if names and FIT_TEST in names else chosen


def _checked_out_dir(out_dir: Path, plan: list[Job], plates: bool) -> Path:
    """The output folder, made and checked, every file the plan writes there checked:
    a FIFO, a device or a link where the manifest or a part goes is refused before
    anything is written."""
    room = max(len(os.fsencode(o.file)) for j in plan for o in j.outputs) + 20  # and its temporary name's .X.tmp
    out_dir = ensure_writable_dir(Path(out_dir), room=room)
    write_target(out_dir / MANIFEST, follow_symlinks=False)
    if plates:
        write_target(out_dir / REPORT, follow_symlinks=False)
    for o in (o for j in plan for o in j.outputs):
        write_target(out_dir / o.file, follow_symlinks=False)
    for sub in sorted({Path(o.file).parent for j in plan for o in j.outputs}):
        if (out_dir / sub).is_symlink():  # the build would write, and remove stale files, elsewhere
            raise OutputError(f"output folder {out_dir / sub}: is a symbolic link, expected a folder of this build")
        ensure_writable_dir(out_dir / sub)
    return out_dir


def _build_planned(planned: _Planned, out_dir: Path, jobs: int, progress: TextIO | None, plates: bool,
                   slice_plates: bool, start: float, on_warning: Callable[[str], None] | None) -> BuildReport:
    """The planned jobs made (those the cache lacks), and the plates, in the locked folder."""
    p = planned
    with folder_lock(out_dir):
        try:
            report = _build_locked(out_dir, p.jobs, p.games, p.ps, p.profiles, jobs, progress, start, on_warning)
            plating = build_plates(out_dir, p.jobs, p.games, p.ps, p.printer, p.profiles, p.colours, plates, jobs,
                                   report)
            if plating is not None:  # with --plates: the plates to write, and what the report needs
                write_print_report(out_dir, *plating, p.ps, p.printer, slice_plates, progress, report)
        finally:
            # print-report.md names only the plates listed now: this build (or a killed one
            # before it) may have removed some, with their parts or as outdated.
            late = despite_stops(lambda: settle_print_report(out_dir))
        if late is not None:
            raise late
        report.seconds = time.perf_counter() - start
        return report


def _build_locked(out_dir: Path, plan: list[Job], chosen: list[GameAssets], ps: ParamSet,
                  profiles: dict[str, Profile], jobs: int, progress: TextIO | None, start: float,
                  on_warning: Callable[[str], None] | None = None) -> BuildReport:
    """The parts of ``plan``, made or found cached, with the folder locked; the manifest
    lists every part on disk at the end, and after a failure or stop too."""
    old = read_manifest(out_dir, damaged=on_warning or (lambda text: warnings.warn(text, stacklevel=2)))
    report = BuildReport(out_dir)
    # plates on disk that the manifest does not list (a killed build's) go, as unlisted parts do
    report.removed += sweep_unlisted_plates(out_dir, plan, old)
    entries = dict(old)
    todo = _to_make(out_dir, plan, ps, profiles, old, entries, report)
    report.swept = _sweep_temporary(out_dir, chosen)
    # The manifest and the disk agree at every moment a kill can come: the outdated files
    # of the parts to make go first, with their entries, and each part joins the manifest
    # as soon as its files are written (only the parts being finished at a kill can be
    # on disk unlisted, with those the workers finished while this process made one of
    # its own: they are taken between its parts). What a killed build leaves unlisted,
    # the next build makes again or removes.
    _remove_outdated(out_dir, todo, entries)
    error = _make_parts(out_dir, todo, ps, profiles, jobs, progress, entries, report)
    late = despite_stops(lambda: _settle(out_dir, todo, entries, error))
    error = error or late
    if error is not None:
        raise error
    report.removed += _remove_stale(out_dir, plan, chosen, old, entries)
    report.seconds = time.perf_counter() - start
    return report


def _to_make(out_dir: Path, plan: list[Job], ps: ParamSet, profiles: dict[str, Profile], old: dict[str, dict[str, Any]],
             entries: dict[str, dict[str, Any]], report: BuildReport) -> list[tuple[Job, str]]:
    """The jobs of ``plan`` to run, each with its key. A job whose files the ``old`` manifest
    lists with its key and their sha256 is cached instead: its entries, with the plan's
    descriptive facts, go into ``entries``."""
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
    return todo


def _remove_outdated(out_dir: Path, todo: list[tuple[Job, str]], entries: dict[str, dict[str, Any]]) -> None:
    """Unlist, then remove, the files of the parts ``todo`` makes again."""
    outdated = [o.file for j, _ in todo for o in j.outputs if o.file in entries or (out_dir / o.file).exists()]
    if outdated:
        for f in outdated:
            entries.pop(f, None)
        write_manifest(out_dir, entries)  # the entries go first: a kill mid-way leaves files unlisted, never the reverse
        for f in outdated:
            with contextlib.suppress(FileNotFoundError):
                (out_dir / f).unlink()


def _make_parts(out_dir: Path, todo: list[tuple[Job, str]], ps: ParamSet, profiles: dict[str, Profile], jobs: int,
                progress: TextIO | None, entries: dict[str, dict[str, Any]], report: BuildReport) -> BaseException | None:
    """Make the parts of ``todo``, each listed in the manifest ``entries`` as soon as its files
    are written; returns the failure or stop that ended it early, for the caller to raise
    once the manifest is settled (None: every part made)."""
    bar = ProgressBar(sum(len(j.outputs) for j, _ in todo), progress if todo else None)
    error: BaseException | None = None

    def record(job_entries: list[dict[str, Any]]) -> None:
        for e in job_entries:
            if entries.get(e["file"]) is not e:
                entries[e["file"]] = e
                report.built.append(e["file"])
        write_manifest(out_dir, entries)

    runner = run_all(todo, ps.mesh, profiles, out_dir, jobs, bar, run_job)
    try:
        drain(runner, record)
    except BaseException as e:  # keep what finished in the manifest, then re-raise
        error = e
    finally:
        # A stop that escaped drain without reaching the runner (between two of its
        # steps) closes it here: the pool is shut down, its running parts finish, before
        # the files nothing lists are removed (_settle).
        late = despite_stops(runner.close)
        error = error or late
        bar.close()
    return error


def _settle(out_dir: Path, todo: list[tuple[Job, str]], entries: dict[str, dict[str, Any]],
            error: BaseException | None) -> None:
    """The manifest of ``entries``, written once more; after a failure or stop, without a
    file of ``todo``'s parts that it does not list. Safe to run again (:func:`despite_stops`)."""
    write_manifest(out_dir, entries)
    if error is not None:
        # Files of this build's parts that no entry lists (a stop between a part's
        # files and its entries, or a part a worker finished after a second stop):
        # they go, and the manifest lists every part on disk.
        for f in (o.file for j, _ in todo for o in j.outputs if o.file not in entries):
            with contextlib.suppress(OSError):
                (out_dir / f).unlink()

def _sweep_temporary(out_dir: Path, chosen: list[GameAssets]) -> list[str]:
    """Remove the temporary files a killed build left (``.NAME.stl.XXXXXXXX.tmp``, named
    by :func:`~stratstone_cad.base.fileio.atomic_write`): only those names, only in the folders
    this build writes, and only while it holds the folder's lock, so no running build's
    file is touched."""
    names = r"[a-z0-9][a-z0-9_-]*\.(?:stl|3mf|step|glb)|manifest\.json|print-report\.md"
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
            stale |= {f"{game.name}/{p.name}" for p in folder.iterdir()
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
