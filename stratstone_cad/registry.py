"""The one list of games: each registered once, and everything that comes from it.

A game is a folder under ``stratstone_cad/games/`` (``facts.py``, ``rules.py``,
``parts.py``, ``cad.py``, ``preset.toml``) and one entry of :data:`FOLDERS`. From that
entry come its rules engine (:func:`get_game`, loaded on first use: check-log and play
need one engine, a build none), its printable parts (:data:`ASSETS`, with their CAD
functions checked against the CAD module's source here), its parameters and presets
(:data:`SCHEMA`, :func:`load_params`), its CLI options and the help's game lists, and its
entry in the log format (its facts' ``log_schema()``, which the log's schema is assembled
from); docs/architecture.md says how to add a game.

:func:`load_params` merges the presets (each game's ``preset.toml``, the shared
``base/presets/mesh.toml``, ``plates.toml`` and ``fit.toml``), a ``--params`` file and ``--set``
overrides, constructs every section (which checks it), then lets each game check what
its sections say together.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from stratstone_cad.errors import UnknownGameError, did_you_mean, short_repr

if TYPE_CHECKING:
    from stratstone_cad.assets.game_assets import GameAssets
    from stratstone_cad.base.params import FitParams, MeshParams, Params, PlateParams
    from stratstone_cad.engine.protocol import Game

#: Every game, registered once: its folder under stratstone_cad/games/.
FOLDERS = ("stratstone", "sage_stones", "terrain")

#: Each game's facts module (its name, board, colours, the flags of its map), by the game's
#: name: cheap to import, so every command and the help read them.
FACTS: dict[str, ModuleType] = {
    m.NAME: m for m in (importlib.import_module(f"stratstone_cad.games.{folder}.facts") for folder in FOLDERS)}
_FOLDER_OF = dict(zip(FACTS, FOLDERS, strict=True))

#: Every game's printable parts (its ``parts.ASSETS``), by the game's name; made on first use
#: (:func:`__getattr__`): the log commands need one engine and none of the parts.
ASSETS: dict[str, GameAssets]
#: Every parameter section: prefix -> Params class (the games' sections, then the mesh, the plates and the fits).
SCHEMA: dict[str, type[Params]]
#: The sections every game shares beside its own: the mesh, the print plates and the fits.
SHARED_SECTIONS = ("mesh", "plates", "fit")
#: The shared presets beside the games' own (each game's ``preset``): one a shared section.
SHARED_PRESETS = tuple(f"{s}.toml" for s in SHARED_SECTIONS)


def _load_assets(folder: str) -> GameAssets:
    """A game's printable parts, their CAD functions checked against the CAD module's source."""
    assets: GameAssets = importlib.import_module(f"stratstone_cad.games.{folder}.parts").ASSETS
    assets.cad.check()
    return assets


def __getattr__(name: str) -> Any:
    """:data:`ASSETS` and :data:`SCHEMA`, made when first asked for (PEP 562)."""
    if name not in ("ASSETS", "SCHEMA"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in globals():
        return globals()[name]
    from stratstone_cad.base.params import FitParams, MeshParams, PlateParams  # start-up speed: with the parts only

    games = {a.name: a for a in map(_load_assets, FOLDERS)}
    globals()["ASSETS"] = games
    globals()["SCHEMA"] = {**{p: c for g in games.values() for p, c in g.sections.items()}, "mesh": MeshParams,
                           "plates": PlateParams, "fit": FitParams}
    return globals()[name]


def _all_assets() -> dict[str, GameAssets]:
    """:data:`ASSETS`, for this module's own functions (a module's ``__getattr__`` answers
    only lookups from outside it)."""
    return __getattr__("ASSETS")


_ENGINES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add an engine under ``game.name`` beside the games of :data:`FOLDERS` (a game
    defined outside the package, such as a test's)."""
    _ENGINES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The rules engine of the game called ``name``; raises :class:`UnknownGameError`.

    Raises:
        UnknownGameError: no game has that name.
    """
    engine = _ENGINES.get(name) if isinstance(name, str) else None
    if engine is None and isinstance(name, str) and name in _FOLDER_OF:
        # imported on first use: each engine's tables cost tens of milliseconds to import
        engine = _ENGINES[name] = importlib.import_module(f"stratstone_cad.games.{_FOLDER_OF[name]}.rules").GAME
    if engine is None:
        raise UnknownGameError(f"unknown game {short_repr(name)}: expected one of {', '.join(game_names())}")
    return engine


def game_names() -> list[str]:
    """Names of the games, sorted."""
    return sorted({*FACTS, *_ENGINES})


def get_parts(names: list[str] | None) -> list[GameAssets]:
    """The games named (all when none), checked; an unknown name raises :class:`UnknownGameError`.

    Raises:
        UnknownGameError: no game has that name.
    """
    if not names:
        return list(_all_assets().values())
    out = []
    for n in names:
        if n not in _all_assets():
            raise UnknownGameError(f"game {short_repr(n)}: unknown, expected one of {', '.join(_all_assets())}"
                                   f"{did_you_mean(n, _all_assets())}")
        if _all_assets()[n] not in out:
            out.append(_all_assets()[n])
    return out


@dataclasses.dataclass(frozen=True)
class ParamSet:
    """Every game's parameters, checked, the mesh settings, the print plates' and the shared
    fits (each game's field that follows one of them already holds its value).

    ``ps.params_of("sage-stones")`` is the object that game's ``combine`` returned.
    """

    games: dict[str, Any]
    mesh: MeshParams
    plates: PlateParams
    fit: FitParams

    def params_of(self, name: str) -> Any:
        """The parameters of the game ``name``; of the fit test (``fit-test``), every game's by name."""
        from stratstone_cad.assets.fit_test import FIT_TEST

        return dict(self.games) if name == FIT_TEST else self.games[name]

    def section(self, prefix: str) -> dict[str, Any]:
        """The plain values of one section, e.g. ``"stratstone.stone"``."""
        if prefix in SHARED_SECTIONS:
            return getattr(self, prefix).as_dict()
        for g in _all_assets().values():
            if prefix in g.sections:
                return getattr(self.games[g.name], prefix.rsplit(".", 1)[1]).as_dict()
        raise KeyError(prefix)


def load_params(params_file: Path | None = None, sets: dict[str, str] | None = None,
                presets_dir: Path | None = None, games: Iterable[str] | None = None) -> ParamSet:
    """Load and check every parameter; raises ParameterError naming the first bad one.

    Every section's values are checked, but only the ``games`` named (all by default)
    are combined into their game's parameters: a build of Stratstone does not read a
    terrain heightmap, nor fail on one that is missing.
    """
    # start-up speed: the parameters only for the commands that read them, not check-log or play
    from stratstone_cad.base.overrides import resolve
    from stratstone_cad.base.params import FitParams, MeshParams, PlateParams
    from stratstone_cad.base.preset_files import PRESETS_DIR
    from stratstone_cad.base.printers import load_profiles

    presets_dir = PRESETS_DIR if presets_dir is None else presets_dir
    raw = resolve(__getattr__("SCHEMA"),
                  [*(g.preset for g in _all_assets().values()), *(presets_dir / f for f in SHARED_PRESETS)],
                  params_file, sets)
    profiles = load_profiles(presets_dir)
    fit = FitParams(**raw["fit"])  # first: a shared value out of range is named as given, not as a board's that follows it
    from stratstone_cad.assets.fit_test import FIT_TEST

    chosen = set(_all_assets()) if games is None or FIT_TEST in games else set(games)  # the fit test reads every game
    combined = {}
    for g in _all_assets().values():
        sections = {p.rsplit(".", 1)[1]: cls(**raw[p]) for p, cls in g.sections.items()}
        if g.name in chosen:
            combined[g.name] = g.combine(sections, profiles)
    return ParamSet(combined, MeshParams(**raw["mesh"]), PlateParams(**raw["plates"]), fit)
