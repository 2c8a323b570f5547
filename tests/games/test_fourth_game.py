"""A fourth game needs only its own folder, its registration and its entry in the log format.

The game here (one pile, take 1 to 3, who takes the last wins) is written against the
protocol of :mod:`stratstone_cad.engine.protocol` only; registered, and given its entry in
the log format (its facts' ``log_schema()``: play and record check every header
against it before the first ply), ``play``, the built-in players and ``record`` serve it
with no change. The last test adds it as a real game folder with its printable parts (a
token and a tray) and its table, in a copy of the package, and builds, lists, plays, checks
and replays it (stills and the page) through the command line.
"""

from __future__ import annotations

import base64
import copy
import difflib
import inspect
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from stratstone_cad import registry
from stratstone_cad.engine.events import GameOver, Result
from stratstone_cad.engine.ledger import PieceLedger, numbered
from stratstone_cad.engine.protocol import Game, NoChance, State
from stratstone_cad.errors import MoveTextError, RuleViolation, SquareError
from stratstone_cad.log.commands import play_records
from stratstone_cad.log.record import record
from stratstone_cad.registry import register

PLAYERS = ("north", "south")
SQUARES = ("pile", *PLAYERS)  # where the tokens stand: the pile, and what each side took


@dataclass(frozen=True, slots=True)
class Take:
    n: int

    def __str__(self) -> str:
        return str(self.n)


@dataclass(frozen=True, slots=True)
class Took:
    """An event of the game's own, not of engine/events.py's: ``player`` took ``n`` and left ``left``."""

    kind: ClassVar[str] = "took"
    player: str
    n: int
    left: int

    def words(self) -> str:
        return f"{self.player} takes {self.n}, {self.left} left"


class PileLedger(PieceLedger):
    """The tokens: taken from the top of the pile to the taker's own stack."""

    def on_event(self, event: Any) -> tuple[str, ...]:
        if not isinstance(event, Took):
            return ()
        taken = tuple(self.squares["pile"].pop() for _ in range(event.n))
        if not self.squares["pile"]:
            del self.squares["pile"]
        for token in taken:
            self.put(event.player, token)
        return taken


@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class PileState(NoChance):
    GAME_TITLE = "Pile"
    pile: int
    turn: int
    ply: int = 0
    _result: Result | None = None

    def to_move(self) -> str | None:
        return None if self._result else PLAYERS[self.turn]

    def player_ids(self) -> tuple[str, ...]:
        return PLAYERS

    def pieces_on(self, square: str) -> tuple[str, ...]:
        return ("token",) * self.pile if square == "pile" else ()  # the rules count the pile only

    def legal_moves(self) -> Iterator[Take]:
        if self._result is None:
            yield from (Take(n) for n in range(1, min(3, self.pile) + 1))

    def parse_move(self, text: str) -> Take:
        if text not in ("1", "2", "3"):
            raise MoveTextError(text, self.ply + 1, "1, 2 or 3 (stones to take)")
        return Take(int(text))

    def apply(self, move: Take | str) -> tuple[PileState, list[Any]]:
        take = self.parse_move(move) if isinstance(move, str) else move
        if take.n > self.pile:
            raise RuleViolation(str(take), self.ply + 1, f"takes more than the {self.pile} left")
        left = self.pile - take.n
        result = Result(PLAYERS[self.turn], "took the last") if left == 0 else None
        events: list[Any] = [Took(PLAYERS[self.turn], take.n, left)]
        events += [GameOver(result.winner, result.reason)] if result else []
        return PileState(pile=left, turn=1 - self.turn, ply=self.ply + 1, _result=result), events

    def random_move(self, rng: random.Random) -> Take:
        return rng.choice(list(self.legal_moves()))

    def greedy_move(self, rng: random.Random) -> Take:
        return Take(self.pile % 4 or 1)

    def board_text(self) -> str:
        return f"pile: {self.pile}"


class Pile(Game):
    name = "pile"
    rules = "pile/1"
    max_legal_moves = 3
    players = PLAYERS
    squares = SQUARES

    def parse_square(self, text: str) -> tuple[int, int]:
        if text not in SQUARES:
            raise SquareError(f"{text!r} is not a square (expected pile, north or south)")
        return SQUARES.index(text), 0

    def ledger(self, state: Any) -> PileLedger:
        tokens = numbered("token", "token", state.pile)
        return PileLedger(tokens, {"pile": [t.id for t in tokens]})

    def new_setup(self, n_players: int, setup: Mapping[str, Any] | None, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        return list(PLAYERS), {"pile": (setup or {}).get("pile", 10)}

    def initial_state(self, players: Sequence[str], setup: Mapping[str, Any]) -> PileState:
        return PileState(pile=setup["pile"], turn=0)

    def derived(self, before: Any, after: Any, events: Sequence[Any]) -> dict[str, Any]:
        return {"left": after.pile}



@dataclass(frozen=True, slots=True, kw_only=True)
class DicePileState(State):
    """The pile game where, from an odd pile, a die (1-2) is rolled first: the most the
    player may take. A game whose plies do not all start with a roll."""

    pile: int
    turn: int
    ply: int = 0
    die: int | None = None
    _result: Result | None = None

    def to_move(self) -> str | None:
        return None if self._result else PLAYERS[self.turn]

    def is_terminal(self) -> bool:
        return self._result is not None

    def result(self) -> Result | None:
        return self._result

    def is_chance(self) -> bool:
        return self._result is None and self.pile % 2 == 1 and self.die is None

    def roll(self, rng: random.Random) -> tuple[int]:
        return (rng.randint(1, 2),)

    def chance_outcomes(self) -> list[tuple[tuple[int, ...], Fraction]]:
        return [((1,), Fraction(1, 2)), ((2,), Fraction(1, 2))] if self.is_chance() else []

    def player_ids(self) -> tuple[str, ...]:
        return PLAYERS

    def pieces_on(self, square: str) -> tuple[str, ...]:
        return ("token",) * self.pile if square == "pile" else ()

    def random_move(self, rng: random.Random) -> Take:
        return rng.choice(list(self.legal_moves()))

    def greedy_move(self, rng: random.Random) -> Take:
        return max(self.legal_moves(), key=lambda take: take.n)

    def apply_chance(self, outcome: Sequence[int]) -> tuple[DicePileState, list[Any]]:
        return replace(self, die=outcome[0]), []

    def describe_roll(self) -> str:
        return f"take at most {self.die}"

    def legal_moves(self) -> Iterator[Take]:
        if self._result is None and not self.is_chance():
            yield from (Take(n) for n in range(1, min(self.die or 3, self.pile) + 1))

    def parse_move(self, text: str) -> Take:
        return PileState(pile=self.pile, turn=self.turn, ply=self.ply).parse_move(text)

    def apply(self, move: Take | str) -> tuple[DicePileState, list[Any]]:
        take = self.parse_move(move) if isinstance(move, str) else move
        if take not in list(self.legal_moves()):
            raise RuleViolation(str(take), self.ply + 1, f"is not a legal take from {self.pile} (die {self.die})")
        left = self.pile - take.n
        result = Result(PLAYERS[self.turn], "took the last") if left == 0 else None
        return DicePileState(pile=left, turn=1 - self.turn, ply=self.ply + 1, _result=result), []

    def board_text(self) -> str:
        return f"pile: {self.pile}"


class DicePile(Pile):
    name = "dice-pile"
    rules = "dice-pile/1"
    chance_field = "die"

    def new_setup(self, n_players: int, setup: Mapping[str, Any] | None, rng: random.Random) -> tuple[list[str], dict[str, Any]]:
        """A pile of 4 to 999 stones drawn with ``rng`` unless the setup gives it."""
        return list(PLAYERS), {"pile": setup["pile"] if setup and "pile" in setup else rng.randrange(4, 1000)}

    def initial_state(self, players: Sequence[str], setup: Mapping[str, Any]) -> DicePileState:
        return DicePileState(pile=setup["pile"], turn=0)

def _in_the_format(monkeypatch: pytest.MonkeyPatch, name: str, chance_field: str | None = None) -> None:
    """The log format's entry of a game (its name in the header, the shape of its plies), as
    the schema file would have it: play and record check every header against the format
    before the first ply, so an engine alone, outside the format, is refused."""
    from stratstone_cad.log import logfile

    schema = copy.deepcopy(logfile.load_schema())
    ply = {"player": {"enum": list(PLAYERS)}, "properties": {"left": {"type": "integer", "minimum": 0}}}
    if chance_field:
        ply["properties"][chance_field] = {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 3},
                                           "minItems": 1, "maxItems": 1}
    logfile.schema._add_game(schema, name, {"players": None, "setup": {"type": "object"}, "ply": ply})
    for cached in (logfile.schema._validator, logfile.schema._longest_list):
        cached.cache_clear()
    monkeypatch.setattr(logfile.schema, "load_schema", lambda: schema)


@pytest.fixture
def pile_game(monkeypatch: pytest.MonkeyPatch) -> Iterator[Pile]:
    _in_the_format(monkeypatch, "pile")
    game = register(Pile())
    yield game
    del registry._ENGINES["pile"]
    _forget_the_format()


@pytest.fixture
def dice_pile_game(monkeypatch: pytest.MonkeyPatch) -> Iterator[DicePile]:
    _in_the_format(monkeypatch, "dice-pile", "die")
    game = register(DicePile())
    yield game
    del registry._ENGINES["dice-pile"]
    _forget_the_format()


def _forget_the_format() -> None:
    """The validators made from the extended schema go with it."""
    from stratstone_cad.log import logfile

    for cached in (logfile.schema._validator, logfile.schema._longest_list):
        cached.cache_clear()


def test_play_and_its_players_serve_a_registered_fourth_game(pile_game: Pile) -> None:
    records = play_records("pile", 7, ["greedy", "random"], {"pile": 10})
    assert records[0]["game"] == "pile" and records[0]["setup"] == {"pile": 10}
    takes = [int(r["move"]) for r in records[1:] if "move" in r]
    assert sum(takes) == 10
    # greedy leaves a multiple of 4 whenever it can: 10 -> 8 on ply 1
    assert takes[0] == 2
    assert records[-1]["result"]["reason"] == "took the last"


def test_play_stops_a_game_at_its_ply_limit_and_says_so(pile_game: Pile, tmp_path: Any) -> None:
    """A pile of 40,000 takes more than 10,000 plies (3 stones a ply at most): written unfinished, no result line."""
    from stratstone_cad.log.commands import MAX_PLIES, play

    out = tmp_path / "pile.jsonl"
    assert play("pile", 7, None, out, {"pile": 40_000}) == f"wrote {out}: pile, unfinished after {MAX_PLIES} plies (limit {MAX_PLIES})"
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + MAX_PLIES and '"ply": 10000' in lines[-1]


def test_a_games_own_event_is_explained_in_its_own_words(pile_game: Pile, tmp_path: Any) -> None:
    """The game's Took event, not one of the core's, says itself in check-log --explain."""
    from stratstone_cad.log.commands import explain_log, play

    out = tmp_path / "pile.jsonl"
    play("pile", 7, ["greedy", "greedy"], out, {"pile": 5})
    said = list(explain_log(out))
    assert said[:2] == ["1 north 1: north takes 1, 4 left", "2 south 1: south takes 1, 3 left"], said
    assert said[-2] == "3 north 3: north takes 3, 0 left; winner north (took the last)", said


def test_a_one_ply_game_is_summed_up_in_the_singular(pile_game: Pile, tmp_path: Any) -> None:
    from stratstone_cad.log.commands import play

    out = tmp_path / "pile.jsonl"
    assert play("pile", 7, None, out, {"pile": 1}) == f"wrote {out}: pile, 1 ply, winner north (took the last)"


def test_record_serves_a_registered_fourth_game(pile_game: Pile, tmp_path: Any) -> None:
    out = tmp_path / "pile.jsonl"
    said: list[str] = []
    closing = record("pile", out, {"pile": 4}, None, roll=False, seed=None, stdin=io.StringIO("moves\n4\n3\nmoves 1\n1\n"),
                     say=said.append, interactive=False, on_warning=said.append)
    assert said.count("1, 2, 3") == 1 and said.count("1") == 1  # the moves, then the one left
    assert "refused: ply 1: '4' does not parse: expected 1, 2 or 3 (stones to take)" in said
    assert "winner south (took the last)" in closing
    lines = out.read_text().splitlines()
    assert len(lines) == 4 and '"move": "3"' in lines[1] and '"move": "1"' in lines[2]



def test_record_says_when_the_side_to_move_has_no_legal_move(pile_game: Pile, tmp_path: Any) -> None:
    """An empty pile: none of the three games ever leaves the side to move without a move."""
    said: list[str] = []
    closing = record("pile", tmp_path / "pile.jsonl", {"pile": 0}, None, roll=False, seed=None,
                     stdin=io.StringIO("moves\nmoves 1\nquit\n"), say=said.append, interactive=False, on_warning=said.append)
    assert said[-5:-1] == ["north to move> moves", "no legal move", "north to move> moves 1", "1: no legal move from there"]
    assert "unfinished after 0 plies (quit;" in closing


def test_record_with_roll_logs_the_die_only_of_the_plies_that_roll_it(dice_pile_game: DicePile, tmp_path: Any) -> None:
    out = tmp_path / "dice-pile.jsonl"
    said: list[str] = []
    record("dice-pile", out, {"pile": 4}, None, roll=True, seed=3, stdin=io.StringIO("1\nundo\n1\n1\nquit\n"),
           say=said.append, interactive=False, on_warning=said.append)
    assert "took back ply 1: north 1" in said  # a ply without a roll, undone with the next one's die rolled
    plies = [json.loads(t) for t in out.read_text().splitlines()[1:]]
    assert [p["move"] for p in plies] == ["1", "1"] and "die" not in plies[0] and plies[1]["die"] in ([1], [2])
    assert f"dice {plies[1]['die'][0]}: take at most {plies[1]['die'][0]}" in said


def test_a_setup_the_engine_draws_comes_from_the_seed_of_roll(dice_pile_game: DicePile, tmp_path: Any) -> None:
    def header(n: int, seed: int) -> dict[str, Any]:
        out = tmp_path / f"g{n}.jsonl"
        record("dice-pile", out, None, None, roll=True, seed=seed, stdin=io.StringIO("quit\n"), say=lambda _: None,
               interactive=False, on_warning=lambda _: None)
        return json.loads(out.read_text().splitlines()[0])

    assert header(1, 3)["setup"] == header(2, 3)["setup"] == {"pile": random.Random(3).randrange(4, 1000)}

def test_a_game_keeps_the_defaults_it_does_not_override(pile_game: Pile) -> None:
    """Game's defaults, as a fourth game without dice or map sees them (and one without
    a board: the pile game brings its own, so the base's board methods are called as such)."""
    assert pile_game.chance_field is None and pile_game.map_fields == () and Game.squares == ()
    assert pile_game.default_players(None) == 2 and pile_game.play_setup({"pile": 3}, 5) == {"pile": 3}
    assert pile_game.setup_warnings({"pile": 3}) == []
    assert not pile_game.fast_ply({"ply": 1, "player": "south", "move": "1"}, frozenset({"south"}))
    assert not pile_game.fast_header(["south", "north"], {"pile": 3})
    with pytest.raises(TypeError, match="^pile is not played on a map$"):
        pile_game.load_map("x.json")
    with pytest.raises(SquareError) as e:
        Game.parse_square(pile_game, "a1")
    assert str(e.value) == "'a1' is not a square (pile has no board)"
    ledger = Game.ledger(pile_game, PileState(pile=3, turn=0))
    assert ledger.pieces == {} and ledger.squares == {} and ledger.follow([]) == []
    state = PileState(pile=3, turn=0, ply=4)
    with pytest.raises(RuleViolation) as e:
        state.roll(random.Random(1))
    assert str(e.value) == "ply 5: roll is not part of Pile (no dice)"  # its GAME_TITLE


# --------------------------------------------------------------------------- a fourth game, end to end

PILE_INIT = '"""Pile: one pile, take 1 to 3, who takes the last wins; printed as a stack of round tokens."""\n'

PILE_FACTS = '''"""Pile's facts, each written once (the engine and the parts read them from here)."""

NAME = "pile"
TITLE = "Pile"
PLAYERS = ("north", "south")
"""The two sides, north first."""
SQUARES = ("pile", *PLAYERS)
"""Where the tokens stand: the pile, and what each side took."""


def log_schema():
    """The game's entry in the log format: its header's players, its setup, its plies."""
    return {
        "players": {"const": list(PLAYERS)},
        "setup": {"type": "object", "additionalProperties": False,
                  "properties": {"pile": {"type": "integer", "minimum": 1, "maximum": 100000}}},
        "ply": {
            "player": {"enum": list(PLAYERS)},
            "properties": {
                "left": {"description": "Optional derived fact, checked: stones left after the ply.",
                         "type": "integer", "minimum": 0},
            },
        },
    }
'''

PILE_RULES_HEAD = '''"""Pile's rules: one pile, take 1 to 3 stones, who takes the last wins."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from stratstone_cad.engine.events import GameOver, Result
from stratstone_cad.engine.ledger import PieceLedger, numbered
from stratstone_cad.engine.protocol import Game, NoChance
from stratstone_cad.errors import MoveTextError, RuleViolation, SquareError
from stratstone_cad.games.pile.facts import PLAYERS, SQUARES
'''

PILE_CAD = '''"""Pile's token: a cylinder standing on z = 0 centred on the origin, built from a 2D
disc with manifold3d (no CadQuery), its top on a layer boundary of the piece profile."""

from __future__ import annotations

import math

from stratstone_cad.base.params import Profile, snap_height
from stratstone_cad.geometry.boards import circle_segments, disc
from stratstone_cad.printing.checks import Mesh
from stratstone_cad.assets.makers import kernel_free
from stratstone_cad.printing.stack import manifold_mesh, prism


def token(diameter_mm: float, height_mm: float, profile: Profile, tolerance_mm: float, angle_deg: float) -> Mesh:
    """The cylinder: its side a polygon whose corners lie on the circle, within ``tolerance_mm``
    of it, neighbouring sides turning by ``angle_deg`` at most."""
    r = diameter_mm / 2
    height = snap_height(height_mm, profile, minimum_layers=2)
    n = max(circle_segments(r, tolerance_mm), 4 * math.ceil(90 / angle_deg))
    return manifold_mesh(prism(disc((0.0, 0.0), r, tolerance_mm, hole=False, segments=n), 0.0, height), "pile token")


@kernel_free
def make_token(diameter_mm: float, height_mm: float, profile: Profile, tolerance_mm: float,
               angular_tolerance_deg: float) -> list[Mesh]:
    return [token(diameter_mm, height_mm, profile, tolerance_mm, angular_tolerance_deg)]


def solid_token(diameter_mm: float, height_mm: float, profile: Profile, tolerance_mm: float,
                angular_tolerance_deg: float) -> list:
    """The token as a B-rep (STEP, stratstone_cad.models): a true cylinder."""
    import cadquery as cq

    return [cq.Solid.makeCylinder(diameter_mm / 2, snap_height(height_mm, profile, minimum_layers=2))]
'''

PILE_PARTS_HEAD = '''"""Pile's printable parts: the round token, printed once per stone of the pile, and
the round tray the pile and each side's takings stand on.
Parameters in ``preset.toml`` beside this module; CAD in :mod:`stratstone_cad.games.pile.cad`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stratstone_cad.base.params import MeshParams, Params, Profile, param, snap_height
from stratstone_cad.base.printers import Printer
from stratstone_cad.games.pile.facts import NAME, PLAYERS, TITLE
from stratstone_cad.assets.game_assets import GameAssets
from stratstone_cad.assets.jobs import Job, Output
from stratstone_cad.assets.makers import CadFunctions
from stratstone_cad.assets.table import Table

#: The game's default parameters (package data).
PRESET = Path(__file__).with_name("preset.toml")
#: The CAD function of the token, in cad.py (named, not imported: see CadFunctions).
CAD = CadFunctions("stratstone_cad.games.pile.cad", ("make_token",))


@dataclass(frozen=True)
class PileToken(Params):
    """A round token: one stone of the pile."""

    PREFIX = "pile.token"

'''

PILE_PARTS_TAIL = '''

@dataclass(frozen=True)
class PileParams:
    token: PileToken


def combine(sections: Mapping[str, Any], profiles: Mapping[str, Profile]) -> PileParams:
    return PileParams(sections["token"])


TRAY = 5.0  # the tray's diameter, in tokens
TRAY_MM = 2.0  # its height


def plan(p: PileParams, printer: Printer, profiles: Mapping[str, Profile], mesh: MeshParams) -> list[Job]:
    t = p.token
    tol = {"tolerance_mm": mesh.tolerance_mm, "angular_tolerance_deg": mesh.angular_tolerance_deg}
    return [Job(f"{NAME}/token", CAD.make_token,
                {"diameter_mm": t.diameter_mm, "height_mm": t.height_mm, "profile": profiles["piece"], **tol},
                (Output(f"{NAME}/token.stl", NAME, "token", "piece", count=t.count, plate="tokens"),),
                f"token (pile.token {t.diameter_mm:g} x {t.height_mm:g} mm)", cost=0.2),
            Job(f"{NAME}/board", CAD.make_token,
                {"diameter_mm": TRAY * t.diameter_mm, "height_mm": TRAY_MM, "profile": profiles["board"], **tol},
                (Output(f"{NAME}/board.stl", NAME, "board", "board", count=1, plate="board"),),
                "board (a round tray)", cost=0.2)]


def table(p: PileParams, profiles: Mapping[str, Profile], pieces: Mapping[str, Any], game: Any) -> Table:
    """The pile in the tray's middle, north's takings above it, south's below."""
    d, top = p.token.diameter_mm, snap_height(TRAY_MM, profiles["board"], minimum_layers=2)
    seats = {"pile": (0.0, 0.0, top), PLAYERS[0]: (0.0, 1.6 * d, top), PLAYERS[1]: (0.0, -1.6 * d, top)}
    return Table("board", seats, d, dict.fromkeys(pieces, "token"))


ASSETS = GameAssets(NAME, f"{TITLE}: round tokens, one per stone of the pile", PRESET,
                    {"pile.token": PileToken}, combine, plan, CAD, files="token|board", table=table)
'''

#: The token's fields: name, type, default (in preset.toml), doc, lo, hi.
PILE_TOKEN_FIELDS = (
    ("diameter_mm", "float", 20.0, "diameter of a token", 5, 60),
    ("height_mm", "float", 3.0, "height of a token, snapped to the piece profile's layers", 0.8, 20),
    ("count", "int", 10, "tokens the game needs (the manifest's print count)", 1, 99),
)

GAME_PACKAGE = Path(registry.__file__).resolve().parent


def _pile_parts(param_takes_default: bool) -> str:
    """parts.py, its fields written in the form ``param`` takes (with a default, or without
    one now that the defaults live in preset.toml only)."""
    lines = []
    for name, kind, default, doc, lo, hi in PILE_TOKEN_FIELDS:
        first = f"{default!r}, " if param_takes_default else ""
        lines.append(f"    {name}: {kind} = param({first}{doc!r}, lo={lo}, hi={hi})\n")
    return PILE_PARTS_HEAD + "".join(lines) + PILE_PARTS_TAIL


def _pile_preset() -> str:
    return "# Pile's token, in mm; its height snapped to the piece profile.\n\n[pile.token]\n" + "".join(
        f"{name} = {default!r}\n" for name, _, default, *_ in PILE_TOKEN_FIELDS)


def _pile_rules() -> str:
    """The engine of this test module, as the game's rules.py."""
    body = "\n\n".join(inspect.getsource(c) for c in (Take, Took, PileLedger, PileState, Pile))
    return PILE_RULES_HEAD + "\n\n" + body + "\n\nGAME = Pile()\n"


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def _add_pile(pkg: Path) -> None:
    """What adding the game takes: its folder (its facts carry its entry in the log format) and one line of registry.py."""
    folder = pkg / "games" / "pile"
    folder.mkdir()
    params_src = (pkg / "base" / "params.py").read_text()
    takes_default = re.search(r"^def param\(\s*default\b", params_src, re.MULTILINE) is not None
    for name, text in {"__init__.py": PILE_INIT, "facts.py": PILE_FACTS, "rules.py": _pile_rules(),
                       "parts.py": _pile_parts(takes_default), "cad.py": PILE_CAD, "preset.toml": _pile_preset()}.items():
        (folder / name).write_text(text)

    reg = pkg / "registry.py"
    text, n = re.subn(r'^(FOLDERS = \(.*)\)$', r'\1, "pile")', reg.read_text(), count=1, flags=re.MULTILINE)
    assert n == 1, "registry.py has no one-line FOLDERS = (...)"
    reg.write_text(text)


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH")}
    env.update(PYTHONPATH=str(tmp / "copy"), XDG_CACHE_HOME=str(tmp / "cache"), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, *args], cwd=tmp / "run", env=env, capture_output=True, text=True,
                          timeout=300)


def test_a_fourth_game_is_its_folder_and_one_registry_line(tmp_path: Path) -> None:
    """Adding a game touches its own folder (its facts hold its entry in the log schema) and
    one line of the registry, nothing else; then build, list, play and check-log serve it, through the real
    command line, importing the changed copy of the package and not this checkout."""
    import tomllib

    import trimesh

    from stratstone_cad.base.params import Profile, snap_height

    pkg = tmp_path / "copy" / "stratstone_cad"
    shutil.copytree(GAME_PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "run").mkdir()
    before = _tree(pkg)  # the package as copied (the checkout may change meanwhile: others work in it)
    _add_pile(pkg)
    after = _tree(pkg)

    # --- what changed: the new folder and one line of registry.py
    added = sorted(set(after) - set(before))
    changed = sorted(f for f in before.keys() & after.keys() if before[f] != after[f])
    assert set(before) <= set(after)
    assert added == [f"games/pile/{f}" for f in ("__init__.py", "cad.py", "facts.py", "parts.py", "preset.toml",
                                                  "rules.py")]
    assert changed == ["registry.py"]
    diff = [d for d in difflib.unified_diff(before["registry.py"].decode().splitlines(),
                                            after["registry.py"].decode().splitlines(), lineterm="", n=0)
            if d[:1] in "+-" and d[:3] not in ("+++", "---")]
    assert len(diff) == 2 and diff[0].startswith("-FOLDERS") and diff[1] == diff[0].replace("-", "+", 1)[:-1] + ', "pile")'
    # the log format's schema, assembled by the copy: this checkout's, and the pile's entry from its facts
    from stratstone_cad.log.logfile import load_schema

    assembled = _run(tmp_path, "-c", "import json; from stratstone_cad.log.logfile import load_schema; "
                                     "print(json.dumps(load_schema()))")
    assert assembled.returncode == 0, assembled.stderr
    old, new = copy.deepcopy(load_schema()), json.loads(assembled.stdout)
    games = new["$defs"]["header"]["properties"]["game"]["enum"]
    assert games == [*old["$defs"]["header"]["properties"]["game"]["enum"], "pile"]
    new["$defs"]["header"]["properties"]["game"]["enum"] = games[:-1]
    assert new["$defs"]["ply"]["anyOf"].pop() == {"$ref": "#/$defs/ply_pile"}
    assert new["$defs"]["header"]["allOf"].pop()["then"]["properties"]["players"] == {"const": list(PLAYERS)}
    assert new["$defs"].pop("ply_pile")["properties"]["player"] == {"enum": list(PLAYERS)}
    assert new["$defs"].pop("setup_pile")["properties"]["pile"]["type"] == "integer"
    assert new == old  # the game in the header's list, its setup and its ply's shape: all the schema gained

    # --- the rules: importing them loads no CAD, mesh or VTK module, from the copy
    heavy = ("cadquery", "OCP", "manifold3d", "shapely", "trimesh", "vtk", "pyvista", "numpy", "stratstone_cad.printing",
             "stratstone_cad.assets", "stratstone_cad.geometry", "stratstone_cad.occ", "stratstone_cad.viewer")
    probe = _run(tmp_path, "-c", "import sys, stratstone_cad.games.pile.rules as r; print(r.__file__); "
                                 f"print([m for m in sys.modules if m.split('.')[0] in {heavy!r} or m.startswith({heavy!r})])")
    assert probe.returncode == 0, probe.stderr
    where, loaded = probe.stdout.splitlines()
    assert Path(where) == pkg / "games" / "pile" / "rules.py" and loaded == "[]"

    # --- build: one checked token
    out = tmp_path / "out"
    build = _run(tmp_path, "-m", "stratstone_cad", "build", "pile", "--out", str(out), "--jobs", "1", "--quiet")
    assert build.returncode == 0, build.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert [a["file"] for a in manifest["assets"]] == ["pile/board.stl", "pile/token.stl"]
    entry = manifest["assets"][1]
    assert (entry["game"], entry["part"], entry["profile"]["name"], entry["count"]) == ("pile", "token", "piece", 10)
    data = (out / "pile" / "token.stl").read_bytes()
    n_triangles = int.from_bytes(data[80:84], "little")
    assert len(data) == 84 + 50 * n_triangles > 84  # a binary STL
    mesh = trimesh.load(io.BytesIO(data), file_type="stl", process=True)
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.is_volume
    preset = tomllib.loads((pkg / "games" / "pile" / "preset.toml").read_text())["pile"]["token"]
    tol = tomllib.loads((pkg / "base" / "presets" / "mesh.toml").read_text())["mesh"]["tolerance_mm"]
    piece = tomllib.loads((pkg / "base" / "presets" / "profiles.toml").read_text())["profile"]["piece"]
    height = snap_height(preset["height_mm"], Profile("piece", piece["layer_height_mm"], piece["first_layer_height_mm"]),
                         minimum_layers=2)
    assert height == pytest.approx(3.05)  # 3 mm is on no boundary of 0.2 + n x 0.15 mm; 0.2 + 19 x 0.15 is
    r = preset["diameter_mm"] / 2
    # a polygon with its corners on the circle and within tol of it: between the circles of r - tol and r
    assert math.pi * (r - tol) ** 2 * height <= mesh.volume <= math.pi * r * r * height
    assert mesh.bounds.ravel().tolist() == pytest.approx([-r, -r, 0.0, r, r, height], abs=1e-6)

    # --- list shows the pile's section
    listing = _run(tmp_path, "-m", "stratstone_cad", "list")
    assert listing.returncode == 0, listing.stderr
    shown = listing.stdout.splitlines()
    assert "pile: Pile: round tokens, one per stone of the pile" in shown
    for name, _, default, doc, lo, hi in PILE_TOKEN_FIELDS:
        at = shown.index(f"  pile.token.{name} = {default:g}")
        assert shown[at + 1].startswith(f"      {doc}; ") and shown[at + 1].endswith(f"from {lo} to {hi}")

    # --- play, then check-log
    play = _run(tmp_path, "-m", "stratstone_cad", "play", "pile", "--seed", "1", "--out", "g.jsonl")
    assert play.returncode == 0, play.stderr
    assert play.stdout.startswith("wrote g.jsonl: pile, ") and "(took the last)" in play.stdout
    check = _run(tmp_path, "-m", "stratstone_cad", "check-log", "g.jsonl")
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("ok: pile, ") and "(took the last)" in check.stdout

    # --- replay: the game's own event moves its tokens in the stills and is drawn and said in the page
    first_ply = json.loads((tmp_path / "run" / "g.jsonl").read_text().splitlines()[1])
    stills = _run(tmp_path, "-m", "stratstone_cad", "replay", "g.jsonl", "--out", "stills", "--plies", "1-1",
                  "--size", "256x144")
    assert stills.returncode == 0, stills.stderr
    frames = sorted((tmp_path / "run" / "stills").iterdir())
    from PIL import Image

    start, first = (np.asarray(Image.open(f).convert("RGB"), np.int16)[40:] for f in (frames[0], frames[-1]))
    assert (np.abs(start - first).max(axis=2) > 40).sum() > 300  # below the caption: tokens left the pile
    page = _run(tmp_path, "-m", "stratstone_cad", "replay", "g.jsonl", "--out", "g.html")
    assert page.returncode == 0, page.stderr
    html = (tmp_path / "run" / "g.html").read_text()
    found = re.search(r'<script id="glb" type="application/octet-stream"( data-encoding="gzip")?>([^<]*)</script>', html)
    glb = base64.b64decode(found[2])
    if found[1]:  # a page written to share holds its GLB gzipped
        import gzip

        glb = gzip.decompress(glb)
    doc = json.loads(glb[20:20 + int.from_bytes(glb[12:16], "little")])
    scene = doc["scenes"][0]["extras"]
    tokens = {i for i, node in enumerate(doc["nodes"]) if node.get("name", "").startswith("token-")}
    assert {c["target"]["node"] for c in doc["animations"][0]["channels"]} & tokens  # the tokens are carried
    said = scene["plies"][0]
    assert said["words"].startswith(f"north takes {first_ply['move']}, {10 - int(first_ply['move'])} left"), said
    assert said["draw"]["tubes"], said  # the default drawing: a loop round the square it names (north's)
