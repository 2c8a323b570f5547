"""Parameters: presets, overrides, validation messages."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from stratstone_cad.errors import ParameterError
from stratstone_cad.params import MODELS_DIR, SCHEMA, get_printer, load_params, parse_set


def test_dataclass_defaults_equal_the_presets():
    presets = {}
    for f in ("stratstone.toml", "mesh.toml"):
        presets.update(tomllib.loads((MODELS_DIR / f).read_text()))
    for prefix, cls in SCHEMA.items():
        table = presets
        for part in prefix.split("."):
            table = table[part]
        defaults = {f.name: (f.default if f.default is not dataclasses.MISSING else f.default_factory())
                    for f in dataclasses.fields(cls)}
        assert table == defaults, prefix


def test_set_overrides_a_value_by_its_type():
    ps = load_params(sets=parse_set(["stratstone.stone.height_mm=9", "stratstone.stone.mark=off",
                                     "stratstone.stone.colours=green,blue,white", "stratstone.board.cells=5"]))
    assert ps.stratstone.stone.height_mm == 9.0
    assert ps.stratstone.stone.mark is False
    assert ps.stratstone.stone.colours == ["green", "blue", "white"]
    assert ps.stratstone.board.cells == 5


def test_params_file_then_set(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("[stratstone.stone]\nheight_mm = 8.0\nseed = 7\n[mesh]\ntolerance_mm = 0.02\n")
    ps = load_params(f, parse_set(["stratstone.stone.seed=8"]))
    assert (ps.stratstone.stone.height_mm, ps.stratstone.stone.seed, ps.mesh.tolerance_mm) == (8.0, 8, 0.02)


@pytest.mark.parametrize(("sets", "message"), [
    (["stratstone.stone.heigth_mm=9"],
     "unknown parameter 'stratstone.stone.heigth_mm' in --set; did you mean stratstone.stone.height_mm?"),
    (["stratstone.stone.height_mm=99"], "stratstone.stone.height_mm = 99: expected a number from 3 to 25"),
    (["stratstone.stone.height_mm=tall"], "stratstone.stone.height_mm = 'tall': expected a number from 3 to 25"),
    (["stratstone.stone.height_mm=nan"], "stratstone.stone.height_mm = nan: expected a number from 3 to 25"),
    (["stratstone.board.cells=4.5"], "stratstone.board.cells = '4.5': expected an integer from 2 to 8"),
    (["stratstone.stone.mark=maybe"], "stratstone.stone.mark = 'maybe': expected true or false"),
    (["stratstone.stone.marks=ring,star,bar"],
     "stratstone.stone.marks = ['ring', 'star', 'bar']: expected a list of 3 names from ring, cross, bar, dot, triangle, none"),
    (["stratstone.stone.colours=red,red,tan"],
     "stratstone.stone.colours = ['red', 'red', 'tan']: expected three different names"),
    (["stratstone.stone.colours=red/x,blue,tan"], "expected names of letters, digits, '-' or '_' (they name files)"),
    # derived: a stone and its clearance must fit a cell with a wall of two extrusions
    (["stratstone.board.cell_pitch_mm=31"],
     "stratstone.board.cell_pitch_mm = 31: expected at least 32 (stone footprint 30 + 2 x clearance 0.6 + a 0.8 mm wall"),
    (["stratstone.stone.footprint_mm=36"], "stratstone.board.cell_pitch_mm = 36: expected at least 38"),
    (["stratstone.board.label_stroke_mm=0.5"], "stratstone.board.label_stroke_mm = 0.5: expected a number from 0.8 to 4"),
    (["stratstone.board.recess_depth_mm=4.5"], "stratstone.board.recess_depth_mm = 4.5: expected at most 3.8"),
    (["stratstone.stone.mark_size_mm=25"], "stratstone.stone.mark_size_mm = 25: expected at most"),
    (["height_mm"], "--set 'height_mm': expected NAME=VALUE"),
])
def test_bad_parameters_are_named_with_value_and_expectation(sets, message):
    with pytest.raises(ParameterError) as e:
        load_params(sets=parse_set(sets))
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_unknown_name_in_params_file(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("[stratstone.board]\ncell_pich_mm = 40\n")
    with pytest.raises(ParameterError, match="unknown parameter 'stratstone.board.cell_pich_mm' in .*p.toml; "
                                             "did you mean stratstone.board.cell_pitch_mm"):
        load_params(f)


@pytest.mark.parametrize(("content", "message"), [
    (None, "file not found"),
    ("[stratstone.board\n", "invalid TOML"),
    (b"\xff\xfe", "not UTF-8 text"),
])
def test_bad_params_file(tmp_path, content, message):
    f = tmp_path / "p.toml"
    if isinstance(content, bytes):
        f.write_bytes(content)
    elif content is not None:
        f.write_text(content)
    with pytest.raises(ParameterError, match=message):
        load_params(f)


def test_unknown_printer_suggests_the_closest():
    with pytest.raises(ParameterError, match="printer 'prusa-mk5': unknown, expected one of .*did you mean 'prusa-mk4'"):
        get_printer("prusa-mk5")
