"""Name a bug nobody listed: the right code with one slip (:mod:`.edit_operators`) that gives what the student got.

The reference function of a graded function, and every function of the reference it calls (its private
validation modules aside), is parsed once; each single edit of one of them is compiled into a version of the
graded function that calls the edited helper. On a failed call, every version runs on the call's inputs
(in the grader's process: it is the reference's code, never the student's); a version that differs from the
reference there and gives the student's very result, or raises the very error the student's raised, names
the slip. The finding is kept only when one slip, as shown, explains the call (two that explain it alike name
neither), and, like every finding, only when the same slip explains the call's re-draws (:mod:`.confirm`).
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import types
from typing import Callable

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.edit_operators import Edit, applied, edits
from autograder.diagnose.probes.finding import Finding
from autograder.judge.compare import Raised, agrees, reference_function, run, same_values

#: The id every slip is named by; its hint shows the expression as it is and as the student's result has it.
EDIT_ID = "call.behaves_as_edited"
#: Searches of one function's versions that may find nothing before the run stops searching it (each costs a run of
#: every version).
MOST_FRUITLESS = 3
#: Most generated versions of one graded function (a bound on the time one failed call costs).
MOST_VERSIONS = 2500


@functools.lru_cache(maxsize=None)
def _tree(function: types.FunctionType) -> ast.FunctionDef | None:
    """The function's definition without decorators, docstring or annotations (None without source)."""
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return None
    tree = ast.parse(source).body[0]
    if not isinstance(tree, ast.FunctionDef):
        return None
    tree.decorator_list = []
    tree.returns = None
    for argument in (*tree.args.posonlyargs, *tree.args.args, *tree.args.kwonlyargs):
        argument.annotation = None
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        tree.body = body[1:] or [ast.Pass()]
    return tree


def _is_helper(value, package: str) -> bool:
    """A Python function of the reference's package, outside its private modules (the input validation)."""
    module = getattr(value, "__module__", "") or ""
    return (isinstance(value, types.FunctionType) and module.split(".")[0] == package
            and not module.rsplit(".", 1)[-1].startswith("_"))


@functools.lru_cache(maxsize=None)
def _callees(function: types.FunctionType) -> tuple[tuple[str, types.FunctionType], ...]:
    """The reference functions ``function`` names (its defaults included), by the name it uses."""
    tree = _tree(function)
    if tree is None:
        return ()
    package = function.__module__.split(".")[0]
    names = dict.fromkeys(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    found = []
    for name in names:
        value = function.__globals__.get(name)
        if value is not function and _is_helper(value, package):
            found.append((name, value))
    return tuple(found)


def _reachable(function: types.FunctionType) -> list[types.FunctionType]:
    """``function`` and every reference function it calls, directly or not, each once."""
    seen: list[types.FunctionType] = []
    pending = [function]
    while pending:
        current = pending.pop(0)
        if current in seen:
            continue
        seen.append(current)
        pending.extend(callee for _name, callee in _callees(current))
    return seen


def _built(function: types.FunctionType, target: types.FunctionType, memo: dict) -> Callable:
    """``function`` compiled again so that it calls ``target`` as its tree now is (edited), wherever on its call
    path."""
    if function in memo:
        return memo[function]
    if function is not target and target not in _reachable(function):
        return function
    namespace = dict(function.__globals__)
    for name, callee in _callees(function):
        namespace[name] = _built(callee, target, memo)
    exec(compile(ast.Module([_tree(function)], []), f"<{function.__name__}, edited>", "exec"), namespace)  # noqa: S102
    memo[function] = namespace[function.__name__]
    return memo[function]


@functools.lru_cache(maxsize=None)
def edited_versions(function: str) -> tuple[tuple[Edit, Callable], ...]:
    """Every version of the graded ``function`` with one slip in its code or in a helper it calls (at most
    :data:`MOST_VERSIONS`), each with the slip that makes it."""
    reference = reference_function(function)
    versions = []
    for target in _reachable(reference):
        tree = _tree(target)
        if tree is None:
            continue
        numpy = next((name for name, value in target.__globals__.items() if value is np), None)
        for edit in edits(tree, numpy):
            try:
                with applied(edit):
                    versions.append((edit, _built(reference, target, {})))
            except (SyntaxError, ValueError, TypeError, NameError):
                continue
            if len(versions) >= MOST_VERSIONS:
                return tuple(versions)
    return tuple(versions)


def _explains(produced, case: Case) -> bool:
    """The version's outcome tells it from the reference here and is the student's values. An exception alike
    names no slip: slips at different steps stop at the same product of mismatched sizes, word for word."""
    if isinstance(produced, Raised) or isinstance(case.student, Raised):
        return False
    return not agrees(case.reference, produced, case.tol) and same_values(produced, case.student, case.tol)


def _matching(case: Case) -> tuple[list[Edit], tuple]:
    """Every slip that gives the student's result on this call, one per way it is shown, and all the versions.

    An experiment that draws many samples from a generator is searched on the same call with fewer samples
    (:func:`_fewer_samples`, one more call of the student's function), each slip found kept only when it also
    gives the student's result on the call as it was: a thousand versions of a large experiment would take
    seconds."""
    if not _informative(case.student):
        return [], ()
    try:
        versions = edited_versions(case.function)
    except Exception:  # noqa: BLE001  (a reference without source, or one the operators cannot rebuild, names nothing)
        return [], ()
    searched = _fewer_samples(case)
    if searched is None:
        return [], versions
    shown: dict[tuple[str, str], Edit] = {}
    for edit, version in versions:
        if (edit.was, edit.becomes) not in shown and _gives(version, searched):
            shown[(edit.was, edit.becomes)] = edit
    if searched is not case:
        by_edit = {id(e): v for e, v in versions}
        shown = {k: e for k, e in shown.items() if _gives(by_edit[id(e)], case)}
    return list(shown.values()), versions


def _gives(version, case: Case) -> bool:
    return _explains(run(version, case.args, {**case.kwargs, **case.dependencies}), case)


def _fewer_samples(case: Case) -> Case | None:
    """The call itself, or, in a function given a generator, the call with every count of
    :data:`~.confirm.SAMPLE_COUNT` or more cut to that (None when the student's function gives nothing there)."""
    from autograder.diagnose.confirm import SAMPLE_COUNT  # noqa: PLC0415  (confirm runs these finders)
    from autograder.diagnose.localise import OBSERVATION_CALLS  # noqa: PLC0415
    from autograder.inputs import RngSeed  # noqa: PLC0415

    arguments = case.arguments
    if not any(isinstance(value, RngSeed) for value in arguments.values()):
        return case
    changes = {name: SAMPLE_COUNT for name, value in arguments.items() if isinstance(value, (int, np.integer))
               and not isinstance(value, bool) and value > SAMPLE_COUNT}
    if not changes:
        return case
    expected = case.reference_with(**changes)
    answer = case.student_with(budget=OBSERVATION_CALLS, **changes)
    if answer is None or isinstance(expected, Raised):
        return None
    args, kwargs = case.changed(**changes)
    return Case(case.function, args, kwargs, case.tol, expected, answer, None, case.dependencies)


def _finding(edit: Edit) -> Finding:
    return Finding(EDIT_ID, {"was": f"`{edit.was}`", "becomes": f"`{edit.becomes}`"}, key=f"{edit.was} -> {edit.becomes}")


def edit_findings(case: Case) -> list[tuple[Finding, Callable[[Case], list[Finding]]]]:
    """The one slip of the reference's code that gives what the student got on this call (none, or several
    shown differently: nothing), with what confirms it on a re-draw: that slip's version giving the student's
    result there too (one run per re-draw, whatever else might also explain it).

    A slip that explained an earlier call of the same function (``case.memo``) is tried first, alone; after
    :data:`MOST_FRUITLESS` searches that found nothing, the function is searched no more in this run.
    """
    memo = case.memo
    try:
        versions = edited_versions(case.function)
    except Exception:  # noqa: BLE001  (a reference without source, or one the operators cannot rebuild, names nothing)
        return []
    by_key = {_finding(e).key: (e, v) for e, v in versions}
    for key in memo.get("slips", ()):
        edit, version = by_key[key]
        if _informative(case.student) and _gives(version, case) and _holds_on_ordinary_values(case, version):
            return [_confirmable(edit, version)]
    if memo.get("fruitless", 0) >= MOST_FRUITLESS:
        return []
    found, _ = _matching(case)
    chosen = _one_slip(found)
    version = next((v for e, v in versions if e is chosen), None)
    if chosen is None or not _holds_on_ordinary_values(case, version):
        memo["fruitless"] = memo.get("fruitless", 0) + 1
        return []
    memo.setdefault("slips", []).append(_finding(chosen).key)
    return [_confirmable(chosen, version)]


def _confirmable(edit: Edit, version) -> tuple[Finding, Callable[[Case], list[Finding]]]:
    finding = _finding(edit)

    def again(other: Case) -> list[Finding]:
        return [finding] if _informative(other.student) and _gives(version, other) else []

    return finding, again


def _holds_on_ordinary_values(case: Case, version) -> bool:
    """Large inputs make many slips alike (every weight of a row equal, whatever squashed the scores): where the
    call's arguments exceed 1, the slip must also give what the student's function gives on them scaled down
    (:func:`.confirm.scaled_down`; no answer from the student there is no evidence against it). A re-draw cannot
    tell: it is made only where the student is still wrong."""
    from autograder.diagnose.confirm import scaled_down  # noqa: PLC0415  (confirm runs this finder)
    from autograder.diagnose.localise import OBSERVATION_CALLS  # noqa: PLC0415  (localise imports the probes)

    changes = scaled_down(case)
    if not changes:
        return True
    answer = case.student_with(budget=OBSERVATION_CALLS, **changes)
    if answer is None:
        return True
    args, changed_kwargs = case.changed(**changes)
    produced = run(version, args, {**changed_kwargs, **case.dependencies})
    return not isinstance(produced, Raised) and same_values(produced, answer, case.tol)


def _informative(student) -> bool:
    """A result that can name a slip: some part with several entries holds two different values (zeros
    everywhere, or one number repeated, is what many slips and many other bugs give alike), or it is real numbers
    of one entry each (an estimate; a single flag is what many slips give alike)."""
    if isinstance(student, Raised):
        return False
    parts = [np.asarray(part) for part in getattr(student, "arrays", ()) if np.asarray(part).dtype.kind in "biuf"]
    several = [part for part in parts if part.size > 1]
    if not several:
        return any(part.dtype.kind == "f" for part in parts)  # one real number says much, one flag little
    return any(np.unique(part[~np.isnan(part)] if part.dtype.kind == "f" else part).size > 1 for part in several)


def _one_slip(found: list[Edit]) -> Edit | None:
    """The slip found, when there is one; of several of one kind in one statement, the first; of several other axes of
    one call (alike on these inputs' number of axes), the one counted from the end."""
    if len(found) <= 1:
        return found[0] if found else None
    if all(e.kind == found[0].kind and e.line == found[0].line and e.kind != "axis" for e in found):
        return found[0]  # one kind of slip in one statement, alike here (a[i, None] * a[None, j] made symmetric either way)
    if found and all(e.kind == "axis" and e.was == found[0].was for e in found):
        from_end = [e for e in found if "axis=-" in e.becomes]
        return from_end[0] if len(from_end) == 1 else None
    return None
