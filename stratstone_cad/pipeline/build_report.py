"""What a build did (:class:`BuildReport`), filled in by its phases and summed up for the user."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from stratstone_cad.pipeline.manifest import MANIFEST


@dataclass
class BuildReport:
    """What a build did: assets written, assets found cached, stale files removed."""

    out_dir: Path
    built: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    swept: list[str] = field(default_factory=list)  # temporary files a killed build left
    plates_built: list[str] = field(default_factory=list)
    plates_cached: list[str] = field(default_factory=list)
    sliced: list[str] = field(default_factory=list)  # plates PrusaSlicer estimated in this build
    report_file: Path | None = None
    seconds: float = 0.0

    def summary(self) -> str:
        def cad(files: list[str]) -> list[str]:  # build --step: STEP files and the sets' glTF
            return [f for f in files if f.endswith((".step", ".glb"))]

        built, cached = [f for f in self.built if f not in cad(self.built)], [f for f in self.cached
                                                                               if f not in cad(self.cached)]
        total = len(built) + len(cached)
        plates = len(self.plates_built) + len(self.plates_cached)
        steps = len(cad(self.built)) + len(cad(self.cached))
        return (f"{total} assets in {self.out_dir}: {len(built)} built, {len(cached)} cached"
                + (f"; {steps} STEP and glTF files: {len(cad(self.built))} written, {len(cad(self.cached))} cached"
                   if steps else "")
                + (f"; {plates} plates: {len(self.plates_built)} written, {len(self.plates_cached)} cached"
                   if plates else "")
                + (f", {len(self.removed)} stale removed" if self.removed else "")
                + (f", {len(self.swept)} temporary files of an interrupted build removed" if self.swept else "")
                + (f"; {len(self.sliced)} plates sliced for the print report" if self.sliced else "")
                + (f"; print report {self.report_file}" if self.report_file else "")
                + f" ({self.seconds:.1f} s); manifest {self.out_dir / MANIFEST}")
