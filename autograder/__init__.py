"""autograder: build student releases, check and grade submissions, keep the gradebook.

One subpackage per verb; :mod:`autograder.cli` is a thin layer over them.
"""

__version__ = "0.1.0"
