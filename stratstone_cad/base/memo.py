"""A persistent memo of the build's slow, pure checks and plans (label islands, tile plans).

An unchanged rebuild checks every parameter again before it looks at a file: that the
insides of the labels' closed letters print, where a tiled board is cut and where its
dovetails fit clear of the wells and labels. Those take 2D geometry (shapely, and numpy
under it) and the engraving font, which cost an unchanged rebuild more than half its time.
Their outcome depends on nothing but their inputs and the code that computes it, so a
result that was computed once is remembered, under a key derived the way a part's cache
key is (:mod:`stratstone_cad.pipeline.keys`): the name of the computation, its arguments as plain
data, and the fingerprint of the source of the modules that compute it (with the versions
of the geometry libraries). A change to any of them is a new key; only successes are kept
(a check that fails is computed again, and says why, every time).

Where: ``checks/`` in the user's cache folder (:func:`cache_root`: ``$XDG_CACHE_HOME/stratstone-cad``,
else ``~/.cache/stratstone-cad``, beside the viewer's meshes; matplotlib keeps its font
list there so). ``STRATSTONE_MEMO=off`` turns the memo off (the tests do, so that every
check they reach is computed, also under mutation testing). One small JSON file per
result, written atomically, read with a size limit; the memo is best effort: a file that
cannot be read, or is not what its name says, is a miss, and a folder that cannot be
written to is left alone. An entry is trusted as the
user's own file (the folder is made readable by its owner only): one planted there could
let parameters through that a check would refuse, or give a board another tile plan or
a seed another map, never run anything. The folder is kept to :data:`MAX_ENTRIES`.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from stratstone_cad.base.fileio import Staged, sweep_temporary

__all__ = ["ENV", "cache_root", "memo_dir", "memo_key", "remembered"]

#: Environment variable that turns the memo off: ``off`` (or ``0``, ``no``, ``false``).
ENV = "STRATSTONE_MEMO"
#: Bumped when an entry's shape changes.
FORMAT = 1
#: An entry larger than this is not read (a tile plan is a few kilobytes).
MAX_ENTRY_BYTES = 1 << 20
#: The memo keeps at most this many entries: past it, a write removes the oldest down to
#: PRUNED_TO (each code change or parameter change adds entries, and nothing else removes them).
MAX_ENTRIES = 2000
PRUNED_TO = 1500


def cache_root() -> Path | None:
    """The user's cache folder of this program (the XDG base directory spec's: a relative
    ``XDG_CACHE_HOME`` is ignored), or None when there is no home folder to put it in
    (``HOME`` unset or relative: a cache in whatever folder the command runs in, or a
    folder named ``~`` there, would surprise)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home) or home == "/":
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "stratstone-cad"


def memo_dir() -> Path | None:
    """The memo's folder, or None when it is turned off (or there is no cache folder)."""
    if os.environ.get(ENV, "").strip().lower() in ("off", "0", "no", "false"):
        return None
    root = cache_root()
    return None if root is None else root / "checks"


def memo_key(name: str, roots: Sequence[str], args: Any) -> str:
    """sha256 of a computation's name, its arguments and the code of ``roots`` (modules
    of this package, with every module of the package they import)."""
    # start-up speed: codeprint (importlib.metadata) only where a key is made
    from stratstone_cad.base.codeprint import code_fingerprint, plain

    data = {"name": name, "args": args, "code": code_fingerprint(tuple(sorted(set(roots)))), "format": FORMAT}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=plain).encode()).hexdigest()


def remembered(name: str, roots: Sequence[str], args: Any, compute: Callable[[], Any],
               decode: Callable[[Any], Any] = lambda v: v) -> Any:
    """``compute()``, or the result it gave before for the same ``name``, ``args`` and code.

    ``args`` is everything ``compute`` reads (plain data and dataclasses, as a part's key
    takes them); ``roots`` the modules whose code computes it, to which the modules that
    define ``compute`` and ``decode`` are added (a lambda's is its caller's). The result
    is stored as JSON the way the arguments are keyed (a dataclass as its class and
    fields) and ``decode`` turns that back into the result. An exception from ``compute`` passes through and nothing
    is kept; arguments or a result the memo cannot key or store are computed every time.
    """
    folder = memo_dir()
    if folder is None:
        return compute()
    own = {getattr(f, "__module__", None) for f in (compute, decode)} - {None, __name__}
    # start-up speed: codeprint (importlib.metadata) only where a key is made
    from stratstone_cad.base.codeprint import plain

    try:
        key = memo_key(name, [*roots, *own], args)  # type: ignore[list-item]
    except Exception:  # arguments that are not plain data (a caller's mistake): no memo, never a failure
        return compute()
    path = folder / f"{key}.json"
    found = _read(path, key)
    if found is not None:
        try:
            return decode(found["value"])
        except Exception:  # an entry that does not decode, whatever it holds, is a miss
            pass
    value = compute()
    try:
        entry = json.dumps({"key": key, "name": name, "value": value}, sort_keys=True, default=plain)
    except Exception:  # a result the memo cannot store is computed again next time
        return value
    _write(folder, path, entry)
    return value


def _read(path: Path, key: str) -> dict[str, Any] | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO planted there cannot block
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ENTRY_BYTES:
            return None
        data = os.read(fd, MAX_ENTRY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        entry = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key or "value" not in entry:
        return None
    return entry


def _write(folder: Path, path: Path, entry: str) -> None:
    """Best effort: a read-only or full cache folder costs only the time it would have saved."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        staged = Staged(path)
    except OSError:
        return
    try:
        staged.write(entry.encode("utf-8"))
        staged.publish(0o600, sync=False)  # no fsync: an entry lost to a crash is computed again
    except BaseException as e:
        staged.discard()
        if not isinstance(e, OSError):
            raise
        return
    try:
        _prune(folder)
    except OSError:
        pass


def _prune(folder: Path) -> None:
    """Keep the memo's folder bounded: past :data:`MAX_ENTRIES`, remove the oldest entries
    down to :data:`PRUNED_TO`, and the temporary files killed writers left (never one a
    writer still holds: :func:`~stratstone_cad.base.fileio.sweep_temporary`). Only names
    this module writes are touched."""
    entries: list[tuple[float, str]] = []
    with os.scandir(folder) as it:
        for e in it:
            try:
                if len(e.name) == 69 and e.name.endswith(".json"):
                    entries.append((e.stat(follow_symlinks=False).st_mtime, e.name))
            except OSError:
                continue
    sweep_temporary(folder, r"[0-9a-f]{64}\.json")
    if len(entries) <= MAX_ENTRIES:
        return
    for _, n in sorted(entries)[: len(entries) - PRUNED_TO]:
        try:
            os.unlink(folder / n)
        except OSError:
            pass
