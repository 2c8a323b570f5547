"""The viewer's preview: the build's meshes in memory, rendered off screen (PyVista with
Mesa's software OpenGL: this machine has no display and no GPU)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from stratstone_cad.base.colours import load_colours
from stratstone_cad.viewer import meshes as A
from stratstone_cad.viewer.preview import contact_sheet, render_still, render_turntable


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "viewer-cache"))


@pytest.fixture(scope="module")
def every():
    return A.list_assets()


def test_every_asset_of_every_game_is_listed_whole_in_its_print_colour(every):
    assert len(every) == 25 + 8 + 7  # Stratstone board and stones; Sage board, gems and die; terrain board and pieces
    assert "terrain/board-seed-1" in every and not any("tile" in n for n in every)  # never tiles
    colours = load_colours()
    assert every["stratstone/stone-red-03"].colour == colours["red"].srgb
    assert every["sage-stones/board"].colour == colours["board"].srgb
    assert [a.name for a in A.select(every, ["terrain/runner-red", "sage-stones"])][:3] == [
        "terrain/runner-red", "sage-stones/board", "sage-stones/gem-yellow"]
    with pytest.raises(Exception, match=r"^asset 'stratstone/stone-red-3': unknown, .*did you mean "
                                        r"'stratstone/stone-red-03'"):
        A.select(every, ["stratstone/stone-red-3"])


@pytest.mark.parametrize("name", ["stratstone/stone-tan-05", "sage-stones/gem-red", "terrain/guardian-blue",
                                  "stratstone/board"])
def test_what_you_see_is_what_you_print(name, every, built_all):
    """The preview's mesh is the build's part, more coarsely tessellated: the same box and,
    within the coarser tolerance, the same volume."""
    mesh = A.asset_mesh(every[name])
    entry = {a["file"]: a for a in json.loads((built_all / "manifest.json").read_text())["assets"]}[f"{name}.stl"]
    lo, hi = mesh.bounds()
    assert lo == pytest.approx(entry["bbox_mm"]["min"], abs=0.15)
    assert hi == pytest.approx(entry["bbox_mm"]["max"], abs=0.15)
    assert mesh.volume_mm3() == pytest.approx(entry["volume_mm3"], rel=0.02)
    assert len(mesh.triangles) < entry["triangles"]


def test_a_second_preview_takes_the_meshes_from_the_cache(every, monkeypatch):
    asset = every["terrain/lancer-red"]
    A._MEMO.clear()  # another test module may have made it in memory only
    first = A.asset_mesh(asset)
    A._MEMO.clear()
    monkeypatch.setattr(A, "_make", lambda job: pytest.fail("made again"))
    again = A.asset_mesh(asset)
    assert np.array_equal(again.triangles, first.triangles)
    assert np.allclose(again.vertices, first.vertices, atol=1e-5)


def test_a_mesh_cache_that_cannot_be_written_does_not_stop_a_preview(every, tmp_path, monkeypatch):
    """The cache is best-effort: a cache folder that cannot be made (here a file in its
    place; a full disk alike) leaves the preview its meshes and nothing half-written. (A
    folder where an entry goes is a damaged entry: it is replaced, see test_mesh_cache.)"""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    asset = every["terrain/lancer-red"]
    A._MEMO.clear()
    blocked = A._cache_dir()
    blocked.parent.mkdir(parents=True)
    blocked.write_bytes(b"not a folder")
    mesh = A.asset_mesh(asset)
    assert mesh.volume_mm3() > 0 and len(mesh.triangles) > 0
    assert sorted(p.name for p in blocked.parent.iterdir()) == [blocked.name]
    assert blocked.read_bytes() == b"not a folder"


def _close(pixel, colour, tol=90):
    rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return np.abs(np.asarray(pixel[:3], dtype=int) - rgb).sum() < tol


def test_a_still_shows_each_asset_where_it_was_placed_in_its_colour(every, tmp_path):
    names = ["terrain/runner-red", "terrain/runner-blue", "sage-stones/gem-yellow", "stratstone/stone-tan-02"]
    out = tmp_path / "still.png"
    where = render_still([every[n] for n in names], out, (800, 600))
    image = np.asarray(Image.open(out).convert("RGB"))
    assert image.shape == (600, 800, 3)
    for placed, (x, y) in where:
        patch = image[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3)
        # lit from above, a flat top shows its own colour (a mark may cross the centre: most pixels)
        hits = sum(_close(px, placed.asset.colour, 110) for px in patch)
        assert hits >= 13, (placed.asset.name, patch[:3])


@pytest.mark.parametrize("names", [["terrain/lancer-red", "terrain/guardian-blue"],
                                   ["terrain/guardian-blue", "terrain/lancer-red", "terrain/runner-red",
                                    "terrain/guardian-red", "sage-stones/gem-black", "terrain/lancer-blue"]])
def test_parts_in_a_still_stand_side_by_side_each_whole_and_none_hidden(every, names):
    """Each part is drawn alone with the very camera of the still, then all together:
    at least 97 % of each part's pixels show in the still as they do alone (none stands in
    front of another), and none of its pixels touches the frame's edge (none is cut)."""
    from stratstone_cad.viewer import preview

    placed = preview.layout([every[n] for n in names])
    p = preview._plotter((640, 360))
    try:
        preview._add(p, placed)
        preview._view(p, placed)
        together = p.screenshot(None, return_img=True).astype(int)
        background = together[0, 0]
        for item in placed:
            for other in placed:
                p.renderer.actors[other.asset.name].SetVisibility(other is item)
            alone = p.screenshot(None, return_img=True).astype(int)
            mine = np.abs(alone - background).sum(axis=2) > 0
            shown = mine & (np.abs(alone - together).sum(axis=2) == 0)
            assert shown.sum() >= 0.97 * mine.sum(), (item.asset.name, int(shown.sum()), int(mine.sum()))
            edges = np.concatenate([mine[0], mine[-1], mine[:, 0], mine[:, -1]])
            assert mine.sum() > 500 and not edges.any(), item.asset.name
    finally:
        p.close()


def test_a_turntable_has_its_frames_and_reads_back(every, tmp_path):
    import imageio.v3 as iio

    gif = tmp_path / "turn.gif"
    assert render_turntable([every["sage-stones/gem-red"], every["sage-stones/gem-blue"]], gif, (320, 240),
                            frames=12) == 12
    frames = iio.imread(gif, index=None)
    assert frames.shape[0] == 12
    assert not np.array_equal(frames[0], frames[3])  # the camera moved
    mp4 = tmp_path / "turn.mp4"
    render_turntable([every["terrain/guardian-red"]], mp4, (320, 240), frames=10, fps=5)
    import imageio.v2 as iio2
    import imageio_ffmpeg

    assert imageio_ffmpeg.count_frames_and_secs(str(mp4)) == (10, 2.0)
    with iio2.get_reader(mp4, format="FFMPEG") as r:
        assert r.get_data(9).shape == (240, 320, 3)
    assert not list(tmp_path.glob(".*tmp*"))  # the temporary file became the output


def test_a_contact_sheet_labels_every_asset_of_a_game(every, tmp_path):
    out = tmp_path / "sheet.png"
    chosen = A.select(every, ["terrain"])
    rows, cols = contact_sheet(chosen, out, cell=200)
    assert (rows, cols) == (2, 4)
    image = np.asarray(Image.open(out).convert("RGB"))
    assert image.shape == (400, 800, 3)
    for i, a in enumerate(chosen):
        cell = image[(i // cols) * 200:(i // cols + 1) * 200, (i % cols) * 200:(i % cols + 1) * 200].reshape(-1, 3)
        assert sum(_close(px, a.colour, 120) for px in cell[::7]) > 30, a.name  # the asset is there, in its colour
        assert (cell.sum(axis=1) < 100).sum() > 20, a.name  # and its dark label


def _cli(*args, env=None):
    import os

    e = {**os.environ, **(env or {})}
    e.pop("DISPLAY", None)
    e.pop("WAYLAND_DISPLAY", None)
    return subprocess.run([sys.executable, "-m", "stratstone_cad", "preview", *args], capture_output=True, text=True,
                          timeout=600, env=e)


def test_the_command_line_writes_stills_sheets_and_turntables(tmp_path):
    r = _cli("terrain/guardian-red", "--out", str(tmp_path / "g.png"), "--size", "320x240")
    assert r.returncode == 0 and "wrote" in r.stdout, r.stderr
    assert Image.open(tmp_path / "g.png").size == (320, 240)
    r = _cli("sage-stones", "--sheet", str(tmp_path / "s.png"))
    assert r.returncode == 0, r.stderr
    r = _cli("sage-stones/gem-red", "--out", str(tmp_path / "t.gif"), "--frames", "4", "--size", "160x120")
    assert r.returncode == 0 and "4 frames of 1 asset\n" in r.stdout, r.stderr


@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_a_turntable_whose_write_fails_is_one_line_and_leaves_the_old_file(suffix, tmp_path):
    """A file-size limit cuts the turntable's write short (as a full disk would): one line,
    exit 2, the file that was there untouched, no temporary left (PyVista's writers swallow
    that error and published the cut file with success)."""
    import resource

    r = _cli("sage-stones/gem-red", "--out", str(tmp_path / "warm.png"), "--size", "96x64")  # the meshes cached:
    assert r.returncode == 0, r.stderr  # the limit is then met by the turntable's write, not the cache's
    (tmp_path / "warm.png").unlink()
    out = tmp_path / f"turn{suffix}"
    out.write_bytes(b"old")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (3_000, 3_000))

    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "preview", "sage-stones/gem-red", "--out", str(out),
                        "--frames", "8", "--size", "320x240"], capture_output=True, text=True, timeout=600,
                       preexec_fn=limit)
    assert r.returncode == 2, r.stderr[-1500:]
    assert r.stderr.count("\n") == 1 and "cannot write" in r.stderr and "Traceback" not in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]
    assert out.read_bytes() == b"old"


@pytest.mark.parametrize(("args", "message"), [
    (["--out", "{tmp}/x.jpg"], "--out {tmp}/x.jpg: expected FILE.png, FILE.gif, FILE.mp4, FILE.glb or FILE.html"),
    (["--sheet", "{tmp}/x.gif"], "--sheet {tmp}/x.gif: expected FILE.png"),
    (["terrain", "--out", "{tmp}/x.mp4", "--size", "321x240"], "--size 321x240: expected an even width and height"),
    (["terrain", "--out", "{tmp}/x.gif", "--fps", "60"], "--fps 60: a GIF counts its frame delays"),
    (["terrain", "--out", "{tmp}/x.gif", "--frames", "3600", "--size", "7680x4320"], "fewer --frames"),
    (["nope", "--out", "{tmp}/x.png"], "asset 'nope': unknown, expected a game or an asset"),
    (["terrain", "--size", "10x10", "--out", "{tmp}/x.png"], "--size '10x10': expected WIDTHxHEIGHT"),
    (["terrain"], "preview: no display to open a window on; use --out FILE.png"),
    (["terrain", "--out", "{tmp}/no/such/x.png"], "the folder {tmp}/no/such does not exist"),
    (["terrain", "--out", "{tmp}"], "--out {tmp}: the folder exists; expected FILE.png"),
    (["terrain", "--out", "{tmp}/.gif"], "--out {tmp}/.gif: a suffix with no name before it; expected FILE.png"),
    (["terrain", "--sheet", "{tmp}/.png"], "--sheet {tmp}/.png: a suffix with no name before it; expected FILE.png"),
])
def test_bad_preview_arguments_are_one_line_and_write_nothing(args, message, tmp_path):
    r = _cli(*[a.format(tmp=tmp_path) for a in args])
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert message.format(tmp=tmp_path) in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_still_and_a_sheet_are_written_through_a_link_as_every_export_is(tmp_path):
    """A symbolic link to a file (or to none yet) is written through, the link staying and
    the file it points to keeping its permissions, as replay does (it was refused after
    rendering, "of this build")."""
    real = tmp_path / "real.png"
    real.write_bytes(b"old")
    real.chmod(0o600)
    (tmp_path / "link.png").symlink_to(real.name)
    (tmp_path / "sheet-link.png").symlink_to("sheet.png")  # to nothing yet: the file is made
    r = _cli("sage-stones/gem-red", "--out", str(tmp_path / "link.png"), "--sheet", str(tmp_path / "sheet-link.png"),
             "--size", "96x64")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert (tmp_path / "link.png").is_symlink() and (tmp_path / "sheet-link.png").is_symlink()
    assert Image.open(real).size == (96, 64) and real.stat().st_mode & 0o777 == 0o600
    assert Image.open(tmp_path / "sheet.png").format == "PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.png", "real.png", "sheet-link.png", "sheet.png"]


@pytest.mark.parametrize(("flag", "target", "message"), [
    ("--out", "folder", "--out {tmp}/l.png: a symbolic link to a folder; expected FILE.png, FILE.gif, FILE.mp4, FILE.glb or FILE.html"),
    ("--sheet", "fifo", "--sheet {tmp}/l.png: a symbolic link to a FIFO; expected FILE.png"),
    ("--out", "no/such/x.png", "--out {tmp}/l.png: a symbolic link to {tmp}/no/such/x.png, but the folder "
                               "{tmp}/no/such does not exist"),
    ("--sheet", "l.png", "--sheet {tmp}/l.png: cannot be written (a loop of symbolic links)"),
])
def test_a_link_that_cannot_be_written_through_is_refused_before_rendering(flag, target, message, every, tmp_path,
                                                                         monkeypatch):
    import os

    from stratstone_cad.errors import UserError
    from stratstone_cad.viewer import preview

    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "l.png").symlink_to(target)
    before = sorted(p.name for p in tmp_path.iterdir())
    r = _cli("sage-stones/gem-red", flag, str(tmp_path / "l.png"), "--size", "96x64")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert message.format(tmp=tmp_path) in r.stderr and "of this build" not in r.stderr
    monkeypatch.setattr(preview, "_plotter", lambda *a, **k: pytest.fail("rendered before the target was checked"))
    monkeypatch.setattr(preview, "layout", lambda *a, **k: pytest.fail("meshes made before the target was checked"))
    render = preview.render_still if flag == "--out" else preview.contact_sheet
    with pytest.raises(UserError, match="^" + re.escape(message.format(tmp=tmp_path).split(", FILE.gif")[0])):
        render([every["sage-stones/gem-red"]], tmp_path / "l.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_link_without_a_suffix_says_what_it_links_to_and_that_the_suffix_tells_what_to_write(tmp_path):
    """``--out /dev/stdout`` with standard output a file: it was "a symbolic link is there"."""
    from stratstone_cad.errors import UserError
    from stratstone_cad.viewer.writer import check_target

    (tmp_path / "f.txt").write_text("kept")
    (tmp_path / "stdout").symlink_to(tmp_path / "f.txt")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    kinds = (".png", "dir")
    for link, what in (("stdout", f"to the file {tmp_path}/f.txt"),
                       ("dangling", f"to {tmp_path}/nothing, which does not exist")):
        with pytest.raises(UserError) as e:
            check_target(tmp_path / link, kinds)
        assert str(e.value) == (f"--out {tmp_path}/{link}: a symbolic link {what}, and no suffix in its name to say "
                                "what to write there; expected FILE.png or a new folder for the PNG frames")
    assert (tmp_path / "f.txt").read_text() == "kept"


def test_params_file_shapes_the_preview_as_it_does_the_build_and_a_missing_one_is_refused(tmp_path):
    """``--params FILE.toml`` is read as ``build`` reads it: a changed parameter changes the
    still; a file that is not there is one line, exit 2, and nothing is written."""
    (tmp_path / "tall.toml").write_text('[sage-stones.gem]\nheight_mm = 10.0\n')
    still = ["sage-stones/gem-red", "--size", "96x64"]
    r = _cli(*still, "--out", str(tmp_path / "plain.png"))
    assert r.returncode == 0, r.stderr
    r = _cli(*still, "--out", str(tmp_path / "tall.png"), "--params", str(tmp_path / "tall.toml"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "plain.png").read_bytes() != (tmp_path / "tall.png").read_bytes()
    r = _cli(*still, "--out", str(tmp_path / "none.png"), "--params", str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"--params file {tmp_path / 'missing.toml'}: file not found" in r.stderr
    assert not (tmp_path / "none.png").exists()


def test_a_preview_never_writes_over_its_params_file_nor_one_file_twice(tmp_path):
    """``--params`` named as the picture is refused, as is --out and --sheet naming one
    file: one line, exit 2, the params file untouched, nothing written."""
    params = tmp_path / "p.png"
    params.write_text("[sage-stones.gem]\nheight_mm = 7.0\n")
    r = _cli("sage-stones/gem-red", "--params", str(params), "--out", str(params))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"--out {params}: the same file as the --params file {params} it reads" in r.stderr
    r = _cli("sage-stones/gem-red", "--params", str(params), "--sheet", str(params))
    assert r.returncode == 2 and f"--sheet {params}: the same file as the --params file" in r.stderr, r.stderr
    assert params.read_text() == "[sage-stones.gem]\nheight_mm = 7.0\n"
    r = _cli("sage-stones/gem-red", "--out", str(tmp_path / "s.png"), "--sheet", str(tmp_path / "." / "s.png"))
    assert r.returncode == 2 and "the same file; expected two files" in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.png"]
