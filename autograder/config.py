"""The course configuration: one schema for ``course.yml``, loaded once.

Every key has a description, a default (where one makes sense) and a validator.
A bad file raises :class:`ConfigError` naming the key and the line.
"""

from __future__ import annotations

import datetime as dt
import keyword
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from autograder.errors import ConfigError  # noqa: F401 - raised here, and imported from here by callers
from autograder.languages import KNOWN_LANGUAGES, SOURCE_LANGUAGE

#: course.yml at the project root, used when no other path is given.
DEFAULT_COURSE_FILE = Path(__file__).resolve().parent.parent / "course.yml"
#: PyYAML's safe loader, in C when libyaml is there (the same documents, several times faster).
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
#: A field's ``json_schema_extra`` key for the default ``attn-course config`` shows, when it is computed.
SHOWN_DEFAULT = "shown_default"
#: A language code course.yml accepts (see autograder/languages.py).
Language = Literal[tuple(KNOWN_LANGUAGES)]  # type: ignore[valid-type]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CourseInfo(_Strict):
    name: str = Field(description="Course name shown in reports and notebooks.", min_length=1)
    term: str = Field(description="Term the course runs in, e.g. 'Spring 2027'.", min_length=1)


class Defaults(_Strict):
    call_timeout_s: float = Field(5.0, gt=0, le=600, description="Wall-clock seconds for one call into student code.")
    submission_timeout_s: float = Field(60.0, gt=0, le=3600, description="Wall-clock seconds for grading one whole submission.")
    cpu_time_s: int = Field(30, gt=0, le=3600, description="CPU seconds a sandboxed worker may use (RLIMIT_CPU).")
    memory_mb: int = Field(
        256, ge=128, le=65536,
        description="Address space of each process of a submission in MiB (RLIMIT_AS). Without a cgroup of the grader's "
        "own, a submission can hold max_processes x memory_mb in all, plus its /tmp; with one, memory_mb in all.",
    )
    max_processes: int = Field(
        4, ge=1, le=4096,
        description="Processes (and threads) a submission may have at once, the worker included (RLIMIT_NPROC; pids.max "
        "in a cgroup of the grader's own).",
    )
    max_file_size_mb: int = Field(
        16, ge=0, le=4096, description="Largest file a worker may write, in MiB (RLIMIT_FSIZE); also the size of its /tmp."
    )
    tmp_max_files: int = Field(
        1000, ge=16, le=1_000_000,
        description="Files and folders a worker's /tmp may hold (its tmpfs's nr_inodes): empty folders cost no bytes "
        "but kernel memory.",
    )
    output_limit_kb: int = Field(32, ge=1, le=10240, description="Captured student stdout/stderr kept per submission, in KiB.")
    rtol: float = Field(1e-5, ge=0, lt=1, description="Relative tolerance when comparing with the reference.")
    atol: float = Field(1e-8, ge=0, lt=1, description="Absolute tolerance when comparing with the reference.")
    allowed_imports: tuple[str, ...] = Field(
        ("numpy", "math", "typing", "functools", "itertools", "__future__", "dataclasses"),
        description="Top-level modules a submission may import; others are reported and penalised.",
    )
    disallowed_import_penalty: float = Field(
        0.5, ge=0, le=1, description="Fraction of the score removed when a disallowed import is found."
    )
    sandbox: Literal["bwrap", "none"] = Field(
        "bwrap",
        description="How student code is isolated: 'bwrap' (bubblewrap; without it the grader refuses to grade) or "
        "'none' (no sandbox: unsafe for untrusted code, meant for a container holding one submission, such as "
        "Gradescope's; class folders are refused). The --sandbox option and ATTN_SANDBOX override it.",
    )

    @field_validator("allowed_imports")
    @classmethod
    def _module_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        bad = [n for n in names if not n.isidentifier() or keyword.iskeyword(n)]
        if bad:
            raise ValueError(f"not module names: {bad}")
        return names


class LatePolicy(_Strict):
    grace_period_minutes: int = Field(15, ge=0, description="Minutes after the due date that still count as on time.")
    penalty_per_day: float = Field(0.1, ge=0, le=1, description="Fraction of the score removed per started day late.")
    max_days_late: int = Field(5, ge=0, description="Days late after which the score is 0.")


class GradescopeSettings(_Strict):
    hidden_test_visibility: Literal["hidden", "after_due_date", "after_published", "visible"] = Field(
        "after_due_date",
        description="When students see each question's hidden-test detail (score and feedback) on Gradescope: the "
        "visibility the Gradescope export's run_autograder gives every test of results.json (hidden, after_due_date, "
        "after_published or visible).",
    )


class Question(_Strict):
    function: str = Field(description="Name of the graded function in the student module.")
    points: float = Field(gt=0, description="Points the question is worth.")

    @field_validator("function")
    @classmethod
    def _identifier(cls, name: str) -> str:
        if not name.isidentifier():
            raise ValueError(f"{name!r} is not a Python function name")
        return name


class Assignment(_Strict):
    id: str = Field(description="Stable id: lower case, digits and underscores, e.g. hw1_basics.")
    title: str = Field(description="Title shown to students.", min_length=1)
    module: str = Field(description="File name of the student module, e.g. scaled_attention.py.")
    notebook: str = Field(description="File name of the student notebook, e.g. scaled_attention.ipynb.")
    due: dt.datetime = Field(description="Due date with time zone (ISO 8601).")
    questions: tuple[Question, ...] = Field(min_length=1, description="Graded functions, in the order students meet them.")
    titles: dict[Language, str] = Field(
        default_factory=dict,
        description="The title in other languages, by language code (e.g. {zh: 缩放点积注意力}); a language "
        "without one shows `title`.",
    )
    release: dt.datetime | None = Field(None, description="With feedback_release: held, when the feedback is published "
                                        "by `attn-course gradebook --feedback` itself (time zone required).")

    @field_validator("titles")
    @classmethod
    def _translated_titles(cls, titles: dict[str, str]) -> dict[str, str]:
        if SOURCE_LANGUAGE in titles:
            raise ValueError(f"`title` is the {SOURCE_LANGUAGE} title; list only other languages here")
        empty = sorted(code for code, text in titles.items() if not text.strip())
        if empty:
            raise ValueError(f"empty titles for {empty}")
        return titles

    @field_validator("id")
    @classmethod
    def _id_form(cls, value: str) -> str:
        if not _ID_PATTERN.match(value):
            raise ValueError("must be lower case letters, digits and underscores, starting with a letter")
        return value

    @field_validator("module")
    @classmethod
    def _module_form(cls, value: str) -> str:
        if not value.endswith(".py") or not value[:-3].isidentifier():
            raise ValueError("must be an importable file name ending in .py")
        return value

    @field_validator("notebook")
    @classmethod
    def _notebook_form(cls, value: str) -> str:
        if not value.endswith(".ipynb") or "/" in value:
            raise ValueError("must be a file name ending in .ipynb")
        return value

    @field_validator("due", "release")
    @classmethod
    def _aware(cls, value: dt.datetime | None) -> dt.datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("needs a time zone, e.g. 2027-03-08T23:59:00+08:00")
        return value

    @model_validator(mode="after")
    def _unique_functions(self) -> "Assignment":
        names = [q.function for q in self.questions]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise ValueError(f"questions repeat functions: {duplicated}")
        return self

    @property
    def module_name(self) -> str:
        """The importable name of the student module."""
        return self.module[: -len(".py")]

    @property
    def functions(self) -> tuple[str, ...]:
        """The graded functions, in question order."""
        return tuple(q.function for q in self.questions)

    @property
    def max_points(self) -> float:
        return sum(q.points for q in self.questions)

    def question_number(self, function: str) -> int:
        """1-based position of ``function`` among the questions."""
        return [q.function for q in self.questions].index(function) + 1

    def title_in(self, language: str) -> str:
        """The title shown in ``language``: its translation when there is one, else ``title``."""
        return self.titles.get(language, self.title)


class Course(_Strict):
    course: CourseInfo = Field(description="Who and when.")
    defaults: Defaults = Field(default_factory=Defaults, description="Grading limits, tolerances and import policy.")
    late_policy: LatePolicy = Field(default_factory=LatePolicy, description="How late submissions are penalised.")
    gradescope: GradescopeSettings = Field(default_factory=GradescopeSettings, description="How the Gradescope export shows results.")
    assignments: tuple[Assignment, ...] = Field(min_length=1, description="The assignments, each with its questions.")
    languages: tuple[Language, ...] = Field(
        (SOURCE_LANGUAGE,), min_length=1,
        description="Languages the releases are built in (en, zh), without repeats. The first names its files "
        "plainly (scaled_attention.ipynb, README.md); the others carry their code (scaled_attention.zh.ipynb).",
    )
    feedback_language: Language | None = Field(
        None,
        description="Language of feedback when a command is given no --lang; one of `languages` "
        "(default: the first of them).",
        json_schema_extra={SHOWN_DEFAULT: "(the first of languages)"},
    )
    _file: Path | None = PrivateAttr(default=None)

    @property
    def layout(self):
        """Every path of this course, a :class:`~autograder.layout.CourseDirectory` (this project's course
        when it was not read from a file)."""
        from autograder.layout import CourseDirectory

        return CourseDirectory.of(self._file)

    roster: str | None = Field(None, description="The class list, a CSV file beside course.yml: id, name, email, sis_id, "
                               "section (autograder/gradebook/roster.py); each student gets a row per assignment.")
    feedback_release: Literal["immediate", "held"] = Field(
        "immediate", description="held: `gradebook --feedback` writes feedback to a held folder beside the one named, "
        "published by `attn-course gradebook release` or from the assignment's release date (autograder/gradebook/release.py).")
    extensions: str | None = Field(None, description="Per-student due dates, a CSV file beside course.yml: student, assignment "
                                   "(or *), due or extra_days, reason (autograder/gradebook/extensions.py).")

    @field_validator("roster", "extensions")
    @classmethod
    def _class_file(cls, value: str | None) -> str | None:
        parts = value.split("/") if value else []
        if value is not None and (value.startswith("/") or "\\" in value or ".." in parts or not all(parts)
                                  or not value.endswith(".csv")):
            raise ValueError("must be a .csv file in the course folder, named relative to course.yml (e.g. roster.csv)")
        return value

    @field_validator("languages")
    @classmethod
    def _no_repeated_language(cls, codes: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({code for code in codes if codes.count(code) > 1})
        if repeated:
            raise ValueError(f"languages repeat: {repeated}")
        return codes

    @model_validator(mode="before")
    @classmethod
    def _default_feedback_language(cls, data: Any) -> Any:
        """Feedback defaults to the first language of the course."""
        if isinstance(data, dict) and data.get("feedback_language") is None:
            languages = data.get("languages", (SOURCE_LANGUAGE,))
            if isinstance(languages, (list, tuple)) and languages:
                data = {**data, "feedback_language": languages[0]}
        return data

    @model_validator(mode="after")
    def _feedback_in_languages(self) -> "Course":
        if self.feedback_language not in self.languages:
            raise ValueError(f"feedback_language {self.feedback_language!r} is not one of languages {list(self.languages)}")
        return self

    @model_validator(mode="after")
    def _unique_ids(self) -> "Course":
        ids = [a.id for a in self.assignments]
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        if duplicated:
            raise ValueError(f"assignment ids repeat: {duplicated}")
        return self

    def assignment(self, assignment_id: str) -> Assignment:
        """The assignment with this id.

        Raises
        ------
        ConfigError
            When there is none, listing the ids there are.
        """
        for assignment in self.assignments:
            if assignment.id == assignment_id:
                return assignment
        known = ", ".join(a.id for a in self.assignments)
        raise ConfigError(f"no assignment {assignment_id!r} in course.yml (known: {known})")

    def feedback_language_for(self, requested: str | None = None) -> str:
        """The language of feedback: ``requested`` (a command's ``--lang``) or ``feedback_language``.

        Raises
        ------
        ConfigError
            When ``requested`` is not one of the course's ``languages``.
        """
        if requested is None:
            return self.feedback_language
        if requested not in self.languages:
            raise ConfigError(f"--lang {requested}: the course ships {', '.join(self.languages)} (course.yml: languages)")
        return requested


def _line_of(node: yaml.Node | None, loc: tuple) -> int | None:
    """1-based line of the YAML node at pydantic location ``loc`` (nearest existing parent)."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = [v for k, v in node.value if k.value == part]
            if not match:
                key = [k for k, _ in node.value if k.value == part]
                return key[0].start_mark.line + 1 if key else line
            node = match[0]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            break
        line = node.start_mark.line + 1
    return line


def parse_course(text: str, source: str = "course.yml") -> Course:
    """Validate the text of a course file.

    Raises
    ------
    ConfigError
        One line per problem: ``source:line: key.path: message``.
    """
    try:
        data: Any = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as error:
        raise ConfigError(f"{source}: not valid YAML: {error}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of keys at the top level")
    problems = [(loc, message) for loc, message in _repeated_ids(data)]
    try:
        course = Course.model_validate(data)
    except ValidationError as error:
        problems += [(item["loc"], item["msg"]) for item in _meaningful(error.errors())]
    else:
        if not problems:
            return course
    root = yaml.compose(text, Loader=yaml.SafeLoader)  # the node tree knows the lines; only errors need it
    lines = [f"{source}:{_line_of(root, loc)}: {'.'.join(map(str, loc)) or '(top level)'}: {message}" for loc, message in problems]
    raise ConfigError("\n".join(lines))


def _repeated_ids(data: dict) -> list[tuple[tuple, str]]:
    """(location, message) for every assignment id that an earlier assignment already uses."""
    assignments = data.get("assignments")
    if not isinstance(assignments, list):
        return []
    seen: set = set()
    problems = []
    for index, item in enumerate(assignments):
        identifier = item.get("id") if isinstance(item, dict) else None
        if identifier in seen:
            problems.append((("assignments", index, "id"), f"assignment id {identifier!r} is used twice"))
        seen.add(identifier)
    return problems


def _meaningful(errors: list[dict]) -> list[dict]:
    """Drop pydantic's "too short" complaint about a list whose items themselves failed."""
    failed_items = {tuple(e["loc"][:-1]) for e in errors if len(e["loc"]) > 1 and isinstance(e["loc"][-1], int)}
    failed_parents = {tuple(e["loc"][:i]) for e in errors for i in range(1, len(e["loc"]))}
    return [e for e in errors if not (e["type"] == "too_short" and tuple(e["loc"]) in failed_parents | failed_items)]


@lru_cache(maxsize=None)
def load_course(path: Path | str = DEFAULT_COURSE_FILE) -> Course:
    """Read and validate course.yml once per path.

    Raises
    ------
    ConfigError
        When the file is missing or invalid.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    course = parse_course(text, source=str(path))
    course._file = path.resolve()
    return course
