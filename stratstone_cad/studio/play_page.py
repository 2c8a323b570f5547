"""The Play room's page (``/play``) and what it asks besides the tables' API
(:mod:`stratstone_cad.studio.play_routes`): the games and their opponents' levels, a table's
board as squares to draw, the engine's words for a move or for a square a piece cannot
reach, and the table's 3D view (the replay page's player on the printed set's meshes).

Every rule stays in the engines: the board answers what stands where (the ledger's pieces)
and each square's place and level; what a piece can do is the reach endpoint's."""

from __future__ import annotations

import random
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from stratstone_cad.engine.protocol import Game, State
from stratstone_cad.errors import GameError, TableError, UserError
from stratstone_cad.registry import game_names, get_game
from stratstone_cad.studio.play_routes import PlayRoom
from stratstone_cad.studio.tables import Table

__all__ = ["LEVEL_NAMES", "levels_of", "options", "position_board", "routes"]

LEVEL_NAMES = ("quick", "steady", "strong")
"""The search's named levels: a twentieth, a quarter and all of the game's default budget."""
_SHARES = (20, 4, 1)
PAGES_KEPT = 8
"""The 3D pages kept made (about 2.5 MB each): a table's newest, of the tables last shown."""
KIT_PICTURE_PX = 600
"""The kit setup's picture's width in the page (pixels)."""
SYMBOLS = {"runner": "triangle", "lancer": "diamond", "guardian": "pentagon"}
"""The terrain game's 2D symbols: what each kind of piece is drawn as."""


def levels_of(default: int) -> list[dict[str, Any]]:
    """The search's levels for a game whose default budget is ``default`` simulations."""
    return [{"name": n, "kind": f"search:{max(2, default // s)}", "simulations": max(2, default // s)}
            for n, s in zip(LEVEL_NAMES, _SHARES, strict=True)]


@cache
def _sides(name: str, variant: str | None) -> tuple[str, ...]:
    g = get_game(name)
    setup = {"variant": variant} if variant else None
    n = g.default_players(setup)
    if name == "terrain":  # its sides need no map: the setup is drawn for a new terrain
        return ("red", "blue")
    return tuple(g.new_setup(n, setup, random.Random(0))[0])


@cache
def kit_of(name: str) -> dict[str, Any] | None:
    """The setup of a game on a map of ``name``'s printed kit (its presets' kit, as ``play
    --kit`` lays it: the table's seed picks the map), or None for a game with no kit."""
    from stratstone_cad.registry import ASSETS, load_params

    hooks = ASSETS[name].kit
    return None if hooks is None else dict(hooks.setup(load_params(games=[name]).games[name]))


def options() -> dict[str, Any]:
    """The games (the registry's), their sides, the opponents' kinds, the search's levels
    and, for a game with a printed kit, ``kit``: the setup that plays on a map of the kit."""
    games = []
    for name in game_names():
        g = get_game(name)
        one: dict[str, Any] = {"name": name, "sides": list(_sides(name, None)),
                               "levels": levels_of(g.search_simulations), "chance": g.chance_field is not None}
        if kit_of(name) is not None:
            one["kit"] = kit_of(name)
        if name == "sage-stones":
            one["variants"] = {v: list(_sides(name, v)) for v in ("standard", "two-player")}
        games.append(one)
    return {"games": games, "kinds": ["person", "greedy", "random", "search"]}


def board(table: Table, seat: str = "") -> dict[str, Any]:
    """The squares to draw (:func:`position_board`), the table's ``ply`` and ``you``: the side ``seat`` holds."""
    return {**position_board(table.game, table.state), "ply": table.ply, "you": _side(table, seat)}


def position_board(game: Game, state: State) -> dict[str, Any]:
    """The squares of ``state`` to draw: each one's name, file or column (``x``), rank or row (``y``), level
    (the terrain's) and pieces bottom first (colour and kind); the board's width and height;
    the rank each side exits beyond (the terrain game)."""
    ledger = game.ledger(state)
    levels = getattr(getattr(state, "terrain", None), "levels", None)
    squares = []
    for i, sq in enumerate(game.squares):
        x, y = game.parse_square(sq)
        pieces = [{"colour": ledger.pieces[p].colour, "kind": ledger.pieces[p].kind}
                  for p in ledger.squares.get(sq, ())]
        one: dict[str, Any] = {"square": sq, "x": x, "y": y, "pieces": pieces}
        if levels is not None:
            one["level"] = levels[i]
        squares.append(one)
    return {"game": game.name, "width": 1 + max(s["x"] for s in squares), "height": 1 + max(s["y"] for s in squares),
            "squares": squares, "symbols": SYMBOLS if game.name == "terrain" else None,
            "text": state.board_text(), "exit_rank": _exit_ranks(state)}


def _exit_ranks(state: State) -> dict[str, int] | None:
    """The 0-based rank each side exits beyond (the terrain game's), as its rules hold them."""
    rules = sys.modules[type(state).__module__]
    last, sides = getattr(rules, "_LAST_RANK", None), getattr(rules, "PLAYERS", None)
    return dict(zip(sides, last, strict=True)) if last and sides else None


def _side(table: Table, seat: str) -> str | None:
    try:
        return table.side_of(seat) if seat else None
    except TableError:
        return None


def words(table: Table, move: str) -> str:
    """The engine's words for ``move`` (an attack's sums), or its one-line reason it is illegal."""
    state = table.state
    try:
        after, events = state.apply(move)
    except (GameError, UserError, ValueError) as e:
        return str(e)
    return table.game.explain(state, after, events)


def why_not(table: Table, frm: str, to: str) -> str:
    """Why the piece on ``frm`` cannot go to ``to``, in the engine's words."""
    state = table.state
    if table.result is not None:
        return "the game is over"
    if not state.reach(frm) and state.reach(frm) is not None:
        return f"{frm}: nothing of {state.to_move()} can move from there"
    tries = [f"{frm}-{to}", f"{frm}x{to}"] if table.game.name == "terrain" else []
    reasons = []
    for text in tries:
        try:
            state.apply(text)
        except (GameError, UserError, ValueError) as e:
            reasons.append(str(e))
    if reasons:
        return min(reasons, key=lambda r: ("occupied" in r or "empty" in r, len(r)))
    return f"{to}: no move of the piece on {frm} ends there"


class PlayPage:
    """The page's handlers over the room's tables."""

    def __init__(self, room: PlayRoom) -> None:
        self.room = room
        self._pages: dict[tuple[str, int, int], str] = {}  # the last 3D pages made, a table's newest
        self._reps: dict[str, Any] = {}  # the tables' logs loaded for their 3D scenes (the board's places)
        self._kit_pictures: dict[str, bytes] = {}  # the kit setups drawn, by table

    def _table(self, request: Request) -> Table:
        return self.room.tables.get(request.path_params["id"])

    async def page(self, request: Request) -> Response:
        from stratstone_cad.studio.app import _page_file

        return HTMLResponse(_page_file("play.html"))

    async def options(self, request: Request) -> Response:
        return JSONResponse(options())

    async def board(self, request: Request) -> Response:
        return JSONResponse(board(self._table(request), request.query_params.get("seat", "")))

    async def words(self, request: Request) -> Response:
        t = self._table(request)
        move = request.query_params.get("move", "")
        if not move:
            frm, to = request.query_params.get("from", ""), request.query_params.get("to", "")
            return JSONResponse({"why": why_not(t, frm[:8], to[:8])})
        return JSONResponse({"words": words(t, move[:80])})

    async def view3d(self, request: Request) -> Response:
        """The table's game so far in the replay page's player (the printed set's meshes).

        Raises:
            TableError: the game is not over.
        """
        from stratstone_cad.studio.app import in_thread

        t = self._table(request)
        review = _budget(request.query_params.get("review"), t)
        if review and t.result is None:
            raise TableError(f"table {t.id}: the game is not over; its review comes when it ends", 409)
        key = (t.id, t.version, review)
        if key not in self._pages:
            html = await in_thread(_replay_page, t, review)
            self._pages = {k: v for k, v in self._pages.items() if k[0] != t.id or k[2] != review}
            while len(self._pages) >= PAGES_KEPT:
                self._pages.pop(next(iter(self._pages)))
            self._pages[key] = html
        return HTMLResponse(self._pages[key])


    async def kit_setup(self, request: Request) -> Response:
        """The picture of how to lay the printed kit's tiles for the table's map (``kit setup``'s PNG).

        Raises:
            TableError: the table's map is not one of a kit.
        """
        from stratstone_cad.studio.app import in_thread

        t = self._table(request)
        if t.id not in self._kit_pictures:
            self._kit_pictures[t.id] = await in_thread(_kit_png, t)
            while len(self._kit_pictures) > PAGES_KEPT:
                self._kit_pictures.pop(next(iter(self._kit_pictures)))
        return Response(self._kit_pictures[t.id], media_type="image/png", headers={"Cache-Control": "no-store"})

    async def _rep(self, t: Table) -> Any:
        """The table's log loaded as the 3D view's scene is (its squares' places do not change
        as the game goes on): loaded once, the last few tables' kept."""
        from stratstone_cad.studio.app import in_thread

        if t.id not in self._reps:
            rep = await in_thread(_load, t)
            while len(self._reps) >= PAGES_KEPT:
                self._reps.pop(next(iter(self._reps)))
            self._reps[t.id] = rep
        return self._reps[t.id]

    async def squares3d(self, request: Request) -> Response:
        """Each square's place in the table's 3D view (play3d.squares)."""
        from stratstone_cad.studio import play3d

        return JSONResponse(play3d.squares(await self._rep(self._table(request))))

    async def reach3d(self, request: Request) -> Response:
        """The reach of the piece on a square drawn in the 3D view (play3d.reach_drawing)."""
        from stratstone_cad.studio import play3d

        t = self._table(request)
        lit = request.query_params.get("lit")
        squares = lit[:2000].split(",")[:200] if lit is not None else None
        return JSONResponse(play3d.reach_drawing(await self._rep(t), t, request.path_params["square"][:8], squares))


def _kit_png(table: Table) -> bytes:
    from stratstone_cad.registry import ASSETS

    setup = table.records[0]["setup"] or {}
    hooks = ASSETS[table.game.name].kit
    if hooks is None or "kit" not in setup:
        raise TableError(f"table {table.id}: its map is not one of the printed kit (its setup has no kit)", 404)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kit-setup.png"
        hooks.draw(setup, path, KIT_PICTURE_PX)
        return path.read_bytes()


def _load(table: Table) -> Any:
    from stratstone_cad.viewer.replay import load

    try:
        return load(table.path)
    except UserError as e:
        raise TableError(f"table {table.id}: no 3D view ({e})", 409) from None


def _budget(text: str | None, table: Table) -> int:
    """``review=1``: the review at the game's default budget a ply; ``review=N``: N simulations."""
    if text is None:
        return 0
    if not text.isdigit() or not 1 <= int(text) <= 100_000:
        raise TableError(f"review {text[:20]!r}: expected 1 (the game's default budget) or simulations from 2 to 100000")
    return table.game.search_simulations if text == "1" else int(text)


def _replay_page(table: Table, review: int) -> str:
    """The replay page of the table's log (with ``review``: the review's strip and classes,
    ``check-log --review``'s, made now with ``review`` simulations a ply)."""
    from stratstone_cad.viewer import gltf
    from stratstone_cad.viewer.replay import load
    from stratstone_cad.viewer.web import page

    path = table.path
    try:
        rep = load(path)
    except UserError as e:
        raise TableError(f"table {table.id}: no 3D view ({e})", 409) from None
    if review:
        from stratstone_cad.viewer.review_strip import load_review

        rep.review = load_review(path, None, review)
    glb = gltf.replay_bytes(rep, path, 0.6, "levels", True)
    return page(glb, f"{rep.title}: table {table.id}")


def routes(room: PlayRoom) -> list[Route]:
    """The page's routes (before the tables' own: ``/api/table/{id}/{action}``)."""
    p = PlayPage(room)
    return [Route("/play", p.page), Route("/api/play/options", p.options),
            Route("/api/table/{id}/board", p.board), Route("/api/table/{id}/words", p.words),
            Route("/api/table/{id}/view3d", p.view3d), Route("/api/table/{id}/squares3d", p.squares3d),
            Route("/api/table/{id}/reach3d/{square}", p.reach3d), Route("/api/table/{id}/kit-setup.png", p.kit_setup)]
