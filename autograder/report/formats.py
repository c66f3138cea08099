"""The report formats: one registry, held as data, whose renderers are imported when used.

The command line's ``--format`` choices, the gradebook's feedback files and the exports
all derive from :data:`FORMATS`. A format names its renderer (``module:function``, a pure
function of a :class:`~autograder.grade.result.GradeResult`) instead of holding it, so
reading the registry (for ``--help``, or to parse ``--format``) imports no renderer.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Format:
    """A way to render a result: its name on the command line, what it is, and the file it goes to.

    Attributes
    ----------
    name : str
        ``--format`` value.
    renderer : str
        ``"module:function"``; ``function(result, language) -> str``: students' text in
        ``language`` (the JSON record stays English).
    description : str
        One line for ``--help``.
    feedback_file : str or None
        The file name it has in a student's feedback folder, when students receive it
        (None: for the instructor only, e.g. it holds the seed).
    """

    name: str
    renderer: str
    description: str
    feedback_file: str | None = None

    @property
    def render(self) -> Callable[..., str]:
        """The render function (its module imported on first use)."""
        module, function = self.renderer.split(":")
        return getattr(importlib.import_module(module), function)


_REPORT = "autograder.report.text"
#: Every report format, by name: the CLI's choices, the gradebook's feedback files and the exports derive from it.
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", f"{_REPORT}:to_text", "a readable report, one block per question", "feedback.txt"),
        Format("json", f"{_REPORT}:to_json", "every field of the result (the instructor's record, with the run's seed)"),
        Format("gradescope", f"{_REPORT}:to_gradescope", "Gradescope's results.json", "results.json"),
        Format("junit", f"{_REPORT}:to_junit", "JUnit XML, one testcase per test (for CI dashboards)"),
        Format("html", "autograder.report.html:to_html",
               "one self-contained HTML page with pictures, readable on a phone", "feedback.html"),
    )
}
