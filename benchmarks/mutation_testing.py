"""Mutation testing of the modules a grade depends on, with mutmut, in a temporary copy.

Run: ``.venv/bin/python benchmarks/mutation_testing.py [--module NAME ...] [--keep]``

The project's files (git-tracked and untracked-but-not-ignored ones, no ``.venv``) are
copied to a temporary directory, and ``mutmut run`` (the ``mutation`` extra of
pyproject.toml; installed into the running interpreter when missing) mutates the modules
below there, never in the checkout. Each module is tested by the fast test files that
exercise it (found with grep; nothing marked ``slow``). Printed, per module: mutants,
killed (a timeout counts as killed), survived, equivalent (listed in
:data:`KNOWN_EQUIVALENT`), the score killed / (mutants - equivalent), and every survivor
as ``file:line  function  `original` -> `mutant```; then the overall score. Survivors
whose status is not plain "survived" (e.g. "no tests") say so.

``--module`` (repeatable) restricts the run to some modules; ``--keep`` keeps the
temporary copy (``mutmut browse`` or ``mutmut show <name>`` there show a mutant). The exit
status is 1 when the overall score is below :data:`SCORE_TARGET`, 2 when mutmut fails.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
#: The overall score below which the exit status is 1 (the issue's target).
SCORE_TARGET = 0.90
#: The pyproject.toml extra that pins the tool.
TOOL_EXTRA = "mutation"
#: Packages the tests import from the project root; mutmut copies them, mutating only MODULES.
SOURCE_PACKAGES = ("autograder", "attn_reference")
#: Project files the tests read besides the packages (paths relative to the root).
ALSO_COPY = ("solutions", "assignments", "course.yml", "hidden_tests", "mistakes", "tests")
#: Arguments of every pytest run mutmut starts.
PYTEST_ARGS = ("-p", "no:cacheprovider", "-m", "not slow")
#: mutmut statuses that count as killed.
DETECTED = ("killed", "timeout", "caught by type check")
#: Lines of mutmut's log shown when it fails.
LOG_TAIL_LINES = 40
#: Digits of the printed scores.
SCORE_DIGITS = 3
EXIT_BELOW_TARGET = 1
EXIT_TOOL_FAILED = 2

TESTS = "tests/autograder"
#: Module name -> (source file, the fast test files that exercise it).
MODULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "compare": ("autograder/judge/compare.py", (f"{TESTS}/grade/test_compare.py", f"{TESTS}/grade/test_expect.py")),
    "messages": ("autograder/judge/messages.py", (f"{TESTS}/grade/test_expect.py", f"{TESTS}/grade/test_messages.py")),
    "scoring": ("autograder/scoring.py", (f"{TESTS}/test_scoring.py",)),
    "late": ("autograder/grade/late.py", (f"{TESTS}/grade/test_late.py",)),
    "static_check": ("autograder/grade/static_check.py", (f"{TESTS}/grade/test_static_check.py",)),
    "store": ("autograder/gradebook/store.py", (f"{TESTS}/gradebook/test_store.py",)),
    "leaks": ("autograder/build/leaks.py", (f"{TESTS}/build/test_release.py", f"{TESTS}/build/test_leaks.py")),
}


@dataclass(frozen=True)
class Survivor:
    """A mutant the tests did not kill."""

    name: str
    status: str
    location: str = "?"
    function: str = "?"
    original: str = ""
    mutated: str = ""


def change(before: str, after: str | None = None) -> Callable[[str, str], bool]:
    """A mutation confined to one occurrence of ``before`` (turned into ``after``, or anything when None)."""

    def matches(original: str, mutated: str) -> bool:
        start = original.find(before)
        while start >= 0:
            prefix, suffix = original[:start], original[start + len(before):]
            inside = mutated[len(prefix):len(mutated) - len(suffix)]
            if (
                len(mutated) >= len(prefix) + len(suffix) and mutated.startswith(prefix) and mutated.endswith(suffix)
                and (after is None or inside == after)
            ):
                return True
            start = original.find(before, start + 1)
        return False

    return matches


#: What marks a line as (part of) an SQL statement.
SQL_KEYWORD = re.compile(r"\b(PRAGMA|SELECT|INSERT|BEGIN|COMMIT|ROLLBACK|AND)\b")
#: A quoted value a statement (or Python) compares with (``= 'graded'``, ``== "ok"``): its case matters.
SQL_VALUE = re.compile(r"==?\s*('[^']*'|\"[^\"]*\")")


def sql_case_only(original: str, mutated: str) -> bool:
    """An SQL line of which only the letter case of keywords, identifiers or pragma values changed."""
    return (
        SQL_KEYWORD.search(original) is not None
        and original.lower() == mutated.lower()
        and SQL_VALUE.findall(original) == SQL_VALUE.findall(mutated)
    )


#: (module, function or "*", the mutation, why it cannot change anything observable). Keep it short.
KNOWN_EQUIVALENT: tuple[tuple[str, str, Callable[[str, str], bool], str], ...] = (
    ("*", "*", change("astype(np.float64)", "astype(None)"), "numpy's astype(None) converts to float64 too"),
    ("compare", "numeric", change('"biuf"', '"XXbiufXX"'), "no dtype kind is X"),
    ("compare", "part_difference", change('all="ignore"'), "astype and isfinite on real or boolean arrays never warn"),
    ("messages", "_non_finite", change('all="ignore"'), "astype and isfinite on real or boolean arrays never warn"),
    ("static_check", "parse_source", change("filename=filename", ""), "ast.parse's filename only reaches SyntaxError.filename, unused"),
    ("store", "*", sql_case_only, "SQLite keywords, identifiers and pragma values are case-insensitive"),
    (
        "store", "Gradebook.__init__", change("timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None"),
        "the PRAGMA below sets busy_timeout again, and record() begins and commits its transaction explicitly",
    ),
    (
        "store", "Gradebook._add_new_columns", change("row[1]", "row[2]"),
        "a column wrongly thought missing is added again, and that duplicate-column error is ignored",
    ),
    (
        "leaks", "_readable_lines", change('"".join(c.get("source", "")) if isinstance(c.get("source"), list)'),
        'a str source joins to itself and a missing one is not a list: the join default is never used',
    ),
    ("leaks", "_read_all", change('"utf-8"', '"UTF-8"'), "codec names are case-insensitive"),
    ("leaks", "course_forbidden_lines", change("SOLUTIONS_DIR, ", "None, "), "project_forbidden_lines does not use solutions_dir"),
)


def equivalence(module: str, survivor: Survivor) -> int | None:
    """Index in :data:`KNOWN_EQUIVALENT` of the rule the survivor matches, or None."""
    for index, (rule_module, function, matches, _) in enumerate(KNOWN_EQUIVALENT):
        if rule_module in ("*", module) and function in ("*", survivor.function) and matches(survivor.original, survivor.mutated):
            return index
    return None


@dataclass
class ModuleResult:
    """mutmut's outcome for one module."""

    name: str
    path: str
    mutants: int = 0
    killed: int = 0
    survivors: list[Survivor] = field(default_factory=list)
    equivalent: list[tuple[Survivor, int]] = field(default_factory=list)  # with the index of the rule

    @property
    def score(self) -> float:
        counted = self.mutants - len(self.equivalent)
        return self.killed / counted if counted else 1.0


def project_files(root: Path) -> list[str]:
    """The files to copy: git-tracked plus untracked-but-not-ignored, that exist."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout.split("\0")
    return [name for name in listed if name and (root / name).is_file()]


def copy_project(root: Path, destination: Path) -> None:
    """Copy the project's files (no ``.venv``, no caches) into ``destination``."""
    for name in project_files(root):
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)


def tool_requirements(root: Path) -> list[str]:
    """The requirements of the :data:`TOOL_EXTRA` extra of pyproject.toml."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["optional-dependencies"][TOOL_EXTRA]


def ensure_tool(root: Path) -> None:
    """Install the pinned tool into the running interpreter's environment when it is missing or differs."""
    wanted = tool_requirements(root)
    pinned = dict(r.split("==", 1) for r in wanted if "==" in r)
    try:
        installed = {name: metadata.version(name) for name in pinned}
    except metadata.PackageNotFoundError:
        installed = {}
    if installed != pinned:
        print(f"installing {' '.join(wanted)} with {sys.executable}", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *wanted], check=True)


def toml_list(values) -> str:
    """A TOML array of strings (JSON's string syntax is TOML's)."""
    return json.dumps(list(values), ensure_ascii=False)


def write_config(copy: Path, modules: list[str]) -> None:
    """Append a ``[tool.mutmut]`` table for ``modules`` to the copy's pyproject.toml."""
    tests = sorted({test for name in modules for test in MODULES[name][1] if (copy / test).is_file()})
    table = "\n".join([
        "", "[tool.mutmut]",
        f"source_paths = {toml_list(SOURCE_PACKAGES)}",
        f"only_mutate = {toml_list(MODULES[name][0] for name in modules)}",
        f"also_copy = {toml_list(ALSO_COPY)}",
        f"pytest_add_cli_args = {toml_list(PYTEST_ARGS)}",
        f"pytest_add_cli_args_test_selection = {toml_list(tests)}",
        "use_git_change_detection = false",  # the copy has no .git
        "",
    ])
    with open(copy / "pyproject.toml", "a", encoding="utf-8") as file:
        file.write(table)


def mutmut(copy: Path, *args: str, log: Path | None = None) -> str:
    """Run ``python -m mutmut <args>`` in the copy; its output (or, with ``log``, its log's path).

    Raises
    ------
    subprocess.CalledProcessError
        When mutmut exits with a non-zero status.
    """
    command = [sys.executable, "-m", "mutmut", *args]
    if log is None:
        return subprocess.run(command, cwd=copy, check=True, capture_output=True, text=True).stdout
    with open(log, "w", encoding="utf-8") as file:
        subprocess.run(command, cwd=copy, check=True, stdout=file, stderr=subprocess.STDOUT)
    return str(log)


def statuses(copy: Path) -> dict[str, str]:
    """Mutant name -> mutmut status, from ``mutmut results --all true``."""
    found = {}
    for line in mutmut(copy, "results", "--all", "true").splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            found[name] = status
    return found


#: Prints ``mutmut show`` for every name read from stdin in one process (one process per mutant is slow).
SHOW_ALL = """
import sys
from mutmut.__main__ import cli
for name in sys.stdin.read().split():
    cli.main(["show", name], standalone_mode=False)
"""


def diffs(copy: Path, names: list[str]) -> dict[str, list[str]]:
    """Mutant name -> the lines of its ``mutmut show`` diff."""
    if not names:
        return {}
    shown = subprocess.run(
        [sys.executable, "-c", SHOW_ALL], cwd=copy, input="\n".join(names),
        check=True, capture_output=True, text=True,
    ).stdout
    found: dict[str, list[str]] = {}
    current: list[str] = []
    for line in shown.splitlines():
        if line.startswith("# ") and "__mutmut_" in line:
            current = found.setdefault(line[2:].rpartition(": ")[0], [])
        else:
            current.append(line)
    return found


def function_of(name: str) -> tuple[str | None, str]:
    """(class or None, function) of a mutant name like ``pkg.mod.xǁClassǁmethod__mutmut_3``."""
    mangled = name.partition("__mutmut_")[0].rpartition(".")[2]
    if mangled.startswith("xǁ"):
        _, class_name, function = mangled.split("ǁ", 2)
        return class_name, function
    return None, mangled.removeprefix("x_")


def def_line(tree: ast.Module, class_name: str | None, function: str) -> int:
    """Line of the first decorator or ``def`` of the function (1 when not found)."""
    scope = tree.body
    if class_name is not None:
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
        scope = classes[0].body if classes else []
    for node in scope:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            return min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return 1


def describe_survivor(name: str, status: str, diff: list[str], source: Path, relative: str) -> Survivor:
    """Where the mutant is and what it changes, from its diff against the original function."""
    removed = [line[1:].strip() for line in diff if line.startswith("-") and not line.startswith("---")]
    added = [line[1:].strip() for line in diff if line.startswith("+") and not line.startswith("+++")]
    class_name, function = function_of(name)
    text = source.read_text(encoding="utf-8")
    start = def_line(ast.parse(text), class_name, function)
    lines = text.splitlines()
    line = start
    if removed:
        line = next((n for n in range(start, len(lines) + 1) if lines[n - 1].strip() == removed[0]), start)
    qualified = f"{class_name}.{function}" if class_name else function
    return Survivor(name, status, f"{relative}:{line}", qualified, " / ".join(removed), " / ".join(added))


def collect(copy: Path, modules: list[str]) -> list[ModuleResult]:
    """Per-module counts and survivors of the finished run."""
    found = statuses(copy)
    not_killed = [name for name, status in found.items() if status not in DETECTED]
    shown = diffs(copy, not_killed)
    results = []
    for module in modules:
        path = MODULES[module][0]
        prefix = path.removesuffix(".py").replace("/", ".") + "."
        result = ModuleResult(module, path)
        for name, status in sorted(found.items(), key=lambda item: mutant_order(item[0])):
            if not name.startswith(prefix):
                continue
            result.mutants += 1
            if status in DETECTED:
                result.killed += 1
                continue
            survivor = describe_survivor(name, status, shown.get(name, []), copy / path, path)
            rule = equivalence(module, survivor)
            if rule is not None:
                result.equivalent.append((survivor, rule))
            else:
                result.survivors.append(survivor)
        results.append(result)
    return results


def mutant_order(name: str) -> tuple[str, int]:
    """Sort key: function, then mutant number."""
    function, _, number = name.rpartition("__mutmut_")
    return function, int(number) if number.isdigit() else 0


def print_module(result: ModuleResult) -> None:
    """The module's figures, its survivors and its known-equivalent mutants."""
    print(
        f"\n{result.name} ({result.path}): {result.mutants} mutants, {result.killed} killed, "
        f"{len(result.survivors)} survived, {len(result.equivalent)} equivalent, "
        f"score {result.score:.{SCORE_DIGITS}f}"
    )
    for survivor in result.survivors:
        status = "" if survivor.status == "survived" else f" [{survivor.status}]"
        print(f"  {survivor.location}  {survivor.function}  `{survivor.original}` -> `{survivor.mutated}`{status}")
    for survivor, rule in result.equivalent:
        reason = KNOWN_EQUIVALENT[rule][3]
        print(f"  equivalent {survivor.location}  `{survivor.original}` -> `{survivor.mutated}`: {reason}")


def overall_score(results: list[ModuleResult]) -> tuple[int, int, float]:
    """(killed, mutants counted, score) over every module; equivalent mutants are not counted."""
    killed = sum(r.killed for r in results)
    counted = sum(r.mutants - len(r.equivalent) for r in results)
    return killed, counted, killed / counted if counted else 1.0


def stale_equivalents(results: list[ModuleResult]) -> list[str]:
    """Rules of :data:`KNOWN_EQUIVALENT` for the modules run that matched no survivor (the code moved on)."""
    run = {r.name for r in results}
    matched = {rule for r in results for _, rule in r.equivalent}
    return [
        f"{module}.{function}: {reason}"
        for index, (module, function, _, reason) in enumerate(KNOWN_EQUIVALENT)
        if (module in run or (module == "*" and run == set(MODULES))) and index not in matched
    ]


def run(modules: list[str], keep: bool) -> int:
    """Copy, mutate, test, print; the exit status."""
    ensure_tool(ROOT)
    copy = Path(tempfile.mkdtemp(prefix="attn-mutation-"))
    try:
        copy_project(ROOT, copy)
        write_config(copy, modules)
        print(f"mutmut on {', '.join(modules)} in {copy} ...", flush=True)
        try:
            mutmut(copy, "run", log=copy / "mutmut.log")
        except subprocess.CalledProcessError:
            tail = (copy / "mutmut.log").read_text(encoding="utf-8", errors="replace").splitlines()[-LOG_TAIL_LINES:]
            print("mutmut failed:\n" + "\n".join(tail), file=sys.stderr)
            return EXIT_TOOL_FAILED
        results = collect(copy, modules)
    finally:
        if keep:
            print(f"kept {copy}")
        else:
            shutil.rmtree(copy, ignore_errors=True)
    for result in results:
        print_module(result)
    for rule in stale_equivalents(results):
        print(f"\nstale KNOWN_EQUIVALENT rule (it matched no survivor): {rule}")
    killed, counted, score = overall_score(results)
    print(f"\noverall: {killed} of {counted} mutants killed, score {score:.{SCORE_DIGITS}f} (target {SCORE_TARGET:.2f})")
    return 0 if score >= SCORE_TARGET else EXIT_BELOW_TARGET


def main(argv: list[str] | None = None) -> int:
    """Parse the options and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", choices=sorted(MODULES), help="restrict to this module (repeatable)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy and print its path")
    options = parser.parse_args(argv)
    return run(options.module or list(MODULES), options.keep)


if __name__ == "__main__":
    sys.exit(main())
