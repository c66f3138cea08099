# Two entry points: `make demo` and `make test`. Both create .venv and install on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test install clean

# Bytecode of the installed packages and of the project is written on every core by compileall
# (pip compiles one file at a time: 22 s more on 2 cores), even where PYTHONDONTWRITEBYTECODE is
# set; a package file that does not compile does not stop the install (pip's own compile skips it).
$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile -e '.[dev]'
	-$(BIN)/python -m compileall -q -j 0 $(VENV)/lib >/dev/null
	$(BIN)/python -m compileall -q -j 0 autograder attn_reference >/dev/null
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/attn-course demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

clean:
	rm -rf $(VENV) build demo-output .pytest_cache .hypothesis
