"""The settings a print plate carries for each slicer, in the files and key names each reads.

Pure text: the 3MF writer (:mod:`stratstone_cad.printing.threemf`) puts them in the package.
Where each slicer reads what (checked in its source, and for PrusaSlicer by slicing):

PrusaSlicer (prusa3d/PrusaSlicer, src/libslic3r/Format/3mf.cpp):
  - ``Metadata/Slic3r_PE.config``: the print-wide settings as ``; key = value`` lines, read
    from the end upwards by ``ConfigBase::load_from_gcode_string_legacy`` (Config.cpp), which
    never reads the first line: the file starts with a comment line and a blank one, as
    PrusaSlicer's own. Keys it does not know are ignored; missing ones keep the user's
    (or the command line's) values. ``first_layer_height`` is print-wide only (PrintConfig).
  - ``Metadata/Slic3r_PE_model.config``: per object (``<object id>`` = the 3MF object's
    resource id) the keys of PrintObjectConfig / PrintRegionConfig (``layer_height``, the
    ironing keys, ``seam_position`` = ``rear`` | ``aligned`` | ``nearest`` | ``random``,
    also print-wide above) and a ``<volume firstid lastid>`` spanning all its triangles (0-based,
    inclusive; triangles outside every volume are dropped by the reader).
  - the bed the plate was arranged for, in ``Slic3r_PE.config``: ``bed_shape`` (its corners,
    ``0x0,250x0,250x210,0x210``) and ``max_print_height``; given nothing but the file
    (``prusa-slicer --export-gcode plate.3mf``), PrusaSlicer slices on that bed and says so in
    the G-code's closing settings.
  - ``Metadata/Slic3r_PE_layer_heights_profile.txt``: ``object_id=N|z;h;z;h;...`` with N
    the 1-based index of the object among the model's objects, z from the object's bottom,
    the last z its height (else the profile is dropped: PrintObject::update_layer_height_profile),
    at least three pairs; the first layer is always ``first_layer_height``.
OrcaSlicer / Bambu Studio (SoftFever/OrcaSlicer, src/libslic3r/Format/bbs_3mf.cpp;
``_add_model_config_file_to_archive`` writes and ``_handle_start_config_object`` reads):
  - ``Metadata/model_settings.config``: ``<object id>`` = the build item's object id, its
    ``<metadata key value>`` set on the object's config (``layer_height``, ``ironing_type``,
    ``extruder``: the 1-based filament), a ``<part id subtype="normal_part">`` naming the
    object that holds the mesh, and one ``<plate>``.
  - ``Metadata/project_settings.config``: one flat JSON object (``ConfigBase::load_from_json``,
    Config.cpp); ``initial_layer_print_height`` is print-wide (PrintConfig), and so is the
    bed: ``printable_area`` (its corners as strings, ``["0x0", "250x0", ...]``) and
    ``printable_height``.
  - ``Metadata/layer_heights_profile.txt``: as PrusaSlicer's.
  Key names from src/libslic3r/PrintConfig.cpp: ``layer_height`` (PrintObjectConfig),
  ``initial_layer_print_height`` (PrintConfig), ``ironing_type`` = ``no ironing`` | ``top``
  | ``topmost`` | ``solid`` (PrintRegionConfig), ``seam_position`` = ``nearest`` | ``aligned``
  | ``back`` | ``random`` (PrintObjectConfig: PrusaSlicer's ``rear`` is ``back``), ``filament_colour``. OrcaSlicer reads a
  third-party 3MF's per-object settings; Bambu Studio keeps them only from files its own
  version wrote (Plater::priv::load_files resets them otherwise) and then falls back to
  the object colours below.
Cura (Ultimaker/libSavitar src/SceneNode.cpp ``fillByXMLNode``; Ultimaker/Cura
plugins/3MFReader/ThreeMFReader.py ``_convertSavitarNodeToUMNode``):
  - per object, ``<metadatagroup><metadata name="cura:KEY">`` in 3D/3dmodel.model, set on the
    object's own settings. Only settings "settable_per_mesh" (fdmprinter.def.json) take
    effect there: the ironing ones do; ``layer_height`` and ``layer_height_0`` do not (the
    engine slices every object at the print's layer height), so a Cura user picks 0.15 mm
    or 0.3 mm in the print profile, as the plate's title says. The seam's are
    (fdmprinter.def.json): ``z_seam_type`` = ``back`` (at a point the user names) |
    ``shortest`` | ``random`` | ``sharpest_corner``, and for ``back`` the point,
    ``z_seam_x``, ``z_seam_y`` and ``z_seam_relative`` (to each part's centre, else the bed's).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

__all__ = ["CURA_NS", "ObjectSettings", "PlateSettings", "cura_settings", "orca_model_settings",
           "orca_project_settings", "prusa_layer_profile", "prusa_model_config", "prusa_print_config"]

CURA_NS = "http://software.ultimaker.com/xml/cura/3mf/2015/10"
PLA_DENSITY_G_PER_CM3 = 1.24  # so the slicer states filament in grams too
FILAMENT_DIAMETER_MM = 1.75


@dataclass(frozen=True)
class PlateSettings:
    """What a plate's print needs: its profile's layers and its ironing."""

    title: str  # "Stratstone: red stones (piece profile, 0.15 mm layers)"
    layer_height_mm: float
    first_layer_height_mm: float
    ironing: str  # "topmost", "top" or "none"
    seam: str  # "rear", "aligned", "nearest" or "random" (PrusaSlicer's names)
    colours: tuple[tuple[str, str], ...]  # the plate's filaments: (colour name, "#RRGGBB"), in order
    #: the bed the plate was arranged on: (x, y) in mm from its front left corner, and the
    #: build height in mm (None when the printer names none)
    bed_mm: tuple[float, float]
    bed_height_mm: float | None


@dataclass(frozen=True)
class ObjectSettings:
    """One object of a plate: its 3MF resource id, name, triangles, filament (1-based
    index into the plate's colours), its copies' transforms and its layer-height profile
    (``(z, h)`` pairs, empty for the plate's flat layers)."""

    object_id: int
    name: str
    triangles: int
    filament: int
    offsets: tuple[tuple[float, float], ...]
    layer_profile: tuple[tuple[float, float], ...] = ()


def bed_corners(s: PlateSettings) -> list[str]:
    """The bed's outline as both slicers write it: its four corners, ``"XxY"``, counter-clockwise
    from the front left."""
    x, y = (_num(v) for v in s.bed_mm)
    return ["0x0", f"{x}x0", f"{x}x{y}", f"0x{y}"]


def _num(x: float) -> str:
    """A number as the slicers write it: no trailing zeros, no exponent."""
    text = f"{x:.6f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


# --------------------------------------------------------------------------- PrusaSlicer

def _prusa_ironing(ironing: str) -> dict[str, str]:
    if ironing == "none":
        return {"ironing": "0"}
    return {"ironing": "1", "ironing_type": ironing}


def prusa_print_config(s: PlateSettings) -> str:
    """Metadata/Slic3r_PE.config: the plate's print-wide settings."""
    keys = {
        "layer_height": _num(s.layer_height_mm),
        "first_layer_height": _num(s.first_layer_height_mm),
        **_prusa_ironing(s.ironing),
        "seam_position": s.seam,
        "filament_density": _num(PLA_DENSITY_G_PER_CM3),
        "filament_diameter": _num(FILAMENT_DIAMETER_MM),
        "filament_colour": s.colours[0][1] if s.colours else "#FFFFFF",
        # the printer's bed: the plate lands on it whatever printer the slicer had chosen
        "bed_shape": ",".join(bed_corners(s)),
        **({"max_print_height": _num(s.bed_height_mm)} if s.bed_height_mm is not None else {}),
    }
    # Read from the last line upwards, never the first: a comment and a blank line lead.
    lines = [f"; {s.title}", ""] + [f"; {k} = {v}" for k, v in sorted(keys.items())]
    return "\n".join(lines) + "\n"


def prusa_model_config(s: PlateSettings, objects: Sequence[ObjectSettings]) -> str:
    """Metadata/Slic3r_PE_model.config: each object's name, layer heights and ironing, and
    the one volume of all its triangles."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<config>"]
    # first_layer_height is print-wide in PrusaSlicer (PrintConfig: Slic3r_PE.config sets it);
    # each object carries it too, so an object copied into another project keeps its profile.
    per_object = {"layer_height": _num(s.layer_height_mm), "first_layer_height": _num(s.first_layer_height_mm),
                  **_prusa_ironing(s.ironing), "seam_position": s.seam}
    for o in objects:
        out.append(f' <object id="{o.object_id}" instances_count="{len(o.offsets)}">')
        out.append(f'  <metadata type="object" key="name" value={quoteattr(o.name)}/>')
        out += [f'  <metadata type="object" key="{k}" value="{v}"/>' for k, v in sorted(per_object.items())]
        out.append(f'  <volume firstid="0" lastid="{o.triangles - 1}">')
        out.append(f'   <metadata type="volume" key="name" value={quoteattr(o.name)}/>')
        out.append("  </volume>")
        out.append(" </object>")
    out.append("</config>")
    return "\n".join(out) + "\n"


def prusa_layer_profile(objects: Sequence[ObjectSettings]) -> str:
    """Metadata/Slic3r_PE_layer_heights_profile.txt (also OrcaSlicer's
    Metadata/layer_heights_profile.txt): one line per object with a profile, by its
    1-based place among the plate's objects."""
    lines = []
    for n, o in enumerate(objects, 1):
        if o.layer_profile:
            lines.append(f"object_id={n}|" + ";".join(f"{_num(z)};{_num(h)}" for z, h in o.layer_profile))
    return "\n".join(lines) + "\n" if lines else ""


# --------------------------------------------------------------------------- OrcaSlicer / Bambu Studio

def _orca_ironing(ironing: str) -> str:
    return "no ironing" if ironing == "none" else ironing


#: PrusaSlicer's seam positions in OrcaSlicer's and Bambu Studio's words.
ORCA_SEAMS = {"rear": "back", "aligned": "aligned", "nearest": "nearest", "random": "random"}


def orca_project_settings(s: PlateSettings, version: str) -> str:
    """Metadata/project_settings.config: the plate's print-wide settings and filament colours."""
    data = {
        "name": "project_settings",
        "from": "project",
        "version": version,
        "layer_height": _num(s.layer_height_mm),
        "initial_layer_print_height": _num(s.first_layer_height_mm),
        "ironing_type": _orca_ironing(s.ironing),
        "seam_position": ORCA_SEAMS[s.seam],
        "filament_colour": [c for _, c in s.colours] or ["#FFFFFF"],
        "filament_density": [_num(PLA_DENSITY_G_PER_CM3)] * max(1, len(s.colours)),
        "filament_diameter": [_num(FILAMENT_DIAMETER_MM)] * max(1, len(s.colours)),
        "printable_area": bed_corners(s),
        **({"printable_height": _num(s.bed_height_mm)} if s.bed_height_mm is not None else {}),
    }
    return json.dumps(data, indent=4, sort_keys=True) + "\n"


def orca_model_settings(s: PlateSettings, objects: Sequence[ObjectSettings]) -> str:
    """Metadata/model_settings.config: per object its name, filament, layer height and
    ironing, its part, and the plate with every instance."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<config>"]
    for o in objects:
        out.append(f'  <object id="{o.object_id}">')
        out.append(f'    <metadata key="name" value={quoteattr(o.name)}/>')
        out.append(f'    <metadata key="extruder" value="{o.filament}"/>')
        out.append(f'    <metadata key="layer_height" value="{_num(s.layer_height_mm)}"/>')
        out.append(f'    <metadata key="ironing_type" value="{_orca_ironing(s.ironing)}"/>')
        out.append(f'    <metadata key="seam_position" value="{ORCA_SEAMS[s.seam]}"/>')
        out.append(f'    <part id="{o.object_id}" subtype="normal_part">')
        out.append(f'      <metadata key="name" value={quoteattr(o.name)}/>')
        out.append("    </part>")
        out.append("  </object>")
    out.append("  <plate>")
    out.append('    <metadata key="plater_id" value="1"/>')
    out.append('    <metadata key="locked" value="false"/>')
    for o in objects:
        for i in range(len(o.offsets)):
            out.append("    <model_instance>")
            out.append(f'      <metadata key="object_id" value="{o.object_id}"/>')
            out.append(f'      <metadata key="instance_id" value="{i}"/>')
            out.append("    </model_instance>")
    out.append("  </plate>")
    out.append("</config>")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- Cura

#: PrusaSlicer's seam positions as Cura's ``z_seam_type``: its "back" is a point the user
#: names, each part's seam in the corner nearest it (CURA_REAR_SEAM makes that the rear).
CURA_SEAMS = {"rear": "back", "aligned": "sharpest_corner", "nearest": "shortest", "random": "random"}
#: The point of Cura's "back" seam: relative to each part's centre (not the bed's, which
#: would turn the seams of the parts on the left and right towards the bed's middle),
#: a metre straight behind it, so each part's seam is near its rearmost point (Cura's
#: corner preference, ``z_seam_corner``, still the user's).
CURA_REAR_SEAM = {"z_seam_relative": "True", "z_seam_x": "0", "z_seam_y": "1000"}


def cura_settings(s: PlateSettings) -> dict[str, str]:
    """The per-object settings Cura applies (settable per mesh): the ironing and the seam."""
    return {
        "ironing_enabled": "False" if s.ironing == "none" else "True",
        "ironing_only_highest_layer": "True" if s.ironing == "topmost" else "False",
        "z_seam_type": CURA_SEAMS[s.seam],
        **(CURA_REAR_SEAM if s.seam == "rear" else {}),
    }
