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

The package: this module is the command's public face (:func:`record`, :func:`resume`,
:func:`check_args`, :func:`log_game`, :func:`vs_sides`, with the checks of their
arguments); what is typed is read and parsed in :mod:`.prompt`, a session (the plies, the
undo, the end, the log written after each ply, the engine's replies) is :mod:`.session`'s,
and the lock that keeps a log to one session :mod:`.lock`'s. Nothing is re-exported: each
name is imported from the module that defines it.
"""

from __future__ import annotations

import os
import random
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from stratstone_cad.base.fileio import describe_os_error, kind_of, sweep_temporary, too_long_to_write
from stratstone_cad.engine.players import Player
from stratstone_cad.engine.protocol import Game, State
from stratstone_cad.errors import LogError, OutputError, RecordError, SetupError, UserError, short_repr
from stratstone_cad.log import logfile as _log
from stratstone_cad.log.commands import header_error
from stratstone_cad.log.record.lock import busy, held, recording
from stratstone_cad.log.record.prompt import reader
from stratstone_cad.log.record.session import Session
from stratstone_cad.registry import game_names, get_game

__all__ = ["check_args", "log_game", "record", "resume", "vs_sides"]


def _new_out(out: Path) -> None:
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        return
    except OSError as e:
        raise RecordError(f"output file {out}: cannot be used ({describe_os_error(e)}), expected a new file") from None
    if not stat.S_ISREG(st.st_mode):
        raise RecordError(f"output file {out}: is {kind_of(st.st_mode)}, expected a new file")
    if held(out):
        raise busy(f"output file {out}")
    raise RecordError(f"output file {out}: already exists, expected a new file "
                      f"(record --resume {out} continues a recorded game)")


def _check_roll(engine: Game, roll: bool) -> None:
    if roll and engine.chance_field is None:
        raise RecordError(f"--roll: {engine.name} has no dice, expected --roll only for a game with dice")


def record(game_name: str, out: Path, setup: Mapping[str, Any] | None, players: list[str] | None,
           *, roll: bool, seed: int | None, stdin: TextIO | None, say: Callable[[str], None], interactive: bool,
           on_warning: Callable[[str], None], vs: Player | None = None, vs_as: str | None = None) -> str:
    """Record a new game into ``out`` (which must not exist); returns the closing line.

    ``setup`` is the game's setup (for the terrain game it must give ``terrain_seed`` or
    ``heightmap``: the map of the board played on; with ``vs`` a missing map is picked as
    ``play`` picks one, and its seed said); ``players`` the player ids (Sage
    Stones: the colours at the table; default: the game's), ``roll`` lets the program
    roll the dice with ``seed`` (recorded in the header). With ``vs`` the engine plays
    every side but ``vs_as`` (default the first), its moves said and logged (:func:`vs_sides`).

    Raises:
        RecordError: the header is refused, the terrain game has no map, or the setup is bad.
        OutputError: the output's name is too long to write.
    """
    engine = get_game(game_name)
    _new_out(out)
    _check_roll(engine, roll)
    picked = None
    if engine.map_fields and not (setup and any(f in setup for f in engine.map_fields)):
        if vs is None:  # the players at the table have a board: the log must say which
            raise RecordError(f"record {engine.name}: expected --terrain-seed N or --terrain FILE, the map of the board "
                              "played on (build --terrain-seed N prints board N), or --vs PLAYER to have one picked")
        picked = random.SystemRandom().randrange(2**32)  # against the engine: a map picked as play picks one
        setup = engine.play_setup(setup, picked)
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
    with recording(out, f"output file {out}"):
        _new_out(out)  # again, locked: another session may have made it since
        for text in engine.setup_warnings(full_setup):
            on_warning(text)
        if picked is not None:
            say(f"no map given: playing the map of --terrain-seed {picked} (build --terrain-seed {picked} prints its "
                "board; the text board shows each square's level)")
        session = Session(engine, out, [header], [initial], say, seed if roll else None, vs=vs,
                           vs_sides=engine_sides)
        _log.write_log(out, session.records)
        session.written = len(session.records)  # the header, as a rewrite writes it: the moves are appended
        say(f"recording {engine.name} ({', '.join(ids)}) into {session.name}; help lists the commands")
        return session.run(reader(stdin, say, interactive))


def resume(path: Path, game_name: str | None, *, roll: bool, stdin: TextIO | None, say: Callable[[str], None],
           interactive: bool, vs: Player | None = None, vs_as: str | None = None) -> str:
    """Continue the unfinished log ``path``: checked through the engine first, its lines
    kept as they are; returns the closing line. The log is locked for the session, and
    read again once locked if another session changed it in the meantime."""
    where = f"--resume {path}"
    seen = _identity(path)
    game, records, states = _resumable(path, game_name, roll)
    with recording(path, where):
        if _identity(path) != seen:
            game, records, states = _resumable(path, game_name, roll)
        seed = records[0].get("seed")
        sweep_temporary(Path(path).parent, re.escape(Path(path).name))  # what a killed write of this log left
        session = Session(game, Path(path), records, states, say, seed if roll else None, vs=vs,
                           vs_sides=vs_sides(records[0]["players"], vs, vs_as))
        if _log.holds_as_written(path, records):  # as this program writes it: each move is appended to it
            session.written = len(records)
        say(f"resuming {game.name} ({', '.join(records[0]['players'])}) from {session.name} after ply {states[-1].ply}")
        if seed is not None and not roll and game.chance_field is not None:
            say(f"(the program rolled this game's dice with seed {seed}; --roll goes on rolling them)")
        return session.run(reader(stdin, say, interactive))


def log_game(path: Path) -> Game:
    """The game of the log ``path`` (its header, checked); raises :class:`LogError`."""
    with _log.walk_log(path) as r:
        return r.game


def vs_sides(ids: Sequence[str], vs: Player | None, vs_as: str | None) -> frozenset[str]:
    """The sides the engine plays with ``--vs``: every one but the person's (``--as``,
    default the first); raises :class:`RecordError` for ``--as`` without ``--vs`` or a side
    the game does not have.

    Raises:
        RecordError: --as is not a side, or comes without --vs.
    """
    if vs is None:
        if vs_as is not None:
            raise RecordError(f"--as {short_repr(vs_as)} without --vs: expected --vs PLAYER (search, search:300) too")
        return frozenset()
    person = ids[0] if vs_as is None else next((i for i in ids if i == vs_as.lower()), vs_as)  # ids are lower-case
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
    """One of ``--out`` (a new game of GAME) or ``--resume`` (an unfinished log).

    Raises:
        UserError: neither --out nor --resume is given, or no game.
    """
    if (out is None) == (resume_from is None):
        raise UserError("record: expected --out FILE.jsonl (a new game) or --resume FILE.jsonl (an unfinished one)")
    if out is not None and game is None:
        raise UserError(f"record: expected the game to record: {', '.join(game_names())}")
