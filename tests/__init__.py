"""The tests, in folders that mirror the package's (tests/games/terrain/ tests
stratstone_cad/games/terrain/); the fixtures they share are in tests/data/."""

from pathlib import Path

#: The project's root (the checkout).
ROOT = Path(__file__).resolve().parent.parent
#: Small fixtures: engine logs and record transcripts.
DATA = ROOT / "tests" / "data"
LOGS = DATA / "logs"
TRANSCRIPTS = DATA / "transcripts"
#: Each game's golden log, named after the game: a finished game the viewer, log and
#: command-line suites run for every registered game (a new game adds its own here).
GOLDEN = LOGS / "golden"


def golden_logs() -> dict[str, Path]:
    """Every game of the registry with its golden log, in the registry's order."""
    from stratstone_cad.registry import FACTS

    return {name: GOLDEN / f"{name}.jsonl" for name in FACTS}
