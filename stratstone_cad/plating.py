"""The print plates of a build (``build --plates``): plan them from the parts, key them, write them.

After the parts, the build groups them by print job (each part's ``Output.plate``: a
colour's stones, a colour's gems, a side's terrain pieces, a board's tiles), arranges each
job's copies on the printer's bed (:mod:`stratstone_cad.mesh.plates`) and writes one 3MF
per bed (:mod:`stratstone_cad.mesh.threemf`) with the slicers' settings: the job's
profile's layers, its ironing, and for the parts marked ``adaptive`` (stones, gems) a
variable layer-height profile (:mod:`stratstone_cad.mesh.adaptive`).

A plate is made from the STL files the build wrote, read back (a cached part is not
made again for its plate). Its key is derived as a part's is: the plate's file, its
parts' sha256, their placements, the settings and the code of the modules that write it
(with the lib3mf version). An unchanged plate is not written again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from .errors import BuildError
from .jobs import Output
from .mesh.plates import Part, Plate, arrange, plate_files
from .params import Colour, PlateParams, Printer, Profile

__all__ = ["PlateJob", "plan_plates", "plate_key", "write_plate"]

#: The modules that shape a plate's bytes, besides this one.
PLATE_MODULES = ("stratstone_cad.plating", "stratstone_cad.mesh.plates", "stratstone_cad.mesh.threemf",
                 "stratstone_cad.mesh.slicer_settings", "stratstone_cad.mesh.adaptive")
PLATE_DISTS = ("lib3mf", "numpy")
BOARD_COLOUR = "board"  # the colours.toml entry of a part without a colour
TITLES = {"piece": "pieces", "board": "board"}


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
    and sha256), in job order. Raises :class:`~stratstone_cad.mesh.plates.PlateError` for a
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
        names = list(dict.fromkeys(o.colour or BOARD_COLOUR for o in outs))
        palette = tuple((c, (colours.get(c) or colours[BOARD_COLOUR]).srgb) for c in names)
        ironing = plates.piece_ironing if profile.name == "piece" else plates.board_ironing
        adaptive = frozenset(o.file for o in outs if o.adaptive and plates.adaptive_layers)
        for i, (file, bed) in enumerate(zip(plate_files(game, job, len(beds)), beds, strict=True), 1):
            on = {p.part.file for p in bed.placements}
            out.append(PlateJob(
                file, game, job, i if len(beds) > 1 else None, len(beds) if len(beds) > 1 else None, bed, profile,
                ironing, adaptive & on, tuple(c for c in palette if any((o.colour or BOARD_COLOUR) == c[0]
                                                                           for o in outs if o.file in on)),
                {o.file: o.colour or BOARD_COLOUR for o in outs if o.file in on},
                {f: entries[f]["sha256"] for f in sorted(on)}, printer.name))
    return out


def plate_key(pj: PlateJob, plates: PlateParams, code: str) -> str:
    """sha256 of everything a plate's bytes come from: its plan, its parts' bytes, the
    settings and the adaptive bounds it uses, the writing code and library versions."""
    data = {
        "file": pj.file, "title": pj.title(), "ironing": pj.ironing, "profile": asdict(pj.profile),
        "colours": pj.colours, "part_colours": dict(sorted(pj.part_colours.items())), "inputs": dict(pj.inputs),
        "placements": [(p.part.name, p.part.file, p.copy, p.offset) for p in pj.plate.placements],
        "adaptive": sorted(pj.adaptive),
        "bounds": [plates.adaptive_min_layer_mm, plates.adaptive_max_layer_mm] if pj.adaptive else None,
        "code": code, "libraries": {d: metadata.version(d) for d in PLATE_DISTS},
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def plate_bytes(pj: PlateJob, out_dir: Path, plates: PlateParams, version: str) -> tuple[bytes, list[dict[str, Any]]]:
    """The 3MF of a plate, and what the manifest says of each object on it."""
    from .mesh.adaptive import adaptive_layers, slicer_profile
    from .mesh.slicer_settings import PlateSettings
    from .mesh.threemf import PlateObject, plate_3mf, read_stl_mesh

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
            tops = adaptive_layers(mesh, pj.profile.first_layer_height_mm, plates.adaptive_min_layer_mm,
                                   plates.adaptive_min_layer_mm, plates.adaptive_max_layer_mm)
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
    return plate_3mf(pj.file.removesuffix(".3mf"), objects, settings, dict(pj.colours), version), described


def write_plate(pj: PlateJob, out_dir: Path, plates: PlateParams, key: str, version: str) -> dict[str, Any]:
    """Write one plate atomically; returns its manifest entry."""
    from .fileio import atomic_write

    data, objects = plate_bytes(pj, out_dir, plates, version)
    atomic_write(out_dir / pj.file, data)
    return {
        "file": pj.file, "game": pj.game, "part": "plate", "plate": pj.job, "index": pj.index, "of": pj.of,
        "printer": pj.printer, "profile": {"name": pj.profile.name, "layer_height_mm": pj.profile.layer_height_mm,
                                           "first_layer_height_mm": pj.profile.first_layer_height_mm},
        "ironing": pj.ironing, "colours": [c for c, _ in pj.colours], "objects": objects,
        "copies": len(pj.plate.placements), "key": key, "sha256": hashlib.sha256(data).hexdigest(),
    }
