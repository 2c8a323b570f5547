"""The studio's web app (Starlette): the page, the forms, the parts' previews and facts, and
the downloads, each answer made from the settings of its query (``set=NAME=VALUE``, as
``build --set`` takes them; ``printer=NAME``).

Refused: a Host header that is not the address the client connected to (DNS rebinding), a
request another site's page makes (its ``Origin`` or ``Sec-Fetch-Site`` says so), any
method but GET and HEAD (and POST to the Play room's /api/table/ and the Training page's /api/training/), a
frame of another site's page (every answer says so); the page
opened from another site builds nothing until the person asks. A value the checks refuse is HTTP 400 with the build's one-line
message as plain text; a file the plan does not make, 404. File names come from the plan."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from stratstone_cad.base.colours import display_colour, load_colours
from stratstone_cad.errors import BuildError, TableError, UserError
from stratstone_cad.registry import game_names
from stratstone_cad.studio import play_page, play_routes, training
from stratstone_cad.studio.cache_cap import DEFAULT_MB, Cap, HeldFileResponse
from stratstone_cad.studio.part_making import PartMaker
from stratstone_cad.studio.play_routes import PlayRoom
from stratstone_cad.studio.set_builds import SetBuilds, Ticket
from stratstone_cad.studio.set_jobs import SetJobs
from stratstone_cad.studio.settings import Planned, form, plan, sets_of

#: The paths a POST may go to: the Play room's tables, the Training page's moves.
POSTED = ("/api/table/", "/api/training/")
#: What :meth:`Studio.ticketed` answers for a request its client's newer one superseded.
SUPERSEDED = object()

PAGE_FILES = {"studio.js": "text/javascript", "studio.css": "text/css", "play.js": "text/javascript",
              "board2d.js": "text/javascript", "training.js": "text/javascript"}
FILE_NAME = r"[a-z0-9][a-z0-9._-]{0,120}"
#: The answer to a request still open when the studio stops (Ctrl-C, SIGTERM): uvicorn
#: cancels it after its graceful wait, and would answer 500.
STOPPED = "the studio stopped before this answer was ready: start it again and ask again"
#: Sent with every answer: no page of another site may frame the studio's (a framed page
#: could build, or its download links be clickjacked); its own previews stay framed.
FRAMING = [(b"x-frame-options", b"SAMEORIGIN"), (b"content-security-policy", b"frame-ancestors 'self'")]


async def in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a daemon thread (a stop never waits for it: the server's exit kills it)."""
    loop = asyncio.get_running_loop()
    fut = loop.create_future()

    def run() -> None:
        try:
            result = fn(*args)
        except BaseException as e:  # handed to the awaiting request as it is
            error = e
            answer = lambda: fut.done() or fut.set_exception(error)  # noqa: E731
        else:
            answer = lambda: fut.done() or fut.set_result(result)  # noqa: E731
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the studio stopped
            loop.call_soon_threadsafe(answer)

    threading.Thread(target=run, daemon=True).start()
    return await fut


async def until_gone(request: Request, work: Any) -> Any:
    """``work`` awaited, cancelled when the client goes away meanwhile (or this is cancelled:
    a request superseded by its client's newer one)."""
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=0.25)
            if done:
                return task.result()
            if await request.is_disconnected():
                raise asyncio.CancelledError
    finally:
        task.cancel()  # nothing once it is done


class Studio:
    """The app's state: the parts (made once each, ``maker``) and the whole builds (``builds``), under ``out``."""

    def __init__(self, out: Path, maker: PartMaker, builds: SetBuilds, printer: str | None = None,
                 game: str | None = None, max_cache_mb: int = DEFAULT_MB) -> None:
        self.out, self.maker, self.builds, self.printer, self.game = out, maker, builds, printer, game
        self.room: PlayRoom | None = None  # the Play room's tables (app() makes it)
        self.host_names: tuple[str, ...] = ()  # studio --host NAME: a Host header may name it (a second device)
        self.puzzle_files: tuple[Path, ...] = ()  # studio --puzzles FILE...: the Training page's own puzzles
        self.set_jobs = SetJobs()
        self.cap = maker.cap = builds.cap = Cap(out, max_cache_mb * 10**6)  # what it builds in out: capped

    async def whole(self, request: Request, p: Planned, fn: Callable[..., Any], *args: Any,
                    joined: Callable[[Any], None] | None = None) -> Any:
        """``fn(p, *args, stop)``, a whole build, shared with the requests for the same, stopped when they all go."""
        key = (fn.__name__, p.assets.name, p.printer.name, tuple(sorted(p.sets.items())), *args)
        return await until_gone(request, self.set_jobs.run(key, fn, p, *args, joined=joined))

    async def ticketed(self, request: Request, ticket: Ticket, p: Planned, fn: Callable[..., Any], *args: Any) -> Any:
        """:meth:`whole` for a client's ``ticket``, or :data:`SUPERSEDED` when the client asks
        again before its build has started: this request then stops waiting (the job stopped
        if nobody else waits). A build already running is waited for."""
        old = self.builds.ask(ticket)
        if old is not None:
            old.superseded.set()
        job = asyncio.ensure_future(self.whole(request, p, fn, *args, joined=ticket.joined))
        superseded = asyncio.ensure_future(ticket.superseded.wait())
        try:
            await asyncio.wait({job, superseded}, return_when=asyncio.FIRST_COMPLETED)
            if not job.done() and self.builds.started(ticket):
                await asyncio.wait({job})
        finally:
            ticket.done = True
            superseded.cancel()
            if not job.done():  # superseded, or this request cancelled (its client gone)
                job.cancel()
        return job.result() if job.done() and not job.cancelled() else SUPERSEDED

    async def planned(self, request: Request, game: str) -> Planned:
        sets = sets_of(request.query_params.getlist("set"))
        return await in_thread(plan, game, sets, request.query_params.get("printer") or self.printer)

    # ------------------------------------------------------------------ routes

    async def page(self, request: Request) -> Response:
        """The page; opened from another site's page (a link, a script), it shows the settings
        of its address and builds nothing until the person asks (its Preview button)."""
        html = _page_file("index.html")
        if request.headers.get("sec-fetch-site", "none") not in ("same-origin", "none"):
            html = html.replace("<body>", '<body data-held="another-site">', 1)
        return HTMLResponse(html)

    async def page_file(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in PAGE_FILES:
            return PlainTextResponse(f"/page/{name}: no such file", 404)
        return Response(_page_file(name), media_type=PAGE_FILES[name])

    async def games(self, request: Request) -> Response:
        return JSONResponse({"games": game_names(), "game": self.game or game_names()[0], "printer": self.printer})

    async def form(self, request: Request) -> Response:
        return JSONResponse(await in_thread(form, request.path_params["game"]))

    async def check(self, request: Request) -> Response:
        """The settings checked: the plan's files and, for a game with one, its map."""
        p = await self.planned(request, request.path_params["game"])
        levels = getattr(p.params.params_of(p.assets.name), "heightmap", None)
        return JSONResponse({"files": [f for f in p.files if f.endswith(".stl")],
                             "map": [list(r) for r in levels] if isinstance(levels, tuple) and levels else None})

    async def part(self, request: Request) -> Response:
        """Make (or find) a part and answer its facts and the address of its preview."""
        p = await self.planned(request, request.path_params["game"])
        file = f"{p.assets.name}/{request.path_params['file']}"
        found = p.job_of(file)
        if found is None:
            return _no_file(p, request.path_params["file"])
        job, key = found
        made = await until_gone(request, self.maker.made(job, p, key, request.query_params.get("client", "")))
        out = next(o for o in job.outputs if o.file == file)
        colour = display_colour(load_colours(), out.colour)
        with self.cap.held(made.folder):  # being served: never dropped meanwhile
            name, facts = await in_thread(self.maker.preview_named, made, file, colour)
        return JSONResponse({**facts, "key": key, "preview": f"/preview/{name}", "printer": p.printer.name,
                             "plate_name": out.plate or None})

    async def preview(self, request: Request) -> Response:
        found = self.maker.preview_page(request.path_params["name"])
        if found is None:
            return PlainTextResponse("preview gone from memory: ask for the part again", 404)
        return HTMLResponse(found)

    async def preview_glb(self, request: Request) -> Response:
        """A preview's glTF alone: what the page hands the player it already shows."""
        found = self.maker.preview_glb(request.path_params["name"])
        if found is None:
            return PlainTextResponse("preview gone from memory: ask for the part again", 404)
        return Response(found, media_type="model/gltf-binary")

    async def whole_set(self, request: Request) -> Response:
        """The whole set as it stands on the table, in the replay page's player: the set's
        glTF that ``build GAME --step`` writes (a build of every part: slow the first time)."""
        from stratstone_cad.viewer.gltf import as_set
        from stratstone_cad.viewer.web import page

        p = await self.planned(request, request.path_params["game"])
        glb = await self.whole(request, p, self.builds.file, "set.glb")
        if glb is None:
            return _no_file(p, "set.glb")
        title = f"{p.assets.name}: the whole set"
        parts = [f.split("/", 1)[1][: -len(".stl")] for f in p.files if f.endswith(".stl")]
        return HTMLResponse(page(as_set(glb, title, parts), f"stratstone-cad studio: {title}"))

    async def plate(self, request: Request) -> Response:
        """The plate a part goes on (the file the build writes), with PrusaSlicer's time and
        filament when installed (slow: a build); with ``slice=0``, its name alone (the parts
        made and the plates laid out and written, no slicer)."""
        p = await self.planned(request, request.path_params["game"])
        file = f"{p.assets.name}/{request.path_params['file']}"
        if p.job_of(file) is None:
            return _no_file(p, request.path_params["file"])
        sliced = request.query_params.get("slice", "1") != "0"
        ticket = Ticket(request.query_params.get("client", ""), self.builds.folder_name(p, False))
        entry = await self.ticketed(request, ticket, p, self.builds.plate_of, file, sliced)
        if entry is SUPERSEDED:
            return JSONResponse({"plate": None, "superseded": True})
        if entry is None:
            return JSONResponse({"plate": None})
        return JSONResponse({"plate": entry["file"], "print": entry.get("print"), "copies": entry.get("copies")})

    async def plate_progress(self, request: Request) -> Response:
        """How far the client's plate is: waiting (and for how many builds ahead), or
        building (for how long, and the build's last step), or idle."""
        return JSONResponse(self.builds.progress(request.query_params.get("client", "")))

    async def download(self, request: Request) -> Response:
        """The bytes ``build GAME --set ...`` writes for ``game/file``."""
        p = await self.planned(request, request.path_params["game"])
        name = request.path_params["file"]
        file = f"{p.assets.name}/{name}"
        found = p.job_of(file)
        if found is not None:
            job, key = found
            made = await until_gone(request, self.maker.made(job, p, key, request.query_params.get("client", "")))
            with self.cap.held(made.folder):
                data = (made.folder / made.entry(file)["file"]).read_bytes()
        elif name.endswith((".3mf", ".step", ".glb")) and (name.endswith(".3mf") or _step_of(p, file)):
            data = await self.whole(request, p, self.builds.file, name)
            if data is None:
                return _no_file(p, name)
        else:
            return _no_file(p, name)
        return Response(data, media_type=_media(name), headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def zipped(self, request: Request) -> Response:
        p = await self.planned(request, request.path_params["game"])
        path = await self.whole(request, p, self.builds.zipped)
        return HeldFileResponse(self.cap, path, media_type="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{p.assets.name}.zip"'})


def _step_of(p: Planned, file: str) -> bool:
    """Whether ``build --step`` writes ``file``: a part's STEP or the set's files."""
    return file.rsplit("/", 1)[1] in ("set.step", "set.glb") or (
        file.endswith(".step") and p.job_of(file[:-len(".step")] + ".stl") is not None)


def _no_file(p: Planned, name: str) -> Response:
    return PlainTextResponse(f"{p.assets.name}/{name[:80]}: no such file in the plan of {p.assets.name}", 404)


def _media(name: str) -> str:
    return {".stl": "model/stl", ".3mf": "model/3mf", ".step": "model/step", ".glb": "model/gltf-binary"}.get(
        Path(name).suffix, "application/octet-stream")


def _page_file(name: str) -> str:
    return (resources.files("stratstone_cad.studio") / "page" / name).read_text(encoding="utf-8")


async def _refused(request: Request, exc: Exception) -> Response:
    return PlainTextResponse(str(exc), 400)


async def _unavailable(request: Request, exc: Exception) -> Response:
    return PlainTextResponse(str(exc), 503)


def app(studio: Studio) -> ASGIApp:
    """The ASGI app of ``studio``, behind its guard (:class:`Guard`)."""
    s = studio
    routes = [Route("/", s.page), Route("/page/{name}", s.page_file), Route("/api/games", s.games),
              Route("/api/form/{game}", s.form), Route("/api/check/{game}", s.check),
              Route("/api/part/{game}/{file}", s.part), Route("/api/plate/{game}/{file}", s.plate),
              Route("/api/plate-progress", s.plate_progress),
              Route("/preview/{name}.glb", s.preview_glb), Route("/preview/{name}", s.preview), Route("/set/{game}", s.whole_set),
              Route("/download/{game}.zip", s.zipped),
              Route("/download/{game}/{file}", s.download)]
    room = PlayRoom(s.out)
    routes += play_page.routes(room) + play_routes.routes(room) + training.routes(s.out, s.puzzle_files)
    s.room = room
    inner = Starlette(routes=routes, exception_handlers={UserError: _refused, BuildError: _unavailable,
                                                         TableError: play_routes.refused})
    return Guard(inner, s.host_names)


class Guard:
    """Refuses what a page of another site could make a browser send: a Host header that is
    not the address connected to (a rebound DNS name), a request whose ``Origin`` or
    ``Sec-Fetch-Site`` names another site, any method but GET and HEAD. A request cancelled
    before its answer began (the studio stopping) is answered 503 (:data:`STOPPED`). Every
    answer forbids other sites to frame it (:data:`FRAMING`)."""

    def __init__(self, inner: ASGIApp, names: tuple[str, ...] = ()) -> None:
        self.inner, self.names = inner, names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = {**message, "headers": [*message.get("headers", []), *FRAMING]}
            await send(message)

        why = refusal(scope, self.names)
        if why is not None:
            await PlainTextResponse(why, 403 if "method" not in why else 405)(scope, receive, sending)
            return

        try:
            await self.inner(scope, receive, sending)
        except asyncio.CancelledError:  # the studio stops (or the client went): 503, not uvicorn's 500
            if not started:
                with contextlib.suppress(Exception):
                    await PlainTextResponse(STOPPED, 503, headers={"Connection": "close"})(scope, receive, sending)
            raise


def allowed_hosts(scope: Scope, names_given: tuple[str, ...] = ()) -> set[str]:
    """The Host headers a request on this connection may carry: the address it connected to
    (with its port; without it on port 80), ``localhost`` for a loopback address, and the
    name ``studio --host NAME`` was given (what a second device types or its QR code says)."""
    host, port = scope.get("server") or ("", 0)
    port = port or 80  # an ASGI server may leave the default port out
    names = {host, f"[{host}]"} if ":" in host else {host}
    names |= {n.lower() for n in names_given if ":" not in n}
    if host in ("127.0.0.1", "::1"):
        names.add("localhost")
    return {f"{n}:{port}" for n in names} | (names if port == 80 else set())


def refusal(scope: Scope, names: tuple[str, ...] = ()) -> str | None:
    """Why a request is refused, or None (``names``: the names ``--host`` gave)."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    host = headers.get("host", "").lower()
    allowed = allowed_hosts(scope, names)
    if host not in allowed:
        return f"Host {host[:80]!r}: not this server's address; expected one of {', '.join(sorted(allowed))}"
    origin = headers.get("origin")
    if origin is not None and origin.split("://", 1)[-1] != host:
        return f"Origin {origin[:80]!r}: another site's page; expected none or this server's"
    navigation = headers.get("sec-fetch-mode") == "navigate" and scope["path"] == "/"  # a shared link opens the page
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none") and not navigation:
        return f"Sec-Fetch-Site {headers['sec-fetch-site'][:20]!r}: a request from another site's page; expected same-origin"
    if scope["method"] not in ("GET", "HEAD") and not (scope["method"] == "POST" and scope["path"].startswith(POSTED)):
        return f"method {scope['method'][:10]}: not allowed; expected GET or HEAD (POST to the Play room's /api/table/ " \
               "or the Training page's /api/training/)"
    return None
