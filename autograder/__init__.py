"""autograder: build student releases, check and grade submissions, keep the gradebook.

One subpackage per verb; :mod:`autograder.cli` is a thin layer over them.

Importing the package also makes jsonschema go without its IRI checker (see
:mod:`autograder.jupyter_imports`): every module here that imports nbformat is imported after
this, and the checker would cost 1.5 s or more of each such process for formats no notebook uses.
"""

from autograder.jupyter_imports import without_iri_checker

__version__ = "0.1.0"

without_iri_checker()
