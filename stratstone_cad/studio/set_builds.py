"""Whole builds for the studio's downloads that need more than one part: the print plates
(3MF), the STEP files and the whole set as a zip. Each is the build itself
(:func:`stratstone_cad.pipeline.build.build`) into a folder of ``--out`` kept per game and
printer, so its manifest's cache makes again only what a change changed; one build at a time
a folder, and its files read before the next starts. They run at a lower priority
(:data:`BACKGROUND_NICE`) than the parts the page previews.

A client's plate asked for with a :class:`Ticket` waits in its folder's queue; what it waits
for (the builds ahead) or how far its build is (the build's last progress line) is
:meth:`SetBuilds.progress`'s answer. A ticket superseded by its client's newer one, or
whose client went away, is skipped when its turn comes: no plate is built or sliced for a
change the user has changed again."""

from __future__ import annotations

import io
import json
import re
import shutil
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stratstone_cad.base.processes import lower_thread_priority
from stratstone_cad.pipeline.build import build
from stratstone_cad.pipeline.manifest import read_manifest
from stratstone_cad.studio.settings import Planned

SETS_FOLDER = "sets"
#: The nice value of the whole builds, their workers and PrusaSlicer: they give the cores
#: to the part being previewed first (measured on 2 cores, a stone made while its plate of 25
#: parts was built and sliced: 0.95-1.2 s at the same priority, 0.76-0.79 s at this one, 0.65-
#: 0.76 s with no build beside it; docs/benchmarks.md).
BACKGROUND_NICE = 10
REPORT = "print-report.md"


#: What :meth:`SetBuilds.built` answers for a ticket skipped (superseded, or its client gone).
SKIPPED = object()


@dataclass(eq=False)
class Ticket:
    """One client's request for a whole build: when it was asked, when its build started
    (None: waiting), the build's last progress line, and whether its client went away."""

    client: str = ""
    folder: str = ""
    asked: float = field(default_factory=time.monotonic)
    started: float | None = None
    step: str = ""
    gone: bool = False


class _Steps(io.TextIOBase):
    """The build's progress (``[3/8] sliced ...`` lines) as a stream: its last line kept on a ticket."""

    def __init__(self, ticket: Ticket) -> None:
        self.ticket = ticket

    def write(self, text: str) -> int:
        lines = [line for line in text.replace("\r", "\n").splitlines() if line.strip()]
        if lines:
            self.ticket.step = lines[-1].strip()[:160]
        return len(text)

    def isatty(self) -> bool:
        return False


def slicer_installed() -> bool:
    return shutil.which("prusa-slicer") is not None


class SetBuilds:
    """The studio's build folders, one build at a time each: ``out/sets/GAME-PRINTER/``
    for the plates and their print figures, ``GAME-PRINTER-step/`` for the builds with STEP
    files (the zip, a STEP download): a build without ``--step`` removes the STEP files, so
    one folder would make them again after each plate's figures were asked for."""

    def __init__(self, out: Path, jobs: int) -> None:
        self.root, self.jobs = out / SETS_FOLDER, jobs
        self.lock = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}
        self.queues: dict[str, list[Ticket]] = {}  # folder -> its tickets in the order asked (running first)
        self.latest: dict[str, Ticket] = {}  # client -> its latest ticket

    def _lock(self, name: str) -> threading.Lock:
        with self.lock:
            return self.locks.setdefault(name, threading.Lock())

    def built(self, p: Planned, step: bool, wanted: Any, sliced: bool = True, ticket: Ticket | None = None) -> Any:
        """Build ``p``'s game as ``build GAME --plates [--step] --set ...`` does (``sliced``:
        with PrusaSlicer's figures when it is installed), then call ``wanted(folder,
        manifest)`` with the folder locked (the files stay as they are while it reads
        them) and return what it returns; :data:`SKIPPED` for a ``ticket`` superseded or
        abandoned before its turn."""
        name = f"{p.assets.name}-{p.printer.name}" + ("-step" if step else "")
        folder = self.root / name
        ticket = ticket or Ticket()
        if threading.current_thread() is not threading.main_thread():  # a request's own thread (app.in_thread)
            lower_thread_priority(BACKGROUND_NICE)
        self._enqueue(ticket, name)
        try:
            with self._lock(name):
                if self._skipped(ticket):
                    return SKIPPED
                ticket.started = time.monotonic()
                build([p.assets.name], p.printer.name, folder, jobs=self.jobs, sets=p.sets, progress=_Steps(ticket),
                      plates=True, slice_plates=sliced and slicer_installed(), step=step, on_warning=lambda text: None)
                return wanted(folder, read_manifest(folder))
        finally:
            with self.lock:
                self.queues[name].remove(ticket)

    def _enqueue(self, ticket: Ticket, name: str) -> None:
        with self.lock:
            ticket.folder = name
            self.queues.setdefault(name, []).append(ticket)
            if ticket.client:
                self.latest[ticket.client] = ticket

    def _skipped(self, ticket: Ticket) -> bool:
        """Whether ``ticket`` is no longer wanted: its client went away or asked again since."""
        return ticket.gone or (bool(ticket.client) and self.latest.get(ticket.client) is not ticket)

    def progress(self, client: str) -> dict[str, Any]:
        """How far ``client``'s latest whole build is: ``{"state": "waiting", "ahead": N,
        "for_s": S}`` (N builds of its folder to run before it, asked S s ago),
        ``{"state": "building", "for_s": S, "step": LINE}`` (its build's last progress
        line), or ``{"state": "idle"}``."""
        now = time.monotonic()
        with self.lock:
            t = self.latest.get(client)
            queue = self.queues.get(t.folder, []) if t is not None else []
            if t is None or t not in queue:
                return {"state": "idle"}
            if t.started is not None:
                return {"state": "building", "for_s": round(now - t.started), "step": t.step}
            ahead = [o for o in queue[:queue.index(t)] if o.started is not None or not self._skipped(o)]
            return {"state": "waiting", "ahead": len(ahead), "for_s": round(now - t.asked)}

    def file(self, p: Planned, file: str) -> bytes | None:
        """The bytes of ``game/file`` as the build writes it (a 3MF plate or a STEP file),
        None when its plan makes no such file. The path read is the manifest's own name."""
        step = file.endswith((".step", ".glb"))

        def read(folder: Path, manifest: dict[str, Any]) -> bytes | None:
            listed = next((f for f in manifest if f == f"{p.assets.name}/{file}"), None)
            return None if listed is None else (folder / listed).read_bytes()

        return self.built(p, step, read, sliced=False)  # no file waits for the slicer

    def plate_of(self, p: Planned, file: str, sliced: bool = True, ticket: Ticket | None = None) -> Any:
        """The manifest entry of the plate that prints ``game/file`` (with PrusaSlicer's
        figures when ``sliced`` and it is installed), None when no plate does. The plate is
        the one whose parts (its entry's ``inputs``) hold the file: a print job laid out on
        more than one bed writes ``stem-plate-i-of-n.3mf``, not ``stem.3mf``. :data:`SKIPPED`
        for a ``ticket`` superseded before its turn."""

        def find(folder: Path, manifest: dict[str, Any]) -> dict[str, Any] | None:
            return plate_holding(manifest, file)

        return self.built(p, False, find, sliced=sliced, ticket=ticket)

    def zipped(self, p: Planned) -> bytes:
        """The whole set as a zip: every file the manifest lists for the game (parts, plates,
        STEP, the set), the print report when sliced, and ``params.toml``."""

        def pack(folder: Path, manifest: dict[str, Any]) -> bytes:
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                for f in sorted(f for f, e in manifest.items() if e.get("game") == p.assets.name):
                    z.writestr(f, (folder / f).read_bytes())
                if (folder / REPORT).is_file() and slicer_installed():
                    z.writestr(REPORT, (folder / REPORT).read_bytes())
                z.writestr("params.toml", params_toml(p))
            return buf.getvalue()

        return self.built(p, True, pack)


def plate_holding(manifest: dict[str, Any], file: str) -> dict[str, Any] | None:
    """The manifest entry of the plate (3MF) whose parts hold ``file``, None when none does."""
    return next((e for f, e in sorted(manifest.items()) if f.endswith(".3mf") and file in e.get("inputs", {})), None)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string: JSON's escapes are TOML's


def params_toml(p: Planned) -> str:
    """The settings as a ``--params`` file: each changed parameter with its checked value,
    in its section's table; the printer, which is an option, said in the command."""
    lines = [f"# stratstone-cad build {p.assets.name} --plates --step --printer {p.printer.name} --params params.toml",
             "# writes the files of this zip, byte for byte"]
    tables: dict[str, list[str]] = {}
    for name in sorted(p.sets):
        prefix, field = name.rsplit(".", 1)
        tables.setdefault(prefix, []).append(f"{field} = {_toml_value(p.params.section(prefix)[field])}")
    for prefix, fields in tables.items():
        lines += ["", f"[{'.'.join(_quoted(k) for k in prefix.split('.'))}]", *fields]
    return "\n".join(lines) + "\n"


def _quoted(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)
