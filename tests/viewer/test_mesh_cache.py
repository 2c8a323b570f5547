"""The viewer's mesh cache: an entry is checked when read (its checksum, its arrays'
shapes and types, its triangles' indices, finite coordinates), and a damaged one is made
again and replaced instead of crashing the preview (a BadZipFile or ValueError traceback,
a segmentation fault on indices out of range, a hang on a FIFO)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from stratstone_cad.printing.checks import Mesh
from stratstone_cad.viewer import meshes as A

ASSET = "sage-stones/gem-red"  # the quickest asset to make again


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "viewer-cache"))


@pytest.fixture(scope="module")
def gem():
    """The asset, its cache key and its sound mesh's arrays (as an entry stores them)."""
    asset = A.list_assets(["sage-stones"])[ASSET]
    mesh = A.asset_mesh(asset)
    arrays = {"v0": mesh.vertices.astype(np.float32), "t0": mesh.triangles.astype(np.uint32)}
    return asset, A._key(asset.job), arrays


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _signed(key: str, **arrays: np.ndarray) -> bytes:
    """An entry whose checksum is right for its (damaged) arrays: only the other checks can refuse it."""
    return _npz({**arrays, "sha256": A.entry_checksum(key, arrays)})


def _damage(kind: str, path, key: str, good: dict[str, np.ndarray]) -> None:
    v, t = good["v0"], good["t0"]
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "truncated":
        whole = _signed(key, v0=v, t0=t)
        path.write_bytes(whole[:len(whole) // 2])
    elif kind == "not a zip":
        path.write_bytes(b"this is not a zip archive\n" * 40)
    elif kind == "no checksum (an older version's)":
        path.write_bytes(_npz({"v0": v, "t0": t}))
    elif kind == "checksum of other arrays":
        moved = v.copy()
        moved[0, 2] += 1.0
        path.write_bytes(_npz({"v0": moved, "t0": t, "sha256": A.entry_checksum(key, good)}))
    elif kind == "empty arrays":
        path.write_bytes(_signed(key, v0=np.zeros((0, 3), np.float32), t0=np.zeros((0, 3), np.uint32)))
    elif kind == "wrong shapes":
        path.write_bytes(_signed(key, v0=v[:, :2].copy(), t0=t.ravel()))
    elif kind == "indices out of range":
        far = t.copy()
        far[len(far) // 2, 1] = 10 * len(v)
        path.write_bytes(_signed(key, v0=v, t0=far))
    elif kind == "NaN coordinates":
        nan = v.copy()
        nan[3, 0] = np.nan
        path.write_bytes(_signed(key, v0=nan, t0=t))
    elif kind == "a folder":
        path.mkdir()
        (path / "inside").write_bytes(b"x")
    elif kind == "a FIFO":
        os.mkfifo(path)
    else:
        raise AssertionError(kind)


DAMAGES = ["truncated", "not a zip", "no checksum (an older version's)", "checksum of other arrays", "empty arrays",
           "wrong shapes", "indices out of range", "NaN coordinates", "a folder", "a FIFO"]


def _preview(*args: str, cache, umask: int | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return subprocess.run([sys.executable, "-m", "stratstone_cad", "preview", *args], capture_output=True, text=True,
                          timeout=120, env=env, preexec_fn=None if umask is None else (lambda: os.umask(umask)))


@pytest.mark.parametrize("kind", DAMAGES)
def test_a_damaged_cache_entry_is_made_again_by_the_preview_command(kind, gem, tmp_path):
    """Through the real command: exit 0, a valid PNG, and the entry replaced by a sound one
    (the same mesh), nothing else left in the cache folder."""
    _, key, good = gem
    cache = tmp_path / "cache"
    entry = cache / "stratstone-cad" / "meshes" / f"{key}.npz"
    _damage(kind, entry, key, good)
    assert A.read_entry(entry, key, 1) is None  # what the preview is given is refused as it is read
    out = tmp_path / "x.png"
    r = _preview(ASSET, "--out", str(out), "--size", "96x64", cache=cache)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stderr == "" and r.stdout == f"wrote {out}: 1 asset\n"
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size == (96, 64)
        image.load()
    assert entry.is_file() and not entry.is_symlink()
    with np.load(entry) as data:  # read here as it is, not only through the reader under test
        stored = {name: data[name] for name in data.files}
    assert sorted(stored) == ["sha256", "t0", "v0"]
    assert np.array_equal(stored["t0"], good["t0"]) and np.array_equal(stored["v0"], good["v0"])
    assert np.array_equal(stored.pop("sha256"), A.entry_checksum(key, stored))
    assert A.read_entry(entry, key, 1) is not None
    assert sorted(p.name for p in entry.parent.iterdir()) == [entry.name]  # no temporary, nothing moved aside


def test_a_sound_entry_is_read_back_and_every_damage_is_a_miss(gem, tmp_path):
    """In process, the finer cases: each check on its own refuses what it is for (the
    checksum is right for the damaged arrays, so it does not hide them)."""
    _, key, good = gem
    v, t = good["v0"], good["t0"]
    entry = tmp_path / f"{key}.npz"
    A.write_entry(entry, key, [Mesh(v.astype(np.float64), t.astype(np.int64))])
    back = A.read_entry(entry, key, 1)
    assert back is not None and back[0].vertices.dtype == np.float64 and back[0].triangles.dtype == np.int64
    assert np.array_equal(back[0].triangles, t) and np.array_equal(back[0].vertices, v.astype(np.float64))
    assert A.read_entry(entry, "another key", 1) is None  # an entry copied under another key
    assert A.read_entry(entry, key, 2) is None  # a job of two outputs: not this entry
    negative = t.astype(np.int64)
    negative[5, 0] = -1
    huge = t.astype(np.uint64)
    huge[5, 0] = 2**64 - 1  # -1 once cast to int64: compared before any cast
    inf = v.copy()
    inf[1, 1] = np.inf
    for name, arrays in {
        "vertices n x 2": {"v0": v[:, :2].copy(), "t0": t},
        "vertices n x 4": {"v0": np.hstack([v, v[:, :1]]), "t0": t},
        "vertices flat": {"v0": v.ravel(), "t0": t},
        "two vertices": {"v0": v[:2].copy(), "t0": np.zeros((1, 3), np.uint32)},
        "vertices of integers": {"v0": v.astype(np.int32), "t0": t},
        "vertices of complex numbers": {"v0": v.astype(np.complex64), "t0": t},
        "triangles m x 4": {"v0": v, "t0": np.hstack([t, t[:, :1]])},
        "triangles flat": {"v0": v, "t0": t.ravel()},
        "no triangles": {"v0": v, "t0": np.zeros((0, 3), np.uint32)},
        "triangles of floats": {"v0": v, "t0": t.astype(np.float32)},
        "triangles of booleans": {"v0": v, "t0": t.astype(bool)},
        "a negative index": {"v0": v, "t0": negative},
        "an index that wraps": {"v0": v, "t0": huge},
        "the index n": {"v0": v, "t0": np.where(t == t.max(), len(v), t).astype(np.uint32)},
        "an infinite coordinate": {"v0": inf, "t0": t},
        "an array too many": {"v0": v, "t0": t, "v1": v},
        "no triangles array": {"v0": v},
    }.items():
        entry.write_bytes(_signed(key, **arrays))
        assert A.read_entry(entry, key, 1) is None, name
    entry.write_bytes(_npz({"v0": v, "t0": t, "sha256": np.frombuffer(b"x" * 32, np.uint8)}))
    assert A.read_entry(entry, key, 1) is None  # a checksum of nothing
    entry.write_bytes(_npz({"v0": v, "t0": t, "sha256": A.entry_checksum(key, good).astype(np.int64)}))
    assert A.read_entry(entry, key, 1) is None  # the checksum's bytes, not as bytes
    np.save(entry.with_suffix(".npy"), v)
    entry.write_bytes(entry.with_suffix(".npy").read_bytes())
    assert A.read_entry(entry, key, 1) is None  # one array, not an archive
    entry.unlink()
    entry.symlink_to(tmp_path / "elsewhere.npz")
    A.write_entry(tmp_path / "elsewhere.npz", key, [Mesh(v.astype(np.float64), t.astype(np.int64))])
    assert A.read_entry(entry, key, 1) is None  # a link in the cache is not followed...
    A.write_entry(entry, key, [Mesh(v.astype(np.float64), t.astype(np.int64))])
    assert not entry.is_symlink() and A.read_entry(entry, key, 1) is not None  # ...but replaced
    assert A.read_entry(tmp_path / "elsewhere.npz", key, 1) is not None  # and what it pointed to left alone


def test_a_cache_entry_written_by_a_killed_preview_is_swept(gem, tmp_path):
    _, key, good = gem
    entry = tmp_path / f"{key}.npz"
    (tmp_path / f".{key}.npz.abcd1234.tmp").write_bytes(b"half")
    A.write_entry(entry, key, [Mesh(good["v0"].astype(np.float64), good["t0"].astype(np.int64))])
    assert sorted(p.name for p in tmp_path.iterdir()) == [entry.name]


@pytest.mark.parametrize("umask", [0o077, 0o022])
def test_every_new_preview_file_follows_the_umask(umask, tmp_path):
    """A still, a sheet, a turntable and the cache's entries and folders: 0666 & ~umask
    for a file, 0777 & ~umask for a folder (the still and the sheet were 0644 whatever
    the umask)."""
    cache = tmp_path / "cache"
    r = _preview(ASSET, "--out", str(tmp_path / "u.png"), "--sheet", str(tmp_path / "s.png"), "--size", "96x64",
                 cache=cache, umask=umask)
    assert r.returncode == 0, r.stderr[-2000:]
    r = _preview(ASSET, "--out", str(tmp_path / "u.gif"), "--frames", "2", "--size", "96x64", cache=cache,
                 umask=umask)
    assert r.returncode == 0, r.stderr[-2000:]
    meshes = cache / "stratstone-cad" / "meshes"
    entries = list(meshes.iterdir())
    assert len(entries) == 1
    for path in (tmp_path / "u.png", tmp_path / "s.png", tmp_path / "u.gif", *entries):
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path.name
    for path in (cache, cache / "stratstone-cad", meshes):
        assert path.stat().st_mode & 0o777 == 0o777 & ~umask, path.name


def test_a_mesh_just_made_is_the_mesh_the_cache_gives_back(tmp_path, monkeypatch):
    """A picture is the same bytes on the first run (the meshes made) as on the next ones
    (read from the cache): the vertices of a mesh just made are those the entry stores."""
    asset = A.list_assets(["sage-stones"])[ASSET]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cold"))
    A._MEMO.clear()
    made = A._job_meshes(asset.job)
    A._MEMO.clear()
    read = A._job_meshes(asset.job)  # the entry written a moment ago
    A._MEMO.clear()
    assert len(made) == len(read)
    for m, r in zip(made, read, strict=True):
        assert m.vertices.dtype == r.vertices.dtype == np.float64
        assert np.array_equal(m.vertices, r.vertices) and np.array_equal(m.triangles, r.triangles)
