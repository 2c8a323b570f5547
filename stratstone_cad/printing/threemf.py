"""A print plate as a 3MF package, written with lib3mf (the 3MF Consortium's library).

One mesh object per distinct part, named after it (``stone-red-03``), in millimetres,
its colour a 3MF base material (``<basematerials>``: the colour's name and display
colour); one build item per copy, moved to its place on the bed; the slicers' settings
files (:mod:`stratstone_cad.printing.slicer_settings`) as attachments, and Cura's per-object
settings as object metadata.

Deterministic: lib3mf writes the zip entries with a fixed date; the production
extension's UUIDs, random by default, are derived here from the plate's and the parts'
names, so the same plate gives the same bytes.
"""

from __future__ import annotations

import ctypes
import io
import re
import uuid
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

import numpy as np

from stratstone_cad.base.colours import rgb
from stratstone_cad.printing.checks import Mesh
from stratstone_cad.printing.slicer_settings import (
    CURA_NS,
    ObjectSettings,
    PlateSettings,
    cura_settings,
    orca_model_settings,
    orca_project_settings,
    prusa_layer_profile,
    prusa_model_config,
    prusa_print_config,
)

__all__ = ["PlateObject", "object_settings", "plate_3mf", "plate_variant", "settings_files"]

GENERATOR = "stratstone-cad"
#: Relationship type of the slicers' settings files (they read them by name, not by relationship).
SETTINGS_REL = "http://schemas.stratstone-cad.org/3mf/2026/slicer-settings"
_UUID_ROOT = uuid.UUID("5f0e1c7a-3a52-4a43-9d0b-6a1e3c2f7b10")  # this project's namespace for uuid5

@dataclass(frozen=True)
class PlateObject:
    """A part of the plate: its name, mesh, colour (a name of ``colours``) and where its
    copies go (x, y offsets, mm), and its adaptive layer profile (``(z, h)`` pairs or ``()``)."""

    name: str
    mesh: Mesh
    colour: str
    offsets: tuple[tuple[float, float], ...]
    layer_profile: tuple[tuple[float, float], ...] = ()


def _uuid(*names: str) -> str:
    return str(uuid.uuid5(_UUID_ROOT, "/".join(names)))


def _set_geometry(wrapper: object, obj: object, mesh: Mesh) -> None:
    """``MeshObject.SetGeometry`` from numpy arrays without a Python object per vertex (the
    binding's own method builds one ctypes structure per vertex and triangle: 10x slower)."""
    # start-up speed: lib3mf only where a plate is written
    import lib3mf

    v = np.ascontiguousarray(mesh.vertices, dtype=np.float32)
    t = np.ascontiguousarray(mesh.triangles, dtype=np.uint32)
    vertices = (lib3mf.Position * len(v)).from_buffer(v)
    triangles = (lib3mf.Triangle * len(t)).from_buffer(t)
    wrapper.checkError(obj, wrapper.lib.lib3mf_meshobject_setgeometry(  # type: ignore[attr-defined]
        obj._handle, ctypes.c_uint64(len(v)), vertices, ctypes.c_uint64(len(t)), triangles))  # type: ignore[attr-defined]


def plate_3mf(plate_name: str, objects: Sequence[PlateObject], settings: PlateSettings, version: str) -> bytes:
    """The bytes of the 3MF package of one plate.

    ``plate_name`` (``stratstone/stones-red``) seeds the UUIDs; each object's colour is one
    of ``settings.colours`` (the plate's filaments, name and ``#RRGGBB``); ``version`` is
    this program's, recorded as the package's ``Application``.
    """
    # start-up speed: lib3mf only where a plate is written
    import lib3mf

    w = lib3mf.get_wrapper()
    model = w.CreateModel()
    model.SetBuildUUID(_uuid(plate_name, "build"))
    meta = model.GetMetaDataGroup()
    meta.AddMetaData("", "Title", settings.title, "string", False)
    meta.AddMetaData("", "Application", f"{GENERATOR} {version}", "string", False)
    materials = model.AddBaseMaterialGroup()
    names = [c for c, _ in settings.colours]  # the filaments in the order the settings number them
    srgb = dict(settings.colours)
    missing = sorted({o.colour for o in objects} - set(names))
    if missing:
        raise ValueError(f"{plate_name}: colours {missing} are not among the plate's filaments")
    index = {}
    for c in names:
        r, g, b = rgb(srgb[c])
        index[c] = materials.AddMaterial(c, w.RGBAToColor(r, g, b, 255))
    cura = cura_settings(settings)
    described = object_settings(objects, settings)
    for o, d in zip(objects, described, strict=True):
        mo = model.AddMeshObject()
        if mo.GetModelResourceID() != d.object_id:  # the settings files name the objects by these ids
            raise RuntimeError(f"lib3mf numbered {o.name} {mo.GetModelResourceID()}, expected {d.object_id}")
        mo.SetName(o.name)
        mo.SetUUID(_uuid(plate_name, o.name))
        _set_geometry(w, mo, o.mesh)
        mo.SetObjectLevelProperty(materials.GetResourceID(), index[o.colour])
        group = mo.GetMetaDataGroup()
        for key, value in cura.items():
            group.AddMetaData(CURA_NS, key, value, "xs:string", False)
        for n, (x, y) in enumerate(o.offsets, 1):
            item = model.AddBuildItem(mo, w.GetTranslationTransform(x, y, 0.0))
            item.SetUUID(_uuid(plate_name, o.name, str(n)))
    files = settings_files(settings, described, version)
    for extension in sorted({path.rsplit(".", 1)[1] for path in files}):
        model.AddCustomContentType(extension, "text/plain")  # every part of the package has a content type
    for path, text in files.items():
        attachment = model.AddAttachment("/" + path, SETTINGS_REL)
        attachment.ReadFromBuffer(bytearray(text.encode("utf-8")))
    return bytes(model.QueryWriter("3mf").WriteToBuffer())


def object_settings(objects: Sequence[PlateObject], settings: PlateSettings) -> list[ObjectSettings]:
    """What the settings files say of each object of a plate. Its 3MF resource id is the
    one lib3mf gives it in :func:`plate_3mf`, which numbers a new model's resources in the
    order they are added: the colours first (1), then the objects (2, 3, ...); plate_3mf
    checks each."""
    names = [c for c, _ in settings.colours]
    return [ObjectSettings(i, o.name, len(o.mesh.triangles), names.index(o.colour) + 1, o.offsets, o.layer_profile)
            for i, o in enumerate(objects, 2)]


def settings_files(settings: PlateSettings, described: Sequence[ObjectSettings], version: str) -> dict[str, str]:
    """The slicers' settings files of a plate (package path -> text), in the order they are attached."""
    files = {
        "Metadata/Slic3r_PE.config": prusa_print_config(settings),
        "Metadata/Slic3r_PE_model.config": prusa_model_config(settings, described),
        "Metadata/project_settings.config": orca_project_settings(settings, version),
        "Metadata/model_settings.config": orca_model_settings(settings, described),
    }
    profile = prusa_layer_profile(described)
    if profile:
        files["Metadata/Slic3r_PE_layer_heights_profile.txt"] = profile
        files["Metadata/layer_heights_profile.txt"] = profile
    return files


#: The files of a plate's package that :func:`settings_files` writes, whichever it writes.
SETTINGS_PATHS = ("Metadata/Slic3r_PE.config", "Metadata/Slic3r_PE_model.config", "Metadata/project_settings.config",
                  "Metadata/model_settings.config", "Metadata/Slic3r_PE_layer_heights_profile.txt",
                  "Metadata/layer_heights_profile.txt")
_MODEL = "3D/3dmodel.model"
_MODEL_RELS = "3D/_rels/3dmodel.model.rels"
_CONTENT_TYPES = "[Content_Types].xml"


def plate_variant(data: bytes, objects: Sequence[PlateObject], settings: PlateSettings, version: str) -> bytes:
    """The package :func:`plate_3mf` writes for ``objects`` with ``settings``, made from
    ``data``, the one it wrote for the same objects with other settings (another ironing,
    no layer profiles): every file of the package holds the same text as plate_3mf's (only
    the zip's compression may differ), without the second of a second or so lib3mf takes
    to write a plate's meshes again. The settings files are written anew (those the new
    settings have no use for are left out, with their relationships and a content type no
    file has any more) and Cura's per-object settings in the model take the new values.
    Raises ValueError for a package plate_3mf did not write so (a settings file or a Cura
    setting it would add)."""
    described = object_settings(objects, settings)
    files = settings_files(settings, described, version)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = [(info, z.read(info)) for info in z.infolist()]
    present = {info.filename for info, _ in members}
    if added := [f for f in files if f not in present]:
        raise ValueError(f"the package has no {added[0]} to replace")
    gone = [f for f in SETTINGS_PATHS if f in present and f not in files]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for info, content in members:
            name = info.filename
            if name in gone:
                continue
            if name in files:
                content = files[name].encode("utf-8")
            elif name == _MODEL:
                content = _cura_values(content, cura_settings(settings), len(objects))
            elif name == _MODEL_RELS:
                for f in gone:
                    content = re.sub(rb'[ \t]*<Relationship [^>]*Target="/' + re.escape(f.encode()) + rb'"[^>]*/>\r?\n?',
                                     b"", content)
            elif name == _CONTENT_TYPES:
                used = {f.rsplit(".", 1)[1] for f in present - set(gone) if "." in f.rsplit("/", 1)[-1]}
                for ext in {f.rsplit(".", 1)[1] for f in gone} - used:
                    content = re.sub(rb'[ \t]*<Default [^>]*Extension="' + re.escape(ext.encode()) + rb'"[^>]*/>\r?\n?',
                                     b"", content)
            # a new entry of the same name and date: lib3mf's zip64 extra field holds the old sizes
            z.writestr(zipfile.ZipInfo(name, info.date_time), content, compress_type=zipfile.ZIP_DEFLATED,
                       compresslevel=1)
    return out.getvalue()


def _cura_values(model: bytes, values: dict[str, str], objects: int) -> bytes:
    """The model ``model`` with its objects' Cura settings set to ``values`` (each key is on each object)."""

    keys = b"|".join(re.escape(k.encode()) for k in values)
    seen = dict.fromkeys(values, 0)

    def value(m: re.Match[bytes]) -> bytes:
        key = m[2].decode()
        seen[key] += 1
        return m[1] + escape(values[key]).encode() + m[3]

    model = re.sub(rb'(<metadata name="[^"]*:(' + keys + rb')">)[^<]*(</metadata>)', value, model)
    if wrong := [k for k, n in seen.items() if n != objects]:
        raise ValueError(f"the package's model has {seen[wrong[0]]} Cura {wrong[0]} settings for {objects} objects")
    return model
