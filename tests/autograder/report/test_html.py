"""feedback.html: what it holds, that student text stays text, and that a real browser shows it well."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.demo.browser import open_page
from autograder.engine.results import FAILED, PASSED, Diagnosis, TestResult
from autograder.grade.figures import VarianceRow, WeightsFigure
from autograder.report.html import to_html
from autograder.report.formats import FORMATS
from autograder.grade.result import GradeResult, Penalty
from autograder.scoring import QuestionScore
from autograder.i18n import msg, render
from tests.chromium import (  # noqa: F401 - chromium and cjk_font are fixtures
    chromium,
    cjk_font,
    cjk_glyph_problems,
    coloured_share,
    glyph_boxes_script,
    page_problems,
)

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
NO_SCALE = Diagnosis("attention.no_scaling", "Divide the scores Q K^T by sqrt(d_k) before the softmax.")
WORKED = WeightsFigure(
    "attention on the worked example",
    ((0.4519, 0.2741, 0.2741), (0.2741, 0.4519, 0.2741), (0.2741, 0.2741, 0.4519)),
    ((0.5761, 0.2119, 0.2119), (0.2119, 0.5761, 0.2119), (0.2119, 0.2119, None)),
    failing=True, shape=(3, 3), student_shape=(3, 3),
)
BATCHED = WeightsFigure("attention on batched inputs", tuple(tuple(0.1 for _ in range(12)) for _ in range(12)),
                        tuple(tuple(0.2 for _ in range(12)) for _ in range(12)), True, (2, 14, 12), (2, 14, 12))
ATTENTION_TESTS = (
    TestResult("test_worked_example", "scaled_dot_product_attention", 1.0, "The 3-token example.", FAILED,
               "attention on the worked example: A differs; first at index (0, 0): expected 0.4519, got 0.5761",
               "mismatch", (NO_SCALE,), figures=(WORKED,)),
    TestResult("test_batched", "scaled_dot_product_attention", 2.0, "Inputs with one batch dimension.", FAILED,
               f"attention on batched inputs: {HOSTILE}", "mismatch", (NO_SCALE,), figures=(BATCHED,)),
    TestResult("test_shape", "scaled_dot_product_attention", 1.0, "Output shape.", PASSED),
)
VARIANCE_TESTS = (
    TestResult("test_variance[small]", "dot_product_variance", 1.0, "Var is d_k", PASSED, figures=(VarianceRow(5, 4.98, 0.996),)),
    TestResult("test_variance[large]", "dot_product_variance", 1.0, "Var is d_k", PASSED, figures=(VarianceRow(64, 63.1, 0.986),)),
)
RESULT = GradeResult(
    assignment_id="hw1_scaled_attention",
    origin=f"{HOSTILE}.py",
    questions=(
        QuestionScore("softmax", 1, 2.0, 2.0, (TestResult("test_rows", "softmax", 1.0, "Rows sum to one", PASSED),)),
        QuestionScore("scaled_dot_product_attention", 2, 4.0, 1.0, ATTENTION_TESTS),
        QuestionScore("dot_product_variance", 3, 2.0, 2.0, VARIANCE_TESTS),
    ),
    max_score=8.0, raw_score=5.0, score=2.5,
    penalties=(Penalty(f"imports outside the allowed list: {HOSTILE} (line 1)", 0.5),),
    load_notes=("Not available when grading: matplotlib (line 3). These imports were skipped; your functions were loaded "
                "without them.",),
    isolation="bwrap", execution_time=0.5, grader_version="0.1.0",
)


def test_html_is_a_registered_format_written_as_feedback_html():
    assert FORMATS["html"].feedback_file == "feedback.html"
    assert FORMATS["html"].render(RESULT) == to_html(RESULT)


def test_the_page_has_every_question_its_score_the_failures_and_the_diagnosis():
    page = to_html(RESULT)
    for number, function, score in ((1, "softmax", "2 / 2"), (2, "scaled_dot_product_attention", "1 / 4"), (3, "dot_product_variance", "2 / 2")):
        assert re.search(rf"Q{number} <code>{function}</code> <span class=\"\w+\">{score}</span>", page)
    assert "expected 0.4519, got 0.5761" in page
    assert "attention.no_scaling" in page and "Divide the scores Q K^T by sqrt(d_k)" in page
    assert page.count("Divide the scores Q K^T") == 1  # named once per question, not per test
    assert "Score: 2.5 / 8" in page and "Not available when grading: matplotlib" in page


def test_student_text_is_escaped_and_the_page_holds_no_script_and_loads_nothing():
    page = to_html(RESULT)
    assert "<script" not in page and "onerror=alert" not in page.replace("onerror=alert(1)&gt;", "")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:;' in page
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert not re.search(r"(src|href)=\"(?!data:)", page)


def test_heatmaps_are_inline_pngs_for_each_kept_figure_and_the_variance_table_has_the_students_rows():
    page = to_html(RESULT)
    assert page.count('<img class="heatmap"') == 2
    assert page.count('src="data:image/png;base64,iVBORw0KGgo') == 2
    assert "a 12×12 slice of shape (2, 14, 12)" in page
    assert "<tr><td>5</td><td>4.98</td><td>≈ 5</td><td>0.996</td><td>≈ 1</td></tr>" in page


def test_without_the_students_rows_the_variance_table_is_the_references():
    question = QuestionScore("dot_product_variance", 1, 2.0, 0.0, ())
    page = to_html(GradeResult("hw1_scaled_attention", "x.py", (question,), 2.0, 0.0, 0.0))
    assert "The variance experiment (reference" in page and "<tr><td>256</td>" in page


@pytest.mark.slow
def test_a_real_browser_shows_the_page_without_errors_and_the_heatmaps_visible(tmp_path, chromium):
    path = tmp_path / "feedback.html"
    path.write_text(to_html(RESULT), encoding="utf-8")
    report = open_page(path, chromium)
    assert page_problems(report, "heatmap", minimum_images=2) == []
    assert coloured_share(report.screenshot) > 0.02  # the heatmaps' colours reach the screen


@pytest.mark.slow
def test_the_browser_check_catches_a_script_a_request_an_overflow_and_a_broken_heatmap(tmp_path, chromium):
    broken = to_html(RESULT).replace(
        "</body>",
        '<script src="https://example.invalid/x.js"></script><img class="heatmap" alt="" src="data:image/png;base64,AAAA">'
        '<div style="width:2000px">wide</div><script>console.error("boom")</script></body>',
    )
    path = tmp_path / "broken.html"
    path.write_text(broken, encoding="utf-8")
    problems = page_problems(open_page(path, chromium), "heatmap", minimum_images=3)
    assert any(p.startswith("error:") for p in problems)
    assert any("script(s)" in p for p in problems)
    assert any(p.startswith("wider than the viewport") for p in problems)
    assert any(p.startswith("heatmap 2 not shown") for p in problems)


#: Where the Chinese page's glyphs are measured: the first question's "What failed" heading.
HEADING = "section.question h3"
#: Font folders without Chinese glyphs (a browser limited to them draws Chinese as boxes).
LATIN_FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation")


@pytest.mark.slow
def test_a_real_browser_shows_the_chinese_feedback_in_chinese_characters(tmp_path, chromium, cjk_font):
    path = tmp_path / "feedback.html"
    path.write_text(to_html(RESULT, "zh"), encoding="utf-8")
    report = open_page(path, chromium, script=glyph_boxes_script(HEADING))
    assert page_problems(report, "heatmap", minimum_images=2) == []
    assert "".join(box["ch"] for box in report.measured) == render(msg("What failed"), "zh")
    assert cjk_glyph_problems(report.screenshot, report.measured) == []


@pytest.mark.slow
def test_the_glyph_check_sees_boxes_when_the_browser_has_no_chinese_font(tmp_path, chromium, monkeypatch):
    latin = next((folder for folder in LATIN_FONT_DIRS if Path(folder).is_dir()), None)
    if latin is None:
        pytest.skip(f"none of {LATIN_FONT_DIRS} to limit the browser to")
    config = tmp_path / "fonts.conf"
    config.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>{latin}</dir>'
                      f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>\n", encoding="utf-8")
    monkeypatch.setenv("FONTCONFIG_FILE", str(config))  # the browser sees only Latin fonts
    path = tmp_path / "feedback.html"
    path.write_text(to_html(RESULT, "zh"), encoding="utf-8")
    report = open_page(path, chromium, script=glyph_boxes_script(HEADING))
    problems = cjk_glyph_problems(report.screenshot, report.measured)
    assert problems and all(p.endswith(("(tofu)", "is blank")) for p in problems)


# --- short pages: a few cases, the tolerance once, no pictures that cannot show the failure ---------------------------

def _weights_result(figure: WeightsFigure, message: str = "attention on batched inputs: A has dtype float32") -> GradeResult:
    test = TestResult("test_batched", "scaled_dot_product_attention", 1.0, "Inputs with one batch dimension.", FAILED,
                      message, "mismatch", figures=(figure,))
    question = QuestionScore("scaled_dot_product_attention", 1, 4.0, 0.0, (test,))
    return GradeResult("hw1_scaled_attention", "x.py", (question,), 4.0, 0.0, 0.0)


SAME = ((0.4519, 0.2741), (0.2741, 0.4519))


@pytest.mark.parametrize("figure", [
    WeightsFigure("dtype only", SAME, SAME, True, (2, 2), (2, 2)),  # the same numbers: only the dtype was wrong
    WeightsFigure("shape only", SAME, SAME, True, (2, 2), (1, 2, 2)),  # a size-1 axis too many
    WeightsFigure("NaN only", SAME, ((None, None), (None, None)), True, (2, 2), (2, 2)),
    WeightsFigure("invisible", SAME, ((0.4520, 0.2741), (0.2741, 0.4519)), True, (2, 2), (2, 2)),
], ids=lambda f: f.title)
def test_no_heatmap_pair_for_a_failure_the_heatmaps_cannot_show(figure):
    assert '<img class="heatmap"' not in to_html(_weights_result(figure))


def test_a_heatmap_pair_for_a_failure_it_shows_under_a_true_caption():
    wrong = WeightsFigure("values", SAME, ((0.5, 0.5), (0.2741, 0.4519)), True, (2, 2), (2, 2))
    page = to_html(_weights_result(wrong))
    assert page.count('<img class="heatmap"') == 1 and "your result is wrong here" in page
    some_nan = WeightsFigure("NaN where a key is masked", SAME, ((None, 0.2741), (0.2741, 0.4519)), True, (2, 2), (2, 2))
    assert to_html(_weights_result(some_nan)).count('<img class="heatmap"') == 1  # grey where it is NaN: it shows
    right = WeightsFigure("the worked example", SAME, SAME, False, (2, 2), (2, 2))
    page = to_html(_weights_result(right))
    assert page.count('<img class="heatmap"') == 1 and "your result is right here" in page


def test_the_page_shows_a_few_cases_the_others_counted_and_the_tolerance_once():
    from tests.autograder.report.test_cases import question, same_way_tests, wrong
    from autograder.report.chosen import SHOWN_CASES

    tests = [*same_way_tests(3 * SHOWN_CASES), *(TestResult(f"test_part{i}", t.question, 1.0, "Another output.", FAILED,
                                                             wrong(i, size=20 + i), "mismatch") for i, t in enumerate(same_way_tests(2)))]
    page = to_html(GradeResult("hw", "x.py", (question(*tests),), 5.0, 0.0, 0.0))
    failures = page[page.index("<ul>"):page.index("</ul>")]
    assert failures.count("<li>") <= SHOWN_CASES + 1 and "more tests fail" in failures
    assert page.count("rtol=") == 1
    verbose = to_html(GradeResult("hw", "x.py", (question(*tests),), 5.0, 0.0, 0.0), verbose=True)
    assert verbose.count("<li>") == len(tests)
