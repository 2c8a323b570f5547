"""A slice's key is what PrusaSlicer sees: the plate's geometry and settings and the program,
never its colours or names. Plates that differ only in those share keys; one setting, one
placement, the bed or the slicer changed gives another key. (No slicer runs here: the
figures of real slices are tests/pipeline/test_plate_slicing.py's.)"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from stratstone_cad.base.codeprint import code_fingerprint
from stratstone_cad.base.colours import load_colours
from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.errors import BuildError
from stratstone_cad.pipeline.build import build
from stratstone_cad.pipeline.manifest import read_manifest
from stratstone_cad.printing.plates import Placement, Plate
from stratstone_cad.printing.plating import (
    PLATE_MODULES,
    known_figures,
    known_slices,
    plan_plates,
    plate_bytes,
    print_figures,
    slice_files,
    slice_inputs,
)
from stratstone_cad.printing.slicing import SliceStats, slice_key
from stratstone_cad.registry import get_parts, load_params

#: The gems without their colours' marks: six plates of one geometry in six colours.
ALIKE = {"sage-stones.gem.mark": "false", "sage-stones.gem.per_colour": "2"}


@pytest.fixture(scope="module")
def gems(tmp_path_factory) -> tuple[Path, dict]:
    """The Sage Stones set with its plates (not sliced), and its plates' jobs by file."""
    out = tmp_path_factory.mktemp("gems")
    build(["sage-stones"], None, out, jobs=2, progress=None, sets=ALIKE, plates=True, slice_plates=False)
    games = get_parts(["sage-stones"])
    ps = load_params(None, ALIKE, games=["sage-stones"])
    printer, profiles = get_printer(None), load_profiles()
    plan = [j for g in games for j in g.plan(ps.params_of(g.name), printer, profiles, ps.mesh)]
    jobs = plan_plates([o for j in plan for o in j.outputs], read_manifest(out), printer, profiles, ps.plates,
                       load_colours())
    return out, {pj.file: pj for pj in jobs}


def _keys(pj, out: Path, printer=None, slicer_id: str = "prusa-slicer:1:2", slicer: str = "PrusaSlicer-2.5.0",
          code: str = "") -> dict:
    plates = load_params(None, ALIKE, games=["sage-stones"]).plates
    return {kind: slice_key(seen, printer or get_printer(None), slicer_id, slicer)
            for kind, seen in slice_inputs(pj, out, plates, code or code_fingerprint(PLATE_MODULES)).items()}


def _members(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n).decode("utf-8") for n in sorted(z.namelist())}


def test_plates_in_other_colours_have_one_key_for_each_slice(gems):
    out, jobs = gems
    gem_plates = sorted(f for f in jobs if "/gems-" in f)
    assert len(gem_plates) == 6
    keys = [_keys(jobs[f], out) for f in gem_plates]
    assert set(keys[0]) == {"as_set", "no_ironing", "flat"} and len(set(keys[0].values())) == 3
    assert all(k == keys[0] for k in keys), "the six gem plates are one plate to PrusaSlicer"
    assert _keys(jobs["sage-stones/board.3mf"], out)["as_set"] != keys[0]["as_set"]
    # ... though their files differ: names and colours
    files = [(out / f).read_bytes() for f in gem_plates]
    assert len(set(files)) == 6


def test_the_plates_sharing_a_key_differ_only_in_names_colours_and_the_ids_made_from_names(gems):
    """What is sliced for a key is the first plate's own file: the others differ from it in
    nothing PrusaSlicer reads for its figures (the mesh, placements, every setting and
    layer profile are the same text, byte for byte)."""
    out, jobs = gems
    black, red = jobs["sage-stones/gems-black.3mf"], jobs["sage-stones/gems-red.3mf"]
    (rgb_black,), (rgb_red,) = [c for _, c in black.colours], [c for _, c in red.colours]
    a, b = _members((out / black.file).read_bytes()), _members((out / red.file).read_bytes())
    assert set(a) == set(b)
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    for name in a:
        text = uuid.sub("UUID", a[name]).replace("black", "red").replace(rgb_black, rgb_red)
        if rgb_black.upper() != rgb_black:
            text = text.replace(rgb_black.upper(), rgb_red.upper())
        assert text == uuid.sub("UUID", b[name]), name
    # the variants that are sliced for a key, likewise
    plates = load_params(None, ALIKE, games=["sage-stones"]).plates
    va = _members_of(slice_files(black, ["no_ironing", "flat"], _sha(out, black), out, plates, "0.1.0"))
    vb = _members_of(slice_files(red, ["no_ironing", "flat"], _sha(out, red), out, plates, "0.1.0"))
    for kind in ("no_ironing", "flat"):
        assert all(uuid.sub("UUID", va[kind][n]).replace("black", "red").replace(rgb_black, rgb_red)
                   == uuid.sub("UUID", vb[kind][n]) for n in va[kind]), kind


def _members_of(files: dict[str, bytes]) -> dict[str, dict[str, str]]:
    return {kind: _members(data) for kind, data in files.items()}


def _sha(out: Path, pj) -> str:
    return hashlib.sha256((out / pj.file).read_bytes()).hexdigest()


def _package(data: bytes) -> list[tuple[str, bytes]]:
    """Each file of a 3MF package, in the package's order, with its content."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [(n, z.read(n)) for n in z.namelist()]


@pytest.mark.parametrize("file", ["sage-stones/gems-green.3mf", "sage-stones/board.3mf"])
def test_a_variant_is_the_plate_written_with_that_one_setting_changed(gems, file):
    """What is sliced for the figures without ironing and at flat layers holds, file for
    file of the package and in its order, the text of the plate as the build writes it
    with no ironing, or with no adaptive parts (made from the plate's own package: only
    the zip's compression may differ); as set, the plate's own file (checked against its
    sha256)."""
    out, jobs = gems
    pj = jobs[file]
    plates = load_params(None, ALIKE, games=["sage-stones"]).plates
    files = slice_files(pj, ["as_set", "no_ironing", "flat"], _sha(out, pj), out, plates, "0.1.0")
    assert files["as_set"] == (out / pj.file).read_bytes()
    assert _package(files["no_ironing"]) == _package(plate_bytes(replace(pj, ironing="none"), out, plates, "0.1.0")[0])
    assert _package(files["flat"]) == _package(plate_bytes(replace(pj, adaptive=frozenset()), out, plates, "0.1.0")[0])
    assert len({tuple(_package(d)) for d in files.values()}) == 1 + (pj.ironing != "none") + bool(pj.adaptive)
    with pytest.raises(BuildError, match=rf"^plate {re.escape(file)}: changed while it was sliced"):
        slice_files(pj, ["as_set"], "0" * 64, out, plates, "0.1.0")
    with pytest.raises(BuildError, match=rf"^plate {re.escape(file)}: changed while it was sliced"):
        slice_files(pj, ["flat"], "0" * 64, out, plates, "0.1.0")


def test_one_setting_a_placement_the_bed_or_the_slicer_changed_is_another_slice(gems, tmp_path):
    out, jobs = gems
    pj = jobs["sage-stones/gems-black.3mf"]
    base = _keys(pj, out)
    top = _keys(replace(pj, ironing="top"), out)
    assert top["as_set"] != base["as_set"] and top["flat"] != base["flat"]
    assert top["no_ironing"] == base["no_ironing"], "without ironing, the two plates are one"
    assert not set(_keys(replace(pj, seam="aligned"), out).values()) & set(base.values()), "the seam"
    thicker = replace(pj, profile=replace(pj.profile, layer_height_mm=0.2))
    assert not set(_keys(thicker, out).values()) & set(base.values())
    first = pj.plate.placements[0]
    moved = Plate((Placement(first.part, first.copy, (first.corner[0] + 0.001, first.corner[1])),
                   *pj.plate.placements[1:]))
    assert not set(_keys(replace(pj, plate=moved), out).values()) & set(base.values())
    flat_only = replace(pj, adaptive=frozenset())
    assert set(_keys(flat_only, out)) == {"as_set", "no_ironing"}
    assert _keys(flat_only, out)["as_set"] == base["flat"], "the adaptive plate at flat layers is the flat plate"
    assert _keys(pj, out, printer=get_printer("prusa-mini"))["as_set"] != base["as_set"]
    assert _keys(pj, out, slicer_id="prusa-slicer:1:3")["as_set"] != base["as_set"]
    assert _keys(pj, out, slicer="PrusaSlicer-2.6.0")["as_set"] != base["as_set"]
    assert _keys(pj, out, code="another")["as_set"] != base["as_set"], "the code that writes the plate"
    # one corner of the gem moved by a float's last bit: another mesh
    moved_out = tmp_path / "out"
    shutil.copytree(out, moved_out)
    stl = moved_out / "sage-stones/gem-black.stl"
    data = bytearray(stl.read_bytes())
    data[84 + 12] ^= 1  # the first triangle's first corner's x (after the header, the count and the normal)
    stl.write_bytes(bytes(data))
    changed = replace(pj, inputs={**pj.inputs, "sage-stones/gem-black.stl": hashlib.sha256(data).hexdigest()})
    assert not set(_keys(changed, moved_out).values()) & set(base.values()), "another mesh"
    with pytest.raises(BuildError, match=r"^plate sage-stones/gems-black\.3mf: sage-stones/gem-black\.stl changed "):
        _keys(replace(pj, inputs={**pj.inputs, "sage-stones/gem-black.stl": "0" * 64}), out)


def test_the_figures_recorded_for_a_plate_give_back_each_slices_figures():
    stats = {"as_set": SliceStats(5079, 2868.7, 8.56, 50, True), "no_ironing": SliceStats(4719, 2860.1, 8.53, 50, False),
             "flat": SliceStats(4150, 2866.0, 8.55, 40, True)}
    sliced = {k: s.as_dict() for k, s in stats.items()}
    figures = print_figures(sliced)
    assert figures == {"time_s": 5079, "filament_m": 2.869, "filament_g": 8.56, "layers": 50, "ironed": True,
                       "ironing_time_s": 360, "flat_time_s": 4150, "flat_layers": 40}
    keys = {"as_set": "a", "no_ironing": "b", "flat": "c"}
    known = dict(known_slices({**figures, "slices": keys}))
    assert print_figures({k: known[key] for k, key in keys.items()}) == figures
    assert known_figures({"g/p.3mf": {"print": {**figures, "slices": keys}}, "g/s.stl": {}}) == known


def test_a_variant_is_made_only_from_a_package_written_for_the_same_objects(gems):
    """A settings file the variant would add (a layer profile the plate has none of), or
    objects other than the package's, are refused, not written half right."""
    from stratstone_cad.printing.plating import _plate_objects, _settings
    from stratstone_cad.printing.threemf import plate_variant

    out, jobs = gems
    pj = jobs["sage-stones/gems-green.3mf"]
    plates = load_params(None, ALIKE, games=["sage-stones"]).plates
    objects, _ = _plate_objects(pj, out, plates)
    settings = _settings(pj, pj.title(), pj.colours)
    flat = plate_variant((out / pj.file).read_bytes(), [replace(o, layer_profile=()) for o in objects], settings, "0.1.0")
    with pytest.raises(ValueError, match=r"^the package has no Metadata/Slic3r_PE_layer_heights_profile\.txt to replace"):
        plate_variant(flat, objects, settings, "0.1.0")
    with pytest.raises(ValueError, match=rf"^the package's model has {len(objects)} Cura \w+ settings for "
                                         rf"{len(objects) - 1} objects"):
        plate_variant((out / pj.file).read_bytes(), objects[:-1], settings, "0.1.0")
