# The two commands of the README. Each sets up .venv by itself when it is missing or
# older than pyproject.toml, so both work on a fresh machine with Python 3.11 and make.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: build test lint bench mutate clean

# The packages go in with uv (pip's interface, about a third of pip's time: 15 s against 43 s
# on 2 cores, docs/benchmarks.md) where uv can be had, with pip otherwise (uv does not read
# pip's settings: behind a private index, pip is what works). Set UV= to use pip alone.
UV ?= uv
$(BIN)/stratstone-cad: pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found (set PYTHON=/path/to/python3.11)"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	@if [ -n "$(UV)" ] && $(BIN)/python -m pip install --quiet --disable-pip-version-check $(UV) \
	    && VIRTUAL_ENV=$(VENV) $(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[test]'; then \
	  echo "$(BIN): installed with uv"; \
	else \
	  echo "$(BIN): installing with pip"; \
	  $(BIN)/python -m pip install --quiet --upgrade pip && $(BIN)/python -m pip install --quiet -e '.[test]'; \
	fi
	@touch $@

build: $(BIN)/stratstone-cad
	$(BIN)/stratstone-cad build --plates --jobs $(JOBS)

# The tests run in one process per core (pytest-xdist), a test file's tests in one of
# them (--dist loadfile: a file's module fixtures, a build, are made once), the files in
# the order tests/conftest.py collects them, the longest first (--no-loadscope-reorder:
# xdist would order them by their number of tests, and the long files have few).
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

# Mutation testing of the pure-Python core with its fast tests ([tool.mutmut] in pyproject.toml;
# docs/testing.md). Not part of CI: a whole run takes about an hour on 2 cores. It goes on where
# an interrupted run stopped; `.venv/bin/mutmut browse` shows each surviving mutant.
mutate: $(BIN)/stratstone-cad
	$(BIN)/python -m pip install --quiet mutmut
	$(BIN)/mutmut run --max-children $(JOBS)
	$(BIN)/python scripts/mutation_summary.py mutants

clean:
	rm -rf output/stratstone output/sage-stones output/terrain output/manifest.json output/print-report.md output/.*.tmp
