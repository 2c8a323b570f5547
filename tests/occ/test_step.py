"""STEP and glTF bytes of real CadQuery solids and assemblies (stratstone_cad.occ.step):
the same bytes in every process and every call, the names, units and colours they carry,
and what comes back when they are read."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import cadquery as cq
import pytest
from OCP.BRepCheck import BRepCheck_Analyzer
from OCP.Interface import Interface_Static
from OCP.Message import Message
from OCP.Quantity import Quantity_TOC_RGB
from OCP.StepBasic import StepBasic_Product
from OCP.STEPControl import STEPControl_Reader

from stratstone_cad.errors import GeometryError, ParameterError
from stratstone_cad.occ import step
from stratstone_cad.occ.shapes import volume
from stratstone_cad.occ.step import TIME_STAMP, assembly_glb, assembly_step, part_step, read_step, step_content
from tests import ROOT

RED = cq.Color(0.8, 0.3, 0.1)  # mid-tones: their sRGB and linear values differ
BLUE = cq.Color(0.1, 0.5, 0.9)
COLOURS = (RED, BLUE, cq.Color(0.2, 0.7, 0.2), cq.Color(0.9, 0.8, 0.1, 0.5))  # the last one half transparent


def stone() -> cq.Shape:
    """A pebble-like solid: two closed splines lofted into one B-spline side."""
    low = [(0, 0), (10, 3), (14, 10), (8, 16), (-2, 12)]
    high = [(1, 1), (9, 4), (12, 9), (7, 14), (-1, 11)]
    return (cq.Workplane().spline(low).close().workplane(offset=6).spline(high).close().loft().val())


def holed_box() -> cq.Shape:
    return cq.Workplane().box(40, 30, 8).faces(">Z").workplane().rarray(12, 10, 3, 2).hole(4).val()


def boxes() -> cq.Assembly:
    """Two coloured 10 x 20 x 30 mm boxes, "a" at the origin and "b" 50 mm along x."""
    box = cq.Workplane().box(10, 20, 30, centered=False)
    a = cq.Assembly(name="boxes")
    a.add(box, name="a", color=RED)
    a.add(box, name="b", color=BLUE, loc=cq.Location((50, 0, 0)))
    return a


def a_set(n: int = 12) -> cq.Assembly:
    """``n`` parts in four colours: pebbles and rounded blocks, each its own solid."""
    a = cq.Assembly(name="set")
    for i in range(n):
        shape = stone() if i % 2 else cq.Workplane().box(5 + i, 6, 7).edges("|Z").fillet(1).val()
        a.add(shape, name=f"p{i:02d}", color=COLOURS[i % 4], loc=cq.Location((30 * i, 0, 0)))
    return a


def digests() -> dict[str, str]:
    """The SHA-256 of each writer's bytes for the same models."""
    files = {"part": part_step(stone(), "stratstone/stone-red-03"), "assembly": assembly_step(a_set()),
             "glb": assembly_glb(a_set())}
    return {k: hashlib.sha256(v).hexdigest() for k, v in files.items()}


@pytest.fixture(scope="module")
def other_processes() -> list[dict[str, str]]:
    """``digests()`` computed by two fresh Python processes at once, in different time
    zones (so a clock time in a header would differ even within one second) and with
    different hash seeds."""
    runs = [subprocess.Popen([sys.executable, "-c", "import json; from tests.occ.test_step import digests; "
                              "print(json.dumps(digests()))"], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, "TZ": tz, "PYTHONHASHSEED": seed})
            for tz, seed in (("UTC", "1"), ("Asia/Kathmandu", "2"))]
    out = []
    for run in runs:
        stdout, stderr = run.communicate(timeout=120)
        assert run.returncode == 0, stderr
        out.append(json.loads(stdout.splitlines()[-1]))
    return out


@pytest.fixture(scope="module")
def here() -> dict[str, str]:
    return digests()


def glb_json(data: bytes) -> dict:
    """The JSON chunk of a binary glTF file (header, then the JSON chunk first)."""
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    assert (magic, version, length) == (b"glTF", 2, len(data))
    size, kind = struct.unpack_from("<I4s", data, 12)
    assert kind == b"JSON"
    return json.loads(data[20:20 + size])


def header(data: bytes) -> str:
    """The STEP header, its lines joined (OpenCascade breaks lines at 72 columns)."""
    text = data.decode("ascii")
    return re.sub(r"\n\s*", "", text[:text.index("ENDSEC;")])


def products(data: bytes) -> list[str]:
    """The PRODUCT names, as OpenCascade's reader reads them."""
    reader = STEPControl_Reader()
    reader.ReadStream("t.step", io.BytesIO(data))
    it = reader.StepModel().Entities()
    it.SelectType(StepBasic_Product.get_type_descriptor_s(), True)
    names = []
    it.Start()
    while it.More():
        names.append(it.Value().Name().ToCString())
        it.Next()
    return names


# part_step: one solid


def test_a_part_is_the_same_bytes_in_every_process_and_every_call(other_processes, here):
    assert other_processes[0]["part"] == other_processes[1]["part"] == here["part"]
    assert part_step(stone(), "x") == part_step(stone(), "x")


def test_the_header_holds_fixed_values_and_the_product_name():
    head = header(part_step(stone(), "stratstone/stone-red-03"))
    assert (f"FILE_NAME('stratstone/stone-red-03','{TIME_STAMP}',(''),(''),"
            "'Open CASCADE STEP processor 7.9','stratstone-cad','');") in head
    assert "FILE_SCHEMA(('AUTOMOTIVE_DESIGN { 1 0 10303 214 1 1 1 1 }'));" in head  # AP214


def test_the_product_carries_the_name_and_quotes_are_escaped():
    data = part_step(stone(), "stratstone/stone-red-03")
    assert b"PRODUCT('stratstone/stone-red-03','stratstone/stone-red-03','',(" in data
    assert products(data) == ["stratstone/stone-red-03"]
    odd = "it's a\\b / c"
    data = part_step(stone(), odd)
    assert b"PRODUCT('it''s a\\\\b / c'," in data  # ISO 10303-21: ' and \ doubled
    assert products(data) == [odd]
    assert header(data).startswith("ISO-10303-21;HEADER;FILE_DESCRIPTION(('Open CASCADE Model'),'2;1');"
                                   "FILE_NAME('it''s a\\\\b / c',")


@pytest.mark.parametrize("name", ["pi\u00e8ce", "tab\there", "\x1b[2J"])
def test_a_name_a_step_file_cannot_hold_is_refused_in_one_line(name):
    with pytest.raises(ParameterError) as e:
        part_step(stone(), name)
    assert "expected printable ASCII" in str(e.value) and "\n" not in str(e.value) and "\x1b" not in str(e.value)


def test_options_other_exporters_left_behind_change_nothing(tmp_path):
    reference = part_step(stone(), "x")
    stone().exportStep(str(tmp_path / "cq.step"), outputUnit="M", write_pcurves=False, precision_mode=1)
    try:
        assert part_step(stone(), "x") == reference
    finally:
        for key, value in (("write.step.unit", "MM"), ("write.surfacecurve.mode", 1), ("write.precision.mode", 0)):
            (Interface_Static.SetIVal_s if isinstance(value, int) else Interface_Static.SetCVal_s)(key, value)


def test_a_box_made_in_millimetres_is_written_and_read_in_millimetres():
    data = part_step(cq.Workplane().box(10, 20, 30).val(), "box")
    assert re.search(rb"\( LENGTH_UNIT\(\) NAMED_UNIT\(\*\) SI_UNIT\(\.MILLI\.,\.METRE\.\) \)", data)
    assert b"SI_UNIT($,.METRE.)" not in data
    box = read_step(data).BoundingBox()
    assert (box.xlen, box.ylen, box.zlen) == pytest.approx((10, 20, 30), abs=1e-6)
    Interface_Static.SetCVal_s("xstep.cascade.unit", "M")  # what another reader may leave behind
    try:
        box = read_step(data).BoundingBox()
    finally:
        Interface_Static.SetCVal_s("xstep.cascade.unit", "MM")
    assert (box.xlen, box.ylen, box.zlen) == pytest.approx((10, 20, 30), abs=1e-6)


@pytest.mark.parametrize("make", [stone, holed_box])
def test_read_back_is_one_valid_solid_of_the_same_volume(make):
    shape = make()
    back = read_step(part_step(shape, "part"))
    assert back.ShapeType() == "Solid" and len(back.Solids()) == 1
    assert BRepCheck_Analyzer(back.wrapped).IsValid()
    assert volume(back) == pytest.approx(volume(shape), rel=1e-6)
    assert len(back.Faces()) == len(shape.Faces())


@pytest.mark.parametrize("data, says", [
    (b"", "not a STEP file (0 bytes"),
    (b"solid cube\nfacet normal 0 0 1\n", "not a STEP file (30 bytes starting 'solid cube\\nfacet nor'"),
    (b"ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION(", "OpenCascade cannot parse this STEP file (39 bytes"),
    (b"ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n", "holds no shape, expected a solid"),
])
def test_bad_bytes_are_one_line_errors_and_print_nothing(data, says, capfd):
    printers = Message.DefaultMessenger_s().Printers().Length()
    with pytest.raises(GeometryError) as e:
        read_step(data, "stones.step")
    assert str(e.value).startswith("stones.step: ") and says in str(e.value) and "\n" not in str(e.value)
    assert capfd.readouterr() == ("", "")  # OpenCascade's "**** ERR StepFile" kept off the terminal
    assert Message.DefaultMessenger_s().Printers().Length() == printers  # and its printers restored


def test_half_a_file_is_an_error_too():
    data = part_step(stone(), "x")
    with pytest.raises(GeometryError, match=r"^cut\.step: OpenCascade cannot parse"):
        read_step(data[: len(data) // 2], "cut.step")


# assembly_step: parts, names, colours


def test_an_assembly_is_the_same_bytes_in_every_process_and_every_call(other_processes, here):
    assert other_processes[0]["assembly"] == other_processes[1]["assembly"] == here["assembly"]
    assert assembly_step(a_set()) == assembly_step(a_set())  # occurrence ids do not go on counting


def test_an_assembly_holds_its_parts_names_and_colours():
    data = assembly_step(boxes())
    assert b"PRODUCT('a','a','',(" in data and b"PRODUCT('b','b','',(" in data
    assert re.search(rb"NEXT_ASSEMBLY_USAGE_OCCURRENCE\('1','a',", data)
    assert re.search(rb"NEXT_ASSEMBLY_USAGE_OCCURRENCE\('2','b',", data)
    rgb = re.findall(rb"COLOUR_RGB\('',([^,]+),([^,]+),([^)]+)\)", data.replace(b"\n", b""))
    assert len(rgb) == 2  # one entity per colour
    for found, colour in zip(sorted(rgb, key=lambda c: -float(c[0])), (RED, BLUE), strict=True):
        assert [float(x) for x in found] == pytest.approx(colour.toTuple()[:3], abs=1e-6)  # sRGB, as given
    assert header(data).startswith(f"ISO-10303-21;HEADER;FILE_DESCRIPTION(('Open CASCADE Model'),'2;1');"
                                   f"FILE_NAME('boxes','{TIME_STAMP}',")
    parts = step_content(data)
    assert [p.name for p in parts] == ["a", "b"]
    assert parts[0].colour == pytest.approx(RED.toTuple(), abs=1e-6)
    assert parts[1].colour == pytest.approx(BLUE.toTuple(), abs=1e-6)
    assert [p.solids for p in parts] == [1, 1]
    assert [p.volume_mm3 for p in parts] == pytest.approx([6000, 6000], rel=1e-9)
    assert [p.centroid_mm for p in parts] == [pytest.approx((5, 10, 15)), pytest.approx((55, 10, 15))]
    back = read_step(data)
    assert len(back.Solids()) == 2 and all(BRepCheck_Analyzer(s.wrapped).IsValid() for s in back.Solids())


def test_every_part_of_a_set_keeps_its_colour_whatever_the_order_of_writing():
    assy = a_set()
    parts = step_content(assembly_step(assy))
    expected = {node.name: node.color.toTuple() for _, node in assy.traverse() if node.color}
    assert [p.name for p in parts] == sorted(expected)
    for p in parts:
        assert p.colour == pytest.approx(expected[p.name], abs=1e-6), p.name
    # the colours come in the order of the parts they colour, not in OpenCascade's map order
    targets = [int(t) for t in re.findall(rb"STYLED_ITEM\('color',\(#\d+\),#(\d+)\)",
                                                 re.sub(rb"\n\s*", b"", assembly_step(assy)))]
    assert len(targets) == len(expected) and targets == sorted(targets)


def test_names_cadquery_made_up_or_step_cannot_hold_are_refused():
    unnamed = cq.Assembly()
    unnamed.add(cq.Workplane().box(1, 1, 1), name="a")
    with pytest.raises(ParameterError, match=r"^assembly '[0-9a-f-]{36}': the name was made up by CadQuery"):
        assembly_step(unnamed)
    part = cq.Assembly(name="s")
    part.add(cq.Workplane().box(1, 1, 1))
    with pytest.raises(ParameterError, match=r"^assembly 's' part '[0-9a-f-]{36}': the name was made up"):
        assembly_glb(part)
    accented = cq.Assembly(name="s")
    accented.add(cq.Workplane().box(1, 1, 1), name="pi\u00e8ce")
    for write in (assembly_step, assembly_glb):
        with pytest.raises(ParameterError, match=r"^assembly 's' part 'pi\u00e8ce': character '\u00e8' cannot be"):
            write(accented)
    fine = cq.Assembly(name="it's a/b")
    fine.add(cq.Workplane().box(1, 1, 1), name="stratstone/stone-red-03")
    assert [n["name"] for n in glb_json(assembly_glb(fine))["nodes"]] == ["it's a/b", "stratstone/stone-red-03"]
    assert [p.name for p in step_content(assembly_step(fine))] == ["stratstone/stone-red-03"]


# assembly_glb: metres, names, materials


def test_a_glb_is_the_same_bytes_in_every_process_and_every_call(other_processes, here):
    assert other_processes[0]["glb"] == other_processes[1]["glb"] == here["glb"]
    assert assembly_glb(a_set()) == assembly_glb(a_set())


def test_a_glb_is_in_metres_y_up_with_the_names_and_colours():
    doc = glb_json(assembly_glb(boxes()))
    assert doc["asset"]["version"] == "2.0"
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert set(nodes) == {"boxes", "a", "b"}
    assert nodes["b"]["translation"] == pytest.approx([0.05, 0, 0])  # 50 mm along x
    for name, colour in (("a", RED), ("b", BLUE)):
        mesh = doc["meshes"][nodes[name]["mesh"]]
        (primitive,) = mesh["primitives"]  # faces merged: one primitive per part
        box = doc["accessors"][primitive["attributes"]["POSITION"]]
        size = [hi - lo for lo, hi in zip(box["min"], box["max"], strict=True)]
        assert size == pytest.approx([0.01, 0.03, 0.02], abs=1e-9)  # x, z up, y: 10 x 20 x 30 mm
        assert box["min"] == pytest.approx([0, 0, -0.02], abs=1e-9)  # glTF's z is CAD's -y
        factor = doc["materials"][primitive["material"]]["pbrMetallicRoughness"]["baseColorFactor"]
        linear = colour.wrapped.GetRGB().Values(Quantity_TOC_RGB)  # glTF's colours are linear
        assert factor == pytest.approx([*linear, 1.0], abs=1e-6)


def _vertices(data: bytes) -> int:
    doc = glb_json(data)
    return sum(doc["accessors"][p["attributes"]["POSITION"]]["count"] for m in doc["meshes"] for p in m["primitives"])


def test_a_glb_is_meshed_afresh_with_the_tolerance_asked():
    ball = cq.Workplane().sphere(10).val()
    assy = cq.Assembly(name="balls")
    assy.add(ball, name="ball", color=RED)
    coarse = assembly_glb(assy)
    fine = assembly_glb(assy, tolerance_mm=0.01)
    assert _vertices(fine) > 2 * _vertices(coarse)
    cq.Shape.mesh(ball, 0.001, 0.05)  # a finer triangulation left on the caller's solid ...
    assert assembly_glb(assy) == coarse  # ... is not what the file shows
    with pytest.raises(ParameterError, match="expected both above 0"):
        assembly_glb(assy, tolerance_mm=0)


def test_writing_leaves_no_file_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    part_step(stone(), "x")
    assembly_step(boxes())
    assembly_glb(boxes())
    read_step(part_step(stone(), "x"))
    assert list(tmp_path.iterdir()) == []


def test_the_package_does_not_import_this_module_at_start_up():
    done = subprocess.run([sys.executable, "-c", "import sys, stratstone_cad.cli, stratstone_cad.registry; "
                           "print(sorted(m for m in sys.modules if m.startswith(('cadquery', 'OCP', "
                           f"'{step.__name__}'))))"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
