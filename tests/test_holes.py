"""Holes that mutation testing found (issue 13): each test here fails with its bug planted."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from stratstone_cad.build import pipeline as B
from stratstone_cad.errors import UserError
from stratstone_cad.log import commands
from stratstone_cad.registry import get_game

LOGS = Path(__file__).parent / "data" / "logs"


def test_a_logged_result_with_the_right_winner_and_a_wrong_reason_is_refused(tmp_path):
    lines = (LOGS / "stratstone_win.jsonl").read_text().splitlines()
    assert json.loads(lines[-1]) == {"result": {"winner": "yellow", "reason": "line of four"}}
    lines[-1] = json.dumps({"result": {"winner": "yellow", "reason": "all stones placed"}})
    log = tmp_path / "g.jsonl"
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError, match=r"result says winner yellow \(all stones placed\) but the moves give winner "
                                        r"yellow \(line of four\)"):
        commands.check_log(log)


@pytest.mark.parametrize("die", [0, 1, 2])
@pytest.mark.parametrize("value", [0, 4])
def test_the_fast_sage_check_refuses_each_die_out_of_range(die, value, tmp_path):
    """The fast check must accept strictly less than the schema: a die of 0 or 4 in any of
    the three places is left to the schema, whose message names the die."""
    dice = [1, 2, 3]
    dice[die] = value
    ply = {"ply": 1, "player": "yellow", "dice": dice, "move": "5-1"}
    assert not get_game("sage-stones").fast_ply(ply, frozenset({"yellow", "red"}))
    lines = (LOGS / "sage_stones_4.jsonl").read_text().splitlines()[:1] + [json.dumps(ply)]
    log = tmp_path / "g.jsonl"
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError, match=rf"line 2, ply 1: dice\[{die}\]: {value} is (less|greater) than"):
        commands.check_log(log)


def test_stored_stl_normals_point_out_of_the_part(built_all):
    """The normal written with each triangle agrees with its winding (outwards): a reader
    that recomputes normals would not notice a writer that stores them reversed."""
    for path in sorted(built_all.rglob("*.stl"))[::5]:
        raw = path.read_bytes()
        n = int(np.frombuffer(raw, "<u4", 1, 80)[0])
        rec = np.frombuffer(raw, np.dtype([("normal", "<f4", (3,)), ("v", "<f4", (3, 3)), ("attr", "<u2")]), n, 84)
        v = rec["v"].astype(np.float64)
        cross = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
        good = np.linalg.norm(cross, axis=1) > 1e-9
        assert (np.einsum("ij,ij->i", rec["normal"][good].astype(np.float64), cross[good]) > 0).all(), path.name
        # and the winding is outwards: the mesh's signed volume is positive
        assert np.einsum("ij,ij->i", v[:, 0], np.cross(v[:, 1], v[:, 2])).sum() > 0, path.name


def test_the_build_caps_its_jobs_at_the_usable_cores(tmp_path, monkeypatch):
    """--jobs 8 on a process allowed one core builds in that one process: no worker pool."""
    monkeypatch.setattr(B, "usable_cores", lambda: 1)

    def no_pool(workers: int):
        raise AssertionError(f"a pool of {workers} workers was started on one core")

    monkeypatch.setattr(B, "_pool", no_pool)
    r = B.build(["sage-stones", "stratstone"], None, tmp_path, jobs=8, progress=None,
                sets={"stratstone.stone.per_colour": "1"})
    assert len(r.built) == 7 + 4
