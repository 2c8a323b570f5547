"""The Play room's tables: a game of any registered engine played through the studio, each
an ordinary engine log under the studio's folder, ``tables/<id>.jsonl``, written after every
ply as ``record`` writes it (the same lock, appended and synced, rewritten atomically after a
takeback), with what the log does not hold beside it in ``tables/<id>.table.json`` (who sits
at each side, the seats' tokens, how the dice fall, the clock).

A table is changed only on the event loop (one thread): the routes
(:mod:`stratstone_cad.studio.play_routes`) call its methods, and the engines' moves are
thought in daemon threads (at most :data:`THINKERS` at once) and applied on the loop afterwards, unless a takeback
or an end came meanwhile (:attr:`Table.generation`). Every change wakes the table's
followers (:meth:`Table.changed`). The rules stay in the engines: the legal moves, the
reach of a square and every refusal are theirs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stratstone_cad.base.fileio import atomic_write, sweep_temporary
from stratstone_cad.engine.events import DRAW_AGREED, RESIGNATION, TIME_OUT, Result
from stratstone_cad.engine.protocol import Game, State
from stratstone_cad.errors import GameError, PlayerKindError, TableError, UserError, short_repr
from stratstone_cad.log import logfile as _log
from stratstone_cad.log.commands import header_error
from stratstone_cad.log.record.lock import recording
from stratstone_cad.registry import game_names, get_game
from stratstone_cad.studio.clock import Clock, parse_clock

__all__ = ["PERSON", "THINKERS", "Table", "Tables", "reach_of", "to_of"]

PERSON = "person"
"""The player kind of a seat a person holds (with a token); every other kind is an engine's."""
ID = re.compile(r"[0-9a-f]{12}")
"""A table's id (and the stem of its files)."""
SEED_MAX = 2**32 - 1
FORCED = ("turn lost", "board reset")
"""The kinds of event of a ply the dice force (the roll's only move): played at once, as ``record`` does."""
THINKERS = threading.BoundedSemaphore(2)
"""At most two engines think at once (the machine's cores); the rest wait their turn."""


@dataclass
class Table:
    """One game at the studio: its log ``records`` (header first), the ``states`` after each
    ply, who sits where (``kinds``), the persons' ``tokens`` and the clock."""

    id: str
    game: Game
    folder: Path
    records: list[dict[str, Any]]
    states: list[State]
    kinds: dict[str, str]
    tokens: dict[str, str]
    seed: int
    entered_dice: bool = False
    clock: Clock | None = None
    rolled: State | None = None
    dice: tuple[int, ...] | None = None
    offer: str | None = None
    thinking: bool = False
    generation: int = 0
    version: int = 0
    lock: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    _followers: set[asyncio.Future] = field(default_factory=set)
    _players: dict[str, Any] = field(default_factory=dict)
    _timer: asyncio.TimerHandle | None = None

    # -- what the table shows -----------------------------------------------------------

    @property
    def path(self) -> Path:
        return self.folder / f"{self.id}.jsonl"

    @property
    def state(self) -> State:
        return self.rolled if self.rolled is not None else self.states[-1]

    @property
    def ply(self) -> int:
        return self.states[-1].ply

    @property
    def result(self) -> Result | None:
        last = self.records[-1]
        return Result(last["result"]["winner"], last["result"]["reason"]) if "result" in last else None

    def roll_due(self) -> bool:
        return self.result is None and self.rolled is None and self.game.chance_field is not None \
            and self.states[-1].is_chance()

    def to_json(self) -> dict[str, Any]:
        """What ``GET /api/table/{id}`` answers (docs/studio.md, "The Play room's API")."""
        result = self.result
        state = self.state
        field_ = self.game.chance_field
        legal = [] if result is not None or self.roll_due() else [str(m) for m in state.legal_moves()]
        plies = [{k: r[k] for k in ("ply", "player", "move", *([field_] if field_ and field_ in r else []))}
                 for r in self.records[1:] if "ply" in r]
        return {"id": self.id, "game": self.game.name, "players": list(self.records[0]["players"]),
                "kinds": dict(self.kinds), "setup": self.records[0]["setup"], "seed": self.records[0]["seed"],
                "ply": self.ply, "to_move": None if result is not None else state.to_move(),
                "roll": self.roll_due(), "dice": list(self.dice) if self.dice is not None else None,
                "entered_dice": self.entered_dice, "legal": legal, "over": result is not None,
                "result": result.to_json() if result is not None else None, "log": f"tables/{self.id}.jsonl",
                "clock": self.clock.to_json(time.monotonic()) if self.clock else None, "thinking": self.thinking,
                "draw_offer": self.offer, "plies": plies, "version": self.version}

    def reach(self, square: str) -> list[dict[str, Any]]:
        """What the piece or stack on ``square`` can do (:func:`reach_of`); nothing once the
        game is over or while the dice are to be rolled."""
        if self.result is not None or self.roll_due():
            return []
        return reach_of(self.state, square)

    # -- seats ------------------------------------------------------------------------------

    def side_of(self, token: Any) -> str:
        """The side whose seat ``token`` holds; TableError 403 for none or another table's.

        Raises:
            TableError: the token holds no seat of this table.
        """
        for side, t in self.tokens.items():
            if isinstance(token, str) and secrets.compare_digest(t, token):
                return side
        raise TableError(f"seat {short_repr(token, 20)}: not a seat of table {self.id}; expected the token "
                         "of a seat a person holds", 403)

    def _turn(self, token: Any, ply: Any, anyone: bool = False) -> str:
        """The side of ``token``, checked to be the one to move at ``ply`` (403, 409), unless ``anyone``."""
        if self.result is not None:
            raise TableError(f"table {self.id}: the game is over ({self.result.text()}), nothing more to play", 409)
        side = self.side_of(token)
        if type(ply) is not int or ply != self.ply:
            raise TableError(f"ply {short_repr(ply, 20)}: the table is at ply {self.ply}; expected {self.ply} "
                             "(reload the table)", 409)
        if self.state.to_move() != side and not anyone:
            raise TableError(f"seat of {side}: {self.state.to_move()} is to "
                             f"{'roll' if self.roll_due() else 'move'}, not {side}", 403)
        return side

    # -- plies ------------------------------------------------------------------------------

    def move(self, token: Any, ply: Any, text: Any) -> None:
        """A person's move: checked (seat, ply, the engine's rules), logged, the clock run.

        Raises:
            TableError: the dice are to be rolled first, the move text is bad, or the rules refuse the move.
        """
        self._turn(token, ply)
        if self.roll_due():
            raise TableError(f"{self.state.to_move()} rolls first: expected a roll (POST .../roll), then the move", 409)
        if not isinstance(text, str) or not 0 < len(text) <= 64:
            raise TableError(f"move {short_repr(text)}: expected {self.game.move_text}")
        try:
            after = self.state.apply(text)[0]
        except GameError as e:
            raise TableError(str(e)) from None
        self._accept(str(self.state.parse_move(text)), after)

    def roll(self, token: Any, ply: Any, dice: Any) -> None:
        """The physical dice a person rolled, entered (a table with ``entered_dice``): the
        roller's seat, or any person's when an engine rolls.

        Raises:
            TableError: no roll is due, the studio rolls this table's dice, or the dice are not a list of values.
        """
        roller = self.state.to_move()
        if self.result is None and roller is not None and self.kinds.get(roller) != PERSON:
            self._turn(token, ply, anyone=True)
        else:
            self._turn(token, ply)
        if not self.roll_due():
            raise TableError(f"roll: {self.state.to_move()} is to move, not to roll" if self.game.chance_field
                             else f"roll: {self.game.name} has no dice", 409)
        if not self.entered_dice:
            raise TableError("roll: this table's dice are rolled by the studio; expected a move", 409)
        if not isinstance(dice, list) or not all(type(d) is int for d in dice):
            raise TableError(f"dice {short_repr(dice)}: expected a list of the dice's values, such as [2, 3, 3]")
        self._apply_dice(tuple(dice))

    def _apply_dice(self, dice: tuple[int, ...]) -> None:
        try:
            rolled = self.states[-1].apply_chance(dice)[0]
        except GameError as e:
            raise TableError(str(e)) from None
        self.dice, self.rolled = dice, rolled
        moves = list(rolled.legal_moves())
        if len(moves) == 1:
            after, events = rolled.apply(moves[0])
            if any(e.kind in FORCED for e in events):  # the roll's only move: recorded at once, as record does
                self._accept(str(moves[0]), after)
                return
        self.touch()

    def _accept(self, move: str, after: State) -> None:
        before = self.states[-1]
        field_ = self.game.chance_field
        chance = (field_, self.dice) if self.dice is not None and field_ else None
        record = _log.ply_record(after.ply, str(before.to_move()), move, chance)
        result = after.result()
        lines = [record, _log.result_record(result)] if result is not None else [record]
        _log.append_log(self.path, lines)  # on disk before it is shown; a refused write changes nothing
        self.records.extend(lines)
        self.states.append(after)
        self.dice = self.rolled = None
        self.offer = None
        now = time.monotonic()
        if self.clock is not None:
            self.clock.charge(now)
            self.clock.left[str(before.to_move())] += self.clock.increment
            self.clock.start(None if result is not None else after.to_move(), now)
            self.save_meta()
        if result is not None:
            self.retire()
        self.touch()
        self.studio_roll()

    def studio_roll(self) -> None:
        """The studio's dice for the next ply, rolled at once when due (from the seed, as
        ``record --roll`` rolls them): the answer to a move already shows the next roll's moves."""
        if self.roll_due() and not self.entered_dice:
            self._apply_dice(self.states[-1].roll(random.Random(f"{self.seed}/{self.ply + 1}")))

    def finish(self, result: Result) -> None:
        """End the game with a result the rules did not give (resignation, agreement, time)."""
        _log.append_log(self.path, [_log.result_record(result)])
        self.records.append(_log.result_record(result))
        self.dice = self.rolled = None
        self.generation += 1  # an engine's move thought meanwhile is dropped
        if self.clock is not None:
            self.clock.charge(time.monotonic())
            self.clock.start(None, time.monotonic())
            self.save_meta()
        self.retire()
        self.touch()

    def retire(self) -> None:
        """The game over: its lock let go, and only the last position kept (a finished table
        is shown, never played on or taken back: its memory stays flat however many end)."""
        self.lock.close()
        self.states = self.states[-1:]
        self._players.clear()

    def resign(self, token: Any) -> None:
        """``token``'s side resigns: the other player wins (two players only).

        Raises:
            TableError: the table has more than two players.
        """
        side = self._seated(token)
        players = list(self.records[0]["players"])
        if len(players) != 2:
            raise TableError(f"resign: with {len(players)} players a resignation names no winner; expected a draw offer", 409)
        self.finish(Result(players[1 - players.index(side)], RESIGNATION))

    def draw(self, token: Any) -> str:
        """A draw offered by ``token``'s seat, or accepted when another seat offered it; an
        engine declines. Returns ``offered``, ``agreed`` or ``declined``."""
        side = self._seated(token)
        others = [s for s in self.kinds if s != side]
        if any(self.kinds[s] != PERSON for s in others):
            return "declined"
        if self.offer is not None and self.offer != side:
            self.finish(Result(None, DRAW_AGREED))
            return "agreed"
        self.offer = side
        self.touch()
        return "offered"

    def takeback(self, token: Any) -> None:
        """Against the engine only: the plies back to the last one ``token``'s side chose.

        Raises:
            TableError: the table is not against the engine, or its side has played no ply.
        """
        side = self._seated(token)
        if any(k == PERSON for s, k in self.kinds.items() if s != side):
            raise TableError("takeback: only against the engine; expected no other person at the table", 409)
        mine = [i for i, r in enumerate(self.records[1:], 1) if r.get("player") == side]
        if not mine:
            raise TableError(f"takeback: {side} has played no ply yet", 409)
        del self.records[mine[-1]:]
        del self.states[mine[-1]:]
        self.dice = self.rolled = None
        self.generation += 1
        _log.write_log(self.path, self.records)
        if self.clock is not None:
            self.clock.start(self.states[-1].to_move(), time.monotonic())
            self.save_meta()
        self.touch()
        self.studio_roll()

    def _seated(self, token: Any) -> str:
        if self.result is not None:
            raise TableError(f"table {self.id}: the game is over ({self.result.text()})", 409)
        return self.side_of(token)

    # -- the engines, the dice and the clock --------------------------------------------------

    def engine_kind(self) -> str | None:
        side = self.state.to_move()
        return None if self.result is not None or side is None or self.kinds.get(side) == PERSON else self.kinds[side]

    def _player(self, side: str) -> Any:
        if side not in self._players:
            from stratstone_cad.analysis.players import make_player

            self._players[side] = make_player(self.kinds[side], self.game)
        return self._players[side]

    async def advance(self) -> None:
        """Play what nobody at the screen plays: the studio's dice, the engines' moves (each
        thought in a daemon thread, applied here unless the table changed meanwhile)."""
        while self.result is None:
            if self.roll_due():
                if self.entered_dice:
                    return
                self.studio_roll()
                continue
            kind = self.engine_kind()
            if kind is None:
                return
            state, generation, side = self.state, self.generation, str(self.state.to_move())
            rng = random.Random(f"{self.seed}/vs/{self.ply + 1}")
            self.thinking = True
            self.touch()
            try:
                move = await thought(self._player(side), state, rng)
            finally:
                self.thinking = False
            if generation != self.generation or self.state is not state:
                self.touch()
                return
            self._accept(str(move), state.apply(move)[0])

    def arm_clock(self, on_time: Callable[[Table], None]) -> None:
        """Call ``on_time(self)`` when the running side's time is up (on the loop)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        c = self.clock
        if c is None or c.running is None or self.result is not None:
            return
        left = c.to_json(time.monotonic())["left"][c.running]
        self._timer = asyncio.get_running_loop().call_later(left + 0.01, on_time, self)

    def flag(self) -> bool:
        """End the game on time when the side to move has none left; whether it did."""
        if self.clock is None or self.result is not None:
            return False
        out = self.clock.charge(time.monotonic())
        if out is None:
            return False
        players = list(self.records[0]["players"])
        self.finish(Result(next(p for p in players if p != out), TIME_OUT))
        return True

    # -- followers and files ------------------------------------------------------------------

    def touch(self) -> None:
        self.version += 1
        for f in self._followers:
            if not f.done():
                f.set_result(None)
        self._followers.clear()

    async def changed(self, version: int, timeout: float) -> None:
        """Return once the table's version is past ``version``, or after ``timeout`` seconds."""
        if self.version > version:
            return
        fut = asyncio.get_running_loop().create_future()
        self._followers.add(fut)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(fut, timeout)
        self._followers.discard(fut)

    def meta(self) -> dict[str, Any]:
        c = self.clock
        clock = None if c is None else {"spec": c.spec, "increment": c.increment, "left": c.to_json(time.monotonic())["left"]}
        return {"id": self.id, "game": self.game.name, "kinds": self.kinds, "tokens": self.tokens, "seed": self.seed,
                "entered_dice": self.entered_dice, "clock": clock}

    def save_meta(self) -> None:
        atomic_write(self.folder / f"{self.id}.table.json", (json.dumps(self.meta()) + "\n").encode())


async def thought(player: Callable[..., Any], state: State, rng: random.Random) -> Any:
    """``player(state, rng)`` in a daemon thread (a stopping studio never waits for a search:
    its exit ends it) once one of :data:`THINKERS` is free; its move, or its exception."""
    loop = asyncio.get_running_loop()
    fut = loop.create_future()

    def think() -> None:
        with THINKERS:
            try:
                move, error = player(state, rng), None
            except Exception as e:  # handed to the awaiting table as it is
                move, error = None, e
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the studio stopped
            loop.call_soon_threadsafe(lambda: fut.done() or (fut.set_exception(error) if error else fut.set_result(move)))

    threading.Thread(target=think, daemon=True, name="table-engine").start()
    return await fut


def to_of(events: list[Any]) -> str | None:
    """Where a move ends, from its events: ``exit``, the square attacked, the last square of
    a path or a sowing, the square of a stone placed."""
    to = None
    for e in events:
        if e.kind == "exited":
            return "exit"
        if e.kind == "attacked":
            to = e.square
        elif e.kind == "moved" and e.path:
            to = e.path[-1]
        elif e.kind in ("sown", "placed"):
            to = e.square
    return to


class Tables:
    """Every table of the studio's folder ``root/tables``: those on disk when the studio
    starts (each goes on at the ply its log reached), and those made since."""

    def __init__(self, root: Path, on_time: Callable[[Table], None] | None = None) -> None:
        self.folder = root / "tables"
        self.tables: dict[str, Table] = {}
        self.on_time = on_time or (lambda t: None)
        if self.folder.is_dir():
            for log in sorted(self.folder.glob("*.jsonl")):
                if ID.fullmatch(log.stem):
                    try:
                        self.tables[log.stem] = self._load(log.stem)
                    except (UserError, OSError, ValueError, KeyError, TypeError) as e:
                        print(f"studio: table {log.stem} left as it is ({e})", file=sys.stderr)

    def get(self, table_id: str) -> Table:
        """The table ``table_id``, TableError 404 for none.

        Raises:
            TableError: no table has that id.
        """
        t = self.tables.get(table_id) if ID.fullmatch(table_id) else None
        if t is None:
            raise TableError(f"table {short_repr(table_id, 20)}: no such table in this studio", 404)
        return t

    def new(self, game_name: Any, body: Mapping[str, Any]) -> Table:
        """A new table of ``game_name`` from the POST's ``body``; TableError (or another
        UserError) for anything wrong, before any file is written.

        Raises:
            TableError: the game is unknown, or its players or setup are refused.
        """
        if game_name not in game_names():
            raise TableError(f"game {short_repr(game_name)}: expected one of {', '.join(game_names())}", 404)
        game = get_game(game_name)
        kinds, seed, setup, clock, entered = _checked(game, body)
        setup = game.play_setup(setup, seed)
        try:
            ids, full = game.new_setup(len(kinds), setup, random.Random(seed))
            initial = game.initial_state(ids, full)
        except GameError as e:
            raise TableError(f"setup: {e}") from None
        header = _log.header_record(game, ids, None if entered else seed, full)
        refused = header_error(header)
        if refused:
            raise TableError(refused)
        table_id = secrets.token_hex(6)
        table = Table(table_id, game, self.folder, [header], [initial], dict(zip(ids, kinds, strict=True)),
                      {s: secrets.token_urlsafe(16) for s, k in zip(ids, kinds, strict=True) if k == PERSON},
                      seed, entered)
        if clock is not None:
            start, inc = clock
            table.clock = Clock(body["clock"], inc, {s: float(start) for s in ids})
            table.clock.start(initial.to_move(), time.monotonic())
        self.folder.mkdir(parents=True, exist_ok=True)
        table.lock.enter_context(recording(table.path, f"table {table_id}"))
        _log.write_log(table.path, table.records)
        table.save_meta()
        self.tables[table_id] = table
        table.studio_roll()
        return table

    def _load(self, table_id: str) -> Table:
        meta = json.loads((self.folder / f"{table_id}.table.json").read_text(encoding="utf-8"))
        path = self.folder / f"{table_id}.jsonl"
        lines = list(_log.reading._read_lines(path))
        with _log.LogWalk(iter(lines)) as r:
            states: list[State] = [r.initial]
            states.extend(step.after for step in r)
        records = [obj for _, obj in lines]
        table = Table(table_id, get_game(meta["game"]), self.folder, records, states, dict(meta["kinds"]),
                      dict(meta["tokens"]), int(meta["seed"]), bool(meta["entered_dice"]))
        c = meta.get("clock")
        if c is not None:
            table.clock = Clock(c["spec"], int(c["increment"]), {k: float(v) for k, v in c["left"].items()})
        if table.result is not None:
            table.states = table.states[-1:]
        else:
            sweep_temporary(self.folder, re.escape(path.name))
            table.lock.enter_context(recording(path, f"table {table_id}"))
            if not _log.holds_as_written(path, records):
                _log.write_log(path, records)
            if table.clock is not None:
                table.clock.start(states[-1].to_move(), time.monotonic())
            table.studio_roll()
        return table


def _checked(game: Game, body: Mapping[str, Any]) -> tuple[list[str], int, Any, tuple[int, int] | None, bool]:
    """The POST's fields: the players' kinds, the seed, the setup, the clock, whether dice are entered."""
    from stratstone_cad.analysis.players import make_player

    unknown = sorted(set(body) - {"players", "seed", "setup", "clock", "dice"})
    if unknown:
        raise TableError(f"field {short_repr(unknown[0])}: unknown; expected players, seed, setup, clock, dice")
    kinds = body.get("players")
    if not isinstance(kinds, list) or not 1 <= len(kinds) <= 8 or not all(isinstance(k, str) for k in kinds):
        raise TableError(f"players {short_repr(kinds)}: expected a list of player kinds, such as "
                         "[\"person\", \"search:200\"] (person, greedy, random, search[:N])")
    for k in kinds:
        if k != PERSON:
            try:
                make_player(k, game)
            except PlayerKindError as e:
                raise TableError(f"players: {e} (or person: a seat for a person at a screen)") from None
    seed = body.get("seed")
    if seed is None:
        seed = random.SystemRandom().randrange(SEED_MAX + 1)
    if type(seed) is not int or not 0 <= seed <= SEED_MAX:
        raise TableError(f"seed {short_repr(seed)}: expected an integer from 0 to {SEED_MAX}")
    setup = body.get("setup")
    if setup is not None and not isinstance(setup, dict):
        raise TableError(f"setup {short_repr(setup)}: expected an object, as the log's header holds it")
    clock = parse_clock(body["clock"]) if body.get("clock") is not None else None
    if clock is not None and len(kinds) != 2:
        raise TableError(f"clock {short_repr(body['clock'])}: a clock needs two players, got {len(kinds)}")
    dice = body.get("dice", "studio")
    if dice not in ("studio", "entered") or (dice == "entered" and game.chance_field is None):
        raise TableError(f"dice {short_repr(dice)}: expected \"studio\" (rolled from the seed)"
                         + (" or \"entered\" (the physical dice)" if game.chance_field else f"; {game.name} has no dice"))
    return kinds, seed, setup, clock, dice == "entered"


def reach_of(state: State, square: str) -> list[dict[str, Any]]:
    """What the piece or stack on ``square`` can do in ``state``: one object a legal move, with ``move``,
    ``to`` (a square, or ``exit``) and, for a game whose moves cost (the terrain game),
    ``cost`` and ``kind`` (``move``, ``attack``, ``exit``, ``special``), all the engine's."""
    costs = state.reach(square)
    if costs is None:
        texts = [str(m) for m in state.legal_moves()]
        costs = [(t, None) for t in texts if t == square or (t.startswith(square) and not t[len(square)].isalnum())]
    out = []
    for text, cost in costs:
        events = state.apply(text)[1]
        one: dict[str, Any] = {"move": text, "to": to_of(events)}
        if cost is not None:
            moved = next((e for e in events if e.kind == "moved"), None)
            special = bool(moved is not None and moved.special)
            one["kind"] = "special" if special else ("exit" if one["to"] == "exit" else
                                                     "attack" if any(e.kind == "attacked" for e in events) else "move")
            number = re.match(r"\d+", cost)
            one["cost"] = int(number.group()) if number else (moved.points if moved is not None else None)
            one["why"] = cost
        out.append(one)
    return out
