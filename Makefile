# Two commands a fresh machine needs: `make demo` and `make test`. Both set everything up.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test notes styles install lint clean browser phi-tables postgres

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# medspacy 1.3.1 pins spacy<3.8 (with numpy 2 that resolves to spaCy 3.7.5, which crashes on import):
# its dependencies are in pyproject.toml with spaCy 3.8, and medspacy itself goes in without its pins.
MEDSPACY := medspacy==1.3.1
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pip install --quiet --no-deps $(MEDSPACY)
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/clauseguard demo

# The bundled suites run against their committed baselines first, each printing its scorecard (exit 1
# on any regression of false_auto_determine, citation faithfulness, hallucinated or stale citations,
# accuracy, gate correctness or search pass rate); the external suite too when ../shared is beside the repo.
MKRAFA := ../shared/external/mkrafa
CMS    := ../shared/real/cms-l33822/corpus.yaml
NOTES  := evals/notes/dev
EVAL   := CLAUSEGUARD_HOME=$(CURDIR)/.venv/eval-home COLUMNS=110 $(BIN)/clauseguard
test: $(STAMP) browser postgres
	$(EVAL) --corpus demo eval evals/demo/search.json --diff
	$(EVAL) --corpus demo eval evals/demo/determinations.json evals/demo/expanded.json --diff
	@if [ -f $(MKRAFA)/corpus.json ]; then \
	  $(EVAL) --corpus $(MKRAFA)/corpus.json eval $(MKRAFA)/seed.json $(MKRAFA)/generated.json --diff; \
	else echo "external suite not found at $(MKRAFA): its baseline check is skipped"; fi
	$(MAKE) --no-print-directory notes
	$(MAKE) --no-print-directory styles
	$(BIN)/python -m pytest

# The clinical-note suite (issue 11): the dev half against its baselines (--diff), the holdout half
# through the runner that prints only counts, held to its baseline (no false auto-determination, no
# fact read wrong, no metric below the baseline's); the real LCD's blind holdout is held the same way.
# Corpora outside the repository are read from ../shared.
notes: $(STAMP)
	$(EVAL) --corpus demo eval $(NOTES)/determinations-demo.json --diff --json > /dev/null
	@if [ -f $(MKRAFA)/corpus.json ] && [ -f $(CMS) ]; then \
	  $(EVAL) --corpus $(MKRAFA)/corpus.json eval $(NOTES)/determinations-external.json --diff --json > /dev/null && \
	  $(EVAL) --corpus $(CMS) eval $(NOTES)/determinations-cms.json --diff --json > /dev/null && \
	  CLAUSEGUARD_HOME=$(CURDIR)/.venv/eval-home $(BIN)/python -m clauseguard.evals.holdout evals/notes \
	    --check evals/baselines/notes-holdout.json > /dev/null && \
	  CLAUSEGUARD_HOME=$(CURDIR)/.venv/eval-home $(BIN)/python -m clauseguard.evals.holdout evals/real/l33822 \
	    --check evals/baselines/l33822-holdout.json > /dev/null; \
	else echo "../shared not found: the notes suite's external and CMS parts and its holdout half are skipped"; fi

# The house-style suites' holdout halves (issue 12: four blind corpora with cases, roles and phrasebooks, and
# the second-edition phrasebook), through the runner that prints only counts, held to their baselines:
# no false auto-determination, no search answer released wrong and no phrasebook tree wrong beyond the
# baseline's (the baselines record the counts not yet at 0), no score below it. Two runs side by side.
HOLDOUT := CLAUSEGUARD_HOME=$(CURDIR)/.venv/eval-home $(BIN)/python -m clauseguard.evals.holdout
styles: $(STAMP)
	@$(HOLDOUT) evals/styles/cms_lcd evals/styles/medical_policy evals/styles/shapes \
	  --check evals/baselines/styles-holdout-a.json > /dev/null & first=$$!; \
	$(HOLDOUT) evals/styles/drug_policy evals/styles/group_terms --check evals/baselines/styles-holdout-b.json > /dev/null; \
	second=$$?; wait $$first && [ $$second -eq 0 ] && echo "house-style holdouts: held to their baselines"

# The page's browser tests drive Debian's chromium headless (never a browser Playwright downloads).
# Installed when missing; under CI=true a browser that cannot be installed fails the run.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "installing Debian's chromium for the browser tests"; \
	  { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y chromium; } \
	  || { echo "error: could not install chromium (apt-get install -y chromium)"; [ "$$CI" != "true" ]; }; \
	fi

# The store tests run against a real PostgreSQL server (Debian's postgresql), which the tests start in
# a temporary data directory. Installed when missing; under CI=true one that cannot be installed or
# started fails the run.
postgres:
	@if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then \
	  echo "installing Debian's postgresql for the store tests"; \
	  { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y postgresql; } \
	  || { echo "error: could not install postgresql (apt-get install -y postgresql)"; [ "$$CI" != "true" ]; }; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info

# The redactor's word tables (names, ordinary and clinical words) are committed under
# src/clauseguard/data/privacy/. This rebuilds them in a throwaway venv with the build-only packages
# (names-dataset alone loads to 1.9 GB); nothing at run time needs those packages or a network.
PHI_VENV := .venv-phi-tables
phi-tables:
	$(PYTHON) -m venv $(PHI_VENV)
	$(PHI_VENV)/bin/pip install --quiet 'names-dataset==3.3.1' 'wordfreq==3.1.1' 'english-words==2.0.2' \
	  'simple-icd-10-cm==1.5.0' 'drug-named-entity-recognition==2.0.9' pyyaml
	PYTHONPATH=src $(PHI_VENV)/bin/python -m clauseguard.privacy.build_tables src/clauseguard/data/privacy
