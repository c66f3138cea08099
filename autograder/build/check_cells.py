"""The release notebook's checks: an import cell before the first graded cell, then ``check("f")`` after each.

A student runs the cell after a graded function to test that function as the notebook defines it
(:mod:`autograder.check.live`: the public checks, bounded, on any OS). Without the student kit in the
kernel, the import cell defines a ``check`` that says how to get it, so the notebook still runs top to
bottom. Only the student's release has these cells; nbgrader's and otter's notebooks do not. The
cells hold no definition, import or constant a grader reads from a notebook: ``check(...)`` is a call
and the import sits in a ``try`` (see :mod:`autograder.submission.notebook_code`).
"""

from __future__ import annotations

import nbformat

from autograder.i18n import Message, N_, msg, render

#: The tag of the check cells (the graded cells carry ``graded`` and their function).
CHECK_TAG = "check"
GRADED_TAG = "graded"
#: What the import cell says when the kernel has no student kit.
NO_KIT = msg("The checks need the student kit in this notebook's environment: pip install the attn_course_kit wheel "
             "your course gave you (see the README), then run this cell again.")
IMPORT_CELL = """# {comment}
try:
    from autograder.check.live import check
except ImportError:  # no student kit in this kernel
    def check(name=None):
        print({missing!r})
"""
COMMENT = msg("Run the check cell after a function to test it as this notebook defines it; check() tests them all.")
#: The switch cell, after the import cell: a student who works in the module runs the notebook on it.
SWITCH_CELL = """# {comment}
USE_MODULE = False
"""
SWITCH_COMMENT = N_("Working in {module} instead? Set USE_MODULE = True and run the notebook: each check cell then "
                     "checks the saved {module} and takes that function from it, so the demos and checks below run "
                     "your module.")


def with_check_cells(notebook_json: str, language: str, module: str = "the module") -> str:
    """The notebook with its check cells (ids ``check-import``, ``check-switch`` and ``check-<function>``)."""
    notebook = nbformat.reads(notebook_json, as_version=4)
    cells, imported = [], False
    for cell in notebook.cells:
        tags = cell.metadata.get("tags", [])
        graded = cell.cell_type == "code" and len(tags) > 1 and tags[0] == GRADED_TAG
        if graded and not imported:
            source = IMPORT_CELL.format(comment=render(COMMENT, language), missing=render(NO_KIT, language))
            cells.append(nbformat.v4.new_code_cell(source.rstrip("\n"), metadata={"tags": [CHECK_TAG]}))
            cells[-1].id, imported = "check-import", True
            switch = SWITCH_CELL.format(comment=render(Message(SWITCH_COMMENT, {"module": module}), language))
            cells.append(nbformat.v4.new_code_cell(switch.rstrip("\n"), metadata={"tags": [CHECK_TAG]}))
            cells[-1].id = "check-switch"
        cells.append(cell)
        if graded:
            cells.append(nbformat.v4.new_code_cell(f"check({tags[1]!r})", metadata={"tags": [CHECK_TAG]}))
            cells[-1].id = f"check-{tags[1]}"
    notebook.cells = cells
    return nbformat.writes(notebook, version=4) + "\n"
