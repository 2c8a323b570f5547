"""Replays as animated glTF: valid by the Khronos validator (Node, the version pinned in
tools/web), and the motion read back from the file is the viewer's: at every ply's end
each piece stands where the engine's ledger puts it, within a ply where the viewer's
keyframes do, hidden when the viewer hides it; the animation lasts plies x seconds.

The file is read back with a small reader of its own here (GLB chunks, accessors, and
glTF's linear and step interpolation), not with the writer's code."""

from __future__ import annotations

import json
import struct
import subprocess
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from stratstone_cad.viewer import gltf
from stratstone_cad.viewer import replay as R
from tests import LOGS, golden_logs
from tests.web_tools import WEB, node_tools

GAMES = golden_logs()  # each registered game and its golden log
SECONDS = 0.8


@pytest.fixture(scope="module")
def written(_cache, tmp_path_factory):
    """Each game's replay loaded and written as a GLB: {game: (rep, path)}."""
    folder = tmp_path_factory.mktemp("glb")
    out = {}
    for game, log in GAMES.items():
        rep = R.load(LOGS / log)
        path = folder / f"{game}.glb"
        gltf.write_replay(rep, LOGS / log, path, SECONDS)
        out[game] = (rep, path)
    return out


@pytest.fixture(scope="module")
def validator():
    """``node tools/web/validate.mjs`` with the pinned validator."""
    node_tools()

    def validate(*paths: Path) -> dict:
        done = subprocess.run(["node", str(WEB / "validate.mjs"), *map(str, paths)], capture_output=True, text=True,
                              check=True, timeout=120)
        return json.loads(done.stdout)

    return validate


# ------------------------------------------------------------------------- a reader of our own


class Glb:
    def __init__(self, data: bytes) -> None:
        magic, version, total = struct.unpack_from("<4sII", data)
        assert (magic, version, total) == (b"glTF", 2, len(data))
        n, kind = struct.unpack_from("<I4s", data, 12)
        assert kind == b"JSON"
        self.doc = json.loads(data[20:20 + n])
        m, kind = struct.unpack_from("<I4s", data, 20 + n)
        assert kind == b"BIN\0" and 28 + n + m == len(data)
        self.bin = data[28 + n:]

    def array(self, index: int) -> np.ndarray:
        a = self.doc["accessors"][index]
        view = self.doc["bufferViews"][a["bufferView"]]
        dtype = {5126: np.float32, 5123: np.uint16, 5125: np.uint32}[a["componentType"]]
        width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[a["type"]]
        raw = np.frombuffer(self.bin, dtype, a["count"] * width, view["byteOffset"] + a.get("byteOffset", 0))
        return raw.reshape(a["count"], width) if width > 1 else raw

    def nodes(self) -> dict[str, int]:
        return {n["name"]: i for i, n in enumerate(self.doc["nodes"])}

    def sample(self, node: int, path: str, t: float) -> np.ndarray:
        """The node's ``path`` (translation, scale) at time ``t``, as glTF interpolates it."""
        static = np.array(self.doc["nodes"][node].get(path, [1.0, 1.0, 1.0] if path == "scale" else [0.0, 0.0, 0.0]))
        for anim in self.doc.get("animations", []):
            for ch in anim["channels"]:
                if ch["target"] == {"node": node, "path": path}:
                    s = anim["samplers"][ch["sampler"]]
                    times, values = self.array(s["input"]).astype(float), self.array(s["output"]).astype(float)
                    if t <= times[0]:
                        return values[0]
                    if t >= times[-1]:
                        return values[-1]
                    k = int(np.searchsorted(times, t, side="right")) - 1
                    if s["interpolation"] == "STEP":
                        return values[k]
                    w = (t - times[k]) / (times[k + 1] - times[k])
                    return values[k] * (1 - w) + values[k + 1] * w
        return static


def _expected(rep, pid: str, pos) -> np.ndarray | None:
    """Where the node of ``pid`` must be (metres, Y up) for its anchor on ``pos`` (mm, Z up)."""
    if pos is None:
        return None
    x, y, z = np.asarray(pos, float) - np.asarray(rep.anchors[pid], float)
    return np.array([x, z, -y]) / 1000


# ------------------------------------------------------------------------- tests


def test_the_files_are_valid_gltf_without_a_warning(written, validator):
    report = validator(*(p for _, p in written.values()))
    for path, r in report.items():
        assert (r["errors"], r["warnings"]) == (0, 0), (path, r["messages"][:5])
        assert r["info"]["animationCount"] == 1


@pytest.mark.parametrize("game", GAMES)
def test_every_piece_is_where_the_engine_puts_it_at_every_plys_end(written, game):
    rep, path = written[game]
    glb = Glb(path.read_bytes())
    nodes = glb.nodes()
    assert set(rep.pieces) <= set(nodes) and "board" in nodes
    for ply in range(rep.count + 1):
        rest = rep.rest(ply)
        for pid in rep.pieces:
            want = _expected(rep, pid, rest.get(pid))
            scale = glb.sample(nodes[pid], "scale", ply * SECONDS)
            if want is None:
                assert np.allclose(scale, 0), (game, ply, pid)
            else:
                assert np.allclose(scale, 1), (game, ply, pid)
                got = glb.sample(nodes[pid], "translation", ply * SECONDS)
                assert np.allclose(got, want, atol=2e-6), (game, ply, pid, got, want)


@pytest.mark.parametrize("game", GAMES)
def test_within_a_ply_the_pieces_follow_the_viewers_keyframes(written, game):
    rep, path = written[game]
    glb = Glb(path.read_bytes())
    nodes = glb.nodes()
    checked = 0
    for ply in range(1, rep.count + 1):
        for pid, keys in rep.plies[ply - 1].keys.items():
            for (u0, p0), (u1, _) in pairwise(keys):
                if p0 is None or u1 - u0 < 1e-3:
                    continue
                u = (u0 + u1) / 2  # mid-segment: away from the keys moved apart by an instant
                t = (ply - 1 + u * (1 - gltf.SETTLE)) * SECONDS
                want = _expected(rep, pid, rep.at(ply, u)[pid])  # held at p0 when p1 hides it
                got = glb.sample(nodes[pid], "translation", t)
                # within 0.1 mm: a key moved apart from another at its instant (a millisecond of
                # the ply's 0.8 s) shifts its segment's timing by a fraction of a percent
                assert np.allclose(got, want, atol=1e-4), (game, ply, pid, u)
                assert np.allclose(glb.sample(nodes[pid], "scale", t), 1)
                checked += 1
    assert checked > 20


def test_the_animation_lasts_plies_times_seconds_and_the_extras_hold_the_log(written):
    for game, (rep, path) in written.items():
        glb = Glb(path.read_bytes())
        (anim,) = glb.doc["animations"]
        ends = [float(glb.array(s["input"]).max()) for s in anim["samplers"]]
        assert max(ends) == pytest.approx(rep.count * SECONDS, abs=1e-5) and min(ends) == max(ends)
        for node in glb.doc["nodes"]:
            assert "matrix" not in node  # animated nodes carry TRS
        extras = glb.doc["scenes"][0]["extras"]
        log = [json.loads(line) for line in (LOGS / GAMES[game]).read_text().splitlines()]
        assert extras["header"]["game"] == game and extras["header"]["setup"] == log[0]["setup"]
        plies = [x for x in log[1:] if "ply" in x]
        assert [(p["ply"], p["player"], p["move"]) for p in extras["plies"]] == [
            (p["ply"], p["player"], p["move"]) for p in plies]
        assert [p.get("dice") for p in extras["plies"]] == [p.get("dice") for p in plies]
        assert extras["plies"][-1]["end"] == pytest.approx(rep.count * SECONDS)
        assert all(p["words"] for p in extras["plies"])
    terrain = Glb(written["terrain"][1].read_bytes()).doc["scenes"][0]["extras"]["plies"]
    assert terrain[3]["words"].startswith("Lancer, 3 + 1 = 4 of 4 (charge); attack Lancer 2 + charge 1")


def test_each_pebble_is_its_own_mesh_and_alike_pieces_share_one_in_metres(written):
    stones = Glb(written["stratstone"][1].read_bytes())
    pebbles = [n for n in stones.doc["nodes"] if n["name"].startswith(("yellow-", "red-", "tan-"))]
    assert len(pebbles) == 24 and len({n["mesh"] for n in pebbles}) == 24
    gems = Glb(written["sage-stones"][1].read_bytes())
    gem_nodes = [n for n in gems.doc["nodes"] if n["name"] != "board" and not n["name"].startswith("die-")]
    assert len(gem_nodes) == 40 and len({n["mesh"] for n in gem_nodes}) == 4  # one mesh a colour
    dice = [n for n in gems.doc["nodes"] if n["name"].startswith("die-")]
    assert len(dice) == 3 and len({n["mesh"] for n in dice}) == 1  # the three dice share the die's mesh
    board = stones.doc["meshes"][stones.doc["nodes"][stones.nodes()["board"]]["mesh"]]
    lo = np.array(stones.doc["accessors"][board["primitives"][0]["attributes"]["POSITION"]]["min"])
    hi = np.array(stones.doc["accessors"][board["primitives"][0]["attributes"]["POSITION"]]["max"])
    rep = written["stratstone"][0]
    mm_lo, mm_hi = (np.asarray(v, float) for v in rep.board_bounds)
    assert np.allclose(hi - lo, np.array([mm_hi[0] - mm_lo[0], mm_hi[2] - mm_lo[2], mm_hi[1] - mm_lo[1]]) / 1000,
                       atol=1e-6)  # metres, Y up: the board is wide in x and z, thin in y
    assert hi[1] - lo[1] < 0.03 < hi[0] - lo[0]


def test_a_hidden_piece_holds_its_place_until_it_goes_and_reappears_where_it_lands():
    a, b, c = (0.0, 0.0, 0.0), (10.0, 0.0, 0.0), (50.0, 5.0, 0.0)
    moves, shows = gltf.track([(0.0, a), (1.0, b), (2.0, None), (3.0, c), (3.0, a)], apart=0.01)
    assert moves == [(0.0, a), (1.0, b), (2.0, b), (3.0, c), (3.01, a)]  # a jump at one instant: kept apart
    assert shows == [(0.0, 1.0), (2.0, 0.0), (3.0, 1.0)]


def test_the_command_line_writes_the_scene_and_refuses_what_it_cannot(tmp_path):
    import sys

    log = LOGS / GAMES["terrain"]
    run = [sys.executable, "-m", "stratstone_cad", "replay", str(log)]
    done = subprocess.run([*run, "--out", str(tmp_path / "g.glb"), "--fps", "20"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {tmp_path / 'g.glb'}: terrain, 24 plies, ") and "0.5 s a ply" in done.stdout
    glb = Glb((tmp_path / "g.glb").read_bytes())
    assert glb.doc["scenes"][0]["extras"]["secondsPerPly"] == 0.5  # --frames-per-ply / --fps: the MP4's motion
    page = subprocess.run([*run, "--out", str(tmp_path / "g.html")], capture_output=True, text=True, check=False)
    assert page.returncode == 0 and (tmp_path / "g.html").read_text().startswith("<!DOCTYPE html>")
    for args, message in ((["--out", str(tmp_path / "g.glb"), "--plies", "1-3"], "--plies '1-3': expected"),
                          (["--out", str(tmp_path / "g.html"), "--ply", "3"], "--ply 3: only with --out FILE.png"),
                          (["--out", str(tmp_path / "no" / "g.glb")], "does not exist")):
        bad = subprocess.run([*run, *args], capture_output=True, text=True, check=False)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.glb", "g.html"]  # nothing half-written


def test_preview_writes_the_parts_to_orbit_as_gltf(tmp_path, validator):
    import sys

    done = subprocess.run([sys.executable, "-m", "stratstone_cad", "preview", "sage-stones", "--out",
                           str(tmp_path / "set.glb")], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    glb = Glb((tmp_path / "set.glb").read_bytes())
    extras = glb.doc["scenes"][0]["extras"]
    assert extras["kind"] == "set" and set(glb.nodes()) == set(extras["parts"])
    assert "sage-stones/board" in extras["parts"] and len(extras["parts"]) == 8  # the board, six gems and the die
    assert "animations" not in glb.doc
    report = validator(tmp_path / "set.glb")
    assert [(r["errors"], r["warnings"]) for r in report.values()] == [(0, 0)]
