"""Check the held-out corpus against attn_reference (run with the project's venv python).

For every file in manifest.yml:
* only numpy, math, typing, functools, itertools are imported, and every graded
  function of the assignment is defined with the reference's positional signature;
* every buggy function differs from the reference on at least one input (value, shape,
  dtype, exception, or modification of an input array), also when the reference is
  given the student's own versions of the graded functions it calls;
* every function not listed as buggy agrees with the reference (called with the
  student's own graded callees where the student function calls them) on every input;
* the functions that differ from the plain reference are exactly affected_functions;
* correct (ok_) files agree with the plain reference everywhere.

Usage: .venv/bin/python benchmarks/heldout_mistakes/verify_heldout.py [-v]
"""

from __future__ import annotations

import ast
import copy
import inspect
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import yaml

import attn_reference as R

HERE = Path(__file__).resolve().parent
ALLOWED_IMPORTS = {"numpy", "math", "typing", "functools", "itertools"}
VERBOSE = "-v" in sys.argv

FUNCTIONS = {
    "hw1_scaled_attention": ["softmax", "causal_mask", "scaled_dot_product_attention", "dot_product_variance"],
    "hw2_rnn_attention": ["additive_score", "dot_score", "general_score", "concat_score", "attention_context"],
    "hw3_multi_head": ["split_heads", "merge_heads", "multi_head_attention"],
}
#: Graded callees the reference accepts as keyword arguments (within the same assignment).
INJECTABLE = {
    "scaled_dot_product_attention": ["softmax"],
    "general_score": ["dot_score"],
    "concat_score": ["additive_score"],
    "multi_head_attention": ["split_heads", "merge_heads"],
}


# ----------------------------------------------------------------------------- inputs
def _rng(seed):
    return np.random.default_rng(seed)


def _mask(rng, shape):
    """Random boolean mask with at least one True in every last-axis slice."""
    m = rng.random(shape) < 0.6
    first = np.zeros(shape, dtype=bool)
    idx = rng.integers(0, shape[-1], size=shape[:-1])
    np.put_along_axis(first, idx[..., None], True, axis=-1)
    return m | first


def softmax_cases():
    r = _rng(1)
    cases = []
    for shape, axis in [((5,), -1), ((3, 4), -1), ((2, 3, 4), -1), ((4, 4), -1), ((2, 3, 4), 0),
                        ((2, 3, 4), 1), ((2, 3, 4), -2), ((4, 4), 0), ((3, 4), 0), ((3, 4), 1)]:
        cases.append(((r.standard_normal(shape),), {"axis": axis}))
    cases.append(((r.standard_normal((3, 4)).astype(np.float32),), {}))
    cases.append(((r.standard_normal((2, 3, 4)).astype(np.float32),), {"axis": 1}))
    cases.append((([[1, 2, 3], [0, 0, 0]],), {}))
    cases.append(((np.array([1000.0, 1000.0]),), {}))
    cases.append(((r.standard_normal((3, 4)) * 1000,), {}))
    cases.append(((r.standard_normal((3, 5)) + np.array([[0.0], [800.0], [-800.0]]),), {}))
    x = r.standard_normal((3, 4))
    x[0, 1] = x[2, 0] = x[2, 3] = -np.inf
    cases.append(((x,), {}))
    cases.append(((np.array([0.5, -np.inf, 0.0]),), {}))
    cases.append(((np.array([1000.0, 1000.0], dtype=np.float32),), {}))
    return cases


def causal_cases():
    return [((n,), {}) for n in range(1, 7)]


def attention_cases():
    r = _rng(2)
    sn = r.standard_normal
    cases = []
    cases.append(((sn((4, 8)), sn((6, 8)), sn((6, 5))), {}))
    cases.append(((sn((4, 4)), sn((4, 4)), sn((4, 4))), {}))
    cases.append(((sn((2, 4, 8)), sn((2, 6, 8)), sn((2, 6, 5))), {}))
    cases.append(((sn((2, 1, 4, 8)), sn((3, 6, 8)), sn((3, 6, 5))), {}))
    cases.append(((sn((4, 8)), sn((6, 8)), sn((6, 5)), _mask(r, (4, 6))), {}))
    cases.append(((sn((4, 8)), sn((6, 8)), sn((6, 5)), _mask(r, (6,)).astype(int)), {}))
    cases.append(((sn((2, 4, 8)), sn((2, 6, 8)), sn((2, 6, 5)), _mask(r, (4, 6))), {}))
    cases.append(((sn((2, 4, 8)), sn((2, 6, 8)), sn((2, 6, 5)), _mask(r, (2, 4, 6))), {}))
    cases.append(((sn((2, 4, 8)), sn((2, 6, 8)), sn((2, 6, 5)), _mask(r, (2, 1, 6)).astype(int)), {}))
    cases.append(((sn((5, 5)), sn((5, 5)), sn((5, 5)), R.causal_mask(5)), {}))
    cases.append(((sn((2, 5, 3)), sn((2, 5, 3)), sn((2, 5, 3)), R.causal_mask(5)), {}))
    f32 = lambda a: a.astype(np.float32)  # noqa: E731
    cases.append(((f32(sn((4, 8))), f32(sn((6, 8))), f32(sn((6, 5)))), {}))
    cases.append(((f32(sn((2, 4, 8))), f32(sn((2, 6, 8))), f32(sn((2, 6, 5))), _mask(r, (2, 4, 6))), {}))
    cases.append(((30 * sn((4, 8)), 30 * sn((6, 8)), sn((6, 5)), _mask(r, (4, 6))), {}))
    cases.append(((30 * sn((2, 4, 8)), 30 * sn((2, 6, 8)), sn((2, 6, 5))), {}))
    Q = sn((2, 4, 8))
    Q[1] *= 20
    cases.append(((Q, 10 * sn((2, 6, 8)), sn((2, 6, 5))), {}))
    cases.append(((r.integers(-3, 4, (3, 4)), r.integers(-3, 4, (5, 4)), r.integers(-3, 4, (5, 2))), {}))
    cases.append((([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [3.0, 4.0]]), {}))
    return cases


def variance_cases():
    return [(d_k, n, seed) for d_k, n, seed in
            [(1, 1000, 0), (4, 2000, 1), (16, 500, 7), (64, 100, 3), (8, 2, 5), (3, 50, 0)]]


def rnn_states(r, d_s, d_h, T=6):
    sn = r.standard_normal
    return [
        (sn((d_s,)), sn((T, d_h))),
        (sn((2, d_s)), sn((2, T, d_h))),
        (sn((3, d_s)), sn((T, d_h))),
        (sn((2, 3, d_s)), sn((3, T, d_h))),
        (sn((d_s,)), sn((2, T, d_h))),
        (sn((T, d_s)), sn((T, T, d_h))),
    ]


def score_cases(name):
    r = _rng(3)
    sn = r.standard_normal
    cases = []
    for d_s, d_h, d_a in [(3, 5, 4), (4, 4, 4), (5, 3, 2)]:
        if name == "dot_score":
            d_s = d_h
        for s, H in rnn_states(r, d_s, d_h):
            extra = {
                "additive_score": (sn((d_a, d_s)), sn((d_a, d_h)), sn(d_a)),
                "dot_score": (),
                "general_score": (sn((d_s, d_h)),),
                "concat_score": (sn((d_a, d_s + d_h)), sn(d_a)),
            }[name]
            cases.append(((s, H) + extra, {}))
            if d_s == 3 or d_s == d_h:
                cases.append((tuple(a.astype(np.float32) for a in (s, H) + extra), {}))
    # integer inputs, unbatched
    d_s, d_h, d_a = 3, 3, 2
    ri = lambda *shape: r.integers(-2, 3, shape)  # noqa: E731
    extra = {"additive_score": (ri(d_a, d_s), ri(d_a, d_h), ri(d_a)), "dot_score": (),
             "general_score": (ri(d_s, d_h),), "concat_score": (ri(d_a, d_s + d_h), ri(d_a))}[name]
    cases.append(((ri(d_s), ri(4, d_h)) + extra, {}))
    return cases


def context_cases():
    r = _rng(4)
    sn = r.standard_normal
    T, d = 6, 3
    cases = []
    cases.append(((sn(T), sn((T, d))), {}))
    cases.append(((sn((2, T)), sn((2, T, d))), {}))
    cases.append(((sn((4, T)), sn((T, d))), {}))
    cases.append(((sn((2, 3, T)), sn((3, T, d))), {}))
    cases.append(((sn((T, T)), sn((T, T, d))), {}))
    cases.append(((sn(T), sn((T, d)), _mask(r, (T,))), {}))
    cases.append(((sn((2, T)), sn((2, T, d)), _mask(r, (2, T)).astype(int)), {}))
    cases.append(((sn((2, T)), sn((2, T, d)), _mask(r, (1, T))), {}))
    cases.append(((sn((4, T)), sn((T, d)), _mask(r, (T,))), {}))
    cases.append(((1000 * sn((2, T)), sn((2, T, d))), {}))
    cases.append(((1000 * sn((3, T)), sn((3, T, d)), _mask(r, (3, T))), {}))
    cases.append(((sn((2, T)).astype(np.float32), sn((2, T, d)).astype(np.float32), _mask(r, (2, T))), {}))
    cases.append(((r.integers(-3, 4, T), r.integers(-3, 4, (T, d))), {}))
    cases.append((([1.0, 2.0, 3.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), {}))
    return cases


def split_cases():
    r = _rng(5)
    sn = r.standard_normal
    cases = []
    for h in (1, 2, 4):
        cases.append(((sn((5, 8)), h), {}))
        cases.append(((sn((2, 5, 8)), h), {}))
        cases.append(((sn((2, 3, 5, 8)), h), {}))
    cases.append(((sn((3, 5, 8)).astype(np.float32), 2), {}))
    cases.append(((r.integers(-5, 5, (5, 6)), 3), {}))
    return cases


def merge_cases():
    r = _rng(6)
    sn = r.standard_normal
    return [
        ((sn((2, 5, 4)),), {}),
        ((sn((1, 5, 4)),), {}),
        ((sn((3, 2, 5, 4)),), {}),
        ((sn((2, 3, 4, 5, 2)),), {}),
        ((sn((3, 2, 5, 4)).astype(np.float32),), {}),
        ((r.integers(-5, 5, (3, 4, 2)),), {}),
    ]


def mha_cases():
    r = _rng(7)
    sn = r.standard_normal
    d = 8
    W = lambda: sn((d, d))  # noqa: E731
    cases = []
    X = sn((5, d))
    cases.append(((X, X, W(), W(), W(), W(), 2), {}))
    cases.append(((sn((5, d)), sn((6, d)), W(), W(), W(), W(), 4), {"mask": _mask(r, (5, 6))}))
    cases.append(((sn((3, 5, d)), sn((3, 6, d)), W(), W(), W(), W(), 2), {"mask": _mask(r, (3, 5, 6))}))
    cases.append(((sn((2, 5, d)), sn((2, 6, d)), W(), W(), W(), W(), 2), {"mask": _mask(r, (2, 5, 6))}))
    cases.append(((sn((2, 5, d)), sn((2, 6, d)), W(), W(), W(), W(), 4), {"mask": _mask(r, (6,)).astype(int)}))
    cases.append(((sn((3, 5, d)), sn((3, 6, d)), W(), W(), W(), W(), 4), {"mask": _mask(r, (3, 1, 6))}))
    cases.append(((sn((3, 5, d)), sn((6, d)), W(), W(), W(), W(), 2), {}))
    cases.append(((sn((5, d)), sn((6, d)), W(), W(), W(), W(), 1), {"mask": _mask(r, (5, 6))}))
    X = sn((2, 4, d))
    cases.append(((X, X, W(), W(), W(), W(), 4), {"mask": R.causal_mask(4)}))
    cases.append((tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a
                        for a in (sn((2, 5, d)), sn((2, 6, d)), W(), W(), W(), W(), 2)),
                   {"mask": _mask(r, (2, 5, 6))}))
    cases.append((tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a
                        for a in (sn((5, d)), sn((5, d)), W(), W(), W(), W(), 4)), {}))
    cases.append(((30 * sn((2, 5, d)), 30 * sn((2, 6, d)), W(), W(), W(), W(), 2), {"mask": _mask(r, (2, 5, 6))}))
    ri = lambda *shape: r.integers(-2, 3, shape)  # noqa: E731
    cases.append(((ri(4, d), ri(4, d), ri(d, d), ri(d, d), ri(d, d), ri(d, d), 2), {}))
    X = sn((5, d))
    cases.append(((X, X, W(), W(), W(), W(), 4), {"mask": _mask(r, (5,))}))
    return cases


CASES = {
    "softmax": softmax_cases, "causal_mask": causal_cases,
    "scaled_dot_product_attention": attention_cases,
    "additive_score": lambda: score_cases("additive_score"), "dot_score": lambda: score_cases("dot_score"),
    "general_score": lambda: score_cases("general_score"), "concat_score": lambda: score_cases("concat_score"),
    "attention_context": context_cases,
    "split_heads": split_cases, "merge_heads": merge_cases, "multi_head_attention": mha_cases,
}


# ----------------------------------------------------------------------------- comparing
def _call(fn, args, kwargs):
    args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
    before = copy.deepcopy((args, kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                out = ("ok", fn(*args, **kwargs))
            except Exception as exc:  # noqa: BLE001
                out = ("err", type(exc).__name__)
    mutated = not _equal_tree(before, (args, kwargs))
    return out, mutated


def _equal_tree(a, b):
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(_equal_tree(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal_tree(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    return a == b


def _same_value(ref, stu):
    """Why ref and stu differ, or None."""
    if isinstance(ref, tuple):
        if not isinstance(stu, tuple) or len(stu) != len(ref):
            return f"returned {type(stu).__name__} of len {len(stu) if hasattr(stu, '__len__') else '-'}"
        for i, (a, b) in enumerate(zip(ref, stu)):
            why = _same_value(a, b)
            if why:
                return f"[{i}] {why}"
        return None
    if isinstance(ref, float):
        try:
            b = float(stu)
        except Exception:  # noqa: BLE001
            return f"not a number: {type(stu).__name__}"
        return None if math.isclose(ref, b, rel_tol=1e-9, abs_tol=1e-12) else f"{b!r} != {ref!r}"
    if not isinstance(stu, np.ndarray):
        return f"not an ndarray: {type(stu).__name__}"
    if stu.shape != ref.shape:
        return f"shape {stu.shape} != {ref.shape}"
    if stu.dtype != ref.dtype:
        return f"dtype {stu.dtype} != {ref.dtype}"
    if ref.dtype == np.bool_:
        return None if np.array_equal(ref, stu) else "values differ"
    rtol, atol = (1e-4, 1e-6) if ref.dtype == np.float32 else (1e-7, 1e-10)
    if not np.allclose(stu, ref, rtol=rtol, atol=atol, equal_nan=True):
        bad = ~np.isclose(stu, ref, rtol=rtol, atol=atol, equal_nan=True)
        return f"values differ at {int(bad.sum())}/{bad.size} entries"
    return None


def compare(ref_fn, stu_fn, args, kwargs, ref_may_raise=False):
    (rk, rv), _ = _call(ref_fn, args, kwargs)
    (sk, sv), mutated = _call(stu_fn, args, kwargs)
    if rk == "err" and not ref_may_raise:
        raise RuntimeError(f"reference raised {rv} on a test input")
    if rk == "err":  # the reference fed with the student's buggy callee raised
        return None if sk == "err" else f"returned a result where the reference with the student's callees raised {rv}"
    if sk == "err":
        return f"raised {sv}"
    if mutated:
        return "modified an input array"
    return _same_value(rv, sv)


def compare_variance(ref_fn, stu_fn, d_k, n, seed):
    def run(fn):
        rng = np.random.default_rng(seed)
        try:
            out = fn(d_k, n, rng)
        except Exception as exc:  # noqa: BLE001
            return ("err", type(exc).__name__), None
        return ("ok", (float(out[0]), float(out[1]))), rng.standard_normal(3)
    (rk, rv), rnext = run(ref_fn)
    (sk, sv), snext = run(stu_fn)
    if sk == "err":
        return f"raised {sv}"
    why = _same_value(rv, sv)
    if why:
        return why
    if not np.array_equal(rnext, snext):
        return "generator left in a different state"
    return None


# ----------------------------------------------------------------------------- loading
def load(path: Path):
    source = path.read_text()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]]
        else:
            continue
        bad = set(names) - ALLOWED_IMPORTS
        if bad:
            raise AssertionError(f"{path.name}: disallowed import {bad}")
    namespace: dict = {"__name__": f"student_{path.stem}"}
    exec(compile(source, str(path), "exec"), namespace)
    calls = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            calls[node.name] = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return namespace, calls


def check_signatures(namespace, assignment, fname):
    for name in FUNCTIONS[assignment]:
        assert name in namespace, f"{fname}: missing {name}"
        ref_params = [p.name for p in inspect.signature(getattr(R, name)).parameters.values()
                      if p.kind != p.KEYWORD_ONLY]
        stu_params = list(inspect.signature(namespace[name]).parameters)
        assert stu_params == ref_params, f"{fname}: {name}{stu_params} != {ref_params}"


def student_callees(name, namespace, calls):
    """Keyword arguments giving the reference the student's own graded callees it uses."""
    return {c: namespace[c] for c in INJECTABLE.get(name, []) if c in calls.get(name, set())}


def run_function(name, namespace, calls, inject: bool):
    """Differences (case index, reason) between student and reference for one function."""
    stu = namespace[name]
    ref = getattr(R, name)
    extra = student_callees(name, namespace, calls) if inject else {}
    if extra:
        base = ref
        ref = lambda *a, **k: base(*a, **k, **extra)  # noqa: E731
    diffs = []
    if name == "dot_product_variance":
        for i, (d_k, n, seed) in enumerate(variance_cases()):
            why = compare_variance(ref, stu, d_k, n, seed)
            if why:
                diffs.append((i, why))
        return diffs
    for i, (args, kwargs) in enumerate(CASES[name]()):
        why = compare(ref, stu, args, kwargs, ref_may_raise=bool(extra))
        if why:
            diffs.append((i, why))
    return diffs


def variance_statistics(namespace):
    rng = np.random.default_rng(11)
    raw, scaled = namespace["dot_product_variance"](16, 20000, rng)
    return raw, scaled


def main() -> int:
    manifest = yaml.safe_load((HERE / "manifest.yml").read_text())
    problems = []
    listed = {e["file"] for e in manifest}
    on_disk = {str(p.relative_to(HERE)) for p in HERE.glob("hw*/*.py")}
    if listed != on_disk:
        problems.append(f"manifest/file mismatch: {sorted(listed ^ on_disk)}")
    for entry in manifest:
        path = HERE / entry["file"]
        assignment = entry["assignment"]
        namespace, calls = load(path)
        check_signatures(namespace, assignment, entry["file"])
        buggy = set(entry["buggy_functions"])
        affected_claimed = set(entry["affected_functions"])
        affected = set()
        notes = []
        for name in FUNCTIONS[assignment]:
            plain = run_function(name, namespace, calls, inject=False)
            if plain:
                affected.add(name)
            injected = run_function(name, namespace, calls, inject=True)
            if name in buggy:
                if not injected:
                    problems.append(f"{entry['file']}: buggy {name} agrees with the reference "
                                    f"(given its own callees) on every input")
                notes.append(f"  {name}: BUG shows on {len(injected)} inputs, e.g. {injected[:2]}")
            elif injected:
                problems.append(f"{entry['file']}: non-buggy {name} differs: {injected[:3]}")
            elif plain and VERBOSE:
                notes.append(f"  {name}: correct itself, differs only through its callees ({len(plain)} inputs)")
        if affected != affected_claimed:
            problems.append(f"{entry['file']}: affected {sorted(affected)} but manifest says {sorted(affected_claimed)}")
        if entry["kind"] == "correct" and affected:
            problems.append(f"{entry['file']}: correct file differs in {sorted(affected)}")
        if entry["kind"] == "two_functions":
            c = entry["calls"]
            if c["callee"] not in calls.get(c["caller"], set()):
                problems.append(f"{entry['file']}: {c['caller']} does not call {c['callee']}")
        if "dot_product_variance" in buggy:
            raw, scaled = variance_statistics(namespace)
            notes.append(f"  statistics d_k=16, n=20000: var_raw={raw:.3f} var_scaled={scaled:.3f}")
        print(f"{entry['file']}: affected={sorted(affected)}")
        if VERBOSE:
            print("\n".join(notes))
    print()
    if problems:
        print(f"{len(problems)} PROBLEM(S):")
        print("\n".join(problems))
        return 1
    print(f"all {len(manifest)} entries check out")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
