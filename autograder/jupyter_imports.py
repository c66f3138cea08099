"""Importing nbformat and jupytext without paying for an IRI grammar that no notebook uses.

nbformat validates with jsonschema, and jsonschema checks the ``iri`` and ``iri-reference``
formats with rfc3987-syntax when that package is installed (Jupyter's dependencies install
it). rfc3987-syntax builds dozens of Earley parsers as it is imported: 1.5 to 5 s on this
project's machine, in every process that imports nbformat (reported upstream as
python-jsonschema/jsonschema#1428). No notebook schema uses those formats, so importing
:mod:`autograder` calls :func:`without_iri_checker`, before any of its modules imports
nbformat, and jsonschema goes without the checker.
"""

from __future__ import annotations

import sys

#: The package jsonschema would check the ``iri`` formats with.
IRI_CHECKER = "rfc3987_syntax"


def without_iri_checker() -> None:
    """Make jsonschema's optional import of the IRI checker fail, unless a module imported it already."""
    sys.modules.setdefault(IRI_CHECKER, None)
