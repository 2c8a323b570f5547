# The two commands of the README. Each sets up .venv by itself when it is missing or
# older than pyproject.toml, so both work on a fresh machine with Python 3.11 and make.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: build test lint bench mutate clean
# a recipe that fails leaves no target behind (a half-installed venv is set up again next time)
.DELETE_ON_ERROR:

# Every module is compiled to bytecode once, here (uv's --compile-bytecode; pip does it by
# itself; compileall for the package, installed editable): a process that imports CadQuery
# then starts about 1 s sooner where Python may not write bytecode itself (PYTHONDONTWRITEBYTECODE,
# set on the machine the CI runs on: every process compiled what it imported again), and the
# tests start hundreds of them.
# The packages go in with uv (pip's interface; the venv in about 8 s against pip's 44 s on 2
# cores, docs/benchmarks.md) where uv can be had, with pip otherwise: when pip is set to
# another index than PyPI (index-url or no-index in its settings or environment: uv reads
# neither, and would go to PyPI), when uv cannot be installed or fails, and with USE_UV=.
USE_UV ?= 1
$(BIN)/stratstone-cad: pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found (set PYTHON=/path/to/python3.11)"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	@if [ -n "$(USE_UV)" ] && ! $(BIN)/python -m pip config list 2>/dev/null | grep -qE '\.(index-url|no-index)=' \
	    && $(BIN)/python -m pip install --quiet --disable-pip-version-check uv \
	    && $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[test]'; then \
	  echo "$(BIN): installed with uv"; \
	else \
	  echo "$(BIN): installing with pip"; \
	  $(BIN)/python -m pip install --quiet --upgrade pip && $(BIN)/python -m pip install --quiet -e '.[test]'; \
	fi
	$(BIN)/python -m compileall -q -j 0 stratstone_cad >/dev/null
	@touch $@

build: $(BIN)/stratstone-cad
	$(BIN)/stratstone-cad build --plates --jobs $(JOBS)

# The tests run in one process per core (pytest-xdist), a test file's tests in one of
# them (--dist loadfile: a file's module fixtures, a build, are made once), the files in
# the order tests/conftest.py collects them, the longest first (--no-loadscope-reorder:
# xdist would order them by their number of tests, and the long files have few). The
# session's builds (every game, with its plates, the Stratstone set) are made once for
# both processes (tests/conftest.py's shared(): the first to ask makes, the other waits).
test: $(BIN)/stratstone-cad
	$(BIN)/python -m pytest -q -n $(JOBS) --dist loadfile --no-loadscope-reorder

lint: $(BIN)/stratstone-cad
	$(BIN)/ruff check stratstone_cad tests scripts

bench: $(BIN)/stratstone-cad
	$(BIN)/python scripts/bench_build.py
	$(BIN)/python scripts/bench_games.py
	$(BIN)/python scripts/bench_terrain.py
	$(BIN)/python scripts/bench_plates.py
	$(BIN)/python scripts/bench_replay.py
	$(BIN)/python scripts/bench_players.py

# Mutation testing of the pure-Python core with its fast tests ([tool.mutmut] in pyproject.toml;
# docs/testing.md). Not part of CI: a whole run takes about an hour on 2 cores. It goes on where
# an interrupted run stopped; `.venv/bin/mutmut browse` shows each surviving mutant.
mutate: $(BIN)/stratstone-cad
	$(BIN)/python -m pip install --quiet mutmut
	$(BIN)/mutmut run --max-children $(JOBS)
	$(BIN)/python scripts/mutation_summary.py mutants

clean:
	rm -rf output/stratstone output/sage-stones output/terrain output/manifest.json output/print-report.md output/.*.tmp
