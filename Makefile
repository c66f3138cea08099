# Two entry points: `make demo` and `make test`. Both create .venv and install on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test install clean

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	$(BIN)/python -m compileall -q autograder attn_reference >/dev/null  # bytecode even where PYTHONDONTWRITEBYTECODE is set
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/attn-course demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

clean:
	rm -rf $(VENV) build demo-output .pytest_cache .hypothesis
