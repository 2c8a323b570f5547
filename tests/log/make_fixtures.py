"""Regenerate the golden logs in tests/data/logs/ (run by hand: python tests/games/make_fixtures.py).

The valid logs come from ``play_records`` with fixed seeds; the invalid ones are those
logs with one deliberate fault each. test_log.py pins the exact message for every file,
so a change in the engine's play or messages shows up there, not silently here.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from stratstone_cad.log.commands import play_records
from stratstone_cad.log.logfile import dumps_line
from stratstone_cad.registry import get_game
from tests import LOGS


def _write(name: str, records: list[Any]) -> None:
    lines = [r if isinstance(r, str) else dumps_line(r) for r in records]
    (LOGS / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _with_derived(game: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same log with every derived fact the engine knows, on every ply."""
    engine = get_game(game)
    head = records[0]
    state = engine.initial_state(head["players"], head["setup"])
    out = [head]
    for rec in records[1:]:
        if "result" in rec:
            out.append(rec)
            continue
        before = state
        events = []
        if engine.chance_field:
            state, events = state.apply_chance(rec[engine.chance_field])
        state, more = state.apply(rec["move"])
        out.append({**rec, **engine.derived(before, state, events + more)})
    return out


def main() -> None:
    LOGS.mkdir(parents=True, exist_ok=True)
    # ---- valid
    strat_draw = play_records("stratstone", 1, ["random", "random"])
    strat_win = play_records("stratstone", 4, ["greedy", "random"])
    sage4 = play_records("sage-stones", 3, ["random"] * 4)
    sage2p = play_records("sage-stones", 5, ["greedy", "random"], {"variant": "two-player"})
    _write("stratstone_draw.jsonl", strat_draw)
    _write("stratstone_win.jsonl", strat_win)
    _write("stratstone_unfinished.jsonl", strat_draw[:6])
    _write("stratstone_derived.jsonl", _with_derived("stratstone", strat_win))
    _write("sage_stones_4.jsonl", sage4)
    _write("sage_stones_derived.jsonl", _with_derived("sage-stones", sage4))
    _write("sage_stones_two_player.jsonl", sage2p)

    # ---- invalid: one fault each
    def edit(records: list[Any], index: int, **changes: Any) -> list[Any]:
        out = copy.deepcopy(records)
        out[index].update(changes)
        return out

    _write("bad_steps_back.jsonl", [*strat_draw[:6], {"ply": 6, "player": "red", "move": "b2 NNS"}])
    _write("bad_move_text.jsonl", edit(strat_draw, 3, move="b9 NN"))
    _write("bad_path_length.jsonl", edit(strat_draw, 1, move="a4 ES"))
    _write("bad_off_board.jsonl", edit(strat_draw, 1, move="a4 NSE"))
    _write("bad_wrong_player.jsonl", edit(strat_draw, 2, player="yellow"))
    _write("bad_ply_gap.jsonl", [*strat_draw[:3], *({**r, "ply": r["ply"] + 1} for r in strat_draw[3:6])])
    _write("bad_result_winner.jsonl", edit(strat_draw, -1, result={"winner": "red", "reason": "line of four"}))
    _write("bad_result_early.jsonl", [*strat_draw[:6], {"result": {"winner": "yellow", "reason": "line of four"}}])
    _write("bad_after_end.jsonl", [*strat_win[:-1], {"ply": len(strat_win) - 1, "player": "red", "move": "a1 NN"}])
    _write("bad_after_result.jsonl", [*strat_win, {"ply": len(strat_win) - 1, "player": "red", "move": "a1 NN"}])
    _write("bad_dice_in_stratstone.jsonl", edit(strat_draw, 1, dice=[1, 2, 3]))
    _write("bad_dice_range.jsonl", edit(sage4, 2, dice=[1, 4, 2]))
    _write("bad_dice_missing.jsonl", [sage4[0], {k: v for k, v in sage4[1].items() if k != "dice"}])
    first_place = next(i for i, r in enumerate(sage4) if i and r.get("move", "-") != "-")
    col = sum(sage4[first_place]["dice"])
    other = 3 if col != 3 else 4
    _write("bad_wrong_column.jsonl", edit(sage4, first_place, move=f"{other}-5"))
    lost = next(i for i, r in enumerate(sage4) if i and sorted(r.get("dice", [])) == [1, 2, 3])
    _write("bad_place_on_lost_turn.jsonl", edit(sage4, lost, move="5-5"))
    sage_d = _with_derived("sage-stones", sage4)
    cap = next(i for i, r in enumerate(sage_d) if r.get("captured"))
    _write("bad_captured.jsonl", edit(sage_d, cap, captured=[]))
    _write("bad_on_board.jsonl", edit(sage_d, 1, on_board={"yellow": 2, "red": 0, "blue": 0, "green": 0}))
    strat_d = _with_derived("stratstone", strat_win)
    _write("bad_in_hand.jsonl", edit(strat_d, 2, in_hand={"yellow": 8, "red": 8}))
    _write("bad_unknown_game.jsonl", [{**strat_draw[0], "game": "chess"}, *strat_draw[1:3]])
    _write("bad_terrain_no_heightmap.jsonl", [{**strat_draw[0], "game": "terrain", "rules": "terrain/1", "setup": {}}])
    _write("bad_rules_version.jsonl", [{**strat_draw[0], "rules": "stratstone/2"}, *strat_draw[1:3]])
    _write("bad_header_field.jsonl", [{**strat_draw[0], "colour": "blue"}, *strat_draw[1:3]])
    _write("bad_setup.jsonl", [{**sage4[0], "setup": {"variant": "three-player"}}])
    _write("bad_json.jsonl", [dumps_line(strat_draw[0]), dumps_line(strat_draw[1]), dumps_line(strat_draw[2])[:-7]])
    _write("bad_nan.jsonl", [dumps_line(strat_draw[0]), '{"ply": NaN, "player": "yellow", "move": "a4 ESW"}'])
    _write("bad_not_object.jsonl", [dumps_line(strat_draw[0]), json.dumps([1, "yellow", "a4 ESW"])])


if __name__ == "__main__":
    main()
