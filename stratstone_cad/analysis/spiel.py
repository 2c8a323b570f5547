"""Every registered engine as an OpenSpiel game, read from the engine's own facts.

One wrapper serves every game of the registry (:func:`register_games` registers each
as ``stratstone_cad_<name>``, dashes as underscores: ``stratstone_cad_sage_stones``),
the way OpenSpiel's ``python/games/*.py`` define theirs: a declarative
``pyspiel.GameType`` and ``pyspiel.GameInfo``, a ``pyspiel.Game`` and a
``pyspiel.State``. Nothing here branches on a game's name; every fact comes from the
engine (:class:`~stratstone_cad.engine.protocol.Game` and its states):

- **Actions.** An action numbers a move among the position's legal moves, in the engine's
  own ``legal_moves()`` order (fixed and deterministic for a position): action ``i`` is
  the ``i``-th legal move, so ``legal_actions()`` is ``0 .. k-1`` and the action space is
  ``num_distinct_actions = engine.max_legal_moves`` (the most legal moves any position can
  have: Stratstone 146,335,670, Sage Stones 9, the terrain game 600). An action's text is
  the move's text in the log's notation (``state.action_to_string(player, a)``:
  ``"b2 NNE"``, ``"5-7"``, ``"c1-c4"``); :func:`action_of` goes back. The numbering is per
  position, which is what MCTS needs (its tree is keyed by the path from the root);
  an algorithm that compares one action number across positions would need a per-game
  enumeration of all moves instead.
- **Chance.** When the engine waits for dice (``state.is_chance()``) the OpenSpiel state is
  a chance node whose outcomes are the engine's ``chance_outcomes()`` with their exact
  probabilities (Sage Stones: the 27 ordered rolls of 3d3, 1/27 each); chance action ``i``
  is the ``i``-th outcome, its text the dice as the log's words say them (``"1-2-3"``).
- **Players and returns.** OpenSpiel player ``i`` is the ``i``-th of the state's
  ``player_ids()`` (the log header's order). At the end the winner gets +1 and every other
  player ``-1/(n-1)``; a draw gives 0 to all (zero-sum, in [-1, 1]). A game still going
  after ``max_plies`` plies (the limit ``play`` stops at) ends there as a draw.
- **Parameters.** ``players`` (default 2: every engine has a two-player game; Sage Stones'
  standard game with two colours), ``setup`` (the log's setup as JSON text, e.g.
  ``{"variant": "two-player"}``; filled in as ``play`` fills it in), ``seed`` (what
  ``play`` draws a setup from, the terrain game's map) and ``max_plies``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from functools import cache
from typing import Any

import pyspiel

from stratstone_cad.engine.protocol import Game, Move, State
from stratstone_cad.errors import GameError, ParameterError, SetupError, short_repr
from stratstone_cad.log.commands import MAX_PLIES
from stratstone_cad.registry import game_names, get_game

__all__ = ["PREFIX", "EngineGame", "EngineState", "action_of", "game_class", "game_type", "load", "register_games", "spiel_name"]

PREFIX = "stratstone_cad_"
"""The start of every wrapped game's OpenSpiel short name."""
MOST_PLAYERS = 8
"""The largest player count tried when asking an engine which counts it takes."""


def spiel_name(name: str) -> str:
    """The OpenSpiel short name of the game registered as ``name`` (``stratstone_cad_sage_stones``)."""
    return PREFIX + name.replace("-", "_")


@cache
def player_counts(name: str) -> tuple[int, ...]:
    """The player counts the engine ``name`` takes, asked of its own ``new_setup``."""
    engine = get_game(name)
    counts = []
    for n in range(1, MOST_PLAYERS + 1):
        try:
            engine.new_setup(n, engine.play_setup(None, 0), random.Random(0))
        except SetupError:
            continue
        counts.append(n)
    return tuple(counts)


@cache
def game_type(name: str) -> pyspiel.GameType:
    """The ``pyspiel.GameType`` of the engine ``name``, from its facts."""
    engine = get_game(name)
    counts = player_counts(name)
    chance = pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if engine.max_chance_outcomes else \
        pyspiel.GameType.ChanceMode.DETERMINISTIC
    return pyspiel.GameType(
        short_name=spiel_name(name),
        long_name=f"stratstone-cad {name} ({engine.rules})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(counts),
        min_num_players=min(counts),
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=False,
        provides_observation_tensor=False,
        parameter_specification={"players": 2, "setup": "", "seed": 0, "max_plies": MAX_PLIES},
    )


class EngineGame(pyspiel.Game):
    """A registered engine as a ``pyspiel.Game`` (see the module's docstring).

    OpenSpiel makes a registered game by calling what was registered with the parameters
    only, so each engine has its subclass that names it (:func:`game_class`).
    """

    ENGINE: Game

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        engine = self.ENGINE
        spec = game_type(engine.name).parameter_specification
        given = dict(params or {})
        unknown = sorted(set(given) - set(spec))
        if unknown:
            raise ParameterError(f"{spiel_name(engine.name)}: unknown parameter {unknown[0]!r} (expected {', '.join(spec)})")
        values = {k: given.get(k, spec[k]) for k in spec}
        n, seed, max_plies = values["players"], values["seed"], values["max_plies"]
        for key, v, lo in (("players", n, 1), ("seed", seed, 0), ("max_plies", max_plies, 1)):
            if type(v) is not int or v < lo:
                raise ParameterError(f"{spiel_name(engine.name)}: {key} {short_repr(v)} is not an integer of at least {lo}")
        try:
            setup = json.loads(values["setup"]) if values["setup"] else None
        except (TypeError, ValueError):
            raise ParameterError(f"{spiel_name(engine.name)}: setup {short_repr(values['setup'])} is not JSON text") from None
        self.engine = engine
        self.max_plies = max_plies
        self.player_ids, self.setup = engine.new_setup(n, engine.play_setup(setup, seed), random.Random(seed))
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.max_legal_moves,
            max_chance_outcomes=engine.max_chance_outcomes,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_plies,
        )
        super().__init__(game_type(engine.name), info, values)
        self._initial: State | None = None

    def new_initial_state(self) -> EngineState:
        """The state before ply 1 of the game with this game's setup. The engine's state is
        made once and shared (an engine state is a value no move changes, as clones share
        theirs, :class:`_Shared`): OpenSpiel's ``clone()`` of a Python state starts from a new
        initial state, once for every simulation of a search."""
        if self._initial is None:
            self._initial = self.engine.initial_state(self.player_ids, self.setup)
        return EngineState(self, self._initial)

    def state_of(self, state: State) -> EngineState:
        """``state`` (an engine state of this game, with as many players) as an OpenSpiel state."""
        return EngineState(self, state)


class _Shared:
    """What clones of one position share: the immutable engine state, its legal moves and
    the players' numbers. ``copy.deepcopy`` (OpenSpiel's ``clone()`` of a Python state)
    keeps it as it is, so a clone costs no copy of a board."""

    __slots__ = ("moves", "seats", "state")

    def __init__(self, state: State, seats: Mapping[str, int]) -> None:
        self.state = state
        self.seats = seats
        self.moves: list[Any] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self

    def legal(self) -> list[Any]:
        if self.moves is None:
            self.moves = list(self.state.legal_moves())
        return self.moves


class EngineState(pyspiel.State):
    """An engine's state as a ``pyspiel.State``; :meth:`engine_state` gives it back."""

    def __init__(self, game: EngineGame, state: State) -> None:
        super().__init__(game)
        ids = state.player_ids()
        if len(ids) != game.num_players():
            raise ParameterError(f"a state of {len(ids)} players for a game of {game.num_players()}")
        self._max_plies = game.max_plies
        self._n = len(ids)
        self._pos = _Shared(state, {pid: i for i, pid in enumerate(ids)})

    def engine_state(self) -> State:
        """The engine's state of this position."""
        return self._pos.state

    def move_of(self, action: int) -> Move:
        """The engine's move that ``action`` numbers here (a player's node only)."""
        return self._pos.legal()[action]

    # -- the OpenSpiel state API (as python/games/*.py implement it) -------------------

    def current_player(self) -> int:
        """The player to move (0-based), ``CHANCE`` before dice, ``TERMINAL`` at the end."""
        state = self._pos.state
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if state.is_chance():
            return pyspiel.PlayerId.CHANCE
        return self._pos.seats[state.to_move()]

    def _legal_actions(self, player: int) -> list[int]:
        """``0 .. k-1``: the position's ``k`` legal moves in the engine's order."""
        return list(range(len(self._pos.legal())))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(i, probability)`` of the engine's ``i``-th chance outcome."""
        return [(i, float(p)) for i, (_, p) in enumerate(self._pos.state.chance_outcomes())]

    def _apply_action(self, action: int) -> None:
        state = self._pos.state
        if state.is_chance():
            state, _ = state.apply_chance(state.chance_outcomes()[action][0])
        else:
            state, _ = state.apply(self._pos.legal()[action])
        self._pos = _Shared(state, self._pos.seats)

    def _action_to_string(self, player: int, action: int) -> str:
        """The move's text in the log's notation, or the dice (``1-2-3``) at a chance node."""
        state = self._pos.state
        if player == pyspiel.PlayerId.CHANCE:
            outcomes = state.chance_outcomes()
            return "-".join(map(str, outcomes[action][0])) if 0 <= action < len(outcomes) else f"chance outcome {action}"
        moves = self._pos.legal()
        return str(moves[action]) if 0 <= action < len(moves) else f"action {action}"

    def is_terminal(self) -> bool:
        """The engine's end, or ``max_plies`` plies played (a draw)."""
        state = self._pos.state
        return state.is_terminal() or state.ply >= self._max_plies

    def returns(self) -> list[float]:
        """+1 to the winner and ``-1/(n-1)`` to each other player; 0 to all for a draw or before the end."""
        return self.returns_of(self._pos.state)

    def returns_of(self, state: State) -> list[float]:
        """:meth:`returns` of another engine state of this game's players (a playout's end)."""
        result = state.result()
        if result is None or result.winner is None:
            return [0.0] * self._n
        won = self._pos.seats[result.winner]
        return [1.0 if i == won else -1.0 / (self._n - 1) for i in range(self._n)]

    def __str__(self) -> str:
        return self._pos.state.board_text()


def action_of(state: EngineState, text: str) -> int:
    """The action of the move (or, at a chance node, the dice) written ``text`` in ``state``;
    raises the engine's :class:`~stratstone_cad.errors.GameError` for text that does not
    parse or a move that is not legal there.

    Raises:
        GameError: the text is not a legal move, or not an outcome of the pending roll.
    """
    engine = state.engine_state()
    if engine.is_chance():
        for i, (dice, _) in enumerate(engine.chance_outcomes()):
            if "-".join(map(str, dice)) == text:
                return i
        raise GameError(f"dice {short_repr(text)} are not an outcome of this roll (expected e.g. 1-2-3)")
    move = engine.parse_move(text)
    for i, m in enumerate(state._pos.legal()):
        if m == move:
            return i
    engine.apply(move)  # raises the engine's own RuleViolation naming the rule
    raise GameError(f"{short_repr(text)} is not among the legal moves")  # pragma: no cover - the engine refuses it first


@cache
def game_class(name: str) -> type[EngineGame]:
    """The subclass of :class:`EngineGame` for the engine ``name``: what OpenSpiel registers.

    A class, as OpenSpiel's own Python games register: OpenSpiel's registry (a C++ static)
    keeps it to the end of the process, and a class outlives the interpreter's shutdown
    where a plain function would be freed after it (the process then aborts on exit)."""
    return type(f"EngineGame_{spiel_name(name)}", (EngineGame,), {"ENGINE": get_game(name)})


def register_games() -> list[str]:
    """Register every game of the registry with OpenSpiel (once); returns their short names."""
    known = set(pyspiel.registered_names())
    names = []
    for name in game_names():
        short = spiel_name(name)
        if short not in known:
            pyspiel.register_game(game_type(name), game_class(name))
        names.append(short)
    return names


def load(name: str, **params: Any) -> EngineGame:
    """The game registered as ``name`` (``"stratstone"``) as an OpenSpiel game, with ``params``."""
    return game_class(name)(params)
