"""Whole builds for the studio's downloads that need more than one part: the print plates
(3MF), the STEP files and the whole set as a zip. Each is the build itself (``build
GAME --plates``, in a process of its own: :func:`~stratstone_cad.studio.set_jobs.run_build`,
stopped when nobody waits for it) into a folder of ``--out`` kept per game and printer, so
its manifest's cache makes again only what a change changed; one build at a time a folder,
and its files read before the next starts. They run at a lower priority
(:data:`BACKGROUND_NICE`) than the parts the page previews. The zip is a file on disk,
made once per setting (named by what it holds) and streamed from there.

A client's plate asked for with a :class:`Ticket` waits for its job; what it waits for (the
builds of its folder ahead) or how far its build is (the build process's last progress
line) is :meth:`SetBuilds.progress`'s answer. A ticket superseded by its client's newer one
stops waiting at once (answered as superseded), as one whose client went away does: a job
nobody waits for any more is stopped, so no plate is built or sliced for a change the user
has changed again."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
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
from stratstone_cad.pipeline.manifest import read_manifest
from stratstone_cad.studio import set_jobs
from stratstone_cad.studio.cache_cap import Cap
from stratstone_cad.studio.settings import Planned

SETS_FOLDER = "sets"
ZIPS_FOLDER = "zips"
#: The nice value of the whole builds, their workers and PrusaSlicer: they give the cores
#: to the part being previewed first (measured on 2 cores, a stone made while its plate of 25
#: parts was built and sliced: 0.95-1.2 s at the same priority, 0.76-0.79 s at this one, 0.65-
#: 0.76 s with no build beside it; docs/benchmarks.md).
BACKGROUND_NICE = 10
REPORT = "print-report.md"


@dataclass(eq=False)
class Ticket:
    """One client's request for a whole build: its folder, when it was asked, the stop
    event of the job it waits for (shared with the other requests for the same thing), set
    ``superseded`` by the client's newer ticket, ``done`` once answered."""

    client: str = ""
    folder: str = ""
    asked: float = field(default_factory=time.monotonic)
    stop: threading.Event | None = None
    superseded: asyncio.Event = field(default_factory=asyncio.Event)
    done: bool = False

    def joined(self, job: Any) -> None:
        """Told the job (:class:`~stratstone_cad.studio.set_jobs.Job`) this ticket waits for."""
        self.stop = job.stop


@dataclass(eq=False)
class _Run:
    """A whole build in its folder's queue: its job's stop event, when it started (None:
    waiting for the folder), its process's last progress line."""

    stop: threading.Event
    started: float | None = None
    step: str = ""

    def seen(self, line: str) -> None:
        if line.startswith("["):  # a progress line, ``[3/8] sliced ...``
            self.step = line[:160]


def slicer_installed() -> bool:
    return shutil.which("prusa-slicer") is not None


class SetBuilds:
    """The studio's build folders, one build at a time each: ``out/sets/GAME-PRINTER/``
    for the plates and their print figures, ``GAME-PRINTER-step/`` for the builds with STEP
    files (the zip, a STEP download): a build without ``--step`` removes the STEP files, so
    one folder would make them again after each plate's figures were asked for. Every
    method takes ``stop``, a threading.Event set when nobody waits any more."""

    def __init__(self, out: Path, jobs: int) -> None:
        self.root, self.jobs = out / SETS_FOLDER, jobs
        self.lock = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}
        self.zips: dict[tuple[Any, ...], Path] = {}  # a setting's zip, once made by this studio
        self.cap: Cap | None = None  # the studio's folder's cap: a folder held while built, then the folder trimmed
        self.queues: dict[str, list[_Run]] = {}  # folder -> its builds in the order asked (running first)
        self.latest: dict[str, Ticket] = {}  # client -> its latest ticket

    def _lock(self, name: str) -> threading.Lock:
        with self.lock:
            return self.locks.setdefault(name, threading.Lock())

    @staticmethod
    def folder_name(p: Planned, step: bool) -> str:
        """The name of ``p``'s build folder under ``out/sets/``."""
        return f"{p.assets.name}-{p.printer.name}" + ("-step" if step else "")

    def built(self, p: Planned, step: bool, wanted: Any, sliced: bool, stop: threading.Event) -> Any:
        """Build ``p``'s game as ``build GAME --plates [--step] --set ...`` does (``sliced``:
        with PrusaSlicer's figures when it is installed), then call ``wanted(folder,
        manifest)`` with the folder locked (the files stay as they are while it reads
        them) and return what it returns. Ends once ``stop`` is set."""
        name = self.folder_name(p, step)
        folder = self.root / name
        if threading.current_thread() is not threading.main_thread():  # a job's own thread
            lower_thread_priority(BACKGROUND_NICE)
        run = _Run(stop)
        with self.lock:
            self.queues.setdefault(name, []).append(run)
        try:
            lock = self._lock(name)
            set_jobs.acquired(lock, stop)
            run.started = time.monotonic()
            try:
                with self.cap.held(folder) if self.cap is not None else contextlib.nullcontext():
                    return self._built_locked(p, folder, step, wanted, sliced, run)
            finally:
                lock.release()
                if self.cap is not None:
                    self.cap.trim()
        finally:
            with self.lock:
                self.queues[name].remove(run)

    def _built_locked(self, p: Planned, folder: Path, step: bool, wanted: Any, sliced: bool, run: _Run) -> Any:
        args = [p.assets.name, "--printer", p.printer.name, "--out", str(folder), "--jobs", str(self.jobs),
                "--plates", *(["--step"] if step else []), *([] if sliced and slicer_installed() else ["--no-slice"]),
                *[x for k, v in sorted(p.sets.items()) for x in ("--set", f"{k}={v}")]]
        set_jobs.run_build(args, run.stop, run.seen)
        return wanted(folder, read_manifest(folder))

    def ask(self, ticket: Ticket) -> Ticket | None:
        """``ticket`` its client's latest; the one it supersedes returned (None: none)."""
        if not ticket.client:
            return None
        with self.lock:
            old = self.latest.get(ticket.client)
            self.latest[ticket.client] = ticket
        return old if old is not ticket and old is not None and not old.done else None

    def started(self, ticket: Ticket) -> bool:
        """Whether the build ``ticket`` waits for has started (holds its folder)."""
        with self.lock:
            return any(r.stop is ticket.stop and r.started is not None for r in self.queues.get(ticket.folder, []))

    def progress(self, client: str) -> dict[str, Any]:
        """How far ``client``'s latest whole build is: ``{"state": "waiting", "ahead": N,
        "for_s": S}`` (N builds of its folder to run before it, none of them stopped;
        asked S s ago), ``{"state": "building", "for_s": S, "step": LINE}`` (its build
        process's last progress line), or ``{"state": "idle"}``."""
        now = time.monotonic()
        with self.lock:
            t = self.latest.get(client)
            if t is None or t.done:
                return {"state": "idle"}
            queue = self.queues.get(t.folder, [])
            mine = next((r for r in queue if t.stop is not None and r.stop is t.stop), None)
            if mine is not None and mine.started is not None:
                return {"state": "building", "for_s": round(now - mine.started), "step": mine.step}
            before = queue if mine is None else queue[:queue.index(mine)]
            ahead = [r for r in before if r.started is not None or not r.stop.is_set()]
            return {"state": "waiting", "ahead": len(ahead), "for_s": round(now - t.asked)}

    def file(self, p: Planned, file: str, stop: threading.Event) -> bytes | None:
        """The bytes of ``game/file`` as the build writes it (a 3MF plate or a STEP file),
        None when its plan makes no such file. The path read is the manifest's own name."""
        step = file.endswith((".step", ".glb"))

        def read(folder: Path, manifest: dict[str, Any]) -> bytes | None:
            listed = next((f for f in manifest if f == f"{p.assets.name}/{file}"), None)
            return None if listed is None else (folder / listed).read_bytes()

        return self.built(p, step, read, False, stop)  # no file waits for the slicer

    def plate_of(self, p: Planned, file: str, sliced: bool, stop: threading.Event) -> dict[str, Any] | None:
        """The manifest entry of the plate that prints ``game/file`` (with PrusaSlicer's
        figures when ``sliced`` and it is installed), None when no plate does. The plate is
        the one whose parts (its entry's ``inputs``) hold the file: a print job laid out on
        more than one bed writes ``stem-plate-i-of-n.3mf``, not ``stem.3mf``."""

        def find(folder: Path, manifest: dict[str, Any]) -> dict[str, Any] | None:
            return plate_holding(manifest, file)

        return self.built(p, False, find, sliced, stop)

    def zipped(self, p: Planned, stop: threading.Event) -> Path:
        """The whole set as a zip file on disk (``out/sets/zips/``, named by the sha256 of what
        it holds, so made once per setting): every file the manifest lists for the game
        (parts, plates, STEP, the set), the print report when sliced, and ``params.toml``."""
        setting = (p.assets.name, p.printer.name, tuple(sorted(p.sets.items())), slicer_installed())
        known = self.zips.get(setting)
        if known is not None and known.is_file():
            return known

        def pack(folder: Path, manifest: dict[str, Any]) -> Path:
            files = sorted(f for f, e in manifest.items() if e.get("game") == p.assets.name)
            report = slicer_installed() and (folder / REPORT).is_file()
            toml = params_toml(p)
            digest = hashlib.sha256(json.dumps([[(f, manifest[f].get("sha256")) for f in files], toml, report and
                                                hashlib.sha256((folder / REPORT).read_bytes()).hexdigest()]).encode())
            path = self.root / ZIPS_FOLDER / f"{digest.hexdigest()[:32]}.zip"
            if not path.is_file():
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".{path.name}.{threading.get_ident()}.part")
                with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:  # written from the files, chunk by chunk
                    for f in files:
                        z.write(folder / f, f)
                    if report:
                        z.write(folder / REPORT, REPORT)
                    z.writestr("params.toml", toml)
                tmp.replace(path)
            return path

        path = self.zips[setting] = self.built(p, True, pack, True, stop)
        return path


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
