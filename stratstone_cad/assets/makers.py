"""A game's CAD functions, named without importing them, and the B-rep twin of each.

Planning, naming the files and checking the cache never import a game's ``cad.py`` (which
loads shapely, manifold3d or CadQuery): a job names its CAD function as text
(``"module:function"``), checked against the module's source when the game is registered,
so a rename fails at once, not when a build runs.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CadFunctions:
    """A game's CAD functions, named without importing them (planning and keying a build
    never load the CAD module, which loads shapely, manifold3d or CadQuery).

    ``CadFunctions("stratstone_cad.games.stratstone.cad", ("make_board", "make_stone"))``;
    ``CAD.make_board`` is the job's ``maker`` text (``"module:function"``); a name the game did
    not declare is an AttributeError when the plan is made, and :meth:`check` (run by the
    registry) finds each declared function defined in the module's source.
    """

    module: str
    names: tuple[str, ...]

    def __getattr__(self, name: str) -> str:
        if name in self.names:
            return f"{self.module}:{name}"
        raise AttributeError(f"{self.module} declares no CAD function {name!r} (it declares {', '.join(self.names)})")

    def check(self) -> None:
        """Each declared function, and the B-rep twin of each (``make_board`` ->
        ``solid_board``, see :func:`solid_maker`), is defined at the top level of the
        module's source (read, not imported); raises LookupError naming the first one that
        is not."""
        spec = importlib.util.find_spec(self.module)
        source = spec.loader.get_source(self.module) if spec and spec.loader else None  # type: ignore[attr-defined]
        if source is None:
            raise LookupError(f"CAD module {self.module}: not found")
        for name in self.names:
            for fn in (name, solid_maker(name)):
                if not re.search(rf"^def {re.escape(fn)}\(", source, re.MULTILINE):
                    raise LookupError(f"CAD module {self.module}: no function {fn}() at its top level")


def solid_maker(maker: str) -> str:
    """The B-rep twin of a CAD function: ``"module:make_board"`` -> ``"module:solid_board"``.

    Every ``make_*`` function of a game's ``cad.py`` (its parts as meshes, or as CadQuery
    solids tessellated by the build) has a ``solid_*`` function given the same arguments,
    which returns the same parts as B-rep solids, one per output (STEP files, the model
    API); the tests prove each pair makes one solid."""
    head, sep, name = maker.rpartition(":")
    if not name.startswith("make_"):
        raise ValueError(f"{maker}: a CAD function's name begins with make_")
    return f"{head}{sep}solid_{name[len('make_'):]}"


def kernel_free(maker: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a CAD function that builds its parts as meshes from 2D regions, without
    CadQuery (boards, terrain pieces): the build runs it while CadQuery is still loading
    for the others."""
    maker.kernel_free = True  # type: ignore[attr-defined]
    return maker
