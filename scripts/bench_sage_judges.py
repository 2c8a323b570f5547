"""Sage Stones' search against greedy with other judges of a leaf: does a better judge help?

The search judges a leaf by one greedy playout (``evaluators.GreedyRolloutEvaluator``). This
script plays the search against ``greedy`` with another judge, or another UCT constant, to
see whether any of them moves its score (docs/benchmarks.md). Two-player variant, seeds and
seats as ``bench_players.py`` plays them (search first on even seeds), a line a game on
stderr and the totals on stdout.

``--judge careful``: the playouts move carefully. A greedy move takes the most stones it
can; most rolls take none, and greedy then draws among the column's squares at random. The
*careful* move draws only among the squares that leave the placed stone least exposed: its
score is greedy's (stones taken, other owners' minus the mover's own) times 27, minus the
stone's exposure in 27ths, where the exposure is, for each opposing colour and each of the
stone's four lines, the chance (of 27) that the next roll names the column of the empty
square that colour would need to trap it (the stone's run of non-opposing stones ends on
that colour's stone on one side and on an empty square on the other). The playout is the
search's own (``SageStonesState.playout``) with the careful square in place of greedy's
while a leaf is judged; the ``greedy`` player is unchanged. ``--one-ply`` plays the careful
move itself (no search) against ``greedy``.

``--judge linear``: no playout; a leaf's value is a logistic regression's chance that the
mover's side wins, fitted here (deterministically) on the positions before each roll of
20,000 greedy games (seeds 10,000 on, a random move one time in ten), from 261 features: a
stone of each colour (counted from the mover's) on each square, each colour's stones on the
board over 10 and their fourth power, and a constant. It prints its log loss on 2,000
other games' positions.

``--uct C``: the search's UCT constant (``players.UCT_C``, 2) for these games.

``--against search:N``: the other side is a search too, with the same judge and constant
(4x against 1x: ``--simulations 8000 --against search:2000``).

Usage::

    .venv/bin/python scripts/bench_sage_judges.py --judge careful --first-seed 100 --games 50 [--simulations 2000]
    .venv/bin/python scripts/bench_sage_judges.py --judge linear --first-seed 100 --games 50
    .venv/bin/python scripts/bench_sage_judges.py --uct 0.5 --first-seed 100 --games 50
    .venv/bin/python scripts/bench_sage_judges.py --one-ply --first-seed 0 --games 800
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_players import match  # noqa: E402  (scripts/ is on the path when run as a script)

from stratstone_cad.analysis import evaluators, players  # noqa: E402
from stratstone_cad.games.sage_stones import rules  # noqa: E402
from stratstone_cad.games.sage_stones.facts import COLUMNS, ROWS, STONES  # noqa: E402

NAME = "sage-stones"
SETUP = {"variant": "two-player"}
# rolls of 27 naming each column (3-9); 1-2-3 names none (the turn is lost)
ROLLS_OF_COLUMN = (1, 3, 6, 1, 6, 3, 1)
assert sum(ROLLS_OF_COLUMN) == 27 - 6 and len(ROLLS_OF_COLUMN) == COLUMNS


def _axes() -> tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...]:
    """``AXES[sq]``: the four lines through ``sq``, each as the squares met walking one way
    and the other (columns wrap, rows do not; as ``rules.RAYS``)."""
    out = []
    for sq in range(COLUMNS * ROWS):
        ci, ri = divmod(sq, ROWS)
        lines = []
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            pair = []
            for sign in (1, -1):
                ray, c, r = [], ci, ri
                while True:
                    c, r = (c + sign * dc) % COLUMNS, r + sign * dr
                    if not 0 <= r < ROWS or c * ROWS + r == sq:
                        break
                    ray.append(c * ROWS + r)
                pair.append(tuple(ray))
            lines.append((pair[0], pair[1]))
        out.append(tuple(lines))
    return tuple(out)


AXES = _axes()
WEIGHT = tuple(ROLLS_OF_COLUMN[q // ROWS] for q in range(COLUMNS * ROWS))


def _walk(board: Sequence[int], ray: Sequence[int], o1: int, o2: int) -> tuple[bool, bool, int]:
    """Along ``ray`` over stones up to the first empty square: whether colour ``o1`` and
    ``o2`` are met first, and the empty square (-1: none before the edge)."""
    f1 = f2 = False
    for q in ray:
        v = board[q]
        if not v:
            return f1, f2, q
        if v == o1:
            f1 = True
        elif v == o2:
            f2 = True
    return f1, f2, -1


def exposure(board: Sequence[int], sq: int, o1: int, o2: int) -> int:
    """The stone on ``sq``'s exposure to colours ``o1`` and ``o2``, in 27ths (the module)."""
    total = 0
    for fwd, back in AXES[sq]:
        f1, f2, fe = _walk(board, fwd, o1, o2)
        if fe < 0 and not (f1 or f2):
            continue
        g1, g2, ge = _walk(board, back, o1, o2)
        for ahead, behind in ((f1, g1), (f2, g2)):
            if ahead and not behind and ge >= 0:
                total += WEIGHT[ge]
            elif behind and not ahead and fe >= 0:
                total += WEIGHT[fe]
    return total


def careful_square(board: list[int], empty: Sequence[int], seat: int, on_board: Sequence[int],
                   owners: Sequence[str], rng: random.Random) -> int:
    """``rules._greedy_square``'s signature and draws: the careful square (the module)."""
    if len(empty) == 1:
        return empty[0]
    if on_board[seat] == STONES - 1:
        return empty[rng.randrange(len(empty))]
    me, colour = owners[seat], seat + 1
    o1, o2 = (k + 1 for k in range(len(owners)) if owners[k] != me)
    best: list[int] = []
    best_score = -(10**9)
    for sq in empty:
        taken = rules.capture_squares(board, sq, colour)
        gain = sum(1 if owners[board[q] - 1] != me else -1 for q in taken)
        saved = [(q, board[q]) for q in taken]
        for q in taken:
            board[q] = 0
        board[sq] = colour
        score = 27 * gain - exposure(board, sq, o1, o2)
        board[sq] = 0
        for q, v in saved:
            board[q] = v
        if score > best_score:
            best_score, best = score, [sq]
        elif score == best_score:
            best.append(sq)
    return best[rng.randrange(len(best))]


class CarefulRolloutEvaluator(evaluators.GreedyRolloutEvaluator):
    """The search's playout with :func:`careful_square` in place of greedy's square."""

    def evaluate(self, state: Any) -> Any:
        plain = rules._greedy_square
        rules._greedy_square = careful_square  # the playout's own (module-level) lookup
        try:
            return super().evaluate(state)
        finally:
            rules._greedy_square = plain


def careful_player(state: Any, rng: random.Random) -> Any:
    """The careful move as a player."""
    moves = list(state.legal_moves())
    if not isinstance(moves[0], rules.SagePlace):
        return moves[0]
    board = list(state.board)
    return rules._PLACES[careful_square(board, [m.square for m in moves], state.seat, state.on_board, state.owners, rng)]


def features(board: Sequence[int], on_board: Sequence[int], seat: int) -> Any:
    """The linear judge's 261 features of a position, counted from ``seat`` (the module)."""
    x = np.zeros(63 * 4 + 8 + 1)
    for q, v in enumerate(board):
        if v:
            x[(v - 1 - seat) % 4 * 63 + q] = 1.0
    for k in range(4):
        n = on_board[(seat + k) % 4]
        x[252 + k] = n / 10
        x[256 + k] = (n / 10) ** 4
    x[260] = 1.0
    return x


def positions(games: int, first_seed: int, explore: float = 0.1) -> tuple[Any, Any]:
    """Features of the positions before each roll of ``games`` greedy games, and whether the
    side to move went on to win (1) or not (0)."""
    xs, ys = [], []
    for seed in range(first_seed, first_seed + games):
        rng = random.Random(seed)
        state = rules.GAME.initial_state(["p1", "p2"], {"variant": "two-player", "colours": ["yellow", "red", "blue", "green"]})
        seen = []
        while not state.is_terminal() and state.ply < 400:
            if state.is_chance():
                seen.append((state.board, state.on_board, state.seat, state.owners[state.seat]))
                state = state.apply_chance(state.roll(rng))[0]
                continue
            move = state.random_move(rng) if rng.random() < explore else state.greedy_move(rng)
            state = state.apply(move)[0]
        if state.is_terminal():
            winner = state.result().winner
            for board, on_board, seat, owner in seen:
                xs.append(features(board, on_board, seat))
                ys.append(1.0 if owner == winner else 0.0)
    return np.array(xs), np.array(ys)


def fit(x: Any, y: Any, l2: float = 1e-3, iterations: int = 300) -> Any:
    """Logistic regression's weights by gradient descent (step 2, L2 ``l2``)."""
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-x @ w))
        w -= 2.0 * (x.T @ (p - y) / len(y) + l2 * w)
    return w


def log_loss(x: Any, y: Any, w: Any) -> float:
    p = np.clip(1 / (1 + np.exp(-x @ w)), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def linear_weights(path: Path) -> Any:
    """The linear judge's weights: read from ``path``, or fitted (the module) and saved there."""
    if path.exists():
        return np.load(path)
    x, y = positions(20_000, 10_000)
    w = fit(x, y)
    tx, ty = positions(2_000, 900_000)
    print(f"linear judge: {len(y):,} positions; log loss {log_loss(x, y, w):.4f} (fit), {log_loss(tx, ty, w):.4f} "
          f"(2,000 other games), {log_loss(tx, ty, np.zeros_like(w)):.4f} knowing nothing", file=sys.stderr, flush=True)
    np.save(path, w)
    return w


def linear_evaluator(weights: Any) -> Any:
    """An OpenSpiel evaluator class judging a leaf by the linear value, the search's own prior."""

    class LinearEvaluator(evaluators.GreedyRolloutEvaluator):
        def evaluate(self, state: Any) -> Any:
            engine = state.engine_state()
            if engine.is_terminal():
                return np.array(state.returns_of(engine))
            value = 2 / (1 + np.exp(-features(engine.board, engine.on_board, engine.seat) @ weights)) - 1
            out = np.array([-value, -value])
            out[engine.player_ids().index(engine.owners[engine.seat])] = value
            return out

    return LinearEvaluator


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-seed", type=int, default=100)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--simulations", type=int, default=rules.GAME.search_simulations)
    parser.add_argument("--judge", choices=("greedy", "careful", "linear"), default="greedy",
                        help="the leaf's judge: a greedy playout (the search's own), a careful one, the linear value")
    parser.add_argument("--uct", type=float, default=players.UCT_C, help="the search's UCT constant")
    parser.add_argument("--weights", type=Path, default=ROOT / "output" / "sage-linear-judge.npy",
                        help="the linear judge's weights (fitted and saved there when missing)")
    parser.add_argument("--one-ply", action="store_true", help="the careful move as a player, no search")
    parser.add_argument("--against", default="greedy",
                        help="the other side: greedy, or a search with the same judge (search:2000)")
    args = parser.parse_args()
    players.UCT_C = args.uct  # read by players._bot when it makes the search
    if args.judge == "careful":
        players.evaluator = CarefulRolloutEvaluator  # the search's evaluator (players._bot)
    elif args.judge == "linear":
        players.evaluator = linear_evaluator(linear_weights(args.weights))
    kind = "careful" if args.one_ply else f"search:{args.simulations}"
    label = "the careful move" if args.one_ply else f"{kind}, {args.judge} judge, UCT {args.uct:g},"

    def make(k: str, engine: Any) -> Any:
        if k == "careful":
            return careful_player
        return players.make_player(k, engine)

    wins, draws, _losses, seconds = match(NAME, args.games, kind, args.against, SETUP, args.first_seed, make)
    score = wins + draws / 2
    print(f"{label} against {args.against}, seeds {args.first_seed}-{args.first_seed + args.games - 1}: "
          f"{score:g} of {args.games} ({100 * score / args.games:.1f} %), {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
