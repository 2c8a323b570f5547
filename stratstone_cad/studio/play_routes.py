"""The Play room's HTTP interface (JSON), as docs/studio.md ("The Play room's API") writes
it down: a table made, shown, its moves, rolls, resignation, draw and takeback, the reach
of a square, its live updates (server-sent events) and the QR code of its join link. The
tables themselves are :mod:`stratstone_cad.studio.tables`'.

A refused request answers its status with one line of plain text (:class:`TableError`'s
status; 400 for any other user error) and writes nothing. A body is at most
:data:`MAX_BODY` bytes of UTF-8 JSON, an object."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from stratstone_cad.errors import TableError
from stratstone_cad.log.logfile import loads_strict
from stratstone_cad.studio.tables import Table, Tables

__all__ = ["MAX_BODY", "PlayRoom", "refused", "routes"]

MAX_BODY = 64 * 1024
"""The largest body a table's request may have (a terrain setup's heightmap is about 400 bytes)."""
HEARTBEAT_S = 15.0
"""How often an idle event stream says it is alive (a comment line)."""


async def body_of(request: Request) -> dict[str, Any]:
    """The request's JSON object: at most :data:`MAX_BODY` bytes (413 past it), UTF-8 (400).

    Raises:
        TableError: the body is too large, not UTF-8, not JSON, or not a JSON object.
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise TableError(f"body of {declared} bytes: too large, expected at most {MAX_BODY}", 413)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise TableError(f"body: too large, expected at most {MAX_BODY} bytes", 413)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TableError(f"body: not UTF-8 (byte {e.start}); expected a JSON object") from None
    try:
        value = loads_strict(text)
    except ValueError as e:
        raise TableError(f"body: not JSON ({e}); expected a JSON object") from None
    if not isinstance(value, dict):
        raise TableError(f"body: a JSON {type(value).__name__}, expected an object")
    return value


class PlayRoom:
    """The routes' handlers over the studio's :class:`Tables` (``root``: the studio's folder)."""

    def __init__(self, root: Path) -> None:
        self.tables = Tables(root, on_time=self._on_time)
        self._started = False
        self._tasks: set[asyncio.Task] = set()

    def _start(self) -> None:
        """On the first request (the loop running): the tables found on disk go on."""
        if self._started:
            return
        self._started = True
        for t in self.tables.tables.values():
            self._go_on(t)

    def _go_on(self, table: Table) -> None:
        """What follows a change: the clock armed, the engines' and the dice's plies."""
        table.arm_clock(self._on_time)
        if table.result is None and (table.engine_kind() is not None or table.roll_due()):
            task = asyncio.ensure_future(self._advance(table))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _advance(self, table: Table) -> None:
        await table.advance()
        table.arm_clock(self._on_time)

    def _on_time(self, table: Table) -> None:
        if not table.flag():
            table.arm_clock(self._on_time)

    def _table(self, request: Request) -> Table:
        self._start()
        table = self.tables.get(request.path_params["id"])
        table.flag()
        return table

    # ------------------------------------------------------------------ routes

    async def create(self, request: Request) -> Response:
        self._start()
        body = await body_of(request)
        table = self.tables.new(request.path_params["game"], body)
        self._go_on(table)
        return JSONResponse({"id": table.id, "seats": dict(table.tokens),
                             "join": {s: f"/play?table={table.id}&seat={t}" for s, t in table.tokens.items()}}, 201)

    async def listing(self, request: Request) -> Response:
        self._start()
        return JSONResponse({"tables": [{"id": t.id, "game": t.game.name, "ply": t.ply, "over": t.result is not None,
                                         "kinds": t.kinds, "log": f"tables/{t.id}.jsonl"}
                                        for t in self.tables.tables.values()]})

    async def show(self, request: Request) -> Response:
        return JSONResponse(self._table(request).to_json())

    async def reach(self, request: Request) -> Response:
        table = self._table(request)
        square = request.path_params["square"]
        return JSONResponse(table.reach(square))

    async def act(self, request: Request) -> Response:
        """POST .../move, .../roll, .../resign, .../draw, .../takeback.

        Raises:
            TableError: the request is not move, roll, resign, draw or takeback.
        """
        table = self._table(request)
        body = await body_of(request)
        action, seat, ply = request.path_params["action"], body.get("seat"), body.get("ply")
        said = None
        if action == "move":
            table.move(seat, ply, body.get("move"))
        elif action == "roll":
            table.roll(seat, ply, body.get("dice"))
        elif action == "resign":
            table.resign(seat)
        elif action == "draw":
            said = table.draw(seat)
        elif action == "takeback":
            table.takeback(seat)
        else:
            raise TableError(f"/{action[:20]}: no such request; expected move, roll, resign, draw or takeback", 404)
        self._go_on(table)
        answer = table.to_json()
        if said is not None:
            answer["draw"] = said
        return JSONResponse(answer)

    async def log(self, request: Request) -> Response:
        table = self._table(request)
        return Response(table.path.read_bytes(), media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{table.game.name}-{table.id}.jsonl"'})

    async def events(self, request: Request) -> Response:
        """Server-sent events: the table at once, then again at each change (``event: table``)."""
        table = self._table(request)

        async def stream() -> Any:
            version = -1
            while True:
                if table.version != version:
                    version = table.version
                    yield f"event: table\ndata: {json.dumps(table.to_json())}\n\n"
                else:
                    yield ": alive\n\n"
                await table.changed(version, HEARTBEAT_S)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def join_svg(self, request: Request) -> Response:
        """The QR code (SVG) of a seat's join link on the address this request came to."""
        import segno

        table = self._table(request)
        token = request.query_params.get("seat")
        table.side_of(token)
        link = f"{request.url.scheme}://{request.headers['host']}/play?table={table.id}&seat={token}"
        svg = segno.make(link, error="m").svg_inline(scale=4, title=link)
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


async def refused(request: Request, exc: Exception) -> Response:
    status = exc.status if isinstance(exc, TableError) else 400
    return PlainTextResponse(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, status)


def routes(room: PlayRoom) -> list[Route]:
    """The Play room's routes (the studio's app registers them)."""
    return [Route("/api/tables", room.listing), Route("/api/table/{game}", room.create, methods=["POST"]),
            Route("/api/table/{id}", room.show), Route("/api/table/{id}/reach/{square}", room.reach),
            Route("/api/table/{id}/events", room.events), Route("/api/table/{id}/log", room.log),
            Route("/api/table/{id}/join.svg", room.join_svg),
            Route("/api/table/{id}/{action}", room.act, methods=["POST"])]
