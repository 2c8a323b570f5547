"""The cache is exact: a part's key holds everything its CAD function is given and the code
it runs, so a change rebuilds exactly the parts it changes."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from stratstone_cad.base.codeprint import _module_path, forget_code
from stratstone_cad.base.preset_files import PRESETS_DIR
from stratstone_cad.base.printers import get_printer, load_profiles
from stratstone_cad.errors import UserError
from stratstone_cad.pipeline import build as B
from stratstone_cad.pipeline import keys as K
from stratstone_cad.registry import ASSETS, SCHEMA, game_names, get_parts, load_params


def _plan(ps, printer=None):
    printer = printer or get_printer(None)
    profiles = load_profiles()
    return {j.id: j for g in get_parts(None) for j in g.plan(ps.params_of(g.name), printer, profiles, ps.mesh)}, profiles


def _keys(ps, printer=None):
    jobs, profiles = _plan(ps, printer)
    return {i: K.job_key(j, ps, profiles) for i, j in jobs.items()}


@pytest.mark.parametrize("game", game_names())
def test_a_change_to_one_games_cad_code_rebuilds_that_games_parts_only(game, built_all, tmp_path, monkeypatch):
    out = tmp_path / "o"
    shutil.copytree(built_all, out)
    target = _module_path(get_parts([game])[0].cad.module)
    assert target is not None and target.is_file(), game
    real = Path.read_bytes
    real_text = Path.read_text
    monkeypatch.setattr(Path, "read_bytes", lambda p: real(p) + (b"\n# changed\n" if p == target else b""))
    monkeypatch.setattr(Path, "read_text", lambda p, *a, **k: real_text(p, *a, **k) + ("\n# changed\n" if p == target else ""))
    forget_code()
    try:  # two stones a colour (of the eight built): every part of the game is made again all the same
        r = B.build(None, None, out, jobs=1, progress=None, sets={"stratstone.stone.per_colour": "2"})
    finally:
        forget_code()
    assert r.built and {f.split("/")[0] for f in r.built} == {game}
    assert len(r.built) == len([a for a in B.assets_for(out) if a["game"] == game])


def test_the_writers_and_shared_code_are_in_every_key():
    for job in _plan(load_params())[0].values():
        files = {p.relative_to(K.PACKAGE_DIR).as_posix() for p in K.code_closure(list(K.job_roots(job)))}
        assert {"printing/stl.py", "printing/checks.py", "base/params.py", "base/fileio.py"} <= files, job.id
        folder = job.id.split('/')[0].replace('-', '_')
        assert f"games/{folder}/parts.py" in files, job.id  # its own parameter classes
        others = {f"games/{g.name.replace('-', '_')}/cad.py" for g in ASSETS.values()} - {f"games/{folder}/cad.py"}
        assert not files & others, (job.id, files & others)


def test_the_writer_modules_are_what_run_job_imports():
    """WRITER_MODULES (in every key) names exactly the package modules run_job imports."""
    import inspect
    import re

    source = inspect.getsource(B.run_job)
    imported = set(re.findall(r"from (stratstone_cad\.[\w.]+) import", source))
    assert imported == set(K.WRITER_MODULES)


def test_every_key_changes_with_the_mesh_tolerance_and_a_profile_changes_its_parts_keys(tmp_path):
    base = _keys(load_params())
    finer = _keys(load_params(sets={"mesh.tolerance_mm": "0.04"}))
    assert all(finer[i] != base[i] for i in base)
    # the angle: the CadQuery parts (meshed by the build) and the makers given it change;
    # boards, flat-sided and meshed exactly from 2D regions, do not
    angle = _keys(load_params(sets={"mesh.angular_tolerance_deg": "3"}))
    jobs, _ = _plan(load_params())
    for i, job in jobs.items():
        uses = not K._kernel_free(job) or "angular_tolerance_deg" in job.args
        assert (angle[i] != base[i]) == uses, i
    assert sum(angle[i] == base[i] for i in base) == 4  # the three boards and the die (a hull of spheres, less cylinders)
    models = tmp_path / "models"
    shutil.copytree(PRESETS_DIR, models)
    prof = models / "profiles.toml"
    prof.write_text(prof.read_text().replace("layer_height_mm = 0.15", "layer_height_mm = 0.1"))
    ps = load_params(presets_dir=models)
    jobs, _ = _plan(ps)
    profiles = load_profiles(models)
    thinner = {i: K.job_key(j, ps, profiles) for i, j in jobs.items()}
    for i, j in jobs.items():
        piece = j.outputs[0].profile == "piece"
        assert (thinner[i] != base[i]) == piece, i


def _perturbations() -> list[tuple[str, object]]:
    """(parameter, new value as --set text) for every parameter of every game."""
    out = []
    defaults = load_params()
    for prefix, cls in SCHEMA.items():
        if prefix == "mesh":
            continue
        values = defaults.section(prefix)
        for f in dataclasses.fields(cls):
            v, m = values[f.name], f.metadata
            if isinstance(v, bool):
                new = str(not v)
            elif isinstance(v, int):
                new = str(v + 1 if m["hi"] is None or v + 1 <= m["hi"] else v - 1)
            elif isinstance(v, float):
                new = repr(round(min(m["hi"] or 1e9, v * 1.07 + 0.1), 3))
            elif isinstance(v, list):
                new = ",".join(v[1:] + v[:1]) if m.get("choices") else ",".join([v[0] + "x", *v[1:]])
            else:
                continue  # the heightmap file: covered by the terrain tests
            out.append((f"{prefix}.{f.name}", new))
    return out


PERTURBATIONS = _perturbations()


@pytest.mark.parametrize(("name", "value"), PERTURBATIONS, ids=[n for n, _ in PERTURBATIONS])
def test_every_parameter_that_changes_what_a_part_is_given_changes_its_key(name, value):
    """For every parameter of every game: each part whose CAD function is given something
    else gets another key (a key that left out part of what its function reads would
    serve a stale file), and a part given the same gets the same key."""
    try:
        ps = load_params(sets={name: value})
    except UserError:
        pytest.skip(f"{name}={value} is refused with these defaults")
    before, _ = _plan(load_params())
    before_keys = _keys(load_params())
    jobs, profiles = _plan(ps)
    for i, job in jobs.items():
        if i not in before:  # a new part (another colour's name, another map's board): nothing cached to reuse
            assert K.job_key(job, ps, profiles) not in before_keys.values(), (name, i)
            continue
        key = K.job_key(job, ps, profiles)
        same_args = json.dumps(job.args, sort_keys=True, default=K.plain) == json.dumps(
            before[i].args, sort_keys=True, default=K.plain)
        assert (key == before_keys[i]) == (same_args and _made(job) == _made(before[i])), (name, i)


def _made(job):
    """What a job's outputs say about the files themselves (not how many to print, nor
    where a heightmap was read)."""
    return [dataclasses.replace(o, count=1, printer=None, info=None) for o in job.outputs]


def test_a_descriptive_change_keeps_the_files_and_refreshes_the_manifest(built_all, tmp_path):
    """How many copies to print, or the same map read from another file, changes no file:
    nothing is rebuilt, and the manifest says the new facts."""
    from stratstone_cad.games.terrain.terrain_map import generate

    out = tmp_path / "o"
    shutil.copytree(built_all, out)
    r = B.build(["terrain"], None, out, jobs=1, progress=None, sets={"terrain.piece.per_kind": "3"})
    assert r.built == [] and len(r.cached) == 10
    m = {a["file"]: a for a in json.loads((out / "manifest.json").read_text())["assets"]}
    assert m["terrain/runner-red.stl"]["count"] == 3
    maps = []
    for name in ("a.json", "b.json"):
        maps.append(tmp_path / name)
        maps[-1].write_text(json.dumps(generate(1)))
    first = B.build(["terrain"], None, out, jobs=1, progress=None, sets={"terrain.board.heightmap": str(maps[0])})
    assert len(first.built) == 4  # a new board's files: board-map-..., from the seed-1 map's levels
    again = B.build(["terrain"], None, out, jobs=1, progress=None, sets={"terrain.board.heightmap": str(maps[1])})
    assert again.built == [] and sorted(again.cached) == sorted(first.built + first.cached)
    m = {a["file"]: a for a in json.loads((out / "manifest.json").read_text())["assets"]}
    assert all(m[f]["heightmap"]["heightmap_file"] == str(maps[1]) for f in first.built)
    # the same levels make the same triangles as the seed's board (past the STL's 80-byte
    # header, which holds the part's name)
    for f in first.built:
        seed_file = f.replace(f.split("/")[1].split("-tile-")[0], "board-seed-1")
        assert (out / f).read_bytes()[80:] == (built_all / seed_file).read_bytes()[80:]


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(change=st.sampled_from(PERTURBATIONS), pick=st.integers(0, 10_000))
def test_a_part_whose_key_did_not_change_did_not_change(change, pick, built_all, tmp_path_factory):
    """Change one parameter: every part whose key stayed the same is rebuilt and must come out
    byte for byte as before (a CAD function reading a parameter it is not given would fail
    this); a sample of the others is allowed to differ."""
    name, value = change
    try:
        ps = load_params(sets={name: value})
    except UserError:
        assume(False)
    before = _keys(load_params())
    jobs, profiles = _plan(ps)
    after = {i: K.job_key(j, ps, profiles) for i, j in jobs.items()}
    same = sorted(i for i in after if before.get(i) == after[i])
    assume(same)
    job = jobs[same[pick % len(same)]]
    out = tmp_path_factory.mktemp("same")
    for o in job.outputs:
        (out / o.file).parent.mkdir(parents=True, exist_ok=True)
    B.run_job(job, ps.mesh, profiles, str(out), after[job.id])
    for o in job.outputs:
        assert (out / o.file).read_bytes() == (built_all / o.file).read_bytes(), (name, value, o.file)


def test_the_manifest_says_how_many_to_print_and_where_the_map_came_from(built_all):
    m = {a["file"]: a for a in json.loads((built_all / "manifest.json").read_text())["assets"]}
    assert {m[f"sage-stones/gem-{c}.stl"]["count"] for c in ("yellow", "red", "blue", "green", "white", "black")} == {10}
    assert {m[f"terrain/{k}-{c}.stl"]["count"] for k in ("runner", "lancer", "guardian") for c in ("red", "blue")} == {2}
    assert {a["count"] for f, a in m.items() if f.startswith("stratstone/")} == {1}
    tiles = [a for f, a in m.items() if f.startswith("terrain/board-seed-1-tile-")]
    assert len(tiles) == 4 and all(a["heightmap"] == {"terrain_seed": 1} for a in tiles)
    assert len(m) == 25 + 8 + 10


def test_a_module_name_is_found_in_this_package_only():
    assert _module_path("stratstone_cad.log.record") == K.PACKAGE_DIR / "log" / "record" / "__init__.py"
    assert _module_path("stratstone_cad.log.logfile") == K.PACKAGE_DIR / "log" / "logfile" / "__init__.py"
    assert _module_path("stratstone_cad.games") == K.PACKAGE_DIR / "games" / "__init__.py"
    assert _module_path("stratstone_cad") == K.PACKAGE_DIR / "__init__.py"
    for other in ("os", "json.decoder", "stratstone_cad_other.x", "stratstone_cad.nope", "stratstone_cad.games.nope"):
        assert _module_path(other) is None, other


def test_the_classes_in_a_jobs_arguments_bring_their_modules_into_its_code():
    from stratstone_cad.assets.jobs import Job
    from stratstone_cad.geometry.tiling import Joint, TilePlan

    plan = TilePlan((100.0, 50.0), [50.0], [], [Joint("x", 50.0, 25.0)])
    assert K._arg_modules(plan) == {"stratstone_cad.geometry.tiling"}
    assert K._arg_modules({"a": 1, "b": [2, {"c": plan}], "m": load_params().mesh}) == {
        "stratstone_cad.geometry.tiling", "stratstone_cad.base.params"}
    assert K._arg_modules({"cls": TilePlan, "n": 3, "t": "x"}) == set()  # a class given is not an instance

    @dataclasses.dataclass
    class Holder:  # a dataclass of another module holding a plan: both modules' code is run
        plan: TilePlan

    assert K._arg_modules(Holder(plan)) == {__name__, "stratstone_cad.geometry.tiling"}
    assert K._arg_modules({}) == set() and K._arg_modules([]) == set() and K._arg_modules(()) == set()
    job = Job("board", "stratstone_cad.games.terrain.cad:make_board", {"plan": plan}, (), "a board")
    assert K.job_roots(job) == tuple(sorted({"stratstone_cad.games.terrain.cad", "stratstone_cad.geometry.tiling",
                                             *K.WRITER_MODULES}))


def test_a_key_holds_each_outputs_file_facts_but_not_its_descriptive_ones():
    from dataclasses import replace

    from stratstone_cad.assets.jobs import Job, Output

    ps = load_params()
    profiles = load_profiles()
    out = Output("stratstone/x.stl", "stratstone", "x", "piece", colour="red")
    job = Job("x", "stratstone_cad.games.terrain.cad:make_board", {"n": 1}, (out,), "x")
    key = K.job_key(job, ps, profiles)
    for changed in (replace(out, file="stratstone/y.stl"), replace(out, colour="tan"), replace(out, profile="board")):
        assert K.job_key(replace(job, outputs=(changed,)), ps, profiles) != key, changed
    for same in (replace(out, count=3), replace(out, printer="mk4"), replace(out, plate="p"), replace(out, info={"a": 1})):
        assert K.job_key(replace(job, outputs=(same,)), ps, profiles) == key, same


def test_a_dataclass_is_keyed_with_its_class_and_anything_else_refused():
    from stratstone_cad.geometry.tiling import Joint

    assert K.plain(Joint("x", 1.0, 2.0)) == {"class": "stratstone_cad.geometry.tiling.Joint", "axis": "x", "at": 1.0,
                                              "along": 2.0}
    with pytest.raises(TypeError, match="^cannot key object$"):
        K.plain(object())
    with pytest.raises(TypeError, match="^cannot key type$"):
        K.plain(Joint)
