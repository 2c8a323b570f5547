"""``stratstone-cad record``: a game played at the table, entered move by move.

A scoresheet that checks itself: the prompt shows whose turn it is and the position,
reads one move in the log's own notation, and has the engine check it before it is
accepted; an illegal or mistyped move gets the engine's one-line reason and the prompt
asks again. After every accepted ply the whole log (header and every ply) is written
atomically, so Ctrl-C, a closed terminal or a crash keeps every ply entered, and
``record --resume FILE`` continues it. The log is the one ``check-log`` reads; a
resignation or an agreed draw ends it with a result line (``agreed_end`` in the log).

The same prompt reads standard input when it is not a terminal (one line per answer,
echoed after its prompt so the output reads as a transcript): that is how scripts and
the tests drive it. The session is game-neutral: the engines give the text board
(``board_text``), the move parser, the rules and the messages.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from stratstone_cad.errors import GameError, UserError
from stratstone_cad.games import log as _log
from stratstone_cad.games.core import DRAW_AGREED, RESIGNATION, Game, Result, State, get_game, short_repr

__all__ = ["MAX_INPUT", "RecordError", "record", "resume"]

MAX_INPUT = 1000
"""The longest answer read from the prompt, in characters; a longer line is refused whole."""
SHOW_MOVES = 120
"""``moves`` lists at most this many moves (a Stratstone stack of ten has thousands of paths)."""

_DICE_RE = re.compile(r"\s*([0-9])\s*[ ,-]?\s*([0-9])\s*[ ,-]?\s*([0-9])(?:\s+(\S.*?))?\s*")

HELP = """\
Enter a move in the log's notation, or one of:
  moves [SQUARE]    the legal moves (those of the piece or stack on SQUARE; with costs in the terrain game)
  undo              take back the last ply (or the dice just entered)
  show              show the position again
  resign [PLAYER]   PLAYER (default: the player to move) resigns; two-player games only
  draw              the players agree a draw
  quit              stop here; the log keeps every ply (record --resume FILE continues it)
  help              this text"""


class RecordError(GameError):
    """A bad argument to ``record`` (an existing --out, a finished log to resume, ...)."""


Reader = Callable[[str], "str | None"]
"""Shows a prompt and returns the answer (without its newline), or ``None`` at the end of input."""


@dataclass
class _Session:
    game: Game
    out: Path
    records: list[dict[str, Any]]
    states: list[State]
    """``states[i]``: the position after ``i`` plies (``states[0]`` is the start)."""
    say: Callable[[str], None]
    rng: random.Random | None = None
    dice: tuple[int, ...] | None = None
    """Dice entered for the ply being entered (not in the log until its move is)."""
    rolled: State | None = field(default=None, repr=False)
    """The position after those dice."""

    @property
    def state(self) -> State:
        return self.rolled if self.rolled is not None else self.states[-1]

    @property
    def players(self) -> list[str]:
        return list(self.records[0]["players"])

    # -- the loop ------------------------------------------------------------------------

    def run(self, read: Reader) -> str:
        """Prompt until the game ends, ``quit`` or the end of input; returns the last line."""
        self.show()
        while True:
            state = self.state
            player = state.to_move()
            if self.game.chance_field is not None and state.is_chance():
                if self.rng is not None:
                    self.enter_dice(state.roll(self.rng), None)
                    continue
                line = read(f"{player} rolls (three dice, e.g. 2 3 3)> ")
            else:
                line = read(f"{player} to move> ")
            if line is None:
                return self.kept("end of input")
            done = self.answer(line.strip())
            if done is not None:
                return done

    def answer(self, line: str) -> str | None:
        """Act on one answer; returns the closing line when the session ends."""
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if not line:
            return None
        if word in ("help", "?") and not rest:
            self.say(HELP)
        elif word == "show" and not rest:
            self.show()
        elif word == "moves":
            self.list_moves(rest)
        elif word == "undo" and not rest:
            self.undo()
        elif word == "quit" and not rest:
            return self.kept("quit")
        elif word == "resign":
            return self.resign(rest)
        elif word == "draw" and not rest:
            return self.finish(Result(None, DRAW_AGREED))
        elif self.game.chance_field is not None and self.state.is_chance():
            m = _DICE_RE.fullmatch(line)
            if m is None:
                self.say(f"{short_repr(line)}: expected three dice of 1-3, such as 2 3 3 (or help)")
                return None
            self.enter_dice(tuple(int(d) for d in m.group(1, 2, 3)), m.group(4))
        else:
            return self.play(line)
        return None

    # -- plies ---------------------------------------------------------------------------

    def enter_dice(self, dice: tuple[int, ...], move: str | None) -> None:
        state = self.states[-1]
        try:
            rolled, _ = state.apply_chance(dice)
        except GameError as e:
            self.say(str(e))
            return
        self.dice, self.rolled = dice, rolled
        moves = list(rolled.legal_moves())
        if len(moves) == 1 and self._forced(rolled, moves[0]):
            return  # the roll's only move (a lost turn, a reset) is recorded at once
        self.say(f"dice {'-'.join(map(str, dice))}: {rolled.describe_roll()}")  # type: ignore[attr-defined]
        if move is not None:
            self.play(move)

    def _forced(self, rolled: State, move: Any) -> bool:
        """Record a move the dice force and say why; False when the move is a choice."""
        after, events = rolled.apply(move)
        forced = [e for e in events if e.kind in ("turn lost", "board reset")]
        if not forced:
            return False
        what = "the turn is lost" if forced[0].kind == "turn lost" else "the board is reset"
        self.say(f"dice {'-'.join(map(str, self.dice or ()))}: {what} ({forced[0].reason}), recorded as {move}")
        self.accept(move, after)
        return True

    def play(self, text: str) -> str | None:
        state = self.state
        try:
            move = state.parse_move(text)
            after, _ = state.apply(move)
        except GameError as e:
            self.say(str(e))
            return None
        self.say(f"ply {after.ply}: {state.to_move()} {move}")
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
        _log.write_log(self.out, self.records)
        self.show()
        return None

    def undo(self) -> None:
        if self.dice is not None:
            self.say(f"took back the dice {'-'.join(map(str, self.dice))}")
            self.dice = self.rolled = None
            return
        if len(self.states) == 1:
            self.say("nothing to undo: no ply is recorded yet")
            return
        last = self.records.pop()
        self.states.pop()
        _log.write_log(self.out, self.records)
        self.say(f"took back ply {last['ply']}: {last['player']} {last['move']}")
        self.show()

    # -- the end -------------------------------------------------------------------------

    def resign(self, who: str) -> str | None:
        players = self.players
        loser = who or self.state.to_move()
        if len(players) != 2:
            self.say(f"resign: with {len(players)} players a resignation names no winner; "
                     "use draw, or quit to stop here")
            return None
        if loser not in players:
            self.say(f"resign {short_repr(who)}: expected one of {', '.join(players)}")
            return None
        return self.finish(Result(players[1 - players.index(loser)], RESIGNATION))

    def finish(self, result: Result) -> str:
        self.dice = self.rolled = None
        self.records.append(_log.result_record(result))
        _log.write_log(self.out, self.records)
        self.show()
        return f"wrote {self.out}: {self.game.name}, {len(self.states) - 1} plies, {result.describe()}"

    def kept(self, why: str) -> str:
        _log.write_log(self.out, self.records)
        return (f"kept {self.out}: {self.game.name}, unfinished after {len(self.states) - 1} plies ({why}; "
                f"record --resume {self.out} continues it)")

    # -- showing -------------------------------------------------------------------------

    def show(self) -> None:
        state = self.states[-1]
        head = f"after ply {state.ply}" if state.ply else "start"
        turn = "" if state.is_terminal() else f", {state.to_move()} to {'roll' if state.is_chance() else 'move'}"
        self.say(f"{head}{turn}\n{state.board_text()}")  # type: ignore[attr-defined]

    def list_moves(self, square: str) -> None:
        state = self.state
        if self.game.chance_field is not None and state.is_chance():
            self.say("roll first: enter the three dice, such as 2 3 3")
            return
        reach = getattr(state, "reach", None)  # the terrain game: each move with its cost
        if square and reach is not None:
            costs = reach(square)
            self.say(f"{square}: " + (", ".join(f"{m} ({c})" for m, c in costs) or "no move of the side to move"))
            return
        texts = [str(m) for m in state.legal_moves()]
        if square:
            texts = [t for t in texts if t == square or (t.startswith(square) and not t[len(square)].isalnum())]
        if not texts:
            self.say(f"{square}: no legal move from there" if square else "no legal move")
            return
        more = f" ... ({len(texts)} in all; moves SQUARE lists one square's)" if len(texts) > SHOW_MOVES else ""
        self.say(", ".join(texts[:SHOW_MOVES]) + more)


def _reader(stdin: TextIO, say: Callable[[str], None], interactive: bool) -> Reader:
    """Prompts on a terminal (with line editing); on a pipe, one capped line per answer,
    echoed after its prompt."""
    if interactive:
        try:
            import readline  # noqa: F401  (line editing and history for input())
        except ImportError:  # pragma: no cover - not on every platform
            pass

        def ask(prompt: str) -> str | None:
            try:
                return input(prompt)
            except EOFError:
                return None

        return ask

    def read(prompt: str) -> str | None:
        line = stdin.readline(MAX_INPUT + 1)
        if not line:
            return None
        if len(line) > MAX_INPUT and not line.endswith("\n"):
            while (more := stdin.readline(65536)) and not more.endswith("\n"):
                pass
            say(f"{prompt}... (a line over {MAX_INPUT} characters, ignored)")
            return ""
        line = line.rstrip("\r\n")
        say(prompt + line)
        return line

    return read


def _new_out(out: Path) -> None:
    if os.path.lexists(out):
        raise RecordError(f"output file {out}: already exists, expected a new file "
                          f"(record --resume {out} continues a recorded game)")


def record(game_name: str, out: Path, setup: Mapping[str, Any] | None, players: list[str] | None,
           *, roll: bool, seed: int | None, stdin: TextIO, say: Callable[[str], None], interactive: bool,
           on_warning: Callable[[str], None]) -> str:
    """Record a new game into ``out`` (which must not exist); returns the closing line.

    ``setup`` is the game's setup (for the terrain game it must give ``terrain_seed`` or
    ``heightmap``: the map of the board played on); ``players`` the player ids (Sage
    Stones: the colours at the table; default: the game's), ``roll`` lets the program
    roll the dice with ``seed`` (recorded in the header).
    """
    engine = get_game(game_name)
    _new_out(out)
    if engine.name == "terrain" and not (setup and ("terrain_seed" in setup or "heightmap" in setup)):
        raise RecordError("record terrain: expected --terrain-seed N or --terrain FILE, the map of the board "
                          "played on (build --terrain-seed N prints board N)")
    if roll and seed is None:
        seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    n = len(players) if players else engine.default_players(setup)
    ids, full_setup = engine.new_setup(n, setup, rng)
    if players:
        ids = list(players)
    initial = engine.initial_state(ids, full_setup)
    for text in engine.setup_warnings(full_setup):
        on_warning(text)
    header = _log.header_record(engine, ids, seed if roll else None, full_setup)
    session = _Session(engine, out, [header], [initial], say, rng if roll else None)
    _log.write_log(out, session.records)
    say(f"recording {engine.name} ({', '.join(ids)}) into {out}; help lists the commands")
    return session.run(_reader(stdin, say, interactive))


def resume(path: Path, game_name: str | None, *, roll: bool, seed: int | None, stdin: TextIO,
           say: Callable[[str], None], interactive: bool) -> str:
    """Continue the unfinished log ``path``: checked through the engine first, its lines
    kept as they are; returns the closing line."""
    with _log.replay(path) as r:
        states: list[State] = [r.initial]
        states.extend(step.after for step in r)
        logged = r.logged_result
        game = r.game
    if game_name is not None and get_game(game_name).name != game.name:
        raise RecordError(f"--resume {path}: a {game.name} log, not {game_name}")
    result = logged or states[-1].result()
    if result is not None:
        raise RecordError(f"--resume {path}: the game is over ({result.describe()}), nothing to continue")
    from stratstone_cad.games.log import _read_lines

    records = [obj for _, obj in _read_lines(Path(path))]
    rng = None
    if roll:
        header_seed = records[0].get("seed")
        rng = random.Random(header_seed if seed is None else seed)
        for st in states[:-1]:  # the dice already rolled: the stream goes on where it was
            if st.is_chance():
                st.roll(rng)
    say(f"resuming {game.name} ({', '.join(records[0]['players'])}) from {path} after ply {states[-1].ply}")
    session = _Session(game, Path(path), records, states, say, rng)
    return session.run(_reader(stdin, say, interactive))


def check_args(out: Path | None, resume_from: Path | None, game: str | None) -> None:
    """One of ``--out`` (a new game of GAME) or ``--resume`` (an unfinished log)."""
    if (out is None) == (resume_from is None):
        raise UserError("record: expected --out FILE.jsonl (a new game) or --resume FILE.jsonl (an unfinished one)")
    if out is not None and game is None:
        raise UserError("record: expected the game to record: stratstone, sage-stones or terrain")
