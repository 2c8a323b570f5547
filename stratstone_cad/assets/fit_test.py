"""The fit test (``stratstone-cad build fit-test``): a set the build knows beside the games.

Each game declares the fits its set uses (:attr:`GameAssets.fits`: jobs whose parts go into
this set's folder and onto its one plate, ``fit-test/fit-test.3mf``), each made by the
game's own CAD code at three clearances about its parameter's value
(:func:`~stratstone_cad.geometry.coupons.clearances`); the fit-test set is those jobs
together. It has no parameters of its own: it reads the games', so the clearance a user
picks from a coupon and sets (``--set sage-stones.board.clearance_mm=0.4``) is the one the
set's parts are then made with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stratstone_cad.assets.game_assets import GameAssets
from stratstone_cad.assets.jobs import Job, Output
from stratstone_cad.assets.makers import CadFunctions
from stratstone_cad.base.params import MeshParams, Profile
from stratstone_cad.base.printers import Printer

#: The set's name: its folder, its plate (``fit-test/fit-test.3mf``) and its row in the print report.
FIT_TEST = "fit-test"
#: The print profile of the plate: the boards' 0.30 mm layers (every fit is a board's socket,
#: and a clearance is set by the extrusions' width, not the layer height; half the time of 0.15 mm).
PROFILE = "board"


def fit_output(name: str, part: str) -> Output:
    """The output of one coupon (``fit-test/NAME.stl``), on the fit test's plate."""
    return Output(f"{FIT_TEST}/{name}.stl", FIT_TEST, part, PROFILE, plate=FIT_TEST)


def at(stem: str, clearance: float) -> str:
    """The name of a coupon at a clearance: ``gem-well-0_50`` (0.50 mm; a file name has no dot)."""
    return f"{stem}-{clearance:.2f}".replace(".", "_")


def fit_test_set(games: Sequence[GameAssets]) -> GameAssets:
    """The fit-test set of ``games``: the jobs of each one's :attr:`~GameAssets.fits`.
    Its plan is given every game's parameters, by the game's name."""

    def plan(params: Mapping[str, Any], printer: Printer, profiles: Mapping[str, Profile],
             mesh: MeshParams) -> list[Job]:
        return [j for g in games if g.fits is not None for j in g.fits(params[g.name], printer, profiles, mesh)]

    first = games[0]
    return GameAssets(FIT_TEST, "Fit test: each fit of the set at three clearances", first.preset, {},
                      lambda sections, profiles: None, plan, CadFunctions(first.cad.module, ()),
                      files=r"[a-z0-9][a-z0-9-]*")
