"""Print plates (build --plates): arrangement, the 3MF package, the slicers' settings, the cache."""

from __future__ import annotations

import itertools
import json
import math
import re
import shutil
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import lib3mf
import numpy as np
import pytest
import trimesh

from stratstone_cad.base.colours import load_colours
from stratstone_cad.base.printers import load_printers, load_profiles
from stratstone_cad.errors import PlateError
from stratstone_cad.pipeline import build as B
from stratstone_cad.printing.adaptive import adaptive_layers, flat_heights, slicer_profile
from stratstone_cad.printing.plates import Part, arrange, gap, overlap
from stratstone_cad.printing.plating import plan_plates, plate_key
from stratstone_cad.printing.stl import read_stl_mesh
from stratstone_cad.registry import get_parts, load_params

SPACING = 6.0  # models/plates.toml


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


# --------------------------------------------------------------------------- arrangement


def _check_arrangement(plates, printer, spacing):
    for plate in plates:
        x0, y0 = printer.margin_mm, printer.margin_mm
        x1, y1 = printer.bed_x_mm - printer.margin_mm, printer.bed_y_mm - printer.margin_mm
        for p in plate.placements:
            fx0, fy0, fx1, fy1 = p.footprint()
            assert fx0 >= x0 - 1e-6 and fy0 >= y0 - 1e-6 and fx1 <= x1 + 1e-6 and fy1 <= y1 + 1e-6, (printer.name, p)
        for a, b in itertools.combinations(plate.placements, 2):
            assert overlap(a, b) == 0, (printer.name, a, b)
            assert gap(a, b) >= spacing - 1e-6, (printer.name, a.part.name, b.part.name, gap(a, b))


@pytest.mark.parametrize("printer", sorted(load_printers()))
def test_every_plate_of_every_game_fits_every_printer_without_overlap(printer, plated):
    """Each printer's plan (its own tile plans), arranged on its bed: the boards made for
    it (they are made without CadQuery, quickly), the pieces as the default build made them."""
    import importlib

    from stratstone_cad.base.printers import get_printer

    pr = get_printer(printer)
    ps = load_params()
    profiles = load_profiles()
    entries = {a["file"]: a for a in _manifest(plated)["assets"]}
    outputs = []
    for g in get_parts(None):
        for job in g.plan(ps.params_of(g.name), pr, profiles, ps.mesh):
            outputs += job.outputs
            if job.outputs[0].profile == "board":
                module, func = job.maker.split(":")
                meshes = getattr(importlib.import_module(module), func)(**job.args)
                for o, m in zip(job.outputs, meshes, strict=True):
                    lo, hi = m.bounds()
                    entries[o.file] = {"bbox_mm": {"min": lo, "size": [b - a for a, b in zip(lo, hi, strict=True)]},
                                       "sha256": "-"}
    jobs = plan_plates(outputs, entries, pr, profiles, ps.plates, load_colours())
    placed = [p for pj in jobs for p in pj.plate.placements]
    assert sum(o.count for o in outputs) == len(placed)  # every copy of every part, once
    for pj in jobs:
        _check_arrangement([pj.plate], pr, ps.plates.spacing_mm)


def test_parts_that_overflow_one_bed_go_on_more_plates_never_overlapping():
    pr = load_printers()["prusa-mini"]
    plates = arrange([Part("big", "g/big.stl", (100, 100), (0, 0), copies=5)], pr, 5, "g big")
    assert len(plates) == 5  # 170 x 170 mm usable holds one 100 mm square with 5 mm spacing
    plates = arrange([Part("gem", "g/gem.stl", (18, 18), (-9, -9), copies=100)], pr, 6, "g gems")
    assert sum(len(p.placements) for p in plates) == 100
    assert [len(p.placements) for p in plates] == [49, 49, 2]  # 7 x 7 a bed at 24 mm pitch in 170 mm
    _check_arrangement(plates, pr, 6)


def test_a_part_larger_than_the_bed_is_refused_by_name():
    pr = load_printers()["prusa-mini"]
    with pytest.raises(PlateError, match=r"g board: part board is 222 x 196 mm, larger than the usable bed of "
                                         r"prusa-mini \(170 x 170 mm\)"):
        arrange([Part("board", "g/board.stl", (222, 196), (0, 0))], pr, 6, "g board")


def test_placements_move_each_part_by_its_own_origin():
    pr = load_printers()["prusa-mk4"]
    (plate,) = arrange([Part("stone", "s.stl", (30, 20), (-15, -10))], pr, 6, "s")
    (p,) = plate.placements
    assert p.corner == (110.0, 95.0)  # centred on the 250 x 210 bed
    assert p.offset == (125.0, 105.0)  # the stone's centre, at its origin, goes to the bed's centre


# --------------------------------------------------------------------------- the packages


def _plates(out):
    return _manifest(out)["plates"]


def test_every_game_has_its_plates_named_by_print_job(plated):
    files = {p["file"] for p in _plates(plated)}
    assert {"stratstone/stones-red.3mf", "stratstone/stones-yellow.3mf", "stratstone/stones-tan.3mf",
            "stratstone/board.3mf", "sage-stones/board.3mf", "sage-stones/dice.3mf", "terrain/pieces-red.3mf",
            "terrain/pieces-blue.3mf"} <= files
    assert {f"sage-stones/gems-{c}.3mf" for c in ("yellow", "red", "blue", "green", "white", "black")} <= files
    tiles = sorted(f for f in files if f.startswith("terrain/board-seed-1"))
    assert tiles == [f"terrain/board-seed-1-plate-{i}-of-4.3mf" for i in range(1, 5)]
    copies = {p["file"]: p["copies"] for p in _plates(plated)}
    assert copies["stratstone/stones-red.3mf"] == 8 and copies["sage-stones/gems-red.3mf"] == 10
    assert copies["sage-stones/dice.3mf"] == 3  # "roll 3d3"
    assert copies["terrain/pieces-red.3mf"] == 6


def _read_3mf(path):
    w = lib3mf.get_wrapper()
    model = w.CreateModel()
    reader = model.QueryReader("3mf")
    reader.SetStrictModeActive(True)
    reader.ReadFromFile(str(path))
    return w, model, reader


def _object_parts(plate):
    """Each object's name -> its part's entry: one object a copy, ``-NN`` after the part's
    name when the plate holds several copies."""
    out = {}
    for ob in plate["objects"]:
        names = [ob["name"]] if ob["copies"] == 1 else [f"{ob['name']}-{n:02d}" for n in range(1, ob["copies"] + 1)]
        out.update(dict.fromkeys(names, ob))
    return out


def test_lib3mf_reads_every_plate_back_without_warnings_with_named_coloured_objects(plated):
    assets = {a["file"]: a for a in _manifest(plated)["assets"]}
    colours = load_colours()
    for plate in _plates(plated):
        w, model, reader = _read_3mf(plated / plate["file"])
        assert reader.GetWarningCount() == 0, plate["file"]
        objects = model.GetMeshObjects()
        names, triangles = [], []
        while objects.MoveNext():
            o = objects.GetCurrentMeshObject()
            names.append(o.GetName())
            triangles.append(o.GetTriangleCount())
            assert o.IsManifoldAndOriented(), (plate["file"], o.GetName())
            has, group_id, index = o.GetObjectLevelProperty()
            assert has
            group = model.GetBaseMaterialGroupByID(group_id)
            colour = group.GetName(index)
            part = _object_parts(plate)[o.GetName()]
            assert colour == (assets[part["file"]]["colour"] or "board"), o.GetName()
            r, g, b, _ = w.ColorToRGBA(group.GetDisplayColor(index))
            assert f"#{r:02X}{g:02X}{b:02X}" == colours[colour].srgb
            assert o.GetTriangleCount() == assets[part["file"]]["triangles"]
        assert len(names) == plate["copies"] == len(set(names)), plate["file"]
        items = model.GetBuildItems()
        assert items.Count() == plate["copies"]


def test_trimesh_reads_every_plate_with_the_parts_volumes_at_their_places(plated):
    assets = {a["file"]: a for a in _manifest(plated)["assets"]}
    for plate in _plates(plated):
        scene = trimesh.load(plated / plate["file"], force="scene")
        by_part = {o["name"]: o for o in plate["objects"]}
        assert len(scene.geometry) == plate["copies"], plate["file"]
        meshes = scene.dump()
        for m in meshes:
            assert m.is_watertight
        vols = sorted(round(m.volume, 1) for m in meshes)
        want = sorted(round(assets[o["file"]]["volume_mm3"], 1) for o in by_part.values() for _ in range(o["copies"]))
        assert vols == pytest.approx(want, rel=1e-4), plate["file"]
        # on the bed, resting on it, apart
        lo = np.min([m.bounds[0] for m in meshes], axis=0)
        assert lo[2] == pytest.approx(0, abs=1e-6)
        for a, b in itertools.combinations(meshes, 2):
            (ax0, ay0, _), (ax1, ay1, _) = a.bounds
            (bx0, by0, _), (bx1, by1, _) = b.bounds
            assert max(ax0, bx0) >= min(ax1, bx1) + SPACING - 1e-3 or max(ay0, by0) >= min(ay1, by1) + SPACING - 1e-3


def _zip_text(path, name):
    with zipfile.ZipFile(path) as z:
        return z.read(name).decode()


def test_every_part_of_each_package_has_a_content_type_and_a_fixed_date(plated):
    for plate in _plates(plated):
        with zipfile.ZipFile(plated / plate["file"]) as z:
            types = ET.fromstring(z.read("[Content_Types].xml"))
            ns = "{http://schemas.openxmlformats.org/package/2006/content-types}"
            known = {d.get("Extension") for d in types.iter(f"{ns}Default")}
            for info in z.infolist():
                assert info.date_time == (1980, 0, 0, 0, 0, 0), info.filename
                if info.filename != "[Content_Types].xml":
                    assert info.filename.rsplit(".", 1)[1] in known, info.filename


def test_prusaslicer_settings_name_each_object_its_layers_ironing_and_all_its_triangles(plated):
    for plate in _plates(plated):
        path = plated / plate["file"]
        piece = plate["profile"]["name"] == "piece"
        cfg = _zip_text(path, "Metadata/Slic3r_PE.config")
        lines = cfg.splitlines()
        assert lines[0].startswith("; ") and lines[1] == ""  # the reader never reads the first line
        keys = dict(re.findall(r"^; (\w+) = (.*)$", "\n".join(lines[2:]), re.M))
        assert float(keys["layer_height"]) == plate["profile"]["layer_height_mm"]
        assert float(keys["first_layer_height"]) == plate["profile"]["first_layer_height_mm"]
        assert keys["ironing"] == ("1" if piece else "0")
        if piece:
            assert keys["ironing_type"] == "topmost"
        assert keys["seam_position"] == plate["seam"] == "rear"
        model = ET.fromstring(_zip_text(path, "3D/3dmodel.model"))
        ns = {"m": "http://schemas.microsoft.com/3dmanufacturing/core/2015/02"}
        objects = {o.get("id"): o for o in model.iterfind("m:resources/m:object", ns)}
        cfg = ET.fromstring(_zip_text(path, "Metadata/Slic3r_PE_model.config"))
        assert len(cfg.findall("object")) == len(objects)
        for o in cfg.findall("object"):
            meta = {m.get("key"): m.get("value") for m in o.findall("metadata")}
            xml_object = objects[o.get("id")]
            assert meta["name"] == xml_object.get("name")
            assert float(meta["layer_height"]) == plate["profile"]["layer_height_mm"]
            assert float(meta["first_layer_height"]) == plate["profile"]["first_layer_height_mm"]
            assert meta["ironing"] == ("1" if piece else "0")
            assert meta["seam_position"] == "rear"
            (vol,) = o.findall("volume")
            n = len(xml_object.findall("m:mesh/m:triangles/m:triangle", ns))
            assert (vol.get("firstid"), vol.get("lastid")) == ("0", str(n - 1))


def test_orca_and_bambu_settings_and_cura_metadata_are_in_their_own_keys(plated):
    for plate in _plates(plated):
        path = plated / plate["file"]
        piece = plate["profile"]["name"] == "piece"
        project = json.loads(_zip_text(path, "Metadata/project_settings.config"))
        assert float(project["layer_height"]) == plate["profile"]["layer_height_mm"]
        assert float(project["initial_layer_print_height"]) == plate["profile"]["first_layer_height_mm"]
        assert project["ironing_type"] == ("topmost" if piece else "no ironing")
        assert project["seam_position"] == "back"  # PrusaSlicer's "rear" in OrcaSlicer's words
        colours = load_colours()
        assert project["filament_colour"] == [colours[c].srgb for c in plate["colours"]]
        cfg = ET.fromstring(_zip_text(path, "Metadata/model_settings.config"))
        model = ET.fromstring(_zip_text(path, "3D/3dmodel.model"))
        ns = {"m": "http://schemas.microsoft.com/3dmanufacturing/core/2015/02"}
        items = [i.get("objectid") for i in model.iterfind("m:build/m:item", ns)]
        assert sorted(o.get("id") for o in cfg.findall("object")) == sorted(items)
        for o in cfg.findall("object"):
            meta = {m.get("key"): m.get("value") for m in o.findall("metadata")}
            assert meta["extruder"] == "1" and float(meta["layer_height"]) == plate["profile"]["layer_height_mm"]
            assert meta["seam_position"] == "back"
            assert [p.get("id") for p in o.findall("part")] == [o.get("id")]
        assert len(cfg.findall("plate/model_instance")) == len(items)
        cura = "{http://software.ultimaker.com/xml/cura/3mf/2015/10}"
        for o in model.iterfind("m:resources/m:object", ns):
            text = ET.tostring(o.find("m:metadatagroup", ns)).decode()
            assert "ironing_enabled" in text
        raw = _zip_text(path, "3D/3dmodel.model")
        declared = dict(re.findall(r'xmlns:(\w+)="([^"]+)"', raw[:3000]))
        prefix = {v: k for k, v in declared.items()}[cura[1:-1]]
        assert f'name="{prefix}:ironing_enabled">{"True" if piece else "False"}<' in raw
        # Cura's seam at a point the user names, relative to each part: one a metre behind it
        for key, value in (("z_seam_type", "back"), ("z_seam_relative", "True"), ("z_seam_x", "0"),
                           ("z_seam_y", "1000")):
            assert raw.count(f'name="{prefix}:{key}">{value}<') == len(model.findall("m:resources/m:object", ns)), key


def _prusa_keys(text: str) -> dict[str, str]:
    return dict(re.findall(r"^; (\w+) = (.*)$", text, re.M))


def test_every_plate_carries_its_printers_bed_for_prusaslicer_and_orcaslicer(plated):
    """The bed a plate was arranged on, in the keys each slicer reads (PrusaSlicer's
    bed_shape and max_print_height, OrcaSlicer's printable_area and printable_height):
    in the default build's files, and in the settings of every printer's plates."""
    from stratstone_cad.base.printers import get_printer
    from stratstone_cad.printing import plating
    from stratstone_cad.printing.slicer_settings import orca_project_settings, prusa_print_config

    def corners(pr):
        return ["0x0", f"{pr.bed_x_mm:g}x0", f"{pr.bed_x_mm:g}x{pr.bed_y_mm:g}", f"0x{pr.bed_y_mm:g}"]

    for plate in _plates(plated):
        pr = get_printer(plate["printer"])
        prusa = _prusa_keys(_zip_text(plated / plate["file"], "Metadata/Slic3r_PE.config"))
        assert prusa["bed_shape"] == ",".join(corners(pr)) and float(prusa["max_print_height"]) == pr.bed_z_mm
        orca = json.loads(_zip_text(plated / plate["file"], "Metadata/project_settings.config"))
        assert orca["printable_area"] == corners(pr) and float(orca["printable_height"]) == pr.bed_z_mm
    ps = load_params()
    profiles = load_profiles()
    entries = {a["file"]: a for a in _manifest(plated)["assets"]}
    for name in load_printers():
        pr = get_printer(name)
        outputs = [o for g in get_parts(None) for j in g.plan(ps.params_of(g.name), pr, profiles, ps.mesh)
                   for o in j.outputs if o.profile == "piece"]  # the boards' tiles differ by printer
        jobs = plan_plates(outputs, entries, pr, profiles, ps.plates, load_colours())
        assert jobs
        for pj in jobs:
            settings = plating._settings(pj, pj.title(), pj.colours)
            prusa = _prusa_keys(prusa_print_config(settings))
            assert prusa["bed_shape"] == ",".join(corners(pr)), name
            assert float(prusa["max_print_height"]) == pr.bed_z_mm, name
            orca = json.loads(orca_project_settings(settings, "0"))
            assert orca["printable_area"] == corners(pr) and float(orca["printable_height"]) == pr.bed_z_mm, name


def test_the_same_parameters_give_byte_identical_plates(plated, built_all, tmp_path):
    """Two cold builds of every game (``plated``, and ``built_all``'s parts given their plates
    here): the same plates, byte for byte."""
    out = tmp_path / "again"
    shutil.copytree(built_all, out)
    r = B.build(None, None, out, jobs=1, progress=None, plates=True, slice_plates=False)
    assert not r.built and r.plates_built  # the parts of the other cold build, the plates written here
    for plate in _plates(plated):
        assert (out / plate["file"]).read_bytes() == (plated / plate["file"]).read_bytes(), plate["file"]


def test_an_unchanged_rebuild_writes_no_plate_and_a_plate_setting_rewrites_only_plates(plated, tmp_path):
    out = tmp_path / "o"
    shutil.copytree(plated, out)
    r = B.build(None, None, out, jobs=1, progress=None, plates=True, slice_plates=False)
    assert not r.built and not r.plates_built and len(r.plates_cached) == len(_plates(plated))
    r = B.build(None, None, out, jobs=1, progress=None, plates=True, slice_plates=False, sets={"plates.board_ironing": "topmost"})
    assert not r.built
    assert sorted(r.plates_built) == sorted(p["file"] for p in _plates(plated) if p["profile"]["name"] == "board")
    cfg = _zip_text(out / "stratstone/board.3mf", "Metadata/Slic3r_PE.config")
    assert "; ironing_type = topmost" in cfg
    r = B.build(None, None, out, jobs=1, progress=None, plates=True, slice_plates=False, sets={"plates.spacing_mm": "10"})
    assert not r.built and len(r.plates_built) == len(_plates(plated))
    r = B.build(None, None, out, jobs=1, progress=None, plates=True, slice_plates=False, sets={"plates.seam": "random"})
    assert not r.built and len(r.plates_built) == len(_plates(plated))
    cfg = _zip_text(out / "stratstone/board.3mf", "Metadata/Slic3r_PE.config")
    assert "; seam_position = random" in cfg
    assert '"seam_position": "random"' in _zip_text(out / "stratstone/board.3mf", "Metadata/project_settings.config")


def test_a_build_without_plates_removes_the_plates_it_made_outdated(plated, tmp_path):
    out = tmp_path / "o"
    shutil.copytree(plated, out)
    r = B.build(["stratstone"], None, out, jobs=1, progress=None, sets={"stratstone.stone.seed": "8"})
    assert r.built
    left = {p["file"] for p in _manifest(out)["plates"]}
    assert not any(f.startswith("stratstone/stones-") for f in left)  # their stones changed
    assert not (out / "stratstone/stones-red.3mf").exists()
    assert "stratstone/board.3mf" in left and (out / "stratstone/board.3mf").exists()  # the board did not
    assert "sage-stones/board.3mf" in left  # another game's plates are not this build's to judge


def test_bad_plate_parameters_are_one_line_errors(tmp_path):
    from stratstone_cad.errors import ParameterError

    with pytest.raises(ParameterError, match=r"^plates.piece_ironing = 'all': expected one of topmost, top, none"):
        load_params(sets={"plates.piece_ironing": "all"})
    with pytest.raises(ParameterError, match=r"^plates.spacing_mm = 1: expected a number from 2 to 50"):
        load_params(sets={"plates.spacing_mm": "1"})


# --------------------------------------------------------------------------- adaptive layers


def test_adaptive_layers_are_within_bounds_with_every_flat_face_on_a_layer_top(plated):
    for f in ["stratstone/stone-red-01.stl", "stratstone/stone-tan-05.stl", "sage-stones/gem-white.stl"]:
        mesh = read_stl_mesh((plated / f).read_bytes())
        tops = adaptive_layers(mesh, 0.2, cusp_mm=0.07, min_mm=0.07, max_mm=0.2)
        heights = np.diff([0.0, *tops])
        assert heights[0] == pytest.approx(0.2)
        assert heights[1:].min() >= 0.07 - 1e-9 and heights[1:].max() <= 0.2 + 1e-9, f
        assert tops[-1] == pytest.approx(mesh.vertices[:, 2].max(), abs=1e-6)
        for z in flat_heights(mesh)[1:]:
            assert min(abs(z - t) for t in tops) < 1e-6, (f, z)
        # thin where shallow (the top), thick where steep (the sides)
        assert heights[-3:].max() < 0.12 and heights[2:10].min() > 0.15, (f, heights)
        profile = slicer_profile(tops)
        assert len(profile) >= 6 and profile[-1][0] == pytest.approx(tops[-1])


def test_without_slicing_the_report_lists_every_plate_and_says_why_it_has_no_times(plated):
    text = (plated / "print-report.md").read_text()
    assert "not sliced (build --no-slice)" in text
    for plate in _plates(plated):
        row = next(line for line in text.splitlines() if line.startswith(f"| {plate['file']} |"))
        assert "| - | - |" in row
    assert "| stratstone/stones-red.3mf | 8: stone-red-01 ... stone-red-08 |" in text
    assert "| sage-stones/gems-red.3mf | 10 x gem-red |" in text


def test_the_command_line_writes_plates_and_refuses_bad_plate_settings(tmp_path):
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "stratstone_cad", *args], capture_output=True, text=True,
                              timeout=600)

    r = run("build", "terrain", "--plates", "--no-slice", "--quiet", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "6 plates: 6 written, 0 cached" in r.stdout and "print report" in r.stdout
    r = run("build", "terrain", "--plates", "--quiet", "--out", str(tmp_path / "p"), "--set", "plates.spacing_mm=x")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "plates.spacing_mm = 'x': expected a number from 2 to 50" in r.stderr
    assert not (tmp_path / "p").exists()


def _stepped(levels, base=20.0):
    """A stack of square slabs, each smaller than the one below: flat faces at ``levels``
    and sloped-free sides (a wedding cake), as one closed mesh."""
    import manifold3d

    body = None
    for i, (z0, z1) in enumerate(zip([0.0, *levels[:-1]], levels, strict=True)):
        w = base - 2 * i
        slab = manifold3d.Manifold.cube([w, w, z1 - z0]).translate([-w / 2, -w / 2, z0])
        body = slab if body is None else body + slab
    m = body.to_mesh()
    from stratstone_cad.printing.checks import Mesh

    return Mesh(np.asarray(m.vert_properties, dtype=np.float64)[:, :3], np.asarray(m.tri_verts, dtype=np.int64))


@pytest.mark.parametrize(("levels", "lo", "hi"), [
    ([0.65, 1.4, 3.05], 0.07, 0.2),        # faces on the 0.15 mm grid: each on a layer top
    ([0.65, 0.68, 2.0], 0.07, 0.2),        # two faces 0.03 mm apart: the upper one kept, no layer under 0.07
    ([0.25, 1.0, 2.0], 0.07, 0.2),         # a face 0.05 mm above the first layer: no 0.05 mm layer
    ([0.6, 1.0, 1.2], 0.15, 0.16),         # bounds no whole number of layers can always meet
    ([0.15], 0.07, 0.2),                   # a part no taller than the first layer
])
def test_adaptive_layers_keep_their_bounds_on_awkward_parts(levels, lo, hi):
    mesh = _stepped(levels)
    tops = adaptive_layers(mesh, 0.2, cusp_mm=0.07, min_mm=lo, max_mm=hi)
    assert tops[-1] == pytest.approx(levels[-1], abs=1e-6)
    if levels[-1] <= 0.2:
        assert tops == [levels[-1]]
        return
    assert tops[0] == pytest.approx(0.2)
    heights = np.diff(tops)
    feasible = all(math.floor(g / lo + 1e-9) >= math.ceil(g / hi - 1e-9)
                   for g in np.diff([0.2, *[z for z in levels if z > 0.2 + lo]]))
    if feasible:
        assert heights.min() >= lo - 1e-9 and heights.max() <= hi + 1e-9, heights
    else:  # the nearest whole number of even layers
        assert heights.min() >= lo / 2 and heights.max() <= 2 * hi, heights
    kept = [z for z in levels if z > 0.2 + lo - 1e-9]
    for z in kept[-1:]:
        assert min(abs(z - t) for t in tops) < 1e-6


def test_the_layer_profile_of_each_object_is_its_own_by_its_place_in_the_model(plated):
    """object_id=N of the layer profile is the N-th object of the model, and its profile
    ends at that object's height (the stones differ in height, so a mix-up shows)."""
    for plate in _plates(plated):
        path = plated / plate["file"]
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            if "Metadata/Slic3r_PE_layer_heights_profile.txt" not in names:
                assert not any(o["adaptive_layers"] for o in plate["objects"])
                continue
            text = z.read("Metadata/Slic3r_PE_layer_heights_profile.txt").decode()
            assert z.read("Metadata/layer_heights_profile.txt").decode() == text
            model = ET.fromstring(z.read("3D/3dmodel.model"))
        ns = {"m": "http://schemas.microsoft.com/3dmanufacturing/core/2015/02"}
        objects = model.findall("m:resources/m:object", ns)
        lines = dict(line.split("|") for line in text.splitlines())
        assert sorted(lines) == sorted(f"object_id={n}" for n in range(1, len(objects) + 1))
        for n, o in enumerate(objects, 1):
            zs = [float(v.get("z")) for v in o.iterfind("m:mesh/m:vertices/m:vertex", ns)]
            pairs = [float(x) for x in lines[f"object_id={n}"].split(";")]
            assert len(pairs) >= 6 and len(pairs) % 2 == 0
            assert pairs[-2] == pytest.approx(max(zs) - min(zs), abs=1e-3), (plate["file"], o.get("name"))


def test_the_plate_key_holds_the_version_the_printer_and_the_palette(plated):
    from stratstone_cad.base.colours import Colour
    from stratstone_cad.base.printers import get_printer

    ps = load_params()
    profiles = load_profiles()
    entries = {a["file"]: a for a in _manifest(plated)["assets"]}
    outputs = [o for g in get_parts(None) for j in g.plan(ps.params_of(g.name), get_printer(None), profiles, ps.mesh)
               for o in j.outputs]

    def keys(printer="prusa-mk4", colours=None, version="0.1.0"):
        jobs = plan_plates(outputs, entries, get_printer(printer), profiles, ps.plates, colours or load_colours())
        return {pj.file: plate_key(pj, ps.plates, "code", version) for pj in jobs}

    base = keys()
    assert keys(version="0.1.1").keys() == base.keys() and all(keys(version="0.1.1")[f] != k for f, k in base.items())
    redder = {**load_colours(), "red": Colour("red", "#FF0000")}
    changed = {f for f, k in keys(colours=redder).items() if k != base[f]}
    assert changed == {f for f in base if f.endswith(("-red.3mf",))}


def test_a_plate_path_that_is_not_a_regular_file_is_one_line_before_anything_is_read(plated, tmp_path):
    import os

    from stratstone_cad.errors import OutputError

    out = tmp_path / "o"
    shutil.copytree(plated, out)
    target = out / "stratstone/stones-red.3mf"
    target.unlink()
    os.mkfifo(target)
    with pytest.raises(OutputError, match=r"stones-red.3mf: is a FIFO, expected a regular file"):
        B.build(["stratstone"], None, out, jobs=1, progress=None)  # without --plates too: a FIFO would hang the check
    target.unlink()
    target.mkdir()
    with pytest.raises(OutputError, match=r"stones-red.3mf: is a folder, expected a regular file"):
        B.build(["stratstone"], None, out, jobs=1, progress=None, plates=True, slice_plates=False)


def test_a_bad_colours_file_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    from stratstone_cad.base import preset_files as P
    from stratstone_cad.errors import ParameterError

    models = tmp_path / "models"
    shutil.copytree(P.PRESETS_DIR, models)
    (models / "colours.toml").write_text('[colour]\nred = "#C8102E"\n')
    with pytest.raises(ParameterError, match=r'expected a \[colour\] table with a "board" colour'):
        load_colours(models)
    (models / "colours.toml").write_text('[colour]\nboard = "grey"\n')
    with pytest.raises(ParameterError, match=r'colour.board = \'grey\': expected a colour as "#RRGGBB"'):
        load_colours(models)
    monkeypatch.setattr(P, "PRESETS_DIR", models)
    monkeypatch.setattr(B, "load_colours", lambda: load_colours(models))
    with pytest.raises(ParameterError):
        B.build(["terrain"], None, tmp_path / "out", jobs=1, progress=None)
    assert not (tmp_path / "out").exists()


def test_plates_on_disk_but_not_listed_are_made_again_or_removed(plated, tmp_path):
    out = tmp_path / "o"
    shutil.copytree(plated, out)
    m = _manifest(out)
    m["plates"] = [p for p in m["plates"] if p["file"] != "terrain/pieces-red.3mf"]
    (out / "manifest.json").write_text(json.dumps(m))
    (out / "terrain/pieces-red-plate-1-of-2.3mf").write_bytes(b"an old bed count's plate")
    (out / "terrain/notes.3mf").write_bytes(b"a user's own file")
    r = B.build(["terrain"], None, out, jobs=1, progress=None, plates=True, slice_plates=False)
    assert r.plates_built == ["terrain/pieces-red.3mf"]
    assert "terrain/pieces-red-plate-1-of-2.3mf" in r.removed and not (out / "terrain/pieces-red-plate-1-of-2.3mf").exists()
    assert (out / "terrain/notes.3mf").read_bytes() == b"a user's own file"
