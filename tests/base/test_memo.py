"""The persistent memo of checks and tile plans (stratstone_cad.base.memo): it recalls only what
the same computation gave for the same arguments and code, keeps no failure, never stops
a build over its own files, and spares an unchanged rebuild shapely and the font."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from stratstone_cad.base import memo as M
from stratstone_cad.base.overrides import parse_set
from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.errors import ParameterError
from stratstone_cad.geometry.tiling import Joint, TilePlan
from stratstone_cad.pipeline.keys import job_key
from stratstone_cad.registry import ASSETS, load_params

ROOTS = ("stratstone_cad.geometry.tiling",)


@pytest.fixture
def on(tmp_path, monkeypatch) -> Path:
    """The memo on, in a folder of this test's own; returns the memo's folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(M.ENV, raising=False)
    return tmp_path / "cache" / "stratstone-cad" / "checks"


class Counter:
    def __init__(self, value=None, error: Exception | None = None):
        self.calls, self.value, self.error = 0, value, error

    def __call__(self):
        self.calls += 1
        if self.error is not None:
            raise self.error
        return self.value


def test_a_result_is_computed_once_then_recalled_from_its_file(on):
    first = Counter({"a": [1, 2.5]})
    assert M.remembered("x", ROOTS, {"n": 1}, first) == {"a": [1, 2.5]} and first.calls == 1
    (entry,) = on.iterdir()
    assert entry.name == M.memo_key("x", ROOTS, {"n": 1}) + ".json"
    assert json.loads(entry.read_text())["value"] == {"a": [1, 2.5]}
    again = Counter("other")
    assert M.remembered("x", ROOTS, {"n": 1}, again) == {"a": [1, 2.5]} and again.calls == 0


@pytest.mark.parametrize("other", [("y", ROOTS, {"n": 1}), ("x", ("stratstone_cad.errors",), {"n": 1}),
                                   ("x", ROOTS, {"n": 2}), ("x", ROOTS, {"n": 1.0000001})])
def test_another_name_code_or_argument_is_another_entry(on, other):
    M.remembered("x", ROOTS, {"n": 1}, Counter(1))
    fresh = Counter(2)
    assert M.remembered(*other, fresh) == 2 and fresh.calls == 1
    assert len(list(on.iterdir())) == 2


def test_the_code_of_the_roots_is_in_the_key(monkeypatch):
    from stratstone_cad.base import codeprint

    before = M.memo_key("x", ROOTS, 1)
    monkeypatch.setattr(codeprint, "code_fingerprint", lambda roots: "changed")
    assert M.memo_key("x", ROOTS, 1) != before


def test_a_failure_is_not_kept(on):
    failing = Counter(error=ParameterError("p.q = 1: expected 2"))
    for _ in range(2):
        with pytest.raises(ParameterError, match="expected 2"):
            M.remembered("x", ROOTS, 1, failing)
    assert failing.calls == 2 and not any(on.glob("*.json"))


@pytest.mark.parametrize("off", ["Off", "0", "no", " FALSE "])
def test_off_computes_every_time_and_writes_nothing(on, monkeypatch, off):
    monkeypatch.setenv(M.ENV, off)
    count = Counter(3)
    assert [M.remembered("x", ROOTS, 1, count) for _ in range(2)] == [3, 3] and count.calls == 2
    assert not on.exists()


def test_the_cache_root_follows_xdg_and_ignores_a_relative_one(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert M.cache_root() == tmp_path / "stratstone-cad"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert M.cache_root() == tmp_path / "home" / ".cache" / "stratstone-cad"


PLAN = TilePlan((1.0, 2.0), [0.5], [], [Joint("x", 0.5, 1.0)], False)
PLANTED = TilePlan((9.0, 9.0), [], [], [], True)  # what a planted entry says: valid, and not the plan


def _encode(plan: TilePlan):
    from stratstone_cad.base.codeprint import plain

    return json.loads(json.dumps(plan, default=plain))


def _plant(on: Path, key: str, how: str) -> None:
    on.mkdir(parents=True, exist_ok=True)
    path = on / f"{key}.json"
    planted = {"key": key, "value": _encode(PLANTED)}
    if how == "not json":
        path.write_bytes(b"\x00" + json.dumps(planted).encode())
    elif how == "another key":
        path.write_text(json.dumps({**planted, "key": "0" * 64}))
    elif how == "no value":
        path.write_text(json.dumps({"key": key}))
    elif how == "a list":
        path.write_text(json.dumps([planted]))
    elif how == "too large":
        path.write_text(json.dumps(planted) + " " * M.MAX_ENTRY_BYTES)
    elif how == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "folder":
        path.mkdir()
    elif how == "symlink":
        target = on / "elsewhere.json"
        target.write_text(json.dumps(planted))
        path.symlink_to(target)
    elif how == "does not decode":
        path.write_text(json.dumps({"key": key, "value": {"class": "something else"}}))
    elif how == "a string":
        path.write_text(json.dumps({"key": key, "value": "planted"}))


@pytest.mark.parametrize("how", ["not json", "another key", "no value", "a list", "too large", "deep", "fifo",
                                 "folder", "symlink", "does not decode", "a string"])
def test_an_entry_that_is_not_what_its_name_says_is_a_miss(on, how):
    """Nothing planted in the memo is believed or blocks: a FIFO is not waited on, a link
    not followed, a huge or deep file not parsed; the result is computed again."""
    key = M.memo_key("x", ROOTS, 1)
    _plant(on, key, how)
    count = Counter(PLAN)
    assert M.remembered("x", ROOTS, 1, count, decode=TilePlan.from_plain) == PLAN
    assert count.calls == 1


def test_an_entry_is_recalled_as_the_plan_it_holds(on):
    """The other side of the test above: the planted entry, planted right, is believed."""
    (on).mkdir(parents=True)
    key = M.memo_key("x", ROOTS, 1)
    (on / f"{key}.json").write_text(json.dumps({"key": key, "value": _encode(PLANTED)}))
    assert M.remembered("x", ROOTS, 1, Counter(PLAN), decode=TilePlan.from_plain) == PLANTED


def test_a_dataclass_result_is_stored_as_plain_json_and_recalled_without_computing(on):
    """A tile plan (a dataclass, which JSON cannot write by itself) is stored the way
    arguments are keyed, and the next call decodes it instead of computing it again."""
    first = Counter(PLAN)
    assert M.remembered("x", ROOTS, 1, first, decode=TilePlan.from_plain) == PLAN and first.calls == 1
    again = Counter(PLANTED)
    assert M.remembered("x", ROOTS, 1, again, decode=TilePlan.from_plain) == PLAN and again.calls == 0


def test_a_folder_that_cannot_be_written_costs_only_time(on, monkeypatch):
    on.parent.mkdir(parents=True)
    on.write_text("a file where the memo's folder goes")
    count = Counter(7)
    assert [M.remembered("x", ROOTS, 1, count) for _ in range(2)] == [7, 7] and count.calls == 2
    assert on.read_text() == "a file where the memo's folder goes"


def test_a_write_cut_short_leaves_no_temporary_file(on, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(M.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        M.remembered("x", ROOTS, 1, Counter(1))
    assert list(on.iterdir()) == []


def test_a_tile_plan_comes_back_equal_from_its_json():
    plan = TilePlan((370.2, 410.00000000000006), [123.4], [0.1 + 0.2], [Joint("y", 0.30000000000000004, 17.0)], True)
    assert TilePlan.from_plain(_encode(plan)) == plan
    with pytest.raises(ValueError, match=r"^not a tile plan: 'stratstone_cad.geometry.tiling.Joint'$"):
        TilePlan.from_plain({"class": "stratstone_cad.geometry.tiling.Joint", "axis": "x", "at": 1, "along": 2})


def _plans(printer=None):
    ps = load_params()
    profiles = load_profiles()
    return [j for g in ASSETS.values() for j in g.plan(ps.params_of(g.name), get_printer(printer), profiles, ps.mesh)], ps


def test_the_plans_and_keys_are_the_same_computed_or_recalled(on, monkeypatch):
    """Every job of every game, for two printers (the smaller bed cuts the boards into
    more tiles), with the tile plans and the kernel-free answers recalled from the memo,
    is the job computed without it, with the same cache key."""
    printers = [None, "prusa-mini"]
    monkeypatch.setenv(M.ENV, "off")
    computed = {p: _plans(p) for p in printers}
    keys = {p: [job_key(j, ps, load_profiles()) for j in jobs] for p, (jobs, ps) in computed.items()}
    assert computed[None][0] != computed["prusa-mini"][0]
    monkeypatch.delenv(M.ENV)
    for p in printers:
        _plans(p)  # computes and remembers
    assert any(on.iterdir())
    for p in printers:
        recalled, ps = _plans(p)
        assert recalled == computed[p][0]
        assert [job_key(j, ps, load_profiles()) for j in recalled] == keys[p]
        tiled = [j for j in recalled if j.args.get("plan") is not None and j.args["plan"].count > 1]
        assert tiled and all(isinstance(j.args["plan"], TilePlan) for j in tiled)


def test_a_parameter_a_check_refuses_is_refused_after_a_success_was_remembered(on):
    load_params()
    with pytest.raises(ParameterError, match=r"^stratstone.board.label_height_mm = 29: expected at most"):
        load_params(sets=parse_set(["stratstone.board.label_height_mm=29"]))
    with pytest.raises(ParameterError, match=r"^terrain.piece.symbol_size_mm = 40: expected"):
        load_params(sets=parse_set(["terrain.piece.symbol_size_mm=40"]))


def test_a_changed_board_gets_its_own_tile_plan(on):
    """The tile plan is keyed on every field of the board: a wider pitch is planned afresh."""
    ps = load_params()
    sage = ASSETS["sage-stones"]
    before = sage.plan(ps.params_of("sage-stones"), get_printer(None), load_profiles(), ps.mesh)[0].args["plan"]
    wider = load_params(sets=parse_set(["sage-stones.board.cell_pitch_mm=30"]))
    after = sage.plan(wider.params_of("sage-stones"), get_printer(None), load_profiles(), wider.mesh)[0].args["plan"]
    assert after.size != before.size and after.size[0] == pytest.approx(dataclasses.replace(
        wider.params_of("sage-stones").board).grid().size_mm[0])


def test_board_job_takes_its_keep_out_as_a_partial():
    ps = load_params()
    b = ps.params_of("stratstone").board
    with pytest.raises(TypeError, match="functools.partial"):
        from stratstone_cad.assets.jobs import board_job

        board_job(game="stratstone", stem="board", maker="m:f", args={}, board=b, printer=get_printer(None),
                  keep_out=lambda: [], what="board", facts="", cut_fix="")  # type: ignore[arg-type]


def test_an_unchanged_rebuild_loads_neither_shapely_nor_numpy_nor_the_font(on, built_all, tmp_path):
    """What the memo is for: the second rebuild of an unchanged folder recalls every check
    and plan, so it imports no 2D geometry, no rules engine (the terrain map of a seed) and
    no worker pool (a fresh process, as the command line runs)."""
    out = tmp_path / "out"
    shutil.copytree(built_all, out)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop(M.ENV, None)
    code = ("import sys; from pathlib import Path; from stratstone_cad.pipeline.build import build; "
            f"r = build(None, None, Path({str(out)!r}), jobs=1, progress=None); "
            "print(len(r.built), len(r.cached), sorted(m for m in ('shapely', 'numpy', 'HersheyFonts', 'cadquery', "
            "'stratstone_cad.games.stratstone.rules', 'stratstone_cad.games.sage_stones.rules', "
            "'stratstone_cad.games.terrain.rules', 'stratstone_cad.games.terrain.terrain_map', "
            "'concurrent.futures', 'multiprocessing') if m in sys.modules))")
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs[0].startswith("0 43 [") and runs[0] != "0 43 []\n"  # computed, and remembered
    assert runs[1] == "0 43 []\n", runs


def test_a_remembered_terrain_map_is_its_seeds_map_and_a_bad_entry_is_not(on):
    from stratstone_cad.games.terrain import parts as TA
    from stratstone_cad.games.terrain.terrain_map import check_heightmap, generate

    board = load_params().params_of("terrain").board
    levels = check_heightmap(generate(board.seed))
    assert TA.load_map(board) == (levels, f"seed-{board.seed}", {"terrain_seed": board.seed})
    # keyed by the code of the engine's generator and of the module that calls it (_seed_map)
    key = M.memo_key("terrain map", ("stratstone_cad.games.terrain.terrain_map", "stratstone_cad.games.terrain.parts"), board.seed)
    assert json.loads((on / f"{key}.json").read_text())["value"] == [list(row) for row in levels]
    assert TA.load_map(board)[0] == levels
    flat = [[0] * 10 for _ in range(10)]
    for bad in (flat[:9], [*flat[:9], [0] * 9], [*flat[:9], [0.0] * 10], [*flat[:9], [True] * 10], "0" * 100, flat):
        (on / f"{key}.json").write_text(json.dumps({"key": key, "value": bad}))
        got = TA.load_map(board)[0]
        assert got == (tuple(map(tuple, flat)) if bad is flat else levels), bad


def test_the_kernel_free_answer_is_keyed_by_the_maker_and_the_code_that_reads_it(on):
    from stratstone_cad.pipeline.keys import _kernel_free

    ps = load_params()
    board, stone = ASSETS["stratstone"].plan(ps.params_of("stratstone"), get_printer(None), load_profiles(), ps.mesh)[:2]
    assert (_kernel_free(board), _kernel_free(stone)) == (True, False)
    for job in (board, stone):
        module = job.maker.split(":")[0]
        assert (on / f"{M.memo_key('kernel free', (module, 'stratstone_cad.pipeline.keys'), job.maker)}.json").is_file()
    assert (_kernel_free(board), _kernel_free(stone)) == (True, False)


def test_the_module_of_the_computation_is_in_its_key(on, monkeypatch):
    """The code that computes a result is keyed even when the caller names other roots: a
    change to the function itself (here printers.load_profiles) is a new entry."""
    from stratstone_cad.base import codeprint
    from stratstone_cad.base.printers import load_profiles

    seen = []
    real = codeprint.code_fingerprint
    monkeypatch.setattr(codeprint, "code_fingerprint", lambda roots: seen.append(roots) or real(roots))
    M.remembered("x", ROOTS, 1, load_profiles)
    assert seen == [("stratstone_cad.base.printers", "stratstone_cad.geometry.tiling")]


@pytest.mark.parametrize("home", ["", "relative/home", "/"])
def test_without_a_home_folder_nothing_is_cached_anywhere(tmp_path, monkeypatch, home):
    """No cache folder without a home: not ``./~/.cache`` in the folder the command runs
    in, not ``/.cache``; the memo and the viewer's meshes then go without one."""
    from stratstone_cad.viewer import meshes as VA

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv(M.ENV, raising=False)
    monkeypatch.setenv("HOME", home)
    monkeypatch.chdir(tmp_path)
    assert M.cache_root() is None and M.memo_dir() is None and VA._cache_dir() is None
    count = Counter(5)
    assert [M.remembered("x", ROOTS, 1, count) for _ in range(2)] == [5, 5] and count.calls == 2
    assert list(tmp_path.iterdir()) == []


def test_reading_a_folder_where_an_entry_goes_leaks_no_file_descriptor(on):
    key = M.memo_key("x", ROOTS, 1)
    _plant(on, key, "folder")
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        assert M._read(on / f"{key}.json", key) is None
    assert len(os.listdir("/proc/self/fd")) == before


def test_arguments_or_a_result_the_memo_cannot_store_are_computed_every_time(on):
    count = Counter(1)
    assert [M.remembered("x", ROOTS, object(), count) for _ in range(2)] == [1, 1] and count.calls == 2
    odd = Counter({1, 2})  # a set is not JSON data
    assert [M.remembered("y", ROOTS, 1, odd) for _ in range(2)] == [{1, 2}, {1, 2}] and odd.calls == 2
    assert not on.exists() or not any(on.iterdir())


def test_the_memo_keeps_its_newest_entries_and_no_stale_temporary_file(on, monkeypatch):
    monkeypatch.setattr(M, "MAX_ENTRIES", 5)
    monkeypatch.setattr(M, "PRUNED_TO", 3)
    on.mkdir(parents=True)
    own = ["notes.txt", "notes.json", ".hidden", "x" * 64 + ".json.bak"]  # the user's, or not named as the memo names
    for name in own:
        (on / name).write_text("the user's own")
        os.utime(on / name, (1, 1))
    dead_tmp, held_tmp = on / f".{'a' * 64}.json.k3j5h6g7.tmp", on / f".{'d' * 64}.json.a1b2c3d4.tmp"
    names = []
    with contextlib.ExitStack() as writing:
        for n in range(6):
            if n == 5:  # a killed writer's leftover, and one another writer holds now, found by the prune
                for f in (dead_tmp, held_tmp):
                    f.write_text("{")
                held = writing.enter_context(open(held_tmp))
                fcntl.flock(held.fileno(), fcntl.LOCK_EX)
            M.remembered("x", ROOTS, n, Counter(n))
            names.append(f"{M.memo_key('x', ROOTS, n)}.json")
            os.utime(on / names[-1], (1000 + n, 1000 + n))  # written in this order
    left = sorted(p.name for p in on.iterdir())
    assert left == sorted([*names[3:], *own, held_tmp.name]), left


def test_an_entry_is_written_through_a_temporary_file_named_for_the_sweep(on, monkeypatch):
    """The temporary file sits in the memo's folder, named ``.KEY.json.XXXXXXXX.tmp``:
    what the prune removes when a killed writer leaves one. The folder is the owner's only."""
    seen = []
    real = os.replace
    monkeypatch.setattr(M.os, "replace", lambda a, b: seen.append((a, b)) or real(a, b))
    M.remembered("x", ROOTS, 1, Counter(1))
    (src, dst), = seen
    key = M.memo_key("x", ROOTS, 1)
    assert Path(dst) == on / f"{key}.json" and Path(src).parent == on
    assert re.fullmatch(rf"\.{key}\.json\.[a-z0-9_]{{8}}\.tmp", Path(src).name), src
    assert stat.S_IMODE(on.stat().st_mode) == 0o700


def test_an_entry_of_exactly_the_size_limit_is_read(on):
    key = M.memo_key("x", ROOTS, 1)
    on.mkdir(parents=True)
    text = json.dumps({"key": key, "value": 7})
    (on / f"{key}.json").write_text(" " * (M.MAX_ENTRY_BYTES - len(text)) + text)  # read to its last byte
    assert (on / f"{key}.json").stat().st_size == M.MAX_ENTRY_BYTES
    assert M.remembered("x", ROOTS, 1, Counter(8)) == 7


def test_a_computation_without_a_module_name_is_remembered_too(on):
    """A ``functools.partial``'s module is its class's (functools, not this package): it is
    keyed by the roots given."""
    import functools

    count = Counter(4)
    assert [M.remembered("x", ROOTS, 1, functools.partial(count)) for _ in range(2)] == [4, 4]
    assert count.calls == 1


def test_a_passed_check_is_kept_under_its_sections_fields_and_code(on):
    """Each parameter section's checks, once passed, are one entry: named "check", keyed by
    the section (every field) and the code of its class's module, holding true."""
    ps = load_params()
    board = ps.params_of("stratstone").board
    key = M.memo_key("check", ("stratstone_cad.games.stratstone.parts", "stratstone_cad.base.params"), board)
    assert json.loads((on / f"{key}.json").read_text())["value"] is True
    assert (on / f"{M.memo_key('check', ('stratstone_cad.base.params',), ps.mesh)}.json").is_file()
