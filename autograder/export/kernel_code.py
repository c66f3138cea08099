"""What an in-kernel export carries: the checker's source, each question's data and the messages.

:func:`question_data` packs one question of :mod:`autograder.export.recorded` with what the checker
(:mod:`autograder.export.kernel_check`) needs besides: the course's tolerances, limits and import
policy (``allowed_imports``, ``disallowed_import_penalty``), the messages rendered in the feedback
language, and the sources of the grader's notebook extractor and import policy, which the checker
runs in the kernel so that the policy is the grader's to the letter. :func:`checker_source` is the
checker itself; :func:`bootstrap` is the code a cell or test file runs to load it, with no
``attn-course`` installed.
"""

from __future__ import annotations

import base64
import zlib
from pathlib import Path

from autograder.config import Course
from autograder.errors import GraderError
from autograder.export.recorded import RecordedTest, pack
from autograder.export.spec import GradingSpec
from autograder.i18n import msg, render

PACKAGE = Path(__file__).resolve().parent.parent
#: The grader's modules the checker runs in the kernel, and the imports of the package each has, made local.
POLICY_SOURCES = {
    "notebook_code": ("submission/notebook_code.py", {}),
    "reach": ("grade/reach.py", {}),
    "static_check": ("grade/static_check.py", {
        "from autograder.i18n import N_\n": "N_ = str\n",
        "from autograder.submission.parse import parse_source  # noqa: F401 - re-exported: callers import it from here\n": "",
        "from autograder.grade.reach import reached_modules": "from _attn_kernel_reach import reached_modules",
    }),
}


def policy_sources() -> dict[str, str]:
    """The sources of the extractor and the policy, their imports of ``autograder`` made local.

    Raises
    ------
    GraderError
        When a module no longer has the import this export replaces (the modules changed).
    """
    sources = {}
    for name, (relative, replacements) in POLICY_SOURCES.items():
        text = (PACKAGE / relative).read_text(encoding="utf-8")
        for old, new in replacements.items():
            if old not in text:
                raise GraderError(f"autograder/{relative} no longer has {old.strip()!r}: update autograder/export/kernel_code.py")
            text = text.replace(old, new)
        if "from autograder" in text or "import autograder" in text:
            raise GraderError(f"autograder/{relative} imports autograder: it cannot run in the student's kernel")
        sources[name] = text
    return sources


def checker_source() -> str:
    """The source of :mod:`autograder.export.kernel_check`, which the exports embed."""
    return (PACKAGE / "export" / "kernel_check.py").read_text(encoding="utf-8")


def blob(text: str) -> str:
    """``text`` as base64 of its zlib compression (what the bootstrap unpacks)."""
    return base64.b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii")


def bootstrap(variable: str) -> str:
    """Lines that load the checker into the dict ``variable`` (standard library and numpy only)."""
    return "\n".join([
        "import base64 as _attn_b64, zlib as _attn_zlib",
        f"{variable} = {{'__name__': '_attn_kernel_check'}}",
        f"exec(_attn_zlib.decompress(_attn_b64.b64decode({blob(checker_source())!r})).decode(), {variable})",
    ])


def kernel_messages(function: str, language: str) -> dict[str, str]:
    """The checker's messages in ``language``, their placeholders kept for the kernel to fill."""
    from autograder.diagnose.properties import _documented

    keep = {name: "{" + name + "}" for name in ("name", "error", "expected", "got", "argument", "function", "seconds",
                                                "value", "count")}
    messages = {
        "missing": msg("the module does not define {name}()", name=keep["name"]),
        "stub": msg("{name}() is not implemented yet (NotImplementedError{detail})", name=keep["name"], detail=""),
        "timeout": msg("{function}() did not finish within {seconds} s", function=keep["function"], seconds=keep["seconds"]),
        "budget": msg("{function}() was not run again: it ran out of time on an earlier test", function=keep["function"]),
        "raised": msg("{name}() raised {error}", name=keep["name"], error=keep["error"]),
        "modified": msg("the call changed its argument {argument} in place", argument=keep["argument"]),
        "list": msg("it returned a Python list instead of {documented}", documented=_documented(function)),
        "dtype": msg("it returned {got} where {expected} is documented", got=keep["got"], expected=keep["expected"]),
        "structure": msg("{name} returned {got} value(s) where {expected} are documented", name=function, got=keep["got"],
                         expected=keep["expected"]),
        "not_array": msg("{name} is not an array", name=function),
        "kind": msg("{name} has dtype {dtype}; expected a real floating-point array", name=function, dtype=keep["got"]),
        "shape": msg("{name} has shape {got}; expected {expected}", name=function, got=keep["got"], expected=keep["expected"]),
        "values": msg("{name} differs from the expected result beyond the course's tolerance", name=function),
        "estimate_size": msg("{function} should return {names}, one number each", function=function, names=keep["count"]),
        "estimate": msg("the estimate should be within sampling error of {expected} (the estimate drawn from the same "
                        "generator), got {got}", expected=keep["expected"], got=keep["got"]),
        "constant": msg("{what} is the same ({value}) for {count} different generators: it must be drawn from the generator "
                        "it is given", what=function, value=keep["value"], count="2"),
        "policy": msg("this share of the test is lost to the course's import policy (a disallowed import, or code the "
                      "import check cannot read)"),
    }
    return {key: render(text, language) for key, text in messages.items()}


def question_data(course: Course, spec: GradingSpec, function: str, tests: list[RecordedTest]) -> str:
    """One question's packed data: its tests as recorded, the course's rules and the policy's sources."""
    defaults = course.defaults
    return pack({
        "function": function, "points": spec.points(function), "functions": list(spec.functions),
        "tests": [test.to_data() for test in tests], "messages": kernel_messages(function, spec.language),
        "call_timeout_s": spec.call_timeout_s, "submission_timeout_s": spec.submission_timeout_s,
        "allowed": list(defaults.allowed_imports), "penalty": defaults.disallowed_import_penalty,
        "sources": policy_sources(),
    })


def packed_questions(course: Course, spec: GradingSpec, tests_dir: Path) -> dict[str, str]:
    """Each question of ``spec.assignment``, recorded at ``spec.seed`` and packed (:func:`question_data`).

    Raises
    ------
    GraderError
        When the hidden suite cannot be recorded.
    """
    from autograder.export.recorded import record_questions

    recorded = record_questions(spec, tests_dir)
    return {function: question_data(course, spec, function, tests) for function, tests in recorded.items()}
