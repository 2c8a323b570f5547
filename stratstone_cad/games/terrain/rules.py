"""The terrain game: Red and Blue race six pieces each across a 10 x 10 heightmap.

Squares ``a1``-``j10`` (files ``a``-``j`` left to right, ranks ``1``-``10`` bottom to top).
Red starts on rank 1 and exits past rank 10, Blue the reverse; each side has, on files
c-h of its start row, Guardian, Lancer, Runner, Runner, Lancer, Guardian. Runner: move 5,
strength 1; Lancer 4 / 2; Guardian 3 / 3. Red moves first.

A piece walks orthogonally; a step costs ``|height difference| + 1`` movement points, the
path may turn but not pass through pieces. A Runner may instead make one diagonal step
or a straight two-square jump over an empty square, both ignoring height. A piece attacks
an enemy it can reach when its strength (with the height of the square it steps in from,
the Lancer's charge and friendly neighbours of the target) is at least the defender's
(with the defender's friendly neighbours). A piece exits by reaching its last row with a
point to spare or by starting its turn there, and scores its strength. Interpretations,
with the reasons, are in docs/rules.md (section "The terrain game").

Move text: ``c1-c4`` (move), ``c1xc5`` (attack), ``e7-exit`` (exit, from the square the
piece stands on), ``pass``.

The heightmap rule, the fairness measure and the generator are in :mod:`.terrain_map`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from stratstone_cad.engine.events import (
    Attacked,
    Captured,
    Event,
    Exited,
    GameOver,
    Moved,
    Result,
    Term,
    TurnLost,
    event_words,
    sum_text,
)
from stratstone_cad.engine.ledger import Piece, PieceLedger
from stratstone_cad.engine.protocol import Game, NoChance, fast_two_sides_ply, softmax, square_cell
from stratstone_cad.errors import MoveTextError, RuleViolation, SetupError, short_repr
from stratstone_cad.games.terrain import kit
from stratstone_cad.games.terrain.facts import FILES, KINDS, MAP_FIELDS, MOVE_TEXT, NAME, PLAYERS, SQUARE, STRENGTH, TITLES
from stratstone_cad.games.terrain.terrain_map import (
    SIZE,
    TerrainError,
    check_heightmap,
    fairness_warning,
    generate,
    load_heightmap_file,
)

__all__ = [
    "GAME",
    "KINDS",
    "MAX_MOVES",
    "MOVE_POINTS",
    "PASS",
    "PLAYERS",
    "RULES",
    "SQUARES",
    "STRENGTH",
    "Terrain",
    "TerrainGame",
    "TerrainLedger",
    "TerrainMove",
    "TerrainState",
    "attack_strengths",
    "attack_terms",
    "parse_square",
]

RULES = "terrain/1"
RED, BLUE = 0, 1
RUNNER, LANCER, GUARDIAN = 0, 1, 2
MOVE_POINTS = (5, 4, 3)
"""Movement points of a Runner, a Lancer and a Guardian."""
START_ORDER = (GUARDIAN, LANCER, RUNNER, RUNNER, LANCER, GUARDIAN)
"""Kinds on files c-h of each start row."""
PER_KIND = 2
"""Pieces of each kind per side."""
CHARGE_COST = 4
"""A Lancer whose cheapest path to the target costs exactly this gets +1 (the charge)."""
MAX_MOVES = 200
"""After this many plies (moves and passes of both sides) the game ends on the tie-breaks."""

N_SQ = SIZE * SIZE
SQUARES = tuple(f"{FILES[i % SIZE]}{i // SIZE + 1}" for i in range(N_SQ))
"""Square names by index; index = file + 10 * (rank - 1): a1 = 0, j1 = 9, a2 = 10, j10 = 99."""
_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARES)}


def parse_square(text: str) -> tuple[int, int]:
    """``"c7"`` -> (2, 6): file and rank, 0-based; raises SquareError."""
    return square_cell(text, _SQUARE_INDEX, SIZE, "a1-j10: file a-j, rank 1-10")

_RANK = tuple(i // SIZE for i in range(N_SQ))
_LAST_RANK = (SIZE - 1, 0)
"""0-based exit rank of Red and of Blue."""
_START_RANK = (0, SIZE - 1)

# A piece on the board is a code 1-6: 1 + side * 3 + kind (0 is an empty square).
_SIDE = (-1, 0, 0, 0, 1, 1, 1)
_KIND = (-1, 0, 1, 2, 0, 1, 2)

_LOSES, _ADVANCES, _CAPTURES, _EXITS, _WINS = range(5)
"""The greedy player's tiers of a move (:meth:`TerrainState._ranked`), worst first."""
PRIOR_LOGITS = {
    _WINS: lambda v: 8.0,
    _EXITS: lambda v: 2.0 + v,
    _CAPTURES: lambda v: 1.0 + v,
    _ADVANCES: lambda v: 0.5 * v,
    _LOSES: lambda v: -4.0,
}
"""The search's prior (:meth:`TerrainState.move_prior`): each move's logit from its tier and
value, softmaxed. A win is e^8 (about 3,000) times as likely as a plain move, an exit of a
Guardian e^5 (about 150) times, a rank gained e^0.5 (1.6) times, a move that loses at once
e^-4 (1/55) times. With these the search scored 38 won, 2 drawn of 40 against greedy where
it had scored 21 of 62 with UCT and no prior (docs/benchmarks.md)."""
_PIECE_NAMES = {f"{PLAYERS[side]} {KINDS[kind]}": 1 + side * 3 + kind for side in (0, 1) for kind in (0, 1, 2)}
_CODE_NAME = {code: name for name, code in _PIECE_NAMES.items()}


def _neighbours(p: int) -> tuple[int, ...]:
    """Orthogonal neighbours of ``p`` in the order N, E, S, W (off-board ones left out)."""
    f, r = p % SIZE, p // SIZE
    out = []
    if r < SIZE - 1:
        out.append(p + SIZE)
    if f < SIZE - 1:
        out.append(p + 1)
    if r:
        out.append(p - SIZE)
    if f:
        out.append(p - 1)
    return tuple(out)


NEIGHBOURS = tuple(_neighbours(p) for p in range(N_SQ))
"""``NEIGHBOURS[p]``: orthogonal neighbours, N E S W."""


def _diagonals(p: int) -> tuple[int, ...]:
    f, r = p % SIZE, p // SIZE
    return tuple(
        (f + df) + SIZE * (r + dr) for df, dr in ((1, 1), (1, -1), (-1, -1), (-1, 1)) if 0 <= f + df < SIZE and 0 <= r + dr < SIZE
    )


def _jumps(p: int) -> tuple[tuple[int, int], ...]:
    f, r = p % SIZE, p // SIZE
    return tuple(
        ((f + df) + SIZE * (r + dr), (f + 2 * df) + SIZE * (r + 2 * dr))
        for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0))
        if 0 <= f + 2 * df < SIZE and 0 <= r + 2 * dr < SIZE
    )


DIAGONALS = tuple(_diagonals(p) for p in range(N_SQ))
"""``DIAGONALS[p]``: the Runner's diagonal steps from ``p`` (NE, SE, SW, NW)."""
JUMPS = tuple(_jumps(p) for p in range(N_SQ))
"""``JUMPS[p]``: the Runner's straight jumps from ``p`` as ``(square jumped over, landing square)``."""
RUNNER_STEPS = tuple(tuple((-1, d) for d in DIAGONALS[p]) + JUMPS[p] for p in range(N_SQ))
"""``RUNNER_STEPS[p]``: the Runner's height-blind steps from ``p`` as ``(square jumped over
or -1, landing square)``: the diagonal steps, then the jumps."""

REASON_GUARDIAN = "guardian exited first"
REASON_SECOND_EXIT = "second exit"
REASON_NO_PIECES = "no pieces left"
REASON_REPETITION = "threefold repetition"
REASON_LIMIT_SCORE = "200 moves: higher score"
REASON_LIMIT_FINISH = "200 moves: piece closest to the finish"
REASON_LIMIT_STRENGTH = "200 moves: strongest piece"
REASON_LIMIT_EQUAL = "200 moves: all tie-breaks equal"
REASON_PASS = "no legal move"

_MOVE_RE = re.compile(rf"({SQUARE})(?:([-x])({SQUARE})|(-exit))")

BOARD_KEY = ("key: each square is its level, then its piece: capitals are Red's, small letters Blue's ("
             + ", ".join(f"{t[0]} {t}" for t in TITLES) + "), . no piece")
"""The text board's last line (:meth:`TerrainState.board_text`): what its letters say."""


# --------------------------------------------------------------------------- moves

MOVE, ATTACK, EXIT, PASS_KIND = "move", "attack", "exit", "pass"


@dataclass(frozen=True, slots=True)
class TerrainMove:
    """A move: ``kind`` is ``"move"``, ``"attack"``, ``"exit"`` or ``"pass"``.

    ``frm`` and ``to`` are square indices (0-99; ``to`` is -1 for an exit, both -1 for a
    pass). ``str()`` is the canonical text: ``c1-c4``, ``c1xc5``, ``e7-exit``, ``pass``.
    """

    kind: str
    frm: int
    to: int

    def __str__(self) -> str:
        if self.kind == MOVE:
            return f"{SQUARES[self.frm]}-{SQUARES[self.to]}"
        if self.kind == ATTACK:
            return f"{SQUARES[self.frm]}x{SQUARES[self.to]}"
        if self.kind == EXIT:
            return f"{SQUARES[self.frm]}-exit"
        return "pass"

    @classmethod
    def parse(cls, text: str, ply: int = 0) -> TerrainMove:
        """Parse ``c1-c4``, ``c1xc5``, ``e7-exit`` or ``pass``; raises :class:`MoveTextError`.

        Raises:
            MoveTextError: the text is not a terrain-game move.
        """
        if text == "pass":
            return PASS
        m = _MOVE_RE.fullmatch(text) if isinstance(text, str) else None
        if m is None:
            raise MoveTextError(text if isinstance(text, str) else repr(text), ply, MOVE_TEXT)
        frm = _SQUARE_INDEX[m.group(1)]
        if m.group(4):
            return _move(EXIT, frm, -1)
        return _move(MOVE if m.group(2) == "-" else ATTACK, frm, _SQUARE_INDEX[m.group(3)])


PASS = TerrainMove(PASS_KIND, -1, -1)
_CACHE: dict[tuple[str, int, int], TerrainMove] = {}


def _move(kind: str, frm: int, to: int) -> TerrainMove:
    """The (shared, immutable) move object; cached so legal-move generation allocates little."""
    key = (kind, frm, to)
    m = _CACHE.get(key)
    if m is None:
        m = _CACHE[key] = TerrainMove(kind, frm, to)
    return m


def _well_formed(move: object) -> bool:
    if type(move) is not TerrainMove:
        return False
    kind, frm, to = move.kind, move.frm, move.to
    if kind == PASS_KIND:
        return frm == -1 and to == -1
    if type(frm) is not int or not 0 <= frm < N_SQ or type(to) is not int:
        return False
    if kind == EXIT:
        return to == -1
    return kind in (MOVE, ATTACK) and 0 <= to < N_SQ


# --------------------------------------------------------------------------- terrain


class Terrain:
    """A checked heightmap with the tables the engine walks on (shared by all states).

    ``levels[i]`` is the level of square ``i``; ``adj[p]`` lists ``(q, cost, sign)`` for
    each orthogonal neighbour ``q`` (N, E, S, W): the step cost ``|dh| + 1`` and the sign
    of ``level[p] - level[q]`` (+1 when stepping from ``p`` onto ``q`` comes from higher).
    """

    __slots__ = ("adj", "heightmap", "levels", "seed")

    def __init__(self, heightmap: Sequence[Sequence[int]], seed: int | None = None) -> None:
        rows = check_heightmap(heightmap)
        self.heightmap: tuple[tuple[int, ...], ...] = rows
        self.seed = seed
        levels = tuple(rows[r][f] for r in range(SIZE) for f in range(SIZE))
        self.levels = levels
        self.adj = tuple(
            tuple((q, abs(levels[p] - levels[q]) + 1, (levels[p] > levels[q]) - (levels[p] < levels[q])) for q in NEIGHBOURS[p])
            for p in range(N_SQ)
        )

    def level(self, square: str) -> int:
        """Level of ``square`` (e.g. ``"c4"``)."""
        return self.levels[_SQUARE_INDEX[square]]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Terrain) and self.levels == other.levels

    def __hash__(self) -> int:
        return hash(self.levels)


# --------------------------------------------------------------------------- reach


def _reach(
    adj: tuple[Any, ...], board: bytes, s: int, budget: int, side: int, last_lo: int
) -> tuple[dict[int, int], dict[int, list[int]], int]:
    """Where the piece on ``s`` can walk with ``budget`` points (bucket-queue Dijkstra).

    Returns ``dist`` (empty squares reached, and ``s`` at 0), ``hits`` (enemy square ->
    ``[cheapest cost, best height sign]`` over the steps onto it that fit the budget) and
    the cost of the cheapest path to a square of the exit row (rows ``last_lo`` to
    ``last_lo + 9``), or -1 when none is reached with a point to spare.
    """
    dist = {s: 0}
    hits: dict[int, list[int]] = {}
    buckets: list[list[int]] = [[s], [], [], [], [], []]
    exit_cost = -1
    last_hi = last_lo + SIZE
    for c in range(budget + 1):
        for p in buckets[c]:
            if dist[p] != c:
                continue
            if exit_cost < 0 and c < budget and last_lo <= p < last_hi:
                exit_cost = c
            for q, w, sg in adj[p]:
                nc = c + w
                if nc > budget:
                    continue
                v = board[q]
                if not v:
                    d = dist.get(q)
                    if d is None or nc < d:
                        dist[q] = nc
                        buckets[nc].append(q)
                elif _SIDE[v] != side:
                    h = hits.get(q)
                    if h is None:
                        hits[q] = [nc, sg]
                    else:
                        if nc < h[0]:
                            h[0] = nc
                        if sg > h[1]:
                            h[1] = sg
    return dist, hits, exit_cost


def _paths(adj: tuple[Any, ...], board: bytes, s: int, budget: int) -> tuple[dict[int, int], dict[int, int]]:
    """Cheapest costs from ``s`` over empty squares (up to ``budget``) and each square's parent.

    Ties keep the first path found (neighbours in N, E, S, W order, cheapest first), so
    the path an event shows is the same on every replay.
    """
    dist = {s: 0}
    parent = {s: -1}
    buckets: list[list[int]] = [[] for _ in range(budget + 1)]
    buckets[0].append(s)
    for c in range(budget + 1):
        for p in buckets[c]:
            if dist[p] != c:
                continue
            for q, w, _ in adj[p]:
                nc = c + w
                if nc > budget or board[q]:
                    continue
                d = dist.get(q)
                if d is None or nc < d:
                    dist[q] = nc
                    parent[q] = p
                    buckets[nc].append(q)
    return dist, parent


def _path_to(parent: Mapping[int, int], q: int) -> tuple[int, ...]:
    path = []
    while q >= 0:
        path.append(q)
        q = parent[q]
    return tuple(reversed(path))


def attack_strengths(board: bytes, s: int, t: int, sign: int, cost: int) -> tuple[int, int]:
    """``(attacker, defender)`` strengths of the piece on ``s`` attacking the piece on ``t``.

    ``sign`` is +1 when the attacker steps onto ``t`` from a higher square, -1 from a
    lower one, 0 from the same level; ``cost`` is the cheapest path cost to ``t`` (a
    Lancer gets +1 when it is exactly 4). The attacker adds the strength of each other
    friendly piece orthogonally next to ``t``; the defender adds 1 per friendly piece
    orthogonally next to ``t``.
    """
    code = board[s]
    side, kind = _SIDE[code], _KIND[code]
    att = STRENGTH[kind] + sign + (kind == LANCER and cost == CHARGE_COST)
    dfn = STRENGTH[_KIND[board[t]]]
    for q in NEIGHBOURS[t]:
        v = board[q]
        if v and q != s:
            if _SIDE[v] == side:
                att += STRENGTH[_KIND[v]]
            else:
                dfn += 1
    return att, dfn


def attack_terms(board: bytes, s: int, t: int, sign: int, cost: int) -> tuple[tuple[Term, ...], tuple[Term, ...]]:
    """The two strengths of :func:`attack_strengths`, term by term, as a player adds them up:
    the attacker's (its strength, the height, the Lancer's charge, each other friendly
    piece next to ``t``) and the defender's (its strength, each of its friends next to
    ``t``). An attack is legal when the first sums to at least the second; ``apply``
    decides by these sums and its ``Attacked`` event carries them, so what a replay shows
    is what the rules compared. Legal-move generation adds up the same numbers without
    naming them (:func:`attack_strengths`, a test holds the two equal)."""
    code = board[s]
    side, kind = _SIDE[code], _KIND[code]
    att = [Term(TITLES[kind], STRENGTH[kind])]
    if sign:
        att.append(Term("higher ground" if sign > 0 else "lower ground", sign))
    if kind == LANCER and cost == CHARGE_COST:
        att.append(Term("charge", 1))
    target = _KIND[board[t]]
    dfn = [Term(TITLES[target], STRENGTH[target])]
    for q in NEIGHBOURS[t]:
        v = board[q]
        if v and q != s:
            if _SIDE[v] == side:
                att.append(Term(f"{TITLES[_KIND[v]]} on {SQUARES[q]}", STRENGTH[_KIND[v]], SQUARES[q]))
            else:
                dfn.append(Term(f"{TITLES[_KIND[v]]} on {SQUARES[q]}", 1, SQUARES[q]))
    return tuple(att), tuple(dfn)


def _strength_text(attack: Sequence[Term], defence: Sequence[Term], target: str) -> str:
    """``2 (Runner 1, +1 from higher ground) against 3 (Guardian 3)`` for a message."""
    a = [f"{attack[0].what} {attack[0].value}"]
    helpers = [x for x in attack[1:] if x.square]
    for x in attack[1:]:
        if not x.square:
            a.append(f"+1 {x.what}" if x.what == "charge" else f"{x.value:+d} from {x.what}")
    if helpers:
        n = len(helpers)
        a.append(f"+{sum(x.value for x in helpers)} from {n} friend{'s' if n > 1 else ''} next to {target}")
    d = [f"{defence[0].what} {defence[0].value}"]
    if len(defence) > 1:
        n = len(defence) - 1
        d.append(f"+{n} for {n} neighbour{'s' if n > 1 else ''}")
    return f"{sum(x.value for x in attack)} ({', '.join(a)}) against {sum(x.value for x in defence)} ({', '.join(d)})"


def _step_costs(dist: Mapping[int, int], path: Sequence[int]) -> tuple[int, ...]:
    """The cost of each step of ``path`` (a cheapest path of ``dist``'s search)."""
    return tuple(dist[b] - dist[a] for a, b in pairwise(path))


# --------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True, repr=False)
class TerrainState(NoChance):
    """A terrain-game position (immutable).

    ``board`` is 100 bytes, one per square (index file + 10 * (rank - 1)): 0 empty, else
    ``1 + side * 3 + kind`` (side 0 red, 1 blue; kind 0 Runner, 1 Lancer, 2 Guardian).
    ``pieces[side]`` lists that side's squares, ascending. ``scores`` are the points
    scored; ``exits`` the exits so far (by either side); ``moves_played`` the plies played
    before this log's ply 1 (hand-made setups), counted towards the 200-move limit.
    ``history`` holds the positions since the last capture or exit (for repetition).
    """

    GAME_TITLE = "the terrain game"

    terrain: Terrain
    board: bytes
    pieces: tuple[tuple[int, ...], tuple[int, ...]] = field(compare=False)  # follows from the board
    turn: int
    ply: int
    scores: tuple[int, int]
    exits: int
    moves_played: int
    history: tuple[bytes, ...]
    _result: Result | None

    # -- construction ------------------------------------------------------------------

    @classmethod
    def start(cls, heightmap: Sequence[Sequence[int]], terrain_seed: int | None = None) -> TerrainState:
        """The standard start on ``heightmap``: six pieces each, Red to move."""
        return cls.from_setup({"terrain_seed": terrain_seed, "heightmap": heightmap})

    @classmethod
    def from_setup(cls, setup: Mapping[str, Any], players: Sequence[str] = PLAYERS) -> TerrainState:
        """Build the state from a log setup.

        ``heightmap`` (required) and ``terrain_seed`` (informative); for hand-made
        positions optionally ``pieces`` (square -> ``"red runner"`` ..., default the start
        position), ``first`` (the side to play ply 1, default red), ``score``
        (``{"red": n, "blue": n}``), ``exits`` (0 or 1 exits so far) and ``moves_played``
        (plies before ply 1, 0-199). Raises :class:`SetupError` with a one-line message.

        Raises:
            SetupError: the players are not ``["red", "blue"]``.
        """
        if list(players) != list(PLAYERS):
            raise SetupError(f"players: expected ['red', 'blue'], got {short_repr(list(players))}")
        terrain = _setup_terrain(setup)
        b = bytes(_setup_board(setup.get("pieces")))
        turn, scores, exits, moves_played = _setup_progress(setup)
        pieces = (
            tuple(i for i in range(N_SQ) if b[i] and _SIDE[b[i]] == RED),
            tuple(i for i in range(N_SQ) if b[i] and _SIDE[b[i]] == BLUE),
        )
        return cls(terrain=terrain, board=b, pieces=pieces, turn=turn, ply=0, scores=scores, exits=exits,
                   moves_played=moves_played, history=(b + bytes((turn,)),), _result=None)

    def to_setup(self) -> dict[str, Any]:
        """The explicit setup of this position (repetition counting restarts from it)."""
        return {
            "terrain_seed": self.terrain.seed,
            "heightmap": [list(row) for row in self.terrain.heightmap],
            "pieces": {SQUARES[i]: _CODE_NAME[v] for i, v in enumerate(self.board) if v},
            "first": PLAYERS[self.turn],
            "score": {"red": self.scores[0], "blue": self.scores[1]},
            "exits": self.exits,
            "moves_played": self.moves_played + self.ply,
        }

    # -- queries -----------------------------------------------------------------------

    def to_move(self) -> str | None:
        """``"red"`` or ``"blue"``; ``None`` once the game is over."""
        return None if self._result is not None else PLAYERS[self.turn]

    def player_ids(self) -> tuple[str, ...]:
        """``("red", "blue")``."""
        return PLAYERS

    def pieces_on(self, square: str) -> tuple[str, ...]:
        """The unit on ``square`` as ``"red runner"``, ``()`` when it is empty."""
        v = self.board[_SQUARE_INDEX[square]]
        return (_CODE_NAME[v],) if v else ()

    def score(self) -> dict[str, int]:
        """Points scored so far: ``{"red": n, "blue": n}``."""
        return {"red": self.scores[0], "blue": self.scores[1]}

    def parse_move(self, text: str) -> TerrainMove:
        """Parse move text (``c1-c4``, ``c1xc5``, ``e7-exit``, ``pass``) for the next ply."""
        return TerrainMove.parse(text, self.ply + 1)

    def read_move(self, text: str) -> TerrainMove:
        """Parse move text as typed, in any case: ``F3-F5`` is ``f3-f5``, ``C1XC5`` ``c1xc5``
        and ``PASS`` ``pass`` (the files are a-j: an ``x`` is always the attack)."""
        try:
            return TerrainMove.parse(text.lower() if isinstance(text, str) else text, self.ply + 1)
        except MoveTextError:
            return TerrainMove.parse(text, self.ply + 1)  # refused as typed

    def legal_moves(self) -> Iterator[TerrainMove]:
        """Every legal move, lazily: pieces in square order (a1, b1, ..., j10); for each piece
        its moves (destinations in square order), then its attacks, then its exit.
        ``pass`` alone when the side to move has no other move; nothing once the game is over.
        """
        if self._result is not None:
            return
        found = False
        for m in self._moves():
            found = True
            yield m
        if not found:
            yield PASS

    def _moves(self) -> Iterator[TerrainMove]:
        board = self.board
        side = self.turn
        adj = self.terrain.adj
        levels = self.terrain.levels
        last_lo = _LAST_RANK[side] * SIZE
        for s in self.pieces[side]:
            kind = _KIND[board[s]]
            budget = MOVE_POINTS[kind]
            dist, hits, exit_cost = _reach(adj, board, s, budget, side, last_lo)
            dests = [q for q in dist if q != s]
            if kind == RUNNER:
                hs = levels[s]
                for mid, d in RUNNER_STEPS[s]:  # diagonal steps, then jumps over an empty square
                    if mid >= 0 and board[mid]:
                        continue
                    v = board[d]
                    if not v:
                        if d not in dist:
                            dests.append(d)
                    elif _SIDE[v] != side:
                        _hit(hits, d, (hs > levels[d]) - (hs < levels[d]))
            dests.sort()
            for q in dests:
                yield _move(MOVE, s, q)
            for t in sorted(hits):
                cost, sign = hits[t]
                att, dfn = attack_strengths(board, s, t, sign, cost)
                if att >= dfn:
                    yield _move(ATTACK, s, t)
            if exit_cost >= 0 or _RANK[s] == _LAST_RANK[side]:
                yield _move(EXIT, s, -1)

    def random_move(self, rng: random.Random) -> TerrainMove:
        """A legal move drawn uniformly from ``legal_moves()`` (generated in full) with ``rng``.

        Raises:
            RuleViolation: it is asked for after the game ended.
        """
        if self._result is not None:
            raise RuleViolation("random move", self.ply + 1, "is asked for after the game ended")
        moves = list(self.legal_moves())
        return moves[rng.randrange(len(moves))]

    def greedy_move(self, rng: random.Random) -> TerrainMove:
        """The greedy player's move (deterministic for a given ``rng`` state).

        In order: a move that wins at once; else an exit that does not lose at once (the
        strongest piece first); else the capture of the strongest enemy piece (captures
        that lose at once are skipped); else the move that brings a piece the most ranks
        closer to its exit row; ties broken uniformly at random with ``rng``.
        """
        moves = list(self.legal_moves())
        if len(moves) == 1:
            return moves[0]
        ranked = self._ranked(moves)
        wins = [m for (tier, _), m in zip(ranked, moves, strict=True) if tier == _WINS]
        if wins:
            return wins[rng.randrange(len(wins))]
        for pool_tier in (_EXITS, _CAPTURES, _ADVANCES):
            pool = [(v, m) for (tier, v), m in zip(ranked, moves, strict=True) if tier == pool_tier]
            if pool:
                best = max(v for v, _ in pool)
                top = [m for v, m in pool if v == best]
                return top[rng.randrange(len(top))]
        return moves[rng.randrange(len(moves))]

    def move_prior(self) -> list[float] | None:
        """The search's prior, from the greedy player's judgement of each move
        (:data:`PRIOR_LOGITS`): a win at once first, then exits and captures by strength,
        then moves by the ranks they gain; a move that loses at once last."""
        moves = list(self.legal_moves())
        if len(moves) < 2:
            return None
        return softmax([PRIOR_LOGITS[tier](value) for tier, value in self._ranked(moves)])

    def _ranked(self, moves: Sequence[TerrainMove]) -> list[tuple[int, int]]:
        """The greedy player's judgement of each of ``moves``, in order: ``(tier, value)``,
        the tier one of :data:`_WINS` (value 0), :data:`_EXITS` (the piece's strength),
        :data:`_CAPTURES` (the captured piece's strength), :data:`_ADVANCES` (ranks gained,
        negative for a step back) and :data:`_LOSES` (the move loses at once, value 0)."""
        me = PLAYERS[self.turn]
        board = self.board
        forward = 1 if self.turn == RED else -1
        last_ply = self.moves_played + self.ply + 1 >= MAX_MOVES  # a plain move can win on the tie-breaks
        out: list[tuple[int, int]] = []
        for m in moves:
            if m.kind == MOVE:
                if last_ply:
                    res = self.apply(m)[0]._result
                    if res is not None and res.winner == me:
                        out.append((_WINS, 0))
                        continue
                out.append((_ADVANCES, (_RANK[m.to] - _RANK[m.frm]) * forward))
                continue
            if m.kind == PASS_KIND:
                out.append((_ADVANCES, 0))
                continue
            res = self.apply(m)[0]._result
            if res is not None and res.winner == me:
                out.append((_WINS, 0))
            elif res is not None and res.winner is not None:
                out.append((_LOSES, 0))
            elif m.kind == EXIT:
                out.append((_EXITS, STRENGTH[_KIND[board[m.frm]]]))
            else:
                out.append((_CAPTURES, STRENGTH[_KIND[board[m.to]]]))
        return out

    # -- playing -----------------------------------------------------------------------

    def apply(self, move: TerrainMove | str) -> tuple[TerrainState, list[Event]]:
        """Play ``move`` (or its text); returns the new state and its events.

        Events: ``Moved`` (the path walked, start first; a jump or diagonal step is two
        squares), ``Attacked`` + ``Captured`` + ``Moved`` (onto the target) for an attack,
        ``Exited`` for an exit, ``TurnLost`` for a pass, then ``GameOver`` when the move
        ends the game. Raises :class:`RuleViolation` naming the piece, the rule and the
        costs, e.g. ``ply 12: c3-c7 costs 6, the Lancer has 4``.

        Raises:
            RuleViolation: the move is not well formed, the game is over, or the move is not legal in this position.
        """
        if isinstance(move, str):
            move = self.parse_move(move)
        ply = self.ply + 1
        if not _well_formed(move):
            raise RuleViolation(short_repr(move), ply, "is not a terrain-game move")
        text = str(move)
        if self._result is not None:
            raise RuleViolation(text, ply, f"comes after the end of the game: {self._result.text()}")
        side = self.turn
        player = PLAYERS[side]
        if move.kind == PASS_KIND:
            for m in self._moves():
                raise RuleViolation(text, ply, f"is only allowed without a legal move, and {player} has {m}")
            return self._after(self.board, self.pieces, self.scores, self.exits, False, [TurnLost(player, REASON_PASS)])
        s = move.frm
        code = self.board[s]
        if not code:
            raise RuleViolation(text, ply, f"starts on {SQUARES[s]}, an empty square")
        if _SIDE[code] != side:
            raise RuleViolation(text, ply, f"moves a {_CODE_NAME[code]} but {player} is to move")
        if move.kind == EXIT:
            return self._exit(move, ply, s, code)
        if move.to == s:
            raise RuleViolation(text, ply, "ends on its start square")
        if move.kind == MOVE:
            return self._walk(text, ply, s, move.to, code)
        return self._attack(text, ply, s, move.to, code)

    def _walk(self, text: str, ply: int, s: int, t: int, code: int) -> tuple[TerrainState, list[Event]]:
        """A move: onto an empty square the piece reaches with its movement points, over
        empty squares (or a Runner's diagonal step or jump)."""
        board = self.board
        side = self.turn
        target = board[t]
        if target:
            if _SIDE[target] == side:
                raise RuleViolation(text, ply, f"ends on {SQUARES[t]}, where a {_CODE_NAME[target]} stands")
            raise RuleViolation(
                text,
                ply,
                f"ends on {SQUARES[t]}, where a {_CODE_NAME[target]} stands; an attack is written {SQUARES[s]}x{SQUARES[t]}",
            )
        kind = _KIND[code]
        budget = MOVE_POINTS[kind]
        dist, parent = _paths(self.terrain.adj, board, s, budget)
        if t in dist:
            path = _path_to(parent, t)
            costs, special = _step_costs(dist, path), ""
        elif kind == RUNNER and _runner_alternative(board, s, t):
            path, costs, special = (s, t), (), _special(s, t)
        else:
            raise RuleViolation(text, ply, self._too_far(s, t, TITLES[kind], budget, False))
        b = bytearray(board)
        b[s] = 0
        b[t] = code
        pieces = _replace(self.pieces, side, s, t)
        moved = Moved(PLAYERS[side], tuple(SQUARES[q] for q in path), costs, budget, special)
        return self._after(bytes(b), pieces, self.scores, self.exits, False, [moved])

    def _attack(self, text: str, ply: int, s: int, t: int, code: int) -> tuple[TerrainState, list[Event]]:
        """An attack: onto an enemy the piece reaches, from the best square to attack from,
        strong enough against the defender; the defender is captured."""
        board = self.board
        side = self.turn
        player = PLAYERS[side]
        target = board[t]
        if not target:
            raise RuleViolation(text, ply, f"attacks {SQUARES[t]}, an empty square; a move is written {SQUARES[s]}-{SQUARES[t]}")
        if _SIDE[target] == side:
            raise RuleViolation(text, ply, f"attacks its own side's {_CODE_NAME[target]} on {SQUARES[t]}")
        kind = _KIND[code]
        budget = MOVE_POINTS[kind]
        levels = self.terrain.levels
        dist, parent = _paths(self.terrain.adj, board, s, budget)
        # Every way in: (height sign, walked (0) or Runner alternative (1), path cost, approach square).
        ways = []
        cheapest = -1
        for a, w, sg in self.terrain.adj[t]:  # sg is the sign of level[t] - level[a]; stepping from a onto t is -sg
            if a in dist and dist[a] + w <= budget:
                ways.append((-sg, 0, dist[a] + w, a))
                if cheapest < 0 or dist[a] + w < cheapest:
                    cheapest = dist[a] + w
        if kind == RUNNER and _runner_alternative(board, s, t):
            ways.append(((levels[s] > levels[t]) - (levels[s] < levels[t]), 1, 0, s))
        if not ways:
            raise RuleViolation(text, ply, self._too_far(s, t, TITLES[kind], budget, True))
        sign, alternative, cost, a = max(ways, key=lambda x: (x[0], -x[1], -x[2]))
        attack, defence = attack_terms(board, s, t, sign, cheapest)
        if sum(x.value for x in attack) < sum(x.value for x in defence):
            raise RuleViolation(
                text,
                ply,
                f"is too weak: {_strength_text(attack, defence, SQUARES[t])}; an attack needs at least the defender's strength",
            )
        events: list[Event] = []
        if a != s:
            path = _path_to(parent, a)
            events.append(Moved(player, tuple(SQUARES[q] for q in path), _step_costs(dist, path), budget))
        events.append(Attacked(player, SQUARES[a], SQUARES[t], attack, defence))
        events.append(Captured(SQUARES[t], KINDS[_KIND[target]], PLAYERS[_SIDE[target]], player))
        if alternative:
            events.append(Moved(player, (SQUARES[a], SQUARES[t]), (), budget, _special(s, t)))
        else:
            events.append(Moved(player, (SQUARES[a], SQUARES[t]), (cost - dist[a],), budget))
        b = bytearray(board)
        b[s] = 0
        b[t] = code
        pieces = _remove(_replace(self.pieces, side, s, t), 1 - side, t)
        return self._after(bytes(b), pieces, self.scores, self.exits, True, events)

    def _exit(self, move: TerrainMove, ply: int, s: int, code: int) -> tuple[TerrainState, list[Event]]:
        side = self.turn
        player = PLAYERS[side]
        kind = _KIND[code]
        budget = MOVE_POINTS[kind]
        last = _LAST_RANK[side]
        events: list[Event] = []
        if _RANK[s] != last:
            dist, parent = _paths(self.terrain.adj, self.board, s, budget - 1)
            ends = [q for q in dist if _RANK[q] == last]
            if not ends:
                full, _ = _paths(self.terrain.adj, self.board, s, 10_000)
                costs = [c for q, c in full.items() if _RANK[q] == last]
                if not costs:
                    why = f"cannot reach rank {last + 1}: pieces block every path of the {TITLES[kind]}"
                else:
                    why = (
                        f"needs 1 point left on rank {last + 1}: the cheapest path there costs {min(costs)}, "
                        f"the {TITLES[kind]} has {budget}"
                    )
                raise RuleViolation(str(move), ply, why)
            end = min(ends, key=lambda q: dist[q])  # the first cheapest (dict order is discovery order)
            path = _path_to(parent, end)
            events.append(Moved(player, tuple(SQUARES[q] for q in path), _step_costs(dist, path), budget))
        else:
            end = s
        events.append(Exited(player, SQUARES[end]))
        b = bytearray(self.board)
        b[s] = 0
        pieces = _remove(self.pieces, side, s)
        scores = list(self.scores)
        scores[side] += STRENGTH[kind]
        if self.exits == 0 and kind == GUARDIAN:
            ended = Result(player, REASON_GUARDIAN)
            return self._after(bytes(b), pieces, (scores[0], scores[1]), 1, True, events, ended)
        return self._after(bytes(b), pieces, (scores[0], scores[1]), self.exits + 1, True, events)

    def _too_far(self, s: int, t: int, title: str, budget: int, attack: bool) -> str:
        """``costs 6, the Lancer has 4`` (or why no path exists) for a square out of reach.

        A Runner aiming at a jump's landing square is also told which piece blocks the jump.
        """
        board = self.board
        dist, _ = _paths(self.terrain.adj, board, s, 10_000)
        if attack:
            costs = [dist[a] + w for a, w, _ in self.terrain.adj[t] if a in dist]
        else:
            costs = [dist[t]] if t in dist else []
        if not costs:
            why = f"cannot reach {SQUARES[t]}: pieces block every path of the {title}"
        else:
            why = f"costs {min(costs)}, the {title} has {budget}"
        if _KIND[board[s]] == RUNNER:
            for mid, land in JUMPS[s]:
                if land == t and board[mid]:
                    why += f", and cannot jump over {SQUARES[mid]}, where a {_CODE_NAME[board[mid]]} stands"
        return why

    def _after(
        self,
        board: bytes,
        pieces: tuple[tuple[int, ...], tuple[int, ...]],
        scores: tuple[int, int],
        exits: int,
        irreversible: bool,
        events: list[Event],
        ended: Result | None = None,
    ) -> tuple[TerrainState, list[Event]]:
        """The state after a move of the side to move: every end-of-game rule, in order
        (``ended``: a result the move itself decided, a Guardian exiting first)."""
        nxt = 1 - self.turn
        result = ended
        history: tuple[bytes, ...] = ()
        if ended is None:
            sc = list(scores)
            for loser in (RED, BLUE):
                if not pieces[loser]:
                    other = 1 - loser
                    sc[other] += max(STRENGTH[_KIND[board[q]]] for q in pieces[other])
            scores = (sc[0], sc[1])
            if exits >= 2:
                result = _by_score(scores, REASON_SECOND_EXIT)
            elif not pieces[RED] or not pieces[BLUE]:
                result = _by_score(scores, REASON_NO_PIECES)
            key = board + bytes((nxt,))
            history = (key,) if irreversible else (*self.history, key)
            if result is None and not irreversible and history.count(key) >= 3:
                result = Result(None, REASON_REPETITION)
            if result is None and self.moves_played + self.ply + 1 >= MAX_MOVES:
                result = _limit_result(board, pieces, scores)
        if result is not None:
            events.append(GameOver(result.winner, result.reason))
        state = TerrainState(terrain=self.terrain, board=board, pieces=pieces, turn=nxt, ply=self.ply + 1, scores=scores,
                             exits=exits, moves_played=self.moves_played, history=history, _result=result)
        return state, events

    # -- misc --------------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<TerrainState ply={self.ply} to_move={self.to_move()} score={self.score()} {self.diagram()!r}>"

    def board_text(self) -> str:
        """The position on several lines, for a terminal: rank 10 at the top, each square
        its level and its piece (``R L G`` red Runner, Lancer, Guardian; ``r l g`` blue),
        then the score and the key (:data:`BOARD_KEY`)."""
        letters = ".RLGrlg"
        levels = self.terrain.levels
        lines = ["    " + "  ".join(FILES)]
        for r in range(SIZE - 1, -1, -1):
            cells = (f"{levels[r * SIZE + f]}{letters[self.board[r * SIZE + f]]}" for f in range(SIZE))
            lines.append(f"{r + 1:>2}  " + " ".join(cells))
        lines.append(f"score: red {self.scores[RED]}, blue {self.scores[BLUE]}; "
                     f"move {self.moves_played + self.ply + 1} of {MAX_MOVES}")
        lines.append(BOARD_KEY)
        return "\n".join(lines)

    def reach(self, square: str) -> list[tuple[str, str]]:
        """The legal moves of the piece on ``square`` with what each costs:
        ``("c1-c4", "3 points")``, ``("e2-f3", "diagonal step")``, ``("c1xc5", "4 points")``.
        Empty when no piece of the side to move stands there."""
        s = _SQUARE_INDEX.get(square, -1)
        if s < 0 or not self.board[s] or _SIDE[self.board[s]] != self.turn or self._result is not None:
            return []
        kind = _KIND[self.board[s]]
        dist, hits, exit_cost = _reach(self.terrain.adj, self.board, s, MOVE_POINTS[kind], self.turn,
                                       _LAST_RANK[self.turn] * SIZE)
        out = []
        for m in self._moves():
            if m.frm != s:
                continue
            if m.kind == EXIT:
                cost = 0 if _RANK[s] == _LAST_RANK[self.turn] else exit_cost
            else:
                cost = dist.get(m.to, -1) if m.kind == MOVE else hits.get(m.to, [-1])[0]
            if cost >= 0:
                out.append((str(m), f"{cost} point{'s' * (cost != 1)}"))
            else:  # a Runner's step that ignores height
                out.append((str(m), _special(s, m.to)))
        return out

    def diagram(self) -> str:
        """Ranks 10 down to 1, files a-j: ``R L G`` red, ``r l g`` blue, ``.`` empty."""
        letters = ".RLGrlg"
        return "/".join("".join(letters[self.board[r * SIZE + f]] for f in range(SIZE)) for r in range(SIZE - 1, -1, -1))


# --------------------------------------------------------------------------- setup


def _kit_map(setup: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """The setup with a map of its kit (``kit``: the kit's seed, band and designs) picked by
    ``seed``: the heightmap and the arrangement of the tiles that lay it."""
    value = setup["kit"]
    if not isinstance(value, Mapping) or set(value) != {"seed", "band", "designs"}:
        raise SetupError(f"setup.kit: {short_repr(value)}: expected the kit's seed, band and designs (its tiles' "
                         "arrangement only beside the heightmap they lay)")
    try:
        k = kit.make_kit(value["seed"], value["designs"], str(value["band"]))
    except kit.KitError as e:
        raise SetupError(str(e).replace("terrain.kit.", "setup.kit.")) from None
    placed = kit.pick(k, seed)
    return {**setup, "terrain_seed": None, "heightmap": kit.heightmap(k, placed), "kit": kit.setup_field(k, placed)}



def _setup_terrain(setup: Mapping[str, Any]) -> Terrain:
    """The setup's fields checked, and its map: ``heightmap`` (required), ``terrain_seed``."""
    if not isinstance(setup, Mapping):
        raise SetupError("setup: expected an object")
    allowed = ("terrain_seed", "heightmap", "kit", "pieces", "first", "score", "exits", "moves_played")
    unknown = sorted(str(k) for k in set(setup) - set(allowed))
    if unknown:
        raise SetupError(f"setup: unknown field {unknown[0]!r} (expected {', '.join(allowed)})")
    if "heightmap" not in setup:
        raise SetupError("setup.heightmap: missing; a terrain log records the full heightmap (10 rows of 10 levels)")
    seed = setup.get("terrain_seed")
    if seed is not None and (type(seed) is not int or not 0 <= seed <= 2**63 - 1):
        raise SetupError(f"setup.terrain_seed: {short_repr(seed)} is not an integer from 0 to {2**63 - 1} or null")
    try:
        terrain = Terrain(setup["heightmap"], seed)
    except TerrainError as e:
        raise SetupError(f"setup.{e}") from None
    if "kit" in setup:  # the tiles laid at the table must make the logged map
        try:
            kit.check_setup_field(setup["kit"], terrain.heightmap)
        except kit.KitError as e:
            raise SetupError(str(e)) from None
    return terrain


def _setup_board(raw: object) -> bytearray:
    """The pieces of ``setup.pieces`` (square -> ``"red runner"``...; ``None``: the start
    position), at most two of a kind a side and at least one piece a side."""
    board = bytearray(N_SQ)
    if raw is None:
        for i, f in enumerate(range(2, 8)):
            board[f] = 1 + RED * 3 + START_ORDER[i]
            board[f + SIZE * (SIZE - 1)] = 1 + BLUE * 3 + START_ORDER[i]
        return board
    if not isinstance(raw, Mapping):
        raise SetupError('setup.pieces: expected an object of square -> piece, e.g. {"c1": "red guardian"}')
    for name, piece in raw.items():
        if name not in _SQUARE_INDEX:
            raise SetupError(f"setup.pieces: {short_repr(name)} is not a square a1-j10")
        if not isinstance(piece, str) or piece not in _PIECE_NAMES:
            raise SetupError(
                f"setup.pieces.{name}: {short_repr(piece)} is not a piece (expected e.g. 'red runner', 'blue guardian')"
            )
        board[_SQUARE_INDEX[name]] = _PIECE_NAMES[piece]
    counts = [[0, 0, 0], [0, 0, 0]]
    for v in board:
        if v:
            counts[_SIDE[v]][_KIND[v]] += 1
    for side in (RED, BLUE):
        for kind in (RUNNER, LANCER, GUARDIAN):
            if counts[side][kind] > PER_KIND:
                raise SetupError(f"setup.pieces: {counts[side][kind]} {PLAYERS[side]} {KINDS[kind]}s, at most {PER_KIND}")
        if not sum(counts[side]):
            raise SetupError(f"setup.pieces: {PLAYERS[side]} has no piece, the game would already be over")
    return board


def _setup_progress(setup: Mapping[str, Any]) -> tuple[int, tuple[int, int], int, int]:
    """Where a hand-made position stands: the side to play ply 1, the scores, the exits so
    far and the plies played before ply 1 (``first``, ``score``, ``exits``, ``moves_played``)."""
    first = setup.get("first", "red")
    if not isinstance(first, str) or first not in PLAYERS:
        raise SetupError(f"setup.first: {short_repr(first)} is not a player (expected red or blue)")
    exits = setup.get("exits", 0)
    if type(exits) is not int or exits not in (0, 1):
        raise SetupError(f"setup.exits: {short_repr(exits)} is not 0 or 1 (the second exit ends the game)")
    score = setup.get("score", {"red": 0, "blue": 0})
    if (
        not isinstance(score, Mapping)
        or set(score) != set(PLAYERS)
        or any(type(score[p]) is not int or not 0 <= score[p] <= 2 for p in PLAYERS)
    ):
        raise SetupError(f'setup.score: expected {{"red": n, "blue": n}} with n from 0 to 2, got {short_repr(score)}')
    scores = (score["red"], score["blue"])
    if exits == 0 and scores != (0, 0):
        raise SetupError(f"setup.score: {short_repr(score)} but no piece has exited (exits 0)")
    if exits == 1 and (min(scores) != 0 or max(scores) == 0):
        raise SetupError(
            f"setup.score: {short_repr(score)} does not match one exit (a Runner's 1 or a Lancer's 2 for one side, 0 for"
            " the other; a Guardian exiting first ends the game)"
        )
    moves_played = setup.get("moves_played", 0)
    if type(moves_played) is not int or not 0 <= moves_played < MAX_MOVES:
        raise SetupError(f"setup.moves_played: {short_repr(moves_played)} is not an integer from 0 to {MAX_MOVES - 1}")
    return PLAYERS.index(first), scores, exits, moves_played


def _hit(hits: dict[int, list[int]], t: int, sign: int) -> None:
    """Record a Runner alternative onto enemy ``t`` (no path cost: it does not charge)."""
    h = hits.get(t)
    if h is None:
        hits[t] = [0, sign]
    elif sign > h[1]:
        h[1] = sign


def _special(s: int, t: int) -> str:
    """Which of the Runner's height-blind steps goes from ``s`` to ``t``."""
    return "diagonal step" if _RANK[t] != _RANK[s] and t % SIZE != s % SIZE else "jump"


def _runner_alternative(board: bytes, s: int, t: int) -> bool:
    """True when ``t`` is a diagonal step from ``s`` or a straight jump over an empty square."""
    if t in DIAGONALS[s]:
        return True
    return any(land == t and not board[mid] for mid, land in JUMPS[s])


def _replace(
    pieces: tuple[tuple[int, ...], tuple[int, ...]], side: int, old: int, new: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    mine = tuple(sorted(new if q == old else q for q in pieces[side]))
    return (mine, pieces[1]) if side == RED else (pieces[0], mine)


def _remove(pieces: tuple[tuple[int, ...], tuple[int, ...]], side: int, square: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    rest = tuple(q for q in pieces[side] if q != square)
    return (rest, pieces[1]) if side == RED else (pieces[0], rest)


def _by_score(scores: tuple[int, int], reason: str) -> Result:
    if scores[0] == scores[1]:
        return Result(None, reason)
    return Result(PLAYERS[0] if scores[0] > scores[1] else PLAYERS[1], reason)


def _limit_result(board: bytes, pieces: tuple[tuple[int, ...], tuple[int, ...]], scores: tuple[int, int]) -> Result:
    """After 200 moves: higher score, then the piece closest to the finish, then the strongest."""
    if scores[0] != scores[1]:
        return _by_score(scores, REASON_LIMIT_SCORE)
    to_go = [min(abs(_LAST_RANK[side] - _RANK[q]) for q in pieces[side]) for side in (RED, BLUE)]
    if to_go[0] != to_go[1]:
        return Result(PLAYERS[0] if to_go[0] < to_go[1] else PLAYERS[1], REASON_LIMIT_FINISH)
    strongest = [max(STRENGTH[_KIND[board[q]]] for q in pieces[side]) for side in (RED, BLUE)]
    if strongest[0] != strongest[1]:
        return Result(PLAYERS[0] if strongest[0] > strongest[1] else PLAYERS[1], REASON_LIMIT_STRENGTH)
    return Result(None, REASON_LIMIT_EQUAL)


# --------------------------------------------------------------------------- the game


class TerrainGame(Game):
    """The terrain-game engine (registered as ``"terrain"``)."""

    name = NAME
    rules = RULES
    move_text = MOVE_TEXT
    players = PLAYERS
    map_fields = MAP_FIELDS
    search_prior = True  # about 45 moves a position: UCT's first pass alone would take 45 simulations
    # each piece (at most two of each kind a side) moves to or attacks one of the other 99
    # squares, or exits; 'pass' only when there is nothing else
    max_legal_moves = len(KINDS) * PER_KIND * N_SQ

    def load_map(self, path: Any) -> list[list[int]]:
        """A heightmap file (a JSON 10 x 10 list, rank 1 first, or ``{"heightmap": [...]}``),
        checked against the terrain rule."""
        return load_heightmap_file(path)

    def new_setup(self, n_players: int, setup: Mapping[str, Any] | None, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        """Players are always ``["red", "blue"]``. Without a ``heightmap`` the map is generated
        from ``terrain_seed`` (drawn from ``rng`` when missing too); a given heightmap gets
        ``terrain_seed: null`` unless one is given. Returns the setup with ``terrain_seed``
        and ``heightmap`` first.

        Raises:
            SetupError: the players are not two, the setup is not an object, or its terrain seed is out of range.
        """
        if n_players != 2:
            raise SetupError(f"terrain needs 2 players, got {n_players}")
        if setup is not None and not isinstance(setup, Mapping):
            raise SetupError("setup: expected an object")
        given = dict(setup or {})
        if "kit" in given and "heightmap" not in given:  # a map of the kit, picked by the seed
            given = _kit_map(given, rng.randrange(2**32))
        if "heightmap" in given:
            seed = given.pop("terrain_seed", None)
            heightmap = given.pop("heightmap")
        else:
            seed = given.pop("terrain_seed", None)
            if seed is None:
                seed = rng.randrange(2**32)
            if type(seed) is not int or not 0 <= seed <= 2**63 - 1:
                raise SetupError(f"setup.terrain_seed: {short_repr(seed)} is not an integer from 0 to {2**63 - 1}")
            heightmap = generate(seed)
        full = {"terrain_seed": seed, "heightmap": heightmap, **given}
        TerrainState.from_setup(full)  # validate
        return list(PLAYERS), full

    def initial_state(self, players: Sequence[str], setup: Mapping[str, Any]) -> TerrainState:
        """The state before ply 1; ``players`` must be ``["red", "blue"]``."""
        return TerrainState.from_setup(setup, players)

    def derived(self, before: Any, after: Any, events: Sequence[Event]) -> dict[str, Any]:
        """``score`` after the ply and ``captured`` (the square emptied by an attack, or ``[]``)."""
        return {"score": after.score(), "captured": sorted(e.square for e in events if isinstance(e, Captured))}

    def explain(self, before: Any, after: Any, events: Sequence[Event]) -> str:
        """``Lancer, 1 + 3 = 4 of 4 (charge); attack Lancer 2 + charge 1 = 3 against
        Guardian 3 = 3; takes the blue Guardian on f5``: the path's step costs against the
        piece's movement points, an attack's two sums term by term, an exit's points to
        spare and score, as the events carry them."""
        return explain(before, after, events)

    def play_setup(self, setup: Mapping[str, Any] | None, seed: int) -> Mapping[str, Any] | None:
        """``play``'s map is the fair map of its seed, unless the setup gives a map or a map seed."""
        if setup and "kit" in setup and "heightmap" not in setup:
            return _kit_map(setup, seed)
        if setup and ("heightmap" in setup or "terrain_seed" in setup):
            return setup
        return {**(setup or {}), "terrain_seed": seed}

    fast_ply = staticmethod(fast_two_sides_ply(PLAYERS))

    def setup_warnings(self, setup: Mapping[str, Any]) -> list[str]:
        """Warnings about a valid setup: an unfair heightmap (both crossing-cost lists named)."""
        warning = fairness_warning(setup["heightmap"])
        return [warning] if warning else []

    squares = SQUARES

    def parse_square(self, text: str) -> tuple[int, int]:
        return parse_square(text)

    def ledger(self, state: Any) -> TerrainLedger:
        """The pieces on the board, ``red-runner-1``, ``blue-guardian-2``: numbered per side
        and kind from a1 to j10 (in the standard start, 1 is the one on the lower file)."""
        return TerrainLedger(state)


def explain(before: TerrainState, after: TerrainState, events: Sequence[Event]) -> str:
    """:meth:`TerrainGame.explain`."""
    walks = [e for e in events if isinstance(e, Moved)]
    attack = next((e for e in events if isinstance(e, Attacked)), None)
    parts = []
    if walks:
        title = TITLES[_KIND[before.board[_SQUARE_INDEX[walks[0].path[0]]]]]
        costs = [c for w in walks for c in w.costs]
        special = next((w for w in walks if w.special), None)
        if special is not None:
            a, b = (parse_square(q) for q in special.path)
            over = f" over {SQUARES[(a[0] + b[0]) // 2 + SIZE * ((a[1] + b[1]) // 2)]}" if special.special == "jump" else ""
            text = f"{title}, {special.special}{over} (height ignored)"
        else:
            steps = " + ".join(map(str, costs))
            text = f"{title}, {steps}{f' = {sum(costs)}' if len(costs) > 1 else ''} of {walks[0].points}"
        if attack is not None and any(t.what == "charge" for t in attack.attack):
            text += " (charge)"
        parts.append(text)
    for e in events:
        if isinstance(e, Attacked):
            parts.append(f"attack {sum_text(e.attack)} against {sum_text(e.defence)}")
        elif isinstance(e, Captured):
            parts.append(f"takes the {e.owner} {TITLES[KINDS.index(e.stone)]} on {e.square}")
        elif isinstance(e, Exited):
            kind = _KIND[before.board[_SQUARE_INDEX[walks[0].path[0]] if walks else _SQUARE_INDEX[e.square]]]
            if walks:
                left = walks[0].points - sum(c for w in walks for c in w.costs)
                where = f"exits from {e.square} with {left} point{'s' * (left != 1)} left"
            else:
                where = f"{TITLES[kind]} exits from {e.square}, where its turn began"
            parts.append(f"{where}: scores {STRENGTH[kind]} (red {after.scores[RED]}, blue {after.scores[BLUE]})")
        elif isinstance(e, TurnLost):
            parts.append(f"passes: {e.reason}")
        elif isinstance(e, GameOver):
            parts.append(event_words(e))
    return "; ".join(parts)


class TerrainLedger(PieceLedger):
    """The terrain game's pieces through a game: a move takes the piece on the path's
    first square to its last, an attack names the attacker and the target, a captured
    piece and an exited one leave the game (``off``)."""

    def __init__(self, state: TerrainState) -> None:
        pieces: list[Piece] = []
        squares: dict[str, list[str]] = {}
        seen: dict[tuple[int, int], int] = {}
        for i, code in enumerate(state.board):
            if code:
                side, kind = _SIDE[code], _KIND[code]
                n = seen[side, kind] = seen.get((side, kind), 0) + 1
                piece = Piece(f"{PLAYERS[side]}-{KINDS[kind]}-{n}", PLAYERS[side], KINDS[kind], n)
                pieces.append(piece)
                squares[SQUARES[i]] = [piece.id]
        super().__init__(pieces, squares)

    def on_event(self, event: Event) -> tuple[str, ...]:
        if isinstance(event, Moved):
            (piece,) = self.take(event.path[0])
            self.put(event.path[-1], piece)
            return (piece,)
        if isinstance(event, Attacked):
            return (self.squares[event.square][0], self.squares[event.target][0])
        if isinstance(event, Captured | Exited):
            (piece,) = self.take(event.square)
            self.off.append(piece)
            return (piece,)
        return ()


GAME = TerrainGame()
