"""A function that refuses a valid input: named from its own raise/assert line, never from another failure; and the
localisation says which value of an integer argument (its size, its type) the refusal needs."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.diagnose.localise import counts_to_one, localisation
from autograder.diagnose.variations import counts_to_two
from autograder.inputs import RngSeed
from autograder.diagnose.probes import PROBES
from autograder.diagnose.probes.raises import ERROR_SHOWN, rejects_valid_input
from autograder.engine.results import FAILED, PASSED, Diagnosis, TestResult
from autograder.errors import NotImplementedYet, StudentException
from autograder.judge.compare import Raised
from autograder.scoring import question_fraction
from tests.autograder.diagnose.test_probes import case_of


def traceback(source_line: str, error: str, line: int = 12) -> str:
    """A student traceback as the sandbox reports it: the student's frames only, then the error."""
    return (f'Traceback (most recent call last):\n  File "submission.py", line {line}, in causal_mask\n'
            f"    {source_line}\n{error}")


def raised(message: str, kind=StudentException) -> Raised:
    return Raised(kind(message))


@pytest.mark.parametrize("source_line", ["raise ValueError(f'bad n {n}')", "assert type(n) is int, 'n must be an int'"])
def test_rejects_valid_input_names_a_call_refused_by_the_students_own_raise_or_assert(source_line):
    case = case_of("causal_mask", (np.int64(4),), result=raised(traceback(source_line, "ValueError: bad n 4", 31)))
    found = rejects_valid_input(case)
    assert [f.id for f in found] == ["call.rejects_valid_input"]
    assert found[0].facts == {"line": "31", "error": "ValueError: bad n 4"}
    assert rejects_valid_input in PROBES  # and it runs on every failed call


def test_rejects_valid_input_silent_on_an_error_numpy_raised_on_the_students_line():
    case = case_of("causal_mask", (4,), result=raised(traceback("return np.tril(np.ones((n, n)))[None] @ m",
                                                                "ValueError: matmul: mismatch")))
    assert rejects_valid_input(case) == []


def test_rejects_valid_input_silent_on_an_untouched_stub_and_on_a_returned_result():
    stub = case_of("causal_mask", (4,), result=raised(traceback("raise NotImplementedError", "NotImplementedError"),
                                                      kind=NotImplementedYet))
    assert rejects_valid_input(stub) == []
    assert rejects_valid_input(case_of("causal_mask", (4,), result=np.ones((4, 4), dtype=bool))) == []


def test_the_quoted_error_is_cut_short():
    long = "ValueError: " + "x" * 500
    found = rejects_valid_input(case_of("causal_mask", (4,), result=raised(traceback("raise ValueError(s)", long))))
    assert len(found[0].facts["error"]) == ERROR_SHOWN


def test_a_refusal_costs_what_its_failed_tests_cost_not_the_contract_share():
    refusal = Diagnosis("call.rejects_valid_input", "refused")
    failed = TestResult("test_b", "causal_mask", 1, "d", FAILED, "refused", "exception", diagnoses=(refusal,))
    passed = TestResult("test_a", "causal_mask", 1, "d", PASSED)
    assert question_fraction([passed, failed]) == pytest.approx(0.5)
    dtype = TestResult("test_b", "causal_mask", 1, "d", FAILED, "wrong", "mismatch",
                       diagnoses=(Diagnosis("call.wrong_dtype", "dtype"),))
    assert question_fraction([passed, dtype]) < 0.5  # the control: a broken contract costs its share besides


def test_the_localisation_tells_a_numpy_integer_from_a_python_int():
    def python_ints_only(n):
        if type(n) is not int:
            raise ValueError("n must be an int")
        return np.tril(np.ones((n, n), dtype=bool))

    said = localisation(case_of("causal_mask", (np.int64(5),), student=python_ints_only, recall=True))
    assert said == "Where it fails: right when n is a Python int, wrong when it is the same number as a int64."
    honest = localisation(case_of("causal_mask", (5,), student=lambda n: np.triu(np.ones((n, n), dtype=bool)),
                                  recall=True))
    assert "Python int" not in honest  # the control: a Python int is not varied


def test_setting_a_count_keeps_its_integer_type():
    case = case_of("causal_mask", (np.int64(5),), result=np.ones((5, 5), dtype=bool))
    (_, one), = counts_to_one(case)
    twos = [change for _, change in counts_to_two(case)]
    assert type(one["n"]) is np.int64 and one["n"] == 1
    assert [type(c["n"]) for c in twos] == [np.int64] and twos[0]["n"] == 2
    small = case_of("dot_product_variance", (1, 50, RngSeed(3)), result=(0.0, 0.0))
    assert [c for _, c in counts_to_two(small)] == [{"d_k": 2}, {"n_samples": 2}]  # a size of 1 is tried at 2 too
