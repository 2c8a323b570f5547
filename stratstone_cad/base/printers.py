"""Printers (the bed a part must fit) and print profiles (the layer heights), read from
the shared presets (``base/presets/printers.toml`` and ``profiles.toml``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stratstone_cad.base.params import Profile
from stratstone_cad.base.preset_files import PRESETS_DIR, load_toml
from stratstone_cad.errors import ParameterError, did_you_mean, short_repr


@dataclass(frozen=True)
class Printer:
    """A printer bed: the area a single part (or tile) must fit."""

    name: str
    title: str
    bed_x_mm: float
    bed_y_mm: float
    margin_mm: float
    bed_z_mm: float = math.inf  # the build height: the tallest part it prints

    @property
    def usable_mm(self) -> tuple[float, float]:
        """Bed size minus the margin on every side, in mm."""
        return (self.bed_x_mm - 2 * self.margin_mm, self.bed_y_mm - 2 * self.margin_mm)


#: A bed that holds anything whole: a plan for it cuts no board into tiles and refuses no
#: part for its size. The viewer's previews use it, and ``models`` for ``printer=None``.
NO_PRINTER = Printer("none", "no printer: parts whole", 1e6, 1e6, 0.0, 1e6)


def load_printers(presets_dir: Path = PRESETS_DIR) -> dict[str, Printer]:
    data = load_toml(presets_dir / "printers.toml", "printer presets")
    return {
        name: Printer(name, t["title"], float(t["bed_x_mm"]), float(t["bed_y_mm"]), float(t["margin_mm"]),
                      float(t["bed_z_mm"]))
        for name, t in data["printer"].items()
    }


def default_printer(presets_dir: Path = PRESETS_DIR) -> str:
    return load_toml(presets_dir / "printers.toml", "printer presets")["default"]


def get_printer(name: str | None, presets_dir: Path = PRESETS_DIR) -> Printer:
    """The printer named ``name`` (the default printer for None).

    Raises:
        ParameterError: no printer has that name.
    """
    printers = load_printers(presets_dir)
    name = default_printer(presets_dir) if name is None else name
    if name not in printers:
        raise ParameterError(f"printer {short_repr(name)}: unknown, expected {_one_of(name, printers)}")
    return printers[name]


def load_profiles(presets_dir: Path = PRESETS_DIR) -> dict[str, Profile]:
    data = load_toml(presets_dir / "profiles.toml", "print profiles")
    return {
        name: Profile(name, float(t["layer_height_mm"]), float(t["first_layer_height_mm"]))
        for name, t in data["profile"].items()
    }


def _one_of(value: str, names: Any) -> str:
    names = sorted(names)
    return "one of " + ", ".join(names) + did_you_mean(value, names)
