"""The studio's API through the ASGI test client (no socket): the forms from the
declarations, refused values as the CLI's one line, downloads byte for byte the CLI
build's files, 404 for names no plan makes, the guard against other sites, a part made
once however many ask, the previews capped, a client's newer change superseding its
queued one, and params.toml reproducing the settings."""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures as cf
import dataclasses
import hashlib
import io
import re
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import httpx
import pytest

with warnings.catch_warnings():  # Starlette 1 would rather have httpx2, which is not on PyPI's stable line yet
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from stratstone_cad.errors import ParameterError
from stratstone_cad.pipeline.build import run_job
from stratstone_cad.registry import FACTS, SCHEMA, game_names, load_params
from stratstone_cad.studio.app import Studio, app
from stratstone_cad.studio.part_making import PartMaker
from stratstone_cad.studio.set_builds import SetBuilds, params_toml
from stratstone_cad.studio.settings import plan

GEM = "sage-stones/gem-red.stl"
SETS = ["sage-stones.gem.height_mm=7"]


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    out = tmp_path_factory.mktemp("studio")
    pool = cf.ThreadPoolExecutor(1)  # the build's run_job, here in a thread: the server runs it in the build's workers
    yield Studio(out, PartMaker(out, pool, run_job), SetBuilds(out, 1))
    pool.shutdown(cancel_futures=True)


@pytest.fixture(scope="module")
def client(studio: Studio) -> TestClient:
    return TestClient(app(studio))


@pytest.fixture(scope="module")
def cli_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CLI's build of Sage Stones with the tests' setting (4 s)."""
    out = tmp_path_factory.mktemp("cli")
    subprocess.run([sys.executable, "-m", "stratstone_cad", "build", "sage-stones", "--out", str(out), "--quiet",
                    *[x for s in SETS for x in ("--set", s)]], check=True)
    return out


def query(*sets: str) -> str:
    return "&".join(f"set={s}" for s in sets)


def test_the_form_lists_every_parameter_of_the_game_as_declared(client: TestClient) -> None:
    form = client.get("/api/form/sage-stones").json()
    fields = {f["name"]: f for s in form["sections"] for f in s["fields"]}
    declared = {f"{p}.{f.name}" for p, cls in SCHEMA.items() if p.split(".")[0] in ("sage-stones", "mesh", "plates", "fit")
                for f in dataclasses.fields(cls)}
    assert set(fields) == declared
    assert fields["sage-stones.gem.height_mm"] == {
        "name": "sage-stones.gem.height_mm", "kind": "float", "unit": "mm", "lo": 3, "hi": 20, "choices": None,
        "length": None, "help": "height of a printed gem, snapped to the piece profile's layers",
        "expected": "a number from 3 to 20", "value": 6.0, "map_seed": False}
    assert fields["sage-stones.gem.marks"]["choices"][:3] == ["ring", "cross", "bars"]
    assert fields["sage-stones.gem.mark"]["kind"] == "bool"
    assert [s["name"] for s in form["sections"]][-3:] == ["mesh", "plates", "fit"]
    assert fields["fit.joint_clearance_mm"]["value"] == fields["sage-stones.board.joint_clearance_mm"]["value"]


@pytest.mark.parametrize("game", game_names())
def test_only_the_seed_of_a_games_map_is_flagged_for_a_new_terrain(client: TestClient, game: str) -> None:
    """The page's "new terrain" button stands beside the field the form flags: the parameter
    the game's facts name as its map's seed, and no other (a stone's seed is no map's)."""
    form = client.get(f"/api/form/{game}").json()
    flagged = [f["name"] for s in form["sections"] for f in s["fields"] if f["map_seed"]]
    seed = getattr(FACTS[game], "MAP_PARAMETERS", {}).get("seed")
    assert flagged == ([seed] if seed else [])


def test_a_refused_value_is_400_with_the_clis_one_line(client: TestClient) -> None:
    with pytest.raises(ParameterError) as cli:
        load_params(None, {"sage-stones.gem.height_mm": "99"})
    r = client.get(f"/download/sage-stones/gem-red.stl?{query('sage-stones.gem.height_mm=99')}")
    assert (r.status_code, r.headers["content-type"].split(";")[0], r.text) == (400, "text/plain", str(cli.value))
    r = client.get(f"/api/part/sage-stones/gem-red.stl?{query('sage-stones.gem.height_mm')}")
    assert r.status_code == 400 and r.text.startswith("--set 'sage-stones.gem.height_mm': expected NAME=VALUE")
    r = client.get(f"/api/check/terrain?{query('terrain.board.heightmap=/etc/passwd')}")
    assert r.status_code == 400 and "reads no file" in r.text


def test_a_downloaded_stl_is_the_cli_builds_file_byte_for_byte(client: TestClient, cli_build: Path) -> None:
    r = client.get(f"/download/{GEM}?{query(*SETS)}")
    assert r.status_code == 200
    assert hashlib.sha256(r.content).hexdigest() == hashlib.sha256((cli_build / GEM).read_bytes()).hexdigest()
    preset = client.get(f"/download/{GEM}")
    assert preset.status_code == 200 and preset.content != r.content  # the setting reached the part


@pytest.mark.parametrize("name", ["board.3mfx", "..%2F..%2Fetc%2Fpasswd", "gem-purple.stl", "stone-red-01.stl",
                                  "gem-red.step.stl", "manifest.json", "notes.step"])
def test_a_file_no_plan_makes_is_404(client: TestClient, name: str) -> None:
    r = client.get(f"/download/sage-stones/{name}")
    assert r.status_code == 404, r.text


@pytest.mark.parametrize("headers, status", [
    ({"host": "evil.example:80"}, 403),  # DNS rebinding: another name for this address
    ({"origin": "http://evil.example"}, 403),
    ({"sec-fetch-site": "cross-site"}, 403),
    ({"sec-fetch-site": "same-origin", "origin": "http://testserver"}, 200),
])
def test_requests_of_another_sites_page_are_refused(client: TestClient, headers: dict[str, str], status: int) -> None:
    assert client.get("/api/games", headers=headers).status_code == status


@pytest.mark.parametrize("path, headers", [("/", {}), ("/api/games", {}), ("/download/sage-stones/notes.step", {}),
                                           ("/api/games", {"sec-fetch-site": "cross-site"}), ("/page/studio.js", {})])
def test_every_answer_forbids_other_sites_to_frame_it(client: TestClient, path: str, headers: dict[str, str]) -> None:
    r = client.get(path, headers=headers)
    assert r.headers["x-frame-options"] == "SAMEORIGIN"
    assert r.headers["content-security-policy"] == "frame-ancestors 'self'"


@pytest.mark.parametrize("site, held", [("cross-site", True), ("same-site", True), ("same-origin", False), (None, False)])
def test_the_page_opened_from_another_site_holds_its_builds(client: TestClient, site: str | None, held: bool) -> None:
    headers = {"sec-fetch-mode": "navigate"} | ({"sec-fetch-site": site} if site else {})
    r = client.get(f"/?game=sage-stones&part=gem-red.stl&set={SETS[0]}", headers=headers)
    assert r.status_code == 200 and ('<body data-held="another-site">' in r.text) is held


def test_a_state_changing_method_is_refused(client: TestClient) -> None:
    assert client.post("/api/games").status_code == 405
    assert client.delete(f"/download/{GEM}").status_code == 405


def run_async(coro: Any) -> Any:
    """``asyncio.run(coro)`` on a thread of its own: a worker that has driven a page keeps
    Playwright's event loop running on its main thread, where asyncio.run refuses to start."""
    with cf.ThreadPoolExecutor(1) as one:
        return one.submit(asyncio.run, coro).result()


def test_two_requests_for_one_part_make_it_once(studio: Studio) -> None:
    before = studio.maker.made_count

    async def both() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app(studio))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            url = f"/api/part/sage-stones/gem-blue.stl?{query('sage-stones.gem.height_mm=6.5')}"
            return await asyncio.gather(c.get(url + "&client=a"), c.get(url + "&client=b"))

    a, b = run_async(both())
    assert a.status_code == b.status_code == 200
    assert a.json()["sha256"] == b.json()["sha256"]
    assert studio.maker.made_count == before + 1


def test_previews_kept_in_memory_are_capped(tmp_path: Path) -> None:
    pool = cf.ThreadPoolExecutor(1)
    studio = Studio(tmp_path, PartMaker(tmp_path, pool, run_job, kept=2), SetBuilds(tmp_path, 1))
    c = TestClient(app(studio))
    urls = [c.get(f"/api/part/sage-stones/gem-{colour}.stl").json()["preview"] for colour in ("red", "blue", "green")]
    assert len(studio.maker.previews) == 2
    assert c.get(urls[0]).status_code == 404 and c.get(urls[0] + ".glb").status_code == 404
    page = c.get(urls[2])
    assert page.status_code == 200 and "StratstonePlayer.start()" in page.text
    glb = c.get(urls[2] + ".glb")  # what the page hands the player it shows already
    assert glb.headers["content-type"] == "model/gltf-binary" and glb.content[:4] == b"glTF"
    assert base64.b64encode(glb.content).decode() in page.text
    pool.shutdown()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice value is Linux's")
def test_whole_builds_run_below_the_previewed_parts_priority(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plate's build (and so its workers and PrusaSlicer) is started at BACKGROUND_NICE, from
    the job's own thread: the server's threads keep their priority."""
    from stratstone_cad.base.processes import thread_nice
    from stratstone_cad.studio import set_builds, set_jobs

    seen: list[int] = []
    monkeypatch.setattr(set_jobs, "run_build", lambda *args, **kw: seen.append(thread_nice()))
    here = thread_nice()
    c = TestClient(app(Studio(tmp_path, PartMaker(tmp_path, cf.ThreadPoolExecutor(1), run_job), SetBuilds(tmp_path, 1))))
    assert c.get("/api/plate/sage-stones/gem-red.stl").json() == {"plate": None}  # the stand-in built nothing
    assert seen == [max(here, set_builds.BACKGROUND_NICE)] and thread_nice() == here


def test_a_newer_change_supersedes_the_clients_queued_one(tmp_path: Path) -> None:
    """One worker, busy; client c asks for part A, then for part B: A is never made."""
    gate, made = threading.Event(), []

    def run(job, mesh, profiles, folder, key):  # the build's run_job's signature
        gate.wait(10)
        made.append(job.id)
        return run_job(job, mesh, profiles, folder, key)

    pool = cf.ThreadPoolExecutor(1)
    parts = PartMaker(tmp_path, pool, run)
    busy = plan("sage-stones", {}, None)
    jobs = {j.id: (j, k) for j, k in busy.jobs}

    async def go() -> None:
        asked, started = asyncio.Event(), []
        real_start = parts._start

        def start(*args: Any) -> cf.Future:  # each request's making started (or joined), in the order asked
            fut = real_start(*args)
            started.append(args[0].id)
            if len(started) == 3:
                asked.set()
            return fut

        parts._start = start  # type: ignore[method-assign]
        blocker = asyncio.ensure_future(parts.made(jobs["sage-stones/gem-red"][0], busy, jobs["sage-stones/gem-red"][1], "x"))
        first = asyncio.ensure_future(parts.made(jobs["sage-stones/gem-blue"][0], busy, jobs["sage-stones/gem-blue"][1], "c"))
        second = asyncio.ensure_future(parts.made(jobs["sage-stones/gem-green"][0], busy, jobs["sage-stones/gem-green"][1], "c"))
        await asyncio.wait_for(asked.wait(), 10)
        assert started == ["sage-stones/gem-red", "sage-stones/gem-blue", "sage-stones/gem-green"]
        gate.set()
        await asyncio.gather(blocker, second)
        with pytest.raises((cf.CancelledError, asyncio.CancelledError)):
            await first

    run_async(go())
    pool.shutdown()
    assert made == ["sage-stones/gem-red", "sage-stones/gem-green"]


def test_params_toml_gives_the_same_parts_to_build_params(tmp_path: Path) -> None:
    sets = {"sage-stones.gem.height_mm": "7.25", "sage-stones.gem.marks": "dot,ring,bars,cross,triangle,dots",
            "sage-stones.gem.mark": "false", "plates.seam": "aligned"}
    p = plan("sage-stones", sets, None)
    (tmp_path / "params.toml").write_text(params_toml(p), encoding="utf-8")
    again = plan("sage-stones", {}, None)
    from_file = load_params(tmp_path / "params.toml", None, games=["sage-stones"])
    assert from_file == p.params and from_file != again.params


# the parts of cli_build (cached), a plate setting, and the solid board: what the zip holds is the
# build's whatever the board, and the shell's B-rep and STEP take 3 x as long (51 s against 15 s)
CHANGED = [*SETS, "plates.seam=aligned", "sage-stones.board.shell=false"]


@pytest.fixture(scope="module")
def zipped(client: TestClient) -> dict[str, bytes]:
    """The set's zip with CHANGED, by name: a build of the whole game with its STEP files
    (15 s). Without the slicer here: no file depends on it (the print report, which does,
    is the build's own, tested with the slicer)."""
    import zipfile

    from stratstone_cad.studio import set_builds

    with pytest.MonkeyPatch.context() as m:
        m.setattr(set_builds, "slicer_installed", lambda: False)
        r = client.get(f"/download/sage-stones.zip?{query(*CHANGED)}")
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        return {n: z.read(n) for n in z.namelist()}


def test_the_zip_3mf_and_step_are_the_build_and_params_toml_builds_them_again(
        client: TestClient, studio: Studio, zipped: dict[str, bytes], tmp_path: Path) -> None:
    """The set's zip holds every file the build lists for the game (parts, plates, STEP, the
    set) as the build wrote them, and params.toml; a plate's 3MF and a part's STEP downloaded
    alone are the same bytes. The command params.toml names, run on a copy of that build,
    finds every file's key unchanged and writes nothing: it asks for exactly what the studio
    made (a key determines its file's bytes: tests/pipeline/test_cache.py; a fresh CLI build
    of a part is compared byte for byte above)."""
    import shlex
    import shutil

    from stratstone_cad.pipeline.manifest import read_manifest

    files = dict(zipped)
    params = files.pop("params.toml").decode()
    from stratstone_cad.base.printers import default_printer

    folder = studio.builds.root / f"sage-stones-{default_printer()}-step"  # the builds with STEP files
    assert files.keys() == {f for f, e in read_manifest(folder).items() if e.get("game") == "sage-stones"}
    assert {".stl", ".3mf", ".step"} <= {Path(f).suffix for f in files}
    assert [f for f in files if files[f] != (folder / f).read_bytes()] == []
    for name in ("board.3mf", "gem-red.step"):
        alone = client.get(f"/download/sage-stones/{name}?{query(*CHANGED)}")
        assert alone.status_code == 200 and alone.content == files[f"sage-stones/{name}"], name

    command = shlex.split(params.splitlines()[0].removeprefix("# "))
    assert command[:3] == ["stratstone-cad", "build", "sage-stones"] and command[-2:] == ["--params", "params.toml"]
    (tmp_path / "params.toml").write_text(params, encoding="utf-8")
    shutil.copytree(folder, tmp_path / "again")
    again = subprocess.run([sys.executable, "-m", "stratstone_cad", *command[1:], "--no-slice", "--out", "again"],
                           cwd=tmp_path, capture_output=True, text=True, check=True)
    made = re.findall(r"(\d+) (?:built|written), \d+ cached", again.stdout)
    assert made == ["0", "0", "0"], again.stdout  # no part, STEP file or plate made again


def test_the_whole_set_is_the_builds_set_in_the_players_page(client: TestClient, zipped: dict[str, bytes]) -> None:
    """The whole set as it stands on the table: the build's set.glb (the same build as the
    zip's), its scene named as a set for the page's player, every part listed."""
    import json

    r = client.get(f"/set/sage-stones?{query(*CHANGED)}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    glb = base64.b64decode(re.search(r'<script id="glb" type="application/octet-stream">([^<]*)</script>', r.text)[1])
    built = zipped["sage-stones/set.glb"]
    n, m = (int.from_bytes(g[12:16], "little") for g in (glb, built))
    assert len(glb) == int.from_bytes(glb[8:12], "little") and n % 4 == 0
    assert glb[20 + n:] == built[20 + m:]  # the meshes as the build wrote them
    doc, theirs = json.loads(glb[20:20 + n]), json.loads(built[20:20 + m])
    extras = doc["scenes"][0].pop("extras")
    assert doc["scenes"][0].pop("name") == extras["title"] == "sage-stones: the whole set"
    theirs["scenes"][0].pop("name", None)
    assert doc == theirs
    assert extras["kind"] == "set" and {"board", "gem-red", "gem-black"} <= set(extras["parts"])


@pytest.fixture(scope="module")
def plates_laid_out(studio: Studio, plated: Path) -> Studio:
    """The studio's plate builds started from the session's build of every game with its
    plates (tests/conftest.py, shared with the plates' tests): each game's folder a copy of
    it, so the studio's build there finds every part and plate made."""
    import shutil

    from stratstone_cad.base.printers import default_printer

    for game in game_names():
        shutil.copytree(plated, studio.builds.root / f"{game}-{default_printer()}", dirs_exist_ok=True)
    return studio


@pytest.mark.parametrize("game", game_names())
def test_every_parts_plate_link_names_a_plate_the_build_writes(client: TestClient, plates_laid_out: Studio,
                                                               game: str) -> None:
    """Each part of the game's form (tiled boards included: ``stem-plate-i-of-n.3mf``, never
    ``stem.3mf``) is on a plate that ``/api/plate`` names, the build lists as holding that
    part, and the download route serves as the build wrote it. Built without the slicer
    (``slice=0``): the name and the bytes do not depend on it; the figures the slicer adds
    are found by the same lookup (:func:`~stratstone_cad.studio.set_builds.plate_holding`)."""
    from stratstone_cad.base.printers import default_printer
    from stratstone_cad.pipeline.manifest import read_manifest

    parts = [f for f in client.get(f"/api/form/{game}").json()["files"] if f.endswith(".stl")]
    plates: dict[str, str] = {}
    for part in parts:
        r = client.get(f"/api/plate/{part}?slice=0")
        assert r.status_code == 200 and r.json()["plate"], (part, r.text)
        plates[part] = r.json()["plate"]
    folder = plates_laid_out.builds.root / f"{game}-{default_printer()}"
    manifest = read_manifest(folder)
    for part, plate in plates.items():
        assert part in manifest[plate]["inputs"], (part, plate)
    for plate in sorted(set(plates.values())):
        r = client.get(f"/download/{plate}")
        assert r.status_code == 200, (plate, r.text)
        assert r.content[:2] == b"PK" and r.content == (folder / plate).read_bytes()


def test_the_walk_covers_a_tiled_board() -> None:
    """The walk above meets a board laid out on several plates (at the default printer)."""
    tiled = [o.file for g in game_names() for j, _ in plan(g, {}, None).jobs for o in j.outputs if o.of]
    assert tiled


def test_a_plate_waits_in_view_and_a_superseded_one_is_never_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Client c asks for the plate at settings A (its build starts, held), then B, then C:
    meanwhile /api/plate-progress says C waits for one build ahead (A; B, superseded, is
    not counted); A's build shows its build process's last progress line; B is answered
    as superseded and its job stopped (never built), C built. A ticket whose request went
    away is dropped the same way (its job stopped when nobody else waits: test_stop.py)."""
    from stratstone_cad.base.printers import default_printer
    from stratstone_cad.studio import set_jobs

    gate, started, built = threading.Event(), threading.Event(), []

    def stand_in(args: list[str], stop: threading.Event, on_line: Any = None) -> None:  # run_build's signature
        built.append(args[args.index("--set") + 1].split("=")[1])
        on_line("[2/8] sliced sage-stones/gems-red.3mf as set")
        on_line("a warning, not a step")
        started.set()
        gate.wait(10)

    monkeypatch.setattr(set_jobs, "run_build", stand_in)
    studio = Studio(tmp_path, PartMaker(tmp_path, cf.ThreadPoolExecutor(1), run_job), SetBuilds(tmp_path, 1))

    async def go() -> tuple[list[httpx.Response], list[dict[str, Any]]]:
        transport = httpx.ASGITransport(app=app(studio))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            def ask(height: str) -> Any:
                return asyncio.ensure_future(c.get(f"/api/plate/{GEM}?{query(f'sage-stones.gem.height_mm={height}')}"
                                                   "&client=c"))

            a = ask("6.5")
            await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
            seen = [(await c.get("/api/plate-progress?client=c")).json()]
            queue = studio.builds.queues[f"sage-stones-{default_printer()}"]
            b = ask("7")
            while len(queue) < 2:
                await asyncio.sleep(0.01)  # poll: B queued
            c3 = ask("7.5")
            while not b.done() or len([r for r in queue if not r.stop.is_set()]) != 2:
                await asyncio.sleep(0.01)  # poll: B answered and its job stopped, C queued behind A
            seen.append((await c.get("/api/plate-progress?client=c")).json())
            gate.set()
            answers = list(await asyncio.gather(a, b, c3))
            seen.append((await c.get("/api/plate-progress?client=c")).json())
            return answers, seen

    (a, b, c), seen = run_async(go())
    assert built == ["6.5", "7.5"]
    assert [r.status_code for r in (a, b, c)] == [200, 200, 200]
    assert b.json() == {"plate": None, "superseded": True} and a.json() == c.json() == {"plate": None}
    assert seen[0]["state"] == "building" and seen[0]["step"] == "[2/8] sliced sage-stones/gems-red.3mf as set"
    assert seen[1]["state"] == "waiting" and seen[1]["ahead"] == 1
    assert seen[2] == {"state": "idle"}


def test_a_builds_progress_lines_are_read_from_its_standard_error_as_they_come() -> None:
    """run_build's reader hands each line of the process's standard error to its listener
    (the plate's last step: progress lines only) and keeps the last for an error message."""
    import subprocess
    import sys

    from stratstone_cad.studio import set_builds, set_jobs

    p = subprocess.Popen([sys.executable, "-c", "import sys; sys.stderr.write('[1/2] made a\\n\\n[2/2] sliced b\\n"
                          "stratstone-cad: error: no such thing\\n')"], stderr=subprocess.PIPE)
    run, last, lines = set_builds._Run(threading.Event()), [""], []
    set_jobs._read_lines(p, last, lambda line: (lines.append(line), run.seen(line)))
    p.wait()
    assert lines == ["[1/2] made a", "[2/2] sliced b", "stratstone-cad: error: no such thing"]
    assert run.step == "[2/2] sliced b" and last == ["stratstone-cad: error: no such thing"]
