"""Reading a submission under a deadline where there is no fork (macOS, Windows): in a spawned interpreter.

:func:`~autograder.submission.bounded.read_bounded` forks its reading child on Linux. Elsewhere
the reading is described as a :class:`Reading` (paths, file names and stubs: JSON, no
callable), sent to a new interpreter on its stdin (``python -I -B``), which reads and
parses the submission and answers on its stdout in the forked child's JSON; the grader
never unpickles. Past the deadline the interpreter is killed and the submission is "too
large or too complex to grade", as on Linux. Starting an interpreter costs about 0.1 s,
so only what is not a :func:`~autograder.submission.bounded.small_input` comes here.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from autograder.submission.bounded import answer_of, answer_result, limit_memory, reader_stopped, too_slow
from autograder.submission.locate import ReleaseStubs, SubmissionSource, read_submission

#: Where the ``autograder`` package is imported from, for the child (which ignores PYTHONPATH and the folder).
_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent.parent)
#: No console window for the child of a program that has none (Windows; 0 elsewhere).
_NO_WINDOW = getattr(subprocess, "CREATE_NO_WINDOW", 0)


@dataclass(frozen=True)
class Reading:
    """One submission to read and parse (what the bounded child does), describable to another interpreter.

    Attributes
    ----------
    path : Path
        The submission (file, folder or zip).
    module_file, notebook_file : str
        The assignment's file names.
    functions : tuple of str or None
        Its graded functions.
    stubs : ReleaseStubs
        The release's stubs (to tell untouched files apart).
    exclude : tuple of Path
        Files never picked.
    """

    path: Path
    module_file: str
    notebook_file: str
    functions: tuple[str, ...] | None
    stubs: ReleaseStubs = ReleaseStubs()
    exclude: tuple[Path, ...] = ()

    def __call__(self) -> SubmissionSource:
        """The submission's source, once it is known to parse.

        Raises
        ------
        LoadFailed
            When it cannot be read, or does not parse.
        """
        from autograder.submission.parse import parse_source

        source = read_submission(self.path, self.module_file, self.notebook_file, self.functions, stubs=self.stubs,
                                 exclude=self.exclude)
        parse_source(source.source, source.origin)
        return source

    def to_wire(self) -> dict:
        """As JSON."""
        return {"path": str(self.path), "module_file": self.module_file, "notebook_file": self.notebook_file,
                "functions": None if self.functions is None else list(self.functions),
                "stubs": dataclasses.asdict(self.stubs), "exclude": [str(p) for p in self.exclude]}

    @classmethod
    def from_wire(cls, wire: dict) -> Reading:
        """The reading :meth:`to_wire` described."""
        stubs = {key: tuple(value) if key == "functions" and value is not None else value for key, value in wire["stubs"].items()}
        functions = wire["functions"]
        return cls(Path(wire["path"]), wire["module_file"], wire["notebook_file"], None if functions is None else tuple(functions),
                   ReleaseStubs(**stubs), tuple(Path(p) for p in wire["exclude"]))


def child_command() -> list[str]:
    """The spawned reader: this interpreter, isolated, importing this package from where it is."""
    bootstrap = f"import sys; sys.path.insert(0, {_PACKAGE_PARENT!r}); from autograder.submission.spawned import main; sys.exit(main())"
    return [sys.executable, "-I", "-B", "-c", bootstrap]


def read_spawned(reading: Reading, seconds: float, name: str) -> SubmissionSource:
    """What ``reading()`` returns, computed in a spawned interpreter given ``seconds``; what it raises is raised here.

    Raises
    ------
    LoadFailed
        What the reading raised; or, when the child ran out of time or ended without an answer, why.
    AmbiguousSubmission
        When the reading raised it.
    GraderError
        When the reading failed otherwise (a grader bug), with its error.
    """
    request = json.dumps({"reading": reading.to_wire(), "name": name}).encode("utf-8")
    try:
        done = subprocess.run(child_command(), input=request, capture_output=True, timeout=seconds,
                              creationflags=_NO_WINDOW)
    except subprocess.TimeoutExpired:  # run() has killed and reaped it
        raise too_slow(name, seconds) from None
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        answer = None
    if done.returncode != 0 or not isinstance(answer, dict):
        code = done.returncode
        raise reader_stopped(name, f"signal {-code}" if code < 0 else f"exit status {code}")
    return answer_result(answer)


def main() -> int:
    """In the child: read the request on stdin, write the answer on stdout."""
    request = json.loads(sys.stdin.buffer.read())
    limit_memory()
    answer = answer_of(Reading.from_wire(request["reading"]), str(request["name"]))
    sys.stdout.buffer.write(json.dumps(answer).encode("ascii"))
    sys.stdout.flush()
    return 0
