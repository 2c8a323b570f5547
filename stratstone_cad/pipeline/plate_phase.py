"""The build's plates phase (``build --plates``): the print plates of the built parts, one
3MF per print job and bed (:mod:`stratstone_cad.printing.plating`), each listed in the
manifest the moment it is written, PrusaSlicer's figures for them and ``print-report.md``.
Without ``--plates``, an outdated plate the manifest lists is removed.

The figures come from slices keyed by what PrusaSlicer sees (:func:`slice_plates_of`):
plates it sees as the same are sliced once, a slice the manifest has figures for is not
run again, as many slicers run at once as the build has workers, and the plates are
written while the first slicers work."""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from stratstone_cad import __version__
from stratstone_cad.assets.game_assets import GameAssets
from stratstone_cad.assets.jobs import Job
from stratstone_cad.base.codeprint import code_fingerprint
from stratstone_cad.base.fileio import atomic_write, describe_os_error, write_target
from stratstone_cad.base.params import Profile
from stratstone_cad.base.progress import ProgressBar
from stratstone_cad.errors import BuildError, OutputError
from stratstone_cad.pipeline.build_report import BuildReport
from stratstone_cad.pipeline.manifest import read_manifest, sha256_file, write_manifest
from stratstone_cad.registry import ParamSet

REPORT = "print-report.md"


class PlatesPlanned(NamedTuple):
    """The plates of a build, those of them to write, their manifest entries and keys, how
    many processes may write and slice them, and the figures of the slices the manifest
    recorded before the plates are written (:func:`~stratstone_cad.printing.plating.known_figures`)."""

    jobs: list[Any]
    to_write: list[Any]
    entries: dict[str, dict[str, Any]]
    keys: dict[str, str]
    workers: int
    known: dict[str, dict[str, Any]]


def build_plates(out_dir: Path, plan: list[Job], chosen: list[GameAssets], ps: ParamSet, printer: Any,
                 profiles: dict[str, Profile], colours: dict[str, Any], write: bool, workers: int,
                 report: BuildReport) -> PlatesPlanned | None:
    """The print plates of the built games: the outdated ones are removed (they would print
    parts that are no longer these), and with ``write`` the plates to write and what the
    report needs are returned (:func:`write_print_report`'s arguments that follow
    ``out_dir``: it writes them, each listed the moment it is, and slices them). Plates the
    plan no longer has go, as stale parts do: unlisted first, then removed."""
    entries = read_manifest(out_dir)
    games = {g.name for g in chosen}
    if not write and not any(f.endswith(".3mf") and e.get("game") in games for f, e in entries.items()):
        return None  # no plate of these games listed to keep true (and nothing of the plates to import)
    # the plates' code: only here
    from stratstone_cad.printing.plating import PLATE_MODULES, known_figures, plan_plates, plate_key

    # What the listed plates' figures say of their slices, kept before a plate is written again:
    # a plate written again in other colours, or with one setting changed, slices only what changed.
    known = known_figures(entries)
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
    outdated = sorted((listed - fresh) | (_unlisted_plates(out_dir, {(pj.game, pj.job) for pj in jobs}) - listed))
    if outdated:
        _remove_outdated_plates(out_dir, outdated, entries, set(planned) if write else set(), report)
    if not write:
        return None
    todo = []
    for pj in jobs:
        if pj.file in fresh:
            report.plates_cached.append(pj.file)
        else:
            todo.append(pj)
    return PlatesPlanned(jobs, todo, entries, keys, workers, known)


def _unlisted_plates(out_dir: Path, stems: set[tuple[str, str]]) -> set[str]:
    """The plates of the print jobs ``stems`` (game, job) on disk, listed or not."""
    # Plates of these games' jobs on disk but not listed (a kill between a plate's rename and
    # the manifest's, a lost manifest, another bed count's -plate-i-of-n) are outdated too.
    unlisted = set()
    for game, job in stems:
        folder = out_dir / game
        if folder.is_dir() and not folder.is_symlink():
            names = re.compile(rf"{re.escape(job)}(?:-plate-[1-9][0-9]*-of-[1-9][0-9]*)?\.3mf")
            unlisted |= {f"{game}/{q.name}" for q in folder.iterdir()
                         if names.fullmatch(q.name) and q.is_file() and not q.is_symlink()}
    return unlisted


def _remove_outdated_plates(out_dir: Path, outdated: list[str], entries: dict[str, dict[str, Any]],
                            replaced: set[str], report: BuildReport) -> None:
    """Unlist the ``outdated`` plates, then remove their files, those about to be ``replaced`` too:
    a stop or kill before they are written again leaves none of the outdated ones on disk."""
    for f in outdated:
        entries.pop(f, None)
    write_manifest(out_dir, entries)  # unlisted first: a kill mid-way leaves files unlisted, never the reverse
    for f in outdated:
        if _remove_plate(out_dir, f) and f not in replaced:
            report.removed.append(f)


def _remove_plate(out_dir: Path, f: str) -> bool:
    """Remove the plate ``f`` (relative to ``out_dir``); False if it was not there.

    Raises:
        OutputError: it is there and cannot be removed.
    """
    try:
        (out_dir / f).unlink()
    except FileNotFoundError:
        return False
    except OSError as ex:
        raise OutputError(f"plate {out_dir / f}: cannot remove ({describe_os_error(ex)})") from None
    return True


def sweep_unlisted_plates(out_dir: Path, plan: list[Job], entries: dict[str, dict[str, Any]]) -> list[str]:
    """At a build's start: remove the plates of the planned print jobs that are on disk but not
    listed in the manifest ``entries`` (left by a killed build, or taken out of the manifest
    with a part they hold), as the unlisted parts are; returns those removed."""
    stems = {(o.game, o.plate) for j in plan for o in j.outputs if o.plate}
    return [f for f in sorted(_unlisted_plates(out_dir, stems) - set(entries)) if _remove_plate(out_dir, f)]


_REPORT_ROW = re.compile(r"^\| ([a-z][a-z0-9-]*/[a-z0-9][a-z0-9_-]*\.3mf) \|", re.M)
_REPORT_NOTE = re.compile(r"^Made by stratstone-cad \S+?\. (.*)$", re.M)


def settle_print_report(out_dir: Path) -> None:
    """``print-report.md`` names the plates the manifest lists, no other: after a build that
    removed plates (or a killed one), it is written again with the listed ones (their
    figures as recorded, under the report's note), or removed when none is left."""
    path = out_dir / REPORT
    try:
        if path.is_symlink() or not path.is_file():
            return
        text = path.read_text("utf-8")
    except (OSError, ValueError):
        return
    plates = {f: e for f, e in read_manifest(out_dir).items() if f.endswith(".3mf")}
    if set(_REPORT_ROW.findall(text)) == set(plates):
        return
    if not plates:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    from stratstone_cad.printing.plating import report_markdown  # the plates' code: only here

    note = m[1] if (m := _REPORT_NOTE.search(text)) else ""
    sliced = note.startswith("Print times and filament are")
    listed = [e if sliced else {k: v for k, v in e.items() if k != "print"} for e in plates.values()]
    atomic_write(path, report_markdown(listed, __version__, note).encode())


def _put_plate(out_dir: Path, pj: Any, data: bytes, objects: Any, entries: dict[str, dict[str, Any]],
               keys: dict[str, str], report: BuildReport) -> None:
    """Write a plate's ``data`` into place and list it in the manifest ``entries`` at once."""
    from stratstone_cad.printing.plating import plate_entry  # the plates' code: only here

    def list_plate() -> None:
        entries[pj.file] = plate_entry(pj, data, objects, keys[pj.file])
        write_manifest(out_dir, entries)
        if pj.file not in report.plates_built:
            report.plates_built.append(pj.file)

    try:
        atomic_write(out_dir / pj.file, data)
        list_plate()
    except KeyboardInterrupt:
        # A stop (Ctrl-C, SIGTERM) as the plate is renamed into place or listed: a
        # whole plate on disk is listed before the stop goes on, as a part is.
        if sha256_file(out_dir / pj.file) == hashlib.sha256(data).hexdigest():
            list_plate()
        raise


def _write_plates(out_dir: Path, todo: list[Any], entries: dict[str, dict[str, Any]], keys: dict[str, str],
                  ps: ParamSet, workers: int, report: BuildReport) -> None:
    """Write the plates of ``todo``, each listed in the manifest ``entries`` the moment it is
    on disk (a build that slices none of them: :func:`slice_plates_of` writes those it slices)."""
    # A plate a worker at a time: lib3mf's writer (most of a plate's time) runs outside the GIL,
    # as do numpy's sorts; threads, because a fork of this process after manifold3d or
    # OpenCascade has run can hang in their thread pools (see scheduler.worker_pool).
    import concurrent.futures as cf  # a pool's module: only where plates are written

    from stratstone_cad.printing.plating import plate_bytes  # the plates' code: only here

    with cf.ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo)))) as pool:
        futures = [pool.submit(plate_bytes, pj, out_dir, ps.plates, __version__) for pj in todo]
        try:
            for pj, fut in zip(todo, futures, strict=True):
                _put_plate(out_dir, pj, *fut.result(), entries, keys, report)
        finally:
            for fut in futures:
                fut.cancel()


def write_print_report(out_dir: Path, jobs: list[Any], to_write: list[Any], entries: dict[str, dict[str, Any]],
                       keys: dict[str, str], workers: int, known: dict[str, dict[str, Any]], ps: ParamSet,
                       printer: Any, slice_plates: bool, progress: TextIO | None, report: BuildReport) -> None:
    """Write the plates of ``to_write`` (each listed in the manifest ``entries`` the moment
    it is), PrusaSlicer's figures for every plate of ``jobs`` that has none for its present
    bytes (each plate's figures join the manifest as they come: :func:`slice_plates_of`,
    which writes the plates as the slicers work), then ``print-report.md``."""
    # the plates' code and the slicer's: only with --plates
    from stratstone_cad.printing.plating import forget_parts, report_markdown
    from stratstone_cad.printing.slicing import find_prusaslicer, slicer_identity, slicer_version

    exe = find_prusaslicer() if slice_plates else None
    identity = slicer_identity(exe) if exe else ""
    writing = {pj.file for pj in to_write}
    # the plates written now have no figures yet; a listed one, none for its bytes or this slicer
    todo = [pj for pj in jobs if pj.file in writing
            or (entries[pj.file].get("print") or {}).get("plate_sha256") != entries[pj.file]["sha256"]
            or entries[pj.file]["print"].get("slicer_id") != identity] if exe else []
    try:
        if exe and todo:
            try:
                slicer = slicer_version(exe)
                slice_plates_of(out_dir, todo, to_write, entries, keys, known, ps, printer, exe, identity, slicer,
                                workers, progress, report)
            except BuildError:
                # A slicer that fails, or does not run, costs the report, not the plates: those not
                # written yet are written still (as before any was sliced), then the error goes on.
                _write_plates(out_dir, [pj for pj in to_write if pj.file not in entries], entries, keys, ps, workers,
                              report)
                raise
        else:
            _write_plates(out_dir, to_write, entries, keys, ps, workers, report)
            slicer = next((entries[pj.file]["print"]["slicer"] for pj in jobs if entries[pj.file].get("print")), "")
    finally:
        forget_parts()
    listed = [e if exe else {k: v for k, v in e.items() if k != "print"} for f, e in entries.items() if f.endswith(".3mf")]
    report.report_file = out_dir / REPORT
    write_target(report.report_file, follow_symlinks=False)
    atomic_write(report.report_file, report_markdown(listed, __version__, _figures_note(exe, slicer, slice_plates,
                                                                                        printer)).encode())


def slice_plates_of(out_dir: Path, todo: list[Any], to_write: list[Any], entries: dict[str, dict[str, Any]],
                    plate_keys: dict[str, str], known: dict[str, dict[str, Any]], ps: ParamSet, printer: Any, exe: str,
                    identity: str, slicer: str, workers: int, progress: TextIO | None, report: BuildReport) -> None:
    """Slice the plates of ``todo`` for their figures, each slice once, writing those of
    ``to_write`` (every one of them is in ``todo``) as the slicers work. A plate's slices (as
    set, without ironing, at flat layers) are keyed by what PrusaSlicer sees of them (the
    plate less its colours and names: :func:`~stratstone_cad.printing.plating.slice_inputs`)
    and the program (:func:`~stratstone_cad.printing.slicing.slice_key`): the plates it sees
    as the same share the figures of one slice (of the first one's own bytes), and a slice
    whose figures the manifest recorded (``known``, by key) is not run again.

    ``workers`` slicers run at once, the costliest slices first
    (:func:`~stratstone_cad.printing.plating.slice_cost`). The plates are written here,
    one at a time, the costliest first, while the slicers work (the first slicer starts as
    soon as the first plate is written, not after the last), and each plate's variants are
    made as soon as it is; each plate's figures, and the keys of its slices, join the
    manifest as soon as it is listed and its last slice is done. The progress bar counts slices
    and says what it waits for: each slicer as it starts, and how many run."""
    from stratstone_cad.printing.plating import SLICE_FIGURES, plate_bytes, slice_cost
    from stratstone_cad.printing.slicing import Slice, slice_all

    figures = {key: dict(f) for key, f in known.items()}  # slice key -> its figures, known or sliced

    def figures_known(kind: str, key: str) -> bool:
        return all(k in figures.get(key, {}) for k in SLICE_FIGURES[kind])

    cost = {pj.file: slice_cost(pj, out_dir) for pj in todo}
    todo = sorted(todo, key=lambda pj: -cost[pj.file])  # stable: the plan's order among equals
    keys, runs = _slices_to_run(out_dir, todo, ps, printer, identity, slicer, figures_known)
    writing = {pj.file for pj in to_write}
    count = sum(len(kinds) for kinds in runs.values())
    bar = ProgressBar(count, progress if count else None, title="slicing")

    def record_ready() -> None:
        _record_sliced(out_dir, todo, keys, figures, figures_known, entries, slicer, identity, report)

    def plates_to_slice() -> Iterator[list[Slice]]:
        """Each plate in turn, the costliest first: written (when it is to be), its figures
        recorded if they are known, and the files of its slices to run made."""
        for pj in todo:
            if pj.file in writing:
                _put_plate(out_dir, pj, *plate_bytes(pj, out_dir, ps.plates, __version__), entries, plate_keys, report)
                record_ready()
            if runs.get(pj.file):
                yield _slices_of(out_dir, pj, runs[pj.file], entries[pj.file]["sha256"], ps, cost[pj.file])

    def at_work(s: Slice, started: bool, running: int) -> None:  # what the build waits for
        (bar.note if started else bar.step)(f"{running} running in PrusaSlicer, {'started' if started else 'sliced'} {s.what}")

    def on_sliced(s: Slice, stats: Any) -> None:
        figures[s.key] = stats.as_dict()
        record_ready()

    try:
        record_ready()  # the listed plates whose every slice the manifest had figures for
        slice_all(exe, [], printer, workers, on_sliced, plates_to_slice(), at_work)
    finally:
        bar.close()


def _slices_to_run(out_dir: Path, todo: list[Any], ps: ParamSet, printer: Any, identity: str, slicer: str,
                   figures_known: Callable[[str, str], bool]) -> tuple[dict[str, dict[str, str]],
                                                                      dict[str, dict[str, str]]]:
    """The keys of the slices of each plate of ``todo`` (plate -> kind -> key), and those to
    run (plate -> kind -> key): each slice whose figures are not known, once, at the first
    plate of ``todo`` that has it."""
    from stratstone_cad.printing.plating import PLATE_MODULES, slice_inputs
    from stratstone_cad.printing.slicing import slice_key

    code = code_fingerprint(PLATE_MODULES)
    keys: dict[str, dict[str, str]] = {}  # plate -> its slices' kinds -> keys
    firsts: dict[str, tuple[Any, str]] = {}  # the key of each slice to run -> the first (plate, kind) of it
    for pj in todo:
        keys[pj.file] = {kind: slice_key(seen, printer, identity, slicer)
                         for kind, seen in slice_inputs(pj, out_dir, ps.plates, code).items()}
        for kind, key in keys[pj.file].items():
            if not figures_known(kind, key):
                firsts.setdefault(key, (pj, kind))
    runs: dict[str, dict[str, str]] = {}  # plate -> the kind -> key of each slice of it to run
    for key, (pj, kind) in firsts.items():
        runs.setdefault(pj.file, {})[kind] = key
    return keys, runs


def _record_sliced(out_dir: Path, todo: list[Any], keys: dict[str, dict[str, str]], figures: dict[str, Any],
                   figures_known: Callable[[str, str], bool], entries: dict[str, dict[str, Any]], slicer: str,
                   identity: str, report: BuildReport) -> None:
    """The figures of each listed plate of ``todo`` whose every slice is known (``keys``:
    plate -> kind -> slice key; ``figures``: slice key -> its figures), into the manifest."""
    from stratstone_cad.printing.plating import print_figures

    for pj in todo:
        if pj.file in report.sliced or pj.file not in entries \
                or not all(figures_known(kind, key) for kind, key in keys[pj.file].items()):
            continue
        entry = entries[pj.file]
        sliced = {kind: figures[key] for kind, key in keys[pj.file].items()}
        entries[pj.file] = {**entry, "print": {"slicer": slicer, "plate_sha256": entry["sha256"],
                                               **print_figures(sliced), "slicer_id": identity,
                                               "slices": keys[pj.file]}}
        write_manifest(out_dir, entries)
        report.sliced.append(pj.file)


def _slices_of(out_dir: Path, pj: Any, kinds: dict[str, str], sha256: str, ps: ParamSet, cost: float) -> list[Any]:
    """The slices to run of the plate ``pj`` (``kinds``: kind -> slice key), their files made
    from its bytes (``sha256``)."""
    from stratstone_cad.printing.plating import SLICE_KINDS, slice_files
    from stratstone_cad.printing.slicing import Slice

    files = slice_files(pj, list(kinds), sha256, out_dir, ps.plates, __version__)
    return [Slice(key, files[kind], f"plate {pj.file}" + ("" if kind == "as_set" else f" {SLICE_KINDS[kind]}"), cost)
            for kind, key in kinds.items()]


def _figures_note(exe: str | None, slicer: str, slice_plates: bool, printer: Any) -> str:
    """The print report's note on where its print times and filament figures come from, or why it has none."""
    if exe:
        return (f"Print times and filament are {slicer}'s estimates (normal mode) for the {printer.title} bed: "
                "PrusaSlicer's default printer and print settings (0.4 mm nozzle) with each plate's own layer "
                "heights, ironing, seam and layer profiles, PLA at 1.24 g/cm3.")
    if slice_plates:
        return ("PrusaSlicer was not found (install prusa-slicer, or set STRATSTONE_PRUSA_SLICER to its command "
                "line), so there are no print times or filament figures.")
    return "The plates were not sliced (build --no-slice), so there are no print times or filament figures."
