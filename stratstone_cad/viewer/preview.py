"""``stratstone-cad preview``: the assets in 3D, each in its print colour.

An interactive window (PyVista's: drag to orbit, scroll to zoom, ``r`` resets the view),
or off screen: a still (``.png``), a turntable (``.gif`` or ``.mp4``: the camera goes once
round the assets), or a contact sheet of every asset named, each labelled. The meshes are
the build's (:mod:`stratstone_cad.viewer.meshes`); each actor is added once, and a
turntable moves only the camera.

Files are written as every export is (:func:`~stratstone_cad.viewer.writer.publish`):
the target checked before anything is rendered, written whole or not at all into a
temporary file beside it, then renamed; a symbolic link is written through (the link
stays), a new file gets the permissions the umask allows.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import math
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from stratstone_cad.base.progress import ProgressBar
from stratstone_cad.errors import UserError
from stratstone_cad.viewer import DEFAULT_SIZE
from stratstone_cad.viewer.meshes import Asset, asset_mesh
from stratstone_cad.viewer.writer import check_frames, check_target, publish

__all__ = ["PlacedAsset", "contact_sheet", "layout", "render_still", "render_turntable", "show"]

BACKGROUND = "white"


class PlacedAsset:
    """An asset's mesh moved to its place in the scene."""

    def __init__(self, asset: Asset, offset: tuple[float, float]) -> None:
        self.asset = asset
        self.offset = offset
        mesh = asset_mesh(asset)
        self.vertices = mesh.vertices + np.array([offset[0], offset[1], 0.0])
        self.triangles = mesh.triangles

    def centre(self) -> tuple[float, float, float]:
        """The centre of its bounding box."""
        lo, hi = self.vertices.min(axis=0), self.vertices.max(axis=0)
        return tuple(float(x) for x in (lo + hi) / 2)  # type: ignore[return-value]

    def polydata(self) -> Any:
        return polydata(self)


def polydata(mesh: Any) -> Any:
    """A mesh (``vertices``, ``triangles``) as PyVista's PolyData."""
    # start-up speed: VTK only where something is rendered
    import pyvista as pv

    faces = np.hstack([np.full((len(mesh.triangles), 1), 3), mesh.triangles]).ravel()
    return pv.PolyData(mesh.vertices, faces)


#: How far above the horizon the camera looks down at the assets (degrees), from the front.
ELEVATION_DEG = 35.0


def layout(assets: Sequence[Asset], aspect: float = 16 / 9) -> list[PlacedAsset]:
    """The assets side by side in rows, in the order given, a gap a tenth of the largest
    apart, as many to a row as makes the block seen from the front (at :data:`ELEVATION_DEG`)
    nearest ``aspect`` wide to high. A row stands far enough in front of the one behind it
    that none of its parts hides a part behind it (a part ``h`` mm tall hides the ground
    ``h / tan(elevation)`` mm behind it)."""
    sized = []
    for a in assets:
        lo, hi = asset_mesh(a).bounds()
        sized.append((a, lo, hi))
    largest = max(max(hi[0] - lo[0], hi[1] - lo[1]) for _, lo, hi in sized)
    gap = 0.1 * largest
    hidden = 1 / math.tan(math.radians(ELEVATION_DEG))  # mm of ground hidden behind a part, per mm of its height

    def rows_of(per_row: int) -> list[list[tuple[Asset, Any, Any]]]:
        return [sized[i:i + per_row] for i in range(0, len(sized), per_row)]

    def pitches(rows: list[list[tuple[Asset, Any, Any]]]) -> list[float]:
        """From each row's back edge to the next's: its depth, a gap, and the ground the next
        row's tallest part hides."""
        depth = [max(hi[1] - lo[1] for _, lo, hi in r) for r in rows]
        tall = [max(hi[2] - lo[2] for _, lo, hi in r) for r in rows]
        return [depth[i] + gap + tall[i + 1] * hidden for i in range(len(rows) - 1)]

    def mismatch(per_row: int) -> float:
        rows = rows_of(per_row)
        width = max(sum(hi[0] - lo[0] for _, lo, hi in r) + gap * (len(r) - 1) for r in rows)
        deep = sum(pitches(rows)) + max(hi[1] - lo[1] for _, lo, hi in rows[-1])
        tall = max(hi[2] - lo[2] for _, lo, hi in sized)
        seen = deep * math.sin(math.radians(ELEVATION_DEG)) + tall * math.cos(math.radians(ELEVATION_DEG))
        return abs(math.log(width / max(seen, 1e-9) / aspect))

    rows = rows_of(min(range(1, len(sized) + 1), key=mismatch))
    out, y = [], 0.0
    for r, pitch in zip(rows, [*pitches(rows), 0.0], strict=True):
        x = 0.0
        for a, lo, hi in r:
            out.append(PlacedAsset(a, (x - lo[0], y - hi[1])))
            x += hi[0] - lo[0] + gap
        y -= pitch
    return out


def new_plotter(size: tuple[int, int], off_screen: bool = True, **kw: Any) -> Any:
    """A PyVista plotter; off screen, its render window is VTK's EGL one (Mesa's software
    OpenGL on a machine without a GPU) from the start, instead of an X window that VTK
    tries first and reports on stderr as a bad X server connection when there is no display."""
    # start-up speed: VTK only where something is rendered
    import pyvista as pv

    saved = os.environ.get("VTK_DEFAULT_OPENGL_WINDOW")
    if off_screen and saved is None and not os.environ.get("DISPLAY"):
        os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkEGLRenderWindow"
    try:
        return pv.Plotter(off_screen=off_screen, window_size=list(size), border=False, **kw)
    finally:
        if saved is None:
            os.environ.pop("VTK_DEFAULT_OPENGL_WINDOW", None)


def _plotter(size: tuple[int, int], off_screen: bool = True, shape: tuple[int, int] = (1, 1)) -> Any:
    p = new_plotter(size, off_screen, shape=shape)
    p.set_background(BACKGROUND)
    return p


def _add(p: Any, placed: Sequence[PlacedAsset]) -> None:
    for item in placed:
        p.add_mesh(item.polydata(), color=item.asset.colour, smooth_shading=True, split_sharp_edges=True,
                   specular=0.3, name=item.asset.name)


def _view(p: Any, placed: Sequence[PlacedAsset] = (), elevation: float = ELEVATION_DEG, fill: float = 0.9) -> None:
    """Looking down at ``elevation`` degrees from the front, everything in view: the
    bounding boxes of ``placed`` (every asset shown) fill ``fill`` of the frame's half-width
    or half-height from its centre, whichever they reach first, so none is cut at an edge."""
    p.camera_position = "xy"
    p.reset_camera()
    p.camera.elevation = -90 + elevation  # from straight above, tilted back towards the viewer
    p.camera.up = (0, 0, 1)
    p.reset_camera()
    if not placed:
        p.camera.zoom(1.2)
        return
    corners = [c for item in placed
               for c in itertools.product(*zip(item.vertices.min(axis=0), item.vertices.max(axis=0), strict=True))]
    w, h = p.window_size
    for _ in range(3):  # a perspective camera: centre, zoom, look again
        seen = np.array([project(p, c) for c in corners], dtype=float)
        middle = (seen.min(axis=0) + seen.max(axis=0)) / 2
        _pan(p, middle[0] - w / 2, middle[1] - h / 2)
        seen -= middle - (w / 2, h / 2)
        reach = max(np.abs(seen[:, 0] - w / 2).max() / (w / 2), np.abs(seen[:, 1] - h / 2).max() / (h / 2))
        p.camera.zoom(fill / reach)


def _pan(p: Any, dx: float, dy: float) -> None:
    """Move the camera (and what it looks at) so that what showed ``dx`` pixels right of and
    ``dy`` pixels below the frame's centre shows there."""
    r = p.renderer
    focal = np.array(p.camera.focal_point)
    r.SetWorldPoint(*focal, 1.0)
    r.WorldToDisplay()
    fx, fy, fz = r.GetDisplayPoint()
    r.SetDisplayPoint(fx + dx, fy - dy, fz)
    r.DisplayToWorld()
    x, y, z, w = r.GetWorldPoint()
    shift = np.array([x, y, z]) / w - focal
    p.camera.focal_point = tuple(focal + shift)
    p.camera.position = tuple(np.array(p.camera.position) + shift)


def project(p: Any, point: Sequence[float]) -> tuple[int, int]:
    """The pixel (column, row from the top) where ``point`` shows in the plotter's image."""
    r = p.renderer
    r.SetWorldPoint(*point, 1.0)
    r.WorldToDisplay()
    x, y, _ = r.GetDisplayPoint()
    return round(x), round(p.window_size[1] - 1 - y)


def render_still(assets: Sequence[Asset], out: Path,
                 size: tuple[int, int] = DEFAULT_SIZE) -> list[tuple[PlacedAsset, tuple[int, int]]]:
    """A PNG of the assets; returns each placed asset with the pixel its top's centre shows at.
    The target is checked before anything is rendered and written as every export is
    (:func:`~stratstone_cad.viewer.writer.publish`: through a link, with the umask)."""
    kind = check_target(out, (".png",), size)
    where: list[tuple[PlacedAsset, tuple[int, int]]] = []

    def still() -> Iterator[np.ndarray]:
        placed = layout(assets)
        p = _plotter(size)
        try:
            _add(p, placed)
            _view(p, placed)
            image = p.screenshot(None, return_img=True)
            for item in placed:
                x, y, _ = item.centre()
                where.append((item, project(p, (x, y, float(item.vertices[:, 2].max())))))
        finally:
            p.close()
        yield image

    publish(out, kind, still())
    return where


def render_turntable(assets: Sequence[Asset], out: Path, size: tuple[int, int] = (800, 600), frames: int = 36,
                     fps: int = 12, progress: ProgressBar | None = None) -> int:
    """A GIF or MP4 of the camera going once round the assets; returns the frames written.
    Written whole or not at all (:func:`~stratstone_cad.viewer.writer.publish`)."""
    kind = check_target(out, (".gif", ".mp4"), size)
    check_frames(out, kind, frames, size, fps, fewer="fewer --frames")
    bar = progress or ProgressBar(frames, sys.stderr, title=f"preview {out.name}", lines=False)
    return publish(out, kind, _turn(assets, size, frames), fps=fps, bar=bar)


def _turn(assets: Sequence[Asset], size: tuple[int, int], frames: int) -> Iterator[np.ndarray]:
    placed = layout(assets)
    p = _plotter(size)
    try:
        _add(p, placed)
        _view(p, placed)
        for _ in range(frames):
            p.camera.azimuth += 360.0 / frames
            p.render()
            yield p.screenshot(None, return_img=True)
    finally:
        p.close()


def contact_sheet(assets: Sequence[Asset], out: Path, cell: int = 260) -> tuple[int, int]:
    """A PNG of every asset on its own, labelled with its name (without the game's when all
    are of one game), in a grid; returns (rows, columns). Checked and written as
    :func:`render_still` is."""
    kind = check_target(out, (".png",), flag="--sheet")
    n = len(assets)
    cols = max(1, math.ceil(math.sqrt(n * 4 / 3)))
    rows = math.ceil(n / cols)

    def sheet() -> Iterator[np.ndarray]:
        p = _plotter((cols * cell, rows * cell), shape=(rows, cols))
        try:
            one_game = len({a.game for a in assets}) == 1  # then the label is the part's name alone
            for i, a in enumerate(assets):
                p.subplot(i // cols, i % cols)
                p.set_background(BACKGROUND)
                _add(p, layout([a]))
                _view(p)
                p.camera.zoom(0.8)  # room for the label
                p.add_text(a.name.split("/", 1)[1] if one_game else a.name, position="lower_edge", font_size=7,
                           color="black")
            image = p.screenshot(None, return_img=True)
        finally:
            p.close()
        yield image

    publish(out, kind, sheet(), flag="--sheet")
    return rows, cols


def need_display(command: str, instead: str) -> None:
    """Refuse in one line, before anything opens, a window there is no display for: no
    ``DISPLAY`` (or ``WAYLAND_DISPLAY``), or an X display that does not answer (VTK would
    only print a warning and show nothing). The X display is asked the way every X client
    asks it, by Xlib's ``XOpenDisplay``; without Xlib on the machine it is not asked.

    Raises:
        UserError: there is no display to open a window on.
    """
    display = os.environ.get("DISPLAY", "")
    if not (display or os.environ.get("WAYLAND_DISPLAY")):
        raise UserError(f"{command}: no display to open a window on; use {instead}")
    if display and not os.environ.get("WAYLAND_DISPLAY") and x_display_answers(display) is False:
        raise UserError(f"{command}: no X server answers at DISPLAY={display[:40]!r}; use {instead}")


def x_display_answers(display: str) -> bool | None:
    """Whether the X server at ``display`` accepts a connection; None when Xlib is missing."""
    name = ctypes.util.find_library("X11") or "libX11.so.6"
    try:
        xlib = ctypes.CDLL(name)
    except OSError:
        return None
    xlib.XOpenDisplay.restype = ctypes.c_void_p
    xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    xlib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    handle = xlib.XOpenDisplay(display.encode())
    if not handle:
        return False
    xlib.XCloseDisplay(handle)
    return True


def show(assets: Sequence[Asset]) -> None:
    """The interactive window (it needs a display)."""
    need_display("preview", "--out FILE.png (.gif, .mp4, .glb, .html) or --sheet FILE.png")
    p = _plotter((1280, 800), off_screen=False)
    placed = layout(assets)
    _add(p, placed)
    _view(p, placed)
    p.add_text("drag: orbit   scroll: zoom   r: reset view   q: quit", position="lower_left", font_size=9,
               color="black")
    p.show(title="stratstone-cad preview")
