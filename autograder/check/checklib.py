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


#: Significant digits of a number in a failure, and the most shown to tell two apart that read alike with fewer.
DIGITS, MAX_DIGITS = 4, 12


def distinct(expected, got) -> dict:
    """The facts ``expected`` and ``got`` with :data:`DIGITS` significant digits, more when those read the same."""
    for digits in range(DIGITS, MAX_DIGITS + 1):
        shown = {"expected": f"{expected:.{digits}g}", "got": f"{got:.{digits}g}"}
        if shown["expected"] != shown["got"]:
            break
    return shown


def first_mismatch(actual: np.ndarray, expected: np.ndarray, rtol: float = RTOL, atol: float = ATOL) -> dict:
    """Where ``actual`` first differs from ``expected``: the facts ``index``, ``expected`` and ``got``."""
    bad = ~np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return {"index": str(index), **distinct(expected[index], actual[index])}


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
    if actual.ndim == 0 and not np.isclose(actual, expected, rtol=rtol, atol=atol):
        raise CheckFailed(N_("{name}: expected {expected}, got {got}"), name=name, **distinct(expected[()], actual[()]))
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
    """One stored public case: a function, its inputs, the reference's outputs and the other accepted ones."""

    def __init__(self, name: str, function: str, args: tuple, kwargs: dict, expected: tuple, returns_tuple: bool,
                 alternatives: tuple = (), weight: int = 1, parameters: tuple = (), output_names: tuple = ()):
        self.name = name
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.expected = expected
        self.returns_tuple = returns_tuple
        self.alternatives = alternatives  # other results the contract accepts (another valid estimator)
        self.weight = weight
        self.parameters = parameters  # the function's parameter names, to name an argument changed in place
        self.output_names = output_names  # the names its docstring gives the outputs ("Z", "A")

    def output(self, index: int) -> str:
        """How messages call output ``index``: ``case: A`` by the docstring's name (``case[1]`` when it has none)."""
        if not self.returns_tuple:
            return self.name
        known = index < len(self.output_names)
        return f"{self.name}: {self.output_names[index]}" if known else f"{self.name}[{index}]"


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


def _stored_case(case: dict, data) -> PublicCase:
    name, outputs = case["name"], case["outputs"]
    return PublicCase(
        name, case["function"],
        tuple(_stored_value(a, data) for a in case["args"]),
        {k: _stored_value(v, data) for k, v in case["kwargs"].items()},
        tuple(data[f"{name}/out/{i}"] for i in range(outputs)),
        case["returns_tuple"],
        tuple(tuple(data[f"{name}/alt/{n}/{i}"] for i in range(outputs)) for n in range(case.get("alternatives", 0))),
        int(case.get("weight", 1)),
        tuple(case.get("parameters", ())),
        tuple(case.get("output_names", ())),
    )


def load_cases(path) -> list:
    """The public cases of ``public_cases.npz`` (written by ``attn-course build``), in order."""
    import json

    with np.load(path, allow_pickle=False) as data:
        return [_stored_case(case, data) for case in json.loads(str(data["index"]))]


def public_case_params(path) -> list:
    """The cases as pytest parameters, each marked with the question it counts for (and its weight)."""
    import pytest

    return [pytest.param(case, marks=pytest.mark.question(case.function, weight=case.weight), id=case.name)
            for case in load_cases(path)]


def argument_name(case: PublicCase, label: str) -> str:
    """The argument a changed-input label stands for: ``"0"`` -> ``"x"``, ``"1.0"`` -> ``"K[0]"``, ``"mask"``."""
    head, *path = label.split(".")
    known = head.isdigit() and int(head) < len(case.parameters)
    return (case.parameters[int(head)] if known else head) + "".join(f"[{index}]" for index in path)


def _call(submission, case: PublicCase) -> tuple:
    """The case's result, and the labels of the arguments the call changed in place (none when not observed)."""
    args = tuple(_fresh(value) for value in case.args)
    kwargs = {name: _fresh(value) for name, value in case.kwargs.items()}
    if getattr(type(submission), "call_observed", None) is None:  # a caller that cannot observe (a test double)
        return submission.call(case.function, *args, **kwargs), ()
    outcome = submission.call_observed(case.function, *args, **kwargs)
    return outcome.result, tuple(outcome.mutated)


def _expect_dtype(part, expected: np.ndarray, what: str) -> None:
    """A floating-point array in the reference's dtype: float32 kept, float64 for float64 and integer inputs."""
    if expected.dtype.kind == "f" and expected.ndim and isinstance(part, np.ndarray) and part.dtype != expected.dtype:
        raise CheckFailed(N_("{name}: expected dtype {expected}, got {got}"), name=what, expected=str(expected.dtype),
                          got=str(part.dtype))


def _expect_parts(case: PublicCase, parts: tuple, expected: tuple) -> None:
    for index, (part, wanted) in enumerate(zip(parts, expected)):
        loose = wanted.dtype == np.float32
        what = case.output(index)
        expect_array(part, wanted, what, rtol=FLOAT32_RTOL if loose else RTOL, atol=FLOAT32_ATOL if loose else ATOL)
        _expect_dtype(part, wanted, what)


def expect_case(submission, case) -> None:
    """Call the case's function and judge it as grading does: inputs left as they were, every output equal to the
    stored answer (or to another result the contract accepts) in the documented dtype.

    Raises
    ------
    CheckFailed
        Naming the case, the output and the first problem.
    """
    result, changed = _call(submission, case)
    if changed:
        raise CheckFailed(N_("{name}: the call changed its argument {argument} in place"), name=case.name,
                          argument=argument_name(case, changed[0]))
    parts = expect_tuple(result, len(case.expected), case.name) if case.returns_tuple else (result,)
    try:
        _expect_parts(case, parts, case.expected)
    except CheckFailed:
        for alternative in case.alternatives:
            try:
                return _expect_parts(case, parts, alternative)
            except CheckFailed:
                continue
        raise
