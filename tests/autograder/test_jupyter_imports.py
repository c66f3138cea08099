"""nbformat imported through the package goes without jsonschema's IRI checker, and still validates notebooks."""

from __future__ import annotations

import subprocess
import sys
import types

import nbformat
import pytest

from autograder.jupyter_imports import IRI_CHECKER, without_iri_checker


def test_a_module_importing_nbformat_brings_no_iri_grammar():
    code = ("import sys, autograder.build.notebook; "
            f"print(sys.modules.get({IRI_CHECKER!r}, 'absent') is None, 'lark' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]


def test_notebooks_are_still_validated():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nbformat.validate(notebook)
    del notebook.cells[0]["source"]
    with pytest.raises(nbformat.ValidationError):
        nbformat.validate(notebook)


def test_a_checker_imported_already_is_left_alone(monkeypatch):
    imported = types.ModuleType(IRI_CHECKER)
    monkeypatch.setitem(sys.modules, IRI_CHECKER, imported)
    without_iri_checker()
    assert sys.modules[IRI_CHECKER] is imported
