"""The scene: the printed set on the table, its lights and camera, and the overlay.

The scene is the game's printed set: the board made for the log's game (the terrain from
the log's heightmap) and one actor per physical piece (each of Stratstone's 24 pebbles
its own mesh), placed with the board's own numbers (:class:`~stratstone_cad.assets.table.Table`).
Actors are added once; a frame only moves them (``SetPosition``) and shows or hides them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from stratstone_cad.base.colours import rgb
from stratstone_cad.base.processes import called_back
from stratstone_cad.errors import ParameterError, short_repr
from stratstone_cad.viewer.meshes import asset_mesh
from stratstone_cad.viewer.overlays.actors import Overlays
from stratstone_cad.viewer.overlays.text import font_px
from stratstone_cad.viewer.preview import BACKGROUND, new_plotter, polydata, project
from stratstone_cad.viewer.replay.dice import DiceActors
from stratstone_cad.viewer.replay.loading import GameOnTable, start_lines
from stratstone_cad.viewer.review_strip import caption_line

# the scene's look (docs/benchmarks.md has what each costs)
COLOUR_MODES = ("levels", "print")  # what --colours can be
LEVEL_COLOURS = ("#4e9a52", "#a6c964", "#ece38a", "#e0ad5c", "#b0764a", "#7f5f4f", "#d9d5ce")
"""Level 0 to 6 of a board of levels (the terrain generator's range): a map's tints, greens
low, sand and browns, pale rock high; one level one colour on every map, each clearly
unlike the next and unlike the pieces' red and blue and the marks' blue and orange."""
KEY_LIGHT = (-0.55, 0.3, 0.8)  # towards the one key light: from the left, a little behind, high up
KEY_INTENSITY, FILL_INTENSITY = 0.8, 0.45  # the key, and a headlight that fills the side the key leaves dark
SHADOW_OPACITY = 0.3  # how much light a shadow takes away
ELEVATIONS_FLAT = (34.0, 38.0, 42.0, 46.0, 50.0)  # degrees above the board the camera may look from
ELEVATIONS_LEVELS = (30.0, 32.0, 34.0)  # lower over a board of levels: the sides of the levels show
TEXT_LINES = 3  # the overlay's lines the camera keeps the board clear of at least (a move, the facts, the result)
#: The key of the marks (the caption's last lines) is drawn on an image at least this wide (the
#: default size): on a smaller one its text would shrink the board under it to a corner (a
#: 640 x 360 GIF's moves merged into still frames). The page always carries it.
KEY_MIN_WIDTH = 1280
CAPTION_SAMPLES = 200  # the plies whose captions are measured for the lines the camera keeps clear of
STILL_SCALE = 2  # a still is rendered this many times larger and averaged down (anti-aliasing)



# --------------------------------------------------------------------------- the scene


def _plotter(size: tuple[int, int], off_screen: bool, smooth: bool) -> Any:
    """A new plotter of ``size`` pixels; off screen and not ``smooth`` (an animation's
    frames), without multisampling (docs/benchmarks.md)."""
    # start-up speed: VTK only where something is rendered
    import pyvista as pv

    samples = pv.global_theme.multi_samples
    if off_screen and not smooth:  # an animation's frames: no multisampling (docs/benchmarks.md)
        pv.global_theme.multi_samples = 0
    try:
        return new_plotter(size, off_screen)
    finally:
        pv.global_theme.multi_samples = samples


def _view_points(rep: GameOnTable) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """What the camera frames (mm): the corners of the board's box (up to the tallest piece
    on the highest cell) and of the hands' spots, the corners of the cells' area (in order
    round it), the centre of the points on the board's underside, and their span across."""
    lo, hi = (np.asarray(b, float) for b in rep.board_bounds)
    tallest = max(rep.heights.values(), default=0.0)
    seats = np.array(list(rep.table.seats.values()), float).reshape(-1, 3)
    top = max(hi[2], float(seats[:, 2].max(initial=lo[2])) + tallest)
    r = rep.table.pitch_mm / 2  # a piece in hand reaches about half a cell round its spot
    boxes = [(lo, np.array([hi[0], hi[1], top]))]
    boxes += [(np.array([x - r, y - r, z]), np.array([x + r, y + r, z + tallest]))
              for x, y, z in [*rep.table.reserve.values(), *rep.table.dice]]  # the hands, the dice
    pts = np.concatenate([_box_edges(a, b) for a, b in boxes])
    cells = np.array([(x, y, hi[2]) for x in (seats[:, 0].min(initial=lo[0]) - r, seats[:, 0].max(initial=hi[0]) + r)
                      for y in (seats[:, 1].min(initial=lo[1]) - r, seats[:, 1].max(initial=hi[1]) + r)])[[0, 1, 3, 2]]
    centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
    centre[2] = lo[2]
    return pts, cells, centre, float(np.ptp(pts[:, :2], axis=0).max())


def _overlay(rep: GameOnTable, ply: int, done: bool = True) -> str:
    """The overlay's lines while ``ply`` is shown: its move and the engine's words for it;
    the facts after it (stones in hand, on the board, the score) and, after the last, the
    result, once it is ``done`` (before, the facts of the ply before, and the words without
    the result)."""
    if ply == 0:
        return "\n".join(start_lines(rep))
    p = rep.plies[ply - 1]
    head = f"ply {p.number}/{rep.count}   {p.player}   {p.move}"
    if p.dice:
        head += "   dice " + "-".join(str(d) for d in p.dice)
    if rep.puzzle and ply == rep.count and done:  # a puzzle's position: its task, after the ply that led to it
        return "\n".join([*rep.puzzle, f"the position after {head.replace('   ', ' ')}"])
    words = p.explain
    if rep.result and ply == rep.count:  # the result has its own line, the last, once the ply is done
        kept = []
        for w in words.split("; "):
            if w.endswith(rep.result):  # "line a1 b1 c1 d1: winner yellow (line of four)": the line stays
                w = w[:-len(rep.result)].rstrip(": ") if done else ""
            kept += [w] if w else []
        words = "; ".join(kept)
    lines = [head, words] if words else [head]
    facts = p.facts if done or ply == 1 else rep.plies[ply - 2].facts
    for k, v in facts.items():
        if isinstance(v, dict):
            lines.append(f"{k.replace('_', ' ')}: " + ", ".join(f"{a} {b}" for a, b in v.items()))
    if done and ply == rep.count and rep.result:
        lines.append(rep.result)
    if rep.review and done and ply:
        lines.append(caption_line(rep.review[ply - 1]))
    return "\n".join(lines)


class Scene:
    """The plotter with the board and one actor per piece, added once; :meth:`show` moves
    them to a ply and a time within it.

    The look, made to read at a glance: a board of levels coloured by level with a legend
    of the levels in the upper right corner (``colours="levels"``; ``"print"``: every part
    in its print colour); one key light from the upper left with a headlight to fill, and
    under each piece its shadow from the key light (a flat footprint that follows the
    piece, see :meth:`_shade`); the camera framed on the board and the pieces (:meth:`_view`).
    VTK's own shadows (a shadow-map pass) are used nowhere, not even in stills: on software
    OpenGL they double a frame's cost, VTK 9.6 draws them wrong in a window that is not
    square, and their shader fails for an unlit actor (docs/benchmarks.md); the footprints
    cost no more than the noise of a measurement."""

    def __init__(self, rep: GameOnTable, size: tuple[int, int], off_screen: bool = True, smooth: bool = True,
                 colours: str = "levels", scale: int = 1, reach: bool = False,
                 captions: Sequence[int] | None = None) -> None:
        """``size``: the image's width and height in pixels; ``smooth``: multisampled (off
        screen, an animation's frames are not: docs/benchmarks.md); ``colours``: one of
        :data:`COLOUR_MODES`; ``scale``: the scene is rendered that many times larger and
        :meth:`image` averages each block of scale x scale pixels into one (a still's
        anti-aliasing); ``reach``: light the squares the piece to move could reach
        (:class:`~stratstone_cad.viewer.overlays.actors.Overlays`); ``captions``: the plies that
        will be shown (default: every one), whose captions, wrapped, the camera keeps the
        board clear of (:meth:`_caption_lines`)."""
        if colours not in COLOUR_MODES:
            raise ParameterError(f"--colours {short_repr(colours)}: expected {' or '.join(COLOUR_MODES)}")
        self.rep, self.size, self.scale = rep, size, scale
        self.p = _plotter((size[0] * scale, size[1] * scale), off_screen, smooth)
        self.p.set_background(BACKGROUND)
        table = rep.table
        self.levels = level_colours(table.levels.values()) if colours == "levels" else {}
        self._add_board()
        self.actors: dict[str, Any] = {}
        self.shadows: dict[str, Any] = {}
        self._add_pieces()
        self.dice = DiceActors(self.p, rep)  # a game's dice, each ply's roll face up
        # the shadows blend in VTK's plain translucent pass: its order-independent one, the
        # default, cost about 30 % more a frame (docs/benchmarks.md)
        self.p.renderer.SetUseOIT(False)
        self.cells = Cells(table)
        # where a piece off the cells casts its shadow: on the rim over the board, else the table
        self.rim = min((table.tops.get(sq, z) for sq, (_, _, z) in table.seats.items()),
                       default=float(rep.board_bounds[1][2]))
        self._light()
        self.p.renderer.AddObserver("StartEvent", self._on_render)  # every render, the window's too
        pitch = table.pitch_mm
        frame = _frame(pitch)
        self.marks = [self.p.add_mesh(frame, color=c, name=f"mark-{i}", lighting=False)
                      for i, c in enumerate(("#2f6fdf", "#f08c00"))]
        self.overlays = Overlays(self.p, rep, size, scale, reach)  # the caption and the drawings that explain a ply
        self.keep_out = [self._legend()] if self.levels else []
        self.overlays.caption.clear_of(self.keep_out)
        lines = self._caption_lines(range(rep.count + 1) if captions is None else captions)
        self.keep_out.insert(0, (0.0, 0.0, 0.5 * size[0] * scale, self.overlays.caption.height(lines)))
        self.bottom = 0.01 if off_screen else 0.12  # the window's slider and help line are at its bottom
        self._view()
        self.ply = -1
        self.shown: tuple[int, bool] = (-1, False)

    def _add_board(self) -> None:
        """The board's actor: coloured by level (:attr:`levels`), or else in its print colour."""
        board = self.rep.assets[self.rep.table.board]
        mesh = asset_mesh(board)
        if self.levels:
            shown, texture = _level_texture(mesh, self.rep.table, self.levels, board.colour)
            self.p.add_mesh(shown, texture=texture, smooth_shading=True, specular=0.2, name="board")
        else:
            self.p.add_mesh(polydata(mesh), color=board.colour, smooth_shading=True, split_sharp_edges=True,
                            specular=0.2, name="board")

    def _add_pieces(self) -> None:
        """An actor for each piece (:attr:`actors`) and its shadow (:attr:`shadows`), one
        footprint a kind of piece."""
        rep = self.rep
        footprints: dict[str, Any] = {}
        for pid in rep.pieces:
            asset = rep.assets[rep.table.assets[pid]]
            self.actors[pid] = self.p.add_mesh(polydata(asset_mesh(asset)), color=asset.colour, smooth_shading=True,
                                               split_sharp_edges=True, specular=0.3, name=pid)
            if asset.name not in footprints:
                footprints[asset.name] = _footprint(asset_mesh(asset), rep.anchors[pid])
            self.shadows[pid] = self.p.add_mesh(footprints[asset.name], color="black", opacity=SHADOW_OPACITY,
                                                lighting=False, name=f"shadow-{pid}")

    def _caption_lines(self, plies: Sequence[int]) -> int:
        """The most lines the caption takes, wrapped to its room, over ``plies`` (at most
        :data:`CAPTION_SAMPLES` of them, evenly spread, and the last), and
        :data:`TEXT_LINES` at least: the larger text of a small image wraps a long ply's words
        onto more lines, which the board is kept clear of."""
        plies = list(plies)
        if len(plies) > CAPTION_SAMPLES:
            step = len(plies) / CAPTION_SAMPLES
            plies = sorted({plies[int(i * step)] for i in range(CAPTION_SAMPLES)} | {plies[-1]})
        caption = self.overlays.caption
        return max([TEXT_LINES, *(caption.wrap(self._text(ply, True)).count("\n") + 1 for ply in plies)])

    def _text(self, ply: int, done: bool) -> str:
        """The caption of ``ply``: what :func:`_overlay` says, then the key of the marks drawn."""
        if self.p.window_size[0] < KEY_MIN_WIDTH:
            return _overlay(self.rep, ply, done)
        key = self.overlays.key(self.rep.plies[ply - 1] if ply else None)
        return _overlay(self.rep, ply, done) + (f"\n{key}" if key else "")

    def _view(self) -> None:
        """Look at the board and the pieces in play from the first player's side, as large
        as the image allows: the board (its rim's labels too), the tallest piece standing
        on its highest cell and the hands beside it fill the width or reach the bottom,
        clear of :attr:`keep_out` (the overlay's lines in the upper left, the legend in the
        upper right). Of the heights the camera may look from (:data:`ELEVATIONS_FLAT`;
        a board of levels lower, :data:`ELEVATIONS_LEVELS`, so that the sides of its levels
        show), the one where the cells come out largest: a wide scene (the hands beside
        Stratstone's board) is seen from higher, a deep board (Sage Stones') from lower."""
        rep = self.rep
        pts, cells, centre, span = _view_points(rep)
        cam = self.p.camera
        cam.view_angle = 30.0
        w, h = self.p.window_size
        margin = 0.01 * w

        def place(elev: float, dist: float) -> np.ndarray:
            """The camera ``elev`` degrees up and ``dist`` from the board, moved across and
            up so that the scene is centred across the image and its lowest point is at the
            bottom margin; returns the pixels the points show at."""
            offset = np.array([0.0, -math.cos(math.radians(elev)), math.sin(math.radians(elev))])
            up = np.array([0.0, math.sin(math.radians(elev)), math.cos(math.radians(elev))])  # the image's up
            focal = centre.copy()
            for _ in range(4):  # perspective: a move shifts near and far points unequally
                cam.focal_point = tuple(focal)
                cam.position = tuple(focal + dist * offset)
                cam.up = (0.0, 0.0, 1.0)
                px = self._pixels(pts)
                per_px = 2 * dist * math.tan(math.radians(cam.view_angle) / 2) / h  # mm a pixel at the focal point
                across = w / 2 - (px[:, 0].min() + px[:, 0].max()) / 2
                down = h * (1 - self.bottom) - px[:, 1].max()
                focal += per_px * (-across * np.array([1.0, 0.0, 0.0]) + down * up)
            return px

        def fits(px: np.ndarray) -> bool:
            if px[:, 0].min() < margin or px[:, 0].max() > w - margin or px[:, 1].min() < margin:
                return False
            return not any(((px[:, 0] > x0) & (px[:, 0] < x1) & (px[:, 1] > y0) & (px[:, 1] < y1)).any()
                           for x0, y0, x1, y1 in self.keep_out)

        def nearest(elev: float) -> tuple[float, float]:
            """The nearest camera at ``elev`` that fits (by bisection), and the area in pixels the cells cover."""
            near, far = 0.5 * span, 4.0 * span
            for _ in range(14):
                mid = (near + far) / 2
                if fits(place(elev, mid)):
                    far = mid
                else:
                    near = mid
            place(elev, far)
            x, y = self._pixels(cells).T
            return far, 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))  # the shoelace formula

        choices = {elev: nearest(elev) for elev in (ELEVATIONS_LEVELS if rep.table.levels else ELEVATIONS_FLAT)}
        elev = max(choices, key=lambda e: choices[e][1])
        place(elev, choices[elev][0])
        self.p.renderer.ResetCameraClippingRange()

    def _pixels(self, points: np.ndarray) -> np.ndarray:
        """Where ``points`` (n x 3, mm) show in the render window: (column, row from the top), unrounded."""
        w, h = self.p.window_size
        m = self.p.camera.GetCompositeProjectionTransformMatrix(w / h, -1, 1)
        proj = np.array([[m.GetElement(i, j) for j in range(4)] for i in range(4)])
        q = np.c_[points, np.ones(len(points))] @ proj.T
        ndc = q[:, :2] / q[:, 3:4]
        return np.c_[(ndc[:, 0] + 1) / 2 * w, (1 - ndc[:, 1]) / 2 * h]

    def _light(self) -> None:
        """One key light, fixed over the board (:data:`KEY_LIGHT`: the shadows fall away from
        it, to the right and towards the near side where they show), and a headlight that
        follows the camera so that no side is black."""
        # start-up speed: VTK only where something is rendered
        import pyvista as pv

        lo, hi = (np.asarray(b, float) for b in self.rep.board_bounds)
        centre = (lo + hi) / 2
        key = np.array(KEY_LIGHT) / np.linalg.norm(KEY_LIGHT)
        self.p.remove_all_lights()
        self.p.add_light(pv.Light(position=tuple(centre + 10 * float(np.ptp(hi - lo)) * key), focal_point=tuple(centre),
                                  intensity=KEY_INTENSITY, light_type="scene light"))
        self.p.add_light(pv.Light(light_type="headlight", intensity=FILL_INTENSITY))

    @called_back  # by VTK: a stop (Ctrl-C, SIGTERM) raised in here would end the process
    def _on_render(self, *_: Any) -> None:
        """The renderer's StartEvent: the shading of what the camera now sees."""
        self._shade()

    def _shade(self) -> None:
        """Each piece's shadow, wherever :meth:`show` put the piece: its footprint moved away
        from the key light by the piece's height above the ground the shadow falls on (a
        cell's surface, the rim over the board, else the table), found where the shadow
        lands; so a shadow slides off as its piece rises, and one cast off the board falls
        to the table. Run before every render (the pieces at once: a tenth of a millisecond)."""
        key = np.array(KEY_LIGHT) / np.linalg.norm(KEY_LIGHT)
        away = -key[:2] / key[2]  # mm across for each mm of height
        shown = [pid for pid, actor in self.actors.items() if actor.GetVisibility()]
        for pid in self.shadows.keys() - set(shown):
            self.shadows[pid].SetVisibility(False)
        if not shown:
            return
        at = np.array([self.actors[pid].GetPosition() for pid in shown]) + np.array([self.rep.anchors[p] for p in shown])
        xy, z = at[:, :2], at[:, 2]
        ground = self._ground(xy)
        for _ in range(2):  # the ground where the shadow lands, not under the piece
            ground = self._ground(xy + np.outer(z - ground, away))
        lands = xy + np.outer(z - ground, away)
        for pid, (sx, sy), g in zip(shown, lands, ground, strict=True):
            self.shadows[pid].SetPosition(sx, sy, g + 0.05)  # just above: never lost in the ground
            self.shadows[pid].SetVisibility(True)

    def _ground(self, xy: np.ndarray) -> np.ndarray:
        """The height of what a shadow falls on at each point (n x 2, mm): a cell's surface
        (a square's top beside its recess or well, a terrain cell's top), the rim over the
        board, else the table."""
        lo, hi = self.rep.board_bounds
        k = self.cells.at(xy)
        over = (xy >= np.asarray(lo)[:2]).all(axis=1) & (xy <= np.asarray(hi)[:2]).all(axis=1)
        return np.where(k >= 0, self.cells.top[np.maximum(k, 0)], np.where(over, self.rim, float(lo[2])))

    def _legend(self) -> tuple[float, float, float, float]:
        """The levels' key in the upper right corner: "level" over a swatch of each level's
        colour beside its number, the highest on top. Returns the rectangle it covers
        (left, top, right, bottom: pixels of the render window from its upper left)."""
        # start-up speed: VTK only where something is rendered
        import pyvista as pv
        from vtkmodules.vtkRenderingCore import vtkActor2D, vtkPolyDataMapper2D, vtkTextActor

        w, h = self.p.window_size
        font = font_px(self.size, 28, self.scale)  # pixels: 20 at 640 x 360, 26 at 1280 x 720
        row, side, margin = 1.3 * font, 0.9 * font, 0.5 * font
        right = w - margin
        left = right - 1.4 * font - 0.35 * font - side  # two digits, a gap, the swatch
        order = sorted(self.levels, reverse=True)

        def text(line: str, x: float, y: float, right_aligned: bool = False) -> Any:
            actor = vtkTextActor()
            actor.SetInput(line)
            prop = actor.GetTextProperty()
            prop.SetFontSize(font)
            prop.SetColor(0.0, 0.0, 0.0)
            prop.SetVerticalJustificationToCentered()
            if right_aligned:
                prop.SetJustificationToRight()
            actor.SetPosition(x, h - y)  # VTK counts rows from the bottom
            return actor

        self.p.add_actor(text("level", right, margin + row / 2, right_aligned=True), reset_camera=False, name="legend-title",
                         pickable=False)
        quads = []
        for i, level in enumerate(order):
            y = margin + row * (i + 1.5)
            self.p.add_actor(text(str(level), left + side + 0.35 * font, y), reset_camera=False, name=f"legend-{level}",
                             pickable=False)
            quads.append([(left, h - y - side / 2), (left + side, h - y - side / 2), (left + side, h - y + side / 2),
                          (left, h - y + side / 2)])
        corners = np.array(quads, float).reshape(-1, 2)
        swatches = pv.PolyData(np.c_[corners, np.zeros(len(corners))],
                               np.hstack([[4, 4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3] for i in range(len(order))]))
        swatches.cell_data["colour"] = np.array([rgb(self.levels[lv]) for lv in order], np.uint8)
        mapper = vtkPolyDataMapper2D()
        mapper.SetInputData(swatches)
        mapper.SetScalarModeToUseCellData()
        mapper.SetColorModeToDirectScalars()
        actor = vtkActor2D()
        actor.SetMapper(mapper)
        self.p.add_actor(actor, reset_camera=False, name="legend-swatches", pickable=False)
        return (left - margin, 0.0, float(w), margin + row * (len(order) + 1) + margin)

    def show(self, ply: int, u: float = 1.0) -> None:
        """The scene ``u`` of the way through ``ply`` (``u`` = 1: the position after it; ply 0: the start)."""
        rep = self.rep
        where = rep.rest(ply) if ply == 0 or u >= 1.0 else rep.at(ply, u)
        for pid, actor in self.actors.items():
            pos = where.get(pid)
            if pos is None:
                actor.SetVisibility(False)
            else:
                a = rep.anchors[pid]
                actor.SetPosition(pos[0] - a[0], pos[1] - a[1], pos[2] - a[2])
                actor.SetVisibility(True)
        self.dice.show(ply)
        done = ply == 0 or u >= 1.0
        if (ply, done) != self.shown:
            self.overlays.show(ply, done, self._text(ply, done))
            self.shown = (ply, done)
        if ply != self.ply:
            squares = rep.plies[ply - 1].squares if ply else ()
            for i, mark in enumerate(self.marks):
                sq = squares[i] if i < len(squares) else None
                if sq is None or (i == 1 and len(squares) == 1):
                    mark.SetVisibility(False)
                    continue
                x, y, z = rep.table.seats[sq]
                mark.SetPosition(x, y, rep.table.tops.get(sq, z) + 0.5)  # clear of the surface at any size
                mark.SetVisibility(True)
            self.ply = ply

    def image(self) -> np.ndarray:
        """The scene as shown, rendered: ``size`` RGB pixels, each the average of a block of
        scale x scale rendered ones (anti-aliased, when ``scale`` > 1)."""
        self.p.render()
        image = self.p.screenshot(None, return_img=True)
        s = self.scale
        if s > 1:
            w, h = self.size
            blocks = image[:h * s, :w * s].reshape(h, s, w, s, -1).sum(axis=(1, 3), dtype=np.uint32)
            image = ((blocks + s * s // 2) // (s * s)).astype(np.uint8)
        return image

    def project(self, point: Sequence[float]) -> tuple[int, int]:
        """The pixel of :meth:`image` (column, row from the top) where ``point`` (mm) shows."""
        col, row = project(self.p, point)
        return col // self.scale, row // self.scale

    def close(self) -> None:
        self.p.close()


def _box_edges(lo: np.ndarray, hi: np.ndarray, n: int = 9) -> np.ndarray:
    """Points along the 12 edges of the box from ``lo`` to ``hi`` (n a side): its outline
    in the image passes through them, so a corner of the image it must keep clear of
    cannot slip between its corners."""
    t = np.linspace(0.0, 1.0, n)
    out = []
    for axis in range(3):
        others = [k for k in range(3) if k != axis]
        for a in (lo[others[0]], hi[others[0]]):
            for b in (lo[others[1]], hi[others[1]]):
                edge = np.empty((n, 3))
                edge[:, axis] = lo[axis] + (hi[axis] - lo[axis]) * t
                edge[:, others[0]], edge[:, others[1]] = a, b
                out.append(edge)
    return np.concatenate(out)

def _frame(pitch: float) -> Any:
    """A square frame one cell wide, 0.09 of it thick: marks a square without hiding it."""
    # start-up speed: VTK only where something is rendered
    import pyvista as pv

    o, i = pitch / 2 - 0.5, pitch / 2 - 0.5 - 0.09 * pitch
    pts = np.array([[-o, -o, 0], [o, -o, 0], [o, o, 0], [-o, o, 0], [-i, -i, 0], [i, -i, 0], [i, i, 0], [-i, i, 0]], float)
    quads = [(0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    return pv.PolyData(pts, np.hstack([[4, *q] for q in quads]))


def level_colours(levels: Iterable[int]) -> dict[int, str]:
    """The colour of each level a board has (``#RRGGBB``): a level from 0 to 6 (the terrain
    generator's) its own :data:`LEVEL_COLOURS` entry, so that a level reads the same on
    every map; a map with higher levels (a map file's go up to 20) spreads the levels it
    has, in order, along the palette (still one colour a level, closer together)."""
    present = sorted(set(levels))
    if not present:
        return {}
    if present[-1] < len(LEVEL_COLOURS):
        return {lv: LEVEL_COLOURS[lv] for lv in present}
    ramp = np.array([rgb(c) for c in LEVEL_COLOURS])
    out = {}
    for i, lv in enumerate(present):
        t = i / max(len(present) - 1, 1) * (len(ramp) - 1)
        k = min(int(t), len(ramp) - 2)
        out[lv] = "#" + "".join(f"{round(v):02x}" for v in ramp[k] + (ramp[k + 1] - ramp[k]) * (t - k))
    return out


class Cells:
    """The board's cells as a grid of squares, to find the cell a point is over (the seats
    are the cells' centres, one pitch apart) and the height of its surface (``top``)."""

    def __init__(self, table: Any) -> None:
        self.squares = list(table.seats)
        seats = np.array([table.seats[sq] for sq in self.squares], float).reshape(-1, 3)
        self.pitch = table.pitch_mm
        self.origin = seats[:, :2].min(axis=0) if len(seats) else np.zeros(2)
        at = np.rint((seats[:, :2] - self.origin) / self.pitch).astype(int)
        self.index = np.full(tuple(at.max(axis=0) + 1) if len(at) else (0, 0), -1)
        self.index[at[:, 0], at[:, 1]] = np.arange(len(self.squares))
        self.top = np.array([table.tops.get(sq, z) for sq, z in zip(self.squares, seats[:, 2], strict=True)])

    def at(self, xy: np.ndarray) -> np.ndarray:
        """For each point (n x 2, mm) the index of the square whose cell it is over, -1 off the cells."""
        k = np.rint((xy - self.origin) / self.pitch).astype(int)
        inside = (k >= 0).all(axis=1) & (k < self.index.shape).all(axis=1)
        out = np.full(len(xy), -1)
        out[inside] = self.index[k[inside, 0], k[inside, 1]]
        return out


def _level_texture(mesh: Any, table: Any, colours: Mapping[int, str], base: str) -> tuple[Any, Any]:
    """A board of levels as a mesh with texture coordinates and its texture: one texel a
    cell in its level's colour, a border of texels in the board's print colour for the rest
    (the rim, its labels, its edges), sampled without interpolation. A cell's colour is
    then exact to its edges whatever the triangles (the base plate's cross cells and rim),
    and the sides of a column take the colour of the cell they face away from: each point
    is looked up a little behind its normal (points split at sharp edges, so a side's
    points are not its top's)."""
    # start-up speed: VTK only where something is rendered
    import pyvista as pv

    shown = polydata(mesh).compute_normals(split_vertices=True, feature_angle=30.0, cell_normals=False,
                                           auto_orient_normals=False, consistent_normals=False)
    cells = Cells(table)
    pitch = cells.pitch
    cols, rows = cells.index.shape
    image = np.empty((rows + 2, cols + 2, 3), np.uint8)
    image[:] = rgb(base)
    for c in range(cols):
        for r in range(rows):
            k = cells.index[c, r]
            if k >= 0:
                image[r + 1, c + 1] = rgb(colours[table.levels[cells.squares[k]]])
    xy = np.asarray(shown.points)[:, :2] - 0.02 * pitch * np.asarray(shown.point_data["Normals"])[:, :2]
    corner = cells.origin - 1.5 * pitch  # the lower left corner of the border's first texel
    shown.active_texture_coordinates = (xy - corner) / (np.array([cols + 2, rows + 2]) * pitch)
    texture = pv.Texture(image[::-1])  # an image's first row is its top: the texture's last
    texture.interpolate = False
    texture.repeat = False
    return shown, texture


def _footprint(mesh: Any, anchor: np.ndarray) -> Any:
    """A piece's shadow on the ground it stands on, lit by the key light: the outline of its
    mesh projected along the light onto the plane of its bottom (the convex hull: pieces
    are convex or nearly so), as a flat polygon about the piece's anchor."""
    # start-up speed: VTK only where something is rendered
    import pyvista as pv

    key = np.array(KEY_LIGHT) / np.linalg.norm(KEY_LIGHT)
    v = mesh.vertices - anchor
    hull = _hull(v[:, :2] - np.outer(v[:, 2], key[:2] / key[2]))
    n = len(hull)
    return pv.PolyData(np.c_[hull, np.zeros(n)], np.r_[n, np.arange(n)]).triangulate()


def _hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of 2D points, counter-clockwise (Andrew's monotone chain)."""
    pts = np.unique(np.round(points, 3), axis=0)  # sorted by x, then y

    def half(ps: Iterable[np.ndarray]) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for p in ps:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])
