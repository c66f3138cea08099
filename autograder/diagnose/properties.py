"""Properties every call must have, whatever it computes: checked on every call.

The worker reports, with each result, the array arguments the call changed in place and
what kind of object it returned. From that and the expected result, :func:`call_properties`
finds the bugs no value comparison shows: inputs modified in place, a Python list where
an array or a tuple is documented, and floating-point results in another dtype than
documented (float32 input gives float32, everything else float64).
"""

from __future__ import annotations

import numpy as np

from attn_reference.contract import OutputKind
from autograder.sandbox.call import CallOutcome
from autograder.diagnose.case import reference_parameters
from autograder.diagnose.probes.finding import Finding, own
from autograder.judge.compare import Parts, contract, same_values, split
from autograder.i18n import Message, msg

LIST = "list"


def argument_name(function: str, label: str) -> str:
    """The parameter a worker label stands for: ``"0"`` -> ``"x"``, ``"1.0"`` -> ``"K[0]"``, ``"mask"`` -> ``"mask"``."""
    head, *path = label.split(".")
    names = reference_parameters(function)
    name = names[int(head)] if head.isdigit() and int(head) < len(names) else head
    return name + "".join(f"[{index}]" for index in path)


def modified_inputs(function: str, outcome: CallOutcome) -> list[Finding]:
    """One finding per argument the call changed in place."""
    return [Finding("call.modifies_input", {"argument": argument_name(function, label)}) for label in outcome.mutated]


def _documented(function: str) -> Message:
    documented = contract(function)
    if documented.returns_tuple:
        return msg("a tuple ({names})", names=", ".join(documented.output_names))
    return msg("a numpy array")


def returned_lists(function: str, outcome: CallOutcome) -> list[Finding]:
    """A list returned where the contract documents an array, a number or a tuple."""
    outputs = contract(function).outputs
    arrays_as_lists = [
        kind == LIST for index, kind in enumerate(outcome.parts)
        if index < len(outputs) and outputs[index].kind is OutputKind.ARRAY
    ]
    if outcome.container == LIST or any(arrays_as_lists):
        return [Finding("call.returns_list", {"documented": _documented(function)})]
    return []


def _array_dtypes(function: str, expected: Parts, outcome: CallOutcome) -> list[tuple[np.dtype, np.dtype]]:
    """(documented, returned) dtype of each returned part the contract documents as a floating-point array."""
    parts = outcome.result if isinstance(outcome.result, tuple) else (outcome.result,)
    outputs = contract(function).outputs
    return [
        (expected.arrays[index].dtype, np.asarray(part).dtype)
        for index, part in enumerate(parts)
        if index < min(len(outputs), len(expected.arrays)) and outputs[index].kind is OutputKind.ARRAY
        and expected.arrays[index].dtype.kind == "f"
    ]


def float32_promoted(function: str, expected: Parts, outcome: CallOutcome) -> list[Finding]:
    """Arrays that should be float32 (the reference's are) returned as float64."""
    promoted = [documented == np.float32 and got == np.float64 for documented, got in _array_dtypes(function, expected, outcome)]
    return [Finding("call.float32_promoted", {})] if any(promoted) else []


def wrong_float_dtype(function: str, expected: Parts, outcome: CallOutcome) -> list[Finding]:
    """Floating-point arrays returned in another floating-point dtype than documented (float64 as float32,
    float32 as longdouble, ...); float32 turned float64 is :func:`float32_promoted`'s."""
    for documented, got in _array_dtypes(function, expected, outcome):
        if got.kind == "f" and got != documented and not (documented == np.float32 and got == np.float64):
            return [Finding("call.wrong_dtype", {"expected": str(documented), "got": str(got)})]
    return []


def other_kind_result(function: str, expected: Parts, result, tol) -> list[Finding]:
    """The right values in another kind of dtype than documented: integers or booleans where real numbers are, or
    numbers where a boolean mask is (no cast): a broken contract, not a wrong value."""
    try:
        student = split(result)
    except ValueError:
        return []
    pairs = list(zip(expected.arrays, student.arrays))
    if len(pairs) != len(expected.arrays) or not same_values(expected, student, tol):
        return []
    for e, a in pairs:
        if e.dtype.kind == "f" and a.dtype.kind in "biu":
            return [Finding("call.not_float", {"dtype": str(a.dtype)})]
        if e.dtype.kind == "b" and a.dtype.kind in "iuf":
            return own(function, "not_boolean") or [Finding("call.wrong_dtype", {"expected": "bool", "got": str(a.dtype)})]
    return []


def call_properties(function: str, expected: Parts, outcome: CallOutcome) -> list[Finding]:
    """Every property the call broke; ``expected`` is the result it is judged against (for dtypes)."""
    return [
        *modified_inputs(function, outcome),
        *returned_lists(function, outcome),
        *float32_promoted(function, expected, outcome),
        *wrong_float_dtype(function, expected, outcome),
    ]
