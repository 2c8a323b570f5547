"""Typed parameter objects, presets from models/*.toml, overrides and validation.

A model's parameters are one frozen dataclass. Each field carries its unit (in its
name: ``height_mm``), its allowed range or choices and a one-line description in the
field metadata. Defaults live in ``models/<game>.toml``; the dataclass defaults are
only the schema's fallback and are kept equal to the presets by a test.

Overrides come in two forms, both addressed by dotted names:

* ``--set stratstone.stone.height_mm=9`` (one value, parsed by the field's type)
* ``--params FILE.toml`` (a TOML file with the same ``[stratstone.stone]`` tables)

Every check raises :class:`~stratstone_cad.errors.ParameterError` with a one-line
message naming the parameter, the value and what was expected. Unknown names are
rejected with the closest valid name.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from .cad.glyphs import MARKS, mark_diameter
from .errors import ParameterError

#: The presets folder shipped with the package (models/ at the project root).
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"

#: One extrusion width of a 0.4 mm nozzle; walls must be at least two of them.
EXTRUSION_WIDTH_MM = 0.4
MIN_WALL_MM = 2 * EXTRUSION_WIDTH_MM


def param(
    default: Any,
    doc: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] | None = None,
    length: int | None = None,
) -> Any:
    """A dataclass field with its description, range or choices in the metadata."""
    meta = {"doc": doc, "lo": lo, "hi": hi, "choices": choices, "length": length}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


def _describe_expected(f: dataclasses.Field) -> str:
    m = f.metadata
    kind = _kind(f)
    if m.get("choices") and kind == "str":
        return "one of " + ", ".join(m["choices"])
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
        return f"{word} from {_fmt(lo)} to {_fmt(hi)}"
    if lo is not None:
        return f"{word} of at least {_fmt(lo)}"
    return word


def _fmt(x: float) -> str:
    """A number as a user would write it: 36, 0.6, 2147483647 (no exponent for integers)."""
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return str(int(x))
    return f"{x:.6g}"


def fmt_up(x: float) -> str:
    """A lower limit for a message, rounded up to 0.001 so the limit itself passes."""
    return _fmt(math.ceil(round(x * 1000, 6)) / 1000)


def fmt_down(x: float) -> str:
    """An upper limit for a message, rounded down to 0.001 so the limit itself passes."""
    return _fmt(math.floor(round(x * 1000, 6)) / 1000)


TOL = 1e-9  # slack for comparing derived limits, so a value equal to its limit passes


def _kind(f: dataclasses.Field) -> str:
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
        self.check()

    def check(self) -> None:
        """Derived constraints between fields of this object (override)."""

    def fail(self, name: str, value: Any, expected: str) -> NoReturn:
        raise ParameterError(f"{self.PREFIX}.{name} = {_show(value)}: expected {expected}")

    @classmethod
    def describe(cls) -> list[tuple[str, Any, str, str]]:
        """(dotted name, default, expected, description) for every field."""
        rows = []
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
            rows.append((f"{cls.PREFIX}.{f.name}", default, _describe_expected(f), f.metadata["doc"]))
        return rows

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _fmt(value)
    return str(value)


def _coerce(f: dataclasses.Field, value: Any, name: str) -> Any:
    """Check a value against a field's type and range; returns the typed value."""
    kind = _kind(f)
    m = f.metadata
    expected = _describe_expected(f)

    def bad() -> ParameterError:
        return ParameterError(f"{name} = {_show(value)}: expected {expected}")

    if kind == "bool":
        if not isinstance(value, bool):
            raise bad()
        return value
    if kind == "str":
        if not isinstance(value, str) or (m.get("choices") and value not in m["choices"]):
            raise bad()
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
        value = float(value)
        if not math.isfinite(value):
            raise bad()
    lo, hi = m.get("lo"), m.get("hi")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise bad()
    return value


def parse_text_value(f: dataclasses.Field, text: str, name: str) -> Any:
    """Parse the text of ``--set name=text`` by the field's type."""
    kind = _kind(f)
    t = text.strip()
    if kind == "bool":
        low = t.lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise ParameterError(f"{name} = {t!r}: expected true or false")
    if kind == "str":
        return t
    if kind == "list":
        return [p.strip() for p in t.split(",") if p.strip()]
    try:
        return int(t) if kind == "int" else float(t)
    except ValueError:
        raise ParameterError(f"{name} = {t!r}: expected {_describe_expected(f)}") from None


# --------------------------------------------------------------------------- presets


def _load_toml(path: Path, what: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.loads(fh.read().decode("utf-8-sig"))
    except FileNotFoundError:
        raise ParameterError(f"{what} {path}: file not found") from None
    except IsADirectoryError:
        raise ParameterError(f"{what} {path}: is a folder, expected a TOML file") from None
    except PermissionError:
        raise ParameterError(f"{what} {path}: permission denied") from None
    except UnicodeDecodeError:
        raise ParameterError(f"{what} {path}: not UTF-8 text, expected a TOML file") from None
    except tomllib.TOMLDecodeError as e:
        raise ParameterError(f"{what} {path}: invalid TOML ({e})") from None


def flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}`` (lists stay values)."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out.update(flatten(v, key))
        else:
            out[key] = v
    return out


@dataclass(frozen=True)
class Printer:
    """A printer bed: the area a single part (or tile) must fit."""

    name: str
    title: str
    bed_x_mm: float
    bed_y_mm: float
    margin_mm: float

    @property
    def usable_mm(self) -> tuple[float, float]:
        """Bed size minus the margin on every side, in mm."""
        return (self.bed_x_mm - 2 * self.margin_mm, self.bed_y_mm - 2 * self.margin_mm)


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
    n = (z_mm - profile.first_layer_height_mm) / profile.layer_height_mm
    return n > -tol and abs(n - round(n)) * profile.layer_height_mm < tol


def load_printers(models_dir: Path = MODELS_DIR) -> dict[str, Printer]:
    data = _load_toml(models_dir / "printers.toml", "printer presets")
    return {
        name: Printer(name, t["title"], float(t["bed_x_mm"]), float(t["bed_y_mm"]), float(t["margin_mm"]))
        for name, t in data["printer"].items()
    }


def default_printer(models_dir: Path = MODELS_DIR) -> str:
    return _load_toml(models_dir / "printers.toml", "printer presets")["default"]


def get_printer(name: str | None, models_dir: Path = MODELS_DIR) -> Printer:
    printers = load_printers(models_dir)
    name = default_printer(models_dir) if name is None else name
    if name not in printers:
        raise ParameterError(f"printer {name!r}: unknown, expected {_one_of(name, printers)}")
    return printers[name]


def load_profiles(models_dir: Path = MODELS_DIR) -> dict[str, Profile]:
    data = _load_toml(models_dir / "profiles.toml", "print profiles")
    return {
        name: Profile(name, float(t["layer_height_mm"]), float(t["first_layer_height_mm"]))
        for name, t in data["profile"].items()
    }


def _one_of(value: str, names: Any) -> str:
    names = sorted(names)
    close = difflib.get_close_matches(value, names, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return "one of " + ", ".join(names) + hint


# --------------------------------------------------------------------------- overrides


def parse_set(items: list[str]) -> dict[str, str]:
    """``["a.b=1", ...]`` -> ``{"a.b": "1"}``; a missing ``=`` is an error."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ParameterError(f"--set {item!r}: expected NAME=VALUE, e.g. stratstone.stone.height_mm=9")
        out[name.strip()] = value
    return out


def resolve(
    schema: dict[str, type[Params]],
    preset_files: list[Path],
    params_file: Path | None = None,
    sets: dict[str, str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Merge presets, a ``--params`` file and ``--set`` overrides into raw field values.

    ``schema`` maps a prefix (``"stratstone.stone"``) to its Params class. Returns
    ``{prefix: {field: value}}``, not yet constructed (constructing checks them).
    Unknown names anywhere raise ParameterError with the closest valid name.
    """
    fields = {}
    for prefix, cls in schema.items():
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            fields[f"{prefix}.{f.name}"] = (prefix, f)
    values: dict[str, dict[str, Any]] = {p: {} for p in schema}

    def put(key: str, value: Any, source: str, from_text: bool) -> None:
        if key not in fields:
            close = difflib.get_close_matches(key, list(fields), n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise ParameterError(f"unknown parameter {key!r} in {source}{hint}")
        prefix, f = fields[key]
        if from_text:
            value = parse_text_value(f, value, key)
        values[prefix][f.name] = value

    for path in preset_files:
        for key, value in flatten(_load_toml(path, "preset")).items():
            put(key, value, str(path), False)
    if params_file is not None:
        for key, value in flatten(_load_toml(params_file, "--params file")).items():
            put(key, value, str(params_file), False)
    for key, text in (sets or {}).items():
        put(key, text, "--set", True)
    return values


# --------------------------------------------------------------------------- Stratstone

_NAME_RE = re.compile(r"[a-z][a-z0-9_-]{0,31}")


@dataclass(frozen=True)
class StratstoneBoard(Params):
    """The Stratstone board: square cells with a recess each, a rim with coordinates."""

    PREFIX = "stratstone.board"

    cells: int = param(4, "cells per side (files a.., ranks 1..)", lo=2, hi=8)
    cell_pitch_mm: float = param(36.0, "centre-to-centre distance of two cells", lo=10, hi=120)
    rim_width_mm: float = param(12.0, "width of the rim around the cells, carries the coordinates", lo=4, hi=60)
    thickness_mm: float = param(4.8, "board height, snapped to the board profile's layers", lo=1.5, hi=30)
    recess_depth_mm: float = param(1.5, "depth of a cell's recess, snapped to whole layers", lo=0.3, hi=10)
    clearance_mm: float = param(0.6, "gap between the largest stone and its recess, per side", lo=0.1, hi=5)
    corner_radius_mm: float = param(4.0, "radius of the board's outer corners", lo=0, hi=30)
    label_height_mm: float = param(7.0, "height of the engraved coordinates", lo=2.5, hi=30)
    label_stroke_mm: float = param(1.0, "line width of the engraved coordinates (two 0.4 mm extrusions at least)",
                                   lo=MIN_WALL_MM, hi=4)
    engrave_depth_mm: float = param(0.6, "depth of the engraved coordinates, snapped to whole layers", lo=0.3, hi=3)
    joint_clearance_mm: float = param(0.2, "gap between a dovetail and its socket when tiled, per side", lo=0.05, hi=1)
    joint_width_mm: float = param(9.0, "width of a tile joint's dovetail head", lo=4, hi=40)
    joint_length_mm: float = param(5.0, "how far a dovetail reaches into the next tile", lo=2, hi=20)

    def check(self) -> None:
        ink = self.label_height_mm + self.label_stroke_mm  # a digit's height on the board
        if ink + 2 * MIN_WALL_MM > self.rim_width_mm + TOL:
            self.fail("label_height_mm", self.label_height_mm,
                      f"at most {fmt_down(self.rim_width_mm - self.label_stroke_mm - 2 * MIN_WALL_MM)} to leave "
                      f"{MIN_WALL_MM:g} mm walls beside the labels on the {_fmt(self.rim_width_mm)} mm rim "
                      "(stratstone.board.rim_width_mm)")
        if ink + MIN_WALL_MM > self.cell_pitch_mm + TOL:
            self.fail("label_height_mm", self.label_height_mm,
                      f"at most {fmt_down(self.cell_pitch_mm - self.label_stroke_mm - MIN_WALL_MM)} so neighbouring "
                      f"labels stay {MIN_WALL_MM:g} mm apart (stratstone.board.cell_pitch_mm "
                      f"{_fmt(self.cell_pitch_mm)})")
        # The bowl of an "a", "b" or "d" is half the label height wide: its island must print.
        if 0.5 * self.label_height_mm - self.label_stroke_mm < MIN_WALL_MM - TOL:
            self.fail("label_height_mm", self.label_height_mm,
                      f"at least {fmt_up(2 * (self.label_stroke_mm + MIN_WALL_MM))} with "
                      f"{_fmt(self.label_stroke_mm)} mm strokes, so the inside of an a, b or d prints")
        if self.recess_depth_mm > self.thickness_mm - 1.0 + TOL:
            self.fail("recess_depth_mm", self.recess_depth_mm,
                      f"at most {fmt_down(self.thickness_mm - 1.0)} to leave a 1 mm floor under the "
                      f"{_fmt(self.thickness_mm)} mm board (stratstone.board.thickness_mm)")
        if self.engrave_depth_mm > self.thickness_mm - 1.0 + TOL:
            self.fail("engrave_depth_mm", self.engrave_depth_mm, f"at most {fmt_down(self.thickness_mm - 1.0)}")
        if self.corner_radius_mm > self.rim_width_mm + TOL:
            self.fail("corner_radius_mm", self.corner_radius_mm, f"at most the rim width {_fmt(self.rim_width_mm)}")

    @property
    def size_mm(self) -> float:
        """Outer side length of the board."""
        return self.cells * self.cell_pitch_mm + 2 * self.rim_width_mm

    def cell_centre(self, file: int, rank: int) -> tuple[float, float]:
        """Centre (x, y) in mm of a cell; file 0 = a (left), rank 0 = 1 (bottom)."""
        return (self.rim_width_mm + (file + 0.5) * self.cell_pitch_mm,
                self.rim_width_mm + (rank + 0.5) * self.cell_pitch_mm)

    def wall_lines_mm(self) -> list[float]:
        """Positions of the walls between cells (the same along x and y)."""
        return [self.rim_width_mm + k * self.cell_pitch_mm for k in range(1, self.cells)]


@dataclass(frozen=True)
class StratstoneStones(Params):
    """The 24 pebble stones: three colour sets of organic, stackable shapes."""

    PREFIX = "stratstone.stone"

    footprint_mm: float = param(30.0, "largest width of a stone seen from above", lo=10, hi=80)
    min_scale: float = param(0.88, "smallest stone's width as a fraction of footprint_mm", lo=0.6, hi=1)
    height_mm: float = param(7.4, "average stone height, each snapped to the piece profile's layers", lo=3, hi=25)
    height_variation_mm: float = param(0.6, "stone heights spread by up to this much either way", lo=0, hi=5)
    plateau_fraction: float = param(0.55, "flat top area over footprint area (stacks need 0.5)", lo=0.5, hi=0.9)
    irregularity: float = param(0.07, "how far a pebble's outline wanders from an ellipse (fraction of radius)",
                                lo=0, hi=0.15)
    elongation: float = param(0.15, "up to how much shorter a pebble's narrow axis is (fraction)", lo=0, hi=0.35)
    seed: int = param(2024, "seed of the pebble shapes; the same seed gives the same stones", lo=0, hi=2**31 - 1)
    per_colour: int = param(8, "stones per colour set", lo=1, hi=16)
    colours: list[str] = param(["yellow", "red", "tan"], "names of the three colour sets (players first, neutral last)",
                               length=3)
    mark: bool = param(True, "engrave a set mark on every stone's top")
    marks: list[str] = param(["ring", "cross", "bar"], "mark of each colour set", length=3, choices=MARKS)
    mark_size_mm: float = param(8.0, "width of the set mark", lo=3, hi=30)
    mark_stroke_mm: float = param(1.2, "line width of the set mark (two 0.4 mm extrusions at least)",
                                  lo=MIN_WALL_MM, hi=4)
    mark_depth_mm: float = param(0.45, "depth of the set mark, snapped to whole layers", lo=0.15, hi=3)

    def check(self) -> None:
        if not all(_NAME_RE.fullmatch(c) for c in self.colours):
            self.fail("colours", self.colours, "names of lower-case letters, digits, '-' or '_' (they name files)")
        if len(set(self.colours)) != len(self.colours):
            self.fail("colours", self.colours, "three different names")
        low = self.height_mm - self.height_variation_mm
        if low < 2.0 - TOL:
            self.fail("height_variation_mm", self.height_variation_mm,
                      f"at most {fmt_down(self.height_mm - 2.0)} so the lowest stone stays 2 mm high")
        if not self.mark:
            return
        shown = [m for m in self.marks if m != "none"]
        if len(set(shown)) != len(shown):
            self.fail("marks", self.marks, "a different mark for each set (\"none\" for an unmarked set)")
        if self.mark_depth_mm > low - 1.0 + TOL:
            self.fail("mark_depth_mm", self.mark_depth_mm,
                      f"at most {fmt_down(low - 1.0)} (1 mm under the lowest stone's mark)")
        if "ring" in self.marks and 0.8 * self.mark_size_mm - self.mark_stroke_mm < MIN_WALL_MM - TOL:
            self.fail("mark_stroke_mm", self.mark_stroke_mm,
                      f"at most {fmt_down(0.8 * self.mark_size_mm - MIN_WALL_MM)} so the ring's centre "
                      f"({_fmt(self.mark_size_mm)} mm mark) stays {MIN_WALL_MM:g} mm wide")
        # The narrowest plateau: the smallest, most elongated stone with the deepest outline
        # dent; the mark's outline (strokes included) keeps a wall to its edge.
        narrowest = self.footprint_mm * self.min_scale * (1 - self.elongation) * (1 - 2 * self.irregularity)
        plateau_width = narrowest * math.sqrt(self.plateau_fraction)
        reach = max((mark_diameter(m, self.mark_size_mm, self.mark_stroke_mm) for m in shown), default=0.0)
        room = plateau_width - 2 * MIN_WALL_MM
        if reach > room + TOL:
            def largest(kind: str) -> float:  # a mark's diameter is a * size + c (the strokes add c)
                one = mark_diameter(kind, 1.0, self.mark_stroke_mm)
                a = mark_diameter(kind, 2.0, self.mark_stroke_mm) - one
                return (room - (one - a)) / a

            most = min(largest(m) for m in set(shown))
            hint = "" if most >= 3 else " (or stratstone.stone.mark = false)"
            self.fail("mark_size_mm", self.mark_size_mm,
                      f"at most {fmt_down(most)} to fit the smallest stone's top plateau with "
                      f"{MIN_WALL_MM:g} mm to spare{hint}")


@dataclass(frozen=True)
class StratstoneParams:
    """Board and stones together, with the constraints between them."""

    board: StratstoneBoard
    stone: StratstoneStones

    def __post_init__(self) -> None:
        recess = self.stone.footprint_mm + 2 * self.board.clearance_mm
        wall = self.board.cell_pitch_mm - recess
        if wall < MIN_WALL_MM - TOL:
            need = recess + MIN_WALL_MM
            raise ParameterError(
                f"stratstone.board.cell_pitch_mm = {_fmt(self.board.cell_pitch_mm)}: expected at least {fmt_up(need)} "
                f"(stone footprint {_fmt(self.stone.footprint_mm)} + 2 x clearance {_fmt(self.board.clearance_mm)} "
                f"+ a {MIN_WALL_MM:g} mm wall, two 0.4 mm extrusions)")

    @property
    def recess_diameter_mm(self) -> float:
        return self.stone.footprint_mm + 2 * self.board.clearance_mm

    def check_layers(self, board: Profile, piece: Profile) -> None:
        """Constraints on the snapped heights (what is printed, not what was asked for)."""
        b, s = self.board, self.stone
        top = snap_height(b.thickness_mm, board, minimum_layers=3)
        for name, depth in (("recess_depth_mm", b.recess_depth_mm), ("engrave_depth_mm", b.engrave_depth_mm)):
            floor = top - snap_depth(depth, board)
            if floor < 1.0 - TOL:
                raise ParameterError(
                    f"stratstone.board.{name} = {_fmt(depth)}: expected at most {fmt_down(top - 1.0)}; it snaps to "
                    f"{_fmt(snap_depth(depth, board))} mm in the {_fmt(top)} mm board (whole {_fmt(board.layer_height_mm)}"
                    f" mm layers), leaving {_fmt(round(floor, 6))} mm under it, expected at least 1 mm")
        if s.mark:
            lowest = snap_height(s.height_mm - s.height_variation_mm, piece, minimum_layers=4)
            depth = snap_depth(s.mark_depth_mm, piece)
            if lowest - depth < 1.0 - TOL:
                raise ParameterError(
                    f"stratstone.stone.mark_depth_mm = {_fmt(s.mark_depth_mm)}: expected at most "
                    f"{fmt_down(lowest - 1.0)}; the lowest stone is {_fmt(lowest)} mm after snapping to the layers")


STRATSTONE_SCHEMA: dict[str, type[Params]] = {
    "stratstone.board": StratstoneBoard,
    "stratstone.stone": StratstoneStones,
}


# --------------------------------------------------------------------------- meshing


@dataclass(frozen=True)
class MeshParams(Params):
    """How CAD solids become triangles."""

    PREFIX = "mesh"

    tolerance_mm: float = param(0.05, "largest distance of the mesh from the true surface", lo=0.001, hi=1)
    angular_tolerance_deg: float = param(12.0, "largest angle between neighbouring facets of a curve", lo=1, hi=45)


SCHEMA: dict[str, type[Params]] = {**STRATSTONE_SCHEMA, "mesh": MeshParams}
PRESET_FILES = ("stratstone.toml", "mesh.toml")


@dataclass(frozen=True)
class ParamSet:
    """Every model's parameters, checked: presets + ``--params`` file + ``--set``."""

    stratstone: StratstoneParams
    mesh: MeshParams

    def section(self, prefix: str) -> dict[str, Any]:
        """The plain values of one section, e.g. ``"stratstone.stone"`` (for cache keys)."""
        obj: Any = self
        for part in prefix.split("."):
            obj = getattr(obj, part)
        return obj.as_dict()


def load_params(params_file: Path | None = None, sets: dict[str, str] | None = None,
                models_dir: Path = MODELS_DIR) -> ParamSet:
    """Load and check every parameter; raises ParameterError naming the first bad one."""
    raw = resolve(SCHEMA, [models_dir / f for f in PRESET_FILES], params_file, sets)
    ps = ParamSet(
        stratstone=StratstoneParams(board=StratstoneBoard(**raw["stratstone.board"]),
                                    stone=StratstoneStones(**raw["stratstone.stone"])),
        mesh=MeshParams(**raw["mesh"]),
    )
    profiles = load_profiles(models_dir)
    ps.stratstone.check_layers(profiles["board"], profiles["piece"])
    return ps
