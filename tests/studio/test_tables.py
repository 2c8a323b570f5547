"""The Play room's server through HTTP, on uvicorn as users run the studio: whole games
between two seats whose logs check-log accepts, the engines' replies, the refusals (400, 403,
409, 404, 413) that write nothing, reach against the engine's moves and the cheapest paths,
the events a second screen follows, the join link's QR code, and a studio killed with SIGKILL
that goes on at the ply each table reached."""

from __future__ import annotations

import asyncio
import heapq
import ipaddress
import json
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from stratstone_cad.engine.protocol import State
from stratstone_cad.games.terrain.terrain_map import step_cost
from stratstone_cad.registry import get_game
from stratstone_cad.studio.tables import Tables


def start(folder: Path) -> tuple[subprocess.Popen, httpx.Client]:
    """A studio on ``folder`` (a free port) and a client of it (no proxy: loopback)."""
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0", "--out",
                          str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("studio: http://127.0.0.1:"), line + p.stderr.read()  # type: ignore[union-attr]
    return p, httpx.Client(base_url=line.split()[1].rstrip("/"), trust_env=False, timeout=60)


def stop(p: subprocess.Popen) -> None:
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=15)
    finally:
        if p.poll() is None:
            p.kill()


def new(client: httpx.Client, game: str, **body: Any) -> tuple[str, dict[str, str]]:
    r = client.post(f"/api/table/{game}", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["seats"]


def follow(client: httpx.Client, table: str, until: Any, timeout: float = 60) -> dict[str, Any]:
    """The table from its event stream, once ``until(table)`` holds (no polling, no sleep)."""
    deadline = time.monotonic() + timeout
    with client.stream("GET", f"/api/table/{table}/events", timeout=timeout) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            assert time.monotonic() < deadline, "the table did not get there in time"
            if line.startswith("data: "):
                t = json.loads(line[6:])
                if until(t):
                    return t
    raise AssertionError("the event stream ended")


def check_log(path: Path) -> str:
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "check-log", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def replayed(t: dict[str, Any]) -> State:
    """The table's position, replayed here from what GET answers (players, setup, plies)."""
    game = get_game(t["game"])
    state = game.initial_state(t["players"], t["setup"])
    for p in t["plies"]:
        if game.chance_field and game.chance_field in p:
            state = state.apply_chance(p[game.chance_field])[0]
        state = state.apply(p["move"])[0]
    return state


def test_a_whole_game_between_two_seats_leaves_a_log_check_log_accepts(play_studio: tuple[httpx.Client, Path]) -> None:
    client, folder = play_studio
    table, seats = new(client, "stratstone", players=["person", "person"], seed=3)
    rng, sent = random.Random(5), []
    t = client.get(f"/api/table/{table}").json()
    while not t["over"]:
        move = rng.choice(t["legal"])
        r = client.post(f"/api/table/{table}/move", json={"move": move, "ply": t["ply"], "seat": seats[t["to_move"]]})
        assert r.status_code == 200, r.text
        sent.append(move)
        t = r.json()
    assert t["log"] == f"tables/{table}.jsonl" and [p["move"] for p in t["plies"]] == sent
    lines = [json.loads(x) for x in (folder / t["log"]).read_text().splitlines()]
    assert [x["move"] for x in lines[1:-1]] == sent and lines[-1] == {"result": t["result"]}
    said = f"winner {t['result']['winner']}" if t["result"]["winner"] else "draw"
    assert check_log(folder / t["log"]).startswith(f"ok: stratstone, {len(sent)} plies, {said} ({t['result']['reason']})")
    assert client.post(f"/api/table/{table}/move", json={"move": sent[0], "ply": t["ply"], "seat": seats["red"]}).status_code == 409


def test_the_engine_replies_without_another_request_and_a_takeback_undoes_both(play_studio: tuple[httpx.Client, Path]) -> None:
    client, folder = play_studio
    table, seats = new(client, "terrain", players=["person", "greedy"], seed=7)
    t = client.get(f"/api/table/{table}").json()
    assert t["kinds"] == {"red": "person", "blue": "greedy"} and list(seats) == ["red"]
    client.post(f"/api/table/{table}/move", json={"move": t["legal"][0], "ply": 0, "seat": seats["red"]}).raise_for_status()
    t = follow(client, table, lambda t: t["ply"] == 2 and not t["thinking"])
    assert t["plies"][1]["player"] == "blue" and t["to_move"] == "red"
    back = client.post(f"/api/table/{table}/takeback", json={"seat": seats["red"]}).json()
    assert back["ply"] == 0 and back["plies"] == []
    assert len((folder / back["log"]).read_text().splitlines()) == 1
    check_log(folder / back["log"])


def test_refused_requests_answer_one_line_and_write_nothing(play_studio: tuple[httpx.Client, Path]) -> None:
    client, folder = play_studio
    table, seats = new(client, "stratstone", players=["person", "person"], seed=1)
    log = folder / "tables" / f"{table}.jsonl"
    t = client.get(f"/api/table/{table}").json()
    before, files = log.read_bytes(), sorted(p.name for p in (folder / "tables").iterdir())
    move = t["legal"][0]
    cases = [
        (f"/api/table/{table}/move", {"move": "a1 ZZZ", "ply": 0, "seat": seats["yellow"]}, 400),
        (f"/api/table/{table}/move", {"move": move, "ply": 0, "seat": seats["red"]}, 403),
        (f"/api/table/{table}/move", {"move": move, "ply": 0}, 403),
        (f"/api/table/{table}/move", {"move": move, "ply": 1, "seat": seats["yellow"]}, 409),
        (f"/api/table/{table}/move", b"{\"move\": ", 400),
        (f"/api/table/{table}/move", b"\xff\xfe{}", 400),
        (f"/api/table/{table}/move", b"x" * 70_000, 413),
        ("/api/table/0123456789ab/move", {"move": move, "ply": 0, "seat": seats["yellow"]}, 404),
        ("/api/table/chess", {"players": ["person", "person"]}, 404),
        ("/api/table/stratstone", {"players": ["person", "wizard"]}, 400),
        ("/api/table/stratstone", {"players": ["person", "search:1"]}, 400),
        ("/api/table/stratstone", {"players": ["person", "person", "person"]}, 400),
        ("/api/table/stratstone", {"players": ["person", "person"], "clock": "-1+0"}, 400),
        ("/api/table/stratstone", {"players": ["person", "person"], "clock": "1e9+0"}, 400),
        ("/api/table/stratstone", {"players": ["person", "person"], "seed": -4}, 400),
        ("/api/table/stratstone", {"players": ["person", "person"], "dice": "entered"}, 400),
        ("/api/table/terrain", {"players": ["person", "person"], "setup": {"heightmap": [[9]]}}, 400),
    ]
    for path, body, status in cases:
        r = client.post(path, **({"content": body} if isinstance(body, bytes) else {"json": body}))
        assert r.status_code == status, (path, body, r.status_code, r.text)
        assert r.text.strip() and "\n" not in r.text.strip() and "Traceback" not in r.text, r.text
    assert log.read_bytes() == before and sorted(p.name for p in (folder / "tables").iterdir()) == files
    assert client.get("/api/table/zzz").status_code == 404


def test_another_sites_page_cannot_make_or_play_a_table(play_studio: tuple[httpx.Client, Path]) -> None:
    client, folder = play_studio
    files = sorted((folder / "tables").iterdir()) if (folder / "tables").exists() else []
    for headers in ({"Origin": "http://evil.example"}, {"Host": "evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        r = client.post("/api/table/stratstone", json={"players": ["person", "person"]}, headers=headers)
        assert r.status_code == 403, r.text
    assert (sorted((folder / "tables").iterdir()) if (folder / "tables").exists() else []) == files
    assert client.put("/api/table/stratstone").status_code == 405


def test_reach_is_the_engines_moves_and_the_terrain_costs_the_cheapest_paths(play_studio: tuple[httpx.Client, Path]) -> None:
    client, _ = play_studio
    table, seats = new(client, "terrain", players=["person", "person"], seed=11)
    rng = random.Random(2)
    for _ in range(6):  # a few plies in: pieces in the way, costs through the hills
        t = client.get(f"/api/table/{table}").json()
        client.post(f"/api/table/{table}/move", json={"move": rng.choice(t["legal"]), "ply": t["ply"],
                                                      "seat": seats[t["to_move"]]}).raise_for_status()
    t = client.get(f"/api/table/{table}").json()
    state = replayed(t)
    levels = [lvl for row in t["setup"]["heightmap"] for lvl in row]  # rank 1 first, files a-j
    checked = 0
    for square in get_game("terrain").squares:
        moves = client.get(f"/api/table/{table}/reach/{square}").json()
        mine = [m for m in t["legal"] if m.split("-")[0].split("x")[0] == square]
        assert sorted(m["move"] for m in moves) == sorted(mine)
        dist = _cheapest(levels, state, square) if moves else {}
        for m in moves:
            assert m["kind"] in ("move", "attack", "exit", "special")
            if m["kind"] == "move":
                assert m["to"] == m["move"].split("-")[1] and m["cost"] == dist[m["to"]], m
            elif m["kind"] == "attack":
                col, row = _cell(m["to"])
                assert m["cost"] == min(dist[n] + step_cost(levels[_index(n)], levels[row * 10 + col])
                                        for n in _neighbours(m["to"]) if n in dist), m
            elif m["kind"] == "exit":
                assert m["to"] == "exit"
            checked += 1
    assert checked > 10


def _cell(square: str) -> tuple[int, int]:
    return "abcdefghij".index(square[0]), int(square[1:]) - 1


def _index(square: str) -> int:
    c, r = _cell(square)
    return r * 10 + c


def _neighbours(square: str) -> list[str]:
    c, r = _cell(square)
    return [f"{'abcdefghij'[c + dc]}{r + dr + 1}" for dc, dr in ((0, 1), (1, 0), (0, -1), (-1, 0))
            if 0 <= c + dc < 10 and 0 <= r + dr < 10]


def _cheapest(levels: list[int], state: State, start: str) -> dict[str, int]:
    """Dijkstra over the empty squares, a step costing the height difference plus one."""
    dist, todo = {start: 0}, [(0, start)]
    while todo:
        d, sq = heapq.heappop(todo)
        if d > dist[sq]:
            continue
        for n in _neighbours(sq):
            nd = d + step_cost(levels[_index(sq)], levels[_index(n)])
            if not state.pieces_on(n) and nd < dist.get(n, 10**9):
                dist[n] = nd
                heapq.heappush(todo, (nd, n))
    return dist


def test_the_other_seat_follows_a_move_live(play_studio: tuple[httpx.Client, Path]) -> None:
    client, _ = play_studio
    table, seats = new(client, "stratstone", players=["person", "person"], seed=9)
    t = client.get(f"/api/table/{table}").json()
    move = t["legal"][3]
    deadline = time.monotonic() + 10  # the stream says it is alive every 15 s: a lost event fails then

    def tables(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
        for x in lines:
            assert time.monotonic() < deadline, "no event came"
            if x.startswith("data: "):
                yield json.loads(x[6:])

    with client.stream("GET", f"/api/table/{table}/events") as stream:
        seen_by_red = tables(stream.iter_lines())
        assert next(seen_by_red)["ply"] == 0
        with httpx.Client(base_url=str(client.base_url), trust_env=False) as other:
            other.post(f"/api/table/{table}/move", json={"move": move, "ply": 0, "seat": seats["yellow"]}).raise_for_status()
        seen = next(seen_by_red)
    assert seen["ply"] == 1 and seen["plies"] == [{"ply": 1, "player": "yellow", "move": move}]


def test_draw_agreed_and_resignation_end_the_log_as_record_does(play_studio: tuple[httpx.Client, Path]) -> None:
    client, folder = play_studio
    table, seats = new(client, "stratstone", players=["person", "person"], seed=2)
    assert client.post(f"/api/table/{table}/draw", json={"seat": seats["yellow"]}).json()["draw"] == "offered"
    t = client.post(f"/api/table/{table}/draw", json={"seat": seats["red"]}).json()
    assert t["draw"] == "agreed" and t["result"] == {"winner": None, "reason": "draw agreed"}
    check_log(folder / t["log"])
    table, seats = new(client, "stratstone", players=["person", "search:20"], seed=2)
    assert client.post(f"/api/table/{table}/draw", json={"seat": seats["yellow"]}).json()["draw"] == "declined"
    t = client.post(f"/api/table/{table}/resign", json={"seat": seats["yellow"]}).json()
    assert t["result"] == {"winner": "red", "reason": "resignation"}
    check_log(folder / t["log"])


def test_sage_stones_entered_dice_go_into_the_log_as_its_chance_lines(play_studio: tuple[httpx.Client, Path]) -> None:
    client, folder = play_studio
    table, seats = new(client, "sage-stones", players=["person", "greedy"], setup={"variant": "two-player"},
                       dice="entered", seed=4)
    t = client.get(f"/api/table/{table}").json()
    assert t["roll"] and t["legal"] == [] and t["seed"] is None
    bad = client.post(f"/api/table/{table}/roll", json={"dice": [7, 1, 1], "ply": 0, "seat": seats["p1"]})
    assert bad.status_code == 400 and "7" in bad.text
    t = client.post(f"/api/table/{table}/roll", json={"dice": [2, 3, 3], "ply": 0, "seat": seats["p1"]}).json()
    if t["ply"] == 0:  # not a lost turn: the roll's column to play
        assert t["dice"] == [2, 3, 3] and t["legal"]
        t = client.post(f"/api/table/{table}/move", json={"move": t["legal"][0], "ply": 0, "seat": seats["p1"]}).json()
    assert t["plies"][0]["dice"] == [2, 3, 3] and t["roll"] and t["to_move"] == "p2"  # the engine waits for its dice
    t = client.post(f"/api/table/{table}/roll", json={"dice": [1, 2, 3], "ply": 1, "seat": seats["p1"]}).json()
    t = follow(client, table, lambda t: t["ply"] == 2)
    assert t["plies"][1]["dice"] == [1, 2, 3]
    lines = [json.loads(x) for x in (folder / t["log"]).read_text().splitlines()]
    assert [x["dice"] for x in lines[1:]] == [[2, 3, 3], [1, 2, 3]]
    check_log(folder / t["log"])


def test_the_studios_dice_fall_from_the_seed_as_record_rolls_them(play_studio: tuple[httpx.Client, Path]) -> None:
    client, folder = play_studio
    table, seats = new(client, "sage-stones", players=["person", "person"], setup={"variant": "two-player"}, seed=8)
    t = client.get(f"/api/table/{table}").json()
    for _ in range(6):
        assert not t["roll"] and t["dice"] and t["legal"], t  # the roll is there with the answer: its moves to click
        t = client.post(f"/api/table/{table}/move", json={"move": t["legal"][0], "ply": t["ply"],
                                                          "seat": seats[t["to_move"]]}).json()
    game, rolled = get_game("sage-stones"), []
    state = game.initial_state(t["players"], t["setup"])
    for p in t["plies"]:
        rolled.append(list(state.roll(random.Random(f"8/{p['ply']}"))))
        state = state.apply_chance(p["dice"])[0].apply(p["move"])[0]
    assert [p["dice"] for p in t["plies"]] == rolled and len(rolled) >= 6
    check_log(folder / t["log"])


def test_a_join_link_is_a_qr_code_of_the_seats_address(play_studio: tuple[httpx.Client, Path]) -> None:
    client, _ = play_studio
    table, seats = new(client, "stratstone", players=["person", "person"])
    r = client.get(f"/api/table/{table}/join.svg", params={"seat": seats["red"]})
    link = f"{client.base_url}/play?table={table}&amp;seat={seats['red']}"
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.startswith("<svg") and link in r.text and "<path" in r.text
    assert client.get(f"/api/table/{table}/join.svg", params={"seat": "nope"}).status_code == 403


def test_a_lost_clock_ends_the_game_in_a_log_check_log_accepts(tmp_path: Path) -> None:
    tables = Tables(tmp_path)
    table = tables.new("stratstone", {"players": ["person", "person"], "clock": "1+2"})
    assert table.clock is not None and table.clock.left == {"yellow": 60.0, "red": 60.0}
    assert not table.flag()
    table.clock.left["yellow"] = 0.0
    assert table.flag() and table.result is not None and table.result.to_json() == {"winner": "red", "reason": "out of time"}
    assert "out of time" in check_log(table.path)


def test_a_studio_killed_goes_on_at_the_ply_each_table_reached(tmp_path: Path) -> None:
    p, client = start(tmp_path)
    try:
        table, seats = new(client, "terrain", players=["person", "person"], seed=5, clock="5+1")
        for _ in range(3):
            t = client.get(f"/api/table/{table}").json()
            client.post(f"/api/table/{table}/move", json={"move": t["legal"][-1], "ply": t["ply"],
                                                          "seat": seats[t["to_move"]]}).raise_for_status()
        before = client.get(f"/api/table/{table}").json()
    finally:
        p.kill()  # SIGKILL: no stop of any kind
        p.wait()
        client.close()
    log = tmp_path / "tables" / f"{table}.jsonl"
    check_log(log)
    resumed = subprocess.run([sys.executable, "-m", "stratstone_cad", "record", "--resume", str(log)], input="quit\n",
                             capture_output=True, text=True)
    assert resumed.returncode == 0 and "after ply 3" in resumed.stdout, resumed.stdout + resumed.stderr
    p, client = start(tmp_path)
    try:
        listed = client.get("/api/tables").json()["tables"]
        assert [(x["id"], x["ply"]) for x in listed] == [(table, 3)]
        t = client.get(f"/api/table/{table}").json()
        assert t["plies"] == before["plies"] and t["to_move"] == "blue" and t["clock"]["running"] == "blue"
        assert t["clock"]["left"]["red"] <= 300 + 3
        r = client.post(f"/api/table/{table}/move", json={"move": t["legal"][0], "ply": 3, "seat": seats["blue"]})
        assert r.status_code == 200 and r.json()["ply"] == 4
    finally:
        client.close()
        stop(p)
    check_log(log)


def _loopback_name() -> str | None:
    """This machine's name when it resolves to a loopback address (the tests listen nowhere else)."""
    name = socket.gethostname()
    try:
        return name if ipaddress.ip_address(socket.gethostbyname(name)).is_loopback and name != "localhost" else None
    except (OSError, ValueError):
        return None


@pytest.mark.skipif(_loopback_name() is None, reason="this machine's name does not resolve to a loopback address")
def test_studio_host_name_is_accepted_in_the_host_header_and_the_join_link(tmp_path: Path) -> None:
    name = _loopback_name()
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0", "--host",
                          str(name), "--out", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = p.stdout.readline().split()[1].rsplit(":", 1)[1].strip("/")  # type: ignore[union-attr]
        with httpx.Client(base_url=f"http://{name}:{port}", trust_env=False, timeout=30) as client:
            table, seats = new(client, "stratstone", players=["person", "person"])
            svg = client.get(f"/api/table/{table}/join.svg", params={"seat": seats["yellow"]}).text
            assert f"http://{name}:{port}/play?table={table}" in svg
            assert client.get("/api/tables", headers={"Host": f"elsewhere:{port}"}).status_code == 403
    finally:
        stop(p)


def test_a_clock_running_out_ends_the_game_with_no_request(tmp_path: Path) -> None:
    from stratstone_cad.studio.play_routes import PlayRoom

    async def game() -> Any:
        room = PlayRoom(tmp_path)
        table = room.tables.new("terrain", {"players": ["greedy", "person"], "clock": "1+0", "seed": 3})
        assert table.clock is not None
        table.clock.left["red"] = 30.0
        table.clock.left["blue"] = 0.05  # the person's time all but gone when the engine has moved
        room._go_on(table)  # what a request does after a change: the engine moves, the clock is armed
        deadline = time.monotonic() + 30
        while table.result is None and time.monotonic() < deadline:
            await table.changed(table.version, 1.0)
        return table

    # in a thread of its own: a browser test's Playwright may hold this thread's event loop
    # (the same pytest worker), where asyncio.run refuses to start another
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        table = pool.submit(asyncio.run, game()).result(timeout=60)
    assert table.result is not None and table.result.to_json() == {"winner": "red", "reason": "out of time"}
    assert [r.get("player") for r in table.records[1:-1]] == ["red"]
    check_log(table.path)
