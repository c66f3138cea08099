"""Helpers for the public checks: compare a result with a known answer and say what differs.

Uses numpy only: this file is also copied into each student release. Each failure keeps its
English template (marked ``N_``, an entry of the grader's message catalog) and its facts, so
``attn-course check --lang zh`` says it in Chinese; plain ``pytest`` shows the English.
"""

from __future__ import annotations

import numpy as np

#: Tolerances of the public checks (the hidden tests use course.yml's).
RTOL = 1e-5
ATOL = 1e-8


def N_(template: str) -> str:
    """Mark ``template`` as an entry of the grader's message catalog; returns it unchanged."""
    return template


class CheckFailed(AssertionError):
    """A public check failed; the message says what to look at.

    Attributes
    ----------
    template : str
        The English template (an entry of the grader's message catalog).
    facts : dict
        The text filling its ``{placeholders}``.
    """

    def __init__(self, template: str, **facts: str):
        super().__init__(template.format(**facts))
        self.template, self.facts = template, facts


def _describe(value) -> str:
    return f"{type(value).__name__}, dtype {value.dtype}" if isinstance(value, np.ndarray) else type(value).__name__


def first_mismatch(actual: np.ndarray, expected: np.ndarray, rtol: float = RTOL, atol: float = ATOL) -> dict:
    """Where ``actual`` first differs from ``expected``: the facts ``index``, ``expected`` and ``got``."""
    bad = ~np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return {"index": str(index), "expected": f"{expected[index]:.4g}", "got": f"{actual[index]:.4g}"}


def expect_array(actual, expected, name: str, rtol: float = RTOL, atol: float = ATOL) -> None:
    """Check type, shape, finiteness and values of ``actual`` against ``expected``.

    Raises
    ------
    CheckFailed
        Naming the first problem found.
    """
    expected = np.asarray(expected)
    if not isinstance(actual, np.ndarray) or actual.dtype.kind not in "biuf":
        raise CheckFailed(N_("{name}: expected a real numpy array, got {got}"), name=name, got=_describe(actual))
    if actual.shape != expected.shape:
        raise CheckFailed(N_("{name}: expected shape {expected}, got {got}"), name=name, expected=str(expected.shape),
                          got=str(actual.shape))
    if expected.dtype == np.bool_ and actual.dtype != np.bool_:
        raise CheckFailed(N_("{name}: expected a boolean array, got dtype {got}"), name=name, got=str(actual.dtype))
    if expected.dtype.kind == "f" and not np.all(np.isfinite(actual)):
        raise CheckFailed(N_("{name}: holds NaN or inf at index {index}: expected {expected}, got {got}"), name=name,
                          **first_mismatch(actual, expected, rtol, atol))
    if not np.allclose(actual, expected, rtol=rtol, atol=atol):
        raise CheckFailed(N_("{name}: wrong values at index {index}: expected {expected}, got {got}"), name=name,
                          **first_mismatch(actual, expected, rtol, atol))


def expect_shape(actual, shape: tuple, name: str) -> None:
    """Check that ``actual`` is a real numpy array of the given shape.

    Raises
    ------
    CheckFailed
        Saying which shape was expected and which came back.
    """
    if not isinstance(actual, np.ndarray) or actual.dtype.kind not in "biuf":
        raise CheckFailed(N_("{name}: expected a real numpy array, got {got}"), name=name, got=_describe(actual))
    if actual.shape != tuple(shape):
        raise CheckFailed(N_("{name}: expected shape {expected}, got {got}"), name=name, expected=str(tuple(shape)),
                          got=str(actual.shape))


def expect_rows_sum_to_one(weights, name: str, axis: int = -1) -> None:
    """Check that attention weights are a distribution along ``axis``.

    Raises
    ------
    CheckFailed
        Showing the first row sums when they are not 1.
    """
    sums = np.sum(np.asarray(weights, dtype=float), axis=axis)
    if not np.allclose(sums, 1.0, rtol=RTOL, atol=1e-6):
        shown = np.array2string(sums.ravel()[:4], precision=4)
        raise CheckFailed(N_("{name}: rows should sum to 1 along axis {axis}; first row sums are {sums}"), name=name,
                          axis=str(axis), sums=shown)


def expect_tuple(result, length: int, name: str) -> tuple:
    """Check that ``result`` is a tuple of ``length`` items (e.g. ``(Z, A)``).

    Raises
    ------
    CheckFailed
        When it is not.
    """
    if not isinstance(result, tuple) or len(result) != length:
        if isinstance(result, tuple):
            raise CheckFailed(N_("{name}: expected a tuple of {size} arrays, got a tuple of {got}"), name=name,
                              size=str(length), got=str(len(result)))
        raise CheckFailed(N_("{name}: expected a tuple of {size} arrays, got {got}"), name=name, size=str(length),
                          got=_describe(result))
    return result


#: Tolerances of the public checks on float32 results: float32 arithmetic differs in the 6th or 7th digit.
FLOAT32_RTOL = 1e-4
FLOAT32_ATOL = 1e-6


class PublicCase:
    """One stored public case: a function, its inputs, and the reference's outputs."""

    def __init__(self, name: str, function: str, args: tuple, kwargs: dict, expected: tuple, returns_tuple: bool):
        self.name = name
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.expected = expected
        self.returns_tuple = returns_tuple


class GeneratorSeed:
    """A stored seed: each call of the case gets a fresh ``np.random.default_rng(seed)``."""

    def __init__(self, seed: int):
        self.seed = seed


def _fresh(value):
    return np.random.default_rng(value.seed) if isinstance(value, GeneratorSeed) else value


def _stored_value(entry: dict, data):
    """An input as the case stores it: a seed (a generator made fresh per call), a Python number, or an array."""
    if "seed" in entry:
        return GeneratorSeed(entry["seed"])
    if entry.get("none"):
        return None
    value = data[entry["array"]]
    kinds = {"int": int, "float": float, "bool": bool}
    return kinds[entry["python"]](value) if entry.get("python") in kinds else value


def load_cases(path) -> list:
    """The public cases of ``public_cases.npz`` (written by ``attn-course build``), in order."""
    import json

    with np.load(path, allow_pickle=False) as data:
        index = json.loads(str(data["index"]))
        return [
            PublicCase(
                case["name"], case["function"],
                tuple(_stored_value(a, data) for a in case["args"]),
                {k: _stored_value(v, data) for k, v in case["kwargs"].items()},
                tuple(data[f"{case['name']}/out/{i}"] for i in range(case["outputs"])),
                case["returns_tuple"],
            )
            for case in index
        ]


def public_case_params(path) -> list:
    """The cases as pytest parameters, each marked with the question it counts for."""
    import pytest

    return [pytest.param(case, marks=pytest.mark.question(case.function), id=case.name) for case in load_cases(path)]


def expect_case(submission, case) -> None:
    """Call the case's function and compare every output with the stored answer.

    Raises
    ------
    CheckFailed
        Naming the case, the output and the first problem.
    """
    args = tuple(_fresh(value) for value in case.args)
    kwargs = {name: _fresh(value) for name, value in case.kwargs.items()}
    result = submission.call(case.function, *args, **kwargs)
    parts = expect_tuple(result, len(case.expected), case.name) if case.returns_tuple else (result,)
    for index, (part, expected) in enumerate(zip(parts, case.expected)):
        loose = expected.dtype == np.float32
        what = f"{case.name}[{index}]" if case.returns_tuple else case.name
        expect_array(part, expected, what, rtol=FLOAT32_RTOL if loose else RTOL, atol=FLOAT32_ATOL if loose else ATOL)
