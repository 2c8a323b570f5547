"""``stratstone-cad replay``: an engine log as an animated 3D scene.

The log is checked and replayed through its engine once, when it loads (an invalid log is
refused with check-log's one-line message), streaming, as check-log does. What is kept is a
seek point every N plies (a :class:`~stratstone_cad.log.logfile.Mark`: the byte after the
ply's line and the engine's state, an immutable value, with a copy of the game's
:class:`~stratstone_cad.engine.core.PieceLedger`), N doubling so that there are at most
:data:`MARKS` of them: a ply (its events named with the pieces they move, the places of
every piece after it, its keyframes) is rebuilt when it is asked for, from the nearest
seek point before it, and the last few hundred built are kept. A still or a range of plies
costs memory for what it shows, not for the length of the log; stepping on from a ply (an
export, the window's play) goes on from where the last one ended.

The scene is the game's printed set: the board made for the log's game (the terrain from
the log's heightmap) and one actor per physical piece (each of Stratstone's 24 pebbles
its own mesh), placed with the board's own numbers (:class:`~stratstone_cad.printing.jobs.Table`).
Actors are added once; a frame only moves them (``SetPosition``) and shows or hides them.

Animation follows the events, in order, each given a share of the ply's time:
``Placed`` brings a stone from the player's hand onto its stack (or drops a gem into its
well); ``Sown`` lifts the stack off its square (on the first one) and drops its bottom
stone on each square of the path in turn; ``Moved`` walks a piece square by square over
the heights (a step to a square that is not a neighbour, a Runner's jump or diagonal,
arcs high); ``Attacked`` lunges at the target, which ``Captured`` knocks off the board
(after an attack) or lifts away (a trapped gem); ``Exited`` slides the piece off the
board's near or far edge; ``BoardReset`` lifts every gem away. Positions are keyframes
interpolated in time, and the last keyframe of every piece is the place the ledger gives
it after the ply, so an animation always ends where the next one starts.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from stratstone_cad.base.params import load_colours, load_profiles
from stratstone_cad.engine.core import Attacked, BoardReset, Captured, Exited, Moved, Placed, Sown
from stratstone_cad.errors import LogError, ParameterError, UserError, counted, printable
from stratstone_cad.log.logfile import replay
from stratstone_cad.registry import GAMES, load_params
from stratstone_cad.viewer import writer
from stratstone_cad.viewer.assets import asset_mesh, game_assets
from stratstone_cad.viewer.overlays import Overlays, font_px
from stratstone_cad.viewer.preview import BACKGROUND, need_display, new_plotter, polydata, project
from stratstone_cad.viewer.writer import Progress

__all__ = ["GameOnTable", "Scene", "Timeline", "load"]

Point = tuple[float, float, float]
LIFT_MM = 14.0  # how high a stack or a gem is lifted
HOP_MM = 2.0  # how high a walking piece clears the higher of two cells
JUMP_MM = 14.0  # how high a Runner's jump or diagonal step arcs
DROP_MM = 30.0  # where a gem starts its drop into its well, above the well
KINDS = (".gif", ".mp4", ".png", ".glb", ".html", "dir")  # what --out can be
SHARED = (".glb", ".html")  # the kinds that are a scene, not pictures: viewer/gltf.py, viewer/web.py
MARKS = 1024
"""The most seek points kept for a log (their spacing doubles to keep to it)."""
FIRST_EVERY = 64  # the spacing of the seek points to start with, in plies
KEEP = 512  # plies built and kept (the most recently asked for)
BACK = 64  # plies built before the one asked for when it is rebuilt from a seek point (a step back is then instant)

# the scene's look (docs/benchmarks.md has what each costs)
COLOURS = ("levels", "print")  # what --colours can be
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
CAPTION_SAMPLES = 200  # the plies whose captions are measured for the lines the camera keeps clear of
STILL_SCALE = 2  # a still is rendered this many times larger and averaged down (anti-aliasing)


# --------------------------------------------------------------------------- the loaded game


@dataclass
class Ply:
    """One replayed ply: the log's facts, its events named with their pieces, the overlay
    lines, the squares to highlight, and where every piece rests after it; ``explain``: the
    engine's words for it (``check-log --explain``'s), ``before``: the state before it (the
    overlays ask it for the moves the piece to move had)."""

    number: int
    player: str
    move: str
    dice: tuple[int, ...] | None
    named: list[Any]
    rest: dict[str, Point | None]
    squares: tuple[str, ...]
    facts: dict[str, Any]
    keys: dict[str, list[tuple[float, Point | None]]] = field(default_factory=dict)
    explain: str = ""
    before: Any = None


@dataclass
class GameOnTable:
    """A loaded log: the game, the table, the piece meshes' sizes, the start and every ply
    (``plies`` is a sequence that builds a ply when it is asked for, see :class:`Plies`)."""

    game: str
    title: str
    players: list[str]
    table: Any
    assets: dict[str, Any]  # part name -> viewer Asset
    pieces: dict[str, Any]  # piece id -> Piece
    anchors: dict[str, np.ndarray]  # piece id -> its mesh's (centre x, centre y, bottom z)
    heights: dict[str, float]  # piece id -> height of its mesh
    initial: dict[str, Point | None]
    plies: Sequence[Ply]
    result: str | None  # "winner red (second exit)", on the last ply's overlay
    board_bounds: tuple[np.ndarray, np.ndarray]

    @property
    def count(self) -> int:
        return len(self.plies)

    def rest(self, ply: int) -> dict[str, Point | None]:
        """Where every piece rests after ``ply`` (0: the start)."""
        return self.initial if ply == 0 else self.plies[ply - 1].rest

    def at(self, ply: int, u: float) -> dict[str, Point | None]:
        """Every piece's place ``u`` (0-1) of the way through ``ply`` (1-based)."""
        start = self.rest(ply - 1)
        out = dict(start)
        for pid, keys in self.plies[ply - 1].keys.items():
            out[pid] = _sample(keys, u, start.get(pid))
        return out


def load(path: Path, sets: dict[str, str] | None = None, params_file: Path | None = None) -> GameOnTable:
    """Check and replay the log at ``path`` and lay its game out on the board, its parts
    made with the parameters of ``params_file`` (``--params``) and ``sets`` (``--set``).

    Raises :class:`LogError` (check-log's message) for an invalid log and
    :class:`ParameterError` for a bad ``--params`` file or ``--set``.
    """
    with replay(path) as r:  # the whole log checked, streaming; a seek point kept every `every` plies
        header, game, initial = r.header, r.game, r.initial
        ledger = game.ledger(initial)
        every = FIRST_EVERY
        marks = [(r.mark(), ledger.copy())]
        for st in r:
            ledger.follow(st.events)
            if st.ply % every == 0:
                marks.append((r.mark(), ledger.copy()))
                if len(marks) > MARKS:
                    marks, every = marks[::2], 2 * every  # those at multiples of 2 * every
        final = r.state.result() or r.logged_result
        count = r.state.ply
    ga = GAMES.get(game.name)
    if ga is None or ga.table is None:
        raise UserError(f"{path}: the viewer has no board for the game {game.name!r}")
    ps = load_params(params_file, sets, games=[game.name])
    params = ps.game(game.name)
    if ga.for_setup is not None:
        params = ga.for_setup(params, header.setup)
    profiles = load_profiles()
    assets = {name.split("/", 1)[1]: a for name, a in game_assets(ga, params, profiles, load_colours()).items()}
    ledger = game.ledger(initial)
    table = ga.table(params, profiles, ledger.pieces, game)
    anchors, heights = {}, {}
    for pid in ledger.pieces:
        lo, hi = asset_mesh(assets[table.assets[pid]]).bounds()
        anchors[pid] = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]])
        heights[pid] = float(hi[2] - lo[2])
    board_bounds = asset_mesh(assets[table.board]).bounds()
    plies = Plies(Path(path), count, marks, every)
    rep = GameOnTable(game.name, ga.title.split(":")[0], list(header.players), table, assets, dict(ledger.pieces), anchors,
                 heights, _rest(ledger, table, heights), plies, final.describe() if final else None, board_bounds)
    plies.rep = rep
    return rep


class Plies(Sequence[Ply]):
    """The plies of a loaded log, built when asked for: from where the last one asked for
    ended when that is nearer than the seek point before the ply, else from that seek
    point (the log replayed and checked again from its byte on, the ledger from its copy).
    The last :data:`KEEP` plies built are kept."""

    def __init__(self, path: Path, count: int, marks: list[tuple[Any, Any]], every: int) -> None:
        self.path, self.count, self.marks, self.every = path, count, marks, every
        self.rep: GameOnTable | None = None
        self.kept: dict[int, Ply] = {}  # ply number -> ply, the last asked for last
        self.replay: Any = None  # the replay the last ply was built with, left after it
        self.steps: Iterator[Any] | None = None
        self.ledger: Any = None
        self.at = -1  # the ply that replay and its ledger are after

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return f"<Plies of {self.path}: {self.count}, {len(self.kept)} built>"

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self.count))]
        k = i.__index__()
        if k < 0:
            k += self.count
        if not 0 <= k < self.count:
            raise IndexError("ply out of range")
        number = k + 1
        ply = self.kept.pop(number, None)
        if ply is None:
            ply = self._build(number)
        self.kept[number] = ply  # the most recent last
        return ply

    def _build(self, number: int) -> Ply:
        """Replay to ``number``, building it (and, from a seek point, up to :data:`BACK` plies before it)."""
        rep = self.rep
        assert rep is not None
        seek = (number - 1) // self.every  # the seek point at or before the ply before
        first = number - 1
        if not self.at >= seek * self.every or self.at >= number or self.steps is None:
            self.close()
            mark, ledger = self.marks[seek]
            self.replay = replay(self.path, start=mark)
            self.steps = iter(self.replay)
            self.ledger, self.at = ledger.copy(), mark.state.ply
            first = number - BACK
        game, ledger, table, heights = self.replay.game, self.ledger, rep.table, rep.heights
        built = None
        for st in self.steps:
            self.at = st.ply
            if st.ply < first:
                ledger.follow(st.events)
            else:
                timeline = Timeline(rep, _rest(ledger, table, heights), ledger.squares)  # the places before the ply
                named = ledger.follow(st.events)
                rest = _rest(ledger, table, heights)
                built = Ply(st.ply, st.player, st.move, st.chance, named, rest, _squares(named),
                            game.derived(st.before, st.after, st.events),
                            explain=game.explain(st.before, st.after, st.events), before=st.before)
                built.keys = timeline.play(named, rest)
                if st.ply < number:
                    self.kept.pop(st.ply, None)
                    self.kept[st.ply] = built
            if st.ply == number:
                break
        if built is None or built.number != number:  # pragma: no cover - the log was checked to this ply

            raise LogError(f"{self.path}: ended at ply {self.at}, before ply {number}; replay it again")
        while len(self.kept) >= KEEP:
            del self.kept[next(iter(self.kept))]
        return built

    def close(self) -> None:
        """Close the log if a replay holds it open."""
        if self.replay is not None:
            self.replay.close()
        self.replay = self.steps = None
        self.at = -1


def _rest(ledger: Any, table: Any, heights: Mapping[str, float]) -> dict[str, Point | None]:
    """Where every piece rests: stacked on its square's seat, in its reserve spot, or hidden."""
    out: dict[str, Point | None] = {}
    for sq, ids in ledger.squares.items():
        x, y, z = table.seats[sq]
        for pid in ids:
            out[pid] = (x, y, z)
            z += heights[pid]
    for ids in ledger.reserve.values():
        for pid in ids:
            out[pid] = table.reserve.get(pid)
    for pid in ledger.off:
        out[pid] = None
    return out


def _squares(named: Sequence[Any]) -> tuple[str, ...]:
    """The move's from and to squares: where it starts and where it ends."""
    sqs: list[str] = []
    for n in named:
        e = n.event
        if isinstance(e, Placed | Sown | Exited):
            sqs.append(e.square)
        elif isinstance(e, Moved):
            sqs += [e.path[0], e.path[-1]]
    if not sqs:
        return ()
    return (sqs[0], sqs[-1]) if sqs[0] != sqs[-1] else (sqs[0],)


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

    def __init__(self, rep: GameOnTable, start: Mapping[str, Point | None], stacks: Mapping[str, list[str]]) -> None:
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
            e, pieces = n.event, n.pieces
            if isinstance(e, Placed):
                self.placed(pieces[0], e.square)
            elif isinstance(e, Sown):
                self.sown(pieces[0], e.origin, e.square, e.step)
            elif isinstance(e, Moved):
                self.moved(pieces[0], e.path)
            elif isinstance(e, Attacked):
                self.attack(pieces[0], pieces[1])
            elif isinstance(e, Captured):
                self.captured(pieces[0], e.square)
            elif isinstance(e, Exited):
                self.exited(pieces[0], e.square)
            elif isinstance(e, BoardReset):
                self.vanish(pieces, 1.5)
        total = max(self.now, 1.0)
        out: dict[str, list[tuple[float, Point | None]]] = {}
        for pid, keys in self.keys.items():
            scaled = [(t / total, p) for t, p in keys]
            end = rest.get(pid)
            if scaled[-1][1] != end:  # the ledger's place is the last word (rounding, a hidden piece)
                scaled.append((1.0, end))
            out[pid] = scaled
        return out

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

    def captured(self, pid: str, square: str) -> None:
        self.stacks[square] = [p for p in self.stacks.get(square, []) if p != pid]
        if not self.attacked:  # a trapped gem: lifted away
            self.vanish((pid,), 1.0)
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

    def vanish(self, pieces: Iterable[str], beats: float) -> None:
        for pid in pieces:
            a = self.pos[pid]
            if a is not None:
                self.line(pid, (a[0], a[1], a[2] + 2 * LIFT_MM), self.now, self.now + beats)
                self.key(pid, self.now + beats, None)
        self.stacks = {sq: [p for p in ids if p not in set(pieces)] for sq, ids in self.stacks.items()}
        self.now += beats


# --------------------------------------------------------------------------- the scene


def _overlay(rep: GameOnTable, ply: int, done: bool = True) -> str:
    """The overlay's lines while ``ply`` is shown: its move and the engine's words for it;
    the facts after it (stones in hand, on the board, the score) and, after the last, the
    result, once it is ``done`` (before, the facts of the ply before, and the words without
    the result)."""
    if ply == 0:
        return f"{rep.title}: start, {counted(rep.count, 'ply', 'plies')}\n{', '.join(rep.players)}"
    p = rep.plies[ply - 1]
    head = f"ply {p.number}/{rep.count}   {p.player}   {p.move}"
    if p.dice:
        head += "   dice " + "-".join(str(d) for d in p.dice)
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
        :data:`COLOURS`; ``scale``: the scene is rendered that many times larger and
        :meth:`image` averages each block of scale x scale pixels into one (a still's
        anti-aliasing); ``reach``: light the squares the piece to move could reach
        (:class:`~stratstone_cad.viewer.overlays.Overlays`); ``captions``: the plies that
        will be shown (default: every one), whose captions, wrapped, the camera keeps the
        board clear of (:meth:`_caption_lines`)."""
        # start-up speed: VTK only where something is rendered
        import pyvista as pv

        if colours not in COLOURS:
            raise ParameterError(f"--colours {printable(repr(colours))[:40]}: expected {' or '.join(COLOURS)}")
        self.rep, self.size, self.scale = rep, size, scale
        samples = pv.global_theme.multi_samples
        if off_screen and not smooth:  # an animation's frames: no multisampling (docs/benchmarks.md)
            pv.global_theme.multi_samples = 0
        try:
            self.p = new_plotter((size[0] * scale, size[1] * scale), off_screen)
        finally:
            pv.global_theme.multi_samples = samples
        self.p.set_background(BACKGROUND)
        table = rep.table
        board = rep.assets[table.board]
        mesh = asset_mesh(board)
        self.levels = level_colours(table.levels.values()) if colours == "levels" else {}
        if self.levels:
            shown, texture = _level_texture(mesh, table, self.levels, board.colour)
            self.p.add_mesh(shown, texture=texture, smooth_shading=True, specular=0.2, name="board")
        else:
            self.p.add_mesh(polydata(mesh), color=board.colour, smooth_shading=True, split_sharp_edges=True,
                            specular=0.2, name="board")
        self.actors: dict[str, Any] = {}
        self.shadows: dict[str, Any] = {}
        footprints: dict[str, Any] = {}
        for pid in rep.pieces:
            asset = rep.assets[table.assets[pid]]
            self.actors[pid] = self.p.add_mesh(polydata(asset_mesh(asset)), color=asset.colour, smooth_shading=True,
                                               split_sharp_edges=True, specular=0.3, name=pid)
            if asset.name not in footprints:
                footprints[asset.name] = _footprint(asset_mesh(asset), rep.anchors[pid])
            self.shadows[pid] = self.p.add_mesh(footprints[asset.name], color="black", opacity=SHADOW_OPACITY,
                                                lighting=False, name=f"shadow-{pid}")
        # the shadows blend in VTK's plain translucent pass: its order-independent one, the
        # default, cost about 30 % more a frame (docs/benchmarks.md)
        self.p.renderer.SetUseOIT(False)
        self.cells = Cells(table)
        # where a piece off the cells casts its shadow: on the rim over the board, else the table
        self.rim = min((table.tops.get(sq, z) for sq, (_, _, z) in table.seats.items()),
                       default=float(rep.board_bounds[1][2]))
        self._light()
        self.p.renderer.AddObserver("StartEvent", lambda *_: self._shade())  # every render, the window's too
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
        return max([TEXT_LINES, *(caption.wrap(_overlay(self.rep, ply)).count("\n") + 1 for ply in plies)])

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
        lo, hi = (np.asarray(b, float) for b in rep.board_bounds)
        tallest = max(rep.heights.values(), default=0.0)
        seats = np.array(list(rep.table.seats.values()), float).reshape(-1, 3)
        top = max(hi[2], float(seats[:, 2].max(initial=lo[2])) + tallest)
        r = rep.table.pitch_mm / 2  # a piece in hand reaches about half a cell round its spot
        boxes = [(lo, np.array([hi[0], hi[1], top]))]
        boxes += [(np.array([x - r, y - r, z]), np.array([x + r, y + r, z + tallest]))
                  for x, y, z in rep.table.reserve.values()]
        pts = np.concatenate([_box_edges(a, b) for a, b in boxes])
        cells = np.array([(x, y, hi[2]) for x in (seats[:, 0].min(initial=lo[0]) - r, seats[:, 0].max(initial=hi[0]) + r)
                          for y in (seats[:, 1].min(initial=lo[1]) - r, seats[:, 1].max(initial=hi[1]) + r)])[[0, 1, 3, 2]]
        centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
        centre[2] = lo[2]
        span = float(np.ptp(pts[:, :2], axis=0).max())
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
        swatches.cell_data["colour"] = np.array([_hex_rgb(self.levels[lv]) for lv in order], np.uint8)
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
        done = ply == 0 or u >= 1.0
        if (ply, done) != self.shown:
            self.overlays.show(ply, done, _overlay(rep, ply, done))
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
    ramp = np.array([_hex_rgb(c) for c in LEVEL_COLOURS])
    out = {}
    for i, lv in enumerate(present):
        t = i / max(len(present) - 1, 1) * (len(ramp) - 1)
        k = min(int(t), len(ramp) - 2)
        out[lv] = "#" + "".join(f"{round(v):02x}" for v in ramp[k] + (ramp[k + 1] - ramp[k]) * (t - k))
    return out


def _hex_rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


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
    image[:] = _hex_rgb(base)
    for c in range(cols):
        for r in range(rows):
            k = cells.index[c, r]
            if k >= 0:
                image[r + 1, c + 1] = _hex_rgb(colours[table.levels[cells.squares[k]]])
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


# --------------------------------------------------------------------------- exports


def frames(rep: GameOnTable, per_ply: int, first: int = 1, last: int | None = None) -> list[tuple[int, float]]:
    """(ply, u) of every frame of an export: the position before ``first``, then
    ``per_ply`` frames of each ply to ``last``, the last of each at its end."""
    return list(_frames(per_ply, first, rep.count if last is None else last))


def _frames(per_ply: int, first: int, last: int) -> Iterator[tuple[int, float]]:
    """:func:`frames` one by one (an MP4 of a long game need not hold them all)."""
    yield (first - 1, 1.0)
    for ply in range(first, last + 1):
        for k in range(1, per_ply + 1):
            yield (ply, k / per_ply)


#: How long a GIF or MP4 shows the last position (seconds) before it ends or loops.
HOLD_S = 1.5


def check_out(out: Path, size: tuple[int, int] = (1280, 720)) -> str:
    """The kind of an export target, refused in one line before anything is rendered:
    ``.gif``, ``.mp4``, ``.png`` or ``dir`` (a new folder for PNG frames: a name without a
    suffix where nothing is yet)."""
    return writer.check_target(out, KINDS, size)


def export(rep: GameOnTable, out: Path, *, size: tuple[int, int] = (1280, 720), fps: int = 10, per_ply: int = 10,
           ply: int | None = None, plies: tuple[int, int] | None = None, progress: Progress | None = None,
           colours: str = "levels", reach: bool = False, hold_s: float = HOLD_S) -> int:
    """Write the replay (or the position after ``ply`` as a PNG; ``plies``: only plies
    first-last; ``colours``: one of :data:`COLOURS`; ``reach``: the squares the piece to
    move could reach, see :class:`Scene`; ``hold_s``: how long a GIF or MP4 shows the
    last position); returns the frames the file holds. Written whole or not at all, by
    :func:`~stratstone_cad.viewer.writer.publish`: a failed write is a one-line
    :class:`OutputError` and leaves the target as it was."""
    kind = check_out(out, size)
    if colours not in COLOURS:
        raise ParameterError(f"--colours {printable(repr(colours))[:40]}: expected {' or '.join(COLOURS)}")
    if ply is not None and not 0 <= ply <= rep.count:
        raise ParameterError(f"--ply {ply}: expected a ply from 0 to {rep.count}")
    if plies is not None and not 1 <= plies[0] <= plies[1] <= rep.count:
        raise ParameterError(f"--plies {plies[0]}-{plies[1]}: expected FIRST-LAST with 1 <= FIRST <= LAST <= {rep.count}")
    if ply is not None and kind != ".png":
        raise ParameterError(f"--ply {ply}: only with --out FILE.png (one position)")
    first, last = plies or (1, rep.count)  # a log of no plies: its start, one frame
    if kind == ".png":
        todo: Iterable[tuple[int, float]] = [(rep.count if ply is None else ply, 1.0)]
        n = 1
    else:
        todo, n = _frames(per_ply, first, last), 1 + per_ply * (last - first + 1)
    writer.check_frames(out, kind, n, size, fps, fewer="fewer --plies or --frames-per-ply")
    bar = progress or Progress(n, f"replay {out.name}")
    shown = [rep.count if ply is None else ply] if kind == ".png" else range(first - 1, last + 1)
    return writer.publish(out, kind, _render(rep, todo, size, still=kind == ".png", colours=colours, reach=reach,
                                             captions=shown), fps=fps,
                          bar=bar, hold_s=hold_s if kind in (".gif", ".mp4") else 0.0)


def _render(rep: GameOnTable, todo: Iterable[tuple[int, float]], size: tuple[int, int], still: bool,
            colours: str = "levels", reach: bool = False, captions: Sequence[int] | None = None) -> Iterator[np.ndarray]:
    """The frames of ``todo`` (ply, time within it), rendered one by one as they are asked
    for. A still (one PNG) is rendered :data:`STILL_SCALE` times larger and averaged down,
    anti-aliased; an animation's frames at their size and without multisampling, which
    would cost more than a frame's budget (docs/benchmarks.md)."""
    scene = Scene(rep, size, smooth=False, colours=colours, scale=STILL_SCALE if still else 1, reach=reach,
                  captions=captions)
    try:
        for pl, u in todo:
            scene.show(pl, u)
            yield scene.image()
    finally:
        scene.close()
        if isinstance(rep.plies, Plies):
            rep.plies.close()  # the log, held open to step on from the last ply built


# --------------------------------------------------------------------------- the window


class Controls:
    """What the keys, the slider and the play timer do: a ply and a frame within it."""

    def __init__(self, scene: Scene, per_ply: int, redraw: Callable[[], None] | None = None) -> None:
        self.scene, self.per_ply = scene, per_ply
        self.ply, self.frame = 0, per_ply
        self.playing = False
        self.redraw = redraw or (lambda: None)
        self.slider: Any = None  # the window's slider, set by bind

    def _go(self, ply: int, frame: int | None = None) -> None:
        self.ply = max(0, min(self.scene.rep.count, ply))
        self.frame = self.per_ply if frame is None else frame
        self.scene.show(self.ply, self.frame / self.per_ply)
        if self.slider is not None and round(self.slider.GetRepresentation().GetValue()) != self.ply:
            self.slider.GetRepresentation().SetValue(self.ply)  # the slider follows the keys and the play
        self.redraw()

    def next(self) -> None:
        """Right: the position after the next ply."""
        self._go(self.ply + 1)

    def previous(self) -> None:
        self._go(self.ply - 1)

    def first(self) -> None:
        self._go(0)

    def last(self) -> None:
        self._go(self.scene.rep.count)

    def toggle(self) -> None:
        """Space: play from here (from the start when at the end), or pause."""
        if not self.playing and self.ply >= self.scene.rep.count:
            self._go(0)
        self.playing = not self.playing

    def seek(self, value: float) -> None:
        """The slider: to the end of ply ``value`` (a move of the slider made by _go itself is no seek)."""
        if round(value) != self.ply or self.frame != self.per_ply:
            self._go(round(value))

    def tick(self) -> None:
        """One frame of play: the next frame of the next ply; stops at the end."""
        if not self.playing:
            return
        if self.frame >= self.per_ply:
            if self.ply >= self.scene.rep.count:
                self.playing = False
                return
            self._go(self.ply + 1, 1)
        else:
            self._go(self.ply, self.frame + 1)


KEYS = {"Right": "next", "Left": "previous", "Home": "first", "End": "last", "space": "toggle"}


def bind(scene: Scene, per_ply: int, fps: int) -> Controls:
    """Bind the keys, the slider and the play timer of ``scene``'s plotter to new Controls."""
    p = scene.p
    controls = Controls(scene, per_ply, redraw=lambda: p.render() if getattr(p, "_rendered", True) else None)
    for key, method in KEYS.items():
        p.add_key_event(key, getattr(controls, method))
    slider = p.add_slider_widget(lambda v: controls.seek(v), [0, max(scene.rep.count, 1)], value=0, title="ply",
                                 pointa=(0.55, 0.08), pointb=(0.95, 0.08), fmt="%.0f", style="modern",
                                 interaction_event="always")
    controls.slider = slider
    if p.iren is not None and not p.off_screen:
        p.iren.add_observer("TimerEvent", lambda *_: controls.tick())
        p.iren.create_timer(max(10, 1000 // fps), repeating=True)
    controls.first()
    return controls


def show_window(rep: GameOnTable, per_ply: int, fps: int, colours: str = "levels", reach: bool = True) -> None:
    """The interactive window (it needs a display); ``reach`` as :class:`Scene`'s, on by default here."""
    need_display("replay", "--out FILE.html (a page that plays in any browser), FILE.gif, .mp4, .png, .glb or a folder")
    scene = Scene(rep, (1280, 800), off_screen=False, colours=colours, reach=reach)
    bind(scene, per_ply, fps)
    scene.p.add_text("Left/Right: ply   Home/End: first/last   Space: play/pause   drag: orbit", position="lower_left",
                     font_size=9, color="black")
    scene.p.show(title=f"stratstone-cad replay: {rep.title}")
