"""Parameters: presets, overrides, validation messages."""

from __future__ import annotations

import dataclasses
import shutil
import tomllib

import pytest

from stratstone_cad.base.overrides import parse_set
from stratstone_cad.base.params import Params, param, show_value
from stratstone_cad.base.preset_files import PRESETS_DIR
from stratstone_cad.base.printers import get_printer
from stratstone_cad.errors import ParameterError
from stratstone_cad.registry import ASSETS, SCHEMA, SHARED_PRESETS, load_params


def test_the_defaults_are_written_in_the_presets_only():
    """No parameter class carries a default: each field's one default is its preset's."""
    for prefix, cls in SCHEMA.items():
        for f in dataclasses.fields(cls):
            assert f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING, (prefix, f.name)
    presets = {}
    for f in [*(g.preset for g in ASSETS.values()), *(PRESETS_DIR / f for f in SHARED_PRESETS)]:
        presets.update(tomllib.loads(f.read_text()))
    for prefix, cls in SCHEMA.items():  # and each preset gives every field of its sections, and nothing else,
        table = presets  # but a field that follows a shared one (its one default is the shared field's)
        for part in prefix.split("."):
            table = table[part]
        assert set(table) == {f.name for f in dataclasses.fields(cls) if not f.metadata["follows"]}, prefix
        for f in dataclasses.fields(cls):
            if f.metadata["follows"]:
                shared, name = f.metadata["follows"].rsplit(".", 1)
                assert shared in SCHEMA and name in SCHEMA[shared].__dataclass_fields__, (prefix, f.name)


def test_a_preset_that_leaves_a_parameter_out_is_refused(tmp_path):
    presets = tmp_path / "presets"
    shutil.copytree(PRESETS_DIR, presets)
    plates = presets / "plates.toml"
    plates.write_text("\n".join(line for line in plates.read_text().splitlines() if not line.startswith("spacing_mm")))
    with pytest.raises(ParameterError, match=r"^presets .*plates.toml(, \S+)*: no value for plates.spacing_mm, expected one "
                                             r"for every parameter$"):
        load_params(presets_dir=presets)


def test_set_overrides_a_value_by_its_type():
    ps = load_params(sets=parse_set(["stratstone.stone.height_mm=9", "stratstone.stone.mark=off",
                                     "stratstone.stone.colours=green,blue,white", "stratstone.board.cells=5"]))
    assert ps.params_of("stratstone").stone.height_mm == 9.0
    assert ps.params_of("stratstone").stone.mark is False
    assert ps.params_of("stratstone").stone.colours == ["green", "blue", "white"]
    assert ps.params_of("stratstone").board.cells == 5


def test_params_file_then_set(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("[stratstone.stone]\nheight_mm = 8.0\nseed = 7\n[mesh]\ntolerance_mm = 0.02\n")
    ps = load_params(f, parse_set(["stratstone.stone.seed=8"]))
    assert (ps.params_of("stratstone").stone.height_mm, ps.params_of("stratstone").stone.seed, ps.mesh.tolerance_mm) == (8.0, 8, 0.02)


@pytest.mark.parametrize(("sets", "message"), [
    (["stratstone.stone.heigth_mm=9"],
     "unknown parameter 'stratstone.stone.heigth_mm' in --set (did you mean 'stratstone.stone.height_mm'?)"),
    (["stratstone.stone.height_mm=99"], "stratstone.stone.height_mm = 99: expected a number from 3 to 25"),
    (["stratstone.stone.height_mm=tall"], "stratstone.stone.height_mm = 'tall': expected a number from 3 to 25"),
    (["stratstone.stone.height_mm=nan"], "stratstone.stone.height_mm = 'nan': expected a number from 3 to 25"),
    # one number grammar: ASCII digits only, no underscores, and the value printed as given
    (["plates.spacing_mm=\u0661\u0662"], "plates.spacing_mm = '\u0661\u0662': expected a number from 2 to 50"),
    (["plates.spacing_mm=1_0"], "plates.spacing_mm = '1_0': expected a number from 2 to 50"),
    (["stratstone.board.cells=1_0"], "stratstone.board.cells = '1_0': expected an integer from 2 to 8"),
    (["stratstone.board.cells=\u0665"], "stratstone.board.cells = '\u0665': expected an integer from 2 to 8"),
    (["plates.spacing_mm=50.0000000000001"], "plates.spacing_mm = 50.0000000000001: expected a number from 2 to 50"),
    (["plates.spacing_mm=inf"], "plates.spacing_mm = 'inf': expected a number from 2 to 50"),
    (["stratstone.board.cells=4.5"], "stratstone.board.cells = '4.5': expected an integer from 2 to 8"),
    (["stratstone.stone.mark=maybe"], "stratstone.stone.mark = 'maybe': expected true or false"),
    (["stratstone.stone.marks=ring,star,bar"],
     "stratstone.stone.marks = ['ring', 'star', 'bar']: expected a list of 3 names from ring, cross, bars, dot, dots, triangle, none"),
    (["stratstone.stone.colours=red,red,tan"],
     "stratstone.stone.colours = ['red', 'red', 'tan']: expected three different names"),
    (["stratstone.stone.colours=red/x,blue,tan"],
     "stratstone.stone.colours = ['red/x', 'blue', 'tan']: expected names of lower-case letters, digits, '-' or '_', each "
     "beginning with a letter and at most 32 characters long (they name files)"),
    (["stratstone.stone.colours=Red,red,tan"], "expected names of lower-case letters"),
    (["stratstone.stone.marks=ring,ring,bars"], "stratstone.stone.marks = ['ring', 'ring', 'bars']: expected a different mark for each set"),
    # a ring whose stroke leaves no printable centre: a thinner stroke, or (none thin enough) a larger mark
    (["stratstone.stone.mark_size_mm=3.3", "stratstone.stone.mark_stroke_mm=1.5"],
     "stratstone.stone.mark_stroke_mm = 1.5: expected at most 0.894 so the ring's centre (3.3 mm mark) stays 0.8 mm wide"),
    (["stratstone.stone.mark_size_mm=3", "stratstone.stone.mark_stroke_mm=4"],
     "stratstone.stone.mark_size_mm = 3: expected at least 10.399 so the ring's centre stays 0.8 mm wide with 4 mm strokes"),
    # the mark with its strokes keeps a wall to the plateau's edge; too small a stone for any mark
    (["stratstone.stone.mark_size_mm=25"], "stratstone.stone.mark_size_mm = 25: expected at most 12.712 to fit the smallest stone's top plateau"),
    (["stratstone.stone.mark_size_mm=12.3", "stratstone.stone.mark_stroke_mm=4"],
     "stratstone.stone.mark_size_mm = 12.3: expected at most 9.449 to fit the smallest stone's top plateau, but with 4 mm strokes "
     "no mark that small keeps its centre 0.8 mm wide (a thinner stratstone.stone.mark_stroke_mm, or stratstone.stone.mark = false)"),
    (["stratstone.stone.footprint_mm=10", "stratstone.board.cell_pitch_mm=12"],
     "stratstone.stone.mark_size_mm = 8: expected a mark that fits the smallest stone's top plateau (4.77 mm) with 0.8 mm to "
     "spare, but none from 3 mm does (stratstone.stone.mark = false, or larger parts)"),
    # labels: walls beside them on the rim, room between neighbours, printable insides of letters
    (["stratstone.board.label_height_mm=10"],
     "stratstone.board.label_height_mm = 10: expected at most 9.2 to leave 0.8 mm walls beside the column labels on the 12 mm "
     "rim (stratstone.board.rim_width_mm 12)"),
    (["stratstone.stone.footprint_mm=10", "stratstone.board.cell_pitch_mm=11", "stratstone.board.clearance_mm=0.1",
      "stratstone.stone.mark=false", "stratstone.board.label_height_mm=10.5", "stratstone.board.rim_width_mm=20"],
     "stratstone.board.label_height_mm = 10.5: expected at most 9 to leave 0.8 mm walls between neighbouring row labels "
     "(stratstone.board.cell_pitch_mm 11)"),
    (["stratstone.board.label_height_mm=2.5", "stratstone.board.rim_width_mm=8"],
     "stratstone.board.label_height_mm = 2.5: expected at least 6.181 with 1.2 mm strokes, so the inside of the 'a' (and every "
     "closed letter or digit) stays 0.8 mm wide"),
    # no label height fits the rim: the rim itself must grow
    (["stratstone.board.rim_width_mm=6"],
     "stratstone.board.rim_width_mm = 6: expected at least 8.981 to hold 6.181 mm labels with 1.2 mm strokes and 0.8 mm walls "
     "beside the column labels"),
    # checked after snapping to the layers: 1.6 mm -> 1.5 mm board, 0.6 mm recess leaves 0.9 mm
    (["stratstone.board.thickness_mm=1.6", "stratstone.board.recess_depth_mm=0.6", "stratstone.board.engrave_depth_mm=0.3"],
     "stratstone.board.recess_depth_mm = 0.6: expected at most 0.5; it snaps to 0.6 mm in the 1.5 mm board"),
    (["stratstone.stone.seed=-1"], "stratstone.stone.seed = -1: expected an integer from 0 to 2147483647"),
    # derived: a stone and its clearance must fit a cell with a wall of two extrusions
    (["stratstone.board.cell_pitch_mm=31"],
     "stratstone.board.cell_pitch_mm = 31: expected at least 32 (stone footprint 30 + 2 x clearance 0.6 + a 0.8 mm wall"),
    (["stratstone.stone.footprint_mm=36"], "stratstone.board.cell_pitch_mm = 36: expected at least 38"),
    (["stratstone.board.label_stroke_mm=0.5"], "stratstone.board.label_stroke_mm = 0.5: expected a number from 0.8 to 4"),
    (["stratstone.board.recess_depth_mm=4.5"], "stratstone.board.recess_depth_mm = 4.5: expected at most 3.8"),
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
    with pytest.raises(ParameterError, match="unknown parameter 'stratstone.board.cell_pich_mm' in .*p.toml \\("
                                             "did you mean 'stratstone.board.cell_pitch_mm'"):
        load_params(f)


@pytest.mark.parametrize(("content", "message"), [
    (None, "file not found, expected a TOML file"),
    ("[stratstone.board\n", "invalid TOML (Expected ']' at the end of a table declaration"),
    (b"\xff\xfe", "not UTF-8 text, expected a TOML file"),
    # arrays may span lines, so a file of short lines can still nest deeper than the parser recurses
    ("x = " + "[\n" * 3000 + "]\n" * 3000, "invalid TOML (nested too deeply), expected a TOML file"),
    # refused before parsing: the line number counts from 1
    ("[stratstone.stone]\n#" + "x" * 4096 + "\n",
     "line 2 is 4097 bytes long, expected at most 4096 (split a long list over several lines)"),
])
def test_bad_params_file(tmp_path, content, message):
    f = tmp_path / "p.toml"
    if isinstance(content, bytes):
        f.write_bytes(content)
    elif content is not None:
        f.write_text(content)
    with pytest.raises(ParameterError) as e:
        load_params(f)
    assert str(e.value).startswith(f"--params file {f}: {message}")


def test_a_params_file_line_of_exactly_4096_bytes_is_read(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("[stratstone.stone]\nheight_mm = 8.0 #" + "x" * 4079 + "\n")
    assert len(f.read_bytes().splitlines()[1]) == 4096
    assert load_params(f).params_of("stratstone").stone.height_mm == 8.0


def test_unknown_printer_suggests_the_closest():
    with pytest.raises(ParameterError, match="printer 'prusa-mk5': unknown, expected one of .*did you mean 'prusa-mk4'"):
        get_printer("prusa-mk5")


@pytest.mark.parametrize("footprint", range(10, 81, 7))
@pytest.mark.parametrize("clearance", [0.1, 0.2, 0.3, 0.6])
def test_a_pitch_at_exactly_its_minimum_is_accepted(footprint, clearance):
    need = footprint + 2 * clearance + 0.8
    sets = [f"stratstone.stone.footprint_mm={footprint}", f"stratstone.board.clearance_mm={clearance}",
            f"stratstone.board.cell_pitch_mm={need!r}", "stratstone.stone.mark=false"]
    load_params(sets=parse_set(sets))
    with pytest.raises(ParameterError, match=r"expected at least "):
        load_params(sets=parse_set([*sets[:2], f"stratstone.board.cell_pitch_mm={need - 0.01!r}", sets[3]]))


def test_limits_in_messages_are_themselves_accepted():
    """The number after "at most" passes when given back."""
    sets = ["stratstone.stone.irregularity=0.15", "stratstone.stone.elongation=0.35", "stratstone.stone.min_scale=0.6",
            "stratstone.stone.plateau_fraction=0.5", "stratstone.stone.mark_stroke_mm=0.8", "stratstone.stone.mark_size_mm=9"]
    with pytest.raises(ParameterError) as e:
        load_params(sets=parse_set(sets))
    limit = str(e.value).split("at most ")[1].split(" ")[0]
    load_params(sets=parse_set([*sets[:-1], f"stratstone.stone.mark_size_mm={limit}"]))


def test_a_params_file_with_a_byte_order_mark(tmp_path):
    f = tmp_path / "p.toml"
    f.write_bytes(b"\xef\xbb\xbf[stratstone.stone]\nheight_mm = 8.0\n")
    assert load_params(f).params_of("stratstone").stone.height_mm == 8.0


def test_param_declares_a_field_with_its_description_and_limits():
    """``param`` runs when the parameter classes are declared, at import; called here so
    that a fault in it is seen (and so the mutation tests reach it)."""
    f = param("a length", lo=1.0, hi=9.0)
    assert f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING  # the presets hold it
    assert dict(f.metadata) == {"doc": "a length", "lo": 1.0, "hi": 9.0, "choices": None, "length": None,
                                "follows": None}
    g = param("names", choices=("a", "b", "c"), length=2, follows="fit.names")
    assert dict(g.metadata) == {"doc": "names", "lo": None, "hi": None, "choices": ("a", "b", "c"), "length": 2,
                                "follows": "fit.names"}


def _p(default, doc, **limits):
    """A test class's field: ``param``'s metadata with a default of its own (the package's
    classes have none: their defaults are the presets')."""
    factory = (lambda: list(default)) if isinstance(default, list) else None
    if factory:
        return dataclasses.field(default_factory=factory, metadata=param(doc, **limits).metadata)
    return dataclasses.field(default=default, metadata=param(doc, **limits).metadata)


@dataclasses.dataclass(frozen=True)
class _Demo(Params):
    PREFIX = "demo.part"

    width_mm: float = _p(10.0, "w", lo=1.0, hi=60.0)
    depth_mm: float = _p(5.0, "d", lo=2.0)


@pytest.mark.parametrize(("name", "value", "expected", "instead", "message"), [
    ("width_mm", 70.0, "at most 50", "", "demo.part.width_mm = 70: expected at most 50"),
    ("width_mm", 5.0, "at least 71", "a wider board",
     "demo.part.width_mm = 5: expected at least 71; width_mm is at most 60, so a wider board"),
    ("width_mm", 5.0, "at least 71.5", "",
     "demo.part.width_mm = 5: expected at least 71.5; width_mm is at most 60, so change the other values named here"),
    ("width_mm", 5.0, "at most 0.5", "",
     "demo.part.width_mm = 5: expected at most 0.5; width_mm is at least 1, so change the other values named here"),
    ("width_mm", 5.0, "at most -3.5 mm", "",
     "demo.part.width_mm = 5: expected at most -3.5 mm; width_mm is at least 1, so change the other values named here"),
    ("width_mm", 5.0, "at least 60", "", "demo.part.width_mm = 5: expected at least 60"),  # its own limit: reachable
    ("width_mm", 5.0, "at most 1", "", "demo.part.width_mm = 5: expected at most 1"),
    ("width_mm", 5.0, "at least 60.0000000001", "", "demo.part.width_mm = 5: expected at least 60.0000000001"),
    # exactly TOL (1e-9) past its own limit is still within reach; a limit 2e-9 past is not
    ("width_mm", 5.0, "at least 60.000000001", "", "demo.part.width_mm = 5: expected at least 60.000000001"),
    ("width_mm", 5.0, "at most 0.999999999", "", "demo.part.width_mm = 5: expected at most 0.999999999"),
    ("width_mm", 5.0, "at least 60.000000002", "",
     "demo.part.width_mm = 5: expected at least 60.000000002; width_mm is at most 60, so change the other values named here"),
    ("width_mm", 5.0, "at most 0.999999998", "",
     "demo.part.width_mm = 5: expected at most 0.999999998; width_mm is at least 1, so change the other values named here"),
    ("depth_mm", 3.0, "at least 1000", "", "demo.part.depth_mm = 3: expected at least 1000"),  # no upper limit
    ("depth_mm", 3.0, "at most 1.5", "x",
     "demo.part.depth_mm = 3: expected at most 1.5; depth_mm is at least 2, so x"),
    ("width_mm", "wide", "a number from 1 to 60", "", "demo.part.width_mm = 'wide': expected a number from 1 to 60"),
])
def test_a_refusal_says_when_the_bound_asked_for_is_out_of_the_parameters_own_range(name, value, expected, instead,
                                                                                      message):
    with pytest.raises(ParameterError) as e:
        _Demo().fail(name, value, expected, instead)
    assert str(e.value) == message


@pytest.mark.parametrize(("value", "shown"), [
    ("ab", "'ab'"), ("x" * 40, repr("x" * 40)), ("x" * 41, repr("x" * 40) + "... (41 characters)"),
    (True, "true"), (False, "false"), (2.0, "2"), (0.25, "0.25"), (1e20, "1e+20"), (7, "7"),
    (999999999999999.0, "999999999999999"), (1e15, "1e+15"),  # a whole float has digits up to 15 of them
    (10**18 - 1, "999999999999999999"), (10**18, "a whole number of about 19 digits"),
    (-(10**20), "a whole number of about 21 digits"), (2**64, "a whole number of about 20 digits"),
    ([1, 2.5, "a"], "[1, 2.5, 'a']"), (list(range(8)), "[0, 1, 2, 3, 4, 5, 6, 7]"),
    (list(range(9)), "[0, 1, 2, 3, 4, 5, 6, 7, ... (9 items)]"), ((1, True), "[1, true]"),
    ({}, "an empty table"), ({"a": 1}, "a table"), (None, "None"),
])
def test_a_value_is_shown_in_a_message_cut_to_a_readable_size(value, shown):
    assert show_value(value) == shown


def test_set_splits_at_the_first_equals_sign_and_names_a_close_choice():
    from stratstone_cad.base.printers import _one_of

    assert parse_set([" a.b =c=d", "a.b=e", "x.y="]) == {"a.b": "e", "x.y": ""}
    assert parse_set(["p.q=r=s"]) == {"p.q": "r=s"}  # a value may hold "="
    names = ["terrain", "stratstone", "sage-stones"]
    assert _one_of("stratstne", names) == "one of sage-stones, stratstone, terrain (did you mean 'stratstone'?)"
    assert _one_of("zzz", names) == "one of sage-stones, stratstone, terrain"


def test_a_height_is_on_a_layer_boundary_counting_from_the_first_layer():
    from stratstone_cad.base.params import Profile, on_layer_boundary

    p = Profile("piece", 0.15, 0.2)
    # the tolerance is in mm on both sides of every boundary, the first layer's top included
    for z in (0.0, 0.2, 0.35, 0.5, 6.35, 0.2 + 100 * 0.15, 0.00005, 0.35 + 0.00009, 0.2 - 0.00009):
        assert on_layer_boundary(z, p), z
    for z in (0.1, 0.15, 0.3, 0.36, 6.4, 0.35 + 0.00011, -0.15, 0.05, 0.2 - 0.00011):
        assert not on_layer_boundary(z, p), z
    assert on_layer_boundary(0.36, p, tol=0.011) and not on_layer_boundary(0.36, p, tol=0.009)
    assert not on_layer_boundary(0.1, p, tol=0.1)  # exactly the tolerance below the first layer's top (0.1 - 0.2 == -0.1)


def test_describe_lists_every_parameter_with_its_range_and_words():
    rows = _Demo.field_docs()
    assert rows == [("demo.part.width_mm", "a number from 1 to 60", "w"),
                    ("demo.part.depth_mm", "a number of at least 2", "d")]
    from stratstone_cad.games.stratstone.parts import StratstoneStones

    listed = {name: expected for name, expected, _ in StratstoneStones.field_docs()}
    assert listed["stratstone.stone.marks"] == "a list of 3 names from ring, cross, bars, dot, dots, triangle, none"


@dataclasses.dataclass(frozen=True)
class _Kinds(Params):
    PREFIX = "demo.kinds"

    flag: bool = _p(True, "a switch")
    label: str = _p("", "free text")
    style: str = _p("round", "a choice", choices=("round", "square"))
    names: list[str] = _p(["a"], "some names")
    three: list[str] = _p(["a", "b", "c"], "three names", choices=("a", "b", "c", "d"), length=3)
    count: int = _p(3, "a count", lo=1)
    size: float = _p(1.0, "a size")


def test_each_kind_of_parameter_says_what_it_expects():
    assert {name: expected for name, expected, _ in _Kinds.field_docs()} == {
        "demo.kinds.flag": "true or false",
        "demo.kinds.label": 'a text ("" for none)',
        "demo.kinds.style": "one of round, square",
        "demo.kinds.names": "a list of names",
        "demo.kinds.three": "a list of 3 names from a, b, c, d",
        "demo.kinds.count": "an integer of at least 1",
        "demo.kinds.size": "a number",
    }


def test_set_text_is_read_by_the_parameters_kind():
    from stratstone_cad.base.overrides import parse_text_value

    f = {x.name: x for x in dataclasses.fields(_Kinds)}
    for word in ("true", "Yes", " ON ", "1"):
        assert parse_text_value(f["flag"], word, "n") is True, word
    for word in ("false", "NO", "off", "0"):
        assert parse_text_value(f["flag"], word, "n") is False, word
    with pytest.raises(ParameterError, match="^n = 'maybe': expected true or false$"):
        parse_text_value(f["flag"], "maybe", "n")
    assert parse_text_value(f["label"], "  a b ", "n") == "a b"
    assert parse_text_value(f["names"], "x, y ,z", "n") == ["x", "y", "z"]
    with pytest.raises(ParameterError, match="^n = 'x,,y': expected names separated by commas, with none empty$"):
        parse_text_value(f["names"], "x,,y", "n")
    # the form `list` shows (a TOML array, so a JSON one too); the field checks the items
    assert parse_text_value(f["names"], '["x", "y", "z"]', "n") == ["x", "y", "z"]
    assert parse_text_value(f["names"], " ['x','y'] ", "n") == ["x", "y"]
    assert parse_text_value(f["names"], '["x", 3]', "n") == ["x", 3]
    forms = 'names separated by commas (a,b,c) or an array as list shows it (["a", "b", "c"])'
    for text in ('["x", "y"', '["x"] \nw = 2', "[x, y]", "[" * 5000):
        with pytest.raises(ParameterError) as e:
            parse_text_value(f["names"], text, "n")
        assert str(e.value).startswith("n = ") and str(e.value).endswith(f": expected {forms}"), text
    assert parse_text_value(f["count"], " 7 ", "n") == 7 and parse_text_value(f["size"], "2.5", "n") == 2.5
    with pytest.raises(ParameterError, match="^n = '2.5': expected an integer of at least 1$"):
        parse_text_value(f["count"], "2.5", "n")


def test_the_thinnest_adaptive_layer_is_at_most_the_thickest_less_0_01_mm():
    """The limit the message names is itself accepted: 0.15 - 0.01 is 0.13999999999999999
    in floats, and 0.14 must still pass."""
    plates = load_params().plates

    def _plates(**values):
        return dataclasses.replace(plates, **values)

    with pytest.raises(ParameterError) as e:
        _plates(adaptive_min_layer_mm=0.15, adaptive_max_layer_mm=0.15)
    assert str(e.value) == "plates.adaptive_min_layer_mm = 0.15: expected at most 0.14 (below adaptive_max_layer_mm)"
    assert _plates(adaptive_min_layer_mm=0.14, adaptive_max_layer_mm=0.15).adaptive_min_layer_mm == 0.14
    assert _plates(adaptive_min_layer_mm=0.15, adaptive_max_layer_mm=0.16).adaptive_min_layer_mm == 0.15
    # within TOL of the limit passes, as every derived limit does; a hair more does not
    assert _plates(adaptive_min_layer_mm=0.145000001, adaptive_max_layer_mm=0.155).adaptive_min_layer_mm == 0.145000001
    with pytest.raises(ParameterError, match=r"^plates.adaptive_min_layer_mm = 0.145000002: expected at most 0.145 "):
        _plates(adaptive_min_layer_mm=0.145000002, adaptive_max_layer_mm=0.155)


def test_printer_and_profile_presets_are_read_from_the_models_folder(tmp_path):
    from stratstone_cad.base.params import Profile
    from stratstone_cad.base.printers import Printer, default_printer, load_printers, load_profiles

    (tmp_path / "printers.toml").write_text('default = "small"\n[printer.small]\ntitle = "A small printer"\n'
                                            "bed_x_mm = 180\nbed_y_mm = 170\nmargin_mm = 5\nbed_z_mm = 160\n")
    (tmp_path / "profiles.toml").write_text("[profile.piece]\nlayer_height_mm = 0.15\nfirst_layer_height_mm = 0.2\n")
    assert load_printers(tmp_path) == {"small": Printer("small", "A small printer", 180.0, 170.0, 5.0, 160.0)}
    assert default_printer(tmp_path) == "small"
    assert get_printer(None, tmp_path).usable_mm == (170.0, 160.0)
    assert load_profiles(tmp_path) == {"piece": Profile("piece", 0.15, 0.2)}


def test_a_missing_or_broken_preset_file_is_named_in_one_line(tmp_path):
    from stratstone_cad.base.overrides import resolve
    from stratstone_cad.base.printers import default_printer, load_printers, load_profiles

    printers, profiles, preset = tmp_path / "printers.toml", tmp_path / "profiles.toml", tmp_path / "stratstone.toml"
    for call, message in [(lambda: load_printers(tmp_path), f"printer presets {printers}: file not found"),
                          (lambda: load_profiles(tmp_path), f"print profiles {profiles}: file not found"),
                          (lambda: resolve(SCHEMA, [preset]), f"preset {preset}: file not found")]:
        with pytest.raises(ParameterError) as e:
            call()
        assert str(e.value) == message + ", expected a TOML file"
    printers.write_text('default = "small\n')  # the CLI reads the default before the printers
    with pytest.raises(ParameterError) as e:
        default_printer(tmp_path)
    assert str(e.value).startswith(f"printer presets {printers}: invalid TOML (")


def test_a_preset_file_is_named_with_an_unknown_name_in_it(tmp_path):
    from stratstone_cad.base.overrides import resolve

    presets = [*(g.preset for g in ASSETS.values()), *(PRESETS_DIR / f for f in SHARED_PRESETS)]
    preset = tmp_path / "stratstone.toml"
    preset.write_text("[stratstone.board]\ncells = 5\n")
    assert resolve(SCHEMA, [*presets, preset])["stratstone.board"]["cells"] == 5
    preset.write_text("[stratstone.board]\ncell = 5\n")
    with pytest.raises(ParameterError) as e:
        resolve(SCHEMA, [*presets, preset])
    assert str(e.value) == f"unknown parameter 'stratstone.board.cell' in {preset} (did you mean 'stratstone.board.cells'?)"


@pytest.mark.parametrize(("sets", "message"), [
    # a bare field name is answered with its full name
    (["footprint_mm=20"], "unknown parameter 'footprint_mm' in --set (did you mean 'stratstone.stone.footprint_mm'?)"),
    (["cells=5"], "unknown parameter 'cells' in --set"),  # nothing close enough to name
])
def test_an_unknown_name_is_answered_with_the_closest_full_name_if_any(sets, message):
    with pytest.raises(ParameterError) as e:
        load_params(sets=parse_set(sets))
    assert str(e.value) == message


def test_a_bound_out_of_the_parameters_range_without_a_remedy_asks_to_change_the_others():
    with pytest.raises(ParameterError) as e:
        _Demo().fail("width_mm", 5.0, "at least 71 to hold the rest")
    assert str(e.value) == ("demo.part.width_mm = 5: expected at least 71 to hold the rest; width_mm is at most 60, so "
                            "change the other values named here")


def test_a_limit_in_a_message_is_rounded_to_a_thousandth_towards_the_allowed_side():
    from stratstone_cad.base.params import fmt_down, fmt_up

    assert (fmt_up(10.3981), fmt_down(0.8949), fmt_up(2.0), fmt_down(2.0)) == ("10.399", "0.894", "2", "2")
    assert (fmt_up(1.000001), fmt_down(0.999999)) == ("1.001", "0.999")
    # float noise far below TOL is not taken for a thousandth more (or less): 1 passes there
    assert (fmt_up(1.0000000003), fmt_down(0.9999999997)) == ("1", "1")


@pytest.mark.parametrize(("name", "value", "message"), [
    ("flag", 1, "demo.kinds.flag = 1: expected true or false"),
    ("label", 5, 'demo.kinds.label = 5: expected a text ("" for none)'),
    ("label", "a\x00b", "demo.kinds.label = 'a\\x00b': expected a text without control characters (it has '\\x00')"),
    ("label", "x\u2028y", "demo.kinds.label = 'x\\u2028y': expected a text without control characters "
                          "(it has '\\u2028')"),
    ("style", "oval", "demo.kinds.style = 'oval': expected one of round, square"),
    ("names", "ab", "demo.kinds.names = 'ab': expected a list of names"),  # a text is not a list of its letters
    ("names", ["a", ""], "demo.kinds.names = ['a', '']: expected a list of names"),
    ("names", ["a", 5], "demo.kinds.names = ['a', 5]: expected a list of names"),
    ("names", 5, "demo.kinds.names = 5: expected a list of names"),
    ("three", ["a", "b"], "demo.kinds.three = ['a', 'b']: expected a list of 3 names from a, b, c, d"),
    ("three", ["a", "b", "e"], "demo.kinds.three = ['a', 'b', 'e']: expected a list of 3 names from a, b, c, d"),
    ("count", True, "demo.kinds.count = true: expected an integer of at least 1"),  # a bool is no number
    ("count", 4.5, "demo.kinds.count = 4.5: expected an integer of at least 1"),
    ("count", 0, "demo.kinds.count = 0: expected an integer of at least 1"),
    ("count", "4", "demo.kinds.count = '4': expected an integer of at least 1"),
    ("size", "big", "demo.kinds.size = 'big': expected a number"),
    ("size", 10**400, "demo.kinds.size = a whole number of about 401 digits: expected a number"),
    ("size", float("inf"), "demo.kinds.size = inf: expected a number"),
])
def test_a_value_of_the_wrong_kind_is_refused_with_what_the_parameter_expects(name, value, message):
    """What a --params file can hold (any TOML value) reaches the fields unparsed."""
    with pytest.raises(ParameterError) as e:
        _Kinds(**{name: value})
    assert str(e.value) == message


def test_a_value_of_the_right_kind_is_kept_in_the_parameters_type():
    k = _Kinds()
    assert (k.flag, k.label, k.style, k.names, k.three, k.count, k.size) == (True, "", "round", ["a"], ["a", "b", "c"], 3, 1.0)
    k = _Kinds(names=("x", "y", "z", "w"), three=("d", "c", "a"), count=4.0, size=2, label="any text")
    assert k.names == ["x", "y", "z", "w"] and k.three == ["d", "c", "a"]
    assert k.count == 4 and type(k.count) is int  # a whole float (TOML's 4.0) is the integer
    assert k.size == 2.0 and type(k.size) is float


def test_a_params_file_may_write_an_integer_as_a_whole_float(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("[stratstone.board]\ncells = 5.0\n")
    cells = load_params(f).params_of("stratstone").board.cells
    assert cells == 5 and type(cells) is int


def test_heights_and_depths_snap_to_whole_layers():
    from stratstone_cad.base.params import Profile, snap_depth, snap_height

    p = Profile("piece", 0.15, 0.2)
    # a face at or near the bed goes to the first layer's top, the lowest boundary above it
    assert (snap_height(0.0, p), snap_height(0.12, p), snap_height(0.3, p)) == (0.2, 0.2, 0.35)
    assert (snap_height(0.58, p), snap_height(0.0, p, minimum_layers=3)) == (0.65, 0.5)
    # a depth is at least one layer, or as many as asked
    assert (snap_depth(0.05, p), snap_depth(0.5, p), snap_depth(0.05, p, minimum_layers=2)) == (0.15, 0.45, 0.3)
    # mm rounded to 1e-6
    q = Profile("fine", 0.1234567, 0.2)
    assert (snap_height(0.3, q), snap_depth(0.5, q)) == (0.323457, 0.493827)


def test_a_height_exactly_the_tolerance_off_a_boundary_is_not_on_it():
    from stratstone_cad.base.params import Profile, on_layer_boundary

    p = Profile("coarse", 0.5, 0.5)  # boundaries at 0, 0.5, 1, ...; every value here is exact in binary
    assert on_layer_boundary(0.0625, p, tol=0.125) and not on_layer_boundary(0.125, p, tol=0.125)  # above the bed
    assert on_layer_boundary(0.5625, p, tol=0.125) and not on_layer_boundary(0.625, p, tol=0.125)  # above a layer
    assert on_layer_boundary(0.9375, p, tol=0.125) and not on_layer_boundary(0.875, p, tol=0.125)  # below a layer
    assert not on_layer_boundary(0.0001, Profile("piece", 0.15, 0.2))  # the default tolerance, 1e-4 mm


def test_a_part_shows_its_colour_or_else_the_board_colour():
    from stratstone_cad.base.colours import Colour, display_colour

    colours = {"board": Colour("board", "#9A9A94"), "red": Colour("red", "#C8102E")}
    assert display_colour(colours, "red") == "#C8102E"
    assert display_colour(colours, None) == "#9A9A94"  # a part without a colour: a board
    assert display_colour(colours, "teal") == "#9A9A94"  # a colour colours.toml does not name


def test_display_colours_are_read_whole_and_a_bad_one_is_named(tmp_path):
    """models/colours.toml as written (upper-cased, "board" among them); a file without a
    board colour, without the table, or with a value that is not #RRGGBB is one whole line
    naming the file."""
    from stratstone_cad.base.colours import Colour, load_colours

    colours = load_colours()
    assert colours["board"] == Colour("board", "#9A9A94") and colours["red"] == Colour("red", "#C8102E")
    assert all(c.srgb == c.srgb.upper() and len(c.srgb) == 7 for c in colours.values())
    assert list(colours)[:3] == ["board", "yellow", "red"]  # in the file's order
    f = tmp_path / "colours.toml"
    table = f'colours {f}: expected a [colour] table with a "board" colour (for parts without one)'
    for text, message in [
        ('[colour]\nred = "#C8102E"\n', table),
        ('colour = "#9A9A94"\n', table),
        ("", table),
        ('[colour]\nboard = "grey"\n', f'colours {f}: colour.board = \'grey\': expected a colour as "#RRGGBB"'),
        ('[colour]\nboard = "#9A9A94"\nred = "#C8102"\n',
         f'colours {f}: colour.red = \'#C8102\': expected a colour as "#RRGGBB"'),
        ('[colour]\nboard = "#9A9A94"\nred = 3\n', f'colours {f}: colour.red = 3: expected a colour as "#RRGGBB"'),
        ('[colour]\nboard = "#9A9A94"\nred = "#C8102EE"\n',
         f'colours {f}: colour.red = \'#C8102EE\': expected a colour as "#RRGGBB"'),
        ("[colour\n", f"colours {f}: invalid TOML (Expected ']' at the end of a table declaration (at line 1, column 8))"),
    ]:
        f.write_text(text)
        with pytest.raises(ParameterError) as e:
            load_colours(tmp_path)
        assert str(e.value) == message, text
    f.write_text('[colour]\nboard = "#9a9a94"\n')
    assert load_colours(tmp_path) == {"board": Colour("board", "#9A9A94")}



def test_a_list_set_as_list_shows_it_and_a_name_too_long_for_a_file_says_the_limit():
    shown = '["' + '", "'.join(load_params().params_of("stratstone").stone.colours) + '"]'  # as `list` prints them
    assert load_params(sets={"stratstone.stone.colours": '["ab", "cd", "ef"]'}).params_of("stratstone").stone.colours == \
        ["ab", "cd", "ef"]
    assert load_params(sets={"stratstone.stone.colours": shown}).params_of("stratstone").stone.colours == \
        load_params().params_of("stratstone").stone.colours
    longest = "c" * 32
    assert load_params(sets={"stratstone.stone.colours": f"a,b,{longest}"}).params_of("stratstone").stone.colours[2] == longest
    with pytest.raises(ParameterError) as e:
        load_params(sets={"stratstone.stone.colours": f"a,b,{longest}c"})
    assert str(e.value).endswith("expected names of lower-case letters, digits, '-' or '_', each beginning with a "
                                 "letter and at most 32 characters long (they name files)")


def test_a_boards_own_joint_clearance_wins_over_the_shared_one_wherever_given(tmp_path):
    """fit.joint_clearance_mm reaches every board's field left without a value of its own; a
    board's own value, even from the --params file under a --set of the shared one, is kept."""
    f = tmp_path / "p.toml"
    f.write_text("[stratstone.board]\njoint_clearance_mm = 0.25\n")
    ps = load_params(f, parse_set(["fit.joint_clearance_mm=0.3"]))
    assert ps.fit.joint_clearance_mm == 0.3
    assert ps.params_of("stratstone").board.joint_clearance_mm == 0.25
    assert ps.params_of("sage-stones").board.joint_clearance_mm == 0.3
    assert ps.params_of("terrain").board.joint_clearance_mm == 0.3
