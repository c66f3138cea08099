"""Known-wrong versions of the graded functions, used to name a student's bug.

:mod:`autograder.mutants.catalog` holds the machinery (the :class:`Mutant` type, the lookups, the mistakes of
any function); the course's own mutants are course content, in ``mistakes/`` beside its ``course.yml``.
"""

from autograder.mutants.catalog import Mutant, all_mutants, mutant, mutants_for

__all__ = ["Mutant", "all_mutants", "mutant", "mutants_for"]
