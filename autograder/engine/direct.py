"""Run a suite of plain pytest files without pytest's machinery: collect, expand, call.

Suites stay ordinary pytest files (``pytest.mark.question``, ``pytest.mark.parametrize``,
``pytest.param``, the ``submission``, ``tol`` and ``draw`` fixtures), and plain ``pytest``
still runs the public ones in a release. Grading a submission, though, needs none of
pytest's plugins, hooks or reports: :func:`plan` imports the files, finds their tests and
expands their parameters, giving each case the node id pytest would give it (the ``draw``
fixture derives a test's inputs from that id); :func:`run_planned` calls the cases. A
suite that uses anything else (other fixtures, classes, setup functions, other marks) is
:class:`Unsupported`, and the caller runs it with pytest instead.
"""

from __future__ import annotations

import enum
import functools
import importlib.util
import inspect
import itertools
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from autograder.engine.marks import is_parameter_set, is_pytest_outcome, is_skip, pytest_outcomes, stand_in
from autograder.engine.outcome import QUESTION_MARKER, grader_error_of, question_of, test_result
from autograder.engine.results import TestResult
from autograder.engine.subject import Subject
from autograder.file_stamp import CACHED_PER_KIND, stamps

#: Fixtures the engine provides; a test asking for any other one needs pytest.
FIXTURES = ("submission", "tol", "draw")
#: Marks the direct runner understands.
KNOWN_MARKS = ("question", "parametrize")
#: Module attributes that mean pytest machinery the direct runner does not reproduce.
PYTEST_HOOKS = ("setup_module", "teardown_module", "setup_function", "teardown_function", "pytest_plugins")
#: Values pytest shows as themselves in a test id.
PLAIN_ID_TYPES = (int, float, bool, type(None), complex)
#: Longer string parameters get pytest's argname-and-index id instead of their text.
LONGEST_PLAIN_ID = 100


class Unsupported(Exception):
    """The suite uses a pytest feature the direct runner does not reproduce."""


@dataclass(frozen=True)
class Case:
    """One test call: the function, its parameter values, its marks and pytest's node id."""

    nodeid: str
    name: str
    function: Callable
    params: dict = field(default_factory=dict)
    marks: tuple = ()
    fixtures: tuple[str, ...] = ()

    def mark(self, name: str):
        """The closest mark of this name (the case's own first, then the function's), or None."""
        return next((m for m in self.marks if m.name == name), None)


def _escaped(text: str) -> str:
    """A string as pytest writes it into a test id (non-ASCII and control characters escaped)."""
    if len(text) > LONGEST_PLAIN_ID:
        raise Unsupported("a string parameter longer than pytest shows in an id")
    return text.encode("unicode_escape").decode("ascii")


def _value_id(value, argname: str, index: int) -> str:
    """The id pytest gives one parameter value."""
    if isinstance(value, str):
        return _escaped(value)
    if isinstance(value, PLAIN_ID_TYPES) or isinstance(value, enum.Enum):
        return str(value)
    if isinstance(value, bytes | re.Pattern):
        raise Unsupported("bytes or pattern parameters")
    if isinstance(getattr(value, "__name__", None), str):
        return value.__name__
    return f"{argname}{index}"


def _parameter_set_id(names: list[str], values: tuple, index: int, param_id, listed_id) -> str:
    """pytest's precedence: ``pytest.param(id=...)``, then ``ids=[...]``, then ids from the values."""
    chosen = param_id if param_id is not None else listed_id
    if chosen is not None:
        if not isinstance(chosen, str):
            raise Unsupported("a non-string id")
        return _escaped(chosen)
    return "-".join(_value_id(value, name, index) for name, value in zip(names, values))


def _parameter_sets(mark) -> tuple[list[str], list[tuple[str, dict, tuple]]]:
    """(argnames, [(id, {argname: value}, marks)]) of one parametrize mark."""
    argnames, argvalues = mark.args[0], list(mark.args[1])
    names = [n.strip() for n in argnames.split(",")] if isinstance(argnames, str) else list(argnames)
    ids = mark.kwargs.get("ids")
    if set(mark.kwargs) - {"ids"} or (ids is not None and not isinstance(ids, (list, tuple))) or not argvalues:
        raise Unsupported(f"parametrize with {sorted(mark.kwargs)} or no values")
    sets = []
    for index, value in enumerate(argvalues):
        marks, param_id = (), None
        if is_parameter_set(value):
            marks, param_id, values = tuple(getattr(m, "mark", m) for m in value.marks), value.id, tuple(value.values)
        else:
            values = tuple(value) if len(names) > 1 else (value,)
        listed_id = ids[index] if ids is not None and index < len(ids) else None
        case_id = _parameter_set_id(names, values, index, param_id, listed_id)
        sets.append((case_id, dict(zip(names, values, strict=True)), marks))
    if len({case_id for case_id, _, _ in sets}) != len(sets):
        raise Unsupported("duplicate parameter ids (pytest would number them)")
    return names, sets


def _marks_of(owner) -> list:
    """The marks set on a function or module (``pytestmark``), as Marks; only known ones allowed."""
    marks = getattr(owner, "pytestmark", [])
    marks = [getattr(m, "mark", m) for m in (marks if isinstance(marks, list) else [marks])]
    unknown = sorted({m.name for m in marks} - set(KNOWN_MARKS))
    if unknown:
        raise Unsupported(f"marks {unknown}")
    return marks


def _cases_of(module_file: str, name: str, function, module_marks: list) -> list[Case]:
    marks = _marks_of(function)
    parameters = [_parameter_sets(m) for m in marks if m.name == "parametrize"]
    plain_marks = tuple(m for m in marks if m.name != "parametrize") + tuple(module_marks)
    wanted = set(inspect.signature(function).parameters)
    given = {n for names, _ in parameters for n in names}
    if wanted - given - set(FIXTURES):
        raise Unsupported(f"{name} asks for fixtures {sorted(wanted - given - set(FIXTURES))}")
    fixtures = tuple(f for f in FIXTURES if f in wanted and f not in given)
    if not parameters:
        return [Case(f"{module_file}::{name}", name, function, {}, plain_marks, fixtures)]
    cases = []
    for combination in itertools.product(*(sets for _, sets in parameters)):
        case_id = "-".join(case_id for case_id, _, _ in combination)
        params = {k: v for _, values, _ in combination for k, v in values.items()}
        own = tuple(m for _, _, case_marks in combination for m in case_marks)
        cases.append(Case(f"{module_file}::{name}[{case_id}]", f"{name}[{case_id}]", function, params, own + plain_marks,
                          fixtures))
    return cases


def _import(path: Path) -> types.ModuleType:
    """Import a test file under a name of its own (its folder is on sys.path meanwhile, for its neighbours)."""
    name = f"attn_course_suite_{abs(hash(str(path)))}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        with stand_in():
            spec.loader.exec_module(module)
    except BaseException as error:
        if is_pytest_outcome(error):  # e.g. pytest.importorskip at the top of the file
            raise Unsupported(f"pytest's {type(error).__name__} while importing {path.name}") from None
        raise
    finally:
        sys.path.remove(str(path.parent))
    return module


def _is_fixture(value) -> bool:
    """A fixture definition (pytest 8.4+ wraps them in an object; older ones mark the function)."""
    return type(value).__module__ == "_pytest.fixtures" or hasattr(value, "_pytestfixturefunction")


def _tests_of(module: types.ModuleType) -> list[tuple[str, Callable]]:
    """The module's test functions, in pytest's order (the module's definition order)."""
    if any(hasattr(module, hook) for hook in PYTEST_HOOKS):
        raise Unsupported("module-level setup, teardown or plugins")
    if any(inspect.isclass(v) and k.startswith("Test") for k, v in vars(module).items()):
        raise Unsupported("test classes")
    if any(_is_fixture(v) for v in vars(module).values()):
        raise Unsupported("fixtures defined in the suite")
    return [(k, v) for k, v in vars(module).items()
            if k.startswith("test") and inspect.isfunction(v) and v.__module__ == module.__name__
            and getattr(v, "__test__", True)]


def plan(test_files: list[Path]) -> list[Case]:
    """Every case of the suite, in pytest's order: files sorted as given, tests as defined, parameters expanded.

    A process grading many submissions plans a suite once, while its files stay the same.

    Raises
    ------
    Unsupported
        When a file needs pytest itself.
    """
    return list(_plan(stamps(test_files)))


@functools.lru_cache(maxsize=CACHED_PER_KIND)
def _plan(files: tuple) -> tuple[Case, ...]:
    cases = []
    for path, _ in files:
        module = _import(Path(path))
        module_marks = _marks_of(module)
        if any(m.name == "parametrize" for m in module_marks):
            raise Unsupported("module-level parametrize")
        for name, function in _tests_of(module):
            cases += _cases_of(Path(path).name, name, function, module_marks)
    return tuple(cases)


def _call(case: Case, arguments: dict) -> BaseException | None:
    """Call one case; what it ended with (any Exception, or pytest's skip or fail, which are BaseExceptions)."""
    try:
        case.function(**arguments)
    except Exception as raised:
        return raised
    except BaseException as raised:
        if isinstance(raised, pytest_outcomes()):
            return raised
        raise
    return None


def _arguments(case: Case, subject: Subject, tolerance, seed: int) -> dict:
    """The case's parameters and the fixtures it asks for (``draw`` fresh for this case)."""
    from autograder.judge.draw import Draw

    provided = {"submission": subject, "tol": tolerance}
    if "draw" in case.fixtures:
        provided["draw"] = Draw(seed, case.nodeid)
    return {**{name: provided[name] for name in case.fixtures}, **case.params}


def run_planned(cases: list[Case], subject: Subject, tolerance, seed: int, show_assertions: bool) -> list[TestResult]:
    """Call every case with the engine's fixtures; a skipped case gives no result.

    Raises
    ------
    GraderError
        The first grader error a case ended with (see
        :func:`~autograder.engine.outcome.grader_error_of`), after the run.
    """
    results, grader_error = [], None
    for case in cases:
        subject.start_test(question_of(case.mark(QUESTION_MARKER)))
        error = _call(case, _arguments(case, subject, tolerance, seed))
        grader_error = grader_error or grader_error_of(error, case.nodeid, show_assertions)
        if not is_skip(error):
            results.append(test_result(case.name, case.mark(QUESTION_MARKER), case.function, error,
                                       subject, show_assertions))
            subject.note_result(results[-1])
    if grader_error is not None:
        raise grader_error
    return results
