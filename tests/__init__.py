"""The tests, in folders that mirror the package's (tests/games/terrain/ tests
stratstone_cad/games/terrain/); the fixtures they share are in tests/data/."""

from pathlib import Path

#: The project's root (the checkout).
ROOT = Path(__file__).resolve().parent.parent
#: Small fixtures: engine logs and record transcripts.
DATA = ROOT / "tests" / "data"
LOGS = DATA / "logs"
TRANSCRIPTS = DATA / "transcripts"
