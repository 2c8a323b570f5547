"""Solids and assemblies as file bytes: STEP (AP214, millimetres) and binary glTF (metres).

Every writer here returns the same bytes for the same input, call after call and process
after process, so a file can be cached by its key, compared and committed. OpenCascade's
writers are not like that by themselves; what varies, and what is done about it:

- **The header's time stamp** (CadQuery issue 1396): ``FILE_NAME`` holds the wall-clock
  time. After the transfer and before the write, :func:`_fix_header` sets the header
  with ``APIHeaderSection_MakeHeader``: :data:`TIME_STAMP`, the product's (or the
  assembly's) name as the file's name, empty author, organisation and authorisation,
  :data:`ORIGINATING_SYSTEM`. The preprocessor version stays OpenCascade's
  (``Open CASCADE STEP processor 7.9``): it changes with the kernel only, and the
  kernel's version is in every cache key.
- **Options other code left behind.** The STEP writers read their options from
  ``Interface_Static``, one table per process, which CadQuery's own exporters change
  (``write_pcurves=False``, ``outputUnit="M"``, ``precision_mode``) and never restore.
  Every option that changes the file (:data:`_STATICS`) is set before each transfer.
- **Counters that live as long as the process.** The product of a lone shape is named
  ``Open CASCADE STEP translator 7.9 1`` (``write.step.product.name`` is ignored by
  OCCT 7.9), and an assembly's NEXT_ASSEMBLY_USAGE_OCCURRENCE ids go on counting from
  one assembly to the next (``'1'``, ``'2'`` in the first, ``'7'``, ``'8'`` in the
  second). :func:`part_step` names its product ``product``; :func:`assembly_step`
  numbers the occurrences 1, 2, ... in the model's order.
- **Colours in memory order.** ``STEPCAFControl_Writer`` keeps the presentation of each
  coloured part in a map hashed by the part's ``TShape`` address and adds them to the
  model, after everything else, in that map's order: two processes write the same
  entities in a different order (entity numbers from the first
  MECHANICAL_DESIGN_GEOMETRIC_PRESENTATION_REPRESENTATION on). :func:`_order_styles`
  sorts them by the parts they colour. No option or construction order avoids it: the
  map is keyed by addresses.
- **No temporary file for STEP.** The writers write into a ``BytesIO`` (``WriteStream``)
  and the reader reads from one (``ReadStream``): no path is made or left behind, and no
  temporary name can reach ``FILE_NAME``. The glTF writer takes only a path: it writes
  into a ``TemporaryDirectory`` that is removed before :func:`assembly_glb` returns.
- **glTF** needed nothing: its bytes were the same across processes and calls once its
  mesh is made from scratch (an older, finer triangulation on the caller's shapes would
  be kept by OpenCascade's mesher, so it is dropped first).

Names in STEP. ISO 10303-21 strings are printable ASCII in which ``'`` and ``\\`` are
doubled; OpenCascade doubles them itself, and ``/`` needs nothing, so ``it's`` and
``stratstone/stone-red-03`` are written validly and read back exactly. Any other character
would have to be written as a ``\\X2\\...\\X0\\`` escape, which OpenCascade cannot be made to
write (it doubles the escape's backslash; it writes UTF-8 raw and breaks its 72-column
lines inside a multi-byte character). So a STEP name must be printable ASCII, and
:func:`step_name` refuses any other with a one-line
:class:`~stratstone_cad.errors.ParameterError` naming the character. The glTF writer takes
the same names: glTF (JSON) could hold any text, but CadQuery's ``toCAF`` stores a name
through ``TCollection_ExtendedString``'s byte constructor, which reads UTF-8 as Latin-1,
so ``pièce`` would come out as ``piÃ¨ce``. Names CadQuery made up (an assembly or a part
added without a name is named by a random UUID) are refused by both: they would make
every file different.

Units. STEP: the shapes are millimetres and the file declares
``SI_UNIT(.MILLI.,.METRE.)``; :func:`read_step` returns millimetres whatever
``xstep.cascade.unit`` says. glTF: metres and Y up, as glTF asks (CadQuery's own
``exportGLTF`` writes millimetre numbers, so a viewer shows a 10 mm box 10 m wide): the
writer's coordinate converter maps (x, y, z) mm to (x, z, -y) / 1000 m.

OpenCascade's global state: the STEP options, and the messenger whose console printers
are off while a file is read or a glTF written (:func:`_quiet`), are per process; these
functions are not meant to run in two threads at once (the build runs CAD in worker
processes).
"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cadquery as cq
from cadquery.occ_impl.assembly import toCAF
from OCP.APIHeaderSection import APIHeaderSection_MakeHeader
from OCP.BRepGProp import BRepGProp
from OCP.GProp import GProp_GProps
from OCP.IFSelect import IFSelect_ReturnStatus
from OCP.Interface import Interface_Static
from OCP.Message import Message, Message_PrinterOStream, Message_ProgressRange
from OCP.Quantity import Quantity_TOC_sRGB
from OCP.RWGltf import RWGltf_CafWriter
from OCP.RWMesh import RWMesh_CoordinateSystem_glTF, RWMesh_CoordinateSystem_Zup
from OCP.StepBasic import StepBasic_Product
from OCP.STEPCAFControl import STEPCAFControl_Reader, STEPCAFControl_Writer
from OCP.STEPControl import STEPControl_AsIs, STEPControl_Reader, STEPControl_Writer
from OCP.StepData import StepData_SelectType
from OCP.StepRepr import StepRepr_NextAssemblyUsageOccurrence
from OCP.StepVisual import (
    StepVisual_Colour,
    StepVisual_CurveStyle,
    StepVisual_DraughtingPreDefinedCurveFont,
    StepVisual_FillAreaStyle,
    StepVisual_FillAreaStyleColour,
    StepVisual_OverRidingStyledItem,
    StepVisual_PresentationStyleAssignment,
    StepVisual_PresentationStyleByContext,
    StepVisual_StyledItem,
    StepVisual_SurfaceSideStyle,
    StepVisual_SurfaceStyleFillArea,
    StepVisual_SurfaceStyleRendering,
    StepVisual_SurfaceStyleRenderingWithProperties,
    StepVisual_SurfaceStyleTransparent,
    StepVisual_SurfaceStyleUsage,
)
from OCP.StepVisual import StepVisual_MechanicalDesignGeometricPresentationRepresentation as _MDGPR
from OCP.TCollection import TCollection_AsciiString, TCollection_ExtendedString, TCollection_HAsciiString
from OCP.TColStd import TColStd_IndexedDataMapOfStringString
from OCP.TDataStd import TDataStd_Name
from OCP.TDF import TDF_Label, TDF_LabelSequence
from OCP.TDocStd import TDocStd_Document
from OCP.TopAbs import TopAbs_SOLID
from OCP.TopExp import TopExp_Explorer
from OCP.XCAFApp import XCAFApp_Application
from OCP.XCAFDoc import XCAFDoc_DocumentTool, XCAFDoc_ShapeTool
from OCP.XCAFPrs import XCAFPrs_DocumentExplorer, XCAFPrs_DocumentExplorerFlags_OnlyLeafNodes
from OCP.XSControl import XSControl_WorkSession

from stratstone_cad.errors import GeometryError, ParameterError, short_repr
from stratstone_cad.occ.tessellate import mesh_in_place

TIME_STAMP = "1970-01-01T00:00:00"
"""The time stamp of every STEP header (ISO 8601, as ISO 10303-21 asks)."""

ORIGINATING_SYSTEM = "stratstone-cad"
"""The STEP header's originating system."""

_STATICS: tuple[tuple[str, str | int | float], ...] = (
    ("write.step.schema", "AP214IS"),  # OpenCascade's defaults unless said otherwise
    ("write.step.unit", "MM"),
    ("xstep.cascade.unit", "MM"),
    # No pcurves (a face's edges again in its surface's parameters): readers make them
    # (OpenCascade's reader does; the tests read every part back valid). With them the
    # Sage Stones board's STEP was 28 MB and 7.6 s to write, without 10.8 MB and 4.8 s.
    ("write.surfacecurve.mode", 0),
    ("write.precision.mode", 0),  # uncertainty: the shape's average tolerance
    ("write.precision.val", 1e-3),
    ("write.step.vertex.mode", 0),
    ("write.step.nonmanifold", 0),
    ("write.step.tessellated", 2),  # a triangulation is written only for a shape without B-rep
)
"""Every STEP writer option that changes the file, set before each transfer."""

_PART_STATICS: tuple[tuple[str, str | int | float], ...] = (
    ("write.step.assembly", 0),  # a compound is one product, not an assembly of made-up ones
)
_ASSEMBLY_STATICS: tuple[tuple[str, str | int | float], ...] = (
    ("write.step.assembly", 2),  # OpenCascade's default, "auto"
    ("write.stepcaf.subshapes.name", 1),  # as CadQuery's exportAssembly: named faces keep their names
)

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ASCII = re.compile(r"[ -~]*")


def step_name(name: str, what: str = "STEP product name") -> str:
    """``name`` if a STEP file can hold it as it is (printable ASCII: ISO 10303-21's
    strings without escapes, which OpenCascade cannot write), else a ParameterError.

    Raises:
        ParameterError: a character of the name cannot be written in STEP (printable ASCII only).
    """
    if not _ASCII.fullmatch(name):
        bad = next(ch for ch in name if not _ASCII.fullmatch(ch))
        raise ParameterError(f"{what} {short_repr(name, 200)}: character {short_repr(bad, 200)} "
                             "cannot be written in STEP, expected printable ASCII")
    return name


def _names(assy: cq.Assembly) -> None:
    """Refuse the names in ``assy`` that cannot be written, or would differ each time."""
    for _, node in assy.traverse():
        what = "assembly" if node is assy else f"assembly {short_repr(assy.name, 200)} part"
        if _UUID.fullmatch(node.name):
            raise ParameterError(f"{what} {node.name!r}: the name was made up by CadQuery (a random "
                                 "UUID), expected a name given to cadquery.Assembly or Assembly.add")
        step_name(node.name, what)


def _set_statics(statics: tuple[tuple[str, str | int | float], ...]) -> None:
    for key, value in statics:
        if isinstance(value, int):
            ok = Interface_Static.SetIVal_s(key, value)
        elif isinstance(value, float):
            ok = Interface_Static.SetRVal_s(key, value)
        else:
            ok = Interface_Static.SetCVal_s(key, value)
        if not ok:  # an option this OpenCascade does not know: fail rather than write another file
            raise RuntimeError(f"OpenCascade has no STEP writer option {key!r} (or refuses {value!r})")


def _fix_header(model: Any, name: str) -> None:
    header = APIHeaderSection_MakeHeader(model)
    header.SetName(TCollection_HAsciiString(name))
    header.SetTimeStamp(TCollection_HAsciiString(TIME_STAMP))
    header.SetAuthorValue(1, TCollection_HAsciiString(""))
    header.SetOrganizationValue(1, TCollection_HAsciiString(""))
    header.SetOriginatingSystem(TCollection_HAsciiString(ORIGINATING_SYSTEM))
    header.SetAuthorisation(TCollection_HAsciiString(""))


def _written(status: IFSelect_ReturnStatus, stream: io.BytesIO, what: str) -> bytes:
    if status != IFSelect_ReturnStatus.IFSelect_RetDone:
        raise GeometryError(f"{what}: OpenCascade could not write the STEP file ({status.name})")
    return stream.getvalue()


def part_step(shape: cq.Shape, product: str) -> bytes:
    """``shape`` (a solid, in millimetres) as a STEP AP214 file: one PRODUCT named
    ``product``, which is also the header's FILE_NAME name. A compound is written as one
    product too. ``product`` must be printable ASCII (see :func:`step_name`).

    Raises:
        GeometryError: the shape is empty, or OpenCascade cannot translate it to STEP.
    """
    step_name(product)
    if shape.wrapped is None or shape.wrapped.IsNull():
        raise GeometryError(f"{product}: the shape is empty, expected a solid")
    writer = STEPControl_Writer()  # the first writer of a process declares the options
    _set_statics(_STATICS + _PART_STATICS)
    if writer.Transfer(shape.wrapped, STEPControl_AsIs) != IFSelect_ReturnStatus.IFSelect_RetDone:
        raise GeometryError(f"{product}: OpenCascade could not translate the shape to STEP")
    model = writer.Model()
    it = model.Entities()
    it.SelectType(StepBasic_Product.get_type_descriptor_s(), True)
    it.Start()
    while it.More():
        it.Value().SetName(TCollection_HAsciiString(product))
        it.Value().SetId(TCollection_HAsciiString(product))
        it.Next()
    _fix_header(model, product)
    stream = io.BytesIO()
    return _written(writer.WriteStream(stream), stream, product)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """OpenCascade's console printers off: a bad file must give one line, the error's,
    not the reader's ``**** ERR StepFile : ...`` on standard output besides."""
    messenger = Message.DefaultMessenger_s()
    printers = messenger.Printers()
    saved = [printers.Value(i) for i in range(1, printers.Length() + 1)]
    messenger.RemovePrinters(Message_PrinterOStream.get_type_descriptor_s())
    try:
        yield
    finally:
        messenger.RemovePrinters(Message_PrinterOStream.get_type_descriptor_s())
        for printer in saved:
            if isinstance(printer, Message_PrinterOStream):
                messenger.AddPrinter(printer)


def _check_magic(data: bytes, what: str) -> None:
    if not data.lstrip().startswith(b"ISO-10303-21;"):
        head = data.lstrip()[:20].decode("latin-1")
        raise GeometryError(f"{what}: not a STEP file ({len(data)} bytes starting "
                            f"{short_repr(head, 200)}), expected 'ISO-10303-21;' first")


def read_step(data: bytes, what: str = "STEP data") -> cq.Shape:
    """The shape a STEP file holds, in millimetres: a solid for :func:`part_step`'s
    files, a compound for an assembly's. A GeometryError (one line, naming ``what``)
    when the bytes are no STEP file or hold no shape.

    Raises:
        GeometryError: the STEP file holds no shape or cannot be parsed.
    """
    _check_magic(data, what)
    reader = STEPControl_Reader()
    with _quiet():
        status = reader.ReadStream("data.step", io.BytesIO(data))
        if status != IFSelect_ReturnStatus.IFSelect_RetDone:
            raise GeometryError(f"{what}: OpenCascade cannot parse this STEP file ({len(data)} bytes; "
                                f"{status.name})")
        reader.SetSystemLengthUnit(1.0)  # millimetres, whatever xstep.cascade.unit says
        reader.TransferRoots()
        shape = reader.OneShape()
    if shape.IsNull():
        raise GeometryError(f"{what}: the STEP file holds no shape, expected a solid")
    return cq.Shape.cast(shape)


def assembly_step(assy: cq.Assembly) -> bytes:
    """``assy`` (in millimetres) as a STEP AP214 file: a product per part and per
    sub-assembly, named as in the assembly, with the parts' colours; the header's
    FILE_NAME name is the assembly's. Every name must be given (not made up by
    CadQuery) and printable ASCII.

    Raises:
        GeometryError: OpenCascade cannot translate the assembly to STEP.
    """
    _names(assy)
    _, doc = toCAF(assy, True)  # colours on the parts, as CadQuery's exportAssembly
    session = XSControl_WorkSession()
    writer = STEPCAFControl_Writer(session, False)
    _set_statics(_STATICS + _ASSEMBLY_STATICS)
    writer.SetColorMode(True)
    writer.SetLayerMode(True)
    writer.SetNameMode(True)
    if not writer.Transfer(doc, STEPControl_AsIs):
        raise GeometryError(f"assembly {assy.name!r}: OpenCascade could not translate it to STEP")
    model = writer.ChangeWriter().Model()
    _number_occurrences(model)
    _order_styles(model)
    session.ComputeGraph(True)
    _fix_header(model, assy.name)
    stream = io.BytesIO()
    return _written(writer.WriteStream(stream), stream, f"assembly {assy.name!r}")


def _number_occurrences(model: Any) -> None:
    """Number the assembly's NEXT_ASSEMBLY_USAGE_OCCURRENCEs 1, 2, ... in the model's
    order, in place of OpenCascade's process-wide counter."""
    it = model.Entities()
    it.SelectType(StepRepr_NextAssemblyUsageOccurrence.get_type_descriptor_s(), True)
    it.Start()
    k = 0
    while it.More():
        k += 1
        it.Value().SetId(TCollection_HAsciiString(str(k)))
        it.Next()


_STYLE_REFS: tuple[tuple[type, tuple[str, ...]], ...] = (
    (_MDGPR, ("Items",)),
    (StepVisual_OverRidingStyledItem, ("Item", "Styles", "OverRiddenStyle")),
    (StepVisual_StyledItem, ("Item", "Styles")),
    (StepVisual_PresentationStyleByContext, ("Styles", "StyleContext")),
    (StepVisual_PresentationStyleAssignment, ("Styles",)),
    (StepVisual_SurfaceStyleUsage, ("Style",)),
    (StepVisual_SurfaceSideStyle, ("Styles",)),
    (StepVisual_SurfaceStyleFillArea, ("FillArea",)),
    (StepVisual_FillAreaStyle, ("FillStyles",)),
    (StepVisual_FillAreaStyleColour, ("FillColour",)),
    (StepVisual_SurfaceStyleRenderingWithProperties, ("SurfaceColour", "Properties")),
    (StepVisual_SurfaceStyleRendering, ("SurfaceColour",)),
    (StepVisual_CurveStyle, ("CurveFont", "CurveWidth", "CurveColour")),
    (StepVisual_Colour, ()),
    (StepVisual_DraughtingPreDefinedCurveFont, ()),
    (StepVisual_SurfaceStyleTransparent, ()),
)
"""The entities STEPCAFControl_Writer makes for colours, each with its attributes that
may reference another entity, in the order of the STEP attributes (a subclass before its
base)."""


def _refs(entity: Any) -> list[Any]:
    """What a colour's entity references, in attribute order (values that are no entity,
    such as a curve width, come along and are ignored by the caller)."""
    fields = next((names for kind, names in _STYLE_REFS if isinstance(entity, kind)), None)
    if fields is None:
        raise GeometryError(f"assembly STEP: OpenCascade wrote a {type(entity).__name__} among the "
                            "colours, which cannot be put in a stable order")
    out = []
    for name in fields:
        value = getattr(entity, name)()
        if value is None:
            continue
        values = [value.Value(i) for i in range(value.Lower(), value.Upper() + 1)] if hasattr(value, "Upper") else [value]
        out += [v.Value() if isinstance(v, StepData_SelectType) else v for v in values]
    return out


def _order_styles(model: Any) -> None:
    """Put the colours' entities of a transferred assembly in an order that depends on
    the model's content only.

    The writer makes one MECHANICAL_DESIGN_GEOMETRIC_PRESENTATION_REPRESENTATION (MDGPR)
    per coloured part, keeps them in ``myMapCompMDGPR`` (hashed by the part's ``TShape``
    address) and adds them last, each followed by the styles and colours it references
    that are not in the model yet (``AddWithRefs``), in that map's order. So the tail of
    the model (from the first MDGPR on) is in an order that changes from process to
    process; all before it is in the document's order.

    The MDGPRs are sorted by the numbers of the B-rep items they colour (which lie
    before the tail, so their numbers are stable), each followed, depth first in
    attribute order, by what it references and is not placed yet, as ``AddWithRefs``
    would add them. The model's list is then permuted into that order by
    ``ChangeOrder``: no entity is made, changed or dropped. Entities are matched by
    identity (OCP hands back one Python object per entity while it is held), since
    ``Interface_InterfaceModel.Number`` answers 0 for an entity passed from Python.
    """
    n = model.NbEntities()
    entities = [model.Value(i) for i in range(1, n + 1)]  # held, so that their ids stay theirs
    start = next((i for i, e in enumerate(entities) if isinstance(e, _MDGPR)), n)
    tail = entities[start:]
    if len(tail) < 2:
        return
    order = _tail_order(entities, start)
    _move_into_order(model, start, [id(e) for e in tail], order)
    if [id(model.Value(i)) for i in range(start + 1, n + 1)] != order:
        raise GeometryError("assembly STEP: OpenCascade did not reorder the colours as asked")


def _tail_order(entities: list[Any], start: int) -> list[int]:
    """The ids of ``entities[start:]`` (the tail, from the first MDGPR on) in the order that
    depends on the model's content only (see :func:`_order_styles`).

    Raises:
        GeometryError: a colour that points at no B-rep item before the tail, two that point
            at the same items, or an entity of the tail that no colour references.
    """
    tail = entities[start:]
    number = {id(e): i for i, e in enumerate(entities, 1)}
    in_tail = {id(e) for e in tail}

    def key(mdgpr: Any) -> tuple[int, ...]:
        targets = [number.get(id(item.Item()), 0) for item in _refs(mdgpr)
                   if isinstance(item, StepVisual_StyledItem)]
        if not targets or not all(0 < t <= start for t in targets):
            raise GeometryError("assembly STEP: a colour does not point at a part's B-rep, "
                                "so the colours cannot be put in a stable order")
        return tuple(sorted(targets))

    keys = {id(e): key(e) for e in tail if isinstance(e, _MDGPR)}
    if len(set(keys.values())) != len(keys):
        raise GeometryError("assembly STEP: two colour sets point at the same B-rep items, "
                            "so the colours cannot be put in a stable order")
    order: list[int] = []
    placed: set[int] = set()

    def visit(entity: Any) -> None:
        if id(entity) not in in_tail or id(entity) in placed:
            return
        placed.add(id(entity))
        order.append(id(entity))
        for ref in _refs(entity):
            visit(ref)

    for mdgpr in sorted((e for e in tail if id(e) in keys), key=lambda e: keys[id(e)]):
        visit(mdgpr)
    if len(order) != len(tail):
        left = sorted({type(e).__name__ for e in tail if id(e) not in placed})
        raise GeometryError(f"assembly STEP: {', '.join(left)} follow the colours unreferenced, "
                            "so they cannot be put in a stable order")
    return order


def _move_into_order(model: Any, start: int, current: list[int], order: list[int]) -> None:
    """Permute the model's entities after the first ``start`` from ``current`` (their ids as
    the model has them) into ``order`` with ``ChangeOrder``, a run already in order at a time."""
    offset = 0
    while offset < len(order):
        at = current.index(order[offset], offset)
        if at == offset:
            offset += 1
            continue
        run = 1  # move a whole run already in the wanted order, no longer than the gap
        while run < at - offset and at + run < len(current) and current[at + run] == order[offset + run]:
            run += 1
        model.ChangeOrder(start + 1 + at, start + 1 + offset, run)
        current[offset:offset] = current[at:at + run]  # kept in step with each move
        del current[at + run:at + 2 * run]
        offset += run


@dataclass(frozen=True)
class StepPart:
    """One part of an assembly's STEP file, as :func:`step_content` reads it back."""

    name: str
    """The part's product name (the name it had in the assembly)."""
    colour: tuple[float, float, float, float] | None
    """sRGB and alpha, as ``cadquery.Color.toTuple()`` gives them (a STEP file stores
    the colour as 32-bit floats: compare to 1e-6)."""
    solids: int
    volume_mm3: float
    """Integrated to 1e-6 relative (the exact integration of occ.shapes.volume takes 0.25 s
    a stone)."""
    centroid_mm: tuple[float, float, float]
    """Its centre of mass, where the assembly placed it."""


def step_content(data: bytes, what: str = "STEP data") -> tuple[StepPart, ...]:
    """The parts of an assembly's STEP file in the file's order, read back with
    OpenCascade's XCAF reader (names, colours, placement and all).

    Raises:
        GeometryError: OpenCascade cannot read the STEP file as an assembly.
    """
    _check_magic(data, what)
    reader = STEPCAFControl_Reader()
    reader.SetColorMode(True)
    reader.SetNameMode(True)
    doc = TDocStd_Document(TCollection_ExtendedString("XmlXCAF"))
    XCAFApp_Application.GetApplication_s().InitDocument(doc)
    with _quiet():
        status = reader.ReadStream("data.step", io.BytesIO(data))
        if status != IFSelect_ReturnStatus.IFSelect_RetDone or not reader.Transfer(doc):
            raise GeometryError(f"{what}: OpenCascade cannot read this STEP file as an assembly "
                                f"({len(data)} bytes; {status.name})")
    parts = []
    explorer = XCAFPrs_DocumentExplorer(doc, XCAFPrs_DocumentExplorerFlags_OnlyLeafNodes)
    while explorer.More():
        node = explorer.Current()
        shape = cq.Shape.cast(XCAFDoc_ShapeTool.GetShape_s(node.RefLabel).Moved(node.Location))
        style = node.Style
        colour = None
        if style.IsSetColorSurf():
            rgba = style.GetColorSurfRGBA()
            colour = (*rgba.GetRGB().Values(Quantity_TOC_sRGB), rgba.Alpha())
        solids = TopExp_Explorer(shape.wrapped, TopAbs_SOLID)
        count = 0
        while solids.More():
            count += 1
            solids.Next()
        props = GProp_GProps()
        BRepGProp.VolumeProperties_s(shape.wrapped, props, 1e-6, False)
        centre = props.CentreOfMass()
        parts.append(StepPart(_label_name(node.RefLabel), colour, count, props.Mass(),
                              (centre.X(), centre.Y(), centre.Z())))
        explorer.Next()
    return tuple(parts)


def _label_name(label: TDF_Label) -> str:
    name = TDataStd_Name()
    if label.FindAttribute(TDataStd_Name.GetID_s(), name):
        return name.Get().ToExtString()
    return ""


def _mesh(shape: Any, tolerance_mm: float, angular_tolerance_rad: float) -> None:
    """Triangulate ``shape`` from scratch as :func:`stratstone_cad.occ.tessellate.tessellate`
    does (absolute deflection, every triangle checked against the surface, one thread)."""
    mesh_in_place(shape, tolerance_mm, angular_tolerance_rad)


def assembly_glb(assy: cq.Assembly, tolerance_mm: float = 0.1, angular_tolerance_rad: float = 0.2) -> bytes:
    """``assy`` (in millimetres) as binary glTF in metres with Y up, as glTF asks: a node
    per part and sub-assembly named as in the assembly, one mesh per part (its faces
    merged), a material per colour (``baseColorFactor``: linear RGB and alpha).

    The parts are triangulated within ``tolerance_mm`` of the surface, turning by at most
    ``angular_tolerance_rad`` within a facet; any triangulation the assembly's shapes
    carried is replaced (OpenCascade keeps triangulations on the shapes, which the caller's
    solids share).

    Raises:
        ParameterError: the tessellation tolerance or angle is not above 0.
        GeometryError: OpenCascade cannot write the assembly as glTF.
    """
    if not tolerance_mm > 0 or not angular_tolerance_rad > 0:
        raise ParameterError(f"glTF tessellation tolerance {tolerance_mm!r} mm, angle "
                             f"{angular_tolerance_rad!r} rad: expected both above 0")
    _names(assy)
    _, doc = toCAF(assy, True)
    shapes = XCAFDoc_DocumentTool.ShapeTool_s(doc.Main())
    labels = TDF_LabelSequence()
    shapes.GetShapes(labels)
    for i in range(1, labels.Length() + 1):
        if XCAFDoc_ShapeTool.IsSimpleShape_s(labels.Value(i)):
            _mesh(XCAFDoc_ShapeTool.GetShape_s(labels.Value(i)), tolerance_mm, angular_tolerance_rad)
    with tempfile.TemporaryDirectory(prefix="stratstone-glb-") as folder:
        path = Path(folder) / "assembly.glb"
        writer = RWGltf_CafWriter(TCollection_AsciiString(str(path)), True)
        converter = writer.ChangeCoordinateSystemConverter()
        converter.SetInputLengthUnit(0.001)  # the model's millimetres ...
        converter.SetInputCoordinateSystem(RWMesh_CoordinateSystem_Zup)
        converter.SetOutputLengthUnit(1.0)  # ... written as glTF's metres, Y up
        converter.SetOutputCoordinateSystem(RWMesh_CoordinateSystem_glTF)
        writer.SetMergeFaces(True)
        writer.SetParallel(False)
        with _quiet():
            ok = writer.Perform(doc, TColStd_IndexedDataMapOfStringString(), Message_ProgressRange())
        if not ok or not path.is_file():
            raise GeometryError(f"assembly {assy.name!r}: OpenCascade could not write it as glTF")
        return path.read_bytes()
