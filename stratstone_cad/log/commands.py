"""The two game commands the CLI calls: ``play`` and ``check_log``.

Both return a string for the CLI to print and raise only
:class:`~stratstone_cad.errors.UserError` subclasses, with one-line messages, on bad input.
"""

from __future__ import annotations

import pathlib
import random
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from stratstone_cad.engine.players import Player, get_player
from stratstone_cad.engine.protocol import Game
from stratstone_cad.errors import LogError, PlayArgumentError, UserError, counted, short_repr
from stratstone_cad.log import logfile as _log
from stratstone_cad.registry import get_game

__all__ = ["MAX_PLIES", "SEED_MAX", "GameWarning", "check_log", "explain_log", "header_error", "play", "play_records"]

MAX_PLIES = 10_000
"""A played game stops (unfinished, no result line) after this many plies."""
SEED_MAX = 2**63 - 1


PlayerMaker = Callable[[str, Game], Player]
"""What makes a player from its kind's text for a game (``analysis.players.make_player``
adds ``search`` to the built-in kinds); raises a :class:`UserError` for a kind it lacks."""


def builtin_player(kind: str, game: Game) -> Player:
    """The built-in player of ``kind`` (``random``, ``greedy``), the same for every game."""
    return get_player(kind)


class GameWarning(UserWarning):
    """A setup that is valid but worth a word, e.g. an unfair heightmap given explicitly."""


def play_records(
    game: str,
    seed: int,
    kinds: list[str],
    setup: Mapping[str, Any] | None = None,
    max_plies: int = MAX_PLIES,
    *,
    make_player: PlayerMaker = builtin_player,
) -> list[dict[str, Any]]:
    """Play a whole game between built-in players; returns the log records (header first).

    The seed drives everything: ``random.Random(seed)`` rolls the dice and player ``i``
    draws from ``random.Random(f"{seed}/{i}")``, so changing a player kind never changes
    the dice stream's seed. The terrain game's map is ``terrain_map.generate(seed)``
    (setup ``terrain_seed`` = the seed) unless the setup gives a ``heightmap`` or a
    ``terrain_seed``. Deterministic for a given seed, game, kinds and setup (a player
    with a time budget aside). ``make_player`` makes each player from its kind (default the
    built-in ``random`` and ``greedy``; the command line's adds ``search``).

    Raises:
        PlayArgumentError: the setup is not an object, or the header is refused (as check-log would).
    """
    engine = get_game(game)
    players: list[Player] = [make_player(k, engine) for k in kinds]
    if setup is not None and not isinstance(setup, Mapping):
        raise PlayArgumentError(f"setup: expected an object, got {type(setup).__name__}")
    setup = engine.play_setup(setup, seed)
    chance_rng = random.Random(seed)
    ids, full_setup = engine.new_setup(len(kinds), setup, chance_rng)
    agent_rngs = [random.Random(f"{seed}/{i}") for i in range(len(ids))]
    by_id = {pid: (players[i], agent_rngs[i]) for i, pid in enumerate(ids)}
    state = engine.initial_state(ids, full_setup)
    records: list[dict[str, Any]] = [_log.header_record(engine, ids, seed, full_setup)]
    refused = header_error(records[0])
    if refused:
        raise PlayArgumentError(refused)
    chance_field = engine.chance_field
    while not state.is_terminal() and state.ply < max_plies:
        pid = state.to_move()
        assert pid is not None
        chance = None
        if state.is_chance():
            dice = state.roll(chance_rng)
            state, _ = state.apply_chance(dice)
            assert chance_field is not None
            chance = (chance_field, dice)
        agent, rng = by_id[pid]
        move = agent(state, rng)
        state, _ = state.apply(move)
        records.append(_log.ply_record(state.ply, pid, str(move), chance))
    result = state.result()
    if result is not None:
        records.append(_log.result_record(result))
    return records


def play(
    game: str,
    seed: int | None,
    players: list[str] | None,
    out: pathlib.Path | None,
    setup: dict[str, Any] | None = None,
    *,
    map_file: pathlib.Path | None = None,
    on_warning: Callable[[str], None] | None = None,
    make_player: PlayerMaker = builtin_player,
) -> str:
    """Play a whole game between built-in players and write its log.

    ``players`` are player kinds (``random``, ``greedy``; those ``make_player`` makes), one per player: Stratstone 2;
    Sage Stones 2-6 (one colour each), or 2 with ``setup={"variant": "two-player"}``; the terrain game 2 (red, blue).
    Default: all ``random``, 4 colours for Sage Stones. ``seed`` ``None`` draws a fresh seed, recorded in the header.
    With ``out`` the log is written atomically and a one-line summary is returned (``wrote out.jsonl: stratstone, 16
    plies, winner red (line of four)``); without it the log text itself is returned, without the final newline (the
    CLI's ``print`` adds it).

    A game played on a map (the terrain game): the map is generated from ``seed`` unless ``map_file`` names its file,
    for the terrain game a JSON heightmap file (a 10 x 10 list of lists, rank 1 first, or ``{"heightmap": [...]}``),
    which is checked against the terrain rule (one-line :class:`UserError` naming the square and the values). A valid
    but unfair map is played, and its warning (naming both crossing-cost lists) goes to ``on_warning`` (default:
    :func:`warnings.warn` with :class:`GameWarning`).

    Raises:
        PlayArgumentError: the seed is out of range, or a terrain file is given to another game or with a setup's map.
    """
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    elif type(seed) is not int or not 0 <= seed <= SEED_MAX:
        raise PlayArgumentError(f"seed: {short_repr(seed)} is not an integer from 0 to {SEED_MAX}")
    engine = get_game(game)
    if map_file is not None:
        if not engine.map_fields:
            raise PlayArgumentError(f"terrain file {map_file}: only the terrain game is played on a heightmap")
        field = engine.map_fields[0]
        if setup and field in setup:
            raise PlayArgumentError(f"terrain file {map_file}: the setup gives a {field} too; give only one")
        setup = {**(setup or {}), field: engine.load_map(map_file)}
    kinds = list(players) if players else ["random"] * engine.default_players(setup)
    records = play_records(engine.name, seed, kinds, setup, make_player=make_player)
    for text in engine.setup_warnings(records[0]["setup"]):
        if on_warning is None:
            warnings.warn(text, GameWarning, stacklevel=2)
        else:
            on_warning(text)
    if out is None:
        return "\n".join(_log.dumps_line(r) for r in records)
    _log.write_log(out, records)
    n_plies = len(records) - 1 - (1 if "result" in records[-1] else 0)
    if "result" in records[-1]:
        res = records[-1]["result"]
        outcome = "draw" if res["winner"] is None else f"winner {res['winner']}"
        tail = f"{counted(n_plies, 'ply', 'plies')}, {outcome} ({res['reason']})"
    else:
        tail = f"unfinished after {counted(n_plies, 'ply', 'plies')} (limit {MAX_PLIES})"
    return f"wrote {out}: {engine.name}, {tail}"


def header_error(header: Mapping[str, Any]) -> str | None:
    """What check-log would say of ``header`` as the first line of a log (its message,
    without the line number), or ``None`` when it takes it: the header is written and read
    back as a log line and checked as check-log checks one, so a command that writes a log
    refuses, before its first ply, any value the log format would refuse when read."""
    try:
        line = _log.loads_strict(_log.dumps_line(header))
        _log.LogWalk(iter([(1, line)])).close()
    except ValueError as e:  # not JSON at all (LogError is one too)
        return str(e).removeprefix("line 1: ")
    return None


def explain_log(path: pathlib.Path) -> Iterator[str]:
    """``check-log --explain``: the log checked as :func:`check_log` checks it, one line per
    ply in words as it goes (:func:`~stratstone_cad.log.logfile.ply_line`), then the same
    summary. A fault stops it with the same :class:`~stratstone_cad.errors.LogError` after
    the lines of the plies before it."""
    with _log.walk_log(path) as r:
        game = r.game
        for st in r:
            yield _log.ply_line(game, st.ply, st.player, st.move, st.before, st.after, st.events)
        yield _log.report(r).summary()


def check_log(path: pathlib.Path) -> str:
    """Check a log (schema, then every ply through the engine); returns a one-line summary.

    ``ok: stratstone, 16 plies, winner red (line of four)`` or ``ok: sage-stones, unfinished
    after 12 plies``. Raises :class:`~stratstone_cad.errors.LogError` with a one-line message
    such as ``line 7, ply 6: b2 NNS steps straight back``.

    Raises:
        LogError: the log runs the check out of recursion or memory.
    """
    try:
        return _log.validate(path).summary()
    except UserError:
        raise
    except (RecursionError, MemoryError) as e:  # pragma: no cover - defensive
        raise LogError(f"{path}: cannot check this log ({type(e).__name__})") from None
