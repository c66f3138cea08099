"""The public checks from inside the notebook: ``check("softmax")`` tests the function as the kernel defines it.

One import cell (``from autograder.check.live import check``), then ``check("softmax")`` after a
graded function, or ``check()`` for all. The module to check is rebuilt from the live kernel
(:func:`~autograder.check.kernel_source.kernel_source`): each graded function the kernel defines, the functions and classes of
the notebook it uses (transitively), the modules and imported names it uses, and the plain
constants it reads. The public checks then run on that module as ``attn-course check`` runs
them, in a portable child process kept between checks (so each check is bounded by the same
call limit, on every OS), and the result is shown as an HTML table in Jupyter, as text
elsewhere. The kernel's objects are never sent to the child: only source text.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from pathlib import Path

from autograder.check.api import CheckReport, check_submission, format_check
from autograder.check.kernel_source import kernel_source
from autograder.check.release import Release, find_release
from autograder.check.runner import CheckRunner
from autograder.errors import GraderError
from autograder.escape import html_text
from autograder.report.text import by_message
from autograder.i18n import msg, render
from autograder.languages import SOURCE_LANGUAGE

@dataclasses.dataclass
class _Session:
    """What stays between checks of one kernel: the release, and the child (kept warm)."""

    release: Release
    runner: CheckRunner


_session: list[_Session] = []
#: What ``check`` says in a notebook opened outside its assignment folder.
NOT_IN_FOLDER = msg("These checks run in the assignment folder (where release.json is): open the notebook from the folder "
                    "you were given, then run this cell again.")


def _current(folder: Path) -> _Session:
    if not _session or _session[0].release.folder != folder.resolve():
        from autograder.check.release import read_manifest

        manifest = read_manifest(folder)
        if manifest is None:
            raise GraderError(render(NOT_IN_FOLDER, SOURCE_LANGUAGE))
        release = find_release(manifest.assignment_id, folder, None, folder)
        _session[:] = [_Session(release, CheckRunner("portable", keep=True))]
    return _session[0]


def check_here(name: str | None = None, namespace: dict | None = None, folder: Path | None = None) -> CheckReport:
    """The public checks of ``name`` (None: every graded function) on the kernel's definitions.

    Raises
    ------
    GraderError
        When the folder is no assignment folder (the message says where to run the notebook).
    """
    session = _current(Path.cwd() if folder is None else Path(folder))
    release = session.release
    assignment = release.course.assignment(release.assignment_id)
    source = kernel_source(vars(sys.modules["__main__"]) if namespace is None else namespace, assignment.functions)
    with tempfile.TemporaryDirectory(prefix="attn-live-") as scratch:
        module = Path(scratch) / assignment.module
        module.write_text(source, encoding="utf-8")
        report = check_submission(release.course, release.assignment_id, module, release=release, runner=session.runner)
    questions = tuple(q for q in report.questions if name is None or q.function == name)
    shown = render(msg("the notebook's {function} (as this kernel defines it)", function=name) if name is not None
                   else msg("the notebook's code (as this kernel defines it)"), release.course.feedback_language)
    return dataclasses.replace(report, questions=questions, path=shown)  # its runner adds no "no sandbox" line


def html_table(report: CheckReport, language: str = "en") -> str:
    """The report as a compact HTML table (every student text escaped)."""
    rows = []
    for q in report.questions:
        passed = bool(q.tests) and not q.failed_tests
        status = render(msg("pass") if passed else msg("FAIL"), language)
        failures = "<br>".join(html_text(render(message, language)) for message in by_message(q.failed_tests))
        rows.append(f"<tr><td>{html_text(status)}</td><td>Q{q.number} <code>{html_text(q.function)}</code></td>"
                    f"<td>{q.score:g}/{q.points:g}</td><td>{failures}</td></tr>")
    extra = "".join(f"<p>{html_text(render(line, language))}</p>" for line in (*report.notes, *report.losses))
    load = f"<p>{html_text(report.load_error)}</p>" if report.load_error else ""
    return f"{load}{extra}<table>{''.join(rows)}</table>"


def check(name: str | None = None) -> None:
    """Run the public checks of ``name`` (or all) on the notebook's live definitions and show the result.

    Never raises for what the student can fix: a notebook opened outside its assignment folder, say, prints what
    to do (the notebook keeps running top to bottom).
    """
    try:
        report = check_here(name)
    except GraderError as error:  # its message says what to do
        print(error)
        return
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:
        get_ipython = None
    language = _session[0].release.course.feedback_language
    if get_ipython is not None and get_ipython() is not None and getattr(get_ipython(), "kernel", None) is not None:
        display(HTML(html_table(report, language)))
    else:
        print(format_check(report, language))
