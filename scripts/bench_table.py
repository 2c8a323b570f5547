#!/usr/bin/env python3
"""Benchmark: the studio's Play room served as users run it (``stratstone-cad studio`` on
uvicorn, loopback only), driven by scripted HTTP clients.

1. The engine's reply: a table of each game against ``search:100``; for each of ``--moves``
   moves the time from the person's POST to the reply on the table's event stream, against
   the time the same search takes for the same position and draw in this process (its
   "budget's time"): the table's overhead is the difference (target: at most 0.5 s).
2. The Play room's levels (``--levels``): for each game, a table against each of the search's
   named levels (the page's quick, steady, strong: play_page.levels_of), the reply's time
   after each of ``--moves`` random moves.
3. Soak: ``--tables`` tables played at once (in turn against ``search:100``, against
   ``greedy``, and between two seats played by the client) for ``--seconds``, and
   ``--listeners`` clients following random tables' event streams (SSE); a finished game is
   followed by a new one. Counts the errors (any answer but 2xx), times each move's answer
   and each engine's reply (POST to the reply on the stream), runs ``check-log`` on every log
   at the end, and reads the server's memory (RSS) every 10 s: at minute 2 (20 % of the
   time when shorter) and at the end (target: within 10 %).

    python scripts/bench_table.py [--moves 10] [--levels] [--tables 20] [--seconds 120] [--listeners 10]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from benchlib import loadavg, machine_line

GAMES = {"stratstone": {}, "terrain": {}, "sage-stones": {"setup": {"variant": "two-player"}}}


def start(folder: Path) -> tuple[subprocess.Popen, str]:
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0", "--out",
                          str(folder)], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()  # type: ignore[union-attr]
    return p, line.split()[1].rstrip("/")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def until(client: httpx.Client, table: str, ply: int, side: str | None = None) -> dict[str, Any]:
    """The table once it is at ``ply`` (or ``side`` is to move: an extra turn), or over, from its event stream."""
    with client.stream("GET", f"/api/table/{table}/events", timeout=120) as r:
        for line in r.iter_lines():
            if line.startswith("data: "):
                t = json.loads(line[6:])
                if (not t["thinking"] and (t["ply"] >= ply or (side is not None and t["to_move"] == side))) or t["over"]:
                    return t
    raise RuntimeError("the stream ended")


def search_time(t: dict[str, Any]) -> float:
    """The time ``search:100`` takes here for the table's position and draw (as the studio draws it)."""
    from stratstone_cad.analysis.players import make_player
    from stratstone_cad.registry import get_game

    game = get_game(t["game"])
    state = game.initial_state(t["players"], t["setup"])
    for p in t["plies"][:-1]:
        if game.chance_field and game.chance_field in p:
            state = state.apply_chance(p[game.chance_field])[0]
        state = state.apply(p["move"])[0]
    last = t["plies"][-1]
    if game.chance_field and game.chance_field in last:
        state = state.apply_chance(last[game.chance_field])[0]
    player = make_player("search:100", game)
    start = time.perf_counter()
    move = player(state, random.Random(f"{t['seed']}/vs/{state.ply + 1}"))
    took = time.perf_counter() - start
    assert str(move) == last["move"], (move, last)
    return took


def replies(url: str, moves: int) -> None:
    with httpx.Client(base_url=url, trust_env=False, timeout=120) as c:
        for game, extra in GAMES.items():
            r = c.post(f"/api/table/{game}", json={"players": ["person", "search:100"], "seed": 7, **extra})
            (side, seat), = r.json()["seats"].items()
            table = r.json()["id"]
            rng, overheads, latencies = random.Random(1), [], []
            t = until(c, table, 0)
            for _ in range(moves):
                if t["over"]:
                    break
                ply = t["ply"]
                sent = time.perf_counter()
                c.post(f"/api/table/{table}/move", json={"move": rng.choice(t["legal"]), "ply": ply,
                                                         "seat": seat}).raise_for_status()
                t = until(c, table, ply + 2, side)
                latency = time.perf_counter() - sent
                if t["ply"] == ply + 2 and t["plies"][-1]["player"] != side:
                    latencies.append(latency)
                    overheads.append(latency - search_time(t))
            print(f"{game}: reply of search:100 after a move, median {statistics.median(latencies):.2f} s, max "
                  f"{max(latencies):.2f} s; over the search's own time median {statistics.median(overheads):+.3f} s, "
                  f"max {max(overheads):+.3f} s ({len(latencies)} moves)", flush=True)


def levels(url: str, moves: int) -> None:
    """The reply's time at each of the Play room's named levels, each game."""
    from stratstone_cad.registry import get_game
    from stratstone_cad.studio.play_page import levels_of

    with httpx.Client(base_url=url, trust_env=False, timeout=300) as c:
        for game, extra in GAMES.items():
            for level in levels_of(get_game(game).search_simulations):
                r = c.post(f"/api/table/{game}", json={"players": ["person", level["kind"]], "seed": 7, **extra})
                (side, seat), = r.json()["seats"].items()
                table, rng, took = r.json()["id"], random.Random(1), []
                t = until(c, table, 0)
                while len(took) < moves and not t["over"]:
                    ply, sent = t["ply"], time.perf_counter()
                    c.post(f"/api/table/{table}/move", json={"move": rng.choice(t["legal"]), "ply": ply,
                                                             "seat": seat}).raise_for_status()
                    t = until(c, table, ply + 2, side)
                    if t["ply"] == ply + 2 and t["plies"][-1]["player"] != side:
                        took.append(time.perf_counter() - sent)
                if took:
                    print(f"{game}: {level['name']} ({level['kind']}): reply median {statistics.median(took):.2f} s, "
                          f"max {max(took):.2f} s ({len(took)} moves)", flush=True)


KINDS = (["person", "person"], ["person", "search:100"], ["person", "greedy"])


def listener(url: str, stop: float, tables: list[str], counts: list[int], errors: list[str], index: int) -> None:
    """One spectator: a random table's event stream followed until it ends or ``stop``, then another's."""
    rng = random.Random(1000 + index)
    with httpx.Client(base_url=url, trust_env=False, timeout=60) as c:
        while time.monotonic() < stop:
            if not tables:
                time.sleep(0.2)  # not a wait: no table made yet to follow
                continue
            try:
                with c.stream("GET", f"/api/table/{rng.choice(tables)}/events") as r:
                    if r.status_code != 200:
                        errors.append(f"events {r.status_code}")
                        return
                    for line in r.iter_lines():
                        if line.startswith("data: "):
                            counts[index] += 1
                            if json.loads(line[6:])["over"] or time.monotonic() >= stop:
                                break
            except httpx.HTTPError as e:
                errors.append(f"events: {e!r}")
                return


def player(url: str, index: int, stop: float, errors: list[str], logs: set[str],
           times: dict[str, list[float]]) -> None:
    """One scripted client: its tables one after another until ``stop``."""
    rng = random.Random(index)
    game = list(GAMES)[index % len(GAMES)]
    kinds = KINDS[index % len(KINDS)]
    with httpx.Client(base_url=url, trust_env=False, timeout=120) as c:
        while time.monotonic() < stop:
            r = c.post(f"/api/table/{game}", json={"players": kinds, "seed": rng.randrange(2**32), **GAMES[game]})
            if r.status_code != 201:
                errors.append(r.text)
                return
            table, seats = r.json()["id"], r.json()["seats"]
            logs.add(f"tables/{table}.jsonl")
            t = c.get(f"/api/table/{table}").json()
            sent = None
            while not t["over"] and time.monotonic() < stop:
                if t["to_move"] not in seats:
                    t = until(c, table, t["ply"] + 1)
                    if sent is not None:
                        times[kinds[1]].append(time.perf_counter() - sent)
                    continue
                sent = time.perf_counter()
                r = c.post(f"/api/table/{table}/move", json={"move": rng.choice(t["legal"]), "ply": t["ply"],
                                                             "seat": seats[t["to_move"]]})
                times["post"].append(time.perf_counter() - sent)
                if r.status_code != 200:
                    errors.append(f"{r.status_code} {r.text}")
                    return
                t = r.json()


def _spread(xs: list[float]) -> str:
    if not xs:
        return "none"
    q = statistics.quantiles(xs, n=20) if len(xs) > 1 else [xs[0]] * 19
    return f"median {statistics.median(xs):.2f} s, 95th {q[18]:.2f} s, max {max(xs):.2f} s ({len(xs)})"


def soak(url: str, pid: int, folder: Path, tables: int, seconds: float, listeners: int) -> None:
    errors: list[str] = []
    logs: set[str] = set()
    times: dict[str, list[float]] = {"post": [], "search:100": [], "greedy": [], "person": []}
    start_at = time.monotonic()
    stop = start_at + seconds
    threads = [threading.Thread(target=player, args=(url, i, stop, errors, logs, times), daemon=True)
               for i in range(tables)]
    made: list[str] = []
    counts = [0] * listeners
    spectators = [threading.Thread(target=listener, args=(url, stop, made, counts, errors, i), daemon=True)
                  for i in range(listeners)]
    for th in threads + spectators:
        th.start()
    mark = min(120.0, seconds * 0.2)  # the "memory at minute 2"
    early, samples = 0.0, []
    while any(th.is_alive() for th in threads) and time.monotonic() < stop + 120:
        made[:] = [Path(log).stem for log in list(logs)]
        samples.append(rss_mb(pid))
        if not early and time.monotonic() - start_at >= mark:
            early = samples[-1]
        threading.Event().wait(10)  # a memory reading every 10 s while the clients play
    for th in threads + spectators:
        th.join(timeout=120)
    late = rss_mb(pid)
    early = early or samples[0]
    refused = []
    for log in sorted(logs):
        r = subprocess.run([sys.executable, "-m", "stratstone_cad", "check-log", str(folder / log)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            refused.append(r.stdout + r.stderr)
    print(f"soak: {tables} tables and {listeners} listeners for {seconds:g} s: {len(logs)} games, {len(errors)} "
          f"errors, {len(refused)} logs check-log refused; server RSS {early:.0f} MB at {mark:g} s, {late:.0f} MB at "
          f"the end ({(late - early) / early:+.1%}), at most {max(samples):.0f} MB; {sum(counts)} events followed",
          flush=True)
    print(f"  a move's answer (POST): {_spread(times['post'])}", flush=True)
    for kind in ("search:100", "greedy"):
        print(f"  {kind}'s reply (POST to the reply on the stream): {_spread(times[kind])}", flush=True)
    for e in (errors + refused)[:5]:
        print("  ", e.strip()[:200])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--listeners", type=int, default=10)
    ap.add_argument("--levels", action="store_true", help="the reply's time at the Play room's named levels")
    args = ap.parse_args()
    print(machine_line(), "load", loadavg(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        p, url = start(Path(tmp))
        try:
            replies(url, args.moves)
            if args.levels:
                levels(url, args.moves)
            print("load before the soak", loadavg(), flush=True)
            soak(url, p.pid, Path(tmp), args.tables, args.seconds, args.listeners)
        finally:
            p.terminate()
            p.wait(timeout=30)
    print("load after", loadavg())


if __name__ == "__main__":
    main()
