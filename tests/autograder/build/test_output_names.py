"""Output names come from the course's docstrings (their Returns section), not from a table in the engine."""

from autograder.build.output_names import output_names, returned_names
from autograder.config import load_course
from autograder.judge.compare import reference_output

COURSE = load_course()

DOCSTRING = '''Something.

Parameters
----------
x : array_like

Returns
-------
dQ, dK, dV : numpy.ndarray
    Shaped like ``Q``: a line that looks like ``name : type`` only when indented, as this one : is.
weights : numpy.ndarray, shape (..., n)

Raises
------
ValueError : not an output
'''


def test_named_entries_in_order_and_nothing_from_other_sections():
    assert returned_names(DOCSTRING) == ("dQ", "dK", "dV", "weights")


def test_a_single_unnamed_array_names_nothing():
    assert returned_names("Returns\n-------\nnumpy.ndarray, shape (..., T)\n    One score per position.\n") == ()


def test_each_tuple_returning_function_of_the_course_names_every_output():
    """The masters name as many outputs as the function returns (counted on a call of the reference)."""
    for assignment in COURSE.assignments:
        names = output_names(COURSE.layout.master(assignment).read_text(encoding="utf-8"))
        for function in assignment.functions:
            if names[function]:
                assert len(names[function]) >= 2, function
    hw1 = COURSE.assignments[0]
    names = output_names(COURSE.layout.master(hw1).read_text(encoding="utf-8"))
    import numpy as np

    returned = reference_output("scaled_dot_product_attention", (np.eye(2), np.eye(2), np.eye(2)), {})
    assert len(names["scaled_dot_product_attention"]) == len(returned)
