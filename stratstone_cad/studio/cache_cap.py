"""The studio's folder capped (``studio --max-cache-mb N``): what the studio builds there, the
parts (``parts/KEY/``), the whole builds' folders (``sets/GAME-PRINTER*/``) and the zips
(``sets/zips/*.zip``), is kept under the cap by dropping the least recently used first.
Never dropped: anything held (a part being made or served, a set being built, a zip being
streamed: :meth:`Cap.held`), and nothing else in the folder (the Play room's ``tables/``,
training progress, the memo's ``cache/``): only those three kinds are ever looked at.
A use touches the entry's time (its mtime, so the order survives a restart)."""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.responses import FileResponse
from starlette.types import Receive, Scope, Send

#: The default cap (MB of 10^6 bytes).
DEFAULT_MB = 2000


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, f)).st_size
    return total


class Cap:
    """The cap on ``out``'s parts, sets and zips: ``max_bytes`` in all."""

    def __init__(self, out: Path, max_bytes: int) -> None:
        self.out, self.max_bytes = out, max_bytes
        self.lock = threading.Lock()
        self.holds: collections.Counter[Path] = collections.Counter()

    def entries(self) -> list[Path]:
        """The entries the cap may drop: each part's folder, each set's folder, each zip."""
        found: list[Path] = []
        for kind, files in (("parts", False), ("sets", False), ("sets/zips", True)):
            with contextlib.suppress(OSError):
                found += [e for e in (self.out / kind).iterdir() if not e.is_symlink() and not e.name.startswith(".")
                          and (e.is_file() and e.suffix == ".zip" if files else e.is_dir() and e.name != "zips")]
        return found

    @contextlib.contextmanager
    def held(self, entry: Path) -> Iterator[None]:
        """``entry`` (a part's or a set's folder, a zip) neither dropped while the block runs, and marked used."""
        entry = Path(entry)
        with self.lock:
            self.holds[entry] += 1
        try:
            self.used(entry)
            yield
        finally:
            with self.lock:
                self.holds[entry] -= 1
                if not self.holds[entry]:
                    del self.holds[entry]

    def used(self, entry: Path) -> None:
        with contextlib.suppress(OSError):
            os.utime(entry)

    def trim(self) -> list[Path]:
        """Drop the least recently used entries not held until the rest fits the cap; returns those dropped."""
        with self.lock:
            sized = []
            for e in self.entries():
                with contextlib.suppress(OSError):
                    sized.append((e.stat().st_mtime, _size(e), e))
            total = sum(s for _, s, _ in sized)
            dropped = []
            for _, size, entry in sorted(sized):
                if total <= self.max_bytes:
                    break
                if entry in self.holds:
                    continue
                if entry.is_dir():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
                total -= size
                dropped.append(entry)
            return dropped


class HeldFileResponse(FileResponse):
    """A file streamed from disk, held by ``cap`` (not dropped) until its last byte is sent or the client has gone."""

    def __init__(self, cap: Cap | None, path: Path, **kw: Any) -> None:
        super().__init__(path, **kw)
        self.cap, self.entry = cap, Path(path)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with self.cap.held(self.entry) if self.cap is not None else contextlib.nullcontext():
            await super().__call__(scope, receive, send)
