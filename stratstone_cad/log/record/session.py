"""A ``record`` session: the position, the plies entered (dice, moves, the engine's replies
with ``--vs``), the undo, the end (a result, a resignation, an agreed draw, quit), and
the log saved after every ply (see :mod:`stratstone_cad.log.record`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stratstone_cad.engine.events import DRAW_AGREED, RESIGNATION, Result
from stratstone_cad.engine.players import Player
from stratstone_cad.engine.protocol import Game, State
from stratstone_cad.errors import GameError, MoveParseError, OutputError, counted, printable, short_repr
from stratstone_cad.log import logfile as _log
from stratstone_cad.log.record.prompt import COMMANDS, DICE_RE, HELP, SHOW_MOVES, Reader

__all__ = ["Session"]


@dataclass
class Session:
    """A game being recorded into ``out``: its log ``records`` (header first) and the
    positions after each ply; :meth:`run` prompts until it ends."""

    game: Game
    out: Path
    records: list[dict[str, Any]]
    states: list[State]
    """``states[i]``: the position after ``i`` plies (``states[0]`` is the start)."""
    say: Callable[[str], None]
    seed: int | None = None
    """With --roll: the dice of ply ``n`` are drawn from ``Random(f"{seed}/{n}")``, so an
    undone ply gets its own dice again and a resumed session rolls as an unbroken one."""
    dice: tuple[int, ...] | None = None
    """Dice entered for the ply being entered (not in the log until its move is)."""
    rolled: State | None = field(default=None, repr=False)
    """The position after those dice."""
    roll_events: list[Any] = field(default_factory=list, repr=False)
    """The events of those dice (the ply's explanation starts with them)."""
    saved: int = -1
    """The plies the log on disk holds (all of ``records`` but what a failed write kept out)."""
    vs: Player | None = None
    """``record --vs``: the engine's player, who moves for every side in :attr:`vs_sides`."""
    vs_sides: frozenset[str] = frozenset()
    written: int | None = None
    """How many of ``records`` the log on disk holds, each line as :func:`write_log` writes it:
    a save appends the rest. ``None`` (a resumed log, as read; after an undo): the next save
    writes the whole log, so the file is always what one rewrite of the game would give."""

    def __post_init__(self) -> None:
        if self.saved < 0:
            self.saved = len(self.states) - 1

    @property
    def state(self) -> State:
        return self.rolled if self.rolled is not None else self.states[-1]

    @property
    def players(self) -> list[str]:
        return list(self.records[0]["players"])

    @property
    def name(self) -> str:
        return printable(str(self.out))

    def _chance_due(self) -> bool:
        return self.game.chance_field is not None and self.state.is_chance()

    # -- the loop ------------------------------------------------------------------------

    def run(self, read: Reader) -> str:
        """Prompt until the game ends, ``quit`` or the end of input; returns the last line."""
        self.show()
        while True:
            state = self.state
            player = state.to_move()
            if self._chance_due():
                if self.seed is not None:
                    done = self.enter_dice(state.roll(random.Random(f"{self.seed}/{state.ply + 1}")), None)
                    if done is not None:
                        return done
                    continue
                line = read(f"{player} rolls (three dice, e.g. 2 3 3)> ")
            elif player in self.vs_sides:
                done = self.reply()
                if done is not None:
                    return done
                continue
            else:
                line = read(f"{player} to move> ")
            if line is None:
                return self.kept("end of input")
            done = self.answer(line.strip())
            if done is not None:
                return done

    def reply(self) -> str | None:
        """The engine's move for the side to move: said, to be made on the board, and logged
        (its randomness drawn from ``Random("vs/PLY")``: the same position, the same reply)."""
        state = self.state
        assert self.vs is not None
        move = self.vs(state, random.Random(f"vs/{state.ply + 1}"))
        self.say(f"{state.to_move()} (the engine) plays {move}: make it on the board")
        return self.play(str(move))

    def answer(self, line: str) -> str | None:
        """Act on one answer; returns the closing line when the session ends."""
        word, _, rest = line.partition(" ")
        word, rest = word.lower(), rest.strip()
        if not line:
            return None
        if word in COMMANDS and rest and word not in ("moves", "resign"):
            self.say(f"{word} takes no argument, got {short_repr(rest)} (help lists the commands)")
        elif word in ("help", "?"):
            self.say(f"{HELP}\nA move: {self.game.move_text}.")
        elif word == "show":
            self.show()
        elif word == "moves":
            self.list_moves(rest)
        elif word == "undo":
            self.undo()
            while self.vs_sides and len(self.states) > 1 and self.state.to_move() in self.vs_sides \
                    and not self._chance_due():
                self.undo()  # the engine's reply goes with the move it answered
        elif word == "quit":
            return self.kept("quit")
        elif word == "resign":
            return self.resign(rest)
        elif word == "draw":
            return self.finish(Result(None, DRAW_AGREED))
        elif self._chance_due():
            m = DICE_RE.fullmatch(line)
            if m is None:
                self.say(f"refused: {short_repr(line)}: expected three dice of 1-3, such as 2 3 3 (or help)")
                return None
            return self.enter_dice(tuple(int(d) for d in m.group(1, 2, 3)), m.group(4))
        else:
            return self.play(line)
        return None

    # -- plies ---------------------------------------------------------------------------

    def enter_dice(self, dice: tuple[int, ...], move: str | None) -> str | None:
        state = self.states[-1]
        try:
            rolled, self.roll_events = state.apply_chance(dice)
        except GameError as e:
            self.say(f"refused: {e}")
            return None
        if move is not None:  # a move typed with the dice is read even where the dice decide the ply
            try:
                rolled.read_move(move)
            except MoveParseError as e:  # refused with the dice: 1 2 3 zzz is a typo, never "zzz ignored"
                self.say(f"refused: dice {_dice(dice)} and {e}; nothing recorded: enter the dice again (a move "
                         "after them is optional)")
                return None
        self.dice, self.rolled = dice, rolled
        moves = list(rolled.legal_moves())
        if len(moves) == 1:
            after, events = rolled.apply(moves[0])
            forced = [e for e in events if e.kind in ("turn lost", "board reset")]
            if forced:  # the roll's only move (a lost turn, a reset) is recorded at once
                what = "the turn is lost" if forced[0].kind == "turn lost" else "the board is reset"
                ignored = f"; {short_repr(move)} ignored" if move is not None and move != str(moves[0]) else ""
                self.say(f"dice {_dice(dice)}: {what} ({forced[0].reason}), recorded as {moves[0]}{ignored}")
                return self.accept(moves[0], after)
        self.say(f"dice {_dice(dice)}: {rolled.describe_roll()}")  # type: ignore[attr-defined]
        return self.play(move) if move is not None else None

    def play(self, text: str) -> str | None:
        state = self.state
        try:
            move = state.read_move(text)  # any case; the log gets str(move), the canonical text
            after, events = state.apply(move)
        except GameError as e:
            self.say(f"refused: {e}")
            return None
        events = [*self.roll_events, *events] if self.dice is not None else events
        # the ply in words, as check-log --explain writes it
        self.say(_log.ply_line(self.game, after.ply, str(state.to_move()), str(move), self.states[-1], after, events))
        return self.accept(move, after)

    def accept(self, move: Any, after: State) -> str | None:
        before = self.states[-1]
        chance = (self.game.chance_field, self.dice) if self.dice is not None and self.game.chance_field else None
        self.records.append(_log.ply_record(after.ply, str(before.to_move()), str(move), chance))
        self.states.append(after)
        self.dice = self.rolled = None
        result = after.result()
        if result is not None:
            return self.finish(result)
        self.save(f"ply {after.ply} was not saved")
        self.show()
        return None

    def undo(self) -> None:
        if self.dice is not None and self.seed is None:
            self.say(f"took back the dice {_dice(self.dice)}")
            self.dice = self.rolled = None
            return
        if len(self.states) == 1:
            self.say("nothing to undo: no ply is recorded yet")
            return
        if self.seed is not None and all(self._forced(self.states[i], self.records[i + 1])
                                         for i in range(len(self.states) - 1)):
            # Taken back, the same dice would fall again and force the same plies.
            self.say(f"nothing to undo: the dice forced every ply recorded ({counted(len(self.states) - 1, 'ply', 'plies')}), "
                     "and with --roll they fall the same again")
            return
        # With --roll the pending dice are the program's: undo takes back the last ply the
        # player chose, and the lost turns and resets the dice forced after it (there is
        # such a ply: without one, nothing was taken back above).
        while True:
            last = self.records.pop()
            before = self.states[-2]
            self.states.pop()
            self.dice = self.rolled = None
            self.say(f"took back ply {last['ply']}: {last['player']} {last['move']}")
            if self.seed is None or not self._forced(before, last):
                break
        self.written = None  # lines taken back: the log is written again whole
        self.save("the undo was not saved")
        self.show()

    def _forced(self, before: State, record: Mapping[str, Any]) -> bool:
        """Whether the ply ``record`` played from ``before`` had one legal move only."""
        field_ = self.game.chance_field
        state = before.apply_chance(record[field_])[0] if field_ and field_ in record else before
        return len(list(state.legal_moves())) == 1

    # -- the end -------------------------------------------------------------------------

    def resign(self, who: str) -> str | None:
        players = self.players
        loser = who or self.state.to_move()
        if len(players) != 2:
            self.say(f"refused: resign: with {len(players)} players a resignation names no winner; "
                     "use draw, or quit to stop here")
            return None
        if loser not in players:
            self.say(f"refused: resign {short_repr(who)}: expected one of {', '.join(players)}")
            return None
        return self.finish(Result(players[1 - players.index(loser)], RESIGNATION))

    def finish(self, result: Result) -> str:
        self.dice = self.rolled = None
        self.records.append(_log.result_record(result))
        plies = len(self.states) - 1
        self.save(f"ply {plies} and the result were not saved" if plies > self.saved else "the result was not saved")
        self.show()
        return f"wrote {self.name}: {self.game.name}, {counted(plies, 'ply', 'plies')}, {result.text()}"

    def save(self, lost: str) -> None:
        """Write the log: the new lines appended (see :attr:`written`), or the whole log; when
        that fails (a full disk), the session ends saying what was ``lost`` and where ``record
        --resume`` goes on from (the log is as it was).

        Raises:
            OutputError: the log cannot be written (the message says where ``record --resume`` goes on from).
        """
        try:
            if self.written is not None and self.written <= len(self.records):
                _log.append_log(self.out, self.records[self.written:])  # a move a line, not the whole log again
            else:
                _log.write_log(self.out, self.records)
        except OutputError as e:
            where = f"after ply {self.saved}, the last one saved" if self.saved else "from the start, no ply was saved"
            raise OutputError(f"{e}; {lost}: record --resume {self.name} goes on {where}") from None
        self.written = len(self.records)
        self.saved = len(self.states) - 1

    def kept(self, why: str) -> str:
        plies = len(self.states) - 1  # every ply is on disk already: nothing to write
        return (f"kept {self.name}: {self.game.name}, unfinished after {counted(plies, 'ply', 'plies')} ({why}; "
                f"record --resume {self.name} continues it)")

    # -- showing -------------------------------------------------------------------------

    def show(self) -> None:
        """The position, and the dice entered for the ply being entered (with them the
        player is to move, not to roll)."""
        state = self.state
        head = f"after ply {state.ply}" if state.ply else "start"
        if self.records[-1].get("result"):
            turn = ", game over"
        elif not state.is_terminal():
            turn = f", {state.to_move()} to {'roll' if state.is_chance() else 'move'}"
        else:
            turn = ""
        dice = f"\ndice {_dice(self.dice)}: {state.describe_roll()}" if self.dice else ""  # type: ignore[attr-defined]
        self.say(f"{head}{turn}\n{state.board_text()}{dice}")

    def list_moves(self, square: str) -> None:
        state = self.state
        if self._chance_due():
            self.say("roll first: enter the three dice, such as 2 3 3")
            return
        square = next((s for s in self.game.squares if s.lower() == square.lower()), square)  # B2 is b2
        shown = printable(square)
        costs = state.reach(square) if square else None  # moves with their costs (the terrain game)
        if costs is not None:
            self.say(f"{shown}: " + (", ".join(f"{m} ({c})" for m, c in costs) or "no move of the side to move there"))
            return
        texts = [str(m) for m in state.legal_moves()]
        if square:
            texts = [t for t in texts if t == square or (t.startswith(square) and not t[len(square)].isalnum())]
        if not texts:
            self.say(f"{shown}: no legal move from there" if square else "no legal move")
            return
        more = f" ... ({len(texts)} in all; moves SQUARE lists one square's)" if len(texts) > SHOW_MOVES else ""
        self.say(", ".join(texts[:SHOW_MOVES]) + more)


def _dice(dice: tuple[int, ...]) -> str:
    return "-".join(map(str, dice))
