"""The animation of a ply: keyframes of every piece, from the ply's events.

Animation follows the events, in order, each given a share of the ply's time:
``Placed`` brings a stone from the player's hand onto its stack (or drops a gem into its
well); ``Sown`` lifts the stack off its square (on the first one) and drops its bottom
stone on each square of the path in turn; ``Moved`` walks a piece square by square over
the heights (a step to a square that is not a neighbour, a Runner's jump or diagonal,
arcs high); ``Attacked`` lunges at the target, which ``Captured`` knocks off the board
(after an attack) or lifts back to its owner's hand (a trapped gem); ``Exited`` slides the
piece off the board's near or far edge; ``BoardReset`` lifts every gem back to its hand. Positions are keyframes
interpolated in time, and the last keyframe of every piece is the place the ledger gives
it after the ply, so an animation always ends where the next one starts.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

Point = tuple[float, float, float]  # a place in the scene, mm
LIFT_MM = 14.0  # how high a stack or a gem is lifted
HOP_MM = 2.0  # how high a walking piece clears the higher of two cells
JUMP_MM = 14.0  # how high a Runner's jump or diagonal step arcs
DROP_MM = 30.0  # where a gem starts its drop into its well, above the well


class OnTable(Protocol):
    """What a timeline reads of the game on the table (a loaded log,
    :class:`~stratstone_cad.viewer.replay.loading.GameOnTable`): its board's seats and
    pitch, each piece's height, the board's bounds."""

    table: Any
    heights: dict[str, float]
    board_bounds: tuple[Any, Any]


# --------------------------------------------------------------------------- animation


def _sample(keys: Sequence[tuple[float, Point | None]], u: float, start: Point | None) -> Point | None:
    """The place at time ``u`` from keyframes (time, place or None for hidden), linear
    between them; before the first the place is ``start``."""
    prev_t, prev = 0.0, start
    for t, pos in keys:
        if u < t:
            if prev is None or pos is None or t <= prev_t:
                return prev
            s = (u - prev_t) / (t - prev_t)
            return (prev[0] + (pos[0] - prev[0]) * s, prev[1] + (pos[1] - prev[1]) * s, prev[2] + (pos[2] - prev[2]) * s)
        prev_t, prev = t, pos
    return prev


def _ease(s: float) -> float:
    return s * s * (3 - 2 * s)


class Timeline:
    """Keyframes for one ply, built event by event in beats (a beat: one step of a path,
    one stone sown, one drop), then scaled to the ply's time 0-1."""

    ARC = 8  # keyframes along an arc

    def __init__(self, rep: OnTable, start: Mapping[str, Point | None], stacks: Mapping[str, list[str]]) -> None:
        self.rep = rep
        self.now = 0.0
        self.pos: dict[str, Point | None] = dict(start)
        self.stacks = {sq: list(ids) for sq, ids in stacks.items()}
        self.keys: dict[str, list[tuple[float, Point | None]]] = {}
        self.lifted: list[str] = []
        self.attacked = False

    # -- primitives --------------------------------------------------------------------

    def key(self, pid: str, t: float, pos: Point | None) -> None:
        self.keys.setdefault(pid, []).append((t, pos))
        self.pos[pid] = pos

    def arc(self, pid: str, to: Point, t0: float, t1: float, clear: float, over: float = -math.inf) -> None:
        """From where ``pid`` is to ``to`` between beats ``t0`` and ``t1``: straight up to
        half of ``clear`` above the higher of the two ends (and of ``over``, what lies
        between them), across in an arc that peaks ``clear`` above it, straight down. The
        piece never cuts into a higher cell or stack on its way."""
        a = self.pos[pid]
        if a is None:
            self.key(pid, t0, to)
            return
        base = max(a[2], to[2], over) + clear / 2
        rise, fall = t0 + 0.25 * (t1 - t0), t0 + 0.75 * (t1 - t0)
        self.key(pid, t0, a)
        self.key(pid, rise, (a[0], a[1], base))
        for k in range(1, self.ARC):
            s = k / self.ARC
            e = _ease(s)
            self.key(pid, rise + (fall - rise) * s,
                     (a[0] + (to[0] - a[0]) * e, a[1] + (to[1] - a[1]) * e, base + 2 * clear * s * (1 - s)))
        self.key(pid, fall, (to[0], to[1], base))
        self.key(pid, t1, to)

    def line(self, pid: str, to: Point | None, t0: float, t1: float) -> None:
        """Straight from where ``pid`` is to ``to`` (``None``: hidden at ``t1``)."""
        self.key(pid, t0, self.pos[pid])
        self.key(pid, t1, to)

    def top(self, square: str) -> Point:
        """Where a piece put on ``square`` now rests: on top of its stack."""
        x, y, z = self.rep.table.seats[square]
        for p in self.stacks.get(square, []):  # summed as _rest sums them, so the places agree exactly
            z += self.rep.heights[p]
        return (x, y, z)

    # -- events ------------------------------------------------------------------------

    def play(self, named: Sequence[Any], rest: Mapping[str, Point | None]) -> dict[str, list[tuple[float, Point | None]]]:
        for n in named:
            getattr(self, f"on_{n.event.kind.replace(' ', '_')}", self.on_event)(n.event, n.pieces, rest)
        total = max(self.now, 1.0)
        out: dict[str, list[tuple[float, Point | None]]] = {}
        for pid, keys in self.keys.items():
            scaled = [(t / total, p) for t, p in keys]
            end = rest.get(pid)
            if scaled[-1][1] != end:  # the ledger's place is the last word (rounding, a hidden piece)
                scaled.append((1.0, end))
            out[pid] = scaled
        return out

    # One hook an event kind, named after it (``on_<kind>``), as python-chess's visitors
    # are; an event without one (a game's own) gets :meth:`on_event`. tests/viewer walks
    # every event of the core and asserts each has its hook.

    def on_placed(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        self.placed(pieces[0], e.square)

    def on_sown(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        self.sown(pieces[0], e.origin, e.square, e.step)

    def on_moved(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        self.moved(pieces[0], e.path)

    def on_attacked(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        self.attack(pieces[0], pieces[1])

    def on_captured(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        self.captured(pieces[0], e.square, rest.get(pieces[0]))

    def on_exited(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        self.exited(pieces[0], e.square)

    def on_board_reset(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        self.back_to_hand(pieces, rest, 1.5)

    def on_trapped(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        """Nothing moves: the Captured events after it lift the trapped gems away."""

    def on_dice_rolled(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        """Nothing moves: the dice are said in the caption (the set has no dice on the table)."""

    def on_turn_lost(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        """Nothing moves: said in the caption."""

    def on_extra_turn(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        """Nothing moves: said in the caption."""

    def on_game_over(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        """Nothing moves: the winning line is drawn (overlays) and the result said."""

    def on_event(self, e: Any, pieces: Sequence[str], rest: Mapping[str, Point | None]) -> None:
        """An event the replay has no hook for (a game's own): the pieces it names glide,
        lifted clear of the board, to where the ply leaves them, one after the other."""
        for pid in pieces:
            here, to = self.pos.get(pid), rest.get(pid)
            if here == to:
                continue
            if here is None or to is None:  # it comes onto the board or leaves it: straight, in a beat
                self.line(pid, to, self.now, self.now + 0.6)
                self.now += 0.6
            else:
                self.arc(pid, to, self.now, self.now + 1.0, LIFT_MM)
                self.now += 1.0

    def placed(self, pid: str, square: str) -> None:
        to = self.top(square)
        beats = 1.0 if self.pos.get(pid) is None else 1.2
        if self.pos.get(pid) is None:  # no hand to take it from: it drops into place
            self.key(pid, self.now, (to[0], to[1], to[2] + DROP_MM))
            self.line(pid, to, self.now, self.now + beats)
        else:
            self.arc(pid, to, self.now, self.now + beats, LIFT_MM)
        self.stacks.setdefault(square, []).append(pid)
        self.now += beats

    def sown(self, pid: str, origin: str, square: str, step: int) -> None:
        t = self.now
        if step == 1:  # pick the stack up: it rises off its square
            self.lifted = self.stacks.pop(origin, [])
            for p in self.lifted:
                a = self.pos[p]
                assert a is not None
                self.line(p, (a[0], a[1], a[2] + LIFT_MM), t, t + 0.6)
            t = self.now = t + 0.6
        # the lifted stack rises clear of the square's stack, moves over it, then its
        # bottom stone drops onto it
        x, y, _ = self.rep.table.seats[square]
        to = self.top(square)
        base = self.pos[self.lifted[0]]
        assert base is not None
        hover = max(base[2], to[2] + LIFT_MM)
        z = hover
        for p in self.lifted:
            here = self.pos[p]
            assert here is not None
            self.line(p, (here[0], here[1], z), t, t + 0.2)
            self.line(p, (x, y, z), t + 0.2, t + 0.6)
            z += self.rep.heights[p]
        self.line(pid, to, t + 0.6, t + 1.0)
        self.lifted = [p for p in self.lifted if p != pid]
        self.stacks.setdefault(square, []).append(pid)
        self.now = t + 1.0

    def moved(self, pid: str, path: Sequence[str]) -> None:
        pitch = self.rep.table.pitch_mm
        for a, b in itertools.pairwise(path):
            pa, pb = self.rep.table.seats[a], self.rep.table.seats[b]
            far = math.hypot(pb[0] - pa[0], pb[1] - pa[1]) > 1.01 * pitch  # a jump or a diagonal step
            # what a jump passes over: the cells between its ends (the one jumped, or a diagonal's two corners)
            over = max((self.top(q)[2] for q, (x, y, _) in self.rep.table.seats.items()
                        if min(pa[0], pb[0]) - 1 <= x <= max(pa[0], pb[0]) + 1
                        and min(pa[1], pb[1]) - 1 <= y <= max(pa[1], pb[1]) + 1 and q not in (a, b)),
                       default=-math.inf) if far else -math.inf
            self.arc(pid, self.top(b), self.now, self.now + (1.0 if far else 0.6), JUMP_MM if far else HOP_MM, over)
            self.now += 1.0 if far else 0.6
            self.stacks[a] = [p for p in self.stacks.get(a, []) if p != pid]
            self.stacks.setdefault(b, []).append(pid)

    def attack(self, attacker: str, target: str) -> None:
        a, b = self.pos[attacker], self.pos[target]
        if a is None or b is None:
            return
        z = max(a[2], b[2]) + HOP_MM  # clear of the target's cell, however high it stands
        t = self.now
        self.line(attacker, (a[0], a[1], z), t, t + 0.15)
        self.line(attacker, (a[0] + (b[0] - a[0]) * 0.3, a[1] + (b[1] - a[1]) * 0.3, z), t + 0.15, t + 0.35)
        self.line(attacker, (a[0], a[1], z), t + 0.35, t + 0.5)
        self.line(attacker, a, t + 0.5, t + 0.6)
        self.now += 0.6
        self.attacked = True

    def captured(self, pid: str, square: str, hand: Point | None = None) -> None:
        self.stacks[square] = [p for p in self.stacks.get(square, []) if p != pid]
        if not self.attacked:  # a trapped gem: lifted back to its owner's hand (or away)
            self.back_to_hand((pid,), {pid: hand}, 1.0)
            return
        a = self.pos[pid]
        if a is None:
            return
        lo, hi = self.rep.board_bounds
        cx = (lo[0] + hi[0]) / 2
        side = 1.0 if a[0] >= cx else -1.0  # knocked off towards the nearer side edge
        edge = hi[0] if side > 0 else lo[0]
        self.arc(pid, (edge + side * self.rep.table.pitch_mm, a[1], 0.0), self.now, self.now + 1.0, LIFT_MM)
        self.key(pid, self.now + 1.0, None)
        self.now += 1.0

    def exited(self, pid: str, square: str) -> None:
        a = self.pos[pid]
        self.stacks[square] = [p for p in self.stacks.get(square, []) if p != pid]
        if a is None:
            return
        lo, hi = self.rep.board_bounds
        far = hi[1] - a[1] < a[1] - lo[1]  # off the nearer of the near and far edges
        y = hi[1] + self.rep.table.pitch_mm if far else lo[1] - self.rep.table.pitch_mm
        self.line(pid, (a[0], y, a[2]), self.now, self.now + 0.6)  # across the rim at its own height
        self.line(pid, (a[0], y, 0.0), self.now + 0.6, self.now + 1.0)  # then down, clear of the board
        self.key(pid, self.now + 1.0, None)
        self.now += 1.0

    def back_to_hand(self, pieces: Sequence[str], rest: Mapping[str, Point | None], beats: float) -> None:
        """``pieces`` lifted off the board together: each back to its spot in hand where the
        table has one (Sage Stones' gems), else away (:meth:`vanish`)."""
        away = [pid for pid in pieces if rest.get(pid) is None or self.pos.get(pid) is None]
        for pid in pieces:
            to = rest.get(pid)
            if pid not in away and to is not None:
                self.arc(pid, to, self.now, self.now + beats, 2 * LIFT_MM)
        self.stacks = {sq: [p for p in ids if p not in set(pieces)] for sq, ids in self.stacks.items()}
        if away:
            self.vanish(away, beats)
        else:
            self.now += beats

    def vanish(self, pieces: Iterable[str], beats: float) -> None:
        for pid in pieces:
            a = self.pos[pid]
            if a is not None:
                self.line(pid, (a[0], a[1], a[2] + 2 * LIFT_MM), self.now, self.now + beats)
                self.key(pid, self.now + beats, None)
        self.stacks = {sq: [p for p in ids if p not in set(pieces)] for sq, ids in self.stacks.items()}
        self.now += beats
