"""Typed parameter objects: the machinery every model's parameters are declared with.

A model's parameters are one frozen dataclass (:class:`Params`). Each field carries its
unit (in its name: ``height_mm``), its allowed range or choices and a one-line
description in the field metadata (:func:`param`). Defaults live in one place, the
presets: each game's ``preset.toml`` and ``base/presets/mesh.toml`` and ``plates.toml``
(package data); the dataclasses have none, and
:func:`~stratstone_cad.base.overrides.resolve` refuses presets that leave a field out.
Heights are snapped to the print profile's layers (:func:`snap_height`, :func:`snap_depth`).

Beside this module: :mod:`~stratstone_cad.base.preset_files` reads the presets' TOML
files, :mod:`~stratstone_cad.base.printers` the printers and print profiles,
:mod:`~stratstone_cad.base.colours` the display colours, and
:mod:`~stratstone_cad.base.overrides` merges the presets with ``--params FILE.toml`` and
``--set stratstone.stone.height_mm=9`` (parsed by the field's type).

Every check raises :class:`~stratstone_cad.errors.ParameterError` with a one-line
message naming the parameter, the value and what was expected. Unknown names are
rejected with the closest valid name.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any, NoReturn

from stratstone_cad.errors import ParameterError, short_repr

#: One extrusion width of a 0.4 mm nozzle; walls must be at least two of them.
EXTRUSION_WIDTH_MM = 0.4
MIN_WALL_MM = 2 * EXTRUSION_WIDTH_MM


def param(
    doc: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] | None = None,
    length: int | None = None,
    follows: str | None = None,
) -> Any:
    """A dataclass field with its description, range or choices in the metadata. It has no
    default: the defaults live in one place, the presets (each game's ``preset.toml``,
    ``base/presets/*.toml``), and a preset that leaves a field out is refused, except a field
    that ``follows`` a shared one (``"fit.joint_clearance_mm"``): left out, it takes that
    field's value (:func:`~stratstone_cad.base.overrides.resolve`), so one measurement sets
    every board's, and a value given to the field itself overrides it."""
    return field(metadata={"doc": doc, "lo": lo, "hi": hi, "choices": choices, "length": length, "follows": follows})


def field_expected(f: dataclasses.Field) -> str:
    """What a parameter's value must be, in the words of its messages ("a number from 3 to
    25", "one of ring, cross, bars"): the CLI's one-line errors and the studio's controls."""
    m = f.metadata
    kind = field_kind(f)
    if kind == "str":
        return "one of " + ", ".join(m["choices"]) if m.get("choices") else "a text (\"\" for none)"
    if kind == "list":
        n = m.get("length")
        what = f"a list of {n} names" if n else "a list of names"
        if m.get("choices"):
            what += " from " + ", ".join(m["choices"])
        return what
    if kind == "bool":
        return "true or false"
    lo, hi = m.get("lo"), m.get("hi")
    word = "an integer" if kind == "int" else "a number"
    if lo is not None and hi is not None:
        return f"{word} from {fmt(lo)} to {fmt(hi)}"
    if lo is not None:
        return f"{word} of at least {fmt(lo)}"
    return word


def fmt(x: float) -> str:
    """A number as a user would write it: 36, 0.6, 2147483647 (no exponent for integers)."""
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return str(int(x))
    return f"{x:.6g}"


def fmt_up(x: float) -> str:
    """A lower limit for a message, rounded up to 0.001 so the limit itself passes."""
    return fmt(math.ceil(round(x * 1000, 6)) / 1000)


def fmt_down(x: float) -> str:
    """An upper limit for a message, rounded down to 0.001 so the limit itself passes."""
    return fmt(math.floor(round(x * 1000, 6)) / 1000)


TOL = 1e-9  # slack for comparing derived limits, so a value equal to its limit passes


def field_kind(f: dataclasses.Field) -> str:
    """A parameter's kind from its annotation: "float", "int", "bool", "str" or "list"."""
    t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    t = t.replace(" ", "")
    if t.startswith("list"):
        return "list"
    return {"float": "float", "int": "int", "bool": "bool", "str": "str"}[t]


class Params:
    """Mixin for parameter dataclasses: range checks, coercion, description."""

    #: dotted prefix of this object's parameters, e.g. ``stratstone.stone``
    PREFIX = ""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = _coerce(f, getattr(self, f.name), f"{self.PREFIX}.{f.name}")
            object.__setattr__(self, f.name, value)
        # The checks are pure functions of the fields: a success is remembered under the
        # fields and the code of the class's module (stratstone_cad.base.memo), as the label and
        # mark checks draw with shapely and the font, most of an unchanged rebuild's time.
        from stratstone_cad.base.memo import remembered

        remembered("check", (type(self).__module__,), self, lambda: self.check() or True)

    def check(self) -> None:
        """Derived constraints between fields of this object (override)."""

    def fail(self, name: str, value: Any, expected: str, instead: str = "") -> NoReturn:
        """Refuse ``name``: ``expected`` says what it should be. A bound that ``name`` itself
        cannot reach (``at least 71`` for a field of at most 60) is said to be out of its
        range, with ``instead``: what else to change.

        Raises:
            ParameterError: always: it is the parameter's one-line error.
        """
        bound = re.match(r"at (least|most) (-?[0-9]+(?:\.[0-9]+)?)", expected)
        meta = self.__dataclass_fields__[name].metadata  # type: ignore[attr-defined]
        lo, hi = meta.get("lo"), meta.get("hi")
        if bound:
            x = float(bound[2])
            side = "most" if bound[1] == "least" else "least"
            limit = hi if bound[1] == "least" else lo
            if limit is not None and (x > limit + TOL if bound[1] == "least" else x < limit - TOL):
                expected += (f"; {name} is at {side} {fmt(limit)}, so "
                             f"{instead or 'change the other values named here'}")
        raise ParameterError(f"{self.PREFIX}.{name} = {show_value(value)}: expected {expected}")

    @classmethod
    def field_docs(cls) -> list[tuple[str, str, str]]:
        """(dotted name, expected, description) for every field."""
        return [(f"{cls.PREFIX}.{f.name}", field_expected(f), f.metadata["doc"])
                for f in dataclasses.fields(cls)]  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]


def show_value(value: Any) -> str:
    """A value for a message, cut short so a crafted one cannot flood the terminal: a
    text as :func:`~stratstone_cad.errors.short_repr` quotes it, a whole number of more than 18 digits by its
    length (``str()`` of a 5000-digit int even raises)."""
    if isinstance(value, str):
        return short_repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):  # as given: the shortest text that reads back as this number
        return fmt(value) if value.is_integer() or not math.isfinite(value) else repr(value)
    if isinstance(value, int) and abs(value) >= 10**18:
        digits = int(abs(value).bit_length() * math.log10(2)) + 1
        return f"a whole number of about {digits} digits"
    if isinstance(value, list | tuple):
        more = f", ... ({len(value)} items)" if len(value) > 8 else ""
        return "[" + ", ".join(show_value(v) for v in value[:8]) + more + "]"
    if isinstance(value, dict):
        return "a table" if value else "an empty table"
    return str(value)


def _coerce(f: dataclasses.Field, value: Any, name: str) -> Any:
    """Check a value against a field's type and range; returns the typed value."""
    kind = field_kind(f)
    m = f.metadata
    expected = field_expected(f)

    def bad() -> ParameterError:
        return ParameterError(f"{name} = {show_value(value)}: expected {expected}")

    if kind == "bool":
        if not isinstance(value, bool):
            raise bad()
        return value
    if kind == "str":
        if not isinstance(value, str) or (m.get("choices") and value not in m["choices"]):
            raise bad()
        if not value.isprintable():  # a path or a name: a NUL or a newline in it is a mistake, never meant
            bad_char = next(ch for ch in value if not ch.isprintable())
            raise ParameterError(f"{name} = {show_value(value)}: expected a text without control characters "
                                 f"(it has {bad_char!r})")
        return value
    if kind == "list":
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v for v in value):
            raise bad()
        if m.get("length") is not None and len(value) != m["length"]:
            raise bad()
        if m.get("choices") and any(v not in m["choices"] for v in value):
            raise bad()
        return list(value)
    # numbers
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise bad()
    if kind == "int":
        if isinstance(value, float):
            if not value.is_integer():
                raise bad()
            value = int(value)
    else:
        try:
            value = float(value)
        except OverflowError:  # an int beyond a float's range
            raise bad() from None
        if not math.isfinite(value):
            raise bad()
    lo, hi = m.get("lo"), m.get("hi")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise bad()
    return value


# --------------------------------------------------------------------------- layer snapping


@dataclass(frozen=True)
class Profile:
    """A print profile: where the slicer puts layer boundaries."""

    name: str
    layer_height_mm: float
    first_layer_height_mm: float


def snap_height(z_mm: float, profile: Profile, minimum_layers: int = 1) -> float:
    """The layer boundary nearest ``z_mm`` (at least ``minimum_layers`` above the bed).

    Boundaries are ``first + n * layer`` for n >= 0. Returns mm, rounded to 1e-6 so
    repeated snapping is stable. Every model puts its horizontal faces on such
    boundaries, so the slicer never rounds a recess, a plateau or an engraving floor up
    or down by a partial layer.
    """
    first, layer = profile.first_layer_height_mm, profile.layer_height_mm
    n = max(minimum_layers - 1, round((z_mm - first) / layer))
    return round(first + n * layer, 6)


def snap_depth(depth_mm: float, profile: Profile, minimum_layers: int = 1) -> float:
    """A depth measured down from a layer boundary: a whole number of layers (mm)."""
    layer = profile.layer_height_mm
    return round(max(minimum_layers, round(depth_mm / layer)) * layer, 6)


def on_layer_boundary(z_mm: float, profile: Profile, tol: float = 1e-4) -> bool:
    """Whether a height lies on a layer boundary of ``profile`` (z = 0 is the bed)."""
    if abs(z_mm) < tol:
        return True
    above = z_mm - profile.first_layer_height_mm  # mm above the first layer's top
    n = above / profile.layer_height_mm
    return above > -tol and abs(n - round(n)) * profile.layer_height_mm < tol


# --------------------------------------------------------------------------- shared checks

#: Names that become parts of file names (colours): lower-case letters, digits, - and _.
NAME_MAX = 32
NAME_RE = re.compile(rf"[a-z][a-z0-9_-]{{0,{NAME_MAX - 1}}}")


def check_names(obj: Params, name: str, values: list[str], count_word: str) -> None:
    """Colour names name files: they must be simple and different from each other."""
    if not all(NAME_RE.fullmatch(c) for c in values):
        obj.fail(name, values, f"names of lower-case letters, digits, '-' or '_', each beginning with a letter and at "
                               f"most {NAME_MAX} characters long (they name files)")
    if len(set(values)) != len(values):
        obj.fail(name, values, f"{count_word} different names")


# --------------------------------------------------------------------------- meshing


@dataclass(frozen=True)
class MeshParams(Params):
    """How CAD solids become triangles."""

    PREFIX = "mesh"

    tolerance_mm: float = param("largest distance of the mesh from the true surface", lo=0.001, hi=1)
    angular_tolerance_deg: float = param("largest turn of a curved surface within one facet (neighbouring "
                                         "facets of a smooth side then differ by 8 degrees at most)", lo=1, hi=45)


# --------------------------------------------------------------------------- fits


@dataclass(frozen=True)
class FitParams(Params):
    """The fits one printer decides for every set alike (``build fit-test`` prints them at
    three clearances): each game's field that ``follows`` one of these takes its value
    unless that field is given its own."""

    PREFIX = "fit"

    joint_clearance_mm: float = param("gap between a dovetail and its socket, per side: every board's tile "
                                      "joints and the kit frame's (a board's own joint_clearance_mm overrides it)",
                                      lo=0.05, hi=1)


# --------------------------------------------------------------------------- print plates

IRONING = ("topmost", "top", "none")
SEAMS = ("rear", "aligned", "nearest", "random")


@dataclass(frozen=True)
class PlateParams(Params):
    """Print plates (``build --plates``): one 3MF per print job, its settings embedded."""

    PREFIX = "plates"

    spacing_mm: float = param("gap between neighbouring parts on a plate", lo=2, hi=50)
    piece_ironing: str = param("ironing of the pieces (stones, gems, terrain pieces): the topmost "
                               "surface of each, every top surface, or none", choices=IRONING)
    board_ironing: str = param("ironing of the boards (every top surface of the Stratstone board adds "
                               "about 5 h)", choices=IRONING)
    seam: str = param("where each layer's outer wall starts and ends: at the back of each part in a line, "
                      "aligned where the slicer finds it least visible, nearest the last move, or random",
                      choices=SEAMS)
    adaptive_layers: bool = param("stones and gems at variable layer heights: thin where the surface is "
                                  "shallow, thick on steep sides, every flat face on a layer top")
    adaptive_step_mm: float = param("largest step an adaptive layer may leave on a sloped surface (a layer "
                                    "h thick leaves h x the slope's cosine)", lo=0.02, hi=0.3)
    adaptive_min_layer_mm: float = param("thinnest adaptive layer", lo=0.05, hi=0.15)
    adaptive_max_layer_mm: float = param("thickest adaptive layer", lo=0.15, hi=0.3)

    def check(self) -> None:
        if self.adaptive_min_layer_mm > self.adaptive_max_layer_mm - 0.01 + TOL:
            self.fail("adaptive_min_layer_mm", self.adaptive_min_layer_mm,
                      f"at most {fmt_down(self.adaptive_max_layer_mm - 0.01)} (below adaptive_max_layer_mm)")

