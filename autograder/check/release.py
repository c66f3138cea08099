"""Which release ``check`` runs: the student's own assignment folder, or the course's ``assignments/<id>/``.

A student has only the assignment folder (and the kit, see :mod:`autograder.kit`). The
build writes a manifest into every release, :data:`MANIFEST`: the assignment's settings
(course.yml restricted to that assignment) and digests of the stubs as handed out, so the
folder is self-describing and a file the student changed is told from one left untouched
even though the student works in the very folder the stubs came in.

``check`` looks for the manifest in the submission's folder, then in the current folder;
without one it falls back to the course file and its ``assignments/`` (the instructor's
checkout).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from autograder.config import Course, load_course
from autograder.errors import ConfigError, GraderError
from autograder.i18n import Message, msg, render
from autograder.submission.locate import ReleaseStubs, notebook_code_digest, release_stubs, stub_digest

#: The release's manifest file.
MANIFEST = "release.json"
#: Version of the manifest's layout.
MANIFEST_FORMAT = 1
#: Files every release holds beside its manifest: a folder with them but no manifest lost its manifest.
RELEASE_SUPPORT_FILES = ("checklib.py", "conftest.py", "public_cases.npz")


class CannotCheck(GraderError):
    """``check`` cannot run here (a set-up problem, not a failed check); the message names what to do.

    Attributes
    ----------
    student_message : Message
        The catalog message (``str(error)`` is its English).
    """

    def __init__(self, student_message: Message):
        super().__init__(render(student_message, "en"))
        self.student_message = student_message


@dataclass(frozen=True)
class Release:
    """A release folder ``check`` runs the public checks of, and what it knows about the assignment.

    Attributes
    ----------
    folder : Path
        The folder holding the public tests and cases.
    course : Course
        The settings in effect (the manifest's, or the course file's).
    assignment_id : str
    stubs : ReleaseStubs
        The stubs as handed out, to tell untouched files from changed ones.
    """

    folder: Path
    course: Course
    assignment_id: str
    stubs: ReleaseStubs


def manifest_data(course: Course, assignment_id: str, stub_module: str, stub_notebook_code: str) -> dict:
    """The manifest of one release: its assignment's settings and its stubs' digests (plain JSON data)."""
    assignment = course.assignment(assignment_id)
    settings = course.model_dump(mode="json")
    settings["assignments"] = [assignment.model_dump(mode="json")]
    return {
        "format": MANIFEST_FORMAT,
        "assignment": assignment.id,
        "course": settings,
        "stubs": {"module": stub_digest(stub_module), "notebook_code": notebook_code_digest(stub_notebook_code)},
    }


def manifest_text(data: dict) -> str:
    """The manifest as the file holds it (stable: sorted keys, one trailing newline)."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def read_manifest(folder: Path) -> Release | None:
    """The release a folder's manifest describes, or None when the folder has none.

    Raises
    ------
    ConfigError
        When the manifest is unreadable or does not describe a valid assignment.
    """
    path = folder / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        course = Course.model_validate(data["course"])
        assignment = course.assignment(data["assignment"])
        digests = data["stubs"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"{path} is not a release manifest ({error}); download the assignment folder again "
                          f"and copy {MANIFEST} from it into this folder") from None
    stubs = ReleaseStubs(functions=assignment.functions, module_digest=digests.get("module"),
                         notebook_code_digest=digests.get("notebook_code"))
    return Release(folder, course, assignment.id, stubs)


def _folders_to_search(path: Path, cwd: Path) -> list[Path]:
    own = path if path.is_dir() else path.parent
    return list(dict.fromkeys(p.resolve() for p in (own, cwd)))


def find_release(assignment_id: str, path: Path, course_file: Path | None, releases_dir: Path,
                 cwd: Path | None = None) -> Release:
    """The release whose public checks ``check`` runs on the submission at ``path``.

    Parameters
    ----------
    assignment_id : str
    path : Path
        The submission (a file or a folder).
    course_file : Path or None
        The course file given on the command line, if any: its settings win over a manifest's.
    releases_dir : Path
        Where the course keeps its releases (``assignments/`` beside its course file).
    cwd : Path, optional
        The current folder (default: the process's).

    Raises
    ------
    GraderError
        When no release of the assignment can be found, or the folder is another assignment's.
    """
    for folder in _folders_to_search(Path(path), Path.cwd() if cwd is None else cwd):
        release = read_manifest(folder)
        if release is None:
            continue
        if release.assignment_id != assignment_id:
            raise CannotCheck(msg("{folder} holds {found}, not {asked}: run `attn-course check {found}` there",
                                  folder=str(folder), found=release.assignment_id, asked=assignment_id))
        course = load_course(course_file) if course_file is not None else release.course
        return Release(folder, course, assignment_id, release.stubs)
    return _course_release(assignment_id, course_file, releases_dir,
                           _folders_to_search(Path(path), Path.cwd() if cwd is None else cwd))


def _course_release(assignment_id: str, course_file: Path | None, releases_dir: Path, searched: list[Path]) -> Release:
    """The release in the course's ``assignments/`` folder (the instructor's checkout).

    Raises
    ------
    CannotCheck
        Where there is no course file (a student's machine): saying whether a searched folder is an
        assignment folder that lost its manifest.
    """
    from autograder.config import DEFAULT_COURSE_FILE

    course_path = course_file if course_file is not None else DEFAULT_COURSE_FILE
    if course_file is None and not course_path.is_file():
        lost = [folder for folder in searched if all((folder / name).is_file() for name in RELEASE_SUPPORT_FILES)]
        if lost:
            raise CannotCheck(msg("{folder} is an assignment folder without its {manifest}: download the assignment "
                                  "folder again and copy {manifest} from it into this folder", folder=str(lost[0]),
                                  manifest=MANIFEST))
        raise CannotCheck(msg("no release of {assignment} here: run `attn-course check {assignment}` inside your "
                              "assignment folder (the one holding {manifest}), or give the submission's path",
                              assignment=assignment_id, manifest=MANIFEST))
    return course_release(load_course(course_path), assignment_id, releases_dir)


def course_release(course: Course, assignment_id: str, releases_dir: Path) -> Release:
    """The release of ``assignment_id`` in ``releases_dir`` (its stubs from its manifest, else from its files)."""
    assignment = course.assignment(assignment_id)
    folder = releases_dir / assignment.id
    manifest = read_manifest(folder)
    stubs = manifest.stubs if manifest is not None else release_stubs(
        folder, assignment.module, assignment.notebook, assignment.functions)
    return Release(folder, course, assignment.id, stubs)
