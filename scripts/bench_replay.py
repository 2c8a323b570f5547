"""Benchmark of the replay's off-screen export (issue: 1280 x 720, software OpenGL).

A 100-ply Sage Stones game (six random players, seed 5, cut at 100 plies) at 10 frames a
ply: 1,001 frames (the start, then 10 a ply). Measured, median of ``--rounds``:

- the floor: the pure render of the final scene, nothing moved (render + read back the
  pixels, what any frame of an export costs at least);
- the export's time per frame, in process (``replay.export`` to MP4: moving the actors,
  the overlay, rendering, reading back, encoding);
- the whole command as a user runs it (``stratstone-cad replay LOG --out x.mp4``: Python
  start, checking and loading the log, the meshes from the cache, the export).

And what the scene's look costs, each against the floor in the same round (issue 25):

- the shadows: the floor without the pieces' shadow footprints, with them blended by VTK's
  default order-independent translucency instead of the plain pass, and with VTK's own
  shadows (a shadow-map pass for the key light) instead of the footprints;
- the anti-aliasing: a still (one PNG's render and read back) at 2 x 2 times the pixels
  averaged down, against one at its size with 4 samples a pixel (the still before) and
  one at its size without.

Run: ``.venv/bin/python scripts/bench_replay.py [--rounds 3]``; with ``PYTHONPATH=TREE`` it measures
another checkout's code (side by side with this one, in turn).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlib import loadavg, machine_line, timed

from stratstone_cad.viewer import replay as R

try:  # the folder-per-game layout
    from stratstone_cad.log.commands import play_records
    from stratstone_cad.log.logfile import dumps_line
except ImportError:  # a tree from before it, measured side by side (PYTHONPATH=that tree)
    from stratstone_cad.games.commands import play_records
    from stratstone_cad.games.log import dumps_line

SIZE = (1280, 720)
PER_PLY = 10


def write_log(folder: Path) -> Path:
    records = play_records("sage-stones", 5, ["random"] * 6, None, 100)
    assert len(records) == 101 and "result" not in records[-1], "seed 5 no longer gives a 100-ply game"
    path = folder / "sage-100.jsonl"
    path.write_text("".join(dumps_line(r) + "\n" for r in records))
    return path


def floor(rep: R.GameOnTable, n: int = 40, setup: Callable[[Any], None] | None = None, **scene: Any) -> float:
    """Seconds a render and read back of the final position takes, the scene made with
    ``scene`` (Scene's keywords) and changed by ``setup``."""
    s = R.Scene(rep, SIZE, **{"smooth": False, **scene})
    try:
        if setup:
            setup(s)
        s.show(rep.count)
        s.image()
        t = time.perf_counter()
        for _ in range(n):
            s.image()
        return (time.perf_counter() - t) / n
    finally:
        for p in getattr(s, "keep", ())[:1]:  # VTK's shadow pass, released while its window lives
            p.ReleaseGraphicsResources(s.p.render_window)
        s.close()


def no_shadows(scene: Any) -> None:
    scene._shade = lambda: None  # the render's observer calls it by name
    for shadow in scene.shadows.values():
        shadow.SetVisibility(False)


def oit(scene: Any) -> None:
    scene.p.renderer.SetUseOIT(True)


def vtk_shadows(scene: Any) -> None:
    """VTK's shadow maps for the key light instead of the footprints (the passes of VTK's
    own example: bake the map, then the opaque geometry shadowed, then the rest)."""
    from vtkmodules.vtkRenderingOpenGL2 import (
        vtkCameraPass,
        vtkLightsPass,
        vtkOverlayPass,
        vtkRenderPassCollection,
        vtkSequencePass,
        vtkShadowMapPass,
        vtkTranslucentPass,
    )

    no_shadows(scene)
    for mark in scene.marks:  # the shadow pass's shader needs lit actors
        mark.GetProperty().SetLighting(True)
        mark.GetProperty().SetAmbient(1.0)
        mark.GetProperty().SetDiffuse(0.0)
    shadows = vtkShadowMapPass()
    passes = vtkRenderPassCollection()
    for p in (vtkLightsPass(), shadows.GetShadowMapBakerPass(), shadows, vtkTranslucentPass(), vtkOverlayPass()):
        passes.AddItem(p)
    seq = vtkSequencePass()
    seq.SetPasses(passes)
    cam = vtkCameraPass()
    cam.SetDelegatePass(seq)
    scene.p.renderer.SetPass(cam)
    scene.keep = (shadows, passes, seq, cam)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    look = hasattr(R.Scene, "_shade")  # a tree with issue 25's look (shadows, still scale)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log = write_log(folder)
        rep = R.load(log)
        frames = len(R.frames(rep, PER_PLY))
        m: dict[str, list[float]] = {}
        for _ in range(a.rounds):
            m.setdefault("floor", []).append(floor(rep))
            if look:
                m.setdefault("no shadows", []).append(floor(rep, setup=no_shadows))
                m.setdefault("OIT", []).append(floor(rep, setup=oit))
                m.setdefault("VTK shadows", []).append(floor(rep, setup=vtk_shadows))
                m.setdefault("still 2x", []).append(floor(rep, 8, scale=R.scene.STILL_SCALE))
                m.setdefault("still MSAA", []).append(floor(rep, 8, smooth=True))
                m.setdefault("still plain", []).append(floor(rep, 8))
            out = folder / "x.mp4"
            t = time.perf_counter()
            R.export(rep, out, size=SIZE, per_ply=PER_PLY, fps=25)
            m.setdefault("export", []).append((time.perf_counter() - t) / frames)
            out.unlink()
            m.setdefault("whole", []).append(timed(["replay", str(log), "--out", str(out), "--size", "1280x720",
                                                    "--frames-per-ply", str(PER_PLY), "--fps", "25"]))
            out.unlink()
        med = {k: statistics.median(v) for k, v in m.items()}

        def ms(k: str) -> str:
            return f"{med[k] * 1000:.1f} ms  rounds {[round(x * 1000, 1) for x in m[k]]}"

        def ratio(k: str, base: str = "floor") -> str:
            return f"{med[k] / med[base]:.2f} x ({', '.join(f'{x / y:.2f}' for x, y in zip(m[k], m[base], strict=True))})"

        f = med["floor"]
        print(f"machine: {machine_line()}, load {loadavg()}")
        print(f"Sage Stones, {rep.count} plies x {PER_PLY} frames = {frames} frames at {SIZE[0]}x{SIZE[1]}, "
              f"median of {a.rounds}")
        print(f"floor (render + read back, final scene): {ms('floor')}")
        print(f"export per frame: {med['export'] * 1000:.1f} ms = {med['export'] / f:.2f} x the floor  rounds "
              f"{[round(x * 1000, 1) for x in m['export']]}")
        print(f"whole command to MP4: {med['whole']:.1f} s  rounds {[round(x, 1) for x in m['whole']]}")
        if look:
            print(f"floor without the shadow footprints: {ms('no shadows')}; the floor is {ratio('floor', 'no shadows')}")
            print(f"floor, footprints blended by VTK's order-independent translucency: {ms('OIT')} = {ratio('OIT')}")
            print(f"floor, VTK's shadow maps for the key light instead: {ms('VTK shadows')} = {ratio('VTK shadows')}")
            print(f"still, {R.scene.STILL_SCALE}x{R.scene.STILL_SCALE} the pixels averaged down (a PNG's): {ms('still 2x')} = "
                  f"{ratio('still 2x')}")
            print(f"still, 4 samples a pixel (the PNG's before): {ms('still MSAA')} = {ratio('still MSAA')}")
            print(f"still, no anti-aliasing: {ms('still plain')} = {ratio('still plain')}")


if __name__ == "__main__":
    main()
