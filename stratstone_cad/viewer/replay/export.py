"""A replay written off screen: a still, a folder of stills, a GIF or an MP4."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from stratstone_cad.base.progress import ProgressBar
from stratstone_cad.errors import ParameterError, short_repr
from stratstone_cad.viewer import DEFAULT_SIZE, writer
from stratstone_cad.viewer.replay.loading import GameOnTable, Plies
from stratstone_cad.viewer.replay.scene import COLOUR_MODES, STILL_SCALE, Scene
from stratstone_cad.viewer.review_strip import paint_strip, strip_height

OUT_KINDS = (".gif", ".mp4", ".png", ".glb", ".html", "dir")  # what --out can be
SHARED = (".glb", ".html")  # the kinds that are a scene, not pictures: viewer/gltf.py, viewer/web.py


# --------------------------------------------------------------------------- exports


def frames(rep: GameOnTable, per_ply: int, first: int = 1, last: int | None = None) -> list[tuple[int, float]]:
    """(ply, u) of every frame of an export: the position before ``first``, then
    ``per_ply`` frames of each ply to ``last``, the last of each at its end."""
    return list(_frames(per_ply, first, rep.count if last is None else last))


def _frames(per_ply: int, first: int, last: int) -> Iterator[tuple[int, float]]:
    """:func:`frames` one by one (an MP4 of a long game need not hold them all)."""
    yield (first - 1, 1.0)
    for ply in range(first, last + 1):
        for k in range(1, per_ply + 1):
            yield (ply, k / per_ply)


#: How long a GIF or MP4 shows the last position (seconds) before it ends or loops.
HOLD_S = 1.5


def check_out(out: Path, size: tuple[int, int] = DEFAULT_SIZE) -> str:
    """The kind of an export target, refused in one line before anything is rendered:
    ``.gif``, ``.mp4``, ``.png`` or ``dir`` (a new folder for PNG frames: a name without a
    suffix where nothing is yet)."""
    return writer.check_target(out, OUT_KINDS, size)


def export(rep: GameOnTable, out: Path, *, size: tuple[int, int] = DEFAULT_SIZE, fps: int = 10, per_ply: int = 10,
           ply: int | None = None, plies: tuple[int, int] | None = None, progress: ProgressBar | None = None,
           colours: str = "levels", reach: bool = False, hold_s: float = HOLD_S) -> int:
    """Write the replay (or the position after ``ply`` as a PNG; ``plies``: only plies
    first-last; ``colours``: one of :data:`COLOUR_MODES`; ``reach``: the squares the piece to
    move could reach, see :class:`Scene`; ``hold_s``: how long a GIF or MP4 shows the
    last position); returns the frames the file holds. Written whole or not at all, by
    :func:`~stratstone_cad.viewer.writer.publish`: a failed write is a one-line
    :class:`OutputError` and leaves the target as it was.

    Raises:
        ParameterError: --colours, --ply or --plies is out of range, or --ply comes without a PNG output.
    """
    kind = check_out(out, size)
    if colours not in COLOUR_MODES:
        raise ParameterError(f"--colours {short_repr(colours)}: expected {' or '.join(COLOUR_MODES)}")
    if ply is not None and not 0 <= ply <= rep.count:
        raise ParameterError(f"--ply {ply}: expected a ply from 0 to {rep.count}")
    if plies is not None and not 1 <= plies[0] <= plies[1] <= rep.count:
        raise ParameterError(f"--plies {plies[0]}-{plies[1]}: expected FIRST-LAST with 1 <= FIRST <= LAST <= {rep.count}")
    if ply is not None and kind != ".png":
        raise ParameterError(f"--ply {ply}: only with --out FILE.png (one position)")
    first, last = plies or (1, rep.count)  # a log of no plies: its start, one frame
    if kind == ".png":
        todo: Iterable[tuple[int, float]] = [(rep.count if ply is None else ply, 1.0)]
        n = 1
    else:
        todo, n = _frames(per_ply, first, last), 1 + per_ply * (last - first + 1)
    writer.check_frames(out, kind, n, size, fps, fewer="fewer --plies or --frames-per-ply")
    bar = progress or ProgressBar(n, sys.stderr, title=f"replay {out.name}", lines=False)
    shown = [rep.count if ply is None else ply] if kind == ".png" else range(first - 1, last + 1)
    return writer.publish(out, kind, _render(rep, todo, size, still=kind == ".png", colours=colours, reach=reach,
                                             captions=shown), fps=fps,
                          bar=bar, hold_s=hold_s if kind in (".gif", ".mp4") else 0.0)


def _render(rep: GameOnTable, todo: Iterable[tuple[int, float]], size: tuple[int, int], still: bool,
            colours: str = "levels", reach: bool = False, captions: Sequence[int] | None = None) -> Iterator[np.ndarray]:
    """The frames of ``todo`` (ply, time within it), rendered one by one as they are asked
    for. A still (one PNG) is rendered :data:`STILL_SCALE` times larger and averaged down,
    anti-aliased; an animation's frames at their size and without multisampling, which
    would cost more than a frame's budget (docs/benchmarks.md)."""
    height = size[1]
    if rep.review:  # the evaluation strip under the scene
        size = (size[0], size[1] - strip_height(size[1]))
    scene = Scene(rep, size, smooth=False, colours=colours, scale=STILL_SCALE if still else 1, reach=reach,
                  captions=captions)
    try:
        for pl, u in todo:
            scene.show(pl, u)
            image = scene.image()
            yield image if not rep.review else paint_strip(image, rep.review, rep.players, pl, height)
    finally:
        scene.close()
        if isinstance(rep.plies, Plies):
            rep.plies.close()  # the log, held open to step on from the last ply built
