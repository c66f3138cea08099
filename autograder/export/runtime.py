"""The course's hidden suite run in-process on a notebook's namespace (what the exports' cells called before).

The exports' cells no longer import it: they replay data (:mod:`autograder.export.kernel_check`).
It stays as the engine's own in-process verdicts the kernel checker is measured against
(tests/autograder/export/test_kernel_check.py). The first call runs the assignment's whole hidden suite once,
with the course's own judge, against the notebook's namespace
(:class:`~autograder.export.namespace.NamespaceSubmission`) and the seed the export fixed;
every later cell or test case reads its share of the cached results. While the suite runs,
warnings, stdout and stderr are contained: nbgrader gives 0 to a grade cell that writes to
stderr, and a numpy overflow warning would be enough.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import warnings

import numpy as np

from autograder.engine import TestResult, run_suite
from autograder.export.cases import suite_files
from autograder.export.namespace import NamespaceSubmission
from autograder.export.spec import GradingSpec
from autograder.grade.carry import call_graph
from autograder.judge.compare import Tolerance
from autograder.languages import SOURCE_LANGUAGE
from autograder.scoring import SCORE_DECIMALS, question_fraction

#: Suite results per (namespace id, spec): the namespace is kept alive with them, so its id stays its own.
_CACHE: dict[tuple[int, str], tuple[dict, list[TestResult]]] = {}
#: File descriptors of the process's stdout and stderr.
STD_FDS = (1, 2)


@contextlib.contextmanager
def _fds_to(sink) -> object:
    """Point file descriptors 1 and 2 at ``sink`` (output of C code and of child processes), then back."""
    saved = []
    try:
        for fd in STD_FDS:
            saved.append((fd, os.dup(fd)))
            os.dup2(sink.fileno(), fd)
    except OSError:  # no such descriptor here: nothing to contain at that level
        pass
    try:
        yield
    finally:
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)


@contextlib.contextmanager
def contained():
    """Run a block with warnings silenced and stdout/stderr (Python's and the descriptors) swallowed."""
    buffer = io.StringIO()
    with tempfile.TemporaryFile() as sink, warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        with _fds_to(sink), contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            yield buffer


def hidden_results(namespace: dict, spec: GradingSpec | str) -> list[TestResult]:
    """The results of the assignment's hidden suite on ``namespace`` (run once, then cached).

    Raises
    ------
    GraderError
        When the suite cannot run.
    """
    spec = GradingSpec.from_json(spec) if isinstance(spec, str) else spec
    key = (id(namespace), spec.to_json())
    if key not in _CACHE:
        submission = NamespaceSubmission(namespace, spec.call_timeout_s, spec.submission_timeout_s)
        with contained():
            results = run_suite(suite_files(spec.assignment), submission,
                                Tolerance(spec.rtol, spec.atol), seed=spec.seed, questions=spec.functions,
                                upstream=call_graph(spec.functions))
        _CACHE[key] = (namespace, results)
    return _CACHE[key][1]


def question_score(namespace: dict, function: str, spec: GradingSpec | str) -> float:
    """Points of question ``function``: its points times the weighted share of its hidden tests passed.

    A plain float rounded like ``attn-course grade`` rounds: what an nbgrader grade cell ends with.
    """
    spec = GradingSpec.from_json(spec) if isinstance(spec, str) else spec
    tests = [r for r in hidden_results(namespace, spec) if r.question == function]
    return float(round(spec.points(function) * question_fraction(tests), SCORE_DECIMALS))


def failure_report(result: TestResult, language: str = SOURCE_LANGUAGE) -> str:
    """What a failed hidden test says in ``language``: its message, then one "Likely cause" line per diagnosis."""
    from autograder.report.text import description
    from autograder.i18n import msg, render

    lines = [render(msg("{description}: {message}", description=description(result.description, language),
                        message=result.message), language)]
    lines += [render(msg("Likely cause [{id}]: {hint}", id=d.id, hint=d.hint), language) for d in result.diagnoses]
    return "\n".join(lines)


def hidden_test_problem(namespace: dict, spec: GradingSpec | str, function: str, name: str) -> str | None:
    """None when hidden test ``name`` of question ``function`` passed, else what it says (an otter test case asserts on it).

    Raises
    ------
    GraderError
        When no such test ran (the export and the installed package disagree).
    """
    from autograder.errors import GraderError

    matches = [r for r in hidden_results(namespace, spec) if r.question == function and r.name == name]
    if not matches:
        raise GraderError(f"no hidden test {name!r} of {function} ran: is the installed attn-course the exported one?")
    language = spec.language if isinstance(spec, GradingSpec) else GradingSpec.from_json(spec).language
    return None if matches[0].passed else failure_report(matches[0], language)
