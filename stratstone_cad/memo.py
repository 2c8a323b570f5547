"""A persistent memo of the build's slow, pure checks and plans (label islands, tile plans).

An unchanged rebuild checks every parameter again before it looks at a file: that the
insides of the labels' closed letters print, where a tiled board is cut and where its
dovetails fit clear of the wells and labels. Those take 2D geometry (shapely, and numpy
under it) and the engraving font, which cost an unchanged rebuild more than half its time.
Their outcome depends on nothing but their inputs and the code that computes it, so a
result that was computed once is remembered, under a key derived the way a part's cache
key is (:mod:`stratstone_cad.keys`): the name of the computation, its arguments as plain
data, and the fingerprint of the source of the modules that compute it (with the versions
of the geometry libraries). A change to any of them is a new key; only successes are kept
(a check that fails is computed again, and says why, every time).

Where: ``checks/`` in the user's cache folder (:func:`cache_root`: ``$XDG_CACHE_HOME/stratstone-cad``,
else ``~/.cache/stratstone-cad``, beside the viewer's meshes; matplotlib keeps its font
list there so). ``STRATSTONE_MEMO=off`` turns the memo off (the tests do, so that every
check they reach is computed, also under mutation testing). One small JSON file per
result, written atomically, read with a size limit; the memo is best effort: a file that
cannot be read, or is not what its name says, is a miss, and a folder that cannot be
written to is left alone. It holds the outcome of checks of the user's own parameters,
so a stale or planted entry could at worst let through parameters that the check would
refuse; it never runs anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ENV", "cache_root", "memo_dir", "memo_key", "remembered"]

#: Environment variable that turns the memo off: ``off`` (or ``0``, ``no``, ``false``).
ENV = "STRATSTONE_MEMO"
#: Bumped when an entry's shape changes.
FORMAT = 1
#: An entry larger than this is not read (a tile plan is a few kilobytes).
MAX_ENTRY_BYTES = 1 << 20


def cache_root() -> Path:
    """The user's cache folder of this program (the XDG base directory spec's; a relative
    ``XDG_CACHE_HOME`` is ignored, as the spec says)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "stratstone-cad"


def memo_dir() -> Path | None:
    """The memo's folder, or None when it is turned off."""
    if os.environ.get(ENV, "").strip().lower() in ("off", "0", "no", "false"):
        return None
    return cache_root() / "checks"


def memo_key(name: str, roots: Sequence[str], args: Any) -> str:
    """sha256 of a computation's name, its arguments and the code of ``roots`` (modules
    of this package, with every module of the package they import)."""
    from .codeprint import code_fingerprint, plain

    data = {"name": name, "args": args, "code": code_fingerprint(tuple(sorted(roots))), "format": FORMAT}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=plain).encode()).hexdigest()


def remembered(name: str, roots: Sequence[str], args: Any, compute: Callable[[], Any],
               encode: Callable[[Any], Any] = lambda v: v, decode: Callable[[Any], Any] = lambda v: v) -> Any:
    """``compute()``, or the result it gave before for the same ``name``, ``args`` and code.

    ``args`` is everything ``compute`` reads (plain data and dataclasses, as a part's key
    takes them); ``roots`` the modules whose code computes it. ``encode`` turns the result
    into JSON data and ``decode`` turns that back (``decode(encode(r)) == r``). An exception
    from ``compute`` passes through and nothing is kept.
    """
    folder = memo_dir()
    if folder is None:
        return compute()
    key = memo_key(name, roots, args)
    path = folder / f"{key}.json"
    found = _read(path, key)
    if found is not None:
        try:
            return decode(found["value"])
        except Exception:  # an entry that does not decode, whatever it holds, is a miss
            pass
    value = compute()
    _write(folder, path, {"key": key, "name": name, "value": encode(value)})
    return value


def _read(path: Path, key: str) -> dict[str, Any] | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO planted there cannot block
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ENTRY_BYTES:
                return None
            entry = json.loads(fh.read(MAX_ENTRY_BYTES + 1))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key or "value" not in entry:
        return None
    return entry


def _write(folder: Path, path: Path, entry: dict[str, Any]) -> None:
    tmp = None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(entry, fh, sort_keys=True)
        os.replace(tmp, path)  # no fsync: an entry lost to a crash is computed again
        tmp = None
    except (OSError, TypeError, ValueError):
        pass  # best effort: a read-only or full cache folder costs only the time it would have saved
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
