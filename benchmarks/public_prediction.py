"""How well the public checks predict the grade: public score against hidden score, per submission.

Run: ``.venv/bin/python benchmarks/public_prediction.py [--corpus DIR ...] [--seed 1] [-v]``

Every submission of the project's mistake corpora (``benchmarks/fresh_mistakes``,
``benchmarks/heldout_mistakes``) and, when present, the outside corpus
``/work/corpus25/blind`` (``manifest.json`` beside the files) is checked with the public
checks (``check_submission``, the student's ``attn-course check``) and graded with the
hidden tests (``grade_submission``). The public share is the public score over its maximum,
times what the import policy will leave at grading (the check shows that loss); the graded
share is the grade over its maximum. A submission is predicted when the two shares are within
``WITHIN`` (10 percentage points). Printed: per corpus and in all, the predicted share, and
each submission that is not. Target: >= 90 %; the exit status is 1 when it is missed.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.check.api import check_submission  # noqa: E402
from autograder.config import load_course  # noqa: E402
from autograder.grade.api import grade_submission  # noqa: E402
from autograder.sandbox.spares import keep_spares  # noqa: E402

HERE = Path(__file__).resolve().parent
CORPORA = (HERE / "fresh_mistakes", HERE / "heldout_mistakes", Path("/work/corpus25/blind"))
#: Largest difference of the two shares (a fraction of the maximum) still counted as predicted.
WITHIN = 0.10
TARGET = 0.90


@dataclass(frozen=True)
class Prediction:
    """One submission's public and graded shares of the maximum."""

    corpus: str
    file: str
    public: float
    graded: float

    @property
    def predicted(self) -> bool:
        return abs(self.public - self.graded) <= WITHIN + 1e-9


def corpus_entries(corpus: Path) -> list[dict]:
    """The entries (``file``, ``assignment``) of ``manifest.yml`` or ``manifest.json``; none when absent."""
    if (corpus / "manifest.yml").is_file():
        return yaml.safe_load((corpus / "manifest.yml").read_text(encoding="utf-8")) or []
    if (corpus / "manifest.json").is_file():
        return json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    return []


def public_share(course, assignment_id: str, path: Path) -> float:
    """The public score over its maximum, less the share the import policy takes at grading."""
    report = check_submission(course, assignment_id, path)
    share = report.score / report.max_score if report.max_score else 0.0
    return share * (1 - course.defaults.disallowed_import_penalty) if report.losses else share


def predict(course, corpus: Path, seed: int) -> list[Prediction]:
    """Public and graded shares of every entry of ``corpus``."""
    rows = []
    for entry in corpus_entries(corpus):
        path = corpus / entry["file"]
        graded = grade_submission(course, entry["assignment"], path, seed=seed)
        share = graded.score / graded.max_score if graded.max_score else 0.0
        rows.append(Prediction(corpus.name, entry["file"], public_share(course, entry["assignment"], path), share))
    return rows


def summary(rows: list[Prediction], verbose: bool) -> float:
    """Print the predicted share per corpus and in all, and the submissions not predicted; returns the overall share."""
    for row in rows:
        if verbose or not row.predicted:
            mark = "ok  " if row.predicted else "MISS"
            print(f"  {mark} {row.corpus}/{row.file}: public {row.public:.0%}, graded {row.graded:.0%}")
    for name in dict.fromkeys(row.corpus for row in rows):
        mine = [row for row in rows if row.corpus == name]
        hits = sum(row.predicted for row in mine)
        print(f"{name}: {hits}/{len(mine)} within {WITHIN:.0%} points ({hits / len(mine):.0%})")
    hits = sum(row.predicted for row in rows)
    share = hits / len(rows) if rows else 0.0
    print(f"all: {hits}/{len(rows)} submissions whose public score is within {WITHIN * 100:.0f} percentage points "
          f"of the grade ({share:.1%}; target >= {TARGET:.0%})")
    return share


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, action="append", help="a corpus folder (default: the three)")
    parser.add_argument("--seed", type=int, default=1, help="the grading seed")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every submission")
    args = parser.parse_args(argv)
    course = load_course(ROOT / "course.yml")
    keep_spares()
    rows = [row for corpus in (args.corpus or CORPORA) for row in predict(course, corpus, args.seed)]
    return 0 if summary(rows, args.verbose) >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
