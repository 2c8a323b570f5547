"""Every game's assets as meshes in memory, for the viewer: the build's CAD functions and
parameters, tessellated more coarsely, no files written but a cache.

The assets are planned as the build plans them, for a printer whose bed holds anything,
so a board is whole (never tiles): ``stratstone/board``, ``stratstone/stone-red-03``,
``sage-stones/gem-red``, ``terrain/guardian-blue``, ``terrain/board-seed-1``. An asset's
mesh comes from its job's CAD function with the viewer's mesh settings (a kernel-free
part is given them in its arguments, a CadQuery part is tessellated with them); it is
kept in a cache folder under the key the build would give it (the function's arguments,
the mesh settings and the code), so a second preview does not make it again.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stratstone_cad.base.params import Colour, MeshParams, Printer, Profile, display_colour, load_colours, load_profiles
from stratstone_cad.errors import ParameterError
from stratstone_cad.printing.checks import Mesh
from stratstone_cad.printing.jobs import GameAssets, Job, Output
from stratstone_cad.registry import get_games, load_params

__all__ = ["PREVIEW_MESH", "Asset", "asset_mesh", "game_assets", "list_assets", "select"]

#: The viewer's tessellation: 0.1 mm from the surface and 8 degrees a facet (the build: 0.05 mm, 2.5 degrees).
PREVIEW_MESH = MeshParams(tolerance_mm=0.1, angular_tolerance_deg=8.0)
#: A bed that holds any board whole: the viewer never shows tiles.
ANY_BED = Printer("viewer", "any bed", 1e6, 1e6, 0.0, 1e6)


@dataclass(frozen=True)
class Asset:
    """One asset: its name (``game/part``), the job that makes it and its output, its
    display colour (``#RRGGBB``) and how many copies the game needs."""

    name: str
    game: str
    job: Job
    output: Output
    colour: str

    @property
    def part(self) -> str:
        return self.output.part


def list_assets(games: Iterable[str] | None = None, sets: dict[str, str] | None = None) -> dict[str, Asset]:
    """Every asset of the games named (all by default), by name, in the build's order."""
    chosen = get_games(list(games) if games else None)
    ps = load_params(None, sets, games=[g.name for g in chosen])
    profiles = load_profiles()
    colours = load_colours()
    out: dict[str, Asset] = {}
    for g in chosen:
        out.update(game_assets(g, ps.game(g.name), profiles, colours))
    return out


def game_assets(game: GameAssets, params: Any, profiles: Mapping[str, Profile],
                colours: Mapping[str, Colour]) -> dict[str, Asset]:
    """One game's assets made with ``params`` (a logged game's board, say), by name."""
    out: dict[str, Asset] = {}
    for job in game.plan(params, ANY_BED, profiles, PREVIEW_MESH):
        for o in job.outputs:
            name = o.file.removesuffix(".stl")
            out[name] = Asset(name, game.name, job, o, display_colour(colours, o.colour))
    return out


def select(assets: dict[str, Asset], names: list[str]) -> list[Asset]:
    """The assets named: ``game/part`` names, whole games (``terrain``), or all when none.
    An unknown name is a ParameterError naming the closest asset."""
    if not names:
        return list(assets.values())
    out: list[Asset] = []
    for n in names:
        hits = [a for a in assets.values() if a.name == n or a.game == n]
        if not hits:
            import difflib

            close = difflib.get_close_matches(n, [*assets, *{a.game for a in assets.values()}], n=1, cutoff=0.5)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ParameterError(f"asset {n[:80]!r}: unknown, expected a game or an asset such as "
                                 f"stratstone/stone-red-03{hint}")
        out += [a for a in hits if a not in out]
    return out


def _cache_dir() -> Path | None:
    """The mesh cache's folder, or None when there is no cache folder (no home)."""
    from stratstone_cad.base.memo import cache_root

    root = cache_root()
    return None if root is None else root / "meshes"


def _key(job: Job) -> str:
    """The key the build would give the job's files, with the viewer's mesh settings."""
    from types import SimpleNamespace

    from stratstone_cad.build.pipeline import job_key

    return job_key(job, SimpleNamespace(mesh=PREVIEW_MESH), load_profiles())  # type: ignore[arg-type]


_MEMO: dict[str, tuple[Mesh, ...]] = {}


def _job_meshes(job: Job) -> tuple[Mesh, ...]:
    """The meshes of a job's outputs: from memory, the cache folder, or made (then cached)."""
    key = _key(job)
    if key not in _MEMO:
        _MEMO[key] = _load_or_make(job, key)
    return _MEMO[key]


def _load_or_make(job: Job, key: str) -> tuple[Mesh, ...]:
    folder = _cache_dir()
    if folder is None:
        return _make(job)
    path = folder / f"{key}.npz"
    try:
        with np.load(path) as data:
            return tuple(Mesh(data[f"v{i}"].astype(np.float64), data[f"t{i}"].astype(np.int64))
                         for i in range(len(job.outputs)))
    except (OSError, KeyError, ValueError):
        pass
    meshes = _make(job)
    buf = io.BytesIO()
    np.savez(buf, **{f"v{i}": m.vertices.astype(np.float32) for i, m in enumerate(meshes)},
             **{f"t{i}": m.triangles.astype(np.uint32) for i, m in enumerate(meshes)})
    from stratstone_cad.base.fileio import atomic_write
    from stratstone_cad.errors import OutputError

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, buf.getvalue())
    except (OSError, OutputError):
        pass  # the cache is best-effort (no folder, a full disk): the meshes are made again next time
    return meshes


def _make(job: Job) -> tuple[Mesh, ...]:
    import importlib

    module, func = job.maker.split(":")
    shapes = getattr(importlib.import_module(module), func)(**job.args)
    out = []
    for shape in shapes:
        if isinstance(shape, Mesh):
            out.append(shape)
        else:
            from stratstone_cad.occ.tessellate import tessellate

            out.append(tessellate(shape, PREVIEW_MESH.tolerance_mm, math.radians(PREVIEW_MESH.angular_tolerance_deg)))
    return tuple(out)


def asset_mesh(asset: Asset) -> Mesh:
    """The asset's mesh, resting on z = 0 where its CAD function put it in x and y."""
    return _job_meshes(asset.job)[asset.job.outputs.index(asset.output)]
