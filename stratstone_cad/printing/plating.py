"""The print plates of a build (``build --plates``): plan them from the parts, key them, write them.

After the parts, the build groups them by print job (each part's ``Output.plate``: a
colour's stones, a colour's gems, a side's terrain pieces, a board's tiles), arranges each
job's copies on the printer's bed (:mod:`stratstone_cad.printing.plates`) and writes one 3MF
per bed (:mod:`stratstone_cad.printing.threemf`) with the slicers' settings: the job's
profile's layers, its ironing, and for the parts marked ``adaptive`` (stones, gems) a
variable layer-height profile (:mod:`stratstone_cad.printing.adaptive`).

A plate is made from the STL files the build wrote, read back (a cached part is not
made again for its plate). Its key is derived as a part's is: the plate's file, its
parts' sha256, their placements, the settings and the code of the modules that write it
(with the lib3mf version). An unchanged plate is not written again.

The print report's figures of a plate come from up to three slices (:data:`SLICE_KINDS`):
the plate as set, without its ironing, at flat layers. Each is keyed by what PrusaSlicer
sees of it (:func:`slice_inputs`: what the plate is made of, less its colours and names),
so plates that differ only in those share the figures of one slice, which is of the first
one's own bytes (:func:`slice_files`). The manifest keeps each plate's keys with its figures
(``print.slices``), and the report names the plates that share them.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from stratstone_cad.assets.jobs import Output
from stratstone_cad.base.colours import BOARD_COLOUR, Colour, display_colour
from stratstone_cad.base.params import PlateParams, Profile
from stratstone_cad.base.printers import Printer
from stratstone_cad.errors import BuildError
from stratstone_cad.printing.plates import Part, Plate, arrange, plate_files

__all__ = ["SLICE_FIGURES", "SLICE_KINDS", "PlateJob", "forget_parts", "known_figures", "known_slices", "plan_plates",
           "plate_bytes", "plate_entry", "plate_key", "print_figures", "report_markdown", "slice_cost", "slice_files",
           "slice_inputs"]

#: The modules that shape a plate's bytes, besides this one.
PLATE_MODULES = ("stratstone_cad.printing.plating", "stratstone_cad.printing.plates", "stratstone_cad.printing.threemf",
                 "stratstone_cad.printing.slicer_settings", "stratstone_cad.printing.adaptive")
PLATE_DISTS = ("lib3mf", "numpy")


@dataclass(frozen=True)
class PlateJob:
    """One plate to write: its file, what is on it and how it is to be printed."""

    file: str  # game/stones-red.3mf
    game: str
    job: str  # the print job: stones-red
    index: int | None  # this plate's number when the job needs several beds
    of: int | None
    plate: Plate
    profile: Profile
    ironing: str
    seam: str  # where each layer's outer wall starts: rear, aligned, nearest or random (PlateParams.seam)
    adaptive: frozenset[str]  # the files printed at adaptive layer heights
    colours: tuple[tuple[str, str], ...]  # the plate's filaments: (name, "#RRGGBB")
    part_colours: Mapping[str, str]  # part file -> colour name
    inputs: Mapping[str, str]  # part file -> sha256
    printer: str
    bed_mm: tuple[float, float, float | None]  # the printer's bed, x, y and its build height (None: not given)

    def title(self) -> str:
        which = f", plate {self.index} of {self.of}" if self.index else ""
        return (f"{self.game} {self.job}{which}: {self.profile.name} profile, {self.profile.layer_height_mm:g} mm "
                f"layers ({self.profile.first_layer_height_mm:g} mm first)")


def plan_plates(outputs: Sequence[Output], entries: Mapping[str, Mapping[str, Any]], printer: Printer,
                profiles: Mapping[str, Profile], plates: PlateParams, colours: Mapping[str, Colour]) -> list[PlateJob]:
    """Every plate of the planned ``outputs`` (whose manifest ``entries`` hold their size
    and sha256), in job order. Raises :class:`~stratstone_cad.errors.PlateError` for a
    part larger than the bed.

    Raises:
        BuildError: parts of different profiles are put on one plate.
    """
    jobs: dict[tuple[str, str], list[Output]] = {}
    for o in outputs:
        if o.plate:
            jobs.setdefault((o.game, o.plate), []).append(o)
    out: list[PlateJob] = []
    for (game, job), outs in jobs.items():
        profile_names = {o.profile for o in outs}
        if len(profile_names) != 1:
            raise BuildError(f"{game} {job}: parts of profiles {sorted(profile_names)} on one plate")
        profile = profiles[profile_names.pop()]
        parts = []
        for o in outs:
            e = entries[o.file]
            lo, size = e["bbox_mm"]["min"], e["bbox_mm"]["size"]
            parts.append(Part(Path(o.file).stem, o.file, (size[0], size[1]), (lo[0], lo[1]), o.count))
        beds = arrange(parts, printer, plates.spacing_mm, f"{game} {job}")
        colour_of = {o.file: o.colour or BOARD_COLOUR for o in outs}
        ironing = plates.piece_ironing if profile.name == "piece" else plates.board_ironing
        adaptive = frozenset(o.file for o in outs if o.adaptive and plates.adaptive_layers)
        for i, (file, bed) in enumerate(zip(plate_files(game, job, len(beds)), beds, strict=True), 1):
            on = [o.file for o in outs if o.file in {p.part.file for p in bed.placements}]  # in the plan's order
            palette = tuple((c, display_colour(colours, c)) for c in dict.fromkeys(colour_of[f] for f in on))
            out.append(PlateJob(
                file, game, job, i if len(beds) > 1 else None, len(beds) if len(beds) > 1 else None, bed, profile,
                ironing, plates.seam, adaptive & set(on), palette, {f: colour_of[f] for f in on},
                {f: entries[f]["sha256"] for f in sorted(on)}, printer.name, bed_of(printer)))
    return out


def bed_of(printer: Printer) -> tuple[float, float, float | None]:
    """A printer's bed as a plate carries it: x and y, and the build height (None when the
    printer names none), in mm."""
    return printer.bed_x_mm, printer.bed_y_mm, printer.bed_z_mm if math.isfinite(printer.bed_z_mm) else None


@functools.cache
def _library_versions() -> dict[str, str]:
    return {d: metadata.version(d) for d in PLATE_DISTS}  # about 1 ms each: once a build, not once a plate


def plate_key(pj: PlateJob, plates: PlateParams, code: str, version: str) -> str:
    """sha256 of everything a plate's bytes and entry come from: its plan, its parts' bytes,
    the settings and the adaptive bounds it uses, the printer, the writing code, this
    program's version (written into the package) and the libraries' versions."""
    data = {
        "file": pj.file, "title": pj.title(), "ironing": pj.ironing, "seam": pj.seam, "profile": asdict(pj.profile),
        "printer": pj.printer, "bed_mm": pj.bed_mm, "version": version,
        "colours": pj.colours, "part_colours": dict(sorted(pj.part_colours.items())), "inputs": dict(pj.inputs),
        "placements": [(p.part.name, p.part.file, p.copy, p.offset) for p in pj.plate.placements],
        "adaptive": sorted(pj.adaptive),
        "bounds": [plates.adaptive_step_mm, plates.adaptive_min_layer_mm, plates.adaptive_max_layer_mm]
        if pj.adaptive else None,
        "code": code, "libraries": _library_versions(),
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def plate_bytes(pj: PlateJob, out_dir: Path, plates: PlateParams, version: str) -> tuple[bytes, list[dict[str, Any]]]:
    """The 3MF of a plate, and what the manifest says of each object on it."""
    # start-up speed: lib3mf only where a plate is written
    from stratstone_cad.printing.threemf import plate_3mf

    objects, described = _plate_objects(pj, out_dir, plates)
    return plate_3mf(pj.file.removesuffix(".3mf"), objects, _settings(pj, pj.title(), pj.colours), version), described


def _settings(pj: PlateJob, title: str, colours: tuple[tuple[str, str], ...], ironing: str | None = None) -> Any:
    from stratstone_cad.printing.slicer_settings import PlateSettings

    return PlateSettings(title, pj.profile.layer_height_mm, pj.profile.first_layer_height_mm,
                         pj.ironing if ironing is None else ironing, pj.seam, colours, pj.bed_mm[:2], pj.bed_mm[2])


def _plate_objects(pj: PlateJob, out_dir: Path, plates: PlateParams, neutral: Mapping[str, str] | None = None,
                   ) -> tuple[list[Any], list[dict[str, Any]]]:
    """The objects of a plate's 3MF (its parts read from their STL files), and what the
    manifest says of each. With ``neutral`` (colour name -> neutral name), each part is
    named by its place on the plate and coloured with the neutral names."""
    # start-up speed: numpy and lib3mf only where a plate is written
    from stratstone_cad.printing.adaptive import adaptive_layers, slicer_profile
    from stratstone_cad.printing.threemf import PlateObject

    objects, described = [], []
    for i, part in enumerate(pj.plate.parts(), 1):
        mesh = _part_mesh(pj, part.file, out_dir)
        offsets = pj.plate.offsets(part)
        profile: tuple[tuple[float, float], ...] = ()
        layers = None
        if part.file in pj.adaptive:
            bounds = (pj.profile.first_layer_height_mm, plates.adaptive_step_mm, plates.adaptive_min_layer_mm,
                      plates.adaptive_max_layer_mm)
            key = (pj.inputs[part.file], bounds)
            known = _PROFILES.get(key)  # one look: another thread may forget it meanwhile
            if known is None:
                tops = adaptive_layers(mesh, bounds[0], cusp_mm=bounds[1], min_mm=bounds[2], max_mm=bounds[3])
                known = _PROFILES[key] = slicer_profile(tops), len(tops)
            profile, layers = known
        # Each copy its own object: a slicer that reads a third-party 3MF splits the
        # instances of one object into objects, and PrusaSlicer then keeps the settings
        # and the layer profile on the first copy only (seen slicing 10 gems).
        base = part.name if neutral is None else f"part-{i}"
        colour = pj.part_colours[part.file]
        for n, offset in enumerate(offsets, 1):
            name = base if len(offsets) == 1 else f"{base}-{n:02d}"
            objects.append(PlateObject(name, mesh, colour if neutral is None else neutral[colour], (offset,), profile))
        described.append({"name": part.name, "file": part.file, "copies": len(offsets), "triangles": len(mesh.triangles),
                          "adaptive_layers": layers})
    return objects, described


#: The meshes of the parts read for plates in this process, and their adaptive layer
#: profiles, by the sha256 of the part's file (and the profile's bounds): a plate's variants
#: and its slices' order read a part again, and a plate of the same parts in another colour
#: has the same profiles. About 20 MB for the default set's parts, kept for the plates phase
#: only (:func:`forget_parts`); each read is still checked against the sha256 its plate was
#: planned with.
_MESHES: dict[str, Any] = {}
_PROFILES: dict[tuple[str, tuple[float, ...]], tuple[tuple[tuple[float, float], ...], int]] = {}
_MEMO_LIMIT = 256


def forget_parts() -> None:
    """Let go of the parts' meshes and profiles read for plates (at the end of a plates phase)."""
    _MESHES.clear()
    _PROFILES.clear()


def _part_bytes(pj: PlateJob, file: str, out_dir: Path, doing: str) -> bytes:
    """The STL file of the part ``file`` of the plate, which must still be the bytes the plate
    was planned with (``doing``: what the plate was when it changed, "made" or "sliced")."""
    data = (out_dir / file).read_bytes()
    if hashlib.sha256(data).hexdigest() != pj.inputs[file]:
        raise BuildError(f"plate {pj.file}: {file} changed while the plate was {doing}; build again")
    return data


def _part_mesh(pj: PlateJob, file: str, out_dir: Path) -> Any:
    """The mesh of the part ``file`` of the plate, read from its STL file (which must still be
    the bytes the plate was planned with)."""
    from stratstone_cad.printing.stl import read_stl_mesh  # numpy: only where a plate is written

    data = _part_bytes(pj, file, out_dir, "made")
    sha = pj.inputs[file]
    mesh = _MESHES.get(sha)  # one look: another thread may forget it meanwhile
    if mesh is None:
        if len(_MESHES) >= _MEMO_LIMIT or len(_PROFILES) >= _MEMO_LIMIT:
            forget_parts()
        mesh = _MESHES[sha] = read_stl_mesh(data)
    return mesh


def slice_cost(pj: PlateJob, out_dir: Path) -> float:
    """A guess at how long PrusaSlicer takes to slice the plate, to start the longest slices
    first (a long one started last keeps one core at work alone at the end): the length of
    the outlines of all its layers, which PrusaSlicer's perimeters follow (each part's area
    of its sides over the profile's layer height, times its copies, in mm). Measured on the
    default set's 17 plates, it puts the two terrain piece plates and the Sage Stones board
    (6-10 s each on one core) ahead of the stones and gems (3-7 s) and the other boards
    (0.6-1.5 s); a plate's size in bytes, the order before, put the Sage Stones board last."""
    import numpy as np

    total = 0.0
    for part in pj.plate.parts():
        mesh = _part_mesh(pj, part.file, out_dir)
        corners = mesh.vertices[mesh.triangles]
        normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
        side_area = float(np.hypot(normals[:, 0], normals[:, 1]).sum()) / 2
        total += len(pj.plate.offsets(part)) * side_area / pj.profile.layer_height_mm
    return total


def plate_entry(pj: PlateJob, data: bytes, objects: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The manifest entry of a plate written with ``data``."""
    return {
        "file": pj.file, "game": pj.game, "part": "plate", "plate": pj.job, "index": pj.index, "of": pj.of,
        "printer": pj.printer, "profile": {"name": pj.profile.name, "layer_height_mm": pj.profile.layer_height_mm,
                                           "first_layer_height_mm": pj.profile.first_layer_height_mm},
        "ironing": pj.ironing, "seam": pj.seam, "colours": [c for c, _ in pj.colours], "objects": objects,
        "copies": len(pj.plate.placements), "key": key, "sha256": hashlib.sha256(data).hexdigest(),
        # the parts it holds, with the sha256 they were made from: a plate leaves the manifest with them
        "inputs": dict(sorted(pj.inputs.items())),
    }


# --------------------------------------------------------------------------- print figures


#: The slices of a plate's figures: as it is set, without its ironing (what the ironing
#: costs), at its profile's flat layers (what its adaptive layers save). Names as the
#: manifest's ``print.slices`` records them, and as the report says them.
SLICE_KINDS = {"as_set": "as set", "no_ironing": "without ironing", "flat": "at flat layers"}


def slice_inputs(pj: PlateJob, out_dir: Path, plates: PlateParams, code: str) -> dict[str, dict[str, Any]]:
    """What PrusaSlicer sees of each slice of the plate's figures (a kind of
    :data:`SLICE_KINDS` -> a description whose hash goes into the slice's key), told by what
    the 3MF it is given is made of rather than by its bytes (writing them takes a second or
    three a plate, and most plates' variants are never written): each object in the file's
    order as the sha256 of its part's triangles (its STL file less the header, which names
    it), where its copies are, which filament prints it (by its place in the plate's
    palette) and whether it has an adaptive layer profile (with the bounds it is made
    with); the profile's layer heights, the ironing, the seam, the number
    of filaments, the printer, and the code and libraries that write the file. What the file
    has besides (the names of the plate, its parts and its filaments, their colours, the
    UUIDs made from names, this program's version) changes no figure, so plates that
    differ only in those have the same inputs. A variant is the plate with one setting
    changed: no ironing, or no layer profiles (as :func:`slice_files` writes it)."""
    palette = {c: i for i, (c, _) in enumerate(pj.colours)}
    objects = [{"mesh": _mesh_sha256(pj, part.file, out_dir), "filament": palette[pj.part_colours[part.file]],
                "copies": list(pj.plate.offsets(part)), "adaptive": part.file in pj.adaptive}
               for part in pj.plate.parts()]
    common = {"objects": objects, "filaments": len(pj.colours), "printer": pj.printer, "bed_mm": pj.bed_mm,
              "layers_mm": [pj.profile.layer_height_mm, pj.profile.first_layer_height_mm],
              "bounds": [plates.adaptive_step_mm, plates.adaptive_min_layer_mm, plates.adaptive_max_layer_mm]
              if pj.adaptive else None, "seam": pj.seam, "code": code, "libraries": _library_versions()}
    inputs = {"as_set": {**common, "ironing": pj.ironing}}
    if pj.ironing != "none":
        inputs["no_ironing"] = {**common, "ironing": "none"}
    if pj.adaptive:
        inputs["flat"] = {**common, "ironing": pj.ironing, "bounds": None,
                          "objects": [{**o, "adaptive": False} for o in objects]}
    return inputs


def _mesh_sha256(pj: PlateJob, file: str, out_dir: Path) -> str:
    """sha256 of the triangles of the part ``file`` of the plate (its binary STL file after
    the 80 bytes of its header, which names the part)."""
    return hashlib.sha256(memoryview(_part_bytes(pj, file, out_dir, "sliced"))[80:]).hexdigest()


def slice_files(pj: PlateJob, kinds: Sequence[str], sha256: str, out_dir: Path, plates: PlateParams,
                version: str) -> dict[str, bytes]:
    """The 3MF PrusaSlicer slices for each slice of ``kinds`` of the plate (written with
    ``sha256``): the plate's own bytes, or them with one setting changed (no ironing, or the
    profile's flat layers instead of the adaptive ones): each file of the package the text
    :func:`plate_bytes` writes for the plate with that setting, made from the plate's own
    package without writing its meshes again
    (:func:`~stratstone_cad.printing.threemf.plate_variant`).

    Raises:
        BuildError: a plate file changed while it was sliced.
    """
    from stratstone_cad.printing.threemf import plate_variant  # only where a plate is sliced

    data = (out_dir / pj.file).read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise BuildError(f"plate {pj.file}: changed while it was sliced; build again")
    files = {"as_set": data} if "as_set" in kinds else {}
    if variants := [k for k in kinds if k != "as_set"]:
        objects, _ = _plate_objects(pj, out_dir, plates)
        for kind in variants:
            if kind == "no_ironing":
                files[kind] = plate_variant(data, objects, _settings(pj, pj.title(), pj.colours, "none"), version)
            else:  # flat: as the plate of the same parts with no adaptive one is written
                files[kind] = plate_variant(data, [replace(o, layer_profile=()) for o in objects],
                                            _settings(pj, pj.title(), pj.colours), version)
    return files


#: What a plate's figures take from each of its slices (of PrusaSlicer's figures, as
#: :meth:`~stratstone_cad.printing.slicing.SliceStats.as_dict` gives them).
SLICE_FIGURES = {"as_set": ("time_s", "filament_m", "filament_g", "layers", "ironed"), "no_ironing": ("time_s",),
                 "flat": ("time_s", "layers")}


def known_slices(figures: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """What a plate's ``print`` figures say of each of its slices: (slice key, the
    :data:`SLICE_FIGURES` of its kind), worked back from the figures :func:`print_figures` made."""
    keys = figures.get("slices") or {}
    out = []
    if "as_set" in keys:
        out.append((keys["as_set"], {k: figures[k] for k in SLICE_FIGURES["as_set"]}))
    if "no_ironing" in keys:
        out.append((keys["no_ironing"], {"time_s": figures["time_s"] - figures["ironing_time_s"]}))
    if "flat" in keys:
        out.append((keys["flat"], {"time_s": figures["flat_time_s"], "layers": figures["flat_layers"]}))
    return out


def known_figures(entries: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """What the plates of a manifest's ``entries`` say of their slices: slice key -> the
    figures their ``print`` records of it (:func:`known_slices` of each)."""
    known: dict[str, dict[str, Any]] = {}
    for f, e in entries.items():
        if f.endswith(".3mf") and e.get("print"):
            for key, figures in known_slices(e["print"]):
                known.setdefault(key, {}).update(figures)
    return known


def print_figures(sliced: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A plate's figures from its slices' (kind -> PrusaSlicer's figures): its print time,
    filament and layers; for a plate with ironing, what the ironing costs (the time it
    adds to the plate sliced without it); for a plate of adaptive layers, the same plate
    at the profile's flat layers."""
    main = sliced["as_set"]
    figures: dict[str, Any] = {k: main[k] for k in SLICE_FIGURES["as_set"]}
    if "no_ironing" in sliced:
        figures["ironing_time_s"] = main["time_s"] - sliced["no_ironing"]["time_s"]
    if "flat" in sliced:
        figures["flat_time_s"] = sliced["flat"]["time_s"]
        figures["flat_layers"] = sliced["flat"]["layers"]
    return figures


def duration(seconds: float) -> str:
    """``2 h 05 min`` or ``38 min``."""
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _parts_text(entry: Mapping[str, Any]) -> str:
    objects = entry.get("objects", [])
    if len(objects) > 3 and all(o["copies"] == 1 for o in objects):
        names = sorted(o["name"] for o in objects)
        return f"{len(objects)}: {names[0]} ... {names[-1]}"
    return ", ".join(f"{o['copies']} x {o['name']}" if o["copies"] > 1 else o["name"] for o in objects)


def report_markdown(entries: Sequence[Mapping[str, Any]], version: str, note: str) -> str:
    """output/print-report.md: per game, each plate's parts, layers, PrusaSlicer's print
    time and filament, the cost of its ironing and the effect of its adaptive layers; totals."""
    lines = ["# Print report", "",
             f"Made by stratstone-cad {version}. {note}", ""]
    total_s = total_g = total_m = 0.0
    for game in sorted({e["game"] for e in entries}):
        lines += [f"## {game}", "",
                  "| plate | parts | layers | print time | filament | ironing | adaptive layers against flat |",
                  "| --- | --- | ---: | ---: | ---: | --- | --- |"]
        game_s = game_g = game_m = 0.0
        for e in sorted((e for e in entries if e["game"] == game), key=lambda e: e["file"]):
            p = e.get("print")
            prof = e["profile"]
            counts = sorted(o["adaptive_layers"] for o in e["objects"] if o.get("adaptive_layers"))
            if counts:
                span = f"{counts[0]}-{counts[-1]}" if counts[0] != counts[-1] else f"{counts[0]}"
                layers = f"{span} a part, adaptive"
            else:
                layers = f"{p['layers']} of {prof['layer_height_mm']:g} mm" if p else f"{prof['layer_height_mm']:g} mm"
            ironing, adaptive, time, fil = e["ironing"], "-" if not counts else "yes", "-", "-"
            if p:
                time, fil = duration(p["time_s"]), f"{p['filament_g']:g} g, {p['filament_m']:g} m"
                game_s += p["time_s"]
                game_g += p["filament_g"]
                game_m += p["filament_m"]
                if "ironing_time_s" in p:
                    ironing += f" (+{duration(p['ironing_time_s'])})"
                if "flat_time_s" in p:
                    saved = p["flat_time_s"] - p["time_s"]
                    adaptive = (f"flat {prof['layer_height_mm']:g} mm instead: {p['flat_layers']} layers, "
                                f"{duration(p['flat_time_s'])} ({'saves' if saved >= 0 else 'costs'} "
                                f"{duration(abs(saved))})")
            lines.append(f"| {e['file']} | {_parts_text(e)} | {layers} | {time} | {fil} | {ironing} | {adaptive} |")
        if game_s:
            lines.append(f"| **{game}, all plates** | | | **{duration(game_s)}** | **{game_g:.1f} g, {game_m:.2f} m** | | |")
        lines.append("")
        total_s, total_g, total_m = total_s + game_s, total_g + game_g, total_m + game_m
    if total_s:
        lines += [f"All games: {duration(total_s)} of printing, {total_g:.1f} g and {total_m:.2f} m of filament.", ""]
    return "\n".join(lines + _shared_lines(entries))


def _shared_lines(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """The report's closing paragraph: which plates share figures (the keys of their
    slices, as the manifest records them, are the same), and the figures of which slices."""
    uses: dict[str, set[tuple[str, str]]] = {}  # slice key -> (plate, kind)
    for e in entries:
        for kind, key in ((e.get("print") or {}).get("slices") or {}).items():
            uses.setdefault(key, set()).add((e["file"], kind))
    rank = {k: i for i, k in enumerate(SLICE_KINDS)}
    shared: dict[tuple[str, ...], set[tuple[int, str]]] = {}  # plates sharing slices -> (rank, which)
    for used in uses.values():
        files = tuple(sorted({f for f, _ in used}))
        if len(files) > 1:
            kinds = sorted(used, key=lambda fk: (rank[fk[1]], fk[0]))
            what = SLICE_KINDS[kinds[0][1]] if len({k for _, k in kinds}) == 1 else \
                "; ".join(f"{f} {SLICE_KINDS[k]}" for f, k in kinds)  # one plate's slice is another's variant
            shared.setdefault(files, set()).add((rank[kinds[0][1]], what))
    if not shared:
        return []
    lines = ["Shared figures: plates that PrusaSlicer sees as the same (the same parts in the same places with the "
             "same settings, their colours and names aside) are sliced once. These plates share the figures of the "
             "slices named (as set, without ironing, at flat layers):", ""]
    lines += [f"- {', '.join(files)}: {', '.join(w for _, w in sorted(what))}" for files, what in sorted(shared.items())]
    return [*lines, ""]
