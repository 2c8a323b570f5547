"""Atomic, deterministic file output shared by every writer.

A file is written to a temporary name in the same folder and renamed over the
target, so a reader (or a crash) never sees half a file: an interrupted write leaves
the old file (or no file) and removes its temporary file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import OutputError


def ensure_writable_dir(path: Path, what: str = "output folder") -> Path:
    """Create ``path`` if needed and prove it is writable; raises OutputError."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{what} {path}: is a file, expected a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise OutputError(f"{what} {path}: not writable ({e.strerror or e})") from None
    return path


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder + rename)."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise OutputError(f"output file {path}: cannot write ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError):
            raise OutputError(f"output file {path}: cannot write ({e.strerror or e})") from None
        raise
