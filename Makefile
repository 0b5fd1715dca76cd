# The two entry points of README: `make demo` (set up + quick paper reproduction) and
# `make test` (set up + every test). Both build the Rust core in release mode.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test setup bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	# An editable install leaves byte-compiling to the first import, which a
	# PYTHONDONTWRITEBYTECODE environment prevents: every `cclab` start would recompile.
	$(BIN)/python -m compileall -q python/cclab

demo: setup
	$(BIN)/cclab reproduce zhang2002 --quick --figure 2 --figure 3 --report --out results/zhang2002

test: setup
	cargo test --release --workspace --exclude cclab-py
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/cclab bench

clean:
	rm -rf $(VENV) target results
