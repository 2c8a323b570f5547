"""The one object a game registers: its printable assets (``ASSETS`` in its ``parts.py``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stratstone_cad.assets.jobs import BOARD_FILES, Job
from stratstone_cad.assets.makers import CadFunctions
from stratstone_cad.assets.table import Table
from stratstone_cad.base.params import MeshParams, Params, Profile
from stratstone_cad.base.printers import Printer


@dataclass(frozen=True)
class KitHooks:
    """A game whose board can be printed as a kit of tiles that lays many maps (the terrain
    game's): what ``play --kit``, ``record --kit`` and ``kit maps`` / ``kit setup`` ask of it.

    ``setup(params)`` is the setup of a game on a map of the kit (the engine picks the map
    from the game's seed); ``maps(params)`` every distinct map the kit lays, as JSON objects
    (``heightmap`` and the arrangement); ``draw(setup, path, size)`` writes a PNG of how to lay the
    tiles for a game's setup (one that holds a kit arrangement)."""

    setup: Callable[[Any], Mapping[str, Any]]
    maps: Callable[[Any], list[dict[str, Any]]]
    draw: Callable[[Mapping[str, Any], Path, int], None]


@dataclass(frozen=True)
class GameAssets:
    """A game's printable parts, as its ``parts.py`` registers them (``ASSETS``).

    ``sections`` maps a dotted prefix (``"sage-stones.board"``) to its Params class;
    ``preset`` is the game's TOML file of their defaults (package data beside its
    ``parts.py``). ``combine(sections, profiles)`` checks what the sections say together
    (a gem fits a well, heights after snapping to the layers) and returns the game's
    parameters: an object with one attribute per section, named by the prefix's last part
    (``params.board``, ``params.gem``: ``list`` and the manifest read the sections back so);
    ``plan(params, printer, profiles, mesh)`` lists the jobs; ``cad`` names the CAD
    functions they call.
    """

    name: str
    title: str
    preset: Path
    sections: Mapping[str, type[Params]]
    combine: Callable[[Mapping[str, Any], Mapping[str, Profile]], Any]
    plan: Callable[[Any, Printer, Mapping[str, Profile], MeshParams], list[Job]]
    cad: CadFunctions
    #: The names (without ``.stl``) of the files the game writes, as a regular expression;
    #: a stale file is removed only when its name matches (a user's own STL in the folder stays).
    files: str = BOARD_FILES
    #: ``table(params, profiles, pieces, game)``: where the game's pieces stand on its board
    #: (the viewer's replay; ``game`` is its rules engine); ``None`` for a game without one.
    table: Callable[[Any, Mapping[str, Profile], Mapping[str, Any], Any], Table] | None = None
    #: ``for_setup(params, setup)``: the parameters of the board a logged game was played on
    #: (the terrain game's heightmap from the log's setup); by default the parameters as given.
    for_setup: Callable[[Any, Mapping[str, Any]], Any] | None = None
    #: ``start_setup(params)``: the setup of a game played on these parameters' board (the
    #: terrain game's heightmap), for the set laid out at the start (:mod:`stratstone_cad.assets.layout`);
    #: by default none (the engine's own).
    start_setup: Callable[[Any], Mapping[str, Any]] | None = None
    #: The game's kit of tiles (:class:`KitHooks`), or ``None``: one board, one map.
    kit: KitHooks | None = None
    #: ``fits(params, printer, profiles, mesh)``: the jobs of the fit test's coupons of this
    #: game's fits (:mod:`stratstone_cad.assets.fit_test`), or ``None``: a game with none.
    fits: Callable[[Any, Printer, Mapping[str, Profile], MeshParams], list[Job]] | None = None

    def owns(self, file: str) -> bool:
        """Whether ``file`` (``game/name.stl``, its STEP file ``game/name.step``, the set's
        ``game/set.step`` and ``game/set.glb``) is a name this game's build writes."""
        return re.fullmatch(rf"{re.escape(self.name)}/(?:(?:{self.files})\.(?:stl|step)|set\.(?:step|glb))",
                            file) is not None
