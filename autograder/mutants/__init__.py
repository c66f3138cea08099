"""Known-wrong versions of the graded functions, used to name a student's bug.

:mod:`autograder.mutants.catalog` lists them; one module per concept implements them.
"""

from autograder.mutants.catalog import MUTANTS, Mutant, mutant, mutants_for

__all__ = ["MUTANTS", "Mutant", "mutant", "mutants_for"]
