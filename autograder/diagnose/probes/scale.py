"""What an attention function divides its scores by, measured from its weights.

The reference hands ``S / sqrt(d)`` to its softmax; which size ``d`` is, and the names of the
others, come from the course's docstrings (the first ``sqrt(<size>)`` it mentions, its shapes
and integer arguments, a definition such as ``d_head = d_model / num_heads``). When the student's weights are
``softmax(t * S / sqrt(d))`` for some ``t`` (:func:`.softmax.measured_factor`), the
student divided ``S`` by ``c = sqrt(d) / t``. Naming ``c`` names the bug: 1 (no scaling),
``d`` (no square root), the square root of another size of the inputs, or a constant
that is right for one ``d`` only.
"""

from __future__ import annotations

import inspect
import math
import re

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding, own
from autograder.diagnose.probes.softmax import measured_factor
from autograder.diagnose.vocabulary import argument_shapes, call_sizes, integer_arguments
from autograder.judge.compare import reference_function

#: Relative tolerance when matching a measured scale with a candidate.
SCALE_RTOL = 1e-3
#: Where a reference's docstring says what it scales by: the first ``sqrt(<size>)``.
SCALED_BY = re.compile(r"sqrt\((\w+)\)")
#: A size the docstring defines from others: ``d_head = d_model / num_heads``.
DEFINITION = re.compile(r"``(\w+) = (\w+) / (\w+)``")
#: Largest squared scale read as "a constant that is sqrt(d) for some whole d".
LARGEST_CONSTANT_SQUARE = 4096


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=SCALE_RTOL)


def _documented_sizes(case: Case) -> dict[str, int]:
    """The call's named sizes (its arrays' axes, its integer arguments, the docstring's ``a = b / c``), then the
    batch axes of its first documented array as ``<argument>.shape[i]``."""
    sizes = {**call_sizes(case.function, case.arguments)}
    arguments = case.arguments
    sizes.update({name: int(arguments[name]) for name in integer_arguments(case.function)
                  if isinstance(arguments.get(name), (int, np.integer)) and not isinstance(arguments[name], bool)})
    for derived, numerator, denominator in DEFINITION.findall(_doc(case.function)):
        if numerator in sizes and denominator in sizes and sizes[denominator]:
            sizes.setdefault(derived, sizes[numerator] // sizes[denominator])
    for name, shape in argument_shapes(case.function).items():
        value = arguments.get(name)
        if isinstance(value, np.ndarray) and shape.batched:
            sizes.update({f"{name}.shape[{i}]": value.shape[i] for i in range(value.ndim - len(shape.axes))})
            break
    return sizes


def _doc(function: str) -> str:
    return inspect.getdoc(reference_function(function)) or ""


def scale_sizes(case: Case) -> tuple[int, dict[str, int]] | None:
    """(the size whose root the docstring scales by, the other sizes by name); None when it scales by none."""
    found = SCALED_BY.search(_doc(case.function))
    sizes = _documented_sizes(case)
    if found is None or found.group(1) not in sizes:
        return None
    d = sizes.pop(found.group(1))
    return d, sizes


def classify(function: str, scale: float, d: int, others: dict[str, int]) -> list[Finding]:
    """The bug a measured scale ``scale`` stands for, where ``sqrt(d)`` is right."""
    if _close(scale, math.sqrt(d)):
        return []
    wrong = {"scale": f"{scale:.4g}", "expected": f"{math.sqrt(d):.4g}", "d_k": str(d)}
    if _close(scale, d / 2):  # d ** 1/2 read as (d ** 1) / 2; another size's root or, for d = 2, no scaling may fit too
        other = [f for f in _classified(function, scale, d, others, wrong)
                 if f.id.rsplit(".", 1)[-1].startswith("scale_by") or f.id.endswith(".no_scaling")]
        return own(function, "half_dk", **wrong) + other  # every fit: the re-draws and undecided_scales tell them apart
    return _classified(function, scale, d, others, wrong)


def _classified(function: str, scale: float, d: int, others: dict[str, int], wrong: dict) -> list[Finding]:
    if _close(scale, 1.0):
        return own(function, "no_scaling")
    if _close(scale, d):
        return own(function, "scale_by_dk") or own(function, "wrong_scale", **wrong)
    for name, size in others.items():
        if size != d and _close(scale, math.sqrt(size)):
            return own(function, f"scale_by_{name}") or own(function, "scale_by_wrong_dim", dimension=name)
    rounded = [math.floor(math.sqrt(d)), round(math.sqrt(d))]
    if math.isqrt(d) ** 2 != d and any(scale >= 1 and _close(scale, r) for r in rounded):
        found = own(function, "integer_sqrt", scale=f"{scale:.4g}", expected=f"{math.sqrt(d):.4g}")
        if found:
            return found
    square = scale * scale
    if 2 <= round(square) <= LARGEST_CONSTANT_SQUARE and _close(square, round(square)):
        return own(function, "hard_coded_scale", key=f"{scale:.4g}", scale=f"{scale:.4g}", d_k_it_fits=str(round(square)))
    return own(function, "wrong_scale", **wrong)


def undecided_scales(case: Case, kept: list[Finding]) -> list[Finding]:
    """``kept`` without the scales this call cannot tell apart, whichever finder named them: d / 2 beside the root of
    another size that equals it; for d = 2, d / 2, sqrt(d) rounded down and no scaling are all 1; for d = 3, sqrt(d)
    rounded down is 1 too."""
    def last(finding: Finding) -> str:
        return finding.id.rsplit(".", 1)[-1]

    suffixes = {last(f) for f in kept}
    if "half_dk" in suffixes and any(s.startswith("scale_by") for s in suffixes):
        kept = [f for f in kept if not last(f).startswith(("half_dk", "scale_by"))]
    sizes = scale_sizes(case) if {"no_scaling", "half_dk"} & suffixes else None
    if sizes is not None and math.isqrt(sizes[0]) == 1 < sizes[0]:
        kept = [f for f in kept if last(f) not in ("no_scaling", "integer_sqrt", "half_dk")]
    return kept


def attention_scale(case: Case) -> list[Finding]:
    """Attention (single or multi-head) whose weights are a softmax of differently scaled scores."""
    sizes = scale_sizes(case)
    if sizes is None:
        return []
    factor = measured_factor(case)
    if factor is None or factor <= 0:
        return []
    d, others = sizes
    return classify(case.function, math.sqrt(d) / factor, d, others)
