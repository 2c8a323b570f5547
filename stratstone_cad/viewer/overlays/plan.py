"""Where a replay's drawings go, ply by ply, without VTK (see
:mod:`stratstone_cad.viewer.overlays`): :class:`Plan` gives a ply's :class:`Drawing`,
read from its events (one hook an event kind); :func:`options` gives the reach."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from stratstone_cad.engine.events import Attacked, DiceRolled, Exited, GameOver, Moved, Placed, Sown, Trapped
from stratstone_cad.errors import GameError, LogError, short_repr
from stratstone_cad.viewer.overlays import shapes
from stratstone_cad.viewer.overlays.style import END, GHOSTED, LIFT_MM, TUBE

__all__ = ["Drawing", "Option", "Plan", "options", "options_from"]


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
    return options_from(before, square) if square is not None else ()


def options_from(before: Any, square: str) -> tuple[Option, ...]:
    """The moves the piece on ``square`` has in ``before`` (the engine's ``reach``), each
    with the square it ends on (read from its own events), its cost and its kind; empty
    for a game whose moves have no cost."""
    moves = before.reach(square)
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


@dataclass
class _Sketch:
    """What a ply's events draw, gathered event by event (the hooks of :class:`Plan`)."""

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



class Drawing(NamedTuple):
    """One ply's drawings, in the board's millimetres (Z up): what the replay window draws
    over its scene (:class:`~stratstone_cad.viewer.overlays.actors.Overlays`) and the shared page draws over its own
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

    def key(self, ply: Any) -> str:
        """``key: blue frame from, orange frame to; magenta the path, ...``: what each mark
        drawn for ``ply`` (None: the start) means, named by its colour, for the caption's last
        line (the window, the pictures and the page). Read from the ply's events, not its
        drawings: the caption is measured over many plies and the reach costs a search."""
        from stratstone_cad.viewer.review_strip import STRIP_KEY

        parts = []
        if ply is not None:
            kinds = {n.event.kind for n in ply.named}
            events = [n.event for n in ply.named]
            if len(ply.squares) == 2:
                parts.append("blue frame from, orange frame to")
            elif ply.squares:
                parts.append("blue frame the square played")
            if kinds & {"moved", "exited"}:
                costs = any(getattr(e, "costs", ()) for e in events)
                parts.append("magenta the path" + (" (numbers: each step's cost)" if costs else ""))
            if "sown" in kinds:
                parts.append("magenta the sowing (numbers: its order)")
            if "trapped" in kinds:
                parts.append("magenta line a trap")
            if "attacked" in kinds:
                parts.append("magenta ring the attacker, cyan ring the defender, each with its sum")
            if any(isinstance(e, DiceRolled) and e.column is not None for e in events) and "placed" in kinds:
                parts.append("cyan band the column the dice allow")
            if any(isinstance(e, GameOver) and e.lines for e in events):
                parts.append("cyan rings the winning line")
            if self.reach and kinds & {"moved", "attacked", "exited"}:
                parts.append("white squares where the piece could go (numbers: the cost; cyan star: a special move, "
                             "arrow: an exit)")
            if self._ghost_move(ply) is not None:
                answer = getattr(self.rep, "answer", None) is not None and ply.number == self.rep.count
                parts.append(f"green ghost {'the answer' if answer else 'the best move'}: its path and the piece "
                             "where it would rest")
        if self.rep.review:
            parts.append(STRIP_KEY)
        return "key: " + "; ".join(parts) if parts else ""

    def ghost(self, ply: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The best move of a ply the review classes a mistake or a blunder, as a ghost: its
        path (a walk, a sowing, an exit) as tubes and an outline round the square it ends on
        (a move's last square, a sowing's, a placement's); on a puzzle's position (its last
        ply) with ``replay --solution``, the puzzle's answer. Nothing for another ply, or
        without a review."""
        found = self._ghost_move(ply)
        return self._ghost(found[0]) if found is not None else ([], [])

    def _ghost_move(self, ply: Any) -> tuple[list[Any], Mapping[str, Any]] | None:
        """The events of the move a ghost shows at ``ply`` (a puzzle's answer on its
        position, or the review's best move where the one played was a mistake or a
        blunder) and where every piece rested before it; None where none is shown."""
        answer = getattr(self.rep, "answer", None)  # a replay's GameOnTable has one; a bare table may not
        if answer is not None and (ply.number if ply is not None else 0) == self.rep.count:  # a puzzle's solution
            return answer[0].apply(answer[1])[1], self.rep.rest(self.rep.count)
        review = self.rep.review[ply.number - 1] if ply is not None and self.rep.review else None
        if review is None or review.cls not in GHOSTED or review.best == review.move or ply.before is None:
            return None
        try:
            _, events = ply.before.apply(review.best)
        except GameError:  # a review file of another game that has as many plies
            raise LogError(f"review: ply {ply.number}: best move {short_repr(review.best)} is not legal there; expected "
                           "the review of this log (check-log --review --json)") from None
        return events, self.rep.rest(ply.number - 1)

    def ghost_piece(self, ply: Any) -> tuple[str, tuple[float, float, float]] | None:
        """The piece the ghost's move would move (the walker, the gem or stone placed, from
        the hand, the sown stack's last stone) and where it would come to rest (mm, its
        bottom centre, on what stands on the square): drawn there itself, translucent.
        None where no ghost is shown, or its move ends no piece on a square (an exit)."""
        found = self._ghost_move(ply)
        if found is None:
            return None
        events, rest = found
        seats = self.rep.table.seats
        spots = {(round(x, 3), round(y, 3)) for x, y, _ in seats.values()}

        def on(square: str) -> list[str]:
            x, y, _ = seats[square]
            return sorted((p for p, at in rest.items() if at is not None and abs(at[0] - x) < 1e-6
                           and abs(at[1] - y) < 1e-6), key=lambda p: rest[p][2])

        pid, to = None, None
        for e in events:
            if isinstance(e, Moved):
                pid, to = (on(e.path[0]) or [None])[-1], e.path[-1]
            elif isinstance(e, Placed):
                hand = sorted(p for p, piece in self.rep.pieces.items() if piece.colour == e.stone and
                              (rest.get(p) is None or (round(rest[p][0], 3), round(rest[p][1], 3)) not in spots))
                pid, to = (hand or [None])[0], e.square
            elif isinstance(e, Sown):
                pid = (on(e.origin) or [None])[-1] if e.step == 1 else pid
                to = e.square
            elif isinstance(e, Exited):
                pid = to = None
        if pid is None or to is None:
            return None
        x, y, z = seats[to]
        return pid, (x, y, z + sum(self.rep.heights[p] for p in on(to) if p != pid))

    def _ghost(self, events: Sequence[Any]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """A move's events as a ghost: its path as tubes, an outline round the square it ends on."""
        k = _Sketch()
        ends = []
        for e in events:
            if isinstance(e, (Moved, Sown, Exited)):
                getattr(self, f"draw_{e.kind.replace(' ', '_')}")(e, (), k)
            if isinstance(e, (Moved, Sown, Placed, Attacked)):
                ends = [e.path[-1] if isinstance(e, Moved) else e.target if isinstance(e, Attacked) else e.square]
        tubes = [*k.tubes, self._sowing(k.sown)] if k.sown else k.tubes
        half = 0.46 * self.pitch
        outlines = [q for sq in ends for x, y, _ in [self.rep.table.seats[sq]]
                    for q in shapes.outline(x - half, y - half, x + half, y + half, self.top(sq) + LIFT_MM, 0.1 * self.pitch)]
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
        return (fill,), tuple(shapes.outline(x0, y0, x1, y1, z + 0.05, 0.08 * self.pitch))

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
            cells.append(shapes.square(x, y, self.top(sq) + LIFT_MM, 0.48 * self.pitch))
        return tuple(rings), tuple(cells)

    def _reach(self, ply: Any) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], tuple[tuple[np.ndarray, str], ...]]:
        """The squares the piece to move could reach from where the ply began, lit, with
        their costs; its special moves starred; its exit an arrow on the rim beyond the
        edge: (lit, stars, costs)."""
        return self.lights(options(ply.before, [n.event for n in ply.named]) if self.reach else ())

    def lights(self, moves: Sequence[Option]) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...],
                                                     tuple[tuple[np.ndarray, str], ...]]:
        """The squares of ``moves`` lit, each with its cost (none where a move has none: a
        game whose moves cost nothing), special moves starred, an exit an arrow on the rim
        beyond the edge: (lit, stars, costs)."""
        lit, stars, labels = [], [], []
        for o in moves:
            c = self.target(o)
            cost = o.cost.split(" ")[0]
            if o.kind == "special":
                stars.append(shapes.star(c[0], c[1], c[2] + 0.05, 0.32 * self.pitch))
            elif o.kind == "exit":
                far = c[1] > self.at(o.square)[1]
                edge = self.cells[1][1] if far else self.cells[0][1]
                lit.append(shapes.arrow(c[0], c[1], c[2], 1.0 if far else -1.0, 1.6 * abs(c[1] - edge)))
                labels.append((np.array([c[0] + 0.45 * self.pitch, c[1], self.rim]), f"exit {cost}"))
            else:
                lit.append(shapes.square(c[0], c[1], c[2], 0.4 * self.pitch))
                if cost:
                    labels.append((c + np.array([0.3 * self.pitch, -0.3 * self.pitch, 0.0]), cost))
        return tuple(lit), tuple(stars), tuple(labels)

    def target(self, o: Option) -> np.ndarray:
        """Where the option ``o`` is drawn: over its square's surface, or for an exit the
        middle of the rim beyond the edge it leaves by (the arrow's)."""
        c = self.at(o.square, LIFT_MM)
        if o.kind != "exit":
            return c
        lo, hi = self.rep.board_bounds
        far = hi[1] - c[1] < c[1] - lo[1]
        edge = self.cells[1][1] if far else self.cells[0][1]
        rim = hi[1] if far else lo[1]
        return np.array([c[0], (edge + rim) / 2, self.rim + LIFT_MM])
