# actiondex task runner. `make help` lists the targets.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
DEMO_ARGS ?=
PYTEST_ARGS ?=
# pytest-xdist workers for `make test`: most slow tests wait on processes, so 4 fill 2 cores.
TEST_WORKERS ?= 4
# Compiled bytecode is kept (__pycache__, ignored by git) even where the environment says not to:
# the suite starts `actiondex` hundreds of times, and each start would compile the project again
# (~0.3 CPU-s), as each pytest worker would rewrite every test module's asserts.
unexport PYTHONDONTWRITEBYTECODE

.DEFAULT_GOAL := help
.PHONY: help install install-test demo test test-fast lint postgres browser clean bench bench-relevance \
	bench-realsites bench-speed bench-freshness fuzz

help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-13s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(BIN)/actiondex: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	@touch $@

$(VENV)/.test-deps: $(BIN)/actiondex
	$(BIN)/pip install --quiet -e '.[test,bench]'
	@touch $@

install: $(BIN)/actiondex ## Create .venv and install actiondex into it

install-test: $(VENV)/.test-deps ## Install actiondex with its test dependencies

demo: install ## Crawl the bundled demo web, search it, serve the API (DEMO_ARGS=--no-serve)
	$(BIN)/actiondex demo $(DEMO_ARGS)

postgres: ## Start the machine's PostgreSQL if it is installed but down
	@scripts/ensure-postgres || true

# tests/web drive Debian's chromium through Playwright (Playwright's own browser download is
# not used): install it when it is missing; the package list is refreshed only if needed.
browser: ## Install Debian's chromium for the browser tests when /usr/bin/chromium is absent
	@test -x /usr/bin/chromium || apt-get install -y chromium || \
		{ apt-get update && apt-get install -y chromium; }

# scripts/test-postgres: the machine's PostgreSQL, or a private one when none answers.
test: install-test browser ## Run the whole test suite on SQLite and PostgreSQL
	scripts/test-postgres $(BIN)/python $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# The tiers are in tests/tiers.py: no process started, no web crawled, no browser, SQLite only.
test-fast: install-test ## The quick tier (about 900 tests, under a minute): run it after every change
	$(BIN)/python -m pytest -m fast -n 2 --dist loadgroup -q $(PYTEST_ARGS)

# mypy reads [tool.mypy] in pyproject.toml: registry/ only, strict, with pydantic's plugin.
lint: install-test ## ruff check and ruff format --check over the code, then mypy (strict) over registry/
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

FUZZ_ARGS ?=
# schemathesis, every check, 100 examples an operation, random seeds (FUZZ_ARGS="--seeds 5" or
# "--seed 123"), against a live serve; the suite's fixed-seed run is its baseline row.
fuzz: install-test ## Fuzz the API: schemathesis, random seeds, a table of operations x findings
	$(BIN)/python -m bench.fuzz $(FUZZ_ARGS)

BENCH_ACTIONS ?= 10000 100000 1000000
TOOLLENS ?= ../shared/benchmarks/toollens
METATOOL ?= ../MetaTool
RELEVANCE_ARGS ?=

bench: bench-relevance bench-speed ## Both benchmark tables (BENCH_ACTIONS="10000" for a quick run)

# Every relevance table through GET /find of a real `actiondex serve`, each with its rank-bm25
# rows from the same run (RELEVANCE_ARGS="--sample 2000" for a quicker one).
bench-relevance: install-test ## ToolLens, MetaTool and real sites over HTTP vs rank-bm25
	$(BIN)/python -m bench.relevance --http --toollens $(TOOLLENS) --metatool $(METATOOL) \
		$(RELEVANCE_ARGS)
	$(BIN)/python -m bench.realsites --metatool $(METATOOL) $(RELEVANCE_ARGS)

bench-realsites: install-test ## The plugin store's real sites crawled from loopback, asked over GET /find
	$(BIN)/python -m bench.realsites --metatool $(METATOOL) $(RELEVANCE_ARGS)

bench-speed: install-test ## Ingest, build, query and HTTP /find at BENCH_ACTIONS actions
	@command -v wrk >/dev/null || { apt-get install -y wrk || sudo apt-get install -y wrk; }
	$(BIN)/python -m bench.find_bench --actions $(BENCH_ACTIONS)

BENCH_CACHE ?= .actiondex/bench-cache
bench-freshness: install-test ## Store -> searchable lag on a live serve under /find load (100k, 1M)
	@command -v wrk >/dev/null || { apt-get install -y wrk || sudo apt-get install -y wrk; }
	$(BIN)/python -m bench.freshness --actions 100000 1000000 --replicate-from 100000 \
		--cache $(BENCH_CACHE)

clean: ## Remove the venv, caches and the local data dir
	rm -rf $(VENV) .actiondex .pytest_cache .ruff_cache .mypy_cache
