"""Grade the same notebooks through ``attn-course grade``, nbgrader and otter: the real tools, each bounded.

Used by the test suite and by ``benchmarks/export_agreement.py``. Every tool runs as a
subprocess of this environment's interpreter (its ``bin`` first on PATH: nbgrader needs
``alembic``) with a timeout; ``otter run`` has none of its own.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.export.target import ExportError

#: Seconds any one tool call may take.
TOOL_TIMEOUT_S = 600
BIN = Path(sys.executable).parent


class ToolTimeout(ExportError):
    """A tool did not finish within its bound."""


@dataclass(frozen=True)
class Graded:
    """One notebook's score from one grader, and the seconds it took (nbgrader: its share of one autograde).

    ``in_kernel``: for ``attn-course grade``, the score without the credit it carried forward from wrong upstream
    functions, which grading in the kernel cannot give (docs/threat-model.md); None for the other graders.
    """

    score: float
    seconds: float
    in_kernel: float | None = None


def score_without_carry(record: dict) -> float:
    """The score of a JSON record of ``attn-course grade`` with every pass carried forward counted as a failure.

    Penalties apply per question, as the exported grade cells apply them (each rounded to 4 decimals).
    """
    keep = 1.0
    for penalty in record.get("penalties", []):
        keep *= 1.0 - float(penalty["fraction"])
    total = 0.0
    for question in record["questions"]:
        tests = question["tests"]
        weights = sum(t["weight"] for t in tests)
        passed = sum(t["weight"] for t in tests if t["status"] == "passed" and not t.get("carried_from"))
        raw = round(question["max_score"] * passed / weights, 4) if weights else 0.0
        total += round(raw * keep, 4)
    return round(total, 4)


def tool_env() -> dict[str, str]:
    """The environment the tools run in: this interpreter's ``bin`` first on PATH."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def run_tool(command: list[str], cwd: Path, timeout: float = TOOL_TIMEOUT_S) -> subprocess.CompletedProcess:
    """Run a tool; its output is returned.

    Raises
    ------
    ExportError
        When it fails; :class:`ToolTimeout` when it times out.
    """
    try:
        done = subprocess.run(command, cwd=cwd, env=tool_env(), capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise ToolTimeout(f"{' '.join(command[:3])} did not finish within {timeout:g} s") from None
    if done.returncode != 0:
        raise ExportError(f"{' '.join(command)} failed ({done.returncode}): {(done.stderr or done.stdout)[-3000:]}")
    return done


def ours(assignment_id: str, notebook: Path, seed: int, course_file: Path) -> Graded:
    """``attn-course grade --seed`` on one notebook: the score with the import policy's penalty (no submission time, so
    no late penalty), and the score grading in the kernel can give (:func:`score_without_carry`)."""
    started = time.perf_counter()
    done = run_tool([str(BIN / "attn-course"), "--course", str(course_file), "grade", assignment_id, str(notebook),
                     "--single", "--seed", str(seed), "--format", "json"], notebook.parent)
    record = json.loads(done.stdout)
    return Graded(float(record["score"]), time.perf_counter() - started, score_without_carry(record))


def nbgrader_release(course_dir: Path, assignment_id: str) -> Path:
    """``nbgrader generate_assignment``; the release folder."""
    run_tool([str(BIN / "nbgrader"), "generate_assignment", assignment_id, "--force"], course_dir)
    return course_dir / "release" / assignment_id


def nbgrader_grades(course_dir: Path, assignment_id: str, notebooks: dict[str, Path], notebook_name: str) -> dict[str, Graded]:
    """Submit ``notebooks`` (student -> file), ``nbgrader autograde`` them in one call, ``nbgrader export``; scores by student."""
    for student, path in notebooks.items():
        target = course_dir / "submitted" / student / assignment_id / notebook_name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    started = time.perf_counter()
    run_tool([str(BIN / "nbgrader"), "autograde", assignment_id, "--force"], course_dir)
    share = (time.perf_counter() - started) / max(len(notebooks), 1)
    run_tool([str(BIN / "nbgrader"), "export"], course_dir)
    with (course_dir / "grades.csv").open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["assignment"] == assignment_id]
    return {row["student_id"]: Graded(float(row["score"]), share) for row in rows if row["student_id"] in notebooks}


def otter_score(results: dict) -> float:
    """The total of an otter results.json: its score, else the sum of its tests' scores."""
    if isinstance(results.get("score"), (int, float)):
        return float(results["score"])
    return float(sum(t["score"] for t in results.get("tests", []) if isinstance(t.get("score"), (int, float))))


def otter(zip_path: Path, notebook: Path, work: Path, timeout: float = TOOL_TIMEOUT_S) -> Graded:
    """``otter run`` on one notebook, bounded by ``timeout`` seconds: otter has no timeout of its own.

    Raises
    ------
    ExportError
        When otter fails; :class:`ToolTimeout` when it does not finish in time.
    """
    out = work / f"otter-{notebook.stem}-{notebook.parent.name}"
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    run_tool([str(BIN / "otter"), "run", "-a", str(zip_path), "-o", str(out), "--no-logo", str(notebook)], work, timeout)
    seconds = time.perf_counter() - started
    return Graded(otter_score(json.loads((out / "results.json").read_text(encoding="utf-8"))), seconds)
