"""What the replay draws over its scene to say why a ply is what it is, as the games' own
apps do: the ply in words, and on the board what the rules counted.

- The caption (upper left): the move, the engine's explanation of it
  (:meth:`~stratstone_cad.engine.protocol.Game.explain`, wrapped to the image's width), the
  facts after it and, at the end, the result; on a white panel, so that it reads over the
  board where a long explanation reaches it.
- The terrain game: the path walked, a tube over the cells' tops climbing each step, with
  each step's cost at the cell it enters (a Runner's jump or diagonal step an arc, named);
  an exit leaves over the rim. An attack puts a halo over the attacker's square and one
  over the defender's, each with its sum beside it (the terms are in the caption). With
  ``reach`` (the app's "Try it"), the squares the piece to move could have reached, lit,
  each with its cost; its special moves starred; its exit an arrow on the rim.
- Sage Stones: the column the dice allow, a translucent band with an outline over its
  wells; each trap a line from the gem placed to the far one, over the gems it traps
  (drawn from the start of the ply: before they lift away).
- Stratstone: the sowing path from the stack picked up, on the board between the stacks,
  each sown square numbered; at the end, a ring round the top stone of each square of the
  winning line(s) and a band across their squares.

Where the drawings go is worked out without VTK (:class:`Plan`, a ply's :class:`Drawing`):
the window draws them with VTK (:class:`Overlays`), the shared page with three.js from the
glTF's extras (:mod:`~stratstone_cad.viewer.gltf`).

No drawing covers the top of a piece at rest (a bar across Stratstone's stacks would hide
the colours that make the line): the drawings go round pieces, under them, or over their
heads. Everything is read from the ply's events (the rules' own numbers, never counted
again here) and, for the reach, from the engine's ``reach`` of the state before the ply.
The actors are added once; a new ply sets a few small meshes and labels into them, a
frame within a ply changes nothing but the caption (and the winning line, at the end).

Colours: magenta for what the move does (its path, a trap, the attacker's halo and sum),
cyan for what it is measured against or aims at (the defender, the allowed column, the
winning line, a special move), white for the squares within reach. On the boards (greens,
sand, browns, pale rock, print grey) and the pieces (red, blue, yellow, tan, the gems)
neither is near any colour in use, nor near the from and to marks' blue and orange.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from stratstone_cad.base.params import rgb
from stratstone_cad.engine.events import Attacked, DiceRolled, Exited, GameOver, Moved, Placed, Sown, Trapped
from stratstone_cad.errors import GameError, LogError, short_repr

__all__ = ["Caption", "Drawing", "Option", "Overlays", "Plan", "options"]

PATH_COLOUR = "#e6007e"  # magenta: the move's path, the sowing, a trap, the attacker
MARK_COLOUR = "#00c4ee"  # cyan: the defender, the allowed column, the winning line, a special move
REACH_COLOUR = "#ffffff"  # white: a square within reach, lit
BAND_OPACITY = 0.35  # the allowed column's fill
REACH_OPACITY = 0.55  # a reachable square's light
GHOST_COLOUR = "#7cff3a"  # green: the best move, where the review classes the played one a mistake or a blunder
GHOST_OPACITY = 0.6
GHOSTED = ("mistake", "blunder")  # the classes whose ply shows the best move as a ghost
PANEL_OPACITY = 0.72  # the caption's white panel
TUBE = 0.07  # a path's radius, in cell pitches
RING = 0.47  # a winning stack's ring's radius, in cell pitches: round a stone as wide as its recess
RING_TUBE = 0.04  # its thickness (the tube's radius), in cell pitches
HALO = 0.3  # the radius of the ring over an attacker's or a defender's head, in cell pitches
HALO_TUBE = 0.045  # its thickness, in cell pitches
LIFT_MM = 0.4  # how far a drawing keeps above the surface it is drawn on
END = 0.42  # how far a trap's line stops short of the centres of the gems at its ends, in cell pitches


class Option(NamedTuple):
    """One move the piece to move had (the reach): the ``square`` it ends on (an exit: the
    square it leaves the board from), its ``cost`` as the rules word it (``"3 points"``,
    ``"jump"``) and its ``kind``: ``"move"``, ``"attack"``, ``"exit"`` or ``"special"`` (a
    step that ignores height)."""

    square: str
    cost: str
    kind: str


def options(before: Any, events: Sequence[Any]) -> tuple[Option, ...]:
    """The moves the piece that moves in a ply (``events``) had in ``before``, the state
    before it: the engine's ``reach`` of its square, each move played on ``before`` to read
    where it ends from its own events (a walk's last square, an exit's edge square). Empty
    for a game whose moves have no cost and for a ply that moves no piece."""
    square = next((e.path[0] for e in events if isinstance(e, Moved)), None) or next(
        (e.square for e in events if isinstance(e, Exited)), None)
    moves = before.reach(square) if square is not None else None
    out = []
    for text, cost in moves or ():
        _, played = before.apply(text)
        exited = next((e.square for e in played if isinstance(e, Exited)), None)
        walks = [e for e in played if isinstance(e, Moved)]
        if exited is not None:
            out.append(Option(exited, cost, "exit"))
        elif any(isinstance(e, Attacked) for e in played):
            out.append(Option(walks[-1].path[-1], cost, "attack"))
        elif walks:
            out.append(Option(walks[-1].path[-1], cost, "special" if walks[-1].special else "move"))
    return tuple(out)


# --------------------------------------------------------------------------- text


def _rgb(colour: str) -> tuple[float, float, float]:
    r, g, b = rgb(colour)
    return r / 255, g / 255, b / 255


def _ink(colour: str) -> tuple[float, float, float]:
    """Black or white, whichever reads on ``colour``."""
    r, g, b = _rgb(colour)
    return (0.0, 0.0, 0.0) if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else (1.0, 1.0, 1.0)


#: The smallest font size (VTK's, pixels) of any text drawn over a scene: its letters stand
#: 14 px or more from a capital's top to the baseline, readable in a 640 x 360 GIF.
MIN_FONT_PX = 20


def font_px(size: tuple[int, int], per_height: float, scale: int = 1) -> int:
    """A font size in pixels for an image ``size`` (width, height) rendered ``scale`` times
    larger: a ``per_height``-th of its height, and :data:`MIN_FONT_PX` at least from 360 px
    high up (a smaller image, a thumbnail, keeps its scene: 12 px at least)."""
    return round(max(size[1] / per_height, min(float(MIN_FONT_PX), max(12.0, size[1] / 18))) * scale)


class Caption:
    """The overlay's lines in the upper left corner, at a fixed size in pixels (VTK's
    corner annotation, used before, shrinks its text to keep a line within half the image
    and draws nothing past about 90 characters). A line wider than the room is wrapped: at
    its "; " first (an explanation's parts: the walk, the attack, the capture), then
    between words."""

    def __init__(self, plotter: Any, size: tuple[int, int], scale: int = 1) -> None:
        """``size``: the image's width and height; ``scale``: the render's factor over it."""
        # start-up speed: VTK only where something is rendered
        import vtkmodules.vtkRenderingFreeType  # noqa: F401 - the text renderer's FreeType implementation
        from vtkmodules.vtkRenderingCore import vtkTextActor, vtkTextRenderer

        self.p = plotter
        w, h = size[0] * scale, size[1] * scale
        self.font = font_px(size, 30, scale)  # pixels: 20 at 640 x 360, 24 at 1280 x 720
        self.margin = 0.8 * self.font  # clear of the image's corner
        self.right = w - self.margin  # where a line must end
        self.actor = vtkTextActor()
        prop = self.actor.GetTextProperty()
        prop.SetFontSize(self.font)
        prop.SetColor(0.0, 0.0, 0.0)
        prop.SetBackgroundColor(1.0, 1.0, 1.0)
        prop.SetBackgroundOpacity(PANEL_OPACITY)
        prop.SetVerticalJustificationToTop()
        self.actor.SetPosition(self.margin, h - self.margin)
        plotter.add_actor(self.actor, reset_camera=False, name="overlay-caption", pickable=False)
        self.measure = vtkTextRenderer()
        self.text: str | None = None

    def set(self, text: str) -> None:
        """Show ``text`` (lines), each wrapped to the room."""
        if text != self.text:
            self.actor.SetInput(self.wrap(text))
            self.text = text

    def clear_of(self, boxes: Iterable[tuple[float, float, float, float]]) -> None:
        """Wrap the lines short of the boxes (left, top, right, bottom in pixels from the
        upper left) that reach the caption's corner: the legend of levels."""
        for left, top, _, _ in boxes:
            if top < 8 * self.font:
                self.right = min(self.right, left - self.margin)

    def width(self, line: str) -> int:
        """``line``'s width in pixels, as the caption draws it."""
        box = [0, 0, 0, 0]
        self.measure.GetBoundingBox(self.actor.GetTextProperty(), line or " ", box, self.p.ren_win.GetDPI())
        return box[1] - box[0] + 1

    def height(self, lines: int) -> float:
        """The height in pixels of ``lines`` lines, from the image's top edge."""
        box = [0, 0, 0, 0]
        self.measure.GetBoundingBox(self.actor.GetTextProperty(), "\n".join(["Ag"] * lines), box, self.p.ren_win.GetDPI())
        return self.margin + box[3] - box[2] + 1

    def wrap(self, text: str) -> str:
        """``text`` with each line wrapped to the room (a line is measured with the ";" it
        may end with)."""
        room = self.right - self.margin
        out: list[str] = []
        for line in text.split("\n"):
            current = ""
            for part in line.split("; "):
                joined = f"{current}; {part}" if current else part
                if self.width(joined + ";") <= room:
                    current = joined
                    continue
                if current:
                    out.append(current + ";")
                current = ""
                for word in part.split(" "):
                    joined = f"{current} {word}" if current else word
                    if current and self.width(joined + ";") > room:
                        out.append(current)
                        joined = word
                    current = joined
            out.append(current)
        return "\n".join(out)


class Labels:
    """Short labels at points of the scene, drawn over it as chips (the text on a filled
    box, ``colour``), all of one look: one actor for any number, set anew per ply."""

    def __init__(self, plotter: Any, name: str, font: int, colour: str) -> None:
        # start-up speed: VTK only where something is rendered
        from vtkmodules.vtkRenderingCore import vtkActor2D
        from vtkmodules.vtkRenderingLabel import vtkLabeledDataMapper

        self.mapper = vtkLabeledDataMapper()
        self.mapper.SetLabelModeToLabelFieldData()
        self.mapper.SetFieldDataName("label")
        prop = self.mapper.GetLabelTextProperty()
        prop.SetFontSize(font)
        prop.SetBold(True)
        prop.SetItalic(False)
        prop.SetShadow(False)
        prop.SetColor(*_ink(colour))
        prop.SetBackgroundColor(*_rgb(colour))
        prop.SetBackgroundOpacity(1.0)
        prop.SetJustificationToCentered()
        prop.SetVerticalJustificationToCentered()
        self.actor = vtkActor2D()
        self.actor.SetMapper(self.mapper)
        self.actor.SetVisibility(False)
        plotter.add_actor(self.actor, reset_camera=False, name=name, pickable=False)
        self.shown: list[tuple[tuple[float, float, float], str]] = []

    def set(self, items: Sequence[tuple[Sequence[float], str]], side: str = "") -> None:
        """Label each point (mm) with its text, centred on it, or on its ``side``
        (``"left"``: the label ends at the point, ``"right"``: it begins there); none: hidden."""
        from vtkmodules.vtkCommonCore import vtkPoints, vtkStringArray
        from vtkmodules.vtkCommonDataModel import vtkPolyData

        prop = self.mapper.GetLabelTextProperty()
        {"left": prop.SetJustificationToRight, "right": prop.SetJustificationToLeft}.get(side, prop.SetJustificationToCentered)()

        self.shown = [((float(p[0]), float(p[1]), float(p[2])), t) for p, t in items]
        points, texts = vtkPoints(), vtkStringArray()
        texts.SetName("label")
        for p, t in self.shown:
            points.InsertNextPoint(p)
            texts.InsertNextValue(f" {t} ")  # a space each side: the chip's margin
        data = vtkPolyData()
        data.SetPoints(points)
        data.GetPointData().AddArray(texts)
        self.mapper.SetInputData(data)
        self.actor.SetVisibility(bool(self.shown))


# --------------------------------------------------------------------------- shapes


def _polylines(lines: Sequence[np.ndarray]) -> Any:
    """Polylines (each n x 3) as one PolyData."""
    import pyvista as pv

    points = np.concatenate(lines)
    cells, start = [], 0
    for line in lines:
        cells += [len(line), *range(start, start + len(line))]
        start += len(line)
    return pv.PolyData(points, lines=np.array(cells))


def _tubes(lines: Sequence[np.ndarray], radius: float) -> Any:
    """Polylines as round tubes, a ball at each point: the joints rounded (a tube alone
    pinches at a sharp corner, as a path's climb up a step has), the ends too (a flat cap
    seen edge on is a sliver)."""
    import pyvista as pv

    tube = _polylines(lines).tube(radius=radius, n_sides=12, capping=True)
    joints = np.concatenate(lines)
    ball = pv.Sphere(radius=radius, theta_resolution=12, phi_resolution=8)
    return tube.merge(pv.PolyData(joints).glyph(geom=ball, scale=False, orient=False)).extract_surface(algorithm=None)


def _flat(polygons: Sequence[np.ndarray]) -> Any:
    """Flat polygons (each n x 3, in order round its edge) as one PolyData."""
    import pyvista as pv

    if not polygons:
        return pv.PolyData()
    points = np.concatenate(polygons)
    faces, start = [], 0
    for poly in polygons:
        faces += [len(poly), *range(start, start + len(poly))]
        start += len(poly)
    return pv.PolyData(points, np.array(faces)).triangulate()


def _square(x: float, y: float, z: float, half: float) -> np.ndarray:
    return np.array([[x - half, y - half, z], [x + half, y - half, z], [x + half, y + half, z], [x - half, y + half, z]])


@dataclass
class _Sketch:
    """What a ply's events draw, gathered event by event (the hooks of :class:`Overlays`)."""

    placed: str | None = None  # the square a stone or gem was placed on this ply
    tubes: list[np.ndarray] = field(default_factory=list)
    steps: list[tuple[np.ndarray, str]] = field(default_factory=list)
    sums: list[Any] = field(default_factory=lambda: [((), ""), ((), "")])
    band: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]] = ((), ())
    halos: list[np.ndarray | None] = field(default_factory=lambda: [None, None])
    lines: list[Any] = field(default_factory=list)
    sown: list[Sown] = field(default_factory=list)


def _squares_named(event: Any, seats: Mapping[str, Any]) -> list[str]:
    """The board's squares an event names in its fields (a square, or a list of them), in order."""
    out: list[str] = []
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        for v in value if isinstance(value, tuple | list) else (value,):
            if isinstance(v, str) and v in seats and v not in out:
                out.append(v)
    return out


def _outline(x0: float, y0: float, x1: float, y1: float, z: float, width: float) -> list[np.ndarray]:
    """A rectangle's outline, ``width`` wide inside it, as four flat quads."""
    def quad(a: float, b: float, c: float, d: float) -> np.ndarray:
        return np.array([[a, b, z], [c, b, z], [c, d, z], [a, d, z]])

    return [quad(x0, y0, x1, y0 + width), quad(x0, y1 - width, x1, y1), quad(x0, y0, x0 + width, y1),
            quad(x1 - width, y0, x1, y1)]


def _star(x: float, y: float, z: float, outer: float) -> np.ndarray:
    """A five-pointed star, flat, one point away from the viewer (towards +y)."""
    k = np.arange(10)
    r = np.where(k % 2 == 0, outer, 0.42 * outer)
    a = math.pi / 2 + k * math.pi / 5
    return np.c_[x + r * np.cos(a), y + r * np.sin(a), np.full(10, z)]


def _arrow(x: float, y: float, z: float, dy: float, size: float) -> np.ndarray:
    """A flat arrow pointing along y (``dy`` = +1 or -1), its middle at (x, y)."""
    pts = [(-0.18, -0.5), (0.18, -0.5), (0.18, 0.0), (0.45, 0.0), (0.0, 0.5), (-0.45, 0.0), (-0.18, 0.0)]
    return np.array([[x + size * u, y + dy * size * v, z] for u, v in pts])


def _halo(pitch: float) -> Any:
    """A ring to float over a piece's head: marks it whatever its footprint (a ring on the
    cell would hide under a piece as wide as its cell)."""
    import pyvista as pv

    return pv.ParametricTorus(ringradius=HALO * pitch, crosssectionradius=HALO_TUBE * pitch, u_res=48, v_res=12, w_res=2)


# --------------------------------------------------------------------------- the overlays


class Drawing(NamedTuple):
    """One ply's drawings, in the board's millimetres (Z up): what the replay window draws
    over its scene (:class:`Overlays`) and the shared page draws over its own
    (:func:`~stratstone_cad.viewer.gltf.replay_glb` writes them into the glTF's extras).
    Points are numpy arrays of 3; a polygon is its corners in order round its edge."""

    tubes: tuple[np.ndarray, ...] = ()
    """Polylines drawn as tubes ``TUBE`` pitches thick: the path, an exit, a trap, the sowing."""
    steps: tuple[tuple[np.ndarray, str], ...] = ()
    """Chips in the path's colour: each step's cost, each sown square's number."""
    halos: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
    """Where the rings over the attacker's and the defender's heads go (``None``: none)."""
    sums: tuple[tuple[tuple[tuple[np.ndarray, str], ...], str], ...] = (((), ""), ((), ""))
    """The attack's and the defence's sums: the chips beside each halo and the side they
    are drawn on (``"left"``: ending at the point, ``"right"``: beginning there)."""
    band: tuple[np.ndarray, ...] = ()
    """The allowed column's translucent fill."""
    edges: tuple[np.ndarray, ...] = ()
    """The allowed column's outline (four thin quads)."""
    rings: tuple[np.ndarray, ...] = ()
    """The winning line(s): the centre of a ring round each square's top stone (shown
    once the ply is done)."""
    cells: tuple[np.ndarray, ...] = ()
    """The winning line(s): a translucent square on the board under each of their stacks."""
    lit: tuple[np.ndarray, ...] = ()
    """The reach: a light square on each square the piece could reach, an arrow beyond the edge for an exit."""
    stars: tuple[np.ndarray, ...] = ()
    """The reach: a star on each square of a special move."""
    costs: tuple[tuple[np.ndarray, str], ...] = ()
    """The reach: each lit square's cost (an exit's beside its arrow)."""


class Plan:
    """Where a replay's drawings go (see the module's docstring), ply by ply, without VTK:
    :meth:`draw` gives a ply's :class:`Drawing`."""

    def __init__(self, rep: Any, reach: bool = False) -> None:
        """``rep``: the loaded game (its table and plies); ``reach``: light the squares the
        piece to move could reach."""
        self.rep, self.reach = rep, reach
        table = rep.table
        self.pitch = float(table.pitch_mm)
        self.tallest = max(rep.heights.values(), default=0.0)
        seats = np.array(list(table.seats.values()), float).reshape(-1, 3)
        self.cells = (seats[:, :2].min(axis=0) - self.pitch / 2, seats[:, :2].max(axis=0) + self.pitch / 2)
        self.rim = min((self.top(sq) for sq in table.seats), default=0.0)  # the lowest cell: the rim's height

    def top(self, square: str) -> float:
        """The height of the board's surface at ``square`` (a cell's top, a recess's rim)."""
        table = self.rep.table
        return float(table.tops.get(square, table.seats[square][2]))

    def at(self, square: str, lift: float = 0.0) -> np.ndarray:
        """The point ``lift`` mm over the board's surface at the middle of ``square``."""
        x, y, _ = self.rep.table.seats[square]
        return np.array([x, y, self.top(square) + lift])

    def draw(self, ply: Any) -> Drawing:
        """A ply's drawings (``ply`` None: the start, none)."""
        if ply is None:
            return Drawing()
        events = [n.event for n in ply.named]
        k = _Sketch(placed=next((e.square for e in events if isinstance(e, Placed)), None))
        for n in ply.named:
            getattr(self, f"draw_{n.event.kind.replace(' ', '_')}", self.draw_event)(n.event, n.pieces, k)
        tubes, steps, sums, band, halos, lines = k.tubes, k.steps, k.sums, k.band, k.halos, k.lines
        if k.sown:
            tubes.append(self._sowing(k.sown))
            steps += self._numbers(k.sown)
        rings, cells = self._win(lines, ply.rest) if lines else ((), ())
        lit, stars, costs = self._reach(ply)
        return Drawing(tuple(tubes), tuple(steps), (halos[0], halos[1]), (sums[0], sums[1]), band[0], band[1],
                       rings, cells, lit, stars, costs)

    def ghost(self, ply: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The best move of a ply the review classes a mistake or a blunder, as a ghost: its
        path (a walk, a sowing, an exit) as tubes and an outline round the square it ends on
        (a move's last square, a sowing's, a placement's). Nothing for another ply, or
        without a review."""
        review = self.rep.review[ply.number - 1] if ply is not None and self.rep.review else None
        if review is None or review.cls not in GHOSTED or review.best == review.move or ply.before is None:
            return [], []
        try:
            _, events = ply.before.apply(review.best)
        except GameError:  # a review file of another game that has as many plies
            raise LogError(f"review: ply {ply.number}: best move {short_repr(review.best)} is not legal there; expected "
                           "the review of this log (check-log --review --json)") from None
        k = _Sketch()
        ends = []
        for e in events:
            if isinstance(e, (Moved, Sown, Exited)):
                getattr(self, f"draw_{e.kind.replace(' ', '_')}")(e, (), k)
            if isinstance(e, (Moved, Sown, Placed)):
                ends = [e.path[-1] if isinstance(e, Moved) else e.square]
        tubes = [*k.tubes, self._sowing(k.sown)] if k.sown else k.tubes
        half = 0.46 * self.pitch
        outlines = [q for sq in ends for x, y, _ in [self.rep.table.seats[sq]]
                    for q in _outline(x - half, y - half, x + half, y + half, self.top(sq) + LIFT_MM, 0.1 * self.pitch)]
        return tubes, outlines

    # One hook an event kind, named after it (``draw_<kind>``), as python-chess's visitors
    # are; an event without one (a game's own) gets :meth:`draw_event`. tests/viewer walks
    # every event of the core and asserts each has its hook.

    def draw_moved(self, e: Moved, pieces: Sequence[str], k: _Sketch) -> None:
        k.tubes += self._walk(e, k.steps)

    def draw_exited(self, e: Exited, pieces: Sequence[str], k: _Sketch) -> None:
        k.tubes.append(self._exit(e.square))

    def draw_attacked(self, e: Attacked, pieces: Sequence[str], k: _Sketch) -> None:
        k.halos, k.sums = self._attack(e, pieces)

    def draw_dice_rolled(self, e: DiceRolled, pieces: Sequence[str], k: _Sketch) -> None:
        if e.column is not None and k.placed is not None:
            k.band = self._column(k.placed)

    def draw_trapped(self, e: Trapped, pieces: Sequence[str], k: _Sketch) -> None:
        k.tubes += self._trap(e)

    def draw_game_over(self, e: GameOver, pieces: Sequence[str], k: _Sketch) -> None:
        if e.lines:
            k.lines = list(e.lines)

    def draw_sown(self, e: Sown, pieces: Sequence[str], k: _Sketch) -> None:
        k.sown.append(e)  # the whole path drawn once, numbered, after the ply's events

    def draw_placed(self, e: Placed, pieces: Sequence[str], k: _Sketch) -> None:
        """Nothing drawn: the stone placed is seen arriving (and its square is the from square)."""

    def draw_captured(self, e: Any, pieces: Sequence[str], k: _Sketch) -> None:
        """Nothing drawn: the capture is seen (the piece knocked off or lifted away)."""

    def draw_turn_lost(self, e: Any, pieces: Sequence[str], k: _Sketch) -> None:
        """Nothing drawn: said in the caption."""

    def draw_extra_turn(self, e: Any, pieces: Sequence[str], k: _Sketch) -> None:
        """Nothing drawn: said in the caption."""

    def draw_board_reset(self, e: Any, pieces: Sequence[str], k: _Sketch) -> None:
        """Nothing drawn: every gem is seen lifted away."""

    def draw_event(self, e: Any, pieces: Sequence[str], k: _Sketch) -> None:
        """An event without a hook (a game's own): a loop round each square it names (its
        fields that are squares of the board, or lists of them)."""
        for sq in _squares_named(e, self.rep.table.seats):
            x, y, _ = self.rep.table.seats[sq]
            z, h = self.top(sq) + TUBE * self.pitch + LIFT_MM / 4, 0.4 * self.pitch
            k.tubes.append(np.array([[x - h, y - h, z], [x + h, y - h, z], [x + h, y + h, z], [x - h, y + h, z],
                                     [x - h, y - h, z]]))

    def _walk(self, e: Moved, steps: list[tuple[np.ndarray, str]]) -> list[np.ndarray]:
        """A walk as polylines over the cells' tops: level from a cell's centre to its edge,
        up or down the step there, level on to the next centre; a step that is not to a
        neighbour (a Runner's jump or diagonal) an arc over what lies between. Each step's
        cost (or what kind of step it is) goes to ``steps``, at the corner of the cell it
        enters (the centre is the path's)."""
        lift = TUBE * self.pitch + LIFT_MM
        points = [self.at(e.path[0], lift)]
        for k, (a, b) in enumerate(itertools.pairwise(e.path)):
            pa, pb = self.at(a, lift), self.at(b, lift)
            if np.hypot(*(pb - pa)[:2]) > 1.01 * self.pitch:
                between = [self.top(q) + lift for q, (x, y, _) in self.rep.table.seats.items()
                           if min(pa[0], pb[0]) - 1 <= x <= max(pa[0], pb[0]) + 1
                           and min(pa[1], pb[1]) - 1 <= y <= max(pa[1], pb[1]) + 1]  # the cells it passes over
                rise = max([*between, pa[2], pb[2]]) + 0.35 * self.pitch - max(pa[2], pb[2])
                for s in np.linspace(0.0, 1.0, 13)[1:]:
                    points.append(pa + (pb - pa) * s + np.array([0, 0, rise * 4 * s * (1 - s)]))
            else:
                mid = (pa + pb) / 2
                if pa[2] != pb[2]:
                    points += [np.array([mid[0], mid[1], pa[2]]), np.array([mid[0], mid[1], pb[2]])]
                points.append(pb)
            word = str(e.costs[k]) if k < len(e.costs) else e.special
            corner = self.at(b) + np.array([-0.3 * self.pitch, 0.3 * self.pitch, 0.0])
            steps.append((corner, word))
        return [np.array(points)]

    def _attack(self, e: Attacked, pieces: Sequence[str]) -> tuple[list[Any], list[Any]]:
        """Where the halos over the attacker and the defender go (the attacker's over its
        head, the defender's over the taller of the two: the attacker ends on its square),
        and each sum beside its halo, out to the side (across the image, clear of the path
        and the pieces below): the one on the left to the left, the other to the right, the
        attacker's to the left when neither is."""
        gap = 0.25 * self.pitch
        heights = [self.rep.heights[p] for p in pieces] or [self.tallest]
        a, b = self.at(e.square, heights[0] + gap), self.at(e.target, max(heights) + gap)
        left = 0 if a[0] <= b[0] else 1
        out = np.array([0.36 * self.pitch, 0.0, 0.0])
        sums = []
        for i, (at, terms, word) in enumerate(((a, e.attack, "attack"), (b, e.defence, "defence"))):
            side = "left" if i == left else "right"
            sums.append((((at - out if side == "left" else at + out, f"{word} {sum(t.value for t in terms)}"),)
                         if terms else (), side))
        return [a, b], sums

    def _exit(self, square: str) -> np.ndarray:
        """An exit: on from the square's centre over the board's near or far edge (the nearer)."""
        lift = TUBE * self.pitch + LIFT_MM
        start = self.at(square, lift)
        lo, hi = self.rep.board_bounds
        y = hi[1] if hi[1] - start[1] < start[1] - lo[1] else lo[1]
        return np.array([start, [start[0], y, start[2]]])

    def _column(self, placed: str) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
        """The band over the column of the square ``placed`` (the dice's column: a gem is
        placed in no other): a translucent fill over its wells and an outline round it."""
        seats = self.rep.table.seats
        x = seats[placed][0]
        column = [sq for sq, (sx, _, _) in seats.items() if abs(sx - x) < 0.25 * self.pitch]
        ys = [seats[sq][1] for sq in column]
        z = max(self.top(sq) for sq in column) + LIFT_MM
        half = self.pitch / 2
        x0, x1, y0, y1 = x - half, x + half, min(ys) - half, max(ys) + half
        fill = np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]])
        return (fill,), tuple(_outline(x0, y0, x1, y1, z + 0.05, 0.08 * self.pitch))

    def _trap(self, e: Trapped) -> list[np.ndarray]:
        """A trap: a line from the gem placed to the far one over the gems between, at the
        height of the gems' tops, from the edge of one end's gem to the other's (over them,
        it would hide their colours); where the run wraps round the board (Sage Stones'
        columns 9 to 3), the line leaves one side and comes back on the other."""
        run = [e.ends[0], *e.squares, e.ends[1]]
        z = max(self.top(sq) for sq in run) + self.tallest * 0.5 + LIFT_MM
        pts = [np.array([*self.rep.table.seats[sq][:2], z]) for sq in run]
        near = [b - a for a, b in itertools.pairwise(pts) if np.hypot(*(b - a)[:2]) < 1.5 * self.pitch]
        out, current = [], [pts[0]]
        for a, b in itertools.pairwise(pts):
            if np.hypot(*(b - a)[:2]) < 1.5 * self.pitch or not near:
                current.append(b)
                continue
            step = near[0]  # a wrap: the run's own step, off this side and on from the other
            out.append(np.array([*current, a + step / 2]))
            current = [b - step / 2, b]
        out.append(np.array(current))
        for line, end, inner in ((out[0], 0, 1), (out[-1], -1, -2)):
            d = line[inner] - line[end]
            line[end] += d * min(END * self.pitch / max(float(np.linalg.norm(d)), 1e-9), 0.8)
        return out

    def _numbers(self, sown: Sequence[Sown]) -> list[tuple[np.ndarray, str]]:
        """Each sown square's step number (a square sown twice: both, "2, 6"), at its corner."""
        at: dict[str, list[str]] = {}
        for e in sown:
            at.setdefault(e.square, []).append(str(e.step))
        return [(self.at(sq) + np.array([-0.32 * self.pitch, 0.32 * self.pitch, 0.0]), ", ".join(n))
                for sq, n in at.items()]

    def stack_top(self, square: str, rest: Mapping[str, Any]) -> float:
        """The top of what stands on ``square`` (``rest``: where every piece is), else the board's surface there."""
        x, y, _ = self.rep.table.seats[square]
        return max((pos[2] + self.rep.heights[pid] for pid, pos in rest.items()
                    if pos is not None and abs(pos[0] - x) < 1e-6 and abs(pos[1] - y) < 1e-6), default=self.top(square))

    def _sowing(self, sown: Sequence[Sown]) -> np.ndarray:
        """The sowing path: from the square picked up to each square sown in turn, on the
        board's surface: it shows between the stacks, which stand over it. (Drawn over the
        stacks, a step towards the viewer would cross the top stone of the square it leaves,
        hiding its colour; the step numbers, over everything, say the order.)"""
        lift = TUBE * self.pitch + LIFT_MM
        return np.array([self.at(q, lift) for q in [sown[0].origin, *(e.square for e in sown)]])

    def _win(self, lines: Sequence[Sequence[str]], rest: Mapping[str, Any]) -> tuple[tuple[np.ndarray, ...],
                                                                                tuple[np.ndarray, ...]]:
        """The winning lines: the centre of a ring round the top stone of each of their
        squares' stacks (``rest``: where every piece is after the ply), and a translucent
        square over each of the squares on the board, under the stacks. (A bar across the
        stacks would hide the top stones' colours: seen from the front, it crosses those
        behind each of its points.)"""
        rings, cells = [], []
        for sq in dict.fromkeys(q for line in lines for q in line):
            x, y, _ = self.rep.table.seats[sq]
            rings.append(np.array([x, y, self.stack_top(sq, rest) - 0.03 * self.pitch]))
            cells.append(_square(x, y, self.top(sq) + LIFT_MM, 0.48 * self.pitch))
        return tuple(rings), tuple(cells)

    def _reach(self, ply: Any) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], tuple[tuple[np.ndarray, str], ...]]:
        """The squares the piece to move could reach from where the ply began, lit, with
        their costs; its special moves starred; its exit an arrow on the rim beyond the
        edge: (lit, stars, costs)."""
        moves = options(ply.before, [n.event for n in ply.named]) if self.reach else ()
        lit, stars, labels = [], [], []
        lo, hi = self.rep.board_bounds
        for o in moves:
            c = self.at(o.square, LIFT_MM)
            cost = o.cost.split(" ")[0]
            if o.kind == "special":
                stars.append(_star(c[0], c[1], c[2] + 0.05, 0.32 * self.pitch))
            elif o.kind == "exit":
                far = hi[1] - c[1] < c[1] - lo[1]
                edge = self.cells[1][1] if far else self.cells[0][1]
                rim = hi[1] if far else lo[1]
                y = (edge + rim) / 2
                lit.append(_arrow(c[0], y, self.rim + LIFT_MM, 1.0 if far else -1.0, 0.8 * abs(rim - edge)))
                labels.append((np.array([c[0] + 0.45 * self.pitch, y, self.rim]), f"exit {cost}"))
            else:
                lit.append(_square(c[0], c[1], c[2], 0.4 * self.pitch))
                labels.append((c + np.array([0.3 * self.pitch, -0.3 * self.pitch, 0.0]), cost))
        return tuple(lit), tuple(stars), tuple(labels)


class Overlays(Plan):
    """The caption and the drawings of a replay's scene (see the module's docstring):
    added to ``plotter`` once, hidden until a ply needs them. :meth:`show` puts up a ply's."""

    def __init__(self, plotter: Any, rep: Any, size: tuple[int, int], scale: int = 1, reach: bool = False) -> None:
        """``rep``: the loaded game (its table and plies); ``size`` and ``scale`` as the
        scene's; ``reach``: light the squares the piece to move could reach."""
        super().__init__(rep, reach)
        self.p = plotter
        self.path = self._actor("overlay-path", PATH_COLOUR)
        self.win = [self._actor("overlay-win", MARK_COLOUR), self._actor("overlay-win-band", MARK_COLOUR, BAND_OPACITY)]
        self.band = self._actor("overlay-band", MARK_COLOUR, BAND_OPACITY)
        self.edges = self._actor("overlay-band-edge", MARK_COLOUR)
        self.lit = self._actor("overlay-reach", REACH_COLOUR, REACH_OPACITY)
        self.stars = self._actor("overlay-stars", MARK_COLOUR)
        self.ghosts = [self._actor("overlay-ghost-path", GHOST_COLOUR, GHOST_OPACITY),
                       self._actor("overlay-ghost-square", GHOST_COLOUR, GHOST_OPACITY)]
        halo = _halo(self.pitch)
        self.halos = [self._actor(f"overlay-halo-{i}", c, mesh=halo) for i, c in enumerate((PATH_COLOUR, MARK_COLOUR))]
        # the labels over the scene, each drawn over those added before it: the reach's
        # costs (many), the path's steps, the sums, the caption over all
        chip = font_px(size, 40, scale)  # pixels: 20 at 640 x 360 and 1280 x 720
        self.costs = Labels(plotter, "overlay-costs", chip, REACH_COLOUR)
        self.steps = Labels(plotter, "overlay-steps", chip, PATH_COLOUR)
        self.sums = [Labels(plotter, f"overlay-sum-{i}", chip, c) for i, c in enumerate((PATH_COLOUR, MARK_COLOUR))]
        self.caption = Caption(plotter, size, scale)
        self.ply = -1
        self.lines: tuple[Any, Any] = (None, None)  # the ply's winning lines, shown once it is done

    def _actor(self, name: str, colour: str, opacity: float = 1.0, mesh: Any = None) -> Any:
        # start-up speed: VTK only where something is rendered
        from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper

        mapper = vtkPolyDataMapper()
        mapper.ScalarVisibilityOff()
        if mesh is not None:
            mapper.SetInputData(mesh)
        actor = vtkActor()
        actor.SetMapper(mapper)
        prop = actor.GetProperty()
        prop.SetColor(*_rgb(colour))
        prop.SetOpacity(opacity)
        prop.SetAmbient(0.45)  # lit, but its colour stays its colour on any side
        prop.SetDiffuse(0.65)
        prop.SetSpecular(0.0)
        actor.SetVisibility(False)
        self.p.add_actor(actor, reset_camera=False, name=name, pickable=False)
        return actor

    @staticmethod
    def _set(actor: Any, mesh: Any) -> None:
        """Put ``mesh`` into ``actor`` (None or empty: hide it)."""
        shown = mesh is not None and mesh.n_points > 0
        if shown:
            actor.GetMapper().SetInputData(mesh)
        actor.SetVisibility(shown)

    def show(self, ply: int, done: bool, text: str) -> None:
        """The overlays of ``ply`` (0: the start, none), ``done`` when its animation is
        over (the winning line waits for it), with ``text`` as the caption."""
        self.caption.set(text)
        if ply != self.ply:
            self._build(self.rep.plies[ply - 1] if ply else None)
            self.ply = ply
        for actor, mesh in zip(self.win, self.lines, strict=True):
            self._set(actor, mesh if done else None)

    def _build(self, ply: Any) -> None:
        """Set a ply's drawings and labels into the actors (``ply`` None: the start, none)."""
        import pyvista as pv

        d = self.draw(ply)
        self._set(self.path, _tubes(d.tubes, TUBE * self.pitch) if d.tubes else None)
        self.steps.set(d.steps)
        for halo, at, (labels, side), chips in zip(self.halos, d.halos, d.sums, self.sums, strict=True):
            if at is not None:
                halo.SetPosition(*at)
            halo.SetVisibility(at is not None)
            chips.set(labels, side)
        self._set(self.band, _flat(d.band) if d.band else None)
        self._set(self.edges, _flat(d.edges) if d.edges else None)
        if d.rings:
            ring = pv.ParametricTorus(ringradius=RING * self.pitch, crosssectionradius=RING_TUBE * self.pitch, u_res=48,
                                      v_res=10, w_res=2)
            self.lines = (pv.merge([ring.translate(tuple(c), inplace=False) for c in d.rings]), _flat(d.cells))
        else:
            self.lines = (None, None)
        tubes, outlines = self.ghost(ply)
        self._set(self.ghosts[0], _tubes(tubes, TUBE * self.pitch) if tubes else None)
        self._set(self.ghosts[1], _flat(outlines) if outlines else None)
        self._set(self.lit, _flat(d.lit) if d.lit else None)
        self._set(self.stars, _flat(d.stars) if d.stars else None)
        self.costs.set(d.costs)
