"""benchmarks/public_prediction.py: public and graded shares per submission, and the share predicted within 10 points."""

import json

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.paths import SOLUTIONS_DIR
from tests.benchmarks.scripts import benchmark_script

pytestmark = pytest.mark.slow
COURSE = load_course()
HW1 = COURSE.assignments[0]
bench = benchmark_script("public_prediction")

#: A disallowed import: the check shows the loss, so the public share predicts the halved grade.
DISALLOWED = "import json\n"  # not among course.yml's allowed imports


def _corpus(tmp_path, manifest_suffix: str):
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    folder = tmp_path / "corpus"
    (folder / HW1.id).mkdir(parents=True)
    (folder / HW1.id / "ok.py").write_text(solution, encoding="utf-8")
    (folder / HW1.id / "scipy.py").write_text(solution + "\n" + DISALLOWED, encoding="utf-8")
    entries = [{"file": f"{HW1.id}/{name}.py", "assignment": HW1.id} for name in ("ok", "scipy")]
    if manifest_suffix == "json":
        (folder / "manifest.json").write_text(json.dumps(entries), encoding="utf-8")
    else:
        (folder / "manifest.yml").write_text("".join(f"- file: {e['file']}\n  assignment: {e['assignment']}\n"
                                                     for e in entries), encoding="utf-8")
    return folder


@pytest.mark.parametrize("suffix", ["json", "yml"])
def test_both_manifests_are_read_and_the_policy_loss_counts_on_the_public_side(tmp_path, suffix):
    rows = bench.predict(COURSE, _corpus(tmp_path, suffix), seed=1)
    shares = {row.file.rsplit("/", 1)[-1]: (row.public, row.graded) for row in rows}
    kept = 1 - COURSE.defaults.disallowed_import_penalty
    assert shares["ok.py"] == (1.0, 1.0)
    assert shares["scipy.py"] == pytest.approx((kept, kept))
    assert all(row.predicted for row in rows)


def test_the_summary_counts_a_submission_off_by_more_than_ten_points(capsys):
    rows = [bench.Prediction("c", "a.py", 1.0, 1.0), bench.Prediction("c", "b.py", 1.0, 0.85),
            bench.Prediction("c", "d.py", 0.5, 0.6)]
    assert bench.summary(rows, verbose=False) == pytest.approx(2 / 3)
    out = capsys.readouterr().out
    assert "MISS c/b.py" in out and "a.py" not in out and "2/3" in out
