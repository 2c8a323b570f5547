"""``record``: games played at the table, entered through standard input as the scripted
sessions of players would, checked by the engines, never losing an accepted ply."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TextIO

import pytest

from stratstone_cad.errors import UserError
from stratstone_cad.log import commands
from stratstone_cad.log import record as rec
from stratstone_cad.log.logfile import validate
from stratstone_cad.log.record import prompt
from stratstone_cad.registry import FACTS, get_game
from tests import LOGS, TRANSCRIPTS


def cli(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    """``stratstone-cad record ARGS`` run in this process (the command line's own ``main``,
    its standard streams text buffers): as fast as a call, and reached by the mutation
    tests. What only a real process shows (stray bytes, a closed standard input, kills)
    is tested with a subprocess below."""
    from stratstone_cad.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(["record", *args])
            except SystemExit as e:  # argparse's refusals
                code = e.code if isinstance(e.code, int) else 2
    finally:
        sys.stdin = saved
    return subprocess.CompletedProcess(["record", *args], code, out.getvalue(), err.getvalue())


def lines(path: Path) -> list[dict]:
    return [json.loads(t) for t in path.read_text().splitlines()]


def played(game: str, seed: int, setup: dict | None = None) -> list[dict]:
    """A whole game between built-in players: the moves the scripted sessions type."""
    two = get_game(game).default_players(None) == 2  # greedy against random; else every player random
    return [json.loads(t) for t in commands.play(game, seed, ["greedy", "random"] if two else None, None, setup).splitlines()]


def typed(records: list[dict]) -> str:
    """What a player types for those plies: the dice (Sage Stones) then the move; a move
    the dice force (``-``) is recorded by the prompt itself."""
    out = []
    for r in records[1:]:
        if "dice" in r:
            out.append(" ".join(map(str, r["dice"])))
            if r["move"] == "-":
                continue
        if "move" in r:
            out.append(r["move"])
    return "\n".join(out) + "\n"


class CheckingInput(io.StringIO):
    """Standard input that checks the log on disk before every answer it gives."""

    def __init__(self, text: str, log: Path) -> None:
        super().__init__(text)
        self.log = log
        self.checked: list[int] = []

    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        self.checked.append(validate(self.log).plies)
        return super().readline(size)


@pytest.mark.parametrize(("game", "seed", "args"), [("stratstone", 3, []), ("sage-stones", 5, []),
                                                    ("terrain", 2, ["--terrain-seed", "2"])])
def test_a_whole_game_typed_in_is_the_game_played(tmp_path, game, seed, args):
    game_log = played(game, seed)
    out = tmp_path / "g.jsonl"
    r = cli(game, "--out", str(out), *args, stdin=typed(game_log))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].startswith(f"wrote {out}: {game}, {game_log[-2]['ply']} plies, winner")
    got = lines(out)
    assert got[1:] == game_log[1:]  # every ply and the result, as the engine's own players made them
    assert {**got[0], "seed": 0} == {**game_log[0], "seed": 0} and got[0]["seed"] is None
    assert validate(out).result is not None


@pytest.mark.parametrize(("game", "seed", "args", "case"), [
    ("stratstone", 3, [], str.swapcase),  # b2 NNE typed B2 nne
    ("terrain", 2, ["--terrain-seed", "2"], str.upper),  # C1-C4, C1XC5, E7-EXIT, PASS
])
def test_moves_typed_in_any_case_are_logged_in_the_canonical_one(tmp_path, game, seed, args, case):
    game_log = played(game, seed)
    out = tmp_path / "g.jsonl"
    text = typed(game_log)
    assert case(text) != text
    r = cli(game, "--out", str(out), *args, stdin=case(text))
    assert r.returncode == 0, r.stdout
    assert lines(out)[1:] == game_log[1:]  # the log's own notation, as the engine writes it
    bad = tmp_path / "bad.jsonl"  # a log stays canonical: check-log refuses another case
    bad.write_text("\n".join(json.dumps({**x, "move": case(x["move"])} if "move" in x else x) for x in lines(out)) + "\n")
    with pytest.raises(UserError, match="does not parse"):
        validate(bad)


def test_moves_and_as_take_any_case_at_the_prompt(tmp_path):
    out = tmp_path / "g.jsonl"
    r = cli("stratstone", "--out", str(out), "--vs", "greedy", "--as", "RED", stdin="moves D1\nquit\n")
    assert r.returncode == 0, r.stdout
    assert [p["player"] for p in lines(out)[1:]] == ["yellow"]  # the engine played yellow: the person is red
    assert any(line.startswith("red to move> moves D1") for line in r.stdout.splitlines())
    assert any(line.startswith("d1 NN") for line in r.stdout.splitlines())  # d1's moves


def test_the_log_on_disk_is_valid_after_every_ply(tmp_path):
    game_log = played("sage-stones", 8, {"variant": "two-player"})
    out = tmp_path / "g.jsonl"
    stdin = CheckingInput(typed(game_log[:-1]) + "quit\n", out)
    said: list[str] = []
    line = rec.record("sage-stones", out, {"variant": "two-player"}, None, roll=False, seed=None, stdin=stdin,
                      say=said.append, interactive=False, on_warning=said.append)
    assert line.startswith(f"wrote {out}: sage-stones")  # the last ply ended the game: no quit needed
    plies = game_log[-2]["ply"]
    assert stdin.checked[0] == 0 and stdin.checked[-1] == plies - 1 and len(stdin.checked) >= plies
    assert lines(out) == [*lines(out)[:1], *game_log[1:]]


def test_an_illegal_or_mistyped_move_is_refused_with_its_reason_then_a_legal_one_is_taken(tmp_path):
    out = tmp_path / "g.jsonl"
    r = cli("stratstone", "--out", str(out), stdin="a1 NNS\nb2 NN\nz9 N\na1 NNE\nquit\n")
    assert r.returncode == 0, r.stderr
    said = r.stdout.splitlines()
    assert "refused: ply 1: a1 NNS steps straight back" in said
    assert any(s.startswith("refused: ply 1: b2 NN ") for s in said)
    assert any(s.startswith("refused: ply 1: 'z9 N' does not parse") for s in said)
    assert "1 yellow a1 NNE: adds yellow to the 2 stones on a1, picks up all 3 (tan, tan, yellow), sows a2 tan, a3 tan, b3 yellow" in said  # the ply in words
    assert [x.get("move") for x in lines(out)[1:]] == ["a1 NNE"]


def test_sage_stones_dice_say_the_column_and_record_a_lost_turn_by_themselves(tmp_path):
    out = tmp_path / "g.jsonl"
    r = cli("sage-stones", "--players", "red,green", "--out", str(out),
            stdin="2 3 3\n7-4\n8-4\n1 2 3\n3-3-3 9-1\n4 1 1\nquit\n")
    assert r.returncode == 0, r.stderr
    said = r.stdout.splitlines()
    assert "dice 2-3-3: place in column 8" in said
    assert "refused: ply 1: 7-4 is not in column 8 (dice 2-3-3)" in said
    assert "1 red 8-4: dice 2-3-3 = 8: column 8" in said  # the ply in words, as check-log --explain
    assert "3 red 9-1: dice 3-3-3 = 9: column 9; plays again (rolled a triple)" in said
    assert "dice 1-2-3: the turn is lost (rolled 1-2-3), recorded as -" in said
    assert "refused: ply 4: dice [4, 1, 1] are not three dice of 1-3" in said
    assert [(x["player"], x["dice"], x["move"]) for x in lines(out)[1:]] == [
        ("red", [2, 3, 3], "8-4"), ("green", [1, 2, 3], "-"), ("red", [3, 3, 3], "9-1")]


def test_undo_takes_back_the_dice_then_the_plies(tmp_path):
    out = tmp_path / "g.jsonl"
    r = cli("sage-stones", "--out", str(out), stdin="2 2 2\n6-1\n3 3 3\nundo\nundo\nundo\nundo\n1 1 1\n3-9\nquit\n")
    assert r.returncode == 0, r.stderr
    said = r.stdout.splitlines()
    assert "took back the dice 3-3-3" in said and "took back ply 1: yellow 6-1" in said
    assert "nothing to undo: no ply is recorded yet" in said
    assert [(x["dice"], x["move"]) for x in lines(out)[1:]] == [([1, 1, 1], "3-9")]


def test_a_lost_turn_and_a_board_reset_are_recorded_by_the_dice_and_a_move_typed_with_them_is_ignored(tmp_path):
    """1-2-3 loses the turn; column 6 full when the dice ask for it resets the board. The
    prompt records that ``-`` itself, and says so for a move typed on the dice's line."""
    out = tmp_path / "g.jsonl"
    fill_six = "".join(f"2 2 2\n6-{row}\n" for row in range(1, 10))  # a triple: blue plays again, 9 times
    r = cli("sage-stones", "--out", str(out), stdin="1 2 3 -\n3 2 1 9-1\n" + fill_six + "2 2 2 6-1\nquit\n")
    assert r.returncode == 0, r.stderr
    said = [s for s in r.stdout.splitlines() if s.startswith("dice ")]
    assert said[:2] == ["dice 1-2-3: the turn is lost (rolled 1-2-3), recorded as -",
                        "dice 3-2-1: the turn is lost (rolled 1-2-3), recorded as -; '9-1' ignored"]
    assert said[2:] == ["dice 2-2-2: place in column 6"] * 9 + [
        "dice 2-2-2: the board is reset (column 6 is full), recorded as -; '6-1' ignored"]
    assert "after ply 12, yellow to roll" in r.stdout.splitlines()  # the first player rolls after a reset
    got = lines(out)[1:]
    assert [(x["player"], x["move"]) for x in got[:2]] == [("yellow", "-"), ("red", "-")]
    assert [(x["player"], x["dice"], x["move"]) for x in got[-1:]] == [("blue", [2, 2, 2], "-")] and len(got) == 12
    assert validate(out).plies == 12


def test_undo_takes_back_a_lost_turn_alone_when_the_dice_were_typed(tmp_path):
    out = tmp_path / "g.jsonl"
    r = cli("sage-stones", "--players", "red,blue", "--out", str(out), stdin="2 3 3\n8-4\n1 2 3\nundo\nquit\n")
    said = r.stdout.splitlines()
    assert "took back ply 2: blue -" in said and "took back ply 1: red 8-4" not in said
    assert [x["move"] for x in lines(out)[1:]] == ["8-4"]


def test_undo_with_roll_takes_back_the_lost_turns_down_to_the_ply_the_player_chose(tmp_path):
    """With --roll the dice of ply n come from ``Random(f"{seed}/{n}")``; seed 10 rolls a lost
    turn for plies 1 and 4, columns 7 and 4 for plies 2 and 3."""
    import random

    from stratstone_cad.games.sage_stones.rules import SageStonesState

    start = SageStonesState.start(["red", "blue"])
    assert [start.roll(random.Random(f"10/{n}")) for n in range(1, 5)] == [(3, 1, 2), (3, 2, 2), (1, 2, 1), (3, 1, 2)]
    out = tmp_path / "g.jsonl"
    r = cli("sage-stones", "--roll", "--seed", "10", "--players", "red,blue", "--out", str(out),
            stdin="7-1\n4-1\nundo\nundo\nundo\nquit\n")
    assert r.returncode == 0, r.stderr
    took = [s for s in r.stdout.splitlines() if s.startswith("took back")]
    assert took == ["took back ply 4: blue -", "took back ply 3: red 4-1",  # the lost turn, then the chosen ply
                    "took back ply 2: blue 7-1"]  # a chosen ply alone
    # a lost first turn is not taken back: no chosen ply before it, and the same dice would lose it again
    assert r.stdout.splitlines().count("dice 3-1-2: the turn is lost (rolled 1-2-3), recorded as -") == 2
    assert ("nothing to undo: the dice forced every ply recorded (1 ply), and with --roll they fall the same again"
            in r.stdout.splitlines())
    assert [(x["player"], x["move"]) for x in lines(out)[1:]] == [("red", "-")]


def test_undo_with_roll_takes_back_no_ply_the_dice_forced_from_the_start(tmp_path):
    """Seed 15 loses the first two turns; those plies are the dice's, not the players':
    undo leaves them (the same dice would fall again) and takes back a chosen ply alone."""
    import random

    from stratstone_cad.games.sage_stones.rules import SageStonesState

    state = SageStonesState.start(["red", "blue"])
    for n in (1, 2):
        rolled = state.apply_chance(state.roll(random.Random(f"15/{n}")))[0]
        assert [str(m) for m in rolled.legal_moves()] == ["-"]
        state = rolled.apply(next(rolled.legal_moves()))[0]
    chosen = str(next(state.apply_chance(state.roll(random.Random("15/3")))[0].legal_moves()))
    out = tmp_path / "g.jsonl"
    r = cli("sage-stones", "--roll", "--seed", "15", "--players", "red,blue", "--out", str(out),
            stdin=f"undo\n{chosen}\nundo\nundo\nquit\n")
    assert r.returncode == 0, r.stderr
    said = [s for s in r.stdout.splitlines() if s.startswith(("took back", "nothing to undo"))]
    nothing = "nothing to undo: the dice forced every ply recorded (2 plies), and with --roll they fall the same again"
    assert said == [nothing, f"took back ply 3: red {chosen}", nothing]
    assert [(x["player"], x["move"]) for x in lines(out)[1:]] == [("red", "-"), ("blue", "-")]


def test_a_command_with_a_stray_argument_is_refused_and_resign_names_the_loser(tmp_path):
    out = tmp_path / "g.jsonl"
    r = cli("stratstone", "--out", str(out), stdin="show me\n?\nresign pink\nresign red\n")
    assert r.returncode == 0, r.stderr
    said = r.stdout.splitlines()
    assert "show takes no argument, got 'me' (help lists the commands)" in said
    assert f"yellow to move> ?\n{prompt.HELP}\n" in r.stdout
    assert "refused: resign 'pink': expected one of yellow, red" in said
    assert said[-1] == f"wrote {out}: stratstone, 0 plies, winner yellow (resignation)"  # red resigned, yellow to move


def test_resign_and_draw_end_with_a_result_line_check_log_accepts(tmp_path):
    out = tmp_path / "resign.jsonl"
    r = cli("stratstone", "--out", str(out), stdin="a1 NNE\nresign\n")
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == f"wrote {out}: stratstone, 1 ply, winner yellow (resignation)"
    assert lines(out)[-1] == {"result": {"winner": "yellow", "reason": "resignation"}}
    assert validate(out).summary() == "ok: stratstone, 1 ply, winner yellow (resignation)"
    out = tmp_path / "named.jsonl"
    cli("terrain", "--terrain-seed", "1", "--out", str(out), stdin="resign red\n")
    assert lines(out)[-1] == {"result": {"winner": "blue", "reason": "resignation"}}
    out = tmp_path / "draw.jsonl"
    r = cli("sage-stones", "--out", str(out), stdin="resign\n2 3 3\ndraw\n")
    assert "refused: resign: with 4 players a resignation names no winner; use draw, or quit to stop here" in r.stdout
    assert lines(out)[-1] == {"result": {"winner": None, "reason": "draw agreed"}}
    assert validate(out).summary() == "ok: sage-stones, 0 plies, draw (draw agreed)"


def test_check_log_takes_an_agreed_end_only_as_the_rules_allow(tmp_path):
    head = ('{"format": "stratstone-cad/log", "version": 1, "game": "sage-stones", "rules": "sage-stones/1", '
            '"players": ["yellow", "red", "blue"], "seed": null, "setup": {}}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text(head + '{"result": {"winner": "red", "reason": "resignation"}}\n')
    with pytest.raises(UserError, match="result says winner red \\(resignation\\): a resignation ends only a "
                                        "two-player game, this one has 3 players"):
        validate(bad)
    bad.write_text(head.replace('"yellow", "red", "blue"', '"yellow", "red"')
                   + '{"result": {"winner": "red", "reason": "draw agreed"}}\n')
    with pytest.raises(UserError, match="a draw agreed has no winner, expected winner null"):
        validate(bad)


def test_quit_then_resume_gives_the_log_of_an_uninterrupted_session(tmp_path):
    game_log = played("terrain", 4)
    script = typed(game_log).splitlines(keepends=True)
    whole, part = tmp_path / "whole.jsonl", tmp_path / "part.jsonl"
    assert cli("terrain", "--terrain-seed", "4", "--out", str(whole), stdin="".join(script)).returncode == 0
    r = cli("terrain", "--terrain-seed", "4", "--out", str(part), stdin="".join(script[:7]) + "quit\n")
    assert r.stdout.splitlines()[-1] == (f"kept {part}: terrain, unfinished after 7 plies "
                                         f"(quit; record --resume {part} continues it)")
    r = cli("--resume", str(part), stdin="".join(script[7:15]))  # the end of input stops it too
    assert "unfinished after 15 plies (end of input" in r.stdout
    r = cli("terrain", "--resume", str(part), stdin="".join(script[15:]))
    assert r.returncode == 0, r.stderr
    assert part.read_bytes() == whole.read_bytes()
    r = cli("--resume", str(part), stdin="quit\n")
    assert r.returncode == 2 and "the game is over (winner" in r.stderr and "nothing to continue" in r.stderr


def test_a_session_killed_between_moves_keeps_every_accepted_ply(tmp_path):
    out = tmp_path / "g.jsonl"
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "record", "stratstone", "--out", str(out)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdin is not None and p.stdout is not None
    for n, move in enumerate(("a1 NNE", "d1 NNW", "d4 SSS"), 1):
        p.stdin.write(move + "\n")
        p.stdin.flush()
        while not (said := p.stdout.readline()).startswith(f"after ply {n},"):  # said once the log is written
            assert said, "the session ended early"
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=10)
    report = validate(out)
    assert report.plies == 3 and report.result is None
    assert [x["move"] for x in lines(out)[1:]] == ["a1 NNE", "d1 NNW", "d4 SSS"]


TERRAIN_MAP = "record terrain: expected --terrain-seed N or --terrain FILE, the map of the board played on " \
              "(build --terrain-seed N prints board N), or --vs PLAYER to have one picked"
LONG_IDS = "r" * 30 + "," + "y" * 30  # 61 characters: the message shows the first 60


@pytest.mark.parametrize(("args", "stdin", "message"), [
    ([], "", "record: expected --out FILE.jsonl (a new game) or --resume FILE.jsonl (an unfinished one)"),
    (["--out", "{tmp}/x.jsonl"], "", "record: expected the game to record: sage-stones, stratstone, terrain"),
    (["terrain", "--out", "{tmp}/x.jsonl"], "", TERRAIN_MAP),
    (["terrain", "--setup", '{{"first": "red"}}', "--out", "{tmp}/x.jsonl"], "", TERRAIN_MAP),  # a setup, no map
    (["stratstone", "--out", "{tmp}/old.jsonl"], "", "output file {tmp}/old.jsonl: already exists, expected a new "
                                                     "file (record --resume {tmp}/old.jsonl continues a recorded game)"),
    (["stratstone", "--out", "{tmp}/old.jsonl/x.jsonl"], "", "output file {tmp}/old.jsonl/x.jsonl: cannot be used "
                                                             "(Not a directory), expected a new file"),
    (["stratstone", "--players", "red,yellow", "--out", "{tmp}/x.jsonl"], "",
     "--players red,yellow: players: expected ['yellow', 'red'], got ['red', 'yellow']"),
    (["stratstone", "--players", LONG_IDS, "--out", "{tmp}/x.jsonl"], "",
     f"--players {LONG_IDS[:60]}: players: expected ['yellow', 'red'], got ['rrrrrrrrrrrrrrrrrrrrrrrrrrrrrr', 'y..."),
    (["stratstone", "--players", "yellow", "--out", "{tmp}/x.jsonl"], "", "stratstone needs 2 players, got 1"),
    (["sage-stones", "--players", "red,pink", "--out", "{tmp}/x.jsonl"], "",
     "--players red,pink: players: 'pink' is not a colour (expected yellow, red, blue, green, white, black)"),
    (["sage-stones", "--players", "yellow,red,blue,green,white,black,red", "--out", "{tmp}/x.jsonl"], "",
     "sage-stones needs 2 to 6 players, got 7"),
    (["--resume", "{tmp}/old.jsonl", "--players", "a,b"], "",
     "--players with --resume: the log's header already says it; leave --players out"),
    (["sage-stones", "--resume", "{tmp}/old.jsonl"], "", "--resume {tmp}/old.jsonl: a stratstone log, not sage-stones"),
    (["sage-stones", "--seed", "3", "--out", "{tmp}/x.jsonl"], "",
     "--seed 3 without --roll: the dice are typed in; add --roll to have them rolled"),
    (["stratstone", "--out", "{tmp}/no/x.jsonl"], "", "output file {tmp}/no/x.jsonl: its folder {tmp}/no does not exist, "
                                                      "expected a file in a folder that does"),
])
def test_bad_arguments_are_one_line_and_write_nothing(tmp_path, args, stdin, message):
    old = tmp_path / "old.jsonl"
    commands.play("stratstone", 1, None, old)
    old.write_text("\n".join(old.read_text().splitlines()[:3]) + "\n")  # an unfinished game
    before = old.read_bytes()
    r = cli(*[a.format(tmp=tmp_path) for a in args], stdin=stdin)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr == f"stratstone-cad: error: {message.format(tmp=tmp_path)}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.jsonl"] and old.read_bytes() == before


def test_hostile_answers_are_refused_and_shown_escaped(tmp_path):
    out = tmp_path / "g.jsonl"
    stdin = "x" * 5000 + "\n" + "a1\x1b[2J NNE\n" + "\udcff".encode("utf-8", "surrogateescape").decode("latin-1") + "\n"
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "record", "stratstone", "--out", str(out)],
                       input=stdin.encode("latin-1") + b"\xff\xfe\na1 NNE\nquit\n", capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    said = r.stdout.decode()
    assert f"yellow to move> ... (a line over {prompt.MAX_INPUT} characters, ignored)" in said
    assert "\x1b" not in said and "a1\\x1b[2J NNE" in said
    assert [x["move"] for x in lines(out)[1:]] == ["a1 NNE"]


def test_the_text_boards_show_every_stack_well_and_level():
    from stratstone_cad.games.sage_stones.rules import SageStonesState
    from stratstone_cad.games.stratstone.rules import StratstoneState

    s, _ = StratstoneState.start().apply("a1 NNE")
    s, _ = s.apply("a3 SS")  # red onto a3's tan, sown a2 (tan), a1 (red last)
    assert s.board_text().splitlines() == [
        "   a  b  c  d", "4  tt .  .  tt", "3  .  y  .  .", "2  tt .  .  .", "1  r  .  .  tt",
        "in hand: yellow 7, red 7 (stacks top stone first: y yellow, r red, t tan)"]
    g = SageStonesState.start(["yellow", "black"])
    g, _ = g.apply_chance((3, 3, 3))
    g, _ = g.apply("9-9")
    assert g.board_text().splitlines()[:3] == ["    3 4 5 6 7 8 9", "9   . . . . . . Y", "8   . . . . . . ."]
    assert g.board_text().splitlines()[-1] == "on the board: yellow (Y) 1, black (K) 0"


def test_terrain_moves_of_a_square_come_with_their_walking_cost():
    import heapq

    from stratstone_cad.games.terrain.rules import SQUARES, TerrainState
    from stratstone_cad.games.terrain.terrain_map import generate

    state = TerrainState.start(generate(3), 3)
    levels = state.terrain.levels

    def cheapest(frm: int, to: int) -> int:  # Dijkstra over empty squares, step cost |dh| + 1
        best = {frm: 0}
        todo = [(0, frm)]
        while todo:
            c, p = heapq.heappop(todo)
            if p == to:
                return c
            for q in (p + 10, p - 10, p + 1 if p % 10 < 9 else -1, p - 1 if p % 10 else -1):
                if 0 <= q < 100 and (not state.board[q] or q == to):
                    nc = c + abs(levels[p] - levels[q]) + 1
                    if nc < best.get(q, 99):
                        best[q] = nc
                        heapq.heappush(todo, (nc, q))
        return -1

    for frm in state.pieces[0]:
        square = SQUARES[frm]
        listed = state.reach(square)
        assert [m for m, _ in listed] == [str(m) for m in state.legal_moves() if m.frm == frm]
        for move, cost in listed:
            if cost.endswith(("point", "points")):
                assert int(cost.split()[0]) == cheapest(frm, SQUARES.index(move.split("-")[1])), move
            else:  # a Runner's step that ignores height: one diagonal square, or two straight
                to = SQUARES.index(move.split("-")[1])
                df, dr = abs(to % 10 - frm % 10), abs(to // 10 - frm // 10)
                assert (cost, df, dr) in (("diagonal step", 1, 1), ("jump", 2, 0), ("jump", 0, 2)), move
    assert state.reach("e10") == [] and state.reach("e5") == [] and state.reach("zz") == []


def test_roll_records_the_seed_and_a_resumed_session_rolls_on_from_where_it_was(tmp_path):
    whole, part = tmp_path / "whole.jsonl", tmp_path / "part.jsonl"

    def session(out: Path, answers: int, resume: bool = False) -> list[str]:
        """Answer each placement with the first legal move the prompt lists."""
        args = ["--resume", str(out), "--roll"] if resume else ["sage-stones", "--out", str(out), "--roll",
                                                                 "--seed", "11", "--players", "red,blue"]
        p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "record", *args], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert p.stdin is not None and p.stdout is not None
        said = []
        for _ in range(answers):
            p.stdin.write("moves\n")
            p.stdin.flush()
            while not (line := p.stdout.readline()).startswith("to move> moves", line.find(" ") + 1):
                assert line, p.stderr.read() if p.stderr else ""
            listed = p.stdout.readline().strip()
            said.append(listed)
            p.stdin.write(listed.split(",")[0] + "\n")
            p.stdin.flush()
        p.stdin.close()
        p.wait(timeout=30)
        return said

    session(whole, 12)
    session(part, 5)
    session(part, 7, resume=True)
    assert lines(whole)[0]["seed"] == 11 and validate(whole).plies >= 12
    assert part.read_bytes() == whole.read_bytes()


def test_dice_and_the_winning_move_on_one_line_end_the_game(tmp_path):
    game_log = played("sage-stones", 1)
    script = "".join(f"{' '.join(map(str, r['dice']))}{'' if r['move'] == '-' else ' ' + r['move']}\n"
                     for r in game_log[1:-1]) + "draw\nundo\n"
    out = tmp_path / "g.jsonl"
    r = cli("sage-stones", "--out", str(out), stdin=script)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].startswith(f"wrote {out}: sage-stones, {game_log[-2]['ply']} plies, winner")
    assert lines(out)[1:] == game_log[1:] and validate(out).result is not None


def test_undo_with_roll_takes_back_the_chosen_ply_and_the_same_dice_come_back(tmp_path):
    import random

    from stratstone_cad.games.sage_stones.rules import SageStonesState

    start = SageStonesState.start(["red", "blue"])
    dice = start.roll(random.Random("8/1"))  # the dice of ply 1 with --seed 8
    first = str(next(start.apply_chance(dice)[0].legal_moves()))
    assert first != "-"
    out = tmp_path / "g.jsonl"
    r = cli("sage-stones", "--roll", "--seed", "8", "--players", "red,blue", "--out", str(out),
            stdin=f"{first}\nundo\nundo\nquit\n")
    said = r.stdout.splitlines()
    rolled = [x for x in said if x.startswith("dice ")]
    assert rolled[0] == rolled[2] and rolled[0].startswith(f"dice {'-'.join(map(str, dice))}: place in column")
    assert f"took back ply 1: red {first}" in said and "nothing to undo: no ply is recorded yet" in said
    assert len(lines(out)) == 1 and lines(out)[0]["seed"] == 8


def test_resume_keeps_the_logs_permissions_and_refuses_one_it_cannot_extend(tmp_path):
    out = tmp_path / "g.jsonl"
    cli("stratstone", "--out", str(out), stdin="a1 NNE\nquit\n")
    out.chmod(0o600)
    r = cli("--resume", str(out), stdin="d1 NNW\nquit\n")
    assert r.returncode == 0 and (out.stat().st_mode & 0o777) == 0o600 and len(lines(out)) == 3
    out.chmod(0o444)
    before = out.read_bytes()
    if os.access(out, os.W_OK):
        pytest.skip("root may write a read-only file")
    r = cli("--resume", str(out), stdin="quit\n")
    assert r.returncode == 2 and "not writable" in r.stderr and out.read_bytes() == before


def test_typed_line_breaks_and_controls_cannot_forge_output_lines(tmp_path):
    out = tmp_path / "nl\x0bkept.jsonl"
    r = cli("stratstone", "--out", str(out), stdin="zz\x0bwrote fake.jsonl: stratstone\u2028x\nmoves a1\x0bb\nquit\n")
    assert r.returncode == 0, r.stderr
    said = r.stdout.splitlines()
    assert not [s for s in said if s.startswith(("wrote fake", "x", "b", "kept.jsonl"))], said
    assert "yellow to move> zz\\x0bwrote fake.jsonl: stratstone\\u2028x" in said


def test_closed_standard_input_is_the_end_of_input(tmp_path):
    out = tmp_path / "g.jsonl"
    r = subprocess.run([sys.executable, "-m", "stratstone_cad", "record", "stratstone", "--out", str(out)],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, close_fds=True)
    assert r.returncode == 0 and "(end of input;" in r.stdout, r.stderr
    r = subprocess.run(f"{sys.executable} -m stratstone_cad record --resume {out} <&-", shell=True,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stderr and "(end of input;" in r.stdout, r.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--resume", "{tmp}/old.jsonl", "--roll", "--seed", "4"], "--seed with --resume: the log's header already says it; leave --seed out"),
    (["--resume", "{tmp}/old.jsonl", "--roll"], "--roll: stratstone has no dice, expected --roll only for a game with dice"),
    (["stratstone", "--roll", "--out", "{tmp}/x.jsonl"],
     "--roll: stratstone has no dice, expected --roll only for a game with dice"),
    (["--resume", "{tmp}/empty.jsonl"], "--resume {tmp}/empty.jsonl: line 1: empty log, expected the header"),
    (["stratstone", "--out", "{tmp}/fifo"], "output file {tmp}/fifo: is a FIFO, expected a new file"),
    (["--resume", "{tmp}/typed.jsonl", "--roll"],
     "--resume {tmp}/typed.jsonl: its dice were typed in (the header has no seed); resume without --roll"),
    (["--resume", "{tmp}/missing.jsonl"], "{tmp}/missing.jsonl: file not found, expected a log file"),  # named once
])
def test_flags_that_mean_nothing_or_contradict_the_log_are_refused(tmp_path, args, message):
    commands.play("stratstone", 1, None, tmp_path / "old.jsonl")
    (tmp_path / "old.jsonl").write_text("\n".join((tmp_path / "old.jsonl").read_text().splitlines()[:3]) + "\n")
    (tmp_path / "empty.jsonl").write_text("")
    os.mkfifo(tmp_path / "fifo")
    cli("sage-stones", "--out", str(tmp_path / "typed.jsonl"), stdin="2 3 3\n8-4\nquit\n")
    r = cli(*[a.format(tmp=tmp_path) for a in args])
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr == f"stratstone-cad: error: {message.format(tmp=tmp_path)}\n"


def test_resume_sweeps_what_a_killed_write_of_its_log_left(tmp_path):
    out = tmp_path / "g.jsonl"
    cli("stratstone", "--out", str(out), stdin="a1 NNE\nquit\n")
    (tmp_path / ".g.jsonl.ab12cd_9.tmp").write_text("half a log")  # atomic_write's temporary name
    (tmp_path / ".other.jsonl.ab12cd_9.tmp").write_text("another log's")
    assert cli("--resume", str(out), stdin="quit\n").returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.jsonl.ab12cd_9.tmp", "g.jsonl"]


SESSIONS = {
    "stratstone": ([], "show\nmoves\nmoves a1\nmoves a\nmoves zz\nhelp\na1 NNE\nshow\nundo\nundo\nmoves d4\nd4 S\n"
                       "quit\n"),
    "sage-stones": (["--setup", '{"variant": "two-player"}'],
                    "moves\n5-5\n2 3 3\nshow\nmoves\nmoves 8-2\n8-2\nundo\nundo\n1 2 3\n1 1 1\nmoves 3-1\n3-1\nresign\n"),
    "terrain": (["--terrain-seed", "1"], "moves\nmoves c1\nmoves e5\nmoves zz\nshow\nc1-c2\nundo\nc1-c2\ndraw\n"),
}


@pytest.mark.parametrize("game", sorted(SESSIONS))
def test_a_session_shows_players_what_the_transcript_says(game, tmp_path):
    """What players see at the table, pinned whole (read when written: prompts, boards,
    move lists with and without a square, refusals, undo, the closing line): a change to
    any of it is seen here and reviewed. Rewrite with STRATSTONE_REWRITE_TRANSCRIPTS=1."""
    args, typed = SESSIONS[game]
    out = tmp_path / "g.jsonl"
    r = cli(game, "--out", str(out), *args, stdin=typed)
    assert r.returncode == 0, r.stderr
    seen = r.stdout.replace(str(out), "{out}")
    path = TRANSCRIPTS / f"{game}.txt"
    if os.environ.get("STRATSTONE_REWRITE_TRANSCRIPTS"):
        path.write_text(seen)
    assert seen == path.read_text()


def test_an_answer_over_the_line_limit_is_ignored_whole_and_one_at_it_is_read(tmp_path):
    """Typed (or pasted) at the table: a line of more than MAX_INPUT characters is dropped
    in full, however long, and the session goes on; CR LF line ends are read as LF."""
    from stratstone_cad.log.record.prompt import MAX_INPUT

    at_limit = "x" * MAX_INPUT
    for over in (MAX_INPUT + 1, MAX_INPUT + 70_000):
        r = cli("stratstone", "--out", str(tmp_path / f"g{over}.jsonl"),
                stdin="y" * over + "\na1 NNE\r\n" + at_limit + "\nquit\n")
        assert r.returncode == 0, r.stderr
        said = r.stdout.splitlines()
        ignored = said.index(f"yellow to move> ... (a line over {MAX_INPUT} characters, ignored)")
        assert said[ignored + 1:ignored + 3] == ["yellow to move> a1 NNE", "1 yellow a1 NNE: adds yellow to the 2 stones on a1, picks up all 3 (tan, tan, yellow), sows a2 tan, a3 tan, b3 yellow"]  # asked again
        assert any(s.startswith(f"refused: ply 2: {'x' * 40!r}... ({MAX_INPUT} characters) does not parse") for s in said)
        assert "unfinished after 1 ply" in said[-1]


def test_a_last_line_at_the_limit_without_its_line_end_is_read():
    said: list[str] = []
    read = prompt.reader(io.StringIO("a1 NNE\n" + "x" * prompt.MAX_INPUT), said.append, False)
    assert read("yellow to move> ") == "a1 NNE"
    assert read("red to move> ") == "x" * prompt.MAX_INPUT and read("red to move> ") is None
    assert said == ["yellow to move> a1 NNE", "red to move> " + "x" * prompt.MAX_INPUT]


def test_an_answer_over_the_limit_is_skipped_a_piece_at_a_time(tmp_path):
    """However long the line (a pasted file), only a piece of it is held at once."""
    import tracemalloc

    def session(stdin: TextIO, out: Path) -> list[str]:
        said: list[str] = []
        rec.record("stratstone", out, None, None, roll=False, seed=None, stdin=stdin, say=said.append,
                   interactive=False, on_warning=said.append)
        return said

    def standard_input(length: int) -> TextIO:  # a text stream over bytes, as sys.stdin is
        return io.TextIOWrapper(io.BytesIO(b"y" * length + b"\nquit\n"), encoding="utf-8")

    session(standard_input(2 * prompt.MAX_INPUT), tmp_path / "first.jsonl")  # the first session imports what it uses
    stdin = standard_input(4_000_000)
    tracemalloc.start()
    try:
        said = session(stdin, tmp_path / "g.jsonl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"yellow to move> ... (a line over {prompt.MAX_INPUT} characters, ignored)" in said
    assert peak < 1_000_000, peak  # the line alone is 4 MB


def test_the_echo_shows_the_answer_as_typed_without_its_line_end(tmp_path):
    out = tmp_path / "g.jsonl"
    r = cli("stratstone", "--out", str(out), stdin="a1 NNX\r\nmoves d1\x0b\nquit\n")
    said = r.stdout.splitlines()
    assert said.index("yellow to move> a1 NNX") + 1 == said.index(
        "refused: ply 1: 'a1 NNX' does not parse: expected a square a1-d4, a space and 1-24 steps of N/E/S/W, e.g. 'b2 NNE'")
    moves = said.index("yellow to move> moves d1\\x0b")  # a control typed at the end is shown, not taken
    assert said[moves + 1] == "d1 NNN, d1 NNW, d1 NWN, d1 NWS, d1 NWW, d1 WNN, d1 WNE, d1 WNW, d1 WWN, d1 WWW"


def test_no_standard_input_at_all_is_an_empty_one(tmp_path):
    said: list[str] = []
    assert prompt.reader(None, said.append, False)("yellow to move> ") is None and said == []
    line = rec.record("stratstone", tmp_path / "g.jsonl", None, None, roll=False, seed=None, stdin=None, say=said.append,
                      interactive=False, on_warning=said.append)
    assert line.startswith(f"kept {tmp_path / 'g.jsonl'}: stratstone, unfinished after 0 plies (end of input;")


def test_on_a_terminal_the_prompt_is_inputs_and_the_answers_are_not_echoed(tmp_path, monkeypatch):
    answers: list[str] = []
    prompts: list[str] = []

    def terminal(prompt: str) -> str:
        prompts.append(prompt)
        if not answers:
            raise EOFError  # Ctrl-D
        return answers.pop(0)

    monkeypatch.setattr("builtins.input", terminal)
    out = tmp_path / "g.jsonl"
    said: list[str] = []
    answers[:] = ["a1 NNE", "d1 NNW"]
    line = rec.record("stratstone", out, None, None, roll=False, seed=None, stdin=None, say=said.append,
                      interactive=True, on_warning=said.append)
    assert prompts == ["yellow to move> ", "red to move> ", "yellow to move> "]
    assert "unfinished after 2 plies (end of input;" in line
    assert "2 red d1 NNW: adds red to the 2 stones on d1, picks up all 3 (tan, tan, red), sows d2 tan, d3 tan, c3 red" in said and not [s for s in said if "to move>" in s]  # the terminal shows the typing
    answers[:] = ["d4 SSS"]
    line = rec.resume(out, None, roll=False, stdin=None, say=said.append, interactive=True)
    assert prompts[3:] == ["yellow to move> ", "red to move> "] and "unfinished after 3 plies" in line
    assert [x["move"] for x in lines(out)[1:]] == ["a1 NNE", "d1 NNW", "d4 SSS"]


def test_moves_lists_up_to_120_moves_and_counts_the_rest(tmp_path):
    """The game of seed 7 has exactly 120 legal moves after ply 7 and 144 after ply 8."""
    script = typed(played("stratstone", 7)).splitlines(keepends=True)
    r = cli("stratstone", "--out", str(tmp_path / "g.jsonl"), stdin="".join(script[:7]) + "moves\n" + script[7] + "moves\n")
    said = r.stdout.splitlines()
    listed = [said[i + 1] for i, s in enumerate(said) if s.endswith("to move> moves")]
    assert len(listed[0].split(", ")) == prompt.SHOW_MOVES == 120 and " ... " not in listed[0]
    shown, more = listed[1].split(" ... ")
    assert len(shown.split(", ")) == 120 and more == "(144 in all; moves SQUARE lists one square's)"


def test_roll_without_a_seed_draws_a_32_bit_one_and_records_it(tmp_path):
    seeds = []
    for n in range(20):
        out = tmp_path / f"g{n}.jsonl"
        said: list[str] = []
        rec.record("sage-stones", out, None, ["red", "blue"], roll=True, seed=None, stdin=io.StringIO("quit\n"),
                   say=said.append, interactive=False, on_warning=said.append)
        seeds.append(lines(out)[0]["seed"])
        assert [s for s in said if s.startswith("dice ")], said  # the program rolled ply 1
    assert all(type(s) is int and 0 <= s < 2**32 for s in seeds) and max(seeds) >= 2**24, seeds


def test_a_seed_without_roll_is_not_recorded_and_the_dice_are_typed(tmp_path):
    out = tmp_path / "g.jsonl"
    said: list[str] = []
    rec.record("sage-stones", out, None, ["red", "blue"], roll=False, seed=5, stdin=io.StringIO("quit\n"),
               say=said.append, interactive=False, on_warning=said.append)
    assert lines(out)[0]["seed"] is None and "red rolls (three dice, e.g. 2 3 3)> quit" in said


def test_an_unfair_map_is_recorded_with_a_warning(tmp_path):
    unfair = [[2 if rank == 0 and 2 <= file <= 7 else 0 for file in range(10)] for rank in range(10)]  # c1-h1 raised
    out = tmp_path / "g.jsonl"
    warned: list[str] = []
    rec.record("terrain", out, {"heightmap": unfair}, None, roll=False, seed=None, stdin=io.StringIO("quit\n"),
               say=lambda _: None, interactive=False, on_warning=warned.append)
    assert warned == ["terrain is not fair: the cheapest crossing costs from the six start squares are "
                      "red [11, 11, 11, 11, 11, 11] and blue [10, 10, 11, 11, 11, 11] (sum 66 and 64); playing it anyway"]
    assert lines(out)[0]["setup"]["heightmap"] == unfair


def test_resume_says_where_it_goes_on_from_and_refuses_a_resigned_game(tmp_path):
    out = tmp_path / "g.jsonl"
    cli("stratstone", "--out", str(out), stdin="quit\n")  # the header alone
    r = cli("--resume", str(out), stdin="a1 NNE\nd1 NNW\nd4 SSS\nquit\n")
    assert r.returncode == 0 and r.stdout.splitlines()[0] == f"resuming stratstone (yellow, red) from {out} after ply 0"
    r = cli("--resume", str(out), stdin="resign\n")
    assert r.stdout.splitlines()[0] == f"resuming stratstone (yellow, red) from {out} after ply 3"
    r = cli("--resume", str(out), stdin="quit\n")
    assert r.returncode == 2 and r.stderr == (f"stratstone-cad: error: --resume {out}: the game is over "
                                              "(winner yellow (resignation)), nothing to continue\n")


def test_resume_with_roll_rolls_on_from_the_seed_and_without_it_asks_for_the_dice(tmp_path):
    """Seed 10 (see the undo test): ply 1 lost, columns 7 and 4, ply 4 lost, then 2-3-3."""
    whole, part, typed_in = tmp_path / "whole.jsonl", tmp_path / "part.jsonl", tmp_path / "typed.jsonl"
    args = ["sage-stones", "--roll", "--seed", "10", "--players", "red,blue"]
    cli(*args, "--out", str(whole), stdin="7-1\n4-1\nquit\n")
    cli(*args, "--out", str(part), stdin="7-1\nquit\n")
    r = cli("--resume", str(part), "--roll", stdin="4-1\nquit\n")
    said = r.stdout.splitlines()
    assert said[:2] == [f"resuming sage-stones (red, blue) from {part} after ply 2", "after ply 2, red to roll"]
    assert "dice 1-2-1: place in column 4" in said and "dice 2-3-3: place in column 8" in said
    assert part.read_bytes() == whole.read_bytes()
    r = cli("--resume", str(part), stdin="2 3 3\nquit\n")
    said = r.stdout.splitlines()
    assert said[:3] == [f"resuming sage-stones (red, blue) from {part} after ply 4",
                        "(the program rolled this game's dice with seed 10; --roll goes on rolling them)",
                        "after ply 4, red to roll"]
    assert "red rolls (three dice, e.g. 2 3 3)> 2 3 3" in said
    cli("sage-stones", "--players", "red,blue", "--out", str(typed_in), stdin="2 3 3\n8-4\nquit\n")
    r = cli("--resume", str(typed_in), stdin="quit\n")
    assert r.stdout.splitlines()[1] == "after ply 1, blue to roll"  # typed dice: nothing to say about a seed


def test_resume_refuses_a_log_or_a_folder_it_cannot_write(tmp_path, monkeypatch):
    """Seen through ``os.access``, which resume asks (as root every file is writable: the
    permissions test above is skipped then)."""
    out = tmp_path / "g.jsonl"
    cli("stratstone", "--out", str(out), stdin="a1 NNE\nquit\n")
    before = out.read_bytes()
    access = os.access
    for unwritable in (str(out), str(tmp_path)):
        monkeypatch.setattr(os, "access", lambda p, mode, u=unwritable: not (mode & os.W_OK and os.fspath(p) == u)
                            and access(p, mode))
        r = cli("--resume", str(out), stdin="d1 NNW\nquit\n")
        assert r.returncode == 2 and r.stderr == (f"stratstone-cad: error: --resume {out}: the log or its folder is not "
                                                  "writable, expected a log this session can extend\n"), unwritable
        assert out.read_bytes() == before


# -- what record writes, check-log reads; one session a log; a full disk ---------------------------------------

IDS33 = "a" * 33
TWO = ["--setup", '{"variant": "two-player"}']


@pytest.mark.parametrize(("args", "flag", "field", "value"), [
    (["--roll", "--seed", "-1", "--players", "red,blue"], "--seed -1", "seed", -1),
    (["--roll", "--seed", str(2**63), "--players", "red,blue"], f"--seed {2**63}", "seed", 2**63),
    ([*TWO, "--players", "P1,p2"], "--players P1,p2", "players", ["P1", "p2"]),
    ([*TWO, "--players", "1a,b"], "--players 1a,b", "players", ["1a", "b"]),
    ([*TWO, "--players", "\u00e9,b"], "--players \u00e9,b", "players", ["\u00e9", "b"]),
    ([*TWO, "--players", "a b,c"], "--players a b,c", "players", ["a b", "c"]),
    ([*TWO, "--players", f"b,{IDS33}"], f"--players b,{IDS33}", "players", ["b", IDS33]),
])
def test_record_refuses_before_the_first_ply_what_check_log_would_refuse_in_its_words(tmp_path, args, flag, field,
                                                                                          value):
    """The header record would write, checked as check-log checks it, before a prompt: a
    refused value gets check-log's own message after the flag that gave it, and no file."""
    good = tmp_path / "good.jsonl"
    assert cli("sage-stones", *args[:-2], "--players", "red,blue", *(["--seed", "7"] if "--roll" in args else []),
               "--out", str(good), stdin="quit\n").returncode == 0
    header = {**lines(good)[0], field: value}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(header) + "\n")
    with pytest.raises(UserError) as said:
        commands.check_log(bad)
    assert str(said.value).startswith("line 1: ")
    bad.unlink()
    good.unlink()
    r = cli("sage-stones", *args, "--out", str(tmp_path / "x.jsonl"), stdin="2 3 3\n8-4\nquit\n")
    assert r.returncode == 2 and r.stdout == "", r.stdout  # no prompt: the first ply was never asked for
    assert r.stderr == f"stratstone-cad: error: {flag}: {str(said.value).removeprefix('line 1: ')}\n"
    assert list(tmp_path.iterdir()) == []


def test_play_checks_its_header_as_check_log_does_before_the_first_ply(tmp_path, monkeypatch):
    """``play`` takes its ids from the engine, and the engines check the setup: a header
    the format refuses all the same is refused with check-log's message, nothing written."""
    header_record = commands._log.header_record
    written: list[dict] = []

    def tampered(*args: object) -> dict:
        written.append({**header_record(*args), "players": ["Red", "blue"]})  # type: ignore[arg-type]
        return written[-1]

    monkeypatch.setattr(commands._log, "header_record", tampered)
    with pytest.raises(UserError) as said:
        commands.play("terrain", 3, None, tmp_path / "g.jsonl")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "bad.jsonl").write_text(json.dumps(written[0]) + "\n")
    with pytest.raises(UserError) as check_log_said:
        commands.check_log(tmp_path / "bad.jsonl")
    assert f"line 1: {said.value}" == str(check_log_said.value) == "line 1: players: ['red', 'blue'] was expected"


def _session(*args: str, cwd: Path) -> subprocess.Popen:
    """A real ``record`` process fed through a pipe, waited for until it has said its first line."""
    p = subprocess.Popen([sys.executable, "-m", "stratstone_cad", "record", *args], cwd=cwd, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None
    first = p.stdout.readline()
    assert first.startswith(("recording ", "resuming ")), first + (p.stderr.read() if p.stderr else "")
    return p


def _answer(p: subprocess.Popen, text: str, until: str) -> None:
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(text + "\n")
    p.stdin.flush()
    while not (said := p.stdout.readline()).startswith(until):
        assert said, "the session ended early"


def _second(*args: str, cwd: Path, answers: str = "a1 NNE\nquit\n") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratstone_cad", "record", *args], cwd=cwd, input=answers,
                          capture_output=True, text=True, timeout=60)


BUSY = "stratstone-cad: error: {where} dual.jsonl: another stratstone-cad session is recording it, expected a log no " \
       "other session is recording (quit that one first)\n"


def test_a_log_being_recorded_is_the_sessions_alone_a_second_one_is_refused_and_writes_nothing(tmp_path):
    """Two real sessions on one log, each at the point where, unlocked, one lost the
    other's plies: ``--out`` of one new name, and two ``--resume``."""
    log = tmp_path / "dual.jsonl"
    a = _session("stratstone", "--out", "dual.jsonl", cwd=tmp_path)
    _answer(a, "a1 NNE", "after ply 1,")
    before = log.read_bytes()
    for args, where in ((["stratstone", "--out", "dual.jsonl"], "output file"), (["--resume", "dual.jsonl"], "--resume")):
        r = _second(*args, cwd=tmp_path)
        assert (r.returncode, r.stderr, r.stdout) == (2, BUSY.format(where=where), ""), r.stderr
        assert log.read_bytes() == before
    _answer(a, "d1 NNW", "after ply 2,")
    a.communicate("quit\n", timeout=60)
    assert a.returncode == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["dual.jsonl"]  # the lock went too

    b = _session("--resume", "dual.jsonl", cwd=tmp_path)
    r = _second("--resume", "dual.jsonl", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (2, BUSY.format(where="--resume")), r.stderr
    _answer(b, "d4 SSS", "after ply 3,")
    b.stdin.close()  # type: ignore[union-attr]  # the end of input ends it too, and frees the log
    assert b.wait(timeout=60) == 0
    assert [x["move"] for x in lines(log)[1:]] == ["a1 NNE", "d1 NNW", "d4 SSS"]  # every ply of both sessions

    for stop in (signal.SIGTERM, signal.SIGKILL):  # killed, the lock goes with the process
        c = _session("--resume", "dual.jsonl", cwd=tmp_path)
        c.send_signal(stop)
        c.wait(timeout=60)
        r = _second("--resume", "dual.jsonl", cwd=tmp_path, answers="quit\n")
        assert r.returncode == 0 and "resuming stratstone" in r.stdout, r.stderr
    assert [x["move"] for x in lines(log)[1:]] == ["a1 NNE", "d1 NNW", "d4 SSS"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dual.jsonl"]


def test_a_new_log_is_locked_before_it_is_written_so_two_new_sessions_cannot_both_start(tmp_path):
    """The moment between one session's checks and its first write, held open: another
    process holds the session lock of a log that is not there yet."""
    holder = subprocess.Popen([sys.executable, "-c", "import sys; from pathlib import Path; "
                               "from stratstone_cad.log.record.lock import recording\n"
                               "with recording(Path('dual.jsonl'), 'x'):\n print('held', flush=True); sys.stdin.read()"],
                              cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        locks = sorted(p.name for p in tmp_path.iterdir())
        r = _second("stratstone", "--out", "dual.jsonl", cwd=tmp_path)
        assert (r.returncode, r.stderr, r.stdout) == (2, BUSY.format(where="output file"), ""), r.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == locks and not (tmp_path / "dual.jsonl").exists()
    finally:
        holder.communicate("", timeout=60)
    r = _second("stratstone", "--out", "dual.jsonl", cwd=tmp_path)
    assert r.returncode == 0 and [x["move"] for x in lines(tmp_path / "dual.jsonl")[1:]] == ["a1 NNE"]


@pytest.mark.parametrize(("answers", "saved", "message"), [
    ("a1 NNE\nd1 NNW\nd4 SSS\nquit\n", 2, "ply 3 was not saved: record --resume {log} goes on after ply 2, the last one "
                                          "saved"),
    ("a1 NNE\nquit\n", 0, "ply 1 was not saved: record --resume {log} goes on from the start, no ply was saved"),
    ("a1 NNE\nd1 NNW\nundo\nquit\n", 2, "the undo was not saved: record --resume {log} goes on after ply 2, the last "
                                        "one saved"),
    ("a1 NNE\nd1 NNW\nresign\n", 2, "the result was not saved: record --resume {log} goes on after ply 2, the last one "
                                    "saved"),
])
def test_a_full_disk_says_the_ply_was_not_saved_and_where_resume_goes_on(tmp_path, monkeypatch, answers, saved,
                                                                         message):
    log = tmp_path / "g.jsonl"
    writes = 1 + saved  # the header, then one write a ply: the next one fills the disk
    fsync = os.fsync

    def full_disk(fd: int) -> None:
        nonlocal writes
        if writes == 0:
            raise OSError(28, "No space left on device")
        writes -= 1
        fsync(fd)

    monkeypatch.setattr(os, "fsync", full_disk)
    r = cli("stratstone", "--out", str(log), stdin=answers)
    assert r.returncode == 2 and r.stderr == (f"stratstone-cad: error: output file {log}: cannot write (No space left "
                                              f"on device); {message.format(log=log)}\n"), r.stderr
    assert validate(log).plies == saved and sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl"]
    monkeypatch.setattr(os, "fsync", fsync)
    r = cli("--resume", str(log), stdin="quit\n")
    assert r.returncode == 0 and r.stdout.startswith(f"resuming stratstone (yellow, red) from {log} after ply {saved}\n")


def test_a_log_name_the_temporary_cannot_have_is_refused_up_front_with_the_real_limit(tmp_path):
    """A log is written as .NAME.XXXXXXXX.tmp first: 241 bytes is the longest name, said
    before the game starts (not "255 bytes at most" after the first move)."""
    limit = "the name is too long, expected at most 241 bytes (the output is written as .NAME.XXXXXXXX.tmp first)"
    for n in (242, 250, 255):
        out = tmp_path / ("g" * (n - 6) + ".jsonl")
        r = cli("stratstone", "--out", str(out), stdin="a1 NNE\nquit\n")
        assert (r.returncode, r.stdout, r.stderr) == (2, "", f"stratstone-cad: error: output file {out}: {limit}\n"), n
        assert list(tmp_path.iterdir()) == []
    out = tmp_path / ("g" * 235 + ".jsonl")
    assert cli("stratstone", "--out", str(out), stdin="a1 NNE\nquit\n").returncode == 0
    longer = out.rename(tmp_path / ("g" * 236 + ".jsonl"))  # renamed by hand: resume could not write it again
    r = cli("--resume", str(longer), stdin="d1 NNW\nquit\n")
    assert r.returncode == 2 and r.stderr == f"stratstone-cad: error: --resume {longer}: {limit}\n"


def test_a_move_typed_with_the_dice_that_is_no_move_refuses_the_line(tmp_path):
    """``1 2 3 zzz``: the dice lose the turn, but zzz was never a move (it was dropped as
    "ignored"); nothing is recorded, the same player rolls again."""
    out = tmp_path / "g.jsonl"
    r = cli("sage-stones", "--out", str(out), stdin="1 2 3 zzz\n2 3 3 zzz\n1 2 3\nquit\n")
    assert r.returncode == 0, r.stderr
    expected = ("expected a square column-row with column 3-9 and row 1-9 (e.g. '5-7'), or '-'; nothing recorded: "
                "enter the dice again (a move after them is optional)")
    refused = [s for s in r.stdout.splitlines() if s.startswith("refused: ")]
    assert refused == [f"refused: dice 1-2-3 and ply 1: 'zzz' does not parse: {expected}",
                       f"refused: dice 2-3-3 and ply 1: 'zzz' does not parse: {expected}"]
    assert [(x["player"], x["dice"], x["move"]) for x in lines(out)[1:]] == [("yellow", [1, 2, 3], "-")]


@pytest.mark.parametrize("game, example", [("stratstone", "'b2 NNE'"), ("sage-stones", "'5-7'"),
                                           ("terrain", "'c1xc5' (attack)")])
def test_help_says_how_a_move_is_written_with_an_example(tmp_path, game, example):
    """At the prompt (help) and in record --help: each game's notation, an example with it."""
    flags = getattr(FACTS[game], "MAP_FLAGS", None)  # a game played on a map: its seed
    extra = [flags["seed"], "1"] if flags else []
    r = cli(game, "--out", str(tmp_path / "g.jsonl"), *extra, stdin="help\nquit\n")
    assert r.returncode == 0, r.stderr
    assert "A move: " in r.stdout and example in r.stdout.split("A move: ", 1)[1].splitlines()[0], r.stdout
    helped = cli("--help")
    assert f"{game}: " in helped.stdout.replace("\n", " ") and example.split(" ")[0] in helped.stdout.replace("\n", " ")


def _as_written(path: Path) -> bytes:
    """The bytes one write of the log's records gives (write_log's lines)."""
    from stratstone_cad.log.logfile import dumps_line

    return "".join(dumps_line(x) + "\n" for x in lines(path)).encode()


def test_a_resumed_session_appends_each_move_and_the_file_is_what_one_write_gives(tmp_path, monkeypatch):
    """``record --resume`` of a long log wrote the whole log again at every move (about 1 s
    a move at 100k plies): now each move's line is appended, the file never replaced, no
    whole-log write made, and the bytes those of one write of the game."""
    from stratstone_cad.log import logfile

    script = typed(played("stratstone", 3)).splitlines(keepends=True)
    log = tmp_path / "g.jsonl"
    assert cli("stratstone", "--out", str(log), stdin="".join(script[:3]) + "quit\n").returncode == 0
    inode = log.stat().st_ino
    whole = []
    monkeypatch.setattr(logfile.writing, "atomic_write", lambda path, data, **kw: whole.append(len(data)))
    r = cli("--resume", str(log), stdin="".join(script[3:9]) + "quit\n")
    assert r.returncode == 0 and "unfinished after 9 plies" in r.stdout, r.stderr
    assert whole == [] and log.stat().st_ino == inode  # appended, not written again
    assert [x["move"] for x in lines(log)[1:]] == [x["move"] for x in played("stratstone", 3)[1:10]]
    assert log.read_bytes() == _as_written(log)


def test_a_resumed_log_written_otherwise_is_written_once_as_this_program_writes_it(tmp_path):
    """A log whose lines are spaced otherwise (by hand, another tool) is written whole at
    the first move, then appended to: the file is what one write of the game gives."""
    log = tmp_path / "g.jsonl"
    log.write_text((LOGS / "stratstone_unfinished.jsonl").read_text().replace('": ', '":  '))
    from stratstone_cad.log.logfile import walk_log

    r = cli("--resume", str(log), stdin="quit\n")
    assert r.returncode == 0 and log.read_bytes() != _as_written(log)  # nothing entered: nothing written
    with walk_log(log) as game:
        for _ in game:
            pass
        move = str(next(iter(game.state.legal_moves())))
    r = cli("--resume", str(log), stdin=f"{move}\nquit\n")
    assert r.returncode == 0, r.stderr
    assert lines(log)[-1]["move"] == move and log.read_bytes() == _as_written(log)


def test_a_last_line_cut_short_by_a_kill_is_named_by_check_log_and_resume(tmp_path):
    """A kill during an append can leave the last line cut short: check-log and record
    --resume say so in one line, naming the line, and how to keep the plies before it."""
    log = tmp_path / "g.jsonl"
    log.write_bytes((LOGS / "stratstone_unfinished.jsonl").read_bytes() + b'{"ply": 7, "player": "ye')
    n = len(log.read_text().splitlines())
    said = f"line {n}: cut short, the file ends inside it"
    r = cli("--resume", str(log), stdin="quit\n")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and said in r.stderr, r.stderr
    assert "remove this last line to keep the plies before it" in r.stderr
    with pytest.raises(UserError, match=said):
        validate(log)
