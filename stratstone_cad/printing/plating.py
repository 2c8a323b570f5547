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
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from stratstone_cad.base.params import BOARD_COLOUR, Colour, PlateParams, Printer, Profile, display_colour
from stratstone_cad.errors import BuildError
from stratstone_cad.printing.jobs import Output
from stratstone_cad.printing.plates import Part, Plate, arrange, plate_files

__all__ = ["PlateJob", "plan_plates", "plate_bytes", "plate_entry", "plate_key", "print_figures", "report_markdown"]

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
    adaptive: frozenset[str]  # the files printed at adaptive layer heights
    colours: tuple[tuple[str, str], ...]  # the plate's filaments: (name, "#RRGGBB")
    part_colours: Mapping[str, str]  # part file -> colour name
    inputs: Mapping[str, str]  # part file -> sha256
    printer: str

    def title(self) -> str:
        which = f", plate {self.index} of {self.of}" if self.index else ""
        return (f"{self.game} {self.job}{which}: {self.profile.name} profile, {self.profile.layer_height_mm:g} mm "
                f"layers ({self.profile.first_layer_height_mm:g} mm first)")


def plan_plates(outputs: Sequence[Output], entries: Mapping[str, Mapping[str, Any]], printer: Printer,
                profiles: Mapping[str, Profile], plates: PlateParams, colours: Mapping[str, Colour]) -> list[PlateJob]:
    """Every plate of the planned ``outputs`` (whose manifest ``entries`` hold their size
    and sha256), in job order. Raises :class:`~stratstone_cad.printing.plates.PlateError` for a
    part larger than the bed."""
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
                ironing, adaptive & set(on), palette, {f: colour_of[f] for f in on},
                {f: entries[f]["sha256"] for f in sorted(on)}, printer.name))
    return out


@functools.cache
def _library_versions() -> dict[str, str]:
    return {d: metadata.version(d) for d in PLATE_DISTS}  # about 1 ms each: once a build, not once a plate


def plate_key(pj: PlateJob, plates: PlateParams, code: str, version: str) -> str:
    """sha256 of everything a plate's bytes and entry come from: its plan, its parts' bytes,
    the settings and the adaptive bounds it uses, the printer, the writing code, this
    program's version (written into the package) and the libraries' versions."""
    data = {
        "file": pj.file, "title": pj.title(), "ironing": pj.ironing, "profile": asdict(pj.profile),
        "printer": pj.printer, "version": version,
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
    # start-up speed: numpy and lib3mf only where a plate is written
    from stratstone_cad.printing.adaptive import adaptive_layers, slicer_profile
    from stratstone_cad.printing.slicer_settings import PlateSettings
    from stratstone_cad.printing.threemf import PlateObject, plate_3mf, read_stl_mesh

    objects, described = [], []
    for part in pj.plate.parts():
        data = (out_dir / part.file).read_bytes()
        if hashlib.sha256(data).hexdigest() != pj.inputs[part.file]:
            raise BuildError(f"plate {pj.file}: {part.file} changed while the plate was made; build again")
        mesh = read_stl_mesh(data)
        offsets = tuple(p.offset for p in pj.plate.placements if p.part == part)
        profile: tuple[tuple[float, float], ...] = ()
        layers = None
        if part.file in pj.adaptive:
            tops = adaptive_layers(mesh, pj.profile.first_layer_height_mm, cusp_mm=plates.adaptive_step_mm,
                                   min_mm=plates.adaptive_min_layer_mm, max_mm=plates.adaptive_max_layer_mm)
            profile, layers = slicer_profile(tops), len(tops)
        # Each copy its own object: a slicer that reads a third-party 3MF splits the
        # instances of one object into objects, and PrusaSlicer then keeps the settings
        # and the layer profile on the first copy only (seen slicing 10 gems).
        for n, offset in enumerate(offsets, 1):
            name = part.name if len(offsets) == 1 else f"{part.name}-{n:02d}"
            objects.append(PlateObject(name, mesh, pj.part_colours[part.file], (offset,), profile))
        described.append({"name": part.name, "file": part.file, "copies": len(offsets), "triangles": len(mesh.triangles),
                          "adaptive_layers": layers})
    settings = PlateSettings(pj.title(), pj.profile.layer_height_mm, pj.profile.first_layer_height_mm, pj.ironing,
                             pj.colours)
    return plate_3mf(pj.file.removesuffix(".3mf"), objects, settings, version), described


def plate_entry(pj: PlateJob, data: bytes, objects: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The manifest entry of a plate written with ``data``."""
    return {
        "file": pj.file, "game": pj.game, "part": "plate", "plate": pj.job, "index": pj.index, "of": pj.of,
        "printer": pj.printer, "profile": {"name": pj.profile.name, "layer_height_mm": pj.profile.layer_height_mm,
                                           "first_layer_height_mm": pj.profile.first_layer_height_mm},
        "ironing": pj.ironing, "colours": [c for c, _ in pj.colours], "objects": objects,
        "copies": len(pj.plate.placements), "key": key, "sha256": hashlib.sha256(data).hexdigest(),
        # the parts it holds, with the sha256 they were made from: a plate leaves the manifest with them
        "inputs": dict(sorted(pj.inputs.items())),
    }


# --------------------------------------------------------------------------- print figures


def print_figures(pj: PlateJob, entry: Mapping[str, Any], out_dir: Path, plates: PlateParams, version: str,
                  exe: str, slicer: str, printer: Printer) -> dict[str, Any]:
    """PrusaSlicer's figures for a written plate: its print time, filament and layers; for
    a plate with ironing, what the ironing costs (the plate sliced without it); for a plate
    of adaptive layers, the same plate at the profile's flat layers. Each variant is the
    plate's own bytes with that one setting changed."""
    # start-up speed: the slicer's runner only where the print report slices
    from stratstone_cad.printing.slicing import slice_plate

    data = (out_dir / pj.file).read_bytes()
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise BuildError(f"plate {pj.file}: changed while it was sliced; build again")
    main = slice_plate(exe, data, printer, f"plate {pj.file}")
    figures: dict[str, Any] = {"slicer": slicer, "plate_sha256": entry["sha256"], **main.as_dict()}
    if pj.ironing != "none":
        plain = slice_plate(exe, plate_bytes(replace(pj, ironing="none"), out_dir, plates, version)[0], printer,
                            f"plate {pj.file} without ironing")
        figures["ironing_time_s"] = main.time_s - plain.time_s
    if pj.adaptive:
        flat = slice_plate(exe, plate_bytes(replace(pj, adaptive=frozenset()), out_dir, plates, version)[0], printer,
                           f"plate {pj.file} at flat layers")
        figures["flat_time_s"] = flat.time_s
        figures["flat_layers"] = flat.layers
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
    return "\n".join(lines)
