"""The public model API: ``models.part(NAME, **overrides)`` and ``models.assembly(GAME)``."""

from __future__ import annotations

import subprocess
import sys

import cadquery as cq
import pytest

from stratstone_cad import models
from stratstone_cad.base.printers import get_printer
from stratstone_cad.occ.shapes import volume
from stratstone_cad.registry import FACTS, load_params
from tests import ROOT


def test_every_part_the_build_makes_has_a_name_and_the_names_are_the_build_files():
    names = models.names()
    assert "stratstone/board" in names and "stratstone/stone-red-03" in names
    assert "sage-stones/gem-blue" in names and "terrain/guardian-red" in names and "terrain/board-seed-1" in names
    assert all("tile" not in n for n in names)  # whole boards without a printer
    assert any("tile" in n for n in models.names("terrain", printer="prusa-mini"))


def test_a_part_is_a_workplane_of_one_solid_in_mm_standing_on_the_bed():
    w = models.part("sage-stones/gem-blue")
    assert isinstance(w, cq.Workplane)
    (solid,) = w.vals()
    bb = solid.BoundingBox()
    g = load_params().params_of("sage-stones").gem
    assert bb.zmin == pytest.approx(0.0, abs=1e-6)
    assert bb.xlen == pytest.approx(g.diameter_mm, abs=0.01)


def test_overrides_are_named_as_for_set_and_change_the_part():
    base = models.part("stratstone/stone-red-03").val().BoundingBox().zmax
    taller = models.part("stratstone/stone-red-03", height_mm=9).val().BoundingBox().zmax
    dotted = models.part("stratstone/stone-red-03", **{"stratstone.stone.height_mm": 9}).val().BoundingBox().zmax
    assert taller == pytest.approx(dotted) and taller > base + 0.5
    other = models.part("terrain/board", seed=7)
    assert volume(other.val()) != pytest.approx(volume(models.part("terrain/board").val()))


def test_a_terrain_board_from_its_heightmap_levels():
    flat = models.part("terrain/board", heightmap=[[0] * 10 for _ in range(10)]).val()
    hills = models.part("terrain/board", heightmap=[[1] * 10 for _ in range(10)]).val()
    assert hills.BoundingBox().zmax > flat.BoundingBox().zmax


@pytest.mark.parametrize(("name", "overrides", "says"), [
    ("stratstone/nope", {}, "part 'stratstone/nope': stratstone has no such part; expected one of board,"),
    ("nope/board", {}, "part 'nope/board': game 'nope': unknown"),
    ("board", {}, "part 'board': expected GAME/PART"),
    ("stratstone/board", {"thickness_mm": -1}, "stratstone.board.thickness_mm = -1: expected a number"),
    ("stratstone/board", {"wobble": 1}, "parameter 'wobble': unknown for stratstone"),
    ("stratstone/board", {"stratstone.board.wobble": 1}, "unknown parameter"),
    ("terrain/board", {"heightmap": [[0] * 10] * 3}, "heightmap"),
])
def test_bad_names_and_values_are_one_line_value_errors(name, overrides, says):
    with pytest.raises(ValueError) as e:
        models.part(name, **overrides)
    assert isinstance(e.value, models.ModelError)
    assert says in str(e.value) and "\n" not in str(e.value)


GAME_NAMES = ", ".join(FACTS)  # every registered game
PRINTER = "expected a printer's name such as prusa-mini (stratstone-cad list names them), or None for the parts whole"


@pytest.mark.parametrize(("call", "message"), [
    (lambda: models.part("stratstone/board", printer=5), f"printer 5: {PRINTER}"),
    (lambda: models.names("stratstone", printer=5), f"printer 5: {PRINTER}"),
    (lambda: models.names(5), f"game 5: expected one game's name ({GAME_NAMES}), or None for every game"),
    (lambda: models.names(["stratstone"]),
     f"game ['stratstone']: expected one game's name ({GAME_NAMES}), or None for every game"),
    (lambda: models.names("chess"), f"game 'chess': unknown, expected one of {GAME_NAMES}"),  # was a ParameterError
    (lambda: models.assembly(None), f"game None: expected a game's name, one of {GAME_NAMES}"),
    (lambda: models.assembly("chess"), f"game 'chess': unknown, expected one of {GAME_NAMES}"),
], ids=["part printer=5", "names printer=5", "names(5)", "names([..])", "names(chess)", "assembly(None)",
        "assembly(chess)"])
def test_every_user_error_of_the_api_is_a_one_line_model_error(call, message):
    """``except ModelError`` catches whatever a caller gets wrong, never a TypeError from deep inside."""
    with pytest.raises(models.ModelError) as e:
        call()
    assert str(e.value) == message


def test_tiles_for_a_printer():
    tiles = [n for n in models.names("terrain", printer="prusa-mini") if "tile" in n]
    assert len(tiles) > 1
    solid = models.part(tiles[0], printer="prusa-mini").val()
    p = get_printer("prusa-mini")
    bb = solid.BoundingBox()
    assert bb.xlen <= p.usable_mm[0] + 1e-6 and bb.ylen <= p.usable_mm[1] + 1e-6


def test_the_stratstone_set_at_the_start_of_a_game():
    """The tan stones stacked in the four corners, each player's eight beside the board
    (yellow left, red right), in their print colours, every part named."""
    assy = models.assembly("stratstone")
    placed = {name: (loc, colour) for _shape, name, loc, colour in assy}
    assert set(placed) >= {"stratstone/board", "stratstone/stone-tan-01", "stratstone/stone-red-08"}
    board = models.part("stratstone/board").val().BoundingBox()
    corners = set()
    for i in range(1, 9):
        shape = assy.objects[f"stone-tan-{i:02d}"].obj
        x, y, _z = assy.objects[f"stone-tan-{i:02d}"].loc.toTuple()[0]
        c = shape.BoundingBox().center
        corners.add((round((x + c.x) / board.xlen), round((y + c.y) / board.ylen)))
    assert corners == {(0, 0), (0, 1), (1, 0), (1, 1)}  # the four corners
    for colour, side in (("yellow", -1), ("red", 1)):
        for i in range(1, 9):
            node = assy.objects[f"stone-{colour}-{i:02d}"]
            x = node.loc.toTuple()[0][0] + node.obj.BoundingBox().center.x
            assert (x < 0) if side < 0 else (x > board.xlen), (colour, i, x)
            assert node.color.toTuple()[:3] == pytest.approx(
                tuple(int(h, 16) / 255 for h in ({"yellow": "F2", "red": "C8"}[colour], {"yellow": "C1", "red": "10"}[colour],
                                                 {"yellow": "2E", "red": "2E"}[colour])), abs=1e-6)


def test_the_terrain_pieces_stand_on_their_start_squares_and_sage_gems_beside_the_board():
    terrain = models.assembly("terrain")
    board = models.part("terrain/board").val().BoundingBox()
    pieces = [n for n in terrain.objects if n != "terrain" and n != "board"]
    assert len(pieces) == 12
    for n in pieces:
        node = terrain.objects[n]
        c = node.obj.BoundingBox()
        x, y, z = node.loc.toTuple()[0]
        assert 0 < x + c.center.x < board.xlen and 0 < y + c.center.y < board.ylen, n
        assert z + c.zmin >= 2.0, n  # on a cell's top, not the bed
    sage = models.assembly("sage-stones")
    gems = [n for n in sage.objects if n.startswith("gem-")]
    assert len(gems) == 6 * load_params().params_of("sage-stones").gem.per_colour
    sb = models.part("sage-stones/board").val().BoundingBox()
    for n in gems:
        node = sage.objects[n]
        x, b = node.loc.toTuple()[0][0], node.obj.BoundingBox()
        assert x + b.xmin > sb.xmax or x + b.xmax < sb.xmin, n  # in a hand beside the board, left or right


def test_the_example_exports_the_set_with_plain_python(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "show_set.py"), "terrain", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "terrain-set.step").stat().st_size > 1000
    assert (tmp_path / "terrain-set.glb").read_bytes()[:4] == b"glTF"


@pytest.mark.parametrize(("args", "message"), [
    (["chess"], f"game 'chess': unknown, expected one of {', '.join(FACTS)}"),
    (["stratstone", "afile"], "output folder afile: is a file, expected a folder"),
])
def test_the_example_refuses_a_bad_game_or_folder_in_one_line(tmp_path, args, message):
    (tmp_path / "afile").write_text("kept")
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "show_set.py"), *args],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert (done.returncode, done.stderr, done.stdout) == (2, f"show_set.py: error: {message}\n", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"] and (tmp_path / "afile").read_text() == "kept"


def test_a_list_parameter_is_given_as_a_python_list():
    names = models.names("stratstone")  # the default colours' parts
    w = models.part("stratstone/stone-blue-01", colours=["green", "blue", "tan"])
    assert "stratstone/stone-blue-01" not in names and len(w.vals()) == 1
    with pytest.raises(models.ModelError, match=r"^stratstone.stone.colours = \['green', 'blue'\]: expected a list "
                                                "of 3 names"):
        models.part("stratstone/stone-blue-01", colours=("green", "blue"))


def test_every_example_of_the_modules_docstring_runs_and_every_part_it_names_exists():
    """The docstring named "stratstone/board-tile-1-of-4" for the Prusa Mini (the Stratstone
    board fits its bed whole): its examples run here, and each part name it quotes is one
    that names() gives for some printer (or none), so neither can rot."""
    import doctest
    import re

    test = doctest.DocTestParser().get_doctest(models.__doc__, {}, "models", "stratstone_cad/models.py", 0)
    assert len(test.examples) == 6
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert (result.failed, result.attempted) == (0, 6)
    quoted = set(re.findall(r'"([a-z-]+/[a-z0-9-]+)"', models.__doc__))
    known = set(models.names()) | set(models.names(printer="prusa-mini")) | {"terrain/board"}  # any map's board
    assert quoted and quoted <= known, sorted(quoted - known)


def _counts():
    """(game, dotted name, value) of every print count a set's parts are numbered by (the
    fields named ``per_*``), at each end of its range."""
    import dataclasses

    from stratstone_cad.registry import ASSETS

    return [(g.name, f"{prefix}.{f.name}", int(v)) for g in ASSETS.values() for prefix, cls in g.sections.items()
            for f in dataclasses.fields(cls) if f.name.startswith("per_") for v in (f.metadata["lo"], 2, f.metadata["hi"])]


@pytest.mark.parametrize(("game", "name", "value"), _counts())
def test_every_copy_in_a_set_has_its_own_name_at_any_print_count(game, name, value):
    """A game's start can place more copies of a part than the set prints (the terrain's
    two runners a side against terrain.piece.per_kind=1): the layout still names each copy
    once (an assembly refuses a name twice). The layout alone, on boxes: no CAD."""
    from stratstone_cad.assets.layout import set_layout
    from stratstone_cad.base.colours import load_colours
    from stratstone_cad.registry import get_game, get_parts

    (g,) = get_parts([game])
    try:
        params, jobs = models._plan(g, {name: value}, None, None)
    except models.ModelError:
        pytest.skip(f"{name}={value} is refused by the game's own checks")
    bounds = {o.file: ((0.0, 0.0, 0.0), (10.0, 10.0, 5.0)) for j in jobs for o in j.outputs}
    names = [p.name for p in set_layout(g, get_game(game), params, jobs, bounds, load_colours())]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_a_terrain_set_of_one_piece_a_kind_is_an_assembly_of_named_copies():
    """models.assembly("terrain", per_kind=1) (in range) is an assembly, not CadQuery's
    "Unique name is required": the start's two copies of a kind are numbered."""
    assy = models.assembly("terrain", per_kind=1)
    runners = sorted(n for n in assy.objects if n.startswith("runner-red"))
    assert runners == ["runner-red-01", "runner-red-02"]
    assert len([n for n in assy.objects if n not in ("terrain", "board")]) == 12
