"""What PrusaSlicer says of a print plate: its print time, filament and layers, read from
the G-code its command line writes (``build --plates --report``).

The plate is sliced as a user would open it: PrusaSlicer's own defaults (a 0.4 mm nozzle)
for everything the plate does not say, the plate's settings (layer heights, ironing,
variable layer profiles, filament density for the grams), the chosen printer's bed, and
the parts where the plate puts them (``--dont-arrange``). The numbers are PrusaSlicer's
estimate (its "normal mode" time), not a measurement.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from stratstone_cad.base.params import Printer
from stratstone_cad.base.processes import die_with_parent
from stratstone_cad.errors import BuildError

__all__ = ["SliceStats", "find_prusaslicer", "slice_plate", "slicer_identity", "slicer_version"]

TIMEOUT_S = 900  # the largest board plate takes about 10 s on 2 cores


@dataclass(frozen=True)
class SliceStats:
    """PrusaSlicer's figures for one plate."""

    time_s: int
    filament_mm: float
    filament_g: float
    layers: int
    ironed: bool

    def as_dict(self) -> dict[str, float | int | bool]:
        return {"time_s": self.time_s, "filament_m": round(self.filament_mm / 1000, 3),
                "filament_g": round(self.filament_g, 2), "layers": self.layers, "ironed": self.ironed}


def find_prusaslicer() -> str | None:
    """The PrusaSlicer command line (``$STRATSTONE_PRUSA_SLICER`` or ``prusa-slicer`` on the PATH)."""
    return os.environ.get("STRATSTONE_PRUSA_SLICER") or shutil.which("prusa-slicer")


def _run(exe: str, args: list[str], what: str) -> str:
    env = {**os.environ, "HOME": os.environ.get("HOME", tempfile.gettempdir())}
    try:
        r = subprocess.run([exe, *args], capture_output=True, text=True, timeout=TIMEOUT_S, env=env,
                           stdin=subprocess.DEVNULL, errors="replace",
                           preexec_fn=die_with_parent)  # the kernel kills the slicer when the build goes
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BuildError(f"{what}: PrusaSlicer ({exe}) did not run ({type(e).__name__}: {e})"[:300]) from None
    if r.returncode != 0:
        tail = " ".join((r.stderr or r.stdout).split()[-30:])
        raise BuildError(f"{what}: PrusaSlicer ({exe}) failed with exit code {r.returncode}: {tail}"[:400])
    return r.stdout


def slicer_identity(exe: str) -> str:
    """Which slicer program ``exe`` is, without running it: its resolved path, size and
    modification time (running ``--help`` for its version takes a tenth of a second)."""
    try:
        path = os.path.realpath(exe)
        st = os.stat(path)
    except OSError:
        return exe
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def slicer_version(exe: str) -> str:
    """``PrusaSlicer-2.5.0+UNKNOWN``: what the figures came from."""
    out = _run(exe, ["--help"], "prusa-slicer --help")
    m = re.search(r"^(PrusaSlicer-\S+)", out, re.M)
    return m[1] if m else "PrusaSlicer"


_TIME = re.compile(r"^; estimated printing time \(normal mode\) = (.+)$", re.M)


def parse_time(text: str) -> int:
    """Seconds of PrusaSlicer's ``1d 2h 3m 4s`` (any of the parts)."""
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([dhms])", text))


def gcode_stats(text: str, what: str) -> SliceStats:
    """The figures in PrusaSlicer's G-code (the summary comments it writes after the moves)."""
    t = _TIME.search(text)
    mm = re.search(r"^; filament used \[mm\] = ([0-9.]+)", text, re.M)
    g = re.search(r"^; filament used \[g\] = ([0-9.]+)", text, re.M)
    if not (t and mm and g):
        raise BuildError(f"{what}: PrusaSlicer's G-code has no print time or filament estimate")
    layers = len(set(re.findall(r"^;LAYER_CHANGE\n;Z:([0-9.]+)", text, re.M)))
    return SliceStats(parse_time(t[1]), float(mm[1]), float(g[1]), layers, ";TYPE:Ironing" in text)


def slice_plate(exe: str, data: bytes, printer: Printer, what: str) -> SliceStats:
    """Slice the 3MF bytes ``data`` on ``printer``'s bed; the figures from the G-code."""
    bed = f"0x0,{printer.bed_x_mm:g}x0,{printer.bed_x_mm:g}x{printer.bed_y_mm:g},0x{printer.bed_y_mm:g}"
    with tempfile.TemporaryDirectory(prefix="stratstone-slice-") as tmp:
        plate = Path(tmp) / "plate.3mf"
        gcode = Path(tmp) / "plate.gcode"
        plate.write_bytes(data)
        _run(exe, ["--export-gcode", "--dont-arrange", "--bed-shape", bed, "--output", str(gcode), str(plate)], what)
        try:
            text = gcode.read_text("utf-8", errors="replace")
        except OSError as e:
            raise BuildError(f"{what}: PrusaSlicer wrote no G-code ({e.strerror})") from None
    return gcode_stats(text, what)
