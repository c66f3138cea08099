"""What an attention function divides its scores by, measured from its weights.

The reference hands ``S / sqrt(d)`` to its softmax. When the student's weights are
``softmax(t * S / sqrt(d))`` for some ``t`` (:func:`.softmax.measured_factor`), the
student divided ``S`` by ``c = sqrt(d) / t``. Naming ``c`` names the bug: 1 (no scaling),
``d`` (no square root), the square root of another size of the inputs, or a constant
that is right for one ``d`` only.
"""

from __future__ import annotations

import math

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding, own
from autograder.diagnose.probes.softmax import measured_factor

#: Relative tolerance when matching a measured scale with a candidate.
SCALE_RTOL = 1e-3
#: Largest squared scale read as "a constant that is sqrt(d) for some whole d".
LARGEST_CONSTANT_SQUARE = 4096


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=SCALE_RTOL)


def _attention_sizes(case: Case) -> tuple[int, dict[str, int]]:
    """(d_k, other sizes by name) for scaled dot-product attention."""
    arguments = case.arguments
    Q, K, V = (np.shape(arguments[name]) for name in ("Q", "K", "V"))
    others = {"d_v": V[-1], "L_q": Q[-2], "L_k": K[-2]}
    if len(Q) > 2:
        others["Q.shape[1]"] = Q[1]
    return Q[-1], others


def _multi_head_sizes(case: Case) -> tuple[int, dict[str, int]]:
    """(d_head, other sizes by name) for multi-head attention."""
    arguments = case.arguments
    d_model, heads = np.shape(arguments["X_q"])[-1], int(arguments["num_heads"])
    others = {"d_model": d_model, "num_heads": heads, "n_q": np.shape(arguments["X_q"])[-2],
              "n_kv": np.shape(arguments["X_kv"])[-2]}
    return d_model // heads, others


SIZES = {"scaled_dot_product_attention": _attention_sizes, "multi_head_attention": _multi_head_sizes}


def classify(function: str, scale: float, d: int, others: dict[str, int]) -> list[Finding]:
    """The bug a measured scale ``scale`` stands for, where ``sqrt(d)`` is right."""
    if _close(scale, math.sqrt(d)):
        return []
    if _close(scale, 1.0):
        return own(function, "no_scaling")
    wrong = {"scale": f"{scale:.4g}", "expected": f"{math.sqrt(d):.4g}", "d_k": str(d)}
    if _close(scale, d):
        return own(function, "scale_by_dk") or own(function, "wrong_scale", **wrong)
    for name, size in others.items():
        if size != d and _close(scale, math.sqrt(size)):
            if name == "d_model":
                return own(function, "scale_by_d_model")
            return own(function, "scale_by_wrong_dim", dimension=name)
    square = scale * scale
    if 2 <= round(square) <= LARGEST_CONSTANT_SQUARE and _close(square, round(square)):
        return own(function, "hard_coded_scale", scale=f"{scale:.4g}", d_k_it_fits=str(round(square)))
    return own(function, "wrong_scale", **wrong)


def attention_scale(case: Case) -> list[Finding]:
    """Attention (single or multi-head) whose weights are a softmax of differently scaled scores."""
    sizes = SIZES.get(case.function)
    if sizes is None:
        return []
    factor = measured_factor(case)
    if factor is None or factor <= 0:
        return []
    d, others = sizes(case)
    return classify(case.function, math.sqrt(d) / factor, d, others)
