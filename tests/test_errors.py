"""The message helpers every one-line error is written with."""

from stratstone_cad.errors import did_you_mean, listed, short_repr


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
