"""The studio's parts: each made once, by the build's own job function in the build's
workers, into a folder named by its cache key (the build's key: a part whose key did not
change is never made again), and its preview kept in memory, a bounded number of them.

Two requests for the same key share one making. A client's newer request supersedes its
request still queued (its making, not started, is cancelled unless another client waits
for the same key); a client that goes away cancels what only it waited for. A pool broken by a
worker's death (SIGKILL, the out-of-memory killer) is replaced and the making asked again once."""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures as cf
import contextlib
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stratstone_cad.assets.jobs import Job
from stratstone_cad.errors import WorkersLost
from stratstone_cad.printing.checks import Mesh, mesh_facts
from stratstone_cad.printing.stl import read_stl_mesh
from stratstone_cad.studio.cache_cap import Cap
from stratstone_cad.studio.settings import Planned

#: Previews kept in memory (the least recently used go first): a stone's is a few hundred kB.
PREVIEWS_KEPT = 64
PARTS_FOLDER = "parts"


@dataclass(frozen=True)
class Made:
    """A part's files on disk (``folder``: the key's, holding the build's relative names)
    and its manifest entries as the build writes them."""

    folder: Path
    entries: list[dict[str, Any]]

    def entry(self, file: str) -> dict[str, Any]:
        return next(e for e in self.entries if e["file"] == file)


def make_part(run: Callable[..., list[dict[str, Any]]], job: Job, mesh: Any, profiles: Any, folder: str,
              key: str) -> None:
    """In a worker: the job made by the build's function into ``folder``, then its entries
    written beside its files (last: a folder with them holds the whole part)."""
    import json

    from stratstone_cad.base.fileio import atomic_write

    for sub in {Path(o.file).parent for o in job.outputs}:
        (Path(folder) / sub).mkdir(parents=True, exist_ok=True)
    entries = run(job, mesh, profiles, folder, key)
    atomic_write(Path(folder) / "entries.json", json.dumps(entries).encode("utf-8"), follow_symlinks=False)


class PartMaker:
    """The parts made so far (``out/parts/KEY/``), the makings under way, the previews kept.

    ``submit(job, planned, key)`` is run by a pool of the build's workers (or, in tests, a
    thread pool); ``run`` is the function that makes a job's files and returns its entries
    (the build's :func:`~stratstone_cad.pipeline.build.run_job`); ``new_pool`` makes the
    pool that replaces a broken one (None: none is replaced)."""

    def __init__(self, out: Path, pool: cf.Executor, run: Callable[..., list[dict[str, Any]]],
                 kept: int = PREVIEWS_KEPT, new_pool: Callable[[], cf.Executor] | None = None) -> None:
        self.root = out / PARTS_FOLDER
        self.pool, self.run, self.kept, self.new_pool = pool, run, kept, new_pool
        self.lock = threading.RLock()  # a future cancelled under it runs its callback (_finished) at once
        self.making: dict[str, cf.Future] = {}
        self.waiting: dict[str, set[str]] = collections.defaultdict(set)  # key -> clients that wait for it
        self.queued: dict[str, str] = {}  # client -> the key of its latest request
        self.previews: collections.OrderedDict[str, tuple[bytes, dict[str, Any]]] = collections.OrderedDict()
        self.made_count = 0  # jobs run: a test's witness that a part was made once
        self.cap: Cap | None = None  # the studio's folder's cap: each part held while made, then the folder trimmed

    def folder(self, key: str) -> Path:
        return self.root / key

    def _entries(self, key: str) -> Path:
        return self.folder(key) / "entries.json"

    def cached(self, key: str) -> Made | None:
        import json

        path = self._entries(key)
        if not path.is_file():
            return None
        return Made(self.folder(key), json.loads(path.read_text(encoding="utf-8")))

    async def made(self, job: Job, planned: Planned, key: str, client: str = "") -> Made:
        """The part of ``job``: from its key's folder, or made once however many ask.

        Raises:
            WorkersLost: the build's workers died twice while making the part.
        """
        done = self.cached(key)
        if done is not None:
            if self.cap is not None:
                self.cap.used(done.folder)
            return done
        with self.cap.held(self.folder(key)) if self.cap is not None else contextlib.nullcontext():
            done = await self._making(job, planned, key, client)
        if self.cap is not None:
            await asyncio.to_thread(self.cap.trim)
        return done

    async def _making(self, job: Job, planned: Planned, key: str, client: str) -> Made:
        for attempt in (1, 2):
            pool = self.pool
            try:
                fut = self._start(job, planned, key, client)
                await asyncio.shield(asyncio.wrap_future(fut))
            except asyncio.CancelledError:  # the client went away: its making goes unless another waits
                self._leave(key, client)
                raise
            except cf.BrokenExecutor:  # a worker died: new workers, and the part asked of them once
                self._leave(key, client)
                self._replace(pool)
                if attempt == 2 or self.new_pool is None:
                    raise WorkersLost(f"{key[:12]}: the build's workers died twice while making this part (killed, "
                                      "or out of memory); new ones are ready: ask again") from None
                continue
            self._leave(key, client)
            break
        done = self.cached(key)
        assert done is not None
        return done

    def _start(self, job: Job, planned: Planned, key: str, client: str) -> cf.Future:
        with self.lock:
            older = self.queued.get(client)
            if client and older and older != key:
                self._drop(older, client)  # superseded: cancelled if still queued and no one else waits
            self.queued[client] = key
            self.waiting[key].add(client)
            fut = self.making.get(key)
            if fut is None or fut.cancelled():
                fut = self.making[key] = self.pool.submit(make_part, self.run, job, planned.params.mesh,
                                                          planned.profiles, str(self.folder(key)), key)
                fut.add_done_callback(lambda f, k=key: self._finished(k, f))
            return fut

    def _replace(self, broken: cf.Executor) -> None:
        """A new pool for ``broken`` (unless another request replaced it already)."""
        with self.lock:
            if self.pool is not broken or self.new_pool is None:
                return
            self.pool = self.new_pool()
        broken.shutdown(wait=False, cancel_futures=True)

    def _finished(self, key: str, fut: cf.Future) -> None:
        with self.lock:
            if self.making.get(key) is fut:
                del self.making[key]
            if not fut.cancelled() and fut.exception() is None:
                self.made_count += 1

    def _drop(self, key: str, client: str) -> None:
        self.waiting[key].discard(client)
        if not self.waiting[key]:
            fut = self.making.get(key)
            if fut is not None:
                fut.cancel()  # only if not started; its callback unlists it

    def _leave(self, key: str, client: str) -> None:
        with self.lock:
            if self.queued.get(client) == key:
                del self.queued[client]
            self._drop(key, client)
            if not self.waiting[key]:
                del self.waiting[key]

    def preview_named(self, made: Made, file: str, colour: str) -> tuple[str, dict[str, Any]]:
        """The name of ``file``'s preview in ``colour`` (its GLB kept in memory for the
        :data:`PREVIEWS_KEPT` most recently asked for) and its facts: size, volume, grams of
        PLA, triangles, profile."""
        name = hashlib.sha256(f"{made.folder.name}\0{file}\0{colour}".encode()).hexdigest()[:32]
        with self.lock:
            if name in self.previews:
                self.previews.move_to_end(name)
                return name, self.previews[name][1]
        mesh = read_stl_mesh((made.folder / file).read_bytes())
        facts = {**mesh_facts(mesh), **_described(made.entry(file))}
        glb = _glb(file, mesh, colour)
        with self.lock:
            self.previews[name] = (glb, facts)
            while len(self.previews) > self.kept:
                self.previews.popitem(last=False)
        return name, facts

    def preview_glb(self, name: str) -> bytes | None:
        """The GLB of the preview ``name``; None once it left memory."""
        with self.lock:
            kept = self.previews.get(name)
        return None if kept is None else kept[0]

    def preview_page(self, name: str) -> str | None:
        """The replay page's player showing the preview ``name``; None once it left memory."""
        from stratstone_cad.viewer.web import page

        with self.lock:
            kept = self.previews.get(name)
        return None if kept is None else page(kept[0], "stratstone-cad studio: " + kept[1]["file"])

    def cancel_all(self) -> None:
        with self.lock:
            for fut in self.making.values():
                fut.cancel()


def _described(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: entry[k] for k in ("file", "part", "colour", "profile", "sha256", "plate") if k in entry}


def _glb(file: str, mesh: Mesh, colour: str) -> bytes:
    """A one-part scene for the replay page's player, in its print colour, on the bed (z 0)."""
    from stratstone_cad.viewer.gltf import GlbBuilder

    lo, hi = mesh.bounds()
    centred = mesh.translated((-(lo[0] + hi[0]) / 2, -(lo[1] + hi[1]) / 2, -lo[2]))
    b = GlbBuilder()
    name = Path(file).stem
    b.node({"name": name, "mesh": b.mesh(name, centred, colour)})
    b.doc["scenes"][0]["name"] = name
    b.doc["scenes"][0]["extras"] = {"kind": "set", "title": file, "parts": [name]}
    return b.glb()
