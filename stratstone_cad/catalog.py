"""Which games have printable assets, and every game's parameters, checked (pure Python).

The registry: each game registers one :class:`~stratstone_cad.jobs.GameAssets` in its
own module under ``stratstone_cad/assets/``; :data:`GAMES` lists them. Adding a game
touches its own files and the line that lists it here.

:func:`load_params` merges the presets (``models/<game>.toml``, ``models/mesh.toml``), a
``--params`` file and ``--set`` overrides, constructs every section (which checks it),
then lets each game check what its sections say together.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .assets import sage_stones, stratstone, terrain
from .errors import ParameterError
from .jobs import GameAssets
from .params import MODELS_DIR, MeshParams, Params, PlateParams, load_profiles, resolve

GAMES: dict[str, GameAssets] = {g.name: g for g in (stratstone.ASSETS, sage_stones.ASSETS, terrain.ASSETS)}

#: Every parameter section: prefix -> Params class (the games' sections, then the mesh and the plates).
SCHEMA: dict[str, type[Params]] = {**{p: c for g in GAMES.values() for p, c in g.sections.items()}, "mesh": MeshParams,
                                   "plates": PlateParams}
PRESET_FILES = (*(g.preset for g in GAMES.values()), "mesh.toml", "plates.toml")


def get_games(names: list[str] | None) -> list[GameAssets]:
    """The games named (all when none), checked; unknown names raise ParameterError."""
    if not names:
        return list(GAMES.values())
    out = []
    for n in names:
        if n not in GAMES:
            close = difflib.get_close_matches(n, list(GAMES), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ParameterError(f"game {n!r}: unknown, expected one of {', '.join(GAMES)}{hint}")
        if GAMES[n] not in out:
            out.append(GAMES[n])
    return out


@dataclasses.dataclass(frozen=True)
class ParamSet:
    """Every game's parameters, checked, the mesh settings and the print plates'.

    ``ps.game("sage-stones")`` (or ``ps.sage_stones``) is the object that game's
    ``combine`` returned.
    """

    games: dict[str, Any]
    mesh: MeshParams
    plates: PlateParams

    def game(self, name: str) -> Any:
        return self.games[name]

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # pickling asks for __setstate__ before the fields are set
            raise AttributeError(attr)
        for g in GAMES.values():
            if g.attribute == attr and g.name in self.games:
                return self.games[g.name]
        raise AttributeError(attr)

    def section(self, prefix: str) -> dict[str, Any]:
        """The plain values of one section, e.g. ``"stratstone.stone"``."""
        if prefix in ("mesh", "plates"):
            return getattr(self, prefix).as_dict()
        for g in GAMES.values():
            if prefix in g.sections:
                return getattr(self.games[g.name], prefix.rsplit(".", 1)[1]).as_dict()
        raise KeyError(prefix)


def load_params(params_file: Path | None = None, sets: dict[str, str] | None = None,
                models_dir: Path = MODELS_DIR, games: Iterable[str] | None = None) -> ParamSet:
    """Load and check every parameter; raises ParameterError naming the first bad one.

    Every section's values are checked, but only the ``games`` named (all by default)
    are combined into their game's parameters: a build of Stratstone does not read a
    terrain heightmap, nor fail on one that is missing.
    """
    raw = resolve(SCHEMA, [models_dir / f for f in PRESET_FILES], params_file, sets)
    profiles = load_profiles(models_dir)
    chosen = set(GAMES) if games is None else set(games)
    combined = {}
    for g in GAMES.values():
        sections = {p.rsplit(".", 1)[1]: cls(**raw[p]) for p, cls in g.sections.items()}
        if g.name in chosen:
            combined[g.name] = g.combine(sections, profiles)
    return ParamSet(combined, MeshParams(**raw["mesh"]), PlateParams(**raw["plates"]))
