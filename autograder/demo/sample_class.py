"""A sample class generated from the instructor masters: correct, untouched, buggy and broken entries.

Each buggy student is the solution with one realistic edit (held as data: the text it
replaces and the text it puts there), so the sample class follows the masters as they
change; an edit that no longer applies is an error, caught by the tests.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

from autograder.build.markers import keep_solutions
from autograder.build.notebook import render_notebook
from autograder.config import Course
from autograder.paths import NOTEBOOK_SOURCE


@dataclass(frozen=True)
class BuggyStudent:
    """A student whose module is the solution with ``old`` replaced (once) by ``new``."""

    name: str
    bug: str  # what is wrong, for people reading the demo
    old: str
    new: str


BUGGY_STUDENTS: dict[str, tuple[BuggyStudent, ...]] = {
    "hw1_scaled_attention": (
        BuggyStudent("chen", "forgets to scale the scores", "scores = scores / math.sqrt(d_k)", "scores = scores"),
        BuggyStudent("dana", "divides by d_k instead of sqrt(d_k)", "scores = scores / math.sqrt(d_k)", "scores = scores / d_k"),
        BuggyStudent("eli", "softmax without the max shift", "exps = np.exp(x - largest)", "exps = np.exp(x)"),
        BuggyStudent("fay", "inverts the mask", "np.where(allowed, scores, -np.inf)", "np.where(allowed, -np.inf, scores)"),
        BuggyStudent("hugo", "scales the variance by d_k", "scaled_dots = dots / math.sqrt(d_k)", "scaled_dots = dots / d_k"),
        BuggyStudent("ivy", "an endless loop in the variance experiment", "dots = np.sum(q * k, axis=-1)",
                     "while n_samples > 0:\n        d_k = d_k + 0\n    dots = np.sum(q * k, axis=-1)"),
    ),
    "hw2_rnn_attention": (
        BuggyStudent("chen", "forgets the tanh in the additive score", "hidden = np.tanh(decoder_part + encoder_part)", "hidden = decoder_part + encoder_part"),
        BuggyStudent("dana", "transposes W_a in the general score", "query = s @ W_a  #", "query = s @ W_a.T  #"),
        BuggyStudent("eli", "concatenates [h; s] instead of [s; h]",
                     "W_s = W_a[:, :d_s]  # (d_a, d_s)\n    W_h = W_a[:, d_s:]  # (d_a, d_h)",
                     "W_h = W_a[:, :-d_s]  # (d_a, d_h)\n    W_s = W_a[:, -d_s:]  # (d_a, d_s)"),
        BuggyStudent("fay", "uses the raw scores as weights", "    alpha_row = alpha[..., None, :]", "    alpha = scores\n    alpha_row = alpha[..., None, :]"),
    ),
    "hw3_multi_head": (
        BuggyStudent("chen", "reshapes into heads without the transpose",
                     "return np.moveaxis(blocks, -2, -3)", "return blocks.reshape(X.shape[:-2] + (num_heads, X.shape[-2], d_head))"),
        BuggyStudent("dana", "merges heads without moving the head axis back", "per_position = np.moveaxis(X, -3, -2)", "per_position = X"),
        BuggyStudent("eli", "forgets the output projection", "Y = merge_heads(Z) @ W_o", "Y = merge_heads(Z)"),
        BuggyStudent("fay", "scales by sqrt(d_model) instead of sqrt(d_head)", "d_head = Q.shape[-1]", "d_head = X_q.shape[-1]"),
    ),
    "hw4_gradients": (
        BuggyStudent("chen", "drops the outer-product part of the softmax Jacobian", "return A * (dA - weighted_mean)", "return A * dA"),
        BuggyStudent("dana", "forgets the 1/sqrt(d_k) in dK", "dK = np.swapaxes(dS, -1, -2) @ Q / math.sqrt(d_k)", "dK = np.swapaxes(dS, -1, -2) @ Q"),
        BuggyStudent("eli", "computes dK as dS @ Q, without the transpose", "dK = np.swapaxes(dS, -1, -2) @ Q / math.sqrt(d_k)", "dK = dS @ Q / math.sqrt(d_k)"),
        BuggyStudent("fay", "lets gradient flow through masked positions",
                     "A = np.where(np.asarray(mask).astype(bool), A, np.zeros((), dtype=A.dtype))", "A = A"),
    ),
}

#: Entries that are not gradable code, with what each is.
BROKEN_ENTRIES = {
    "kim": "an empty folder",
    "lee": "a binary file named like a module",
    "max": "a notebook whose JSON is cut off",
    "nia": "a module with a syntax error",
}


class SampleClassError(ValueError):
    """A buggy student's edit no longer applies to the master."""


def buggy_source(solution: str, student: BuggyStudent) -> str:
    """The solution with the student's one edit.

    Raises
    ------
    SampleClassError
        When the master no longer holds the text the edit replaces.
    """
    if student.old not in solution:
        raise SampleClassError(f"{student.name}'s edit ({student.bug}) no longer applies: {student.old!r} is not in the master")
    return solution.replace(student.old, student.new, 1)


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")


def write_sample_class(course: Course, assignment_id: str, out_dir: Path) -> list[str]:
    """Write one entry per student into ``out_dir``; return the student names."""
    assignment = course.assignment(assignment_id)
    masters = course.layout.masters(assignment_id)
    solution = keep_solutions((masters / assignment.module).read_text(encoding="utf-8"))
    module = assignment.module
    _write(out_dir / "ada" / module, solution)
    _write(out_dir / "ben" / module, (course.layout.release(assignment_id) / module).read_text(encoding="utf-8"))
    notebook = render_notebook((masters / NOTEBOOK_SOURCE).read_text(encoding="utf-8"), solution, questions=assignment.questions)
    _write(out_dir / "gus" / assignment.notebook, notebook)
    with zipfile.ZipFile(out_dir / "olga.zip", "w") as archive:
        archive.writestr(f"olga/{module}", solution)
    for student in BUGGY_STUDENTS[assignment_id]:
        _write(out_dir / student.name / module, buggy_source(solution, student))
    (out_dir / "kim").mkdir(parents=True, exist_ok=True)
    _write(out_dir / "lee.py", b"\x7fELF\x00\x01binary")
    _write(out_dir / "max.ipynb", notebook[: len(notebook) // 2])
    _write(out_dir / "nia.py", solution.replace("def ", "def def ", 1))
    return sorted(p.name.split(".")[0] for p in out_dir.iterdir())
