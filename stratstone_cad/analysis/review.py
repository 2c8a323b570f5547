"""The review of a game, ply by ply: ``check-log --review`` and the replay's evaluation strip.

For every ply the position the mover chose in (after the dice: Sage Stones judges the
placement given the roll) is searched by OpenSpiel's MCTS (the ``search`` player's bot,
:mod:`stratstone_cad.analysis.players`) and the ply gets:

- ``expected_before``: the mover's expected score with the search's best move, and
  ``expected_after``: with the move played. An expected score is the chance of winning
  in [0, 1] (a draw counts 1/n): ``(v (n - 1) + 1) / n`` of the mover's value ``v`` in
  [-1/(n-1), 1], so 0.5 is even in a two-player game. The played move is given at least
  a quarter of the root's simulations (a child-selection function handed to OpenSpiel's
  ``MCTSBot``), so its value is measured even when the search would look elsewhere.
- ``best``: the search's move, in the log's notation;
- ``class``: by the loss of expected score ``expected_before - expected_after``, with
  chess.com's thresholds (:data:`THRESHOLDS`): ``best`` (the best move, or no loss),
  ``excellent`` up to 0.02, ``good`` up to 0.05, ``inaccuracy`` up to 0.10, ``mistake``
  up to 0.20, ``blunder`` beyond; ``forced`` when there was one legal move.

Wins in one move are not left to the search: every legal move is tried. A ply that
played one is ``best`` (expected 1 before and after); a ply that missed one is never
better than ``inaccuracy`` and its best move is a winning one (expected 1 before).

A player's accuracy is lichess's: each ply's accuracy ``103.1668 exp(-0.04354 d) -
3.1669`` (clamped to 0-100) of its loss ``d`` in percentage points, averaged over the
player's plies that were not forced.

The search is reproducible: ply ``n`` is searched with a ``numpy`` ``RandomState(n)``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from stratstone_cad.analysis.players import MAX_SIMULATIONS, MIN_SIMULATIONS, UCT_C, evaluator, selection
from stratstone_cad.engine.protocol import Game, Move, State
from stratstone_cad.errors import ReviewError, short_repr
from stratstone_cad.log import logfile as _log

__all__ = ["CLASSES", "DEFAULT_BUDGET", "FORCED", "THRESHOLDS", "PlyReview", "accuracy", "budget_line", "budget_of",
           "classify",
           "parse_budget", "review_lines", "review_log", "review_position", "summary_lines"]

DEFAULT_BUDGET = Game.search_simulations
"""Simulations a ply of a game that sets no budget of its own: the ``search`` player's default. A game's
review without ``--budget`` searches with the game's own ``search_simulations`` (:func:`budget_of`):
Sage Stones 2,000, the others 300, as the ``search`` player does."""
THRESHOLDS = ((0.02, "excellent"), (0.05, "good"), (0.10, "inaccuracy"), (0.20, "mistake"))
"""chess.com's classes by the loss of expected score: each up to its bound; beyond the last, ``blunder``."""
FORCED = "forced"
CLASSES = ("best", "excellent", "good", "inaccuracy", "mistake", "blunder", FORCED)
"""Every class, best to worst, then ``forced``."""
PLAYED_SHARE = 4
"""The played move gets at least one in this many of the root's simulations."""
POOL_MIN_SIMULATIONS, POOL_MIN_PLIES = 4_000, 4
"""A review of fewer simulations in all (plies x budget), or of fewer plies, is searched in the
calling process: a pool's start (its fork server, OpenSpiel imported by each worker: a second or
two on a busy machine) would cost about what it saves. A Stratstone game of 14 plies or more at
its own 300 simulations is searched by the pool (a review of it takes 15 s or more)."""


def parse_budget(text: str) -> int:
    """The simulations a ply of ``--budget TEXT``; raises :class:`ReviewError` in one line
    for anything but a whole number from :data:`MIN_SIMULATIONS` to :data:`MAX_SIMULATIONS`.

    Raises:
        ReviewError: the budget is not a whole number, or is out of range.
    """
    expected = f"expected a number of simulations a ply from {MIN_SIMULATIONS} to {MAX_SIMULATIONS}"
    if not (isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= 20):
        raise ReviewError(f"--budget {short_repr(text)}: {expected}")
    value = int(text)
    if not MIN_SIMULATIONS <= value <= MAX_SIMULATIONS:
        raise ReviewError(f"--budget {value}: out of range, {expected}")
    return value


def budget_of(path: Path, simulations: int | None = None) -> int:
    """The simulations a ply the review of the log ``path`` searches with: ``simulations``
    (``--budget``), else its game's own ``search_simulations``; the log's header is checked
    as check-log checks it."""
    if simulations is not None:
        return simulations
    with _log.walk_log(path) as r:
        return int(r.game.search_simulations)


def budget_line(simulations: int) -> str:
    """``reviewed at 2,000 simulations a ply``: what the review says of its budget."""
    return f"reviewed at {simulations:,} simulation{'s' * (simulations != 1)} a ply"


def classify(loss: float) -> str:
    """The class of a move that lost ``loss`` of expected score (0 or less: ``best``)."""
    if loss <= 0:
        return "best"
    for bound, name in THRESHOLDS:
        if loss <= bound:
            return name
    return "blunder"


def accuracy(loss: float) -> float:
    """lichess's accuracy of one move (0-100) that lost ``loss`` of expected score (0-1)."""
    d = 100.0 * max(0.0, loss)
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * d) - 3.1669))


@dataclass(frozen=True)
class PlyReview:
    """What the review says of one ply (see the module's docstring)."""

    ply: int
    player: str
    move: str
    best: str
    cls: str
    expected_before: float
    expected_after: float
    legal: int
    """The legal moves the mover had."""

    @property
    def loss(self) -> float:
        """The expected score the move gave away (0 for the best move)."""
        return max(0.0, self.expected_before - self.expected_after)

    def to_json(self) -> dict[str, Any]:
        """The ply as ``--json`` writes it (one object a line)."""
        return {"ply": self.ply, "player": self.player, "move": self.move, "best": self.best, "class": self.cls,
                "expected_before": round(self.expected_before, 4), "expected_after": round(self.expected_after, 4),
                "legal_moves": self.legal}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> PlyReview:
        """A ply read back from ``to_json``'s object (the replay's saved review)."""
        return cls(int(obj["ply"]), str(obj["player"]), str(obj["move"]), str(obj["best"]), str(obj["class"]),
                   float(obj["expected_before"]), float(obj["expected_after"]), int(obj.get("legal_moves", 0)))

    def line(self) -> str:
        """``12 red d3 SS: blunder, best c1 N (0.81 -> 0.12)``: the ply in one line of text."""
        best = "" if self.cls in ("best", FORCED) or self.best == self.move else f", best {self.best}"
        return (f"{self.ply} {self.player} {self.move}: {self.cls}{best} "
                f"({self.expected_before:.2f} -> {self.expected_after:.2f})")


def _expected(value: float, n: int) -> float:
    """The expected score (chance of winning, draws 1/n) of a value in [-1/(n-1), 1]."""
    return min(1.0, max(0.0, (value * (n - 1) + 1) / n))


def _node_value(node: Any, player: int) -> float:
    """A search node's value for ``player``: its proven outcome, else its mean return."""
    if node.outcome is not None:
        return float(node.outcome[player])
    return node.total_reward / node.explore_count if node.explore_count else 0.0


def _best_other(root: Any, chosen: Any, player: int, played: float) -> tuple[Any, float]:
    """The search's best move and the value of the position with it: the most visited (or
    proven) of the moves not played, worth what the search found for the position without
    the played move's extra visits (the mean return of the other moves' simulations, or a
    proven outcome); the played move instead when it is worth as much."""
    others = [c for c in root.children if c is not chosen]
    if not others:
        return chosen, played
    best = max(others, key=lambda c: c.sort_key())
    visits = sum(c.explore_count for c in others)
    value = _node_value(best, player) if best.outcome is not None or not visits else \
        sum(c.total_reward for c in others) / visits
    return (chosen, played) if played >= value else (best, value)


def _winner(state: State, move: Move) -> str | None:
    result = state.apply(move)[0].result()
    return None if result is None else result.winner


def lets_a_win(after: State, mover: str) -> bool:
    """Whether in ``after`` (the position a move of ``mover`` left) another player is to
    move and has a move that wins at once."""
    if after.is_terminal() or after.is_chance() or after.to_move() == mover:
        return False
    player = str(after.to_move())
    return any(_winner(after, m) == player for m in after.legal_moves())


def review_position(game: Game, state: State, played: Move, simulations: int, seed: int) -> PlyReview:
    """The review of ``played`` in ``state`` (a position waiting for a move, after its dice)."""
    mover = str(state.to_move())
    moves = list(state.legal_moves())
    wins = [m for m in moves if _winner(state, m) == mover]
    root, played_action, wrapped = _search(game, state, moves.index(played), simulations, seed)
    n = len(state.player_ids())
    player = wrapped.current_player()
    chosen = next(c for c in root.children if c.action == played_action)
    # a move that lets the next player win at once is lost (that reply is tried, not left to the search)
    value = -1.0 / (n - 1) if lets_a_win(state.apply(played)[0], mover) else _node_value(chosen, player)
    best_node, best_value = _best_other(root, chosen, player, value)
    before, after = _expected(best_value, n), _expected(value, n)
    best = moves[best_node.action]
    ply = state.ply + 1
    if len(moves) == 1:
        return PlyReview(ply, mover, str(played), str(played), FORCED, after, after, 1)
    if wins:
        best = best if best in wins else wins[0]
        if played in wins:
            return PlyReview(ply, mover, str(played), str(played), "best", 1.0, 1.0, len(moves))
        cls = max(classify(1.0 - after), "inaccuracy", key=CLASSES.index)
        return PlyReview(ply, mover, str(played), str(best), cls, 1.0, after, len(moves))
    cls = "best" if played == best else classify(before - after)
    return PlyReview(ply, mover, str(played), str(best), cls, before, after, len(moves))


def _search(game: Game, state: State, played: int, simulations: int, seed: int) -> tuple[Any, int, Any]:
    """OpenSpiel's MCTS from ``state``, the ``played``-th legal move given at least
    1/:data:`PLAYED_SHARE` of the root's simulations; returns the root, the played action
    and the wrapped state."""
    # start-up speed: numpy and OpenSpiel only once a review searches
    import numpy as np

    from stratstone_cad.analysis import spiel

    wrapped = spiel.game_class(game.name)({"players": len(state.player_ids())}).state_of(state)
    random_state = np.random.RandomState(seed)
    bot = _bot_class()(wrapped.get_game(), UCT_C, simulations, evaluator(random_state), solve=True,
                     random_state=random_state)
    bot.played = played
    bot.select = selection(game)
    return bot.mcts_search(wrapped), played, wrapped


@cache
def _bot_class() -> type:
    """OpenSpiel's ``MCTSBot`` whose root visits the played move at least one time in
    :data:`PLAYED_SHARE`: only its child-selection function is the review's."""
    from open_spiel.python.algorithms import mcts

    class ReviewBot(mcts.MCTSBot):  # type: ignore[misc]
        played = -1
        select: Any = staticmethod(mcts.SearchNode.uct_value)  # set to the game's own (players.selection)
        _root: Any = None

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, child_selection_fn=self._select, **kwargs)

        def _apply_tree_policy(self, root: Any, state: Any) -> Any:
            self._root = root
            return super()._apply_tree_policy(root, state)

        def _select(self, child: Any, parent_count: int, uct_c: float) -> float:
            # only the root has as many visits as the root (a child has at most one fewer)
            if (child.action == self.played and child.outcome is None and parent_count == self._root.explore_count
                    and child.explore_count * PLAYED_SHARE < parent_count):
                return math.inf
            return self.select(child, parent_count, uct_c)

    return ReviewBot


def review_log(path: Path, simulations: int | None = None, jobs: int | None = None) -> Iterator[PlyReview]:
    """Each ply of the log ``path`` reviewed, in order, as it comes, with ``simulations`` a
    ply (None: the game's own budget, :func:`budget_of`); the log is checked as check-log
    checks it (a log of another rules version is refused by its header) and a fault stops
    the review with the same :class:`~stratstone_cad.errors.LogError`.

    The plies are searched by ``jobs`` processes (None: one a CPU this process may use,
    :func:`review_jobs`, unless the review is smaller than :data:`POOL_MIN_SIMULATIONS` says):
    each ply's search is its own (seeded by its ply number, sharing nothing with another
    ply's), so the review says the same with any number of them."""
    with _log.walk_log(path) as r:
        budget = r.game.search_simulations if simulations is None else simulations
        tasks = []
        for step in r:
            state = step.before if step.chance is None else step.before.apply_chance(step.chance)[0]
            tasks.append((r.game, state, state.parse_move(step.move), budget, step.ply))
    if jobs is None:  # a small review in this process: a pool's start would cost more than it saves
        jobs = review_jobs() if len(tasks) >= POOL_MIN_PLIES and len(tasks) * budget >= POOL_MIN_SIMULATIONS else 1
    jobs = min(jobs, len(tasks))
    if jobs <= 1:
        yield from (review_position(*task) for task in tasks)
        return
    yield from _in_processes(tasks, jobs)


def review_jobs() -> int:
    """The processes a review searches with: one a CPU this process may run on."""
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _in_processes(tasks: Sequence[tuple[Any, ...]], jobs: int) -> Iterator[PlyReview]:
    """``review_position`` of each task, in ``jobs`` worker processes (started by a fork
    server with this module loaded: no fork of a process that may hold threads), yielded in
    the tasks' order as each is done. The workers die with the command; Ctrl-C stops the
    command, not them (they ignore it and are ended with it)."""
    import concurrent.futures
    import multiprocessing

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context, initializer=_worker_start) as pool:
        try:
            yield from pool.map(_review_task, tasks)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            for process in list((getattr(pool, "_processes", None) or {}).values()):  # a stopped review's searches end with it
                process.kill()
            raise


def _worker_start() -> None:
    """A review worker: dies with its parent, leaves Ctrl-C to the command."""
    import signal

    from stratstone_cad.base.processes import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def _review_task(task: tuple[Any, ...]) -> PlyReview:
    return review_position(*task)


def review_lines(path: Path, simulations: int | None = None, *, as_json: bool = False) -> Iterator[str]:
    """``check-log --review``'s lines as they come: a ply a line (:meth:`PlyReview.line`, or
    its JSON object with ``as_json``), then the text's summary (:func:`summary_lines`) and
    the budget (:func:`budget_line`; None: the game's own). A log without a ply gets
    check-log's line and ``nothing to review`` (its JSON: no line)."""
    reviews = []
    budget = budget_of(path, simulations)
    for r in review_log(path, budget):
        reviews.append(r)
        yield json.dumps(r.to_json(), ensure_ascii=False) if as_json else r.line()
    if not as_json:
        yield from [*summary_lines(reviews), budget_line(budget)] if reviews else \
            [f"{_log.validate(path).summary()}: nothing to review"]


def summary_lines(reviews: Sequence[PlyReview]) -> list[str]:
    """One line a player: ``red: accuracy 83.4 %, best 5, excellent 2, ..., forced 1``
    (every class named, in order; accuracy over the plies not forced)."""
    lines = []
    for player in dict.fromkeys(r.player for r in reviews):
        mine = [r for r in reviews if r.player == player]
        judged = [accuracy(r.loss) for r in mine if r.cls != FORCED]
        counts = Counter(r.cls for r in mine)
        acc = f"{sum(judged) / len(judged):.1f} %" if judged else "n/a (every ply forced)"
        lines.append(f"{player}: accuracy {acc}, " + ", ".join(f"{c} {counts[c]}" for c in CLASSES))
    return lines
