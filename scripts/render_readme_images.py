#!/usr/bin/env python3
"""Render the README's pictures from a build's STL files (PyVista, off screen).

    python scripts/render_readme_images.py [--out-dir output] [--images docs/images]

Renders the very files the build wrote: the board with a few stones set in their
recesses, the 24 stones in three rows, and a tiled board laid out apart.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pyvista as pv

COLOURS = {"yellow": "#e8b923", "red": "#b8322a", "tan": "#c8ad7f"}
BOARD = "#8c8f94"


def _plotter(size=(1200, 800)) -> pv.Plotter:
    p = pv.Plotter(off_screen=True, window_size=size)
    p.set_background("white")
    p.enable_anti_aliasing("ssaa")
    return p


def _look(p: pv.Plotter, direction: tuple[float, float, float], zoom: float) -> None:
    """Look at everything from ``direction`` (pointing from the scene to the camera)."""
    b = p.bounds
    centre = ((b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2)
    p.camera_position = [tuple(c + d for c, d in zip(centre, direction, strict=True)), centre, (0, 0, 1)]
    p.reset_camera()
    p.camera.zoom(zoom)


def board_with_stones(out: Path, dest: Path) -> None:
    import json

    m = json.loads((out / "manifest.json").read_text())
    pitch, rim = 36.0, 12.0
    p = _plotter()
    board = pv.read(out / "stratstone/board.stl")
    p.add_mesh(board, color=BOARD, smooth_shading=False, specular=0.2)
    placed = {("a", 1): ["tan", "tan", "red"], ("d", 1): ["tan", "tan"], ("a", 4): ["tan", "tan", "yellow"],
              ("d", 4): ["tan", "tan"], ("b", 2): ["red"], ("c", 3): ["yellow", "red"]}
    used = {c: 0 for c in COLOURS}
    depth = 3.3
    for (f, r), stack in placed.items():
        x = rim + ("abcd".index(f) + 0.5) * pitch
        y = rim + (r - 0.5) * pitch
        z = depth
        for colour in stack:
            used[colour] += 1
            s = pv.read(out / f"stratstone/stone-{colour}-{used[colour]:02d}.stl")
            s = s.translate((x, y, z), inplace=False)
            p.add_mesh(s, color=COLOURS[colour], smooth_shading=True, split_sharp_edges=True, specular=0.3)
            z += s.bounds[5] - s.bounds[4]
    assert m["assets"]
    _look(p, (0, -1.1, 1.25), 1.25)
    p.screenshot(dest)


def all_stones(out: Path, dest: Path) -> None:
    p = _plotter((1400, 700))
    for row, colour in enumerate(COLOURS):
        for i in range(8):
            s = pv.read(out / f"stratstone/stone-{colour}-{i + 1:02d}.stl")
            s = s.translate((i * 34.0, -row * 34.0, 0), inplace=False)
            p.add_mesh(s, color=COLOURS[colour], smooth_shading=True, split_sharp_edges=True, specular=0.3)
    _look(p, (0, -1.0, 0.9), 1.85)
    p.screenshot(dest)


def tiles(out: Path, dest: Path) -> None:
    files = sorted((out / "stratstone").glob("board-tile-*.stl"))
    if not files:
        return
    p = _plotter((1000, 900))
    for f in files:
        t = pv.read(f)
        c = t.center
        # spread the tiles apart from the board's centre
        t = t.translate(((c[0] - 100) * 0.12, (c[1] - 100) * 0.12, 0), inplace=False)
        p.add_mesh(t, color=BOARD, smooth_shading=False, specular=0.2)
    _look(p, (0, -0.6, 1.0), 1.2)
    p.screenshot(dest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", type=Path, default=Path("output"))
    ap.add_argument("--tiled-dir", type=Path, default=None, help="a build made with a small printer")
    ap.add_argument("--images", type=Path, default=Path("docs/images"))
    a = ap.parse_args()
    a.images.mkdir(parents=True, exist_ok=True)
    board_with_stones(a.out_dir, a.images / "stratstone-board.png")
    all_stones(a.out_dir, a.images / "stratstone-stones.png")
    if a.tiled_dir:
        tiles(a.tiled_dir, a.images / "stratstone-tiles.png")


if __name__ == "__main__":
    main()
