"""The message helpers every one-line error is written with, and the one error of an unknown game."""

import pytest

from stratstone_cad import models, registry
from stratstone_cad.errors import GameError, ParameterError, UnknownGameError, did_you_mean, listed, short_repr


def test_short_repr_cuts_long_values_and_names_ones_it_cannot_show():
    assert short_repr("a" * 40) == repr("a" * 40)  # 40 characters of text: whole
    assert short_repr("a" * 41) == repr("a" * 40) + "... (41 characters)"
    assert short_repr("\x1b[2J" + "b" * 50) == "'\\x1b[2J" + "b" * 36 + "'... (54 characters)"
    assert short_repr("\u2028") == "'\\u2028'"  # a line separator does not end the message's line
    assert short_repr([1, 2], limit=6) == "[1, 2]" and short_repr([1, 2, 3], limit=6) == "[1,..."
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert short_repr(deep) == "<list>"
    assert short_repr(10**5000) == "<int>"


def test_did_you_mean_names_the_closest_choice_or_nothing():
    assert did_you_mean("stratstne", ["terrain", "stratstone"]) == " (did you mean 'stratstone'?)"
    assert did_you_mean("chess", ["terrain", "stratstone"]) == ""
    assert did_you_mean("trrn", ["terrain"], cutoff=0.5) == " (did you mean 'terrain'?)"


def test_listed_joins_with_commas_and_the_last_word():
    assert listed(["a"], "or") == "a" and listed(["a", "b"], "or") == "a or b"
    assert listed(["a", "b", "c"], "and") == "a, b and c"


# --------------------------------------------------------------------------- an unknown game

#: Every path that takes a game's name, given one that no game has.
UNKNOWN_GAME_PATHS = {
    "registry.get_game": lambda tmp: registry.get_game("chess"),
    "registry.get_parts": lambda tmp: registry.get_parts(["chess"]),
    "models.part": lambda tmp: models.part("chess/board"),
    "models.names": lambda tmp: models.names("chess"),
    "models.assembly": lambda tmp: models.assembly("chess"),
    "cli play": lambda tmp: _run(["play", "chess"]),
    "cli record": lambda tmp: _run(["record", "chess", "--out", str(tmp / "g.jsonl")]),
    "cli build": lambda tmp: _run(["build", "chess", "--out", str(tmp / "out")]),
    "cli studio": lambda tmp: _run(["studio", "chess", "--out", str(tmp / "out"), "--no-browser"]),
}


def _run(argv: list[str]) -> int:
    """A command run as the command line runs it, its error raised instead of printed."""
    from stratstone_cad import cli

    args = cli.parser().parse_args(argv)
    return args.run(args)


@pytest.mark.parametrize("path", UNKNOWN_GAME_PATHS)
def test_an_unknown_game_raises_the_one_unknown_game_error_on_every_path(path, tmp_path):
    """One class for every lookup of a game's name, a ParameterError and a GameError too (a
    caller catching either catches it); the model API's is its ModelError as well."""
    with pytest.raises(UnknownGameError) as e:
        UNKNOWN_GAME_PATHS[path](tmp_path)
    assert isinstance(e.value, ParameterError) and isinstance(e.value, GameError)
    assert "'chess'" in str(e.value) and "\n" not in str(e.value)
    assert not path.startswith("models") or isinstance(e.value, models.ModelError)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # refused before anything is written


@pytest.mark.parametrize("argv", [["play", "chess"], ["build", "chess"]])
def test_the_command_line_says_an_unknown_game_in_one_line_and_exits_2(argv, capsys):
    from stratstone_cad import cli

    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("stratstone-cad: error: ") and "'chess'" in err and err.count("\n") == 1
