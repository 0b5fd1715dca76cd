# The two entry points of README: `make demo` (set up + quick paper reproduction) and
# `make test` (set up + every test). Both build the Python extension with the release
# profile (fat LTO); `make test` builds the Rust tests with the test-fast profile
# (Cargo.toml: release optimisation, no LTO), which builds in a fraction of the time.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SITE ?= target/site

.PHONY: demo test setup bench clean mutants

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The editable install is made again only when what it is made from changed (the Python
# sources take effect at once; the extension is built from the crates): pip resolving
# every dependency again takes a minute or two of each `make test`.
INSTALLED := $(VENV)/.installed
INSTALLED_FROM := pyproject.toml Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml)

$(INSTALLED): $(BIN)/python $(INSTALLED_FROM)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

setup: $(INSTALLED)
	# An editable install leaves byte-compiling to the first import, which a
	# PYTHONDONTWRITEBYTECODE environment prevents: every `cclab` start would recompile.
	$(BIN)/python -m compileall -q python/cclab

demo: setup
	$(BIN)/cclab reproduce zhang2002 --quick --figure 2 --figure 3 --report --out results/zhang2002

# pytest runs on every core (pytest-xdist), each test module in one worker (its module
# fixtures made once; what several modules read is made once: tests/conftest.py).
test: setup
	cargo test --profile test-fast --workspace --exclude cclab-py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir $(SITE)
	$(BIN)/python -m pytest -q -n auto --dist loadfile

# Mutation testing of the engine's protocol code (not part of `make test`): each mutant
# is built and the core's Rust tests run against it. MUTANTS_ARGS=--cargo-test-arg=--lib
# limits it to the unit tests (seconds per mutant); -f FILE narrows the files.
MUTANTS_ARGS ?=
mutants:
	command -v cargo-mutants >/dev/null || cargo install cargo-mutants --locked
	cargo mutants -p cclab-core -j 1 -f 'crates/cclab-core/src/cc/*.rs' -f 'crates/cclab-core/src/transport/*.rs' \
		-f 'crates/cclab-core/src/transport/recovery/*.rs' \
		-f 'crates/cclab-core/src/net/*.rs' --output target/mutants $(MUTANTS_ARGS)

bench: setup
	$(BIN)/cclab bench

clean:
	rm -rf $(VENV) target results
