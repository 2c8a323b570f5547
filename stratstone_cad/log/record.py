"""``stratstone-cad record``: a game played at the table, entered move by move.

A scoresheet that checks itself: the prompt shows whose turn it is and the position,
reads one move in the log's own notation, and has the engine check it before it is
accepted; an illegal or mistyped move gets the engine's one-line reason and the prompt
asks again. After every accepted ply its line is appended to the log and synced (the
whole log is written atomically only at the start, after an undo, or when a resumed log
was not written as this program writes it: the file is always what one write of the
game would give), so Ctrl-C, a closed terminal or a crash keeps every ply entered, and
``record --resume FILE`` continues it (a kill during an append can leave a last line cut
short, which check-log and record --resume name); a write that fails (a full disk) ends the session
saying which ply was not saved. The log is the one ``check-log`` reads (its header is
checked as check-log checks it before the first move is asked for); a resignation or an
agreed draw ends it with a result line (``agreed_end`` in the log). A log is locked while
a session records it (``.NAME.lock`` beside it): a second session on it is refused.

The same prompt reads standard input when it is not a terminal (one line per answer,
echoed after its prompt so the output reads as a transcript): that is how scripts and
the tests drive it. The session is game-neutral: the engines give the text board
(``board_text``), the move parser, the rules and the messages.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from stratstone_cad.base.fileio import describe_os_error, kind_of, sweep_temporary, too_long_to_write
from stratstone_cad.engine.core import DRAW_AGREED, RESIGNATION, Game, Result, SetupError, State, short_repr
from stratstone_cad.engine.players import Player
from stratstone_cad.errors import (
    GameError,
    LogError,
    MoveParseError,
    OutputError,
    RecordError,
    UserError,
    counted,
    printable,
)
from stratstone_cad.log import logfile as _log
from stratstone_cad.log.commands import header_error
from stratstone_cad.registry import game_names, get_game

__all__ = ["MAX_INPUT", "record", "resume"]

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


Reader = Callable[[str], "str | None"]
"""Shows a prompt and returns the answer (without its newline), or ``None`` at the end of input."""

_COMMANDS = frozenset({"help", "?", "show", "moves", "undo", "quit", "resign", "draw"})


@dataclass
class _Session:
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
        if word in _COMMANDS and rest and word not in ("moves", "resign"):
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
            m = _DICE_RE.fullmatch(line)
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
                rolled.parse_move(move)
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
            move = state.parse_move(text)
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
        --resume`` goes on from (the log is as it was)."""
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


def _reader(stdin: TextIO | None, say: Callable[[str], None], interactive: bool) -> Reader:
    """Prompts on a terminal (with line editing); otherwise one capped line per answer,
    echoed after its prompt. No standard input at all is an empty one."""
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
        line = stdin.readline(MAX_INPUT + 1) if stdin is not None else ""
        if not line:
            return None
        if len(line) > MAX_INPUT and not line.endswith("\n"):
            while (more := stdin.readline(65536)) and not more.endswith("\n"):  # type: ignore[union-attr]
                pass
            say(f"{prompt}... (a line over {MAX_INPUT} characters, ignored)")
            return ""
        line = line.rstrip("\r\n")
        say(prompt + printable(line))
        return line

    return read


def _new_out(out: Path) -> None:
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        return
    except OSError as e:
        raise RecordError(f"output file {out}: cannot be used ({describe_os_error(e)}), expected a new file") from None
    if not stat.S_ISREG(st.st_mode):
        raise RecordError(f"output file {out}: is {kind_of(st.st_mode)}, expected a new file")
    if _held(out):
        raise _busy(f"output file {out}")
    raise RecordError(f"output file {out}: already exists, expected a new file "
                      f"(record --resume {out} continues a recorded game)")


@contextlib.contextmanager
def _recording(log: Path, where: str) -> Iterator[None]:
    """The log is this session's while it runs: an exclusive lock on ``.NAME.lock`` beside
    it (a write of the whole log replaces the file, and a lock on the log would go with the
    file it replaces), held until the session ends however it ends, and the lock file removed then
    (a killed session leaves it, unlocked: the next one takes it). A second session on the
    same log is refused in one line, before it writes anything."""
    lock = _lock_file(log)
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        except FileNotFoundError:  # as writing the log would say
            raise OutputError(f"{where}: its folder {log.parent} does not exist, expected a file in a folder that "
                              "does") from None
        except OSError as e:
            raise OutputError(f"{where}: cannot write ({describe_os_error(e)})") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise RecordError(f"{where}: its lock file {lock.name} is {kind_of(st.st_mode)}, expected a file")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise _busy(where) from None
            try:  # the lock file taken is the one there: the session that held it may have just removed it
                now = os.lstat(lock)
            except FileNotFoundError:
                now = None
        except BaseException:
            os.close(fd)
            raise
        if now is not None and (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
            break
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)  # while locked: a session waiting on this file sees it gone and makes its own
        os.close(fd)


def _lock_file(log: Path) -> Path:
    real = Path(os.path.realpath(log))  # a link is written through: locked where it lands
    return real.parent / f".{real.name}.lock"


def _held(log: Path) -> bool:
    """Whether a session is recording ``log`` now (its lock file is there and locked)."""
    try:
        fd = os.open(_lock_file(log), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _busy(where: str) -> RecordError:
    return RecordError(f"{where}: another stratstone-cad session is recording it, expected a log no other session "
                       "is recording (quit that one first)")


def _check_roll(engine: Game, roll: bool) -> None:
    if roll and engine.chance_field is None:
        raise RecordError(f"--roll: {engine.name} has no dice, expected --roll only for a game with dice")


def record(game_name: str, out: Path, setup: Mapping[str, Any] | None, players: list[str] | None,
           *, roll: bool, seed: int | None, stdin: TextIO | None, say: Callable[[str], None], interactive: bool,
           on_warning: Callable[[str], None], vs: Player | None = None, vs_as: str | None = None) -> str:
    """Record a new game into ``out`` (which must not exist); returns the closing line.

    ``setup`` is the game's setup (for the terrain game it must give ``terrain_seed`` or
    ``heightmap``: the map of the board played on); ``players`` the player ids (Sage
    Stones: the colours at the table; default: the game's), ``roll`` lets the program
    roll the dice with ``seed`` (recorded in the header). With ``vs`` the engine plays
    every side but ``vs_as`` (default the first), its moves said and logged (:func:`vs_sides`).
    """
    engine = get_game(game_name)
    _new_out(out)
    _check_roll(engine, roll)
    if engine.map_fields and not (setup and any(f in setup for f in engine.map_fields)):
        raise RecordError(f"record {engine.name}: expected --terrain-seed N or --terrain FILE, the map of the board "
                          "played on (build --terrain-seed N prints board N)")
    if roll and seed is None:
        seed = random.SystemRandom().randrange(2**32)
    n = len(players) if players else engine.default_players(setup)
    ids, full_setup = engine.new_setup(n, setup, random.Random(seed))
    ids = list(players) if players else ids  # the colours at the table, when named
    shown = f"--players {','.join(ids)[:60]}"
    engine_sides = vs_sides(ids, vs, vs_as)
    try:
        initial = engine.initial_state(ids, full_setup)
    except SetupError as e:
        raise RecordError(f"{shown}: {e}") from None
    header = _log.header_record(engine, ids, seed if roll else None, full_setup)
    refused = header_error(header)  # what check-log would say of the log: said now, before it is written
    if refused:
        flag = {"seed": f"--seed {seed}", "players": shown}.get(re.split(r"[^a-z_]", refused, maxsplit=1)[0])
        raise RecordError(f"{flag}: {refused}" if flag else refused)
    too_long = too_long_to_write(out)
    if too_long:
        raise OutputError(f"output file {out}: {too_long}")
    with _recording(out, f"output file {out}"):
        _new_out(out)  # again, locked: another session may have made it since
        for text in engine.setup_warnings(full_setup):
            on_warning(text)
        session = _Session(engine, out, [header], [initial], say, seed if roll else None, vs=vs,
                           vs_sides=engine_sides)
        _log.write_log(out, session.records)
        session.written = len(session.records)  # the header, as a rewrite writes it: the moves are appended
        say(f"recording {engine.name} ({', '.join(ids)}) into {session.name}; help lists the commands")
        return session.run(_reader(stdin, say, interactive))


def resume(path: Path, game_name: str | None, *, roll: bool, stdin: TextIO | None, say: Callable[[str], None],
           interactive: bool, vs: Player | None = None, vs_as: str | None = None) -> str:
    """Continue the unfinished log ``path``: checked through the engine first, its lines
    kept as they are; returns the closing line. The log is locked for the session, and
    read again once locked if another session changed it in the meantime."""
    where = f"--resume {path}"
    seen = _identity(path)
    game, records, states = _resumable(path, game_name, roll)
    with _recording(path, where):
        if _identity(path) != seen:
            game, records, states = _resumable(path, game_name, roll)
        seed = records[0].get("seed")
        sweep_temporary(Path(path).parent, re.escape(Path(path).name))  # what a killed write of this log left
        session = _Session(game, Path(path), records, states, say, seed if roll else None, vs=vs,
                           vs_sides=vs_sides(records[0]["players"], vs, vs_as))
        if _log.holds_as_written(path, records):  # as this program writes it: each move is appended to it
            session.written = len(records)
        say(f"resuming {game.name} ({', '.join(records[0]['players'])}) from {session.name} after ply {states[-1].ply}")
        if seed is not None and not roll and game.chance_field is not None:
            say(f"(the program rolled this game's dice with seed {seed}; --roll goes on rolling them)")
        return session.run(_reader(stdin, say, interactive))


def log_game(path: Path) -> Game:
    """The game of the log ``path`` (its header, checked); raises :class:`LogError`."""
    with _log.walk_log(path) as r:
        return r.game


def vs_sides(ids: Sequence[str], vs: Player | None, vs_as: str | None) -> frozenset[str]:
    """The sides the engine plays with ``--vs``: every one but the person's (``--as``,
    default the first); raises :class:`RecordError` for ``--as`` without ``--vs`` or a side
    the game does not have."""
    if vs is None:
        if vs_as is not None:
            raise RecordError(f"--as {short_repr(vs_as)} without --vs: expected --vs PLAYER (search, search:300) too")
        return frozenset()
    person = ids[0] if vs_as is None else vs_as
    if person not in ids:
        raise RecordError(f"--as {short_repr(vs_as)}: expected one of the sides {', '.join(ids)}")
    return frozenset(ids) - {person}


def _identity(path: Path) -> tuple[int, ...] | None:
    """Which file is at ``path`` and as what (every write of a log replaces the file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _resumable(path: Path, game_name: str | None, roll: bool) -> tuple[Game, list[dict[str, Any]], list[State]]:
    """The game, records and states of the unfinished log ``path``, or the one-line reason
    it cannot be resumed (as asked)."""
    where = f"--resume {path}"
    try:
        lines = list(_log.reading._read_lines(Path(path)))  # read once: replayed here, then kept as they are
        with _log.LogWalk(iter(lines)) as r:
            states: list[State] = [r.initial]
            states.extend(step.after for step in r)
            logged = r.logged_result
            game = r.game
    except LogError as e:
        text = str(e)
        raise LogError(text if str(path) in text else f"{where}: {text}") from None
    if game_name is not None and get_game(game_name).name != game.name:
        raise RecordError(f"{where}: a {game.name} log, not {game_name}")
    result = logged or states[-1].result()
    if result is not None:
        raise RecordError(f"{where}: the game is over ({result.text()}), nothing to continue")
    if not os.access(path, os.W_OK) or not os.access(os.path.dirname(os.path.abspath(path)), os.W_OK):
        raise RecordError(f"{where}: the log or its folder is not writable, expected a log this session can extend")
    too_long = too_long_to_write(path)
    if too_long:
        raise RecordError(f"{where}: {too_long}")
    _check_roll(game, roll)
    records = [obj for _, obj in lines]
    if roll and records[0].get("seed") is None:
        raise RecordError(f"{where}: its dice were typed in (the header has no seed); resume without --roll")
    return game, records, states


def check_args(out: Path | None, resume_from: Path | None, game: str | None) -> None:
    """One of ``--out`` (a new game of GAME) or ``--resume`` (an unfinished log)."""
    if (out is None) == (resume_from is None):
        raise UserError("record: expected --out FILE.jsonl (a new game) or --resume FILE.jsonl (an unfinished one)")
    if out is not None and game is None:
        raise UserError(f"record: expected the game to record: {', '.join(game_names())}")
