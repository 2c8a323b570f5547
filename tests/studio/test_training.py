"""The Training page (/training) and its API (/api/training/...) on the studio run as users run
it (``studio --puzzles FILE``), on puzzles found in real logged games (``puzzles`` on a terrain
game the built-in players played, and a win in two moves of a Stratstone game): each move
judged by the engine, a wrong one's refutation a legal reply that wins, the progress kept in
the studio's folder across a restart, bad requests refused in one line, and in a real Chromium
a puzzle solved by clicking and a wrong click's refutation played out."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from stratstone_cad.analysis.puzzles import shipped_puzzles, write_puzzles
from stratstone_cad.engine.protocol import State
from stratstone_cad.log import logfile as _log
from stratstone_cad.log.commands import play_records
from stratstone_cad.studio.training import PROGRESS_FILE
from tests.pages import Browser
from tests.studio.test_tables import stop

DEPTH3_PLY = 13
"""In Stratstone's game of seed 2 (greedy against random), yellow's ply 13 wins in two moves."""
DEPTH3_MOVES = ("c4 WSW", "c4 WWS")
"""The two first moves after which every reply of red leaves yellow a win at once."""

SAGE_SEED, SAGE_PLY, SAGE_SAVE = 10, 43, "7-1"
"""In Sage Stones' two-player game of seed 10 (greedy against random), p2's ply 43 (dice 3-3-1):
7-1 is the one move after which no roll lets p1 win at once."""


@pytest.fixture(scope="module")
def puzzle_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The puzzles of a terrain game (a save at ply 12, a win at ply 13) and a win in two moves
    (depth 3) at ply 13 of a Stratstone game, as ``puzzles`` writes them."""
    folder = tmp_path_factory.mktemp("puzzles")
    terrain = folder / "terrain-7.jsonl"
    _log.write_log(terrain, play_records("terrain", 7, ["greedy", "random"]))
    out = folder / "puzzles.jsonl"
    write_puzzles([terrain], out)
    records = play_records("stratstone", 2, ["greedy", "random"])
    two = {"game": "stratstone", "rules": records[0]["rules"], "source": "stratstone-2.jsonl", "ply": DEPTH3_PLY,
           "player": records[DEPTH3_PLY]["player"], "kind": "win", "depth": 3, "solution": DEPTH3_MOVES[0],
           "played": records[DEPTH3_PLY]["move"], "position": {"log": records[:DEPTH3_PLY]}}
    sage = play_records("sage-stones", SAGE_SEED, ["greedy", "random"], {"variant": "two-player"})
    save = {"game": "sage-stones", "rules": sage[0]["rules"], "source": "sage-stones-10.jsonl", "ply": SAGE_PLY,
            "player": sage[SAGE_PLY]["player"], "kind": "save", "depth": 1, "solution": SAGE_SAVE,
            "played": sage[SAGE_PLY]["move"], "position": {"log": sage[:SAGE_PLY], "dice": sage[SAGE_PLY]["dice"]}}
    with out.open("a", encoding="utf-8") as f:
        f.write(json.dumps(two) + "\n" + json.dumps(save) + "\n")
    return out


def start(folder: Path, puzzles: Path) -> tuple[subprocess.Popen, httpx.Client]:
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "studio", "--no-browser", "--port", "0", "--out",
                          str(folder), "--puzzles", str(puzzles)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = p.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("studio: http://127.0.0.1:"), line + p.stderr.read()  # type: ignore[union-attr]
    return p, httpx.Client(base_url=line.split()[1].rstrip("/"), trust_env=False, timeout=120)


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory, puzzle_file: Path) -> Iterator[tuple[httpx.Client, Path]]:
    folder = tmp_path_factory.mktemp("training")
    p, client = start(folder, puzzle_file)
    try:
        yield client, folder
    finally:
        client.close()
        stop(p)


def listed(client: httpx.Client, game: str, kind: str, depth: int = 1) -> dict[str, Any]:
    """The puzzle of ``game`` from the test's file (its source) of that kind and depth."""
    r = client.get(f"/api/training/{game}")
    assert r.status_code == 200, r.text
    found = [p for p in r.json()["puzzles"] if p["source"].endswith(("terrain-7.jsonl", "-2.jsonl", "-10.jsonl"))
             and p["kind"] == kind and p["depth"] == depth]
    assert len(found) == 1, r.json()["puzzles"]
    return found[0]


def solution_of(puzzle_file: Path, ply: int) -> str:
    return next(p["solution"] for p in map(json.loads, puzzle_file.read_text().splitlines()) if p["ply"] == ply
                and p["source"].endswith("terrain-7.jsonl"))


def position(puzzle_file: Path, puzzle: dict[str, Any]) -> State:
    """The engine's own state of the puzzle, replayed from its line's position log."""
    line = next(p for p in map(json.loads, puzzle_file.read_text().splitlines())
                if p["ply"] == puzzle["ply"] and p["source"] == puzzle["source"])
    with _log.LogWalk(iter(enumerate(line["position"]["log"], 1))) as r:
        return r.run()


def wins(state: State) -> list[str]:
    """The moves that win at once for the player to move."""
    me = state.to_move()
    return [str(m) for m in state.legal_moves() if (r := state.apply(m)[0].result()) is not None and r.winner == me]


def judged(client: httpx.Client, puzzle: dict[str, Any], *moves: str) -> dict[str, Any]:
    r = client.post(f"/api/training/puzzle/{puzzle['id']}/move", json={"moves": list(moves)})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_right_move_solves_and_a_wrong_ones_refutation_is_a_legal_reply_that_wins(
        studio: tuple[httpx.Client, Path], puzzle_file: Path) -> None:
    client, _ = studio
    save = listed(client, "terrain", "save")
    assert save["task"] == f"{save['player']} to move, save the game (any other move loses at once)"
    state = position(puzzle_file, save)
    right = solution_of(puzzle_file, save["ply"])
    assert judged(client, save, right) | {"progress": None} == {
        "right": True, "done": True, "solved": True, "reply": None, "refutation": [], "dice": None, "solution": [right],
        "message": f"{right} saves the game: solved", "progress": None}
    for wrong in [str(m) for m in state.legal_moves() if str(m) != right][:3]:
        v = judged(client, save, wrong)
        assert (v["right"], v["solved"], v["solution"]) == (False, False, [right]), v
        after = state.apply(wrong)[0]
        (reply,) = v["refutation"]
        assert reply in wins(after), (wrong, reply)  # legal there, and the other side wins with it
    win = listed(client, "terrain", "win")
    assert win["task"] == f"{win['player']} to move, win in one"
    state = position(puzzle_file, win)
    (right,) = wins(state)
    assert judged(client, win, right)["solved"]
    wrong = next(str(m) for m in state.legal_moves() if str(m) != right)
    v = judged(client, win, wrong)
    assert (v["right"], v["solution"]) == (False, [right]) and all(r in wins(state.apply(wrong)[0])
                                                                   for r in v["refutation"])


def test_a_win_in_two_moves_answers_the_studios_reply_then_judges_the_second(
        studio: tuple[httpx.Client, Path], puzzle_file: Path) -> None:
    client, _ = studio
    two = listed(client, "stratstone", "win", depth=3)
    assert two["task"].endswith("win in two moves")
    state = position(puzzle_file, two)
    first = judged(client, two, DEPTH3_MOVES[1])  # the other first move that forces the win counts too
    assert (first["right"], first["done"]) == (True, False), first
    after = state.apply(DEPTH3_MOVES[1])[0]
    then = after.apply(first["reply"])[0]  # the reply is legal, and resists best: it leaves the fewest wins
    finishing = wins(then)
    assert 0 < len(finishing) == min(len(wins(after.apply(r)[0])) for r in after.legal_moves())
    assert judged(client, two, DEPTH3_MOVES[1], first["reply"], finishing[0])["solved"]
    missed = next(str(m) for m in then.legal_moves() if str(m) not in finishing)
    v = judged(client, two, DEPTH3_MOVES[1], first["reply"], missed)
    assert (v["right"], v["done"], v["solution"]) == (False, True, finishing[:1]), v
    wrong = next(str(m) for m in state.legal_moves() if str(m) not in DEPTH3_MOVES and not wins(state.apply(m)[0]))
    v = judged(client, two, wrong)
    (reply,) = v["refutation"]
    after = state.apply(wrong)[0].apply(reply)[0]  # a legal reply after which no move wins at once
    assert not wins(after) and (v["right"], v["done"]) == (False, True), v


def test_where_dice_come_next_the_refutation_is_a_roll_and_a_winning_move_after_it(
        studio: tuple[httpx.Client, Path], puzzle_file: Path) -> None:
    client, _ = studio
    save = listed(client, "sage-stones", "save")
    assert save["dice"] == [3, 3, 1] and "(dice 3-3-1)" in save["task"]
    state = position(puzzle_file, save).apply_chance(tuple(save["dice"]))[0]
    assert judged(client, save, SAGE_SAVE)["solved"]
    wrong = next(str(m) for m in state.legal_moves() if str(m) != SAGE_SAVE)
    v = judged(client, save, wrong)
    (reply,) = v["refutation"]
    rolled = state.apply(wrong)[0].apply_chance(tuple(v["dice"]))[0]
    assert (v["right"], v["solution"]) == (False, [SAGE_SAVE]) and reply in wins(rolled), v
    shown = client.get(f"/api/training/puzzle/{save['id']}", params=[("move", wrong), ("move", reply),
                                                                     ("dice", "-".join(map(str, v["dice"])))])
    assert shown.json()["result"]["winner"] == rolled.to_move(), shown.text


def test_refused_requests_answer_one_line_and_record_nothing(studio: tuple[httpx.Client, Path]) -> None:
    client, folder = studio
    save = listed(client, "terrain", "save")
    two = listed(client, "stratstone", "win", depth=3)
    before = (folder / PROGRESS_FILE).read_bytes() if (folder / PROGRESS_FILE).exists() else None
    base = f"/api/training/puzzle/{save['id']}"
    cases = [
        (client.get("/api/training/chess"), 404, "game 'chess': no such game; expected one of"),
        (client.get("/api/training/puzzle/0123456789ab"), 404, "puzzle '0123456789ab': no such puzzle"),
        (client.post("/api/training/puzzle/nope/move", json={"moves": ["a1-a2"]}), 404, "puzzle 'nope': no such puzzle"),
        (client.post(f"{base}/move", json={"moves": ["z9-z10"]}), 400, "move 1 'z9-z10': "),
        (client.post(f"{base}/move", json={"moves": "a1-a2"}), 400, "moves 'a1-a2': expected a list of 1 move"),
        (client.post(f"{base}/move", json={"moves": ["a1-a2", "a2-a3"]}), 400, "moves "),
        (client.post(f"{base}/move", content=b"{"), 400, "body: not JSON"),
        (client.post(f"/api/training/puzzle/{two['id']}/move", json={"moves": [DEPTH3_MOVES[0], "a1 N", "a1 N"]}), 400,
         "move 2 'a1 N': not the studio's reply; expected "),
        (client.get(f"{base}?move=z9-z10"), 400, "move 1 'z9-z10': "),
        (client.get(f"{base}/view3d?move=z9-z10"), 400, "move 1 'z9-z10': "),
    ]
    for r, status, start in cases:
        assert (r.status_code, r.text.startswith(start), "\n" in r.text.strip()) == (status, True, False), r.text
    after = (folder / PROGRESS_FILE).read_bytes() if (folder / PROGRESS_FILE).exists() else None
    assert after == before


def test_progress_is_kept_in_the_studios_folder_across_a_restart(tmp_path: Path, puzzle_file: Path) -> None:
    p, client = start(tmp_path, puzzle_file)
    try:
        save, win = listed(client, "terrain", "save"), listed(client, "terrain", "win")
        assert judged(client, save, solution_of(puzzle_file, save["ply"]))["progress"]["solved"] == 1
        state = position(puzzle_file, win)
        assert not judged(client, win, next(str(m) for m in state.legal_moves() if not wins(state.apply(m)[0]) and
                                            str(m) not in wins(state)))["solved"]
    finally:
        client.close()
        stop(p)
    p, client = start(tmp_path, puzzle_file)
    try:
        progress = client.get("/api/training/terrain").json()["progress"]
        total = 2 + len(shipped_puzzles("terrain").read_text(encoding="utf-8").splitlines())  # the shipped set's too
        assert (progress["solved"], progress["failed"], progress["total"]) == (1, 1, total)
        done = {k: v for k, v in progress["results"].items() if v is not None}  # the shipped ones untried
        assert done == {save["id"]: "solved", win["id"]: "failed"}
        assert client.get("/api/training/progress").json()["games"]["terrain"] == {"solved": 1, "failed": 1, "total": total}
    finally:
        client.close()
        stop(p)
    assert [f.name for f in tmp_path.iterdir() if f.name.startswith(PROGRESS_FILE[:8])] == [PROGRESS_FILE]


def test_a_puzzle_is_solved_by_clicking_and_a_wrong_click_shows_the_refutation(
        studio: tuple[httpx.Client, Path], browser: Browser, puzzle_file: Path) -> None:
    client, _ = studio
    b = browser
    save = listed(client, "terrain", "save")
    right = solution_of(puzzle_file, save["ply"])
    frm, to = right.replace("x", "-").split("-")
    b.page.goto(f"{str(client.base_url).rstrip('/')}/training?game=terrain&puzzle={save['id']}")
    b.wait(f"window.training && window.training.ready && window.training.position.id === '{save['id']}'")
    assert b.js("document.querySelector('#task').textContent") == save["task"]
    b.page.click(f'#board2d [data-square="{frm}"]')
    b.wait(f"document.querySelector('#board2d [data-square=\"{to}\"]').hasAttribute('data-reach')")
    b.page.click(f'#board2d [data-square="{to}"]')
    b.wait("document.querySelector('#board2d').dataset.shown === 'solved'")
    assert b.js("document.querySelector('#verdict').dataset.result") == "solved"
    assert "solved" in b.js("document.querySelector('#verdict').textContent")
    assert b.js(f"document.querySelector('#list [data-puzzle=\"{save['id']}\"]').dataset.result") == "solved"
    assert " solved" in b.js("document.querySelector('#progress').textContent")

    b.page.click("#next")
    b.page.click(f"#list [data-puzzle='{save['id']}']")
    b.wait(f"window.training.position.id === '{save['id']}' && window.training.shown === 'puzzle' && "
           "window.training.puzzle.id === window.training.position.id")
    state = position(puzzle_file, save)
    wrong = next(str(m) for m in state.legal_moves() if str(m) != right and "x" not in str(m)
                 and not str(m).startswith(frm))
    wfrom, wto = wrong.split("-")
    b.page.click(f'#board2d [data-square="{wfrom}"]')
    b.wait(f"document.querySelector('#board2d [data-square=\"{wto}\"]').hasAttribute('data-reach')")
    b.page.click(f'#board2d [data-square="{wto}"]')
    b.wait("document.querySelector('#board2d').dataset.shown === 'refutation'")
    text = b.js("document.querySelector('#verdict').textContent")
    assert b.js("document.querySelector('#verdict').dataset.result") == "wrong", text
    assert text.split("refutation: ")[1] in wins(state.apply(wrong)[0]), text
    assert b.errors == []


def test_a_bad_puzzle_file_stops_the_studio_before_it_starts(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from stratstone_cad.cli import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"game": "stratstone", "kind": "win"}\n')
    out = tmp_path / "studio"
    assert main(["studio", "--no-browser", "--port", "0", "--out", str(out), "--puzzles", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == (f"stratstone-cad: error: {bad} line 1: not a puzzle of stratstone (no 'position' field); "
                   "expected a line stratstone-cad puzzles writes\n")
    assert not out.exists()
