"""Similarity: the planted corpus's copies are flagged and honest students are not; the stub is no evidence; flags only."""

from __future__ import annotations

import ast
import itertools
import csv
import io

import pytest
from click.testing import CliRunner

from autograder.cli import main
from autograder.config import load_course
from autograder.similarity.compare import similar_pairs
from autograder.similarity.report import similarity_section
from autograder.similarity.tokens import function_tokens
from tests.benchmarks.scripts import benchmark_script

CORPUS = benchmark_script("similarity_corpus")
FUNCTIONS = CORPUS.FUNCTIONS
COURSE = load_course()
HW1 = COURSE.assignments[0]


def _flagged(corpus, **options):
    return {(p.a, p.b) for p in similar_pairs(corpus.sources, FUNCTIONS, corpus.stub, **options)}


def test_renaming_comments_and_docstrings_change_no_token():
    plain = "def f(x):\n    y = np.exp(x)\n    return y / y.sum()\n"
    disguised = 'def f(x):\n    """Mine."""\n    # my own\n    total_exp = np.exp(x)  # step 1\n    return total_exp / total_exp.sum()\n'
    texts = [[t.text for t in function_tokens(ast.parse(s), "f")] for s in (plain, disguised)]
    assert texts[0] == texts[1] and "A:exp" in texts[0] and "N:np" in texts[0]
    assert function_tokens(ast.parse(plain), "missing") == []


@pytest.mark.parametrize("seed", [26, 27, 28])
def test_the_planted_copies_are_flagged_and_few_honest_pairs_are(seed):
    corpus = CORPUS.build_corpus(seed)
    flagged = _flagged(corpus)
    whole = {pair for pair in corpus.copies if all(corpus.kinds.get(s) != "partial" for s in pair)}
    assert whole <= flagged  # every copy of a whole file, however disguised
    assert len(flagged - corpus.copies) <= 1  # honest students who happen to write alike: at most one pair


def test_the_stub_and_common_code_are_no_evidence():
    endings = ("pass", "return None", "return [[], {}]")  # each student's own (tiny) code after the starter code
    starter_only = {f"s{n}": CORPUS.stub().replace("raise NotImplementedError", f"{ending}  #") for n, ending in enumerate(endings)}
    assert similar_pairs(starter_only, FUNCTIONS, CORPUS.stub(), common_share=None) == []
    assert similar_pairs(starter_only, FUNCTIONS, None, common_share=None)  # the control: the starter code alone is alike


def test_padding_a_copy_with_extra_code_does_not_hide_it():
    corpus = CORPUS.build_corpus(26)
    original, honest = sorted(s for s in corpus.sources if s not in corpus.kinds)[:2]
    calls = ("zeros", "ones", "arange", "eye", "diag", "cumsum", "cumprod", "sort", "flip", "abs", "sign", "floor", "ceil")
    padding = "\n".join(f"    junk_{n} = np.{a}(np.{b}({n}))" for n, (a, b) in enumerate(itertools.permutations(calls, 2)))
    padded = corpus.sources[original].replace("def softmax(x, axis: int = -1) -> np.ndarray:\n",
                                              "def softmax(x, axis: int = -1) -> np.ndarray:\n" + padding + "\n")
    sources = {original: corpus.sources[original], "padder": padded, honest: corpus.sources[honest]}
    assert {(p.a, p.b) for p in similar_pairs(sources, FUNCTIONS, corpus.stub)} == {tuple(sorted((original, "padder")))}


def test_a_submission_that_does_not_parse_is_never_flagged_and_ids_are_escaped():
    corpus = CORPUS.build_corpus(26)
    first = sorted(corpus.sources)[0]
    sources = {"<b>x</b>": corpus.sources[first], first: corpus.sources[first], "broken": "def softmax(:\n"}
    pairs = similar_pairs(sources, FUNCTIONS, corpus.stub)
    assert [(p.a, p.b) for p in pairs] == [tuple(sorted(("<b>x</b>", first)))]
    html = similarity_section(HW1.id, pairs, sources)
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html and "never a penalty" in html


def test_the_class_report_flags_identical_submissions_and_changes_no_score(tmp_path):
    from autograder.gradebook.store import Gradebook

    from ..gradebook.test_lms import half_row

    corpus = CORPUS.build_corpus(26)
    folder = tmp_path / "class"
    folder.mkdir()
    honest = sorted(s for s in corpus.sources if s not in corpus.kinds)[:3]
    for student in honest:
        (folder / f"{student}.py").write_text(corpus.sources[student], encoding="utf-8")
    (folder / "s99.py").write_text(corpus.sources[honest[0]], encoding="utf-8")  # a copy, as s08 and s29
    book = tmp_path / "g.sqlite3"
    with Gradebook(book) as gradebook:
        for student in (*honest, "s99"):
            gradebook.record(half_row(student))
    base = ["gradebook", "--gradebook", str(book), "--assignment", HW1.id, "--csv"]
    plain = CliRunner().invoke(main, [*base, str(tmp_path / "before.csv")])
    flagged = CliRunner().invoke(main, [*base, str(tmp_path / "after.csv"), "--html", str(tmp_path / "r.html"),
                                        "--similarity", str(folder)])
    assert plain.exit_code == 0 and flagged.exit_code == 0, flagged.output
    pair = " and ".join(sorted((honest[0], "s99")))
    assert f"similar ({HW1.id}): {pair}" in flagged.output
    assert flagged.output.count("alike (a flag") == 1
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Similar submissions" in page and "s99" in page
    before, after = (list(csv.reader(io.StringIO((tmp_path / n).read_text(encoding="utf-8")))) for n in ("before.csv", "after.csv"))
    assert before == after  # a flag, never a penalty


def test_hostile_code_costs_no_crash_and_gains_no_flag():
    corpus = CORPUS.build_corpus(26)
    first = sorted(corpus.sources)[0]
    deep = "def softmax(x, axis=-1):\n    return " + "(" * 5000 + "x" + ")" * 5000 + "\n"
    wide = "def softmax(x, axis=-1):\n    return x" + " + x" * 20000 + "\n"
    sources = {first: corpus.sources[first], "deep": deep, "wide": wide, "nul": "def softmax(x):\x00\n"}
    assert similar_pairs(sources, FUNCTIONS, corpus.stub) == []
