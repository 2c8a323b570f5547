#!/usr/bin/env python3
"""Render the README's pictures from a build's STL files (PyVista, off screen).

    python scripts/render_readme_images.py [--out-dir output] [--tiled-dir DIR] [--images docs/images]

Renders the very files the build wrote, each piece placed on its board with the board's
own grid (the numbers the CAD boards are made from): the Stratstone board with stacks of
stones, the 24 stones, the Sage Stones board with gems in their wells, the six gems and the dice,
the terrain board (its tiles side by side) with both sides' pieces on their start
squares, the pieces, and close-ups of the engraved coordinates and marks under a raking
light, the way they are checked by eye.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pyvista as pv

from stratstone_cad.base.params import snap_depth, snap_height
from stratstone_cad.base.printers import load_profiles
from stratstone_cad.registry import load_params

COLOURS = {"yellow": "#e8b923", "red": "#b8322a", "tan": "#c8ad7f", "blue": "#2f5fb3", "green": "#3f8f4a",
           "white": "#ece9e2", "black": "#303030"}
BOARD = "#8c8f94"
TERRAIN = "#9bab7a"


def _plotter(size=(1200, 800)) -> pv.Plotter:
    p = pv.Plotter(off_screen=True, window_size=size)
    p.set_background("white")
    p.enable_anti_aliasing("ssaa")
    return p


def _shot(p: pv.Plotter, dest: Path, margin: int = 24) -> None:
    """The plotter's picture cropped to what it shows (every pixel not the background's
    colour, and ``margin`` pixels round it), written to ``dest``."""
    import numpy as np
    from PIL import Image

    image = p.screenshot(None, return_img=True)
    shown = np.abs(image.astype(int) - image[0, 0].astype(int)).sum(axis=2) > 12
    rows, cols = np.flatnonzero(shown.any(axis=1)), np.flatnonzero(shown.any(axis=0))
    top, bottom = max(rows[0] - margin, 0), min(rows[-1] + margin + 1, image.shape[0])
    left, right = max(cols[0] - margin, 0), min(cols[-1] + margin + 1, image.shape[1])
    Image.fromarray(image[top:bottom, left:right]).save(dest)


def _look(p: pv.Plotter, direction: tuple[float, float, float], zoom: float) -> None:
    """Look at everything from ``direction`` (pointing from the scene to the camera)."""
    b = p.bounds
    centre = ((b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2)
    p.camera_position = [tuple(c + d for c, d in zip(centre, direction, strict=True)), centre, (0, 0, 1)]
    p.reset_camera()
    p.camera.zoom(zoom)


def _raking(p: pv.Plotter, centre: tuple[float, float, float], direction: tuple[float, float, float]) -> None:
    """A low light across the surface, so engraved grooves cast shade."""
    p.remove_all_lights()
    p.add_light(pv.Light(position=tuple(c + 400 * d for c, d in zip(centre, direction, strict=True)),
                         focal_point=centre, intensity=0.9, light_type="scene light"))
    p.add_light(pv.Light(light_type="headlight", intensity=0.35))


def _mesh(out: Path, file: str, at=(0.0, 0.0, 0.0)) -> pv.PolyData:
    return pv.read(out / file).translate(at, inplace=False)


def stratstone_board(out: Path, dest: Path) -> None:
    ps, prof = load_params(), load_profiles()
    b = ps.params_of("stratstone").board
    grid = b.grid()
    p = _plotter()
    p.add_mesh(_mesh(out, "stratstone/board.stl"), color=BOARD, smooth_shading=False, specular=0.2)
    placed = {(0, 0): ["tan", "tan", "red"], (3, 0): ["tan", "tan"], (0, 3): ["tan", "tan", "yellow"],
              (3, 3): ["tan", "tan"], (1, 1): ["red"], (2, 2): ["yellow", "red"]}
    used = {c: 0 for c in ("yellow", "red", "tan")}
    floor = snap_height(b.thickness_mm, prof["board"], 3) - snap_depth(b.recess_depth_mm, prof["board"])
    for (f, r), stack in placed.items():
        x, y = grid.cell_centre(f, r)
        z = floor
        for colour in stack:
            used[colour] += 1
            s = _mesh(out, f"stratstone/stone-{colour}-{used[colour]:02d}.stl", (x, y, z))
            p.add_mesh(s, color=COLOURS[colour], smooth_shading=True, split_sharp_edges=True, specular=0.3)
            z += s.bounds[5] - s.bounds[4]
    _look(p, (0, -1.1, 1.25), 1.25)
    _shot(p, dest)


def all_stones(out: Path, dest: Path) -> None:
    p = _plotter((1400, 700))
    for row, colour in enumerate(("yellow", "red", "tan")):
        for i in range(8):
            s = _mesh(out, f"stratstone/stone-{colour}-{i + 1:02d}.stl", (i * 34.0, -row * 34.0, 0))
            p.add_mesh(s, color=COLOURS[colour], smooth_shading=True, split_sharp_edges=True, specular=0.3)
    _look(p, (0, -1.0, 0.9), 1.85)
    _shot(p, dest)


def tiles(out: Path, dest: Path) -> None:
    files = sorted((out / "stratstone").glob("board-tile-*.stl"))
    if not files:
        return
    p = _plotter((1000, 900))
    for f in files:
        t = pv.read(f)
        c = t.center
        t = t.translate(((c[0] - 100) * 0.12, (c[1] - 100) * 0.12, 0), inplace=False)  # spread from the centre
        p.add_mesh(t, color=BOARD, smooth_shading=False, specular=0.2)
    _look(p, (0, -0.6, 1.0), 1.2)
    _shot(p, dest)


def sage_board(out: Path, dest: Path) -> None:
    """The board as built (it lies turned a quarter on the bed when that is how it fits),
    turned back, with gems in a few wells (column 3-9, row 1-9 as in the log)."""
    ps, prof = load_params(), load_profiles()
    sage = ps.params_of("sage-stones")
    grid = sage.board.grid()
    board = _mesh(out, "sage-stones/board.stl")
    w, _ = grid.size_mm
    if board.bounds[1] <= 1e-6:  # laid turned: x' = -y, y' = x
        board = board.rotate_z(-90, point=(0, 0, 0), inplace=False)
    p = _plotter((1200, 1000))
    p.add_mesh(board, color=BOARD, smooth_shading=False, specular=0.2)
    floor = snap_height(sage.board.thickness_mm, prof["board"], 3) - snap_depth(sage.board.well_depth_mm, prof["board"])
    gems = {"5-7": "red", "6-3": "yellow", "6-4": "blue", "7-4": "blue", "9-5": "green", "3-5": "green",
            "4-2": "white", "8-8": "black", "5-1": "red", "7-9": "yellow"}
    for square, colour in gems.items():
        col, row = (int(v) for v in square.split("-"))
        x, y = grid.cell_centre(col - 3, row - 1)
        p.add_mesh(_mesh(out, f"sage-stones/gem-{colour}.stl", (x, y, floor)), color=COLOURS[colour],
                   smooth_shading=True, split_sharp_edges=True, specular=0.5)
    _look(p, (0, -0.9, 1.3), 1.3)
    _shot(p, dest)
    assert w > 0


def gems(out: Path, dest: Path) -> None:
    """The six gems from above, so their tops' marks show: ring, cross, bars, dot, triangle, dots."""
    p = _plotter((1400, 360))
    for i, colour in enumerate(("yellow", "red", "blue", "green", "white", "black")):
        p.add_mesh(_mesh(out, f"sage-stones/gem-{colour}.stl", (i * 22.0, 0, 0)), color=COLOURS[colour],
                   smooth_shading=True, split_sharp_edges=True, specular=0.4)
    _raking(p, (55, 0, 6), (-0.55, 0.45, 0.7))
    _look(p, (0, -0.35, 1.0), 3.2)
    _shot(p, dest)


def dice(out: Path, dest: Path) -> None:
    """The three dice, each turned to show another face on top (3, 2, 1), from above at an
    angle so two sides show too."""
    p = _plotter((1200, 500))
    die = pv.read(out / "sage-stones/die.stl")
    h = die.bounds[5] - die.bounds[4]
    centre = (0.0, 0.0, h / 2)
    for i, (axis, angle) in enumerate((("x", 0.0), ("x", 90.0), ("y", -90.0))):
        turned = die.translate((0, 0, -h / 2), inplace=False)
        turned = getattr(turned, f"rotate_{axis}")(angle, inplace=False).translate(centre, inplace=False)
        p.add_mesh(turned.translate((i * 1.6 * h, 0, 0), inplace=False), color=COLOURS["white"],
                   smooth_shading=True, split_sharp_edges=True, specular=0.3)
    _raking(p, (1.6 * h, 0, h), (-0.5, -0.6, 0.8))
    _look(p, (0.45, -1.0, 0.9), 1.7)
    _shot(p, dest)


def terrain_board(out: Path, dest: Path) -> None:
    """The four tiles side by side (a few mm apart), each side's pieces on its start row."""
    ps, prof = load_params(), load_profiles()
    t = ps.params_of("terrain")
    grid = t.board.grid()
    m = json.loads((out / "manifest.json").read_text())
    files = sorted(a["file"] for a in m["assets"] if a["part"] == "board-tile" and a["game"] == "terrain")
    p = _plotter((1300, 1000))
    spread = {}
    for f in files:
        tile = pv.read(out / f)
        c = tile.center
        w, h = grid.size_mm
        dx, dy = (3.0 if c[0] > w / 2 else -3.0), (3.0 if c[1] > h / 2 else -3.0)
        spread[f] = (dx, dy)
        tile = tile.translate((dx, dy, 0), inplace=False)
        tile["height (mm)"] = tile.points[:, 2]  # tinted by height, as a map is, so the levels read at a glance
        p.add_mesh(tile, scalars="height (mm)", cmap="terrain", clim=(-2, 16), show_scalar_bar=False,
                   smooth_shading=False, specular=0.15)
    base = snap_height(t.board.thickness_mm, prof["board"], 3)
    step = snap_depth(t.board.step_mm, prof["board"])
    order = ("guardian", "lancer", "runner", "runner", "lancer", "guardian")  # files c to h (rules T7)
    for side, rank in (("red", 0), ("blue", 9)):
        for k, kind in enumerate(order):
            f = 2 + k
            x, y = grid.cell_centre(f, rank)
            dx, dy = (3.0 if x > grid.size_mm[0] / 2 else -3.0), (3.0 if y > grid.size_mm[1] / 2 else -3.0)
            z = base + t.heightmap[rank][f] * step
            piece = pv.read(out / f"terrain/{kind}-{side}.stl")
            if side == "blue":
                piece = piece.rotate_z(180, inplace=False)  # Blue's marks face Blue's side
            p.add_mesh(piece.translate((x + dx, y + dy, z), inplace=False), color=COLOURS[side], smooth_shading=False,
                       specular=0.3)
    _look(p, (0, -0.85, 1.1), 1.3)
    _shot(p, dest)


def kit(out: Path, images: Path, seed: int = 3) -> None:
    """The terrain kit (a build with --kit in ``out``) laid in its frame for the map of
    ``play terrain --kit --seed 3``, tinted by height, and that game's setup picture
    (``stratstone-cad kit setup 3``): the tiles' letters and arrows to lay them by."""
    import numpy as np

    from stratstone_cad.games.terrain import cad
    from stratstone_cad.games.terrain import kit as terrain_kit
    from stratstone_cad.printing.stack import stack_mesh
    from stratstone_cad.registry import get_game

    ps, prof = load_params(), load_profiles()
    t = ps.params_of("terrain")
    engine = get_game("terrain")
    _, setup = engine.new_setup(2, engine.play_setup({"kit": {"seed": t.kit.seed, "band": t.kit.band,
                                                              "designs": t.kit.designs}}, seed), None)
    p = _plotter((1300, 1000))
    frame = stack_mesh(cad.kit_frame_stack(t.board, t.kit.clearance_mm, prof["board"], ps.mesh.tolerance_mm))
    faces = np.hstack([np.full((len(frame.triangles), 1), 3), frame.triangles]).ravel()
    p.add_mesh(pv.PolyData(frame.vertices, faces), color="#c9c2b4", smooth_shading=False, specular=0.15)
    rim, pitch = t.board.rim_width_mm, t.board.cell_pitch_mm
    for q, tile in setup["kit"]["tiles"].items():
        mesh = pv.read(out / f"terrain/kit-tile-{tile['design'].lower()}.stl")
        mesh = mesh.rotate_z(90 * tile["turn"], point=(2.5 * pitch, 2.5 * pitch, 0), inplace=False)
        f0, r0 = terrain_kit.ORIGIN[q]
        mesh = mesh.translate((rim + f0 * pitch, rim + r0 * pitch, 0), inplace=False)
        mesh["height (mm)"] = mesh.points[:, 2]
        p.add_mesh(mesh, scalars="height (mm)", cmap="terrain", clim=(-2, 18), show_scalar_bar=False,
                   smooth_shading=False, specular=0.15)
    _look(p, (0, -0.85, 1.1), 1.3)
    _shot(p, images / "kit-laid.png")
    subprocess.run([sys.executable, "-m", "stratstone_cad", "kit", "setup", str(seed), "--out",
                    str(images / "kit-setup.png"), "--size", "700"], check=True)
    kit_underside(out, images / "kit-tile-underside.png")


def kit_underside(out: Path, dest: Path) -> None:
    """Kit tile A as the build writes it (a shell), seen from underneath: a cavity under
    every cell, a wall under a cell edge where a ceiling needs one (two cells of one level
    side by side share a ceiling), and the design letter and turn arrow engraved in the
    two solid rectangles the shell leaves under them."""
    p = _plotter((1000, 900))
    tile = pv.read(out / "terrain/kit-tile-a.stl").rotate_y(180, inplace=False)  # turned over, north kept
    p.add_mesh(tile, color=TERRAIN, smooth_shading=False, specular=0.2)
    c = tile.center
    _raking(p, (c[0], c[1], c[2]), (-0.6, -0.5, 0.6))
    _look(p, (0.0, -0.6, 1.3), 1.25)
    _shot(p, dest)


def terrain_pieces(out: Path, dest: Path) -> None:
    p = _plotter((1400, 520))
    x = 0.0
    for side in ("red", "blue"):
        for kind in ("runner", "lancer", "guardian"):
            piece = pv.read(out / f"terrain/{kind}-{side}.stl").translate((x, 0, 0), inplace=False)
            p.add_mesh(piece, color=COLOURS[side], smooth_shading=False, specular=0.3)
            x += 30
        x += 10
    _raking(p, (90, 0, 10), (-0.35, -0.85, 0.4))
    _look(p, (0, -1.0, 0.45), 1.9)
    _shot(p, dest)


def label_closeups(out: Path, dest: Path) -> None:
    """The near-left corner of each board, two cells by two and the rims beside them, from
    the front and above under a light from the left, so every engraved groove
    shows as on the printed board: the first column and row labels as the near player
    reads them (Stratstone, Sage Stones, terrain side by side), each panel cropped to that
    corner."""
    ps = load_params()
    m = json.loads((out / "manifest.json").read_text())
    terrain = sorted(a["file"] for a in m["assets"] if a["game"] == "terrain" and a["part"] == "board-tile")[0]
    size = (500, 520)
    p = pv.Plotter(off_screen=True, window_size=(3 * size[0], size[1]), shape=(1, 3), border=False)
    boards = (("Stratstone", "stratstone/board.stl", ps.params_of("stratstone").board, BOARD),
              ("Sage Stones", "sage-stones/board.stl", ps.params_of("sage-stones").board, BOARD),
              ("terrain game", terrain, ps.params_of("terrain").board, TERRAIN))
    for i, (title, file, board, colour) in enumerate(boards):
        p.subplot(0, i)
        p.set_background("white")
        grid = board.grid()
        mesh = pv.read(out / file)
        if mesh.bounds[1] <= 1e-6:  # a board laid turned on the bed
            mesh = mesh.rotate_z(-90, point=(0, 0, 0), inplace=False)
        x1, y1 = grid.rim_x_mm + 2.0 * grid.pitch_mm, grid.rim_y_mm + 2.0 * grid.pitch_mm
        part = mesh.clip_box((0, x1, 0, y1, -1, 60), invert=False)
        p.add_mesh(part, color=colour, specular=0.15)
        top = part.bounds[5]
        p.remove_all_lights()
        p.add_light(pv.Light(position=(-2 * x1, 0.5 * y1, top + 1.2 * x1), focal_point=(x1 / 2, y1 / 2, 0),
                             intensity=0.8, light_type="scene light"))
        p.add_light(pv.Light(light_type="headlight", intensity=0.55))
        # from the front, 60 degrees up: the grooves' far walls catch the light
        p.camera_position = [(x1 / 2, y1 / 2 - 0.55 * y1, top + 0.95 * y1), (x1 / 2, y1 / 2, top), (0, 0, 1)]
        p.reset_camera()
        p.camera.zoom(1.25)
        p.add_text(title, position="upper_edge", font_size=11, color="black")
    p.screenshot(dest)


def _plate_meshes(path: Path) -> list[tuple[pv.PolyData, str]]:
    """Every object of a print plate (3MF, read back with lib3mf) where the plate puts it,
    with the display colour of its base material."""
    import lib3mf
    import numpy as np

    w = lib3mf.get_wrapper()
    model = w.CreateModel()
    model.QueryReader("3mf").ReadFromFile(str(path))
    out = []
    items = model.GetBuildItems()
    while items.MoveNext():
        item = items.GetCurrent()
        obj = item.GetObjectResource()
        mesh = model.GetMeshObjectByID(obj.GetResourceID())
        verts, tris = mesh.GetVertices(), mesh.GetTriangleIndices()
        v = np.array([list(p.Coordinates) for p in verts])
        f = np.array([list(t.Indices) for t in tris])
        m = np.array([list(r) for r in item.GetObjectTransform().Fields])  # rows: x, y, z axes, then the move
        v = v @ m[:3] + m[3]
        faces = np.hstack([np.full((len(f), 1), 3), f]).ravel()
        _, group, index = mesh.GetObjectLevelProperty()
        r, g, b, _ = w.ColorToRGBA(model.GetBaseMaterialGroupByID(group).GetDisplayColor(index))
        out.append((pv.PolyData(v, faces), f"#{r:02x}{g:02x}{b:02x}"))
    return out


def _bed(p: pv.Plotter, x_mm: float, y_mm: float) -> None:
    """A printer's bed as a slicer's 3D view draws it: a light sheet of its size with a
    line every 10 mm and a darker one every 50 mm, from its front left corner."""
    p.add_mesh(pv.Box((0, x_mm, 0, y_mm, -1.0, -0.05)), color="#d8d8d4", specular=0.1)
    for step, width, colour in ((10, 0.5, "#b0b0ab"), (50, 1.2, "#85857f")):
        strips = [pv.Box((x - width / 2, x + width / 2, 0, y_mm, -0.05, 0.02)) for x in range(0, int(x_mm) + 1, step)]
        strips += [pv.Box((0, x_mm, y - width / 2, y + width / 2, -0.05, 0.02 + step / 1000))
                   for y in range(0, int(y_mm) + 1, step)]
        p.add_mesh(pv.merge(strips), color=colour, lighting=False)


def plates(out: Path, dest: Path) -> None:
    """Three print plates on their printer's bed, the whole bed in view and the parts at
    their size on it, as a slicer's 3D view shows a plate it opened (the bed each plate
    carries, see docs/printing.md)."""
    import json

    from stratstone_cad.base.printers import get_printer

    files = ("terrain/board-seed-1-plate-1-of-4.3mf", "stratstone/stones-red.3mf", "sage-stones/gems-yellow.3mf")
    printers = {e["file"]: e["printer"] for e in json.loads((out / "manifest.json").read_text())["plates"]}
    p = pv.Plotter(off_screen=True, window_size=(1500, 440), shape=(1, 3), border=False)
    for i, file in enumerate(files):
        bed = get_printer(printers[file])
        p.subplot(0, i)
        p.set_background("white")
        _bed(p, bed.bed_x_mm, bed.bed_y_mm)
        for mesh, colour in _plate_meshes(out / file):
            p.add_mesh(mesh, color=colour, smooth_shading=True, split_sharp_edges=True, specular=0.3)
        p.add_text(f"{file}\n{bed.title}, {bed.bed_x_mm:g} x {bed.bed_y_mm:g} mm", position="upper_edge",
                   font_size=9, color="black")
        centre = (bed.bed_x_mm / 2, bed.bed_y_mm / 2, 0.0)
        p.camera_position = [(centre[0], centre[1] - 1.15 * bed.bed_y_mm, 1.1 * bed.bed_y_mm), centre, (0, 0, 1)]
        p.reset_camera(bounds=(0, bed.bed_x_mm, 0, bed.bed_y_mm, 0, 20))
        p.camera.zoom(1.2)
    p.screenshot(dest)


def fit_test(out: Path, dest: Path) -> None:
    """The fit test's plate (stratstone-cad build fit-test --plates) seen from the front, from
    above, close enough to read the clearances engraved on the coupons."""
    p = pv.Plotter(off_screen=True, window_size=(1400, 900))
    p.set_background("white")
    for mesh, _colour in _plate_meshes(out / "fit-test/fit-test.3mf"):
        p.add_mesh(mesh, color=BOARD, smooth_shading=False, specular=0.2)
    p.add_light(pv.Light(position=(0, -200, 300), focal_point=(120, 100, 0), intensity=0.5))
    _look(p, (0.0, -0.45, 1.0), 1.35)
    _shot(p, dest)


def sheets(images: Path) -> None:
    """A contact sheet of each game's assets, made by the viewer (stratstone-cad preview --sheet)."""
    from stratstone_cad.viewer.meshes import list_assets, select
    from stratstone_cad.viewer.preview import contact_sheet

    every = list_assets()
    for game in ("stratstone", "sage-stones", "terrain"):
        contact_sheet(select(every, [game]), images / f"sheet-{game}.png", cell=200)


#: The README's replays: a game's log from the tests and the plies shown (small files).
REPLAYS = {"stratstone": ("stratstone_win.jsonl", (1, 13)), "sage-stones": ("sage_stones_4.jsonl", (1, 16)),
           "terrain": ("terrain_greedy.jsonl", (1, 12))}


def replays(images: Path) -> None:
    """A short replay GIF of each game, made by the viewer (stratstone-cad replay LOG --out
    FILE.gif): 640 x 360, so that the overlay's text and the legend read, at 4 frames a
    ply (a ply in two thirds of a second), which keeps each file near 1 MB or under."""
    from stratstone_cad.viewer.replay import export, load

    logs = Path(__file__).resolve().parent.parent / "tests" / "data" / "logs"
    for game, (log, plies) in REPLAYS.items():
        export(load(logs / log), images / f"replay-{game}.gif", size=(640, 360), fps=6, per_ply=4, plies=plies)


def web_replay(images: Path) -> None:
    """The shared replay page (stratstone-cad replay LOG --out FILE.html) as Chromium shows
    it, headless (tests/pages.py, Playwright; skipped without chromium): the terrain game at ply 8 (a
    charge and an attack, the reach of the piece to move)."""
    import shutil
    import sys
    import tempfile

    import imageio.v3 as iio

    from stratstone_cad.viewer import web
    from stratstone_cad.viewer.replay import load

    if not shutil.which("chromium"):
        print("render_readme_images: no chromium, the web replay's picture is left as it was")
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.pages import Browser

    log = Path(__file__).resolve().parent.parent / "tests" / "data" / "logs" / "terrain_greedy.jsonl"
    with tempfile.TemporaryDirectory() as tmp, Browser((1000, 600)) as b:
        page = Path(tmp) / "terrain.html"
        web.write_replay(load(log), log, page)
        b.open(page.as_uri() + "#ply=8")
        b.wait("window.stratstone && window.stratstone.ready && window.stratstone.frames > 0")
        n = b.js("window.stratstone.redraw(), window.stratstone.frames")  # the chips placed: a frame more
        b.wait(f"window.stratstone.frames > {n}")
        iio.imwrite(images / "replay-web.png", b.screenshot())


def studio_page(images: Path) -> None:
    """The studio (stratstone-cad studio) as Chromium shows it, headless, served as users
    run it: a Sage Stones gem with its height changed, its preview, facts and downloads."""
    import shutil
    import signal
    import subprocess
    import sys
    import tempfile

    import imageio.v3 as iio

    if not shutil.which("chromium"):
        print("render_readme_images: no chromium, the studio's picture is left as it was")
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.pages import Browser

    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0", "--out",
                              tmp], stdout=subprocess.PIPE, text=True)
        try:
            url = p.stdout.readline().split()[1]  # type: ignore[union-attr]
            with Browser((1280, 720), flags=["--proxy-bypass-list=127.0.0.1"]) as b:
                b.open(url + "?game=sage-stones&part=gem-red.stl&set=sage-stones.gem.height_mm=7")
                b.wait("window.studio && window.studio.ready", timeout=300)
                b.wait("document.getElementById('preview').contentWindow.stratstone.ready", timeout=60)
                b.wait("!/slicing/.test(document.getElementById('plate').textContent)", timeout=300)
                iio.imwrite(images / "studio.png", b.screenshot())
        finally:
            p.send_signal(signal.SIGINT)
            p.wait(30)


def shell_undersides(dest: Path) -> None:
    """The Sage Stones and Stratstone boards and a terrain tile as the build makes them
    (shells), seen from underneath: cavities under the cells, a wall on a cell edge only
    where a ceiling needs it (none between the Sage Stones wells)."""
    import importlib

    import numpy as np

    from stratstone_cad.base.printers import get_printer
    from stratstone_cad.registry import get_parts

    ps, prof = load_params(), load_profiles()
    p = _plotter((2000, 800))
    x = 0.0
    for g in sorted(get_parts(None), key=lambda g: ("sage-stones", "stratstone", "terrain").index(g.name)):
        job = next(j for j in g.plan(ps.params_of(g.name), get_printer("prusa-mk4"), prof, ps.mesh)
                   if "board" in j.maker)
        module, func = job.maker.split(":")
        m = getattr(importlib.import_module(module), func)(**job.args)[0]
        faces = np.hstack([np.full((len(m.triangles), 1), 3), m.triangles]).ravel()
        mesh = pv.PolyData(m.vertices, faces).translate((x - m.bounds()[0][0], 0, 0), inplace=False)
        p.add_mesh(mesh, color=TERRAIN if g.name == "terrain" else BOARD, smooth_shading=False, specular=0.2)
        x += m.bounds()[1][0] - m.bounds()[0][0] + 25
    _look(p, (0.0, -0.7, -1.3), 2.1)
    _shot(p, dest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", type=Path, default=Path("output"))
    ap.add_argument("--tiled-dir", type=Path, default=None, help="a build made with a small printer")
    ap.add_argument("--images", type=Path, default=Path("docs/images"))
    ap.add_argument("--only", choices=("dice", "plates", "labels", "studio", "kit", "shells", "fit-test"),
                    help="render this picture alone (kit: from a build with --kit in --out-dir)")
    a = ap.parse_args()
    a.images.mkdir(parents=True, exist_ok=True)
    if a.only == "dice":
        dice(a.out_dir, a.images / "sage-stones-dice.png")
        return
    if a.only == "plates":
        plates(a.out_dir, a.images / "print-plates.png")
        return
    if a.only == "studio":
        studio_page(a.images)
        return
    if a.only == "kit":
        kit(a.out_dir, a.images)
        return
    if a.only == "shells":
        shell_undersides(a.images / "shell-undersides.png")
        return
    if a.only == "fit-test":  # from a build of fit-test --plates in --out-dir
        fit_test(a.out_dir, a.images / "fit-test.png")
        return
    if a.only == "labels":
        label_closeups(a.out_dir, a.images / "labels-closeup.png")
        return
    stratstone_board(a.out_dir, a.images / "stratstone-board.png")
    all_stones(a.out_dir, a.images / "stratstone-stones.png")
    sage_board(a.out_dir, a.images / "sage-stones-board.png")
    gems(a.out_dir, a.images / "sage-stones-gems.png")
    dice(a.out_dir, a.images / "sage-stones-dice.png")
    terrain_board(a.out_dir, a.images / "terrain-board.png")
    terrain_pieces(a.out_dir, a.images / "terrain-pieces.png")
    label_closeups(a.out_dir, a.images / "labels-closeup.png")
    shell_undersides(a.images / "shell-undersides.png")
    sheets(a.images)
    replays(a.images)
    web_replay(a.images)
    studio_page(a.images)
    if (a.out_dir / "stratstone/stones-red.3mf").exists():
        plates(a.out_dir, a.images / "print-plates.png")
    if (a.out_dir / "fit-test/fit-test.3mf").exists():
        fit_test(a.out_dir, a.images / "fit-test.png")
    if a.tiled_dir:
        tiles(a.tiled_dir, a.images / "stratstone-tiles.png")


if __name__ == "__main__":
    main()
