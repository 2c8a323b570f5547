"""Every game's assets as meshes in memory, for the viewer: the build's CAD functions and
parameters, tessellated more coarsely, no files written but a cache.

The assets are planned as the build plans them, for a printer whose bed holds anything,
so a board is whole (never tiles): ``stratstone/board``, ``stratstone/stone-red-03``,
``sage-stones/gem-red``, ``terrain/guardian-blue``, ``terrain/board-seed-1``. An asset's
mesh comes from its job's CAD function with the viewer's mesh settings (a kernel-free
part is given them in its arguments, a CadQuery part is tessellated with them); it is
kept in a cache folder under the key the build would give it (the function's arguments,
the mesh settings and the code), so a second preview does not make it again. An entry is
checked when read (its checksum, its arrays' shapes and types, its triangles' indices,
finite coordinates): a damaged one is made again and replaced, never trusted.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import math
import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from stratstone_cad.assets.game_assets import GameAssets
from stratstone_cad.assets.jobs import Job, Output
from stratstone_cad.base.colours import Colour, display_colour, load_colours
from stratstone_cad.base.fileio import Staged, new_file_mode, sweep_temporary
from stratstone_cad.base.memo import cache_root
from stratstone_cad.base.params import MeshParams, Profile
from stratstone_cad.base.printers import NO_PRINTER, load_profiles
from stratstone_cad.errors import ParameterError, did_you_mean
from stratstone_cad.pipeline.keys import job_key
from stratstone_cad.printing.checks import Mesh
from stratstone_cad.registry import get_parts, load_params

__all__ = ["PREVIEW_MESH", "Asset", "asset_mesh", "game_assets", "list_assets", "select"]

#: The viewer's tessellation: 0.1 mm from the surface and 8 degrees a facet (the build: 0.05 mm, 2.5 degrees).
PREVIEW_MESH = MeshParams(tolerance_mm=0.1, angular_tolerance_deg=8.0)


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


def list_assets(games: Iterable[str] | None = None, sets: dict[str, str] | None = None,
                params_file: Path | None = None) -> dict[str, Asset]:
    """Every asset of the games named (all by default), by name, in the build's order, made
    with the parameters of ``params_file`` (``--params``) and ``sets`` (``--set``) as a build's."""
    chosen = get_parts(list(games) if games else None)
    ps = load_params(params_file, sets, games=[g.name for g in chosen])
    profiles = load_profiles()
    colours = load_colours()
    out: dict[str, Asset] = {}
    for g in chosen:
        out.update(game_assets(g, ps.params_of(g.name), profiles, colours))
    return out


def game_assets(assets: GameAssets, params: Any, profiles: Mapping[str, Profile],
                colours: Mapping[str, Colour]) -> dict[str, Asset]:
    """One game's assets (as ``assets`` declares them) made with ``params`` (a logged game's board, say), by name."""
    out: dict[str, Asset] = {}
    for job in assets.plan(params, NO_PRINTER, profiles, PREVIEW_MESH):  # the viewer never shows tiles
        for o in job.outputs:
            name = o.file.removesuffix(".stl")
            out[name] = Asset(name, assets.name, job, o, display_colour(colours, o.colour))
    return out


def select(assets: dict[str, Asset], names: list[str]) -> list[Asset]:
    """The assets named: ``game/part`` names, whole games (``terrain``), or all when none.
    An unknown name is a ParameterError naming the closest asset.

    Raises:
        ParameterError: the name is neither a game nor an asset.
    """
    if not names:
        return list(assets.values())
    out: list[Asset] = []
    for n in names:
        hits = [a for a in assets.values() if a.name == n or a.game == n]
        if not hits:
            hint = did_you_mean(n, [*assets, *{a.game for a in assets.values()}], cutoff=0.5)
            raise ParameterError(f"asset {n[:80]!r}: unknown, expected a game or an asset such as "
                                 f"stratstone/stone-red-03{hint}")
        out += [a for a in hits if a not in out]
    return out


def _cache_dir() -> Path | None:
    """The mesh cache's folder, or None when there is no cache folder (no home)."""
    root = cache_root()
    return None if root is None else root / "meshes"


def _key(job: Job) -> str:
    """The key the build would give the job's files, with the viewer's mesh settings."""
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
        return _as_stored(_make(job))
    path = folder / f"{key}.npz"
    meshes = read_entry(path, key, len(job.outputs))
    if meshes is None:  # none yet, or damaged: made again, and the entry replaced
        meshes = _as_stored(_make(job))
        write_entry(path, key, meshes)
    return meshes


def _as_stored(meshes: Sequence[Mesh]) -> tuple[Mesh, ...]:
    """``meshes`` as a cache entry gives them back (vertices through float32), so that a
    picture is the same bytes whether its meshes were just made or read from the cache."""
    return tuple(Mesh(np.asarray(m.vertices, dtype=np.float32).astype(np.float64), np.asarray(m.triangles, dtype=np.int64))
                 for m in meshes)


#: What a cache entry's checksum starts from: a change of the format makes every old entry
#: a miss (rebuilt), never an entry read the wrong way.
_FORMAT = b"stratstone-cad viewer mesh cache 2\n"


def entry_checksum(key: str, arrays: Mapping[str, np.ndarray]) -> np.ndarray:
    """The sha256 of a cache entry's arrays (each one's name, dtype, shape and bytes) and
    its key, as the 32 bytes the entry stores beside them (``sha256``)."""
    h = hashlib.sha256(_FORMAT + key.encode() + b"\n")
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name} {a.dtype.str} {a.shape}\n".encode())
        h.update(a.tobytes())
    return np.frombuffer(h.digest(), dtype=np.uint8)


def read_entry(path: Path, key: str, count: int) -> tuple[Mesh, ...] | None:
    """The ``count`` meshes a cache entry holds, or None when there is no sound entry:
    missing, not a regular file (a folder, a FIFO, a link: never opened in a way that
    blocks), not a whole ``.npz``, without its checksum (an older version's) or with
    another, or arrays that are not meshes (vertices n x 3 finite floats, n >= 3;
    triangles m x 3 integers, m >= 1, each from 0 to n - 1). Never raises: a damaged
    cache is a miss, made again."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode) or fh.read(4) != b"PK\x03\x04":
                return None
            fh.seek(0)
            with np.load(fh, allow_pickle=False) as data:
                return _sound(key, count, {name: data[name] for name in data.files})
    except Exception:  # any damage (BadZipFile, a short read, a bad header, zlib's errors): a miss
        return None


def _sound(key: str, count: int, arrays: dict[str, np.ndarray]) -> tuple[Mesh, ...] | None:
    """The meshes of an entry's arrays, or None when they are not a sound entry of ``key``."""
    names = {f"{c}{i}" for i in range(count) for c in "vt"}
    if set(arrays) != names | {"sha256"}:
        return None
    digest = arrays.pop("sha256")
    if digest.dtype != np.uint8 or digest.shape != (32,) or not np.array_equal(digest, entry_checksum(key, arrays)):
        return None
    meshes = []
    for i in range(count):
        v, t = arrays[f"v{i}"], arrays[f"t{i}"]
        if (v.ndim != 2 or v.shape[0] < 3 or v.shape[1] != 3 or not np.issubdtype(v.dtype, np.floating)
                or t.ndim != 2 or t.shape[0] < 1 or t.shape[1] != 3 or not np.issubdtype(t.dtype, np.integer)):
            return None
        vertices = v.astype(np.float64)
        if not np.isfinite(vertices).all():
            return None
        if t.min() < 0 or t.max() >= len(v):  # compared as stored: no cast can wrap an index into range
            return None
        meshes.append(Mesh(vertices, t.astype(np.int64)))
    return tuple(meshes)


def write_entry(path: Path, key: str, meshes: Sequence[Mesh]) -> None:
    """Store ``meshes`` as the cache entry ``path``, with its checksum, replacing whatever
    is there (a damaged entry, a folder, a FIFO, a link) in one rename; a new file gets
    the permissions the umask allows. Best-effort: a cache that cannot be written (no
    folder, a full disk) is left as it was, nothing half-written in it."""

    arrays: dict[str, np.ndarray] = {}
    for i, m in enumerate(meshes):
        arrays[f"v{i}"] = np.ascontiguousarray(m.vertices, dtype=np.float32)
        arrays[f"t{i}"] = np.ascontiguousarray(m.triangles, dtype=np.uint32)
    arrays["sha256"] = entry_checksum(key, arrays)
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sweep_temporary(path.parent, re.escape(path.name))  # what a killed preview left
        staged = Staged(path)
    except OSError:
        return
    try:
        staged.write(buf.getvalue())
        staged.publish(new_file_mode(), replace_folder=True)
    except BaseException as e:
        staged.discard()
        if not isinstance(e, OSError):
            raise


def _make(job: Job) -> tuple[Mesh, ...]:
    module, func = job.maker.split(":")
    shapes = getattr(importlib.import_module(module), func)(**job.args)
    out = []
    for shape in shapes:
        if isinstance(shape, Mesh):
            out.append(shape)
        else:  # start-up speed: CadQuery only where a CadQuery part is meshed
            from stratstone_cad.occ.tessellate import tessellate

            out.append(tessellate(shape, PREVIEW_MESH.tolerance_mm, math.radians(PREVIEW_MESH.angular_tolerance_deg)))
    return tuple(out)


def asset_mesh(asset: Asset) -> Mesh:
    """The asset's mesh, resting on z = 0 where its CAD function put it in x and y."""
    return _job_meshes(asset.job)[asset.job.outputs.index(asset.output)]
