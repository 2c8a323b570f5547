"""The Training page's server (``/training``): puzzles of real games (``stratstone-cad
puzzles``' JSON lines, the set each game ships in the package) solved by clicking, each move
judged by the engine, and the progress kept in the studio's folder (``training.json``).

A puzzle's ``id`` is the first 12 hex digits of the SHA-256 of its line, so a result
recorded for it follows the puzzle, not its place in a file. A move is judged by the rules,
not against the solution's text alone: right is a move that wins at once (``win``), that
leaves the next player no win at once (``save``) or after which every reply leaves a win at
once (``depth`` 3: a win in two moves). A wrong move's refutation is the engine's too: the
other side's winning reply, or (depth 3) the reply after which no move wins. The rules stay
in Python: the page asks for the position, the reach of a square and the verdict."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from stratstone_cad.analysis.puzzles import PUZZLE_FILE_LIMIT, shipped_puzzles
from stratstone_cad.base.fileio import atomic_write, read_user_file
from stratstone_cad.engine.protocol import State
from stratstone_cad.errors import GameError, LogError, PuzzleError, TableError, UserError, short_repr
from stratstone_cad.log import logfile as _log
from stratstone_cad.registry import game_names, get_game
from stratstone_cad.studio.play_page import position_board
from stratstone_cad.studio.play_routes import body_of
from stratstone_cad.studio.tables import reach_of

__all__ = ["PROGRESS_FILE", "Progress", "Trainer", "TrainingPuzzle", "TrainingRoom", "judge", "routes", "shipped_file"]

PAGES_KEPT = 4
"""The 3D pages kept made (about 2.5 MB each)."""
PROGRESS_FILE = "training.json"
"""The progress, in the studio's folder: each puzzle's last result."""


def shipped_file(game: str) -> Path | None:
    """The puzzle set the package ships for ``game`` (:func:`shipped_puzzles`), or None
    where a game ships none (a game registered beside the three)."""
    found = shipped_puzzles(game)
    return found if found.is_file() else None


@dataclass(frozen=True)
class TrainingPuzzle:
    """One puzzle as the page trains it: ``records`` (the log up to its position), its
    ``dice`` rolled for the move, the ``player`` to move, ``kind`` (win, save) and ``depth`` (1, 3)."""

    id: str
    game: str
    number: int
    player: str
    kind: str
    depth: int
    solution: str
    records: list[dict[str, Any]] = field(repr=False)
    dice: tuple[int, ...] | None = None
    source: str = ""
    ply: int = 0

    @property
    def task(self) -> str:
        """``red to move, win in one``; ``... win in two moves``; ``... save the game``; the dice after the player."""
        rolled = f" (dice {'-'.join(map(str, self.dice))})" if self.dice else ""
        goal = {("win", 1): "win in one", ("win", 3): "win in two moves",
                ("save", 1): "save the game (any other move loses at once)"}.get((self.kind, self.depth), self.kind)
        return f"{self.player} to move{rolled}, {goal}"

    def state(self) -> State:
        """The position: the log replayed, the dice rolled."""
        with _log.LogWalk(iter(enumerate(self.records, 1))) as r:
            state = r.run()
        return state.apply_chance(self.dice)[0] if self.dice is not None else state

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "number": self.number, "task": self.task, "player": self.player,
                "kind": self.kind, "depth": self.depth, "dice": list(self.dice) if self.dice else None,
                "source": self.source, "ply": self.ply}


def read_set(path: Path, game: str) -> list[TrainingPuzzle]:
    """The puzzles of ``game`` in the file ``path`` (JSON lines ``puzzles`` writes), checked:
    each one's position replays and its solution is legal there.

    Raises:
        LogError: a line is not a puzzle, or its position or solution is bad (naming the line).
    """
    out: list[TrainingPuzzle] = []
    data = read_user_file(path, "puzzle file", PUZZLE_FILE_LIMIT, "a file stratstone-cad puzzles writes", PuzzleError)
    for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            p = json.loads(line)
            if p["game"] not in game_names():
                raise ValueError(f"game {short_repr(p['game'], 30)}")
            if p["game"] != game:
                continue
            depth, kind = int(p.get("depth", 1)), p["kind"]
            dice = p["position"].get("dice")
            puzzle = TrainingPuzzle(hashlib.sha256(line.strip().encode()).hexdigest()[:12], game, len(out) + 1,
                                    str(p["player"]), kind, depth, str(p["solution"]), list(p["position"]["log"]),
                                    tuple(dice) if dice is not None else None, str(p.get("source", "")),
                                    int(p.get("ply", 0)))
            if kind not in ("win", "save") or depth not in (1, 3):
                raise ValueError
            puzzle.state().parse_move(puzzle.solution)
        except (ValueError, KeyError, TypeError, AttributeError, GameError, LogError) as e:
            why = f"no {e} field" if isinstance(e, KeyError) else (str(e).splitlines()[0][:120] if str(e) else
                                                                  type(e).__name__)
            raise LogError(f"{path} line {n}: not a puzzle of {game} ({why}); expected a line stratstone-cad "
                           "puzzles writes") from None
        out.append(puzzle)
    return out


def check_files(files: Sequence[Path]) -> None:
    """``studio --puzzles``: each file read and each of its puzzles checked, before the studio starts.

    Raises:
        PuzzleError: a file cannot be read.
        LogError: a line is not a puzzle of a game of the registry.
    """
    for f in files:
        for g in game_names():
            read_set(f, g)


# ---------------------------------------------------------------------- judging


def _wins(state: State, player: str) -> list[str]:
    """The moves of ``state`` after which ``player`` has won."""
    out = []
    for m in state.legal_moves():
        result = state.apply(m)[0].result()
        if result is not None and result.winner == player:
            out.append(str(m))
    return out


def _open(state: State) -> bool:
    """Whether ``state`` waits for a move (not over, no dice to roll)."""
    return not state.is_terminal() and not state.is_chance()


def _won(state: State, player: str) -> bool:
    result = state.result()
    return result is not None and result.winner == player


def defence(after: State, player: str) -> tuple[str | None, list[str]]:
    """The reply in ``after`` that resists best, and ``player``'s wins at once after it: a reply
    that leaves no win (the refutation of a first move) if there is one, else the one that
    leaves the fewest (the first in the engine's order among equals); ``(None, [])`` where
    ``after`` waits for no move."""
    if not _open(after):
        return None, []
    best: tuple[str | None, list[str]] = (None, [])
    for reply in after.legal_moves():
        then = after.apply(reply)[0]
        if _won(then, str(after.to_move())):
            return str(reply), []  # the reply wins: nothing resists better
        wins = _wins(then, player) if _open(then) else []
        if best[0] is None or len(wins) < len(best[1]):
            best = (str(reply), wins)
        if not wins:
            return best
    return best


def _play(state: State, move: Any, what: str) -> State:
    if not isinstance(move, str) or not 0 < len(move) <= 64:
        raise TableError(f"{what} {short_repr(move)}: expected a move in the log's notation")
    try:
        return state.apply(move)[0]
    except (GameError, UserError, ValueError) as e:
        raise TableError(f"{what} {short_repr(move)}: {str(e).splitlines()[0]}") from None


def line_state(puzzle: TrainingPuzzle, moves: Sequence[Any], dice: Sequence[str] = ()) -> State:
    """The position after ``moves`` (each checked legal; 400 otherwise) from the puzzle's; where
    dice come before a move, the next of ``dice`` (``1-2-3``) falls.

    Raises:
        TableError: dice are due and none or bad ones are given.
    """
    state, rolls = puzzle.state(), list(dice)
    for i, m in enumerate(moves):
        if state.is_chance():
            state = state.apply_chance(_dice(rolls.pop(0) if rolls else None, state))[0]
        state = _play(state, m, f"move {i + 1}")
    return state


def _dice(text: str | None, state: State) -> tuple[int, ...]:
    outcomes = [tuple(d) for d, _ in state.chance_outcomes()]
    try:
        dice = tuple(int(x) for x in (text or "").split("-"))
    except ValueError:
        dice = ()
    if dice not in outcomes:
        raise TableError(f"dice {short_repr(text, 20)}: expected a roll such as {'-'.join(map(str, outcomes[0]))} "
                         "before this move (dice=...)")
    return dice


def judge(puzzle: TrainingPuzzle, moves: Sequence[Any]) -> dict[str, Any]:
    """The verdict on ``moves`` from the puzzle's position: ``[first]`` or, in a win in two
    moves, ``[first, the studio's reply, second]``. Answers ``right``, ``done`` (the puzzle
    finished: solved or failed), ``solved``, ``reply`` (the studio's reply after a right first
    move of a win in two), ``refutation`` (the other side's moves that show a wrong move
    wrong), ``solution`` and ``message``.

    Raises:
        TableError: a move is illegal or not text, the line's length is not 1 (or 3 in a win in
            two), or its second move is not the studio's reply.
    """
    if not isinstance(moves, list) or len(moves) not in ((1, 3) if puzzle.depth == 3 else (1,)):
        raise TableError(f"moves {short_repr(moves, 60)}: expected a list of "
                         f"{'1 or 3 moves (the first, the studio reply, the second)' if puzzle.depth == 3 else '1 move'}")
    player = puzzle.player
    after = _play(puzzle.state(), moves[0], "move 1")
    if len(moves) == 1:
        return _judge_first(puzzle, str(moves[0]), after)
    first = _judge_first(puzzle, str(moves[0]), after)
    if not first["right"] or first["done"]:
        raise TableError(f"move 1 {short_repr(moves[0])}: not the right first move; expected the line of a right one")
    if moves[1] != first["reply"]:
        raise TableError(f"move 2 {short_repr(moves[1])}: not the studio's reply; expected {first['reply']}")
    then = _play(after, moves[1], "move 2")
    final = _play(then, moves[2], "move 3")
    if _won(final, player):
        return _verdict(True, True, [], [], f"{moves[2]} wins: solved")
    wins = _wins(then, player)
    threat = _threat(final, player)
    refutation, why = _refuted(threat, final) if threat is not None else ([], "does not win at once")
    return _verdict(False, True, refutation, wins[:1], f"{moves[2]} {why}; {wins[0]} was the move")


def _threat(after: State, player: str) -> tuple[tuple[int, ...] | None, str] | None:
    """How another player wins at once after ``player``'s move: ``(dice, move)``, the first roll
    (when dice come first; else None) and the next mover's winning move; None when none can."""
    if after.is_terminal():
        return None
    if after.is_chance():
        for dice, _ in after.chance_outcomes():
            found = _threat(after.apply_chance(dice)[0], player)
            if found is not None:
                return tuple(dice), found[1]
        return None
    mover = str(after.to_move())
    wins = _wins(after, mover) if mover != player else []
    return (None, wins[0]) if wins else None


def _refuted(threat: tuple[tuple[int, ...] | None, str], after: State) -> tuple[list[str], str]:
    """The refutation's moves and words: ``lets blue win with h8-exit`` (``... if the dice fall 1-2-3``)."""
    dice, move = threat
    roll = f" if the dice fall {'-'.join(map(str, dice))}" if dice is not None else ""
    mover = after.apply_chance(dice)[0].to_move() if dice is not None else after.to_move()
    return [move], f"lets {mover} win with {move}{roll}"


def _judge_first(puzzle: TrainingPuzzle, move: str, after: State) -> dict[str, Any]:
    player, other = puzzle.player, str(after.to_move())
    if _won(after, player):
        return _verdict(puzzle.kind == "win", True, [], [puzzle.solution],
                        f"{move} wins{': solved' if puzzle.kind == 'win' else ''}")
    threat = _threat(after, player)
    if threat is not None:
        refutation, why = _refuted(threat, after)
        return {**_verdict(False, True, refutation, [puzzle.solution], f"{move} {why}; {puzzle.solution} was the move"),
                "dice": list(threat[0]) if threat[0] is not None else None}
    if puzzle.kind == "save":
        return _verdict(True, True, [], [puzzle.solution], f"{move} saves the game: solved")
    if puzzle.depth == 3:
        reply, wins = defence(after, player)
        if reply is not None and wins:
            return {**_verdict(True, False, [], [], f"right: {other} replies {reply}; now win in one"), "reply": reply}
        if reply is not None:
            return _verdict(False, True, [reply], [puzzle.solution], f"{move} leaves a defence: after {other}'s "
                            f"{reply} no move wins at once; {puzzle.solution} was the move")
    return _verdict(False, True, [], [puzzle.solution], f"{move} does not win at once; {puzzle.solution} was the move")


def _verdict(right: bool, done: bool, refutation: list[str], solution: list[str], message: str) -> dict[str, Any]:
    return {"right": right, "done": done, "solved": right and done, "reply": None, "refutation": refutation,
            "dice": None, "solution": solution, "message": message}


# ---------------------------------------------------------------------- progress


class Progress:
    """Each puzzle's last result (``solved`` or ``failed``) in ``folder/training.json``,
    written atomically after each; a file that is not the studio's JSON starts afresh."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / PROGRESS_FILE
        self.results: dict[str, dict[str, Any]] = {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.results = {k: v for k, v in data["puzzles"].items() if v.get("result") in ("solved", "failed")}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.results = {}

    def record(self, puzzle: TrainingPuzzle, solved: bool) -> None:
        old = self.results.get(puzzle.id, {})
        self.results[puzzle.id] = {"game": puzzle.game, "result": "solved" if solved else "failed",
                                   "tries": int(old.get("tries", 0)) + 1}
        data = {"version": 1, "puzzles": dict(sorted(self.results.items()))}
        atomic_write(self.path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))

    def of(self, puzzles: Sequence[TrainingPuzzle]) -> dict[str, Any]:
        """``solved``, ``failed`` and ``total`` of ``puzzles``, and each one's result."""
        results = {p.id: self.results.get(p.id, {}).get("result") for p in puzzles}
        return {"solved": sum(r == "solved" for r in results.values()),
                "failed": sum(r == "failed" for r in results.values()), "total": len(puzzles), "results": results}


class Trainer:
    """The puzzles of each game (the shipped set, then ``extra`` files) and the progress in ``folder``."""

    def __init__(self, folder: Path, extra: Sequence[Path] = ()) -> None:
        self.progress = Progress(folder)
        self.extra = tuple(extra)
        self._sets: dict[str, list[TrainingPuzzle]] = {}
        self._by_id: dict[str, TrainingPuzzle] = {}

    def puzzles(self, game: str) -> list[TrainingPuzzle]:
        """The game's puzzles (read once).

        Raises:
            TableError: no such game (404).
        """
        if game not in game_names():
            raise TableError(f"game {short_repr(game, 40)}: no such game; expected one of {', '.join(game_names())}", 404)
        if game not in self._sets:
            files = [f for f in (shipped_file(game), *self.extra) if f is not None]
            found: list[TrainingPuzzle] = []
            for f in files:
                for p in read_set(f, game):
                    if p.id not in self._by_id:
                        found.append(dataclasses.replace(p, number=len(found) + 1))
                        self._by_id[p.id] = found[-1]
            self._sets[game] = found
        return self._sets[game]

    def get(self, puzzle_id: str) -> TrainingPuzzle:
        """The puzzle ``puzzle_id`` of any game.

        Raises:
            TableError: no puzzle has that id (404).
        """
        for g in game_names():
            if puzzle_id in self._by_id:
                break
            self.puzzles(g)
        if puzzle_id not in self._by_id:
            raise TableError(f"puzzle {short_repr(puzzle_id, 20)}: no such puzzle; expected an id "
                             "GET /api/training/{game} lists", 404)
        return self._by_id[puzzle_id]


# ---------------------------------------------------------------------- the routes


class TrainingRoom:
    """The page's handlers over a :class:`Trainer` (``folder``: the studio's)."""

    def __init__(self, folder: Path, extra: Sequence[Path] = ()) -> None:
        self.trainer = Trainer(folder, extra)
        self.folder = folder
        self._pages: dict[tuple[str, tuple[str, ...]], str] = {}  # the last 3D pages made

    async def page(self, request: Request) -> Response:
        from stratstone_cad.studio.app import _page_file

        return HTMLResponse(_page_file("training.html"))

    async def listing(self, request: Request) -> Response:
        """The game's puzzles (each one's task and depth) and the progress on them."""
        game = request.path_params["game"]
        puzzles = self.trainer.puzzles(game)
        progress = self.trainer.progress.of(puzzles)
        empty = None if puzzles else (f"no puzzles of {game} here: the package ships none for it and no "
                                      "studio --puzzles FILE holds one")
        return JSONResponse({"game": game, "games": game_names(), "puzzles": [p.to_json() for p in puzzles],
                             "progress": progress, "message": empty})

    async def position(self, request: Request) -> Response:
        """The position after the puzzle's moves so far (``?move=...`` each): the board, the legal moves, who moves."""
        puzzle = self.trainer.get(request.path_params["id"])
        state = line_state(puzzle, request.query_params.getlist("move")[:3], request.query_params.getlist("dice")[:3])
        result = state.result()
        return JSONResponse({**puzzle.to_json(), "board": position_board(get_game(puzzle.game), state),
                             "to_move": None if state.is_terminal() else state.to_move(),
                             "legal": [str(m) for m in state.legal_moves()] if _open(state) else [],
                             "over": state.is_terminal(), "result": result.to_json() if result is not None else None})

    async def reach(self, request: Request) -> Response:
        puzzle = self.trainer.get(request.path_params["id"])
        state = line_state(puzzle, request.query_params.getlist("move")[:3])
        return JSONResponse(reach_of(state, request.path_params["square"][:8]) if _open(state) else [])

    async def move(self, request: Request) -> Response:
        """``{"moves": [...]}`` judged (:func:`judge`); a finished puzzle's result kept."""
        from stratstone_cad.studio.app import in_thread

        puzzle = self.trainer.get(request.path_params["id"])
        body = await body_of(request)
        verdict = await in_thread(judge, puzzle, body.get("moves"))
        if verdict["done"]:
            self.trainer.progress.record(puzzle, verdict["solved"])
        progress = self.trainer.progress.of(self.trainer.puzzles(puzzle.game))
        return JSONResponse({**verdict, "progress": {k: v for k, v in progress.items() if k != "results"}})

    async def view3d(self, request: Request) -> Response:
        """The position after ``?move=...`` in the replay page's player (the printed set's meshes),
        its log ``training/<id>.jsonl`` in the studio's folder."""
        from stratstone_cad.studio.app import in_thread

        puzzle = self.trainer.get(request.path_params["id"])
        moves = tuple(request.query_params.getlist("move")[:3])
        dice = tuple(request.query_params.getlist("dice")[:3])
        line_state(puzzle, moves, dice)  # checked before anything is made
        key = (puzzle.id, moves + dice)
        if key not in self._pages:
            html = await in_thread(_replay_page, puzzle, moves, dice, self.folder / "training")
            while len(self._pages) >= PAGES_KEPT:
                self._pages.pop(next(iter(self._pages)))
            self._pages[key] = html
        return HTMLResponse(self._pages[key])

    async def progress(self, request: Request) -> Response:
        """Every game's solved, failed and total."""
        out = {}
        for g in game_names():
            one = self.trainer.progress.of(self.trainer.puzzles(g))
            out[g] = {k: v for k, v in one.items() if k != "results"}
        return JSONResponse({"games": out, "file": PROGRESS_FILE})


def _replay_page(puzzle: TrainingPuzzle, moves: Sequence[str], dice: Sequence[str], folder: Path) -> str:
    """The replay page of the puzzle's log and ``moves`` after it (checked: :func:`line_state`)."""
    from stratstone_cad.viewer import gltf
    from stratstone_cad.viewer.replay import load
    from stratstone_cad.viewer.web import page

    records, state, rolls = list(puzzle.records), puzzle.state(), list(dice)
    chance = get_game(puzzle.game).chance_field
    for i, m in enumerate(moves):
        rolled = (chance, puzzle.dice) if i == 0 and chance and puzzle.dice is not None else None
        if state.is_chance():
            fell = _dice(rolls.pop(0) if rolls else None, state)
            state, rolled = state.apply_chance(fell)[0], (str(chance), fell)
        records.append(_log.ply_record(len(records), str(state.to_move()), m, rolled))
        state = _play(state, m, f"move {i + 1}")
    folder.mkdir(exist_ok=True)
    path = folder / f"{puzzle.id}.jsonl"
    _log.write_log(path, records)
    rep = load(path)
    return page(gltf.replay_bytes(rep, path, 0.6, "levels", True), f"{rep.title}: puzzle {puzzle.number}")


def routes(folder: Path, extra: Sequence[Path] = ()) -> list[Route]:
    """The Training page's routes (the studio's app registers them)."""
    room = TrainingRoom(folder, extra)
    return [Route("/training", room.page), Route("/api/training/progress", room.progress),
            Route("/api/training/puzzle/{id}", room.position),
            Route("/api/training/puzzle/{id}/reach/{square}", room.reach),
            Route("/api/training/puzzle/{id}/view3d", room.view3d),
            Route("/api/training/puzzle/{id}/move", room.move, methods=["POST"]),
            Route("/api/training/{game}", room.listing)]
