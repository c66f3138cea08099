"""Grade one small corpus with attn-course, nbgrader and otter, and print their speed and memory side by side.

The corpus of an assignment (default ``hw1_scaled_attention``): the solution notebook, nbgrader's
release stub and three buggy notebooks (:func:`autograder.export.corpus.corpus`, without the
attack). Each tool grades all five ``--runs`` times, every call a whole process measured by
:mod:`process_tree` (wall time, peak resident memory of its whole process tree):

- ``attn-course grade ID NOTEBOOK --single --seed SEED --format json``, one process per notebook,
  and one ``attn-course grade ID FOLDER --batch -j 2`` over the five;
- ``nbgrader autograde ID --force`` of the five in one call, and of one notebook (``--student``);
- ``otter run -a autograder.zip NOTEBOOK``, one process per notebook,

from the course's own exports (``attn-course export nbgrader|otter`` with the export's seed).
One table: median seconds per submission, submissions per second, peak memory, the ratio to
attn-course's single grade, and every notebook's score, which must agree to 1e-4 across tools.
A tool that is not installed gets a row saying so.

    .venv/bin/python benchmarks/compare_tools.py [--assignment ID] [--runs 3] [--quick]

Exit status: 0, or 1 when scores disagree or a tool fails.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from autograder.config import DEFAULT_COURSE_FILE, Course, load_course  # noqa: E402
from autograder.export import TARGETS, ExportContext, export_to  # noqa: E402
from autograder.export.agreement import BIN, TOOL_TIMEOUT_S, nbgrader_release, otter_score, tool_env  # noqa: E402
from autograder.export.corpus import STUB, corpus  # noqa: E402
from autograder.gradebook.store import Gradebook  # noqa: E402
from bytecode import compile_project  # noqa: E402
from machine import describe, speed_line, speeds  # noqa: E402
from process_tree import SAMPLE_INTERVAL_S, Measured, measure  # noqa: E402

DEFAULT_ASSIGNMENT = "hw1_scaled_attention"
DEFAULT_RUNS = 3
#: Buggy notebooks in the corpus, after the solution and the stub.
BUGGY_COUNT = 3
#: Grading processes of attn-course's batch.
JOBS = 2
#: Largest score difference that still counts as agreement.
TOLERANCE = 1e-4
#: Characters of a failing tool's error output shown in its row.
ERROR_TAIL_CHARS = 160
OURS, NBGRADER, OTTER = "attn-course", "nbgrader", "otter"
OTTER_ZIP = "autograder.zip"
GRADES_CSV = "grades.csv"


class ToolFailed(Exception):
    """A tool exited with an error or timed out: the message says which, with the end of its output."""


@dataclass(frozen=True)
class Corpus:
    """The notebooks to grade and the exports that grade them.

    Attributes
    ----------
    assignment_id : str
        The assignment.
    notebook_name : str
        The file name of its notebook.
    seed : int
        The exports' seed, which ``attn-course grade --seed`` replays.
    files : dict of str to Path
        Each notebook by corpus name (solution, stub, buggy students), in corpus order.
    batch_dir : Path
        A class folder holding the same notebooks, one folder per name.
    nbgrader_dir : Path or None
        The nbgrader course directory (None: nbgrader is not installed).
    otter_zip : Path or None
        Otter's autograder zip (None: otter is not installed).
    work : Path
        Scratch space.
    """

    assignment_id: str
    notebook_name: str
    seed: int
    files: dict[str, Path]
    batch_dir: Path
    nbgrader_dir: Path | None
    otter_zip: Path | None
    work: Path

    @property
    def names(self) -> list[str]:
        """The corpus names, in order."""
        return list(self.files)


@dataclass(frozen=True)
class Row:
    """One line of the table: a way of grading the corpus and what it cost.

    Attributes
    ----------
    label : str
        The tool and mode, with the footnote that says how the figures were obtained.
    seconds : float
        Median seconds per submission.
    throughput : float
        Submissions per second.
    peak_tree_mb : float
        Peak resident memory of the tool's whole process tree, the largest over its calls.
    processes : int
        Most processes seen at once in the tree.
    scores : dict of str to list of float
        Every run's score of each notebook, by corpus name.
    note : str
        Instead of figures: why there are none (not installed, failed).
    failed : bool
        Whether the tool failed (the corpus is then not proven to be graded alike).
    replayed : bool or None
        For grading with fresh seeds (attn-course's batch): whether every score was reproduced by a
        replay of its seed, which then stands for agreement. None: compared with attn-course's single grade.
    """

    label: str
    seconds: float = float("nan")
    throughput: float = float("nan")
    peak_tree_mb: float = float("nan")
    processes: int = 0
    scores: dict[str, list[float]] = field(default_factory=dict)
    note: str = ""
    failed: bool = False
    replayed: bool | None = None


def installed(tool: str) -> bool:
    """Whether ``tool``'s command is in this environment's ``bin``."""
    return (BIN / tool).is_file()


def run(command: list[str], cwd: Path) -> Measured:
    """Measure one tool call in the tools' environment.

    Raises
    ------
    ToolFailed
        When it times out or exits with an error.
    """
    result = measure(command, cwd=cwd, env=tool_env(), timeout=TOOL_TIMEOUT_S)
    if result.timed_out or result.returncode != 0:
        what = "timed out" if result.timed_out else f"exit {result.returncode}"
        tail = (result.stderr or result.stdout).strip()[-ERROR_TAIL_CHARS:].replace("\n", " | ")
        raise ToolFailed(f"{Path(command[0]).name} {command[1]}: {what}: {tail}")
    return result


def prepare(course: Course, assignment_id: str, work: Path) -> Corpus:
    """Export the assignment to nbgrader and otter (those installed) and write the corpus notebooks.

    The stub is nbgrader's release notebook when nbgrader is installed (what students receive),
    else the corpus's own rendering of it.
    """
    assignment = course.assignment(assignment_id)
    context = ExportContext(course, DEFAULT_COURSE_FILE, (assignment_id,))
    spec = context.spec(assignment_id)
    nbgrader_dir = otter_zip = release = None
    if installed(NBGRADER):
        nbgrader_dir = work / NBGRADER
        export_to(TARGETS[NBGRADER], context, nbgrader_dir)
        release = nbgrader_release(nbgrader_dir, assignment_id) / assignment.notebook
    if installed(OTTER):
        export_to(TARGETS[OTTER], context, work / OTTER)
        otter_zip = work / OTTER / assignment_id / OTTER_ZIP
    files: dict[str, Path] = {}
    for entry in corpus(course, assignment_id, spec, buggy=BUGGY_COUNT, attack=False):
        path = work / "notebooks" / entry.name / assignment.notebook
        path.parent.mkdir(parents=True)
        if entry.kind == STUB and release is not None:
            shutil.copyfile(release, path)
        else:
            path.write_text(entry.notebook, encoding="utf-8")
        files[entry.name] = path
    batch_dir = work / "batch"
    for name, path in files.items():
        (batch_dir / name).mkdir(parents=True)
        shutil.copyfile(path, batch_dir / name / assignment.notebook)
    return Corpus(assignment_id, assignment.notebook, spec.seed, files, batch_dir, nbgrader_dir, otter_zip, work)


def per_notebook(label: str, data: Corpus, runs: int, grade: Callable[[str, Path, int], tuple[Measured, float]]) -> Row:
    """Grade every notebook ``runs`` times, one call each, after one unmeasured call (warm caches).

    Parameters
    ----------
    grade : callable
        ``grade(name, notebook, run)``: one measured call, and the score it gave.
    """
    first = data.names[0]
    grade(first, data.files[first], -1)
    calls, scores = [], {name: [] for name in data.names}
    for number in range(runs):
        for name, path in data.files.items():
            measured, score = grade(name, path, number)
            calls.append(measured)
            scores[name].append(score)
    median = statistics.median(call.seconds for call in calls)
    return Row(label, median, 1 / median, max(c.peak_tree_mb for c in calls), max(c.peak_processes for c in calls), scores)


def grouped(label: str, calls: list[Measured], count: int, scores: dict[str, list[float]]) -> Row:
    """A row for calls that each grade ``count`` notebooks: seconds per submission are the median call over ``count``."""
    median = statistics.median(call.seconds for call in calls)
    return Row(label, median / count, count / median, max(c.peak_tree_mb for c in calls),
               max(c.peak_processes for c in calls), scores)


def ours_command(data: Corpus, *arguments: str) -> list[str]:
    """``attn-course --course <course.yml> grade ID`` followed by ``arguments``."""
    return [str(BIN / "attn-course"), "--course", str(DEFAULT_COURSE_FILE), "grade", data.assignment_id, *arguments]


def single_command(data: Corpus, notebook: Path, seed: int) -> list[str]:
    """``attn-course grade ID NOTEBOOK --single --seed SEED --format json``: one submission, its JSON record."""
    return ours_command(data, str(notebook), "--single", "--seed", str(seed), "--format", "json")


def ours_single(data: Corpus, runs: int) -> Row:
    """``attn-course grade --single --seed`` on each notebook: its raw score (before late and import penalties)."""
    def grade(name: str, path: Path, number: int) -> tuple[Measured, float]:
        """One measured single grade with the export's seed, and its raw score."""
        measured = run(single_command(data, path, data.seed), path.parent)
        return measured, float(json.loads(measured.stdout)["raw_score"])

    return per_notebook(f"{OURS} grade --single [a]", data, runs, grade)


def replay_score(data: Corpus, name: str, seed: int) -> float:
    """The raw score of ``attn-course grade --single --seed SEED`` on the corpus notebook ``name`` (unmeasured)."""
    path = data.files[name]
    done = run(single_command(data, path, seed), path.parent)
    return float(json.loads(done.stdout)["raw_score"])


def ours_batch(data: Corpus, runs: int) -> Row:
    """``attn-course grade FOLDER --batch -j 2`` into a fresh gradebook per run: raw scores from the gradebook.

    A batch draws a fresh seed per submission (it takes no ``--seed``), so a buggy notebook's score may
    differ from the fixed seed's. The row's agreement is therefore its own: every score it recorded is
    replayed by ``attn-course grade --single --seed <the seed it recorded>`` and must come out the same.
    """
    calls, scores, replayed = [], {name: [] for name in data.names}, True
    for number in range(runs):
        gradebook = data.work / f"gradebook-{number}.sqlite3"
        calls.append(run(ours_command(data, str(data.batch_dir), "--batch", "-j", str(JOBS), "--gradebook",
                                      str(gradebook), "--quiet"), data.work))
        with Gradebook(gradebook) as book:
            graded = {row.student: row for row in book.rows(data.assignment_id)}
        for name in data.names:
            row = graded.get(name)
            scores[name].append(float("nan") if row is None else row.raw_score)
            replayed &= row is not None and row.seed is not None and abs(
                replay_score(data, name, row.seed) - row.raw_score) <= TOLERANCE
    batch = grouped(f"{OURS} grade --batch -j {JOBS} [b]", calls, len(data.names), scores)
    return replace(batch, replayed=replayed)


def nbgrader_scores(data: Corpus) -> dict[str, float]:
    """``nbgrader export``: the latest score of each corpus notebook, from its ``grades.csv``."""
    run([str(BIN / NBGRADER), "export"], data.nbgrader_dir)
    with (data.nbgrader_dir / GRADES_CSV).open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["assignment"] == data.assignment_id]
    return {row["student_id"]: float(row["score"]) for row in rows if row["student_id"] in data.files}


def nbgrader_rows(data: Corpus, runs: int) -> list[Row]:
    """``nbgrader autograde`` of all the submitted notebooks in one call, and of one notebook per call."""
    for name, path in data.files.items():
        target = data.nbgrader_dir / "submitted" / name / data.assignment_id / data.notebook_name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    autograde = [str(BIN / NBGRADER), "autograde", data.assignment_id, "--force"]
    run(autograde, data.nbgrader_dir)  # unmeasured: warm caches, create the gradebook
    calls, scores = [], {name: [] for name in data.names}
    for _ in range(runs):
        calls.append(run(autograde, data.nbgrader_dir))
        for name, score in nbgrader_scores(data).items():
            scores[name].append(score)
    together = grouped(f"{NBGRADER} autograde, {len(data.names)} in one call [c]", calls, len(data.names), scores)

    def grade_one(name: str, path: Path, number: int) -> tuple[Measured, float]:
        """One measured autograde of one student's notebook, and its score (``nbgrader export``, unmeasured)."""
        measured = run([*autograde, "--student", name], data.nbgrader_dir)
        return measured, nbgrader_scores(data)[name]

    return [together, per_notebook(f"{NBGRADER} autograde, 1 notebook [d]", data, runs, grade_one)]


def otter_row(data: Corpus, runs: int) -> Row:
    """``otter run`` on each notebook, its results in a fresh folder: the total score of its ``results.json``."""
    def grade(name: str, path: Path, number: int) -> tuple[Measured, float]:
        """One measured ``otter run`` into a folder of its own, and the score of its results."""
        out = data.work / "otter-results" / f"{name}-{number}"
        out.mkdir(parents=True, exist_ok=True)
        measured = run([str(BIN / OTTER), "run", "-a", str(data.otter_zip), "-o", str(out), "--no-logo", str(path)], data.work)
        return measured, otter_score(json.loads((out / "results.json").read_text(encoding="utf-8")))

    return per_notebook(f"{OTTER} run [e]", data, runs, grade)


def grade_all(data: Corpus, runs: int) -> list[Row]:
    """Every row of the table, attn-course's single grade first; a tool not installed or failing gets a row saying so."""
    plans: list[tuple[str, str, Callable[[], list[Row]]]] = [
        (OURS, f"{OURS} grade --single", lambda: [ours_single(data, runs)]),
        (OURS, f"{OURS} grade --batch", lambda: [ours_batch(data, runs)]),
        (NBGRADER, f"{NBGRADER} autograde", lambda: nbgrader_rows(data, runs)),
        (OTTER, f"{OTTER} run", lambda: [otter_row(data, runs)]),
    ]
    rows: list[Row] = []
    for tool, label, grade in plans:
        if not installed(tool):
            rows.append(Row(label, note=f"not installed (no {BIN / tool}): skipped"))
            continue
        try:
            rows += grade()
        except ToolFailed as error:
            rows.append(Row(label, note=f"FAILED: {error}", failed=True))
    return rows


def agrees(row: Row, reference: dict[str, list[float]]) -> bool:
    """Whether every run's score of every notebook is within :data:`TOLERANCE` of attn-course's single grade.

    A row graded with fresh seeds agrees when its replays reproduced its scores (:attr:`Row.replayed`).
    """
    if row.replayed is not None:
        return row.replayed
    return bool(reference) and all(
        abs(score - reference[name][0]) <= TOLERANCE for name, scores in row.scores.items() for score in scores
    ) and set(row.scores) == set(reference)


def versions() -> str:
    """The tools' versions (installed distributions)."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for distribution in ("attn-course", "nbgrader", "otter-grader"):
        try:
            found.append(f"{distribution} {version(distribution)}")
        except PackageNotFoundError:
            found.append(f"{distribution} absent")
    return ", ".join(found)


def footnotes(data: Corpus, runs: int) -> list[str]:
    """How each figure of the table was obtained."""
    count, calls = len(data.names), len(data.names) * runs
    return [
        f"[a] median wall time of one whole `attn-course grade ID NOTEBOOK --single --seed {data.seed} --format json` "
        f"process, over {count} notebooks x {runs} runs ({calls} calls, after 1 warm-up); submissions/s = 1 / median; "
        "scores: raw_score of its JSON",
        f"[b] one `attn-course grade ID FOLDER --batch -j {JOBS}` over the {count} (a fresh gradebook each run, so all are "
        f"graded): median wall / {count}; submissions/s = {count} / median wall; scores: the gradebook's raw_score. A batch "
        "draws a fresh seed per submission (no --seed), so a buggy notebook may score otherwise than with the export's "
        "seed: agree means every recorded score was reproduced by `grade --single --seed <its recorded seed>`",
        f"[c] one `nbgrader autograde ID --force` of the {count} submitted notebooks (after 1 warm-up call): median wall / "
        f"{count}; submissions/s = {count} / median wall; scores: `nbgrader export` after each run",
        f"[d] `nbgrader autograde ID --force --student NAME`, one notebook per call: median over {calls} calls "
        "(after 1 warm-up); submissions/s = 1 / median",
        f"[e] `otter run -a autograder.zip -o DIR NOTEBOOK`, one process per notebook: median over {calls} calls "
        "(after 1 warm-up); submissions/s = 1 / median; scores: total of its results.json",
        f"peak MB: largest sum of VmRSS over the tool's process and all its descendants (Jupyter kernels, sandboxes), "
        f"sampled every {SAMPLE_INTERVAL_S * 1000:g} ms, max over its calls; a page shared by n processes counts n times. "
        "procs: most processes alive at once in that tree",
        f"x ours: s/sub over [a]'s. scores: of every run (the first shown); agree: all within {TOLERANCE:g} of [a]'s",
    ]


def verdict(row: Row, reference: dict[str, list[float]]) -> str:
    """The agree column of a row."""
    word = "yes" if agrees(row, reference) else "NO"
    return word if row.replayed is None else f"{word} (replayed seeds)"


def print_table(data: Corpus, runs: int, rows: list[Row]) -> None:
    """Print the one table: a row per tool and mode, the scores of every notebook, and the footnotes."""
    reference = rows[0].scores if rows and not rows[0].note else {}
    base = rows[0].seconds if reference else float("nan")
    label_width = max(len(row.label) for row in rows)
    widths = [max(len(name), len(f"{1:.4f}")) for name in data.names]
    print(f"{data.assignment_id}: {len(data.names)} notebooks ({', '.join(data.names)}), {runs} run(s), seed {data.seed}")
    print(f"{'tool':<{label_width}}  {'s/sub':>6}  {'sub/s':>6}  {'peak MB':>7}  {'procs':>5}  {'x ours':>6}  "
          + "  ".join(f"{name:>{width}}" for name, width in zip(data.names, widths)) + "  agree")
    for row in rows:
        if row.note:
            print(f"{row.label:<{label_width}}  {row.note}")
            continue
        cells = "  ".join(f"{row.scores[name][0]:>{width}.4f}" for name, width in zip(data.names, widths))
        print(f"{row.label:<{label_width}}  {row.seconds:>6.2f}  {row.throughput:>6.2f}  {row.peak_tree_mb:>7.0f}  "
              f"{row.processes:>5}  {row.seconds / base:>6.2f}  {cells}  {verdict(row, reference)}")
    for row in rows:
        if not row.note and row.replayed is None and not agrees(row, reference):
            for name, scores in row.scores.items():
                if any(not abs(score - reference.get(name, [float("nan")])[0]) <= TOLERANCE for score in scores):
                    print(f"  disagreement: {row.label}: {name} scored {', '.join(f'{s:.4f}' for s in scores)} "
                          f"over its runs, {OURS} {reference.get(name, [float('nan')])[0]:.4f}")
    print()
    shown = " ".join(row.label for row in rows if not row.note)
    for note in footnotes(data, runs):
        marker = note.split(" ", 1)[0]
        if not marker.startswith("[") or marker in shown:
            print(note)


def parse_arguments(argv: list[str] | None, assignment_ids: list[str]) -> argparse.Namespace:
    """The command line: ``--assignment``, ``--runs``, ``--quick``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", default=DEFAULT_ASSIGNMENT, choices=assignment_ids,
                        help=f"the assignment whose corpus is graded (default: {DEFAULT_ASSIGNMENT})")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help=f"repeats of every measurement (default: {DEFAULT_RUNS})")
    parser.add_argument("--quick", action="store_true", help="one run: a smoke test")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Grade the corpus with every tool and print the table; 1 when scores disagree or a tool failed."""
    started = time.perf_counter()
    course = load_course()
    args = parse_arguments(argv, [assignment.id for assignment in course.assignments])
    runs = 1 if args.quick else max(args.runs, 1)
    compile_project()
    print(f"machine: {describe()}; {versions()}")
    speed_before = speeds()
    with tempfile.TemporaryDirectory(prefix="compare-tools-") as scratch:
        data = prepare(course, args.assignment, Path(scratch))
        rows = grade_all(data, runs)
    print(speed_line(speed_before, speeds()))
    print_table(data, runs, rows)
    reference = rows[0].scores if not rows[0].note else {}
    bad = [row.label for row in rows if row.failed or (not row.note and not agrees(row, reference))]
    print(f"\nscores {'disagree or a tool failed: ' + ', '.join(bad) if bad else f'agree to {TOLERANCE:g}'}; "
          f"wall time of this script: {time.perf_counter() - started:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
